// The RawRequest record (WoRawRequest, wo_runtime.h) as the HTTP builtins
// build it: net.read_request (read_request.cpp) and the connection set of
// App.serve (conns.cpp, docs/decisions/0082).
#pragma once
#include <cstddef>
#include <cstdint>

#include "request_parser.h"
#include "wo_runtime.h"

namespace wo::http {

// A record with `status` and `error`, every other Text field "" and an empty
// header map (owned by the caller).
WoRawRequest* new_record(int64_t status, const char* error);

// The status-0 record of the head `p` parsed from `buf`: method, target,
// headers (names lowercased, values trimmed), `body` (taken: released on a
// trap too), `rest` = buf[rest_off, len), keep_alive.
WoRawRequest* build(const char* buf, const RequestParser& p, WoText* body, size_t rest_off, size_t len);

}  // namespace wo::http
