// Token-level mutations of .wo programs (mutator.h). Every edit replaces a
// byte range of the input by new text, at the boundaries of the tokens woc's
// own lexer finds, so comments and layout outside the edit stay as they were.
#include "fuzz/mutator.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/diagnostics.h"
#include "frontend/token.h"

namespace wo::fuzz {
namespace {

struct Tk {
  Tok kind;
  uint32_t begin, end;  // byte range in the text
};

std::vector<Tk> tokenize(std::string_view text) {
  SourceManager sm;
  Diagnostics diags(sm);  // lexical errors are expected and ignored here
  SourceFile f;
  f.path = "mutate.wo";
  f.text = std::string(text);
  uint32_t id = sm.add(std::move(f));
  std::vector<Tk> out;
  for (const Token& t : lex_file(id, sm.get(id).text, diags, LexOptions{})) {
    if (t.kind == Tok::Eof) break;
    uint32_t b = std::min<uint32_t>(t.loc.offset, text.size());
    uint32_t e = std::min<uint32_t>(b + t.len, text.size());
    out.push_back({t.kind, b, e});
  }
  return out;
}

bool is_literal(Tok k) { return k == Tok::IntLit || k == Tok::FloatLit || k == Tok::TextLit; }
bool is_operator(Tok k) { return k >= Tok::Pipe && k <= Tok::GtEq; }
bool is_keyword(Tok k) { return k >= Tok::KwType && k <= Tok::KwSELECT; }

// Values at the edges of the language's rules: 62-bit literal wrap (§3.5),
// shift counts, NaN/inf producing literals, empty and multi-byte text, holes.
const char* const kInts[] = {"0", "1", "-1", "2", "3", "7", "8", "63", "64", "65", "255", "256", "65536",
                             "2147483648", "4294967296", "4611686018427387903", "4611686018427387904",
                             "-4611686018427387904", "9223372036854775807", "0x7FFFFFFFFFFFFFFF",
                             "0xFFFFFFFFFFFFFFFF", "0b1", "1_000"};
const char* const kFloats[] = {"0.0", "-0.0", "1.0", "0.5", "1e308", "1.7976931348623157e308", "4.9e-324",
                               "1e-300", "9.2233720368547758e18", "-9.3e18", "1e400"};
const char* const kTexts[] = {"\"\"", "\"a\"", "\"ab\"", "\"\\n\"", "\"\xC3\xA9\"", "\"${1}\"", "\"${x}\"",
                              "\"${\"\"}\"", "`raw`", "`{{ 1 }}`", "\"\\u{0}\"", "\"\\\\\"",
                              "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\""};
const char* const kOthers[] = {"true", "false", "nil", "self", "0", "\"\"", "[]", "{}", "(1)", "[1, 2]"};

// Words that are not reserved but matter to the grammar or sema (§3.4, §7).
const char* const kWords[] = {
    "self", "static", "ref", "multi", "map", "backlink", "actor", "receive", "now", "insert", "delete",
    "select", "from", "where", "group", "by", "into", "order", "desc", "transaction", "Int", "Float",
    "Bool", "Text", "Bytes", "Timestamp", "Id", "main", "@table", "@unique", "@index", "@gc", "pub(read)",
    "?Int", "?Text", "multi Int", "map<Text, Int>", "Dynamic", "cast", "extends", "spawn", "e", "x", "i"};

// Type spellings for the type mutation (language.md §7).
const char* const kTypes[] = {"Int",       "Float",     "Bool",           "Text",          "Bytes",
                              "Timestamp", "multi Int", "multi Text",     "?Int",          "?Text",
                              "?multi Int", "map<Text, Int>", "map<Int, Text>", "?map<Text, Int>", "Error"};

const char* const kBuiltins[] = {
#define BUILTIN(name, sym, result, params, flags) #name,
#define NS_BUILTIN(ns, member, sym, result, params, flags) #ns "." #member,
#include "common/builtins.def"
#undef BUILTIN
#undef NS_BUILTIN
};

const char* const kTokenSpellings[] = {
#define TOKEN(id, s) s,
#define KEYWORD(id, s) s,
#include "frontend/tokens.def"
#undef TOKEN
#undef KEYWORD
};

// Wrappers for one line: each puts the line into a new block construct.
const char* const kWrapOpen[] = {"if true {\n", "while false {\n", "for q in [1, 2] {\n",
                                 "let fz = try 1 catch (e) {\n", "transaction {\n", "fn fz() {\n",
                                 "{\n",         "if x != nil {\n", "do {\n"};
const char* const kWrapClose[] = {"\n}\n", "\n}\n", "\n}\n", "\n0\n}\n", "\n}\n",
                                  "\n}\n", "\n}\n", "\n}\n", "\n} while false\n"};

class Edit {
 public:
  Edit(std::string_view in, uint32_t seed) : in_(in), rng_(seed), toks_(tokenize(in)) {
    for (const Tk& t : toks_)
      if (t.kind == Tok::Newline || t.kind == Tok::Semi) lines_.push_back(t.end);
  }

