// LineIndex (text.h).
#include "tools/woc/lsp/text.h"

#include <algorithm>

namespace wo::lsp {

LineIndex::LineIndex(std::string_view text) : text_(text) {
  starts_.push_back(0);
  for (uint32_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts_.push_back(i + 1);
}

Position LineIndex::position(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, (uint32_t)text_.size());
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  uint32_t line = (uint32_t)(it - starts_.begin()) - 1;
  uint32_t units = 0;
  for (uint32_t i = starts_[line]; i < offset;) {
    uint32_t n = utf8_len((unsigned char)text_[i]);
    units += n == 4 ? 2 : 1;  // outside the BMP: a surrogate pair
    i += n;
  }
  return Position{line, units};
}

uint32_t LineIndex::offset(Position p) const {
  if (p.line >= starts_.size()) return (uint32_t)text_.size();
  uint32_t i = starts_[p.line];
  uint32_t end = p.line + 1 < starts_.size() ? starts_[p.line + 1] - 1 : (uint32_t)text_.size();
  if (end > i && text_[end - 1] == '\r') --end;  // CRLF: the \r is not a column
  uint32_t units = 0;
  while (i < end) {
    uint32_t n = utf8_len((unsigned char)text_[i]);
    uint32_t w = n == 4 ? 2 : 1;
    if (units + w > p.character) break;
    units += w;
    i = std::min(i + n, end);
  }
  return i;
}

}  // namespace wo::lsp
