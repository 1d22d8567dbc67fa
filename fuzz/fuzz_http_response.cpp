// Fuzz target (d): arbitrary bytes as what a server sent back, through the
// response parser of net.read_response and framework/client
// (runtime/src/http/response_parser.h, llhttp in response mode) — no
// socket. In: any bytes; the first one chooses HEAD or not and the body cap.
// Out: nothing; a crash, sanitizer report, leak, timeout or a broken
// invariant (abort) is the finding. The invariants:
//   - the bytes fed in one piece and in pieces (split points from a hash of
//     the input), then the end of the stream, give the same outcome, status,
//     reason, headers, body, keep-alive and error: what a response means
//     must not depend on how TCP cut it;
//   - Done has a final status (101 or 200..599),
//     a body within the cap (none for HEAD) and consumed no more than it
//     was fed; Error has a reason.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/src/http/response_parser.h"

namespace {

using wo::http::ResponseParser;

struct Outcome {
  ResponseParser::State state;
  int status = 0;
  std::string reason, body, error;
  std::vector<std::pair<std::string, std::string>> headers;
  bool keep_alive = false;
  size_t consumed = 0;  // bytes of the input the response took
};

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "fuzz_http_response: invariant failed: %s\n", #cond); \
      std::abort();                                                              \
    }                                                                            \
  } while (0)

// Feeds buf[0, n) in pieces ending at `cuts` (ascending, < n) and then at n,
// then the end of the stream unless the response ended first.
Outcome run(const char* buf, size_t n, const std::vector<size_t>& cuts, bool head_only, size_t cap) {
  Outcome o;
  ResponseParser p(head_only, cap);
  std::vector<size_t> ends = cuts;
  ends.push_back(n);
  size_t from = 0;
  o.state = ResponseParser::State::NeedMore;
  for (size_t end : ends) {
    size_t used = 0;
    o.state = p.feed(buf + from, end - from, &used);
    CHECK(used <= end - from);
    if (o.state == ResponseParser::State::Done) {
      o.consumed = from + used;
      break;
    }
    if (o.state == ResponseParser::State::Error) break;
    from = end;
  }
  if (o.state == ResponseParser::State::NeedMore) {
    o.state = p.finish();
    o.consumed = n;
  }
  o.status = p.status();
  o.reason = p.reason();
  o.body = p.body();
  o.error = p.error();
  o.headers = p.headers();
  o.keep_alive = p.keep_alive();
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  bool head_only = data[0] & 1;
  size_t cap = (data[0] & 2) ? 16 : 1 << 20;  // a small cap too, so the cap's path is reached
  std::vector<char> bytes(data + 1, data + size);  // no slack after it: ASan sees a read past the end
  const char* buf = bytes.data();
  size_t n = bytes.size();

  Outcome whole = run(buf, n, {}, head_only, cap);

  uint64_t h = 1469598103934665603ull;  // FNV-1a: cut points vary with the input
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  std::vector<size_t> cuts;
  for (size_t at = 0; n > 1;) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    at += 1 + (h >> 33) % 24;
    if (at >= n) break;
    cuts.push_back(at);
  }
  Outcome pieces = run(buf, n, cuts, head_only, cap);

  CHECK(whole.state == pieces.state);
  CHECK(whole.status == pieces.status);
  CHECK(whole.error == pieces.error);
  if (whole.state == ResponseParser::State::Error) CHECK(!whole.error.empty());
  if (whole.state == ResponseParser::State::Done) {
    CHECK(whole.error.empty());
    CHECK(whole.status == 101 || (whole.status >= 200 && whole.status <= 599));
    CHECK(whole.body.size() <= cap);
    if (head_only) CHECK(whole.body.empty());
    CHECK(whole.consumed <= n);
    CHECK(whole.consumed == pieces.consumed);
    CHECK(whole.reason == pieces.reason);
    CHECK(whole.body == pieces.body);
    CHECK(whole.headers == pieces.headers);
    CHECK(whole.keep_alive == pieces.keep_alive);
  }
  return 0;
}
