// The response parser of net.read_response and framework/client
// (runtime/src/http/response_parser.h, decision 0087) on its own: framings,
// interim answers, HEAD, the limits, and the findings of fuzz_http_response.
#include <doctest/doctest.h>

#include <string>

#include "runtime/src/http/response_parser.h"

using wo::http::ResponseParser;

namespace {

struct Parsed {
  ResponseParser::State state;
  int status = 0;
  std::string body, error, rest;
  bool keep_alive = false;
};

// Feeds `bytes` `step` bytes at a time, then the end of the stream (`eof`).
Parsed parse(const std::string& bytes, bool head_only = false, size_t cap = 1 << 20, size_t step = 1, bool eof = true) {
  ResponseParser p(head_only, cap);
  Parsed out;
  out.state = ResponseParser::State::NeedMore;
  size_t at = 0;
  while (at < bytes.size()) {
    size_t n = std::min(step, bytes.size() - at), used = 0;
    out.state = p.feed(bytes.data() + at, n, &used);
    if (out.state == ResponseParser::State::Done) {
      out.rest = bytes.substr(at + used);
      break;
    }
    if (out.state == ResponseParser::State::Error) break;
    at += n;
  }
  if (out.state == ResponseParser::State::NeedMore && eof) out.state = p.finish();
  out.status = p.status();
  out.body = p.body();
  out.error = p.error();
  out.keep_alive = p.keep_alive();
  return out;
}

}  // namespace

TEST_CASE("response parser: every framing gives the same body, byte by byte or whole") {
  for (size_t step : {size_t{1}, size_t{7}, size_t{4096}}) {
    Parsed a = parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1", false, 1 << 20, step);
    CHECK(a.state == ResponseParser::State::Done);
    CHECK(a.body == "hello");
    CHECK(a.rest == "HTTP/1.1");  // what follows is not this response's
    CHECK(a.keep_alive);
    Parsed c = parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n3;x=1\r\nefg\r\n0\r\n\r\n", false,
                     1 << 20, step);
    CHECK(c.state == ResponseParser::State::Done);
    CHECK(c.body == "abcdefg");
    Parsed e = parse("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the end", false, 1 << 20, step);
    CHECK(e.state == ResponseParser::State::Done);
    CHECK(e.body == "to the end");
    CHECK_FALSE(e.keep_alive);
  }
}

TEST_CASE("response parser: 1xx answers are skipped, HEAD has no body, 204 none either") {
  Parsed a = parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early\r\nLink: x\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok");
  CHECK(a.state == ResponseParser::State::Done);
  CHECK(a.status == 201);
  CHECK(a.body == "ok");
  Parsed h = parse("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", true, 1 << 20, 1, false);
  CHECK(h.state == ResponseParser::State::Done);
  CHECK(h.body.empty());
  Parsed n = parse("HTTP/1.1 204 No Content\r\n\r\n", false, 1 << 20, 1, false);
  CHECK(n.state == ResponseParser::State::Done);
  CHECK(n.status == 204);
}

TEST_CASE("response parser: limits, truncation and malformed answers are errors with a reason") {
  Parsed cap = parse("HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n" + std::string(40, 'x'), false, 16);
  CHECK(cap.state == ResponseParser::State::Error);
  CHECK(cap.error == "response body larger than 16 bytes");
  Parsed head = parse("HTTP/1.1 200 OK\r\nX-Pad: " + std::string(70000, 'p') + "\r\n\r\n");
  CHECK(head.error == "response head larger than 64 KiB");
  Parsed lie = parse("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort");
  CHECK(lie.error == "connection closed mid-response");
  Parsed mid = parse("HTTP/1.1 200 OK\r\nContent-Le");
  CHECK(mid.error == "connection closed mid-head");
  Parsed none = parse("");
  CHECK(none.error == "connection closed before a response");
  Parsed bad = parse("HTTP/1.1 two hundred\r\n\r\n");
  CHECK(bad.state == ResponseParser::State::Error);
  CHECK(bad.error.rfind("malformed response: ", 0) == 0);
}

// fuzz_http_response, crash-338dd529: llhttp reads any three digits as a
// status; "099" was taken for a final answer with status 99.
TEST_CASE("response parser: a status outside 100..599 is malformed") {
  for (const char* s : {"099", "000", "600", "999"}) {
    Parsed p = parse(std::string("HTTP/1.1 ") + s + " X\r\nContent-Length: 0\r\n\r\n");
    CHECK(p.state == ResponseParser::State::Error);
    CHECK(p.error == std::string("malformed response: status ") + std::to_string(std::stoi(s)) + " is not 100..599");
  }
}