  size_t pick(size_t n) { return n ? std::uniform_int_distribution<size_t>(0, n - 1)(rng_) : 0; }
  template <class T, size_t N> const char* one_of(T (&a)[N]) { return a[pick(N)]; }
  bool coin(int percent) { return pick(100) < size_t(percent); }

  const std::vector<Tk>& toks() const { return toks_; }
  std::string text(const Tk& t) const { return std::string(in_.substr(t.begin, t.end - t.begin)); }

  // `in` with [b, e) replaced by `with`.
  std::string replace(uint32_t b, uint32_t e, std::string_view with) const {
    std::string out;
    out.reserve(in_.size() + with.size());
    out.append(in_.substr(0, b)).append(with).append(in_.substr(e));
    return out;
  }

  // A position at a line start (after a NEWLINE or `;` token, or 0).
  uint32_t line_start() {
    if (lines_.empty() || coin(5)) return 0;
    return lines_[pick(lines_.size())];
  }

  // The line holding token i: [after the previous NEWLINE, through the next one].
  std::pair<uint32_t, uint32_t> line_of(size_t i) const {
    size_t b = i, e = i;
    while (b > 0 && toks_[b - 1].kind != Tok::Newline) --b;
    while (e + 1 < toks_.size() && toks_[e].kind != Tok::Newline) ++e;
    return {toks_[b].begin, toks_[e].end};
  }

  // A name for position `at`: one written earlier in this text (likely in
  // scope), else any name of the text, a builtin or a contextual word.
  std::string name_for(uint32_t at) {
    std::vector<std::string> before, any;
    for (const Tk& t : toks_) {
      if (t.kind != Tok::Ident) continue;
      (t.begin < at ? before : any).push_back(text(t));
    }
    if (!before.empty() && coin(70)) return before[pick(before.size())];
    if (!any.empty() && coin(30)) return any[pick(any.size())];
    return coin(60) ? one_of(kBuiltins) : one_of(kWords);
  }

  std::string literal_for(Tok kind) {
    if (coin(15)) return one_of(kOthers);
    switch (kind) {
      case Tok::IntLit: return one_of(kInts);
      case Tok::FloatLit: return one_of(kFloats);
      default: return one_of(kTexts);
    }
  }

  // A token of the same family as `k` (operator, keyword), or any spelling.
  std::string spelling_like(Tok k) {
    for (int tries = 0; tries < 16; ++tries) {
      Tok c = Tok(pick(std::size(kTokenSpellings)));
      if (c <= Tok::TextLit) continue;  // "identifier", "newline": not spellings
      if (is_operator(k) && !is_operator(c) && coin(80)) continue;
      if (is_keyword(k) && !is_keyword(c) && coin(80)) continue;
      return kTokenSpellings[size_t(c)];
    }
    return "+";
  }

  // [b, e) of the `{ }` construct whose `{` is token i, extended back to its
  // line start (so a whole `fn f() { ... }` or `if c { ... }` is taken).
  bool construct_at(size_t i, uint32_t& b, uint32_t& e) const {
    int depth = 0;
    for (size_t j = i; j < toks_.size(); ++j) {
      if (toks_[j].kind == Tok::LBrace) ++depth;
      if (toks_[j].kind == Tok::RBrace && --depth == 0) {
        b = line_of(i).first;
        e = toks_[j].end;
        return true;
      }
    }
    return false;
  }

