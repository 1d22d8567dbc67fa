// Source files and positions. Every later stage refers to source text through
// a Loc (file id + 1-based line/col + byte offset), never through pointers.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wo {

struct Loc {
  uint32_t file = 0;    // index into SourceManager
  uint32_t line = 0;    // 1-based; 0 = unknown
  uint32_t col = 0;     // 1-based, bytes (tabs count one)
  uint32_t offset = 0;  // byte offset into the file
};

struct Span {
  Loc begin;
  uint32_t len = 0;  // bytes covered from begin.offset (may be 0)
};

struct SourceFile {
  std::string path;      // as shown in diagnostics
  std::string text;      // the bytes of the file
  std::string module;    // module path relative to the program root ("" = main module)
  // Returns line `line` (1-based) without its line feed, or empty if out of range.
  std::string_view line_text(uint32_t line) const;
};

class SourceManager {
 public:
  uint32_t add(SourceFile f);
  const SourceFile& get(uint32_t id) const { return files_[id]; }
  SourceFile& get(uint32_t id) { return files_[id]; }
  size_t size() const { return files_.size(); }

 private:
  std::vector<SourceFile> files_;
};

}  // namespace wo
