// Fuzz target (c): arbitrary bytes as what a client sent on a connection,
// through the request parser of net.read_request (runtime/src/http/
// request_parser.h, llhttp strict) — no socket. In: any bytes. Out: nothing;
// a crash, sanitizer report, leak, timeout or a broken invariant (abort) is
// the finding. The invariants:
//   - the bytes fed in one piece and fed in pieces (split points from a hash
//     of the input) give the same outcome, spans and head end: what a
//     request means must not depend on how TCP cut it;
//   - a Head's spans lie inside the head, its Content-Length is within the
//     limit, an Error is 400 / 413 / 431 with a reason.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "runtime/src/http/request_parser.h"

namespace {

using wo::http::Field;
using wo::http::RequestParser;
using wo::http::Span;

struct Outcome {
  RequestParser::State state;
  int status = 0;
  const char* error = "";
  size_t head_end = 0;
  uint64_t content_length = 0;
  bool keep_alive = false;
  Span method, target;
  std::vector<Field> fields;
};

#define CHECK(cond)                                                     \
  do {                                                                  \
    if (!(cond)) {                                                      \
      std::fprintf(stderr, "fuzz_http: invariant failed: %s\n", #cond); \
      std::abort();                                                     \
    }                                                                   \
  } while (0)

// Feeds buf[0, n) in pieces whose ends come from `cuts` (ascending, < n),
// growing the visible length like the reader does; stops at Head or Error.
Outcome run(const char* buf, size_t n, const std::vector<size_t>& cuts) {
  Outcome o;
  RequestParser p(&o.fields);
  size_t start = wo::http::request_start(buf, n);
  o.state = RequestParser::State::NeedMore;
  std::vector<size_t> ends = cuts;
  ends.push_back(n);
  for (size_t end : ends) {
    if (end < start) continue;
    o.state = p.feed(buf, start, end);
    if (o.state != RequestParser::State::NeedMore) break;
  }
  o.status = p.status();
  o.error = p.error();
  o.head_end = p.head_end();
  o.content_length = p.content_length();
  o.keep_alive = p.keep_alive();
  o.method = p.method();
  o.target = p.target();
  return o;
}

bool same(Span a, Span b) { return a.off == b.off && a.len == b.len; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A copy with no slack after it, so ASan sees any read past the end.
  std::vector<char> bytes(data, data + size);
  const char* buf = bytes.data();

  Outcome whole = run(buf, size, {});

  uint64_t h = 1469598103934665603ull;  // FNV-1a: cut points vary with the input
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  std::vector<size_t> cuts;
  for (size_t at = 0; size > 1;) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    at += 1 + (h >> 33) % 24;
    if (at >= size) break;
    cuts.push_back(at);
  }
  Outcome pieces = run(buf, size, cuts);

  CHECK(whole.state == pieces.state);
  CHECK(whole.status == pieces.status);
  CHECK(std::strcmp(whole.error, pieces.error) == 0);
  if (whole.state == RequestParser::State::Error) {
    CHECK(whole.status == 400 || whole.status == 413 || whole.status == 431);
    CHECK(whole.error[0] != '\0');
  }
  if (whole.state == RequestParser::State::Head) {
    CHECK(whole.head_end <= size);
    CHECK(whole.content_length <= wo::http::kBodyMax);
    CHECK(whole.head_end == pieces.head_end);
    CHECK(whole.keep_alive == pieces.keep_alive);
    CHECK(whole.content_length == pieces.content_length);
    CHECK(same(whole.method, pieces.method));
    CHECK(same(whole.target, pieces.target));
    CHECK(whole.method.len > 0);
    CHECK(whole.method.off + whole.method.len <= whole.head_end);
    CHECK(whole.target.off + whole.target.len <= whole.head_end);
    CHECK(whole.fields.size() == pieces.fields.size());
    for (size_t i = 0; i < whole.fields.size(); ++i) {
      const Field& a = whole.fields[i];
      const Field& b = pieces.fields[i];
      CHECK(same(a.name, b.name) && same(a.value, b.value));
      CHECK(a.name.len > 0);
      CHECK(a.name.off + a.name.len <= whole.head_end);
      CHECK(a.value.off + a.value.len <= whole.head_end);
      for (size_t j = 0; j < a.name.len; ++j) CHECK(buf[a.name.off + j] != ':' && buf[a.name.off + j] != '\n');
      for (size_t j = 0; j < a.value.len; ++j) CHECK(buf[a.value.off + j] != '\r' && buf[a.value.off + j] != '\n');
    }
  }
  return 0;
}