  // A fragment of `donor`: one of its lines, a run of lines or a construct.
  std::string fragment_of(std::string_view donor) {
    Edit d(donor, uint32_t(rng_()));
    const auto& t = d.toks();
    if (t.empty()) return std::string(donor.substr(0, 64));
    std::vector<size_t> braces;
    for (size_t j = 0; j < t.size(); ++j)
      if (t[j].kind == Tok::LBrace) braces.push_back(j);
    uint32_t b, e;
    if (!braces.empty() && coin(50) && d.construct_at(braces[d.pick(braces.size())], b, e))
      return "\n" + std::string(donor.substr(b, e - b)) + "\n";
    auto [lb, le] = d.line_of(d.pick(t.size()));
    if (coin(30)) le = d.line_of(std::min(t.size() - 1, size_t(d.pick(t.size())))).second;
    if (le < lb) std::swap(lb, le);
    return std::string(donor.substr(lb, le - lb)) + "\n";
  }

  std::mt19937& rng() { return rng_; }

 private:
  std::string_view in_;
  std::mt19937 rng_;
  std::vector<Tk> toks_;
  std::vector<uint32_t> lines_;
};

}  // namespace

Mutator::Mutator(std::vector<std::string> pool, Filter keep) : pool_(std::move(pool)), keep_(std::move(keep)) {
  if (keep_)
    for (size_t i = 0; i < pool_.size(); ++i)
      if (keep_(pool_[i])) passing_.push_back(i);
}

bool Mutator::base_passes(std::string_view base) const {
  // libFuzzer mutates one input several times in a row: remember the verdict.
  if (base != last_base_) {
    last_base_.assign(base);
    last_base_passes_ = keep_(base);
  }
  return last_base_passes_;
}

template <class Make>
std::string Mutator::steered(std::string_view base, uint32_t seed, size_t max_size, Make make) const {
  std::mt19937 rng(seed);
  // One mutation in five goes unsteered (error paths of codegen's callers
  // matter too), and so does every mutation without a filter.
  if (!keep_ || rng() % 5 == 0) return make(uint32_t(rng()));
  auto retry = [&](auto&& once) {
    std::string out;
    for (int tries = 0; tries < 8; ++tries) {
      out = once(uint32_t(rng()));
      if (keep_(out)) break;
    }
    return out;
  };
  if (base_passes(base)) return retry(make);
  // A base that fails (a compile-fail seed, a broken mutant) rarely yields a
  // passing mutant: lend one of its constructs to a passing program instead.
  if (passing_.empty() || rng() % 2 == 0) return make(uint32_t(rng()));
  const std::string& host = pool_[passing_[rng() % passing_.size()]];
  return retry([&](uint32_t s) { return cross_once(host, base, s, max_size); });
}

std::string Mutator::mutate(std::string_view in, uint32_t seed, size_t max_size) const {
  return steered(in, seed, max_size, [&](uint32_t s) { return mutate_once(in, s, max_size); });
}

std::string Mutator::cross_over(std::string_view a, std::string_view b, uint32_t seed, size_t max_size) const {
  return steered(a, seed, max_size, [&](uint32_t s) { return cross_once(a, b, s, max_size); });
}

std::string Mutator::mutate_once(std::string_view in, uint32_t seed, size_t max_size) const {
  Edit ed(in, seed);
  const auto& toks = ed.toks();
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string out;
    size_t n = toks.size();
    if (n == 0) {
      if (!pool_.empty()) out = pool_[ed.pick(pool_.size())];  // nothing to work on: start over from a seed
    } else {
      size_t i = ed.pick(n);
      const Tk& t = toks[i];
      switch (ed.pick(14)) {
        case 0: {  // delete one to four tokens
          size_t j = std::min(n - 1, i + ed.pick(4));
          out = ed.replace(t.begin, toks[j].end, " ");
          break;
        }
        case 1: {  // duplicate a token run
          size_t j = std::min(n - 1, i + ed.pick(3));
          out = ed.replace(toks[j].end, toks[j].end, " " + std::string(in.substr(t.begin, toks[j].end - t.begin)));
          break;
        }
        case 2: {  // swap two tokens
          size_t j = ed.pick(n);
          if (i == j) continue;
          const Tk& a = toks[std::min(i, j)];
          const Tk& b = toks[std::max(i, j)];
          out = std::string(in.substr(0, a.begin)) + ed.text(b) + std::string(in.substr(a.end, b.begin - a.end)) +
                ed.text(a) + std::string(in.substr(b.end));
          break;
        }
        case 3:
        case 4: {  // an identifier becomes another name
          std::vector<size_t> ids;
          for (size_t j = 0; j < n; ++j)
            if (toks[j].kind == Tok::Ident) ids.push_back(j);
          if (ids.empty()) continue;
          const Tk& id = toks[ids[ed.pick(ids.size())]];
          out = ed.replace(id.begin, id.end, ed.coin(10) ? std::string("nil") : ed.name_for(id.begin));
          break;
        }
        case 5: {  // a literal becomes an interesting value
          std::vector<size_t> lits;
          for (size_t j = 0; j < n; ++j)
            if (is_literal(toks[j].kind)) lits.push_back(j);
          if (lits.empty()) continue;
          const Tk& l = toks[lits[ed.pick(lits.size())]];
          out = ed.replace(l.begin, l.end, ed.literal_for(l.kind));
          break;
        }
        case 6:  // an operator or keyword becomes another
          if (t.kind == Tok::Ident || is_literal(t.kind) || t.kind == Tok::Newline) continue;
          out = ed.replace(t.begin, t.end, ed.spelling_like(t.kind));
          break;
        case 7: {  // insert a word or token spelling
          std::string w = ed.coin(50) ? ed.one_of(kWords) : ed.spelling_like(Tok::Plus);
          out = ed.replace(t.begin, t.begin, w + " ");
          break;
        }
        case 8: {  // splice a fragment of another program (or of this one)
          std::string donor = pool_.empty() || ed.coin(20) ? std::string(in) : pool_[ed.pick(pool_.size())];
          uint32_t at = ed.line_start();
          out = ed.replace(at, at, ed.fragment_of(donor));
          break;
        }
        case 9: {  // delete or duplicate a line
          auto [b, e] = ed.line_of(i);
          out = ed.coin(50) ? ed.replace(b, e, "") : ed.replace(e, e, std::string(in.substr(b, e - b)));
          break;
        }
        case 10: {  // wrap a line in a block
          auto [b, e] = ed.line_of(i);
          size_t w = ed.pick(std::size(kWrapOpen));
          out = ed.replace(b, e, std::string(kWrapOpen[w]) + std::string(in.substr(b, e - b)) + kWrapClose[w]);
          break;
        }
        case 12:
        case 13: {  // a declared type becomes nullable, plain, or another type
          std::vector<size_t> types;  // the token after a `:` or `->`
          for (size_t j = 0; j + 1 < n; ++j)
            if (toks[j].kind == Tok::Colon || toks[j].kind == Tok::Arrow) types.push_back(j + 1);
          if (types.empty()) continue;
          const Tk& ty = toks[types[ed.pick(types.size())]];
          if (ty.kind == Tok::Question)
            out = ed.replace(ty.begin, ty.end, "");
          else if (ed.coin(60))
            out = ed.replace(ty.begin, ty.begin, "?");
          else if (ty.kind == Tok::Ident)
            out = ed.replace(ty.begin, ty.end, ed.coin(50) ? ed.one_of(kTypes) : ed.name_for(ty.begin));
          break;
        }
        case 11: {  // delete a whole `{ }` construct or duplicate it
          uint32_t b, e;
          if (t.kind != Tok::LBrace || !ed.construct_at(i, b, e)) continue;
          out = ed.coin(50) ? ed.replace(b, e, "") : ed.replace(e, e, "\n" + std::string(in.substr(b, e - b)));
          break;
        }
      }
    }
    if (!out.empty() && out.size() <= max_size) return out;
  }
  return std::string(in.substr(0, max_size));
}

std::string Mutator::cross_once(std::string_view a, std::string_view b, uint32_t seed, size_t max_size) const {
  Edit ea(a, seed);
  std::string out;
  if (ea.coin(60)) {
    uint32_t at = ea.line_start();
    out = ea.replace(at, at, ea.fragment_of(b));
  } else {
    Edit eb(b, uint32_t(ea.rng()()));
    uint32_t cut_a = ea.line_start(), cut_b = eb.line_start();
    out = std::string(a.substr(0, cut_a)) + std::string(b.substr(cut_b));
  }
  if (out.size() > max_size) out.resize(max_size);
  return out;
}

std::vector<std::string> read_wo_files(const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  for (const std::string& d : dirs) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(d, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file(ec) && it->path().extension() == ".wo") paths.push_back(it->path().string());
  }
  std::sort(paths.begin(), paths.end());  // the pool's order must not depend on the file system
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    out.push_back(ss.str());
  }
  return out;
}

}  // namespace wo::fuzz
