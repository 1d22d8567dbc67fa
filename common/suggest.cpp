// Did-you-mean helpers (suggest.h).
#include "common/suggest.h"

#include <algorithm>

namespace wo {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the classic table are enough for the swap rule.
  std::vector<size_t> pp(b.size() + 1), p(b.size() + 1), c(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) p[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    c[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      c[j] = std::min({p[j] + 1, c[j - 1] + 1, p[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) c[j] = std::min(c[j], pp[j - 2] + 1);
    }
    std::swap(pp, p);
    std::swap(p, c);
  }
  return p[b.size()];
}

std::string closest_name(std::string_view name, const std::vector<std::string>& candidates) {
  size_t limit = name.size() <= 4 ? 1 : name.size() <= 8 ? 2 : 3;
  std::string best;
  size_t best_d = limit + 1;
  for (const std::string& c : candidates) {
    if (c == name || c.empty()) continue;
    // Cheap bound first: the length difference alone is a lower bound.
    size_t diff = c.size() > name.size() ? c.size() - name.size() : name.size() - c.size();
    if (diff > best_d) continue;
    size_t d = edit_distance(name, c);
    // Ties go to the alphabetically first, so the answer does not depend on
    // the order (often a hash map's) the candidates came in.
    if ((d < best_d || (d == best_d && c < best)) && d < name.size()) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

namespace {
using F = ForeignWord;
// Only words .wo does not use itself; .wo spellings from language.md §3.4,
// §7 and builtins.md.
constexpr ForeignWord kForeign[] = {
    {"func", "fn", F::Keyword, "functions are declared with `fn`"},
    {"function", "fn", F::Keyword, "functions are declared with `fn`"},
    {"def", "fn", F::Keyword, "functions are declared with `fn`"},
    {"fun", "fn", F::Keyword, "functions are declared with `fn`"},
    {"proc", "fn", F::Keyword, "functions are declared with `fn`"},
    {"var", "let", F::Keyword, "locals are declared with `let`, and every local is mutable"},
    {"val", "let", F::Keyword, "locals are declared with `let`"},
    {"auto", "let", F::Keyword, "locals are declared with `let`"},
    {"elif", "else if", F::Keyword, ""},
    {"elsif", "else if", F::Keyword, ""},
    {"elseif", "else if", F::Keyword, ""},
    {"import", "use", F::Keyword, "modules are imported with `use`"},
    {"include", "use", F::Keyword, "modules are imported with `use`"},
    {"require", "use", F::Keyword, "modules are imported with `use`"},
    {"struct", "class", F::Keyword, "a record type is a `class` (or `type`)"},
    {"match", "switch", F::Keyword | F::Value, ""},
    {"null", "nil", F::Value, "only a `?T` value can be `nil`"},
    {"NULL", "nil", F::Value, "only a `?T` value can be `nil`"},
    {"nullptr", "nil", F::Value, "only a `?T` value can be `nil`"},
    {"None", "nil", F::Value, "only a `?T` value can be `nil`"},
    {"undefined", "nil", F::Value, "only a `?T` value can be `nil`"},
    {"True", "true", F::Value, ""},
    {"False", "false", F::Value, ""},
    {"this", "self", F::Value, ""},
    {"string", "Text", F::Type, ""},
    {"String", "Text", F::Type, ""},
    {"str", "Text", F::Type, ""},
    {"int", "Int", F::Type, ""},
    {"i64", "Int", F::Type, ""},
    {"long", "Int", F::Type, ""},
    {"integer", "Int", F::Type, ""},
    {"bool", "Bool", F::Type, ""},
    {"boolean", "Bool", F::Type, ""},
    {"float", "Float", F::Type, ""},
    {"double", "Float", F::Type, ""},
    {"f64", "Float", F::Type, ""},
    {"println", "print", F::Call, "`print` ends the line itself"},
    {"printf", "print", F::Call, "format with interpolation: `print(\"n = ${n}\")`"},
    {"puts", "print", F::Call, ""},
    {"len_of", "len", F::Call, ""},
    {"length", "len", F::Call, ""},
    {"size", "len", F::Call, ""},
};
}  // namespace

const ForeignWord* foreign_word(std::string_view word, ForeignWord::Where where) {
  for (const ForeignWord& f : kForeign)
    if ((f.where & where) && word == f.word) return &f;
  return nullptr;
}

std::string foreign_help(const ForeignWord& f) {
  std::string h = "did you mean `" + std::string(f.wo) + "`?";
  if (*f.why) h += std::string(" (") + f.why + ")";
  return h;
}

}  // namespace wo
