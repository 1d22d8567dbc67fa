// Token spellings for messages ("expected `)`, got newline").
#include "frontend/token.h"

namespace wo {

const char* tok_spelling(Tok t) {
  static const char* const kSpellings[] = {
#define TOKEN(id, s) s,
#define KEYWORD(id, s) s,
#include "tokens.def"
#undef TOKEN
#undef KEYWORD
  };
  auto i = static_cast<size_t>(t);
  return i < sizeof kSpellings / sizeof kSpellings[0] ? kSpellings[i] : "?";
}

}  // namespace wo
