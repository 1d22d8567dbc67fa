// Content-Length framing (transport.h). Header lines end in \r\n (a bare \n
// is accepted too); header names are case-insensitive; Content-Type is
// ignored. The header block ends at an empty line.
#include "tools/woc/lsp/transport.h"

#include <cctype>
#include <cstdint>

namespace wo::lsp {
namespace {

// One header line without its line end; false at end of input.
bool read_line(std::FILE* in, std::string& line) {
  line.clear();
  int c;
  while ((c = std::fgetc(in)) != EOF) {
    if (c == '\n') {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return true;
    }
    if (line.size() < 4096) line.push_back(static_cast<char>(c));  // a runaway line is cut, not stored
  }
  return !line.empty();
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Frame Transport::read() {
  Frame f;
  std::string line;
  bool any = false, have_len = false, bad_len = false;
  uint64_t len = 0;
  while (true) {
    if (!read_line(in_, line)) {
      f.kind = Frame::Eof;
      return f;
    }
    if (line.empty()) {
      if (!any) continue;  // stray blank lines between messages
      break;
    }
    any = true;
    size_t colon = line.find(':');
    if (colon == std::string::npos) {
      bad_len = true;  // not a header: the frame is unusable, but its end is still the blank line
      continue;
    }
    if (lower(line.substr(0, colon)) != "content-length") continue;
    std::string v = line.substr(colon + 1);
    size_t i = 0;
    while (i < v.size() && v[i] == ' ') ++i;
    if (i == v.size()) bad_len = true;
    for (; i < v.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(v[i])) || len > (uint64_t(1) << 40)) {
        bad_len = true;
        break;
      }
      len = len * 10 + uint64_t(v[i] - '0');
    }
    have_len = true;
  }
  if (bad_len || !have_len) {
    f.kind = Frame::BadHeader;
    f.error = have_len ? "malformed header" : "missing Content-Length header";
    return f;
  }
  if (len > kMaxBody) {
    for (uint64_t k = 0; k < len && std::fgetc(in_) != EOF; ++k) {
    }
    f.kind = Frame::BadHeader;
    f.error = "message of " + std::to_string(len) + " bytes is too large";
    return f;
  }
  f.body.resize(len);
  size_t got = len ? std::fread(f.body.data(), 1, len, in_) : 0;
  if (got != len) {
    f.kind = Frame::Eof;  // the stream ended inside a message
    return f;
  }
  f.kind = Frame::Ok;
  return f;
}

void Transport::write(const std::string& json) {
  std::fprintf(out_, "Content-Length: %zu\r\n\r\n", json.size());
  std::fwrite(json.data(), 1, json.size(), out_);
  std::fflush(out_);
}

}  // namespace wo::lsp
