// The base protocol of the Language Server Protocol: messages framed by a
// `Content-Length: N` header block, then N bytes of JSON. Reading never throws
// on bad input: a frame without a usable length is reported as such, so the
// server can answer with an error and read on.
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>

namespace wo::lsp {

struct Frame {
  enum Kind { Ok, BadHeader, Eof } kind = Eof;
  std::string body;   // Ok: the JSON text
  std::string error;  // BadHeader: what was wrong
};

// Bodies above this are read and dropped (a garbage length must not make
// the server allocate gigabytes).
inline constexpr size_t kMaxBody = size_t(64) << 20;

class Transport {
 public:
  Transport(std::FILE* in, std::FILE* out) : in_(in), out_(out) {}
  Frame read();
  void write(const std::string& json);  // adds the header and flushes

 private:
  std::FILE* in_;
  std::FILE* out_;
};

}  // namespace wo::lsp
