// A response's head as net.write_response sends it (write_response.cpp),
// shared with the connection set of App.serve (conns.cpp, decision 0082).
#pragma once
#include <cstdint>

#include "scratch.h"
#include "wo_runtime.h"

namespace wo::http {

// Appends `HTTP/1.1 <status> <reason>`, each header of `headers` in map
// order, `Connection: keep-alive|close`, `Content-Length: <body_len>` and the
// blank line to `head`. Traps (named `what`) before appending anything that
// matters: BOUNDS for a status outside 100..999, IO for a header name that is
// not a token or a value with CR, LF or NUL; the caller's Connection,
// Content-Length and Transfer-Encoding entries are dropped.
void response_head(Bytes& head, int64_t status, WoMap* headers, int64_t body_len, bool keep_alive, const char* what,
                   const WoSite* site);

}  // namespace wo::http
