// "Did you mean": the closest known name to a misspelt one, and what words
// from other languages are called in .wo (docs/decisions/0040). Shared by the
// parser (keywords) and sema (names, fields, methods, types, namespaces).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace wo {

// Optimal-string-alignment distance: insert, delete, replace, or swap two
// neighbouring bytes, each costing 1.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `name`, if close enough to be a typo: distance at
// most 1 for names up to 4 bytes, 2 up to 8, 3 beyond, and less than the
// name's length; ties go to the alphabetically first. "" if none qualifies.
std::string closest_name(std::string_view name, const std::vector<std::string>& candidates);

// A word of another language and its .wo counterpart.
struct ForeignWord {
  enum Where : unsigned char { Keyword = 1, Value = 2, Type = 4, Call = 8 };
  const char* word;   // as written: "func", "null", "string", "println"
  const char* wo;     // the .wo spelling: "fn", "nil", "Text", "print"
  unsigned where;     // positions where the hint applies (bit set of Where)
  const char* why;    // one clause of explanation ("" if none)
};
// The entry for `word` that applies in position `where`, or nullptr.
const ForeignWord* foreign_word(std::string_view word, ForeignWord::Where where);
// "did you mean `fn`? (functions are declared with `fn`)" for an entry.
std::string foreign_help(const ForeignWord& f);

}  // namespace wo
