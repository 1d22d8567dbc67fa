// Source files: the SourceManager owns every file's bytes; everything else
// refers to them through file ids and Locs (source.h).
#include "common/source.h"

#include <cstring>

namespace wo {

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line == 0) return {};
  const char* p = text.data();
  const char* end = p + text.size();
  // Walk to the start of line `line` (1-based).
  for (uint32_t l = 1; l < line; ++l) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (!nl) return {};  // out of range
    p = static_cast<const char*>(nl) + 1;
  }
  const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
  const char* e = nl ? static_cast<const char*>(nl) : end;
  // CRLF files: the carriage return is not shown (it would move the cursor).
  if (e > p && e[-1] == '\r') --e;
  return std::string_view(p, static_cast<size_t>(e - p));
}

uint32_t SourceManager::add(SourceFile f) {
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size() - 1);
}

}  // namespace wo
