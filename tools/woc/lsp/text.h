// LSP positions are 0-based lines and columns counted in UTF-16 code units
// (the protocol's default encoding); woc counts bytes of UTF-8. LineIndex
// converts between the two for one text.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wo::lsp {

struct Position {
  uint32_t line = 0;
  uint32_t character = 0;  // UTF-16 code units
};

class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  // A byte offset (clamped to the text) as an LSP position.
  Position position(uint32_t offset) const;
  // An LSP position as a byte offset: past the line's end clamps to the end
  // of that line, past the last line to the end of the text; a position
  // inside a surrogate pair lands before the character.
  uint32_t offset(Position p) const;

 private:
  std::string_view text_;
  std::vector<uint32_t> starts_;  // byte offset of each line's first byte
};

// The length in bytes of the UTF-8 sequence starting with byte `c` (1 for a
// stray continuation byte, so a walk always moves on).
inline uint32_t utf8_len(unsigned char c) {
  return c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

}  // namespace wo::lsp
