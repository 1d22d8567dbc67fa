// The structure-aware mutator of the pipeline target (fuzz_pipeline.cpp).
//
// A byte-level mutation of a .wo program almost always dies in the lexer or
// the parser, so the code generator would only ever see the seed corpus. This
// mutator works on the token stream of woc's own lexer (frontend/token.h) and
// edits the text at token boundaries, so most results still parse and reach
// sema and codegen: delete / duplicate / swap tokens, replace an identifier by
// another name in scope or a builtin, a literal by an interesting value, an
// operator by another, splice lines and whole `{ }` constructs from other
// programs of the pool (the seed corpus), wrap a line in a block.
//
// Deterministic for a given seed (libFuzzer replays mutations by seed).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace wo::fuzz {

class Mutator {
 public:
  // Whether a program is worth keeping (the pipeline target: it passes sema,
  // so codegen will see it).
  using Filter = std::function<bool(std::string_view)>;

  // `pool`: programs to take fragments and names from (the seed corpus).
  // `keep`, when set, steers most mutations: of a program that passes it,
  // four in five mutations retry (up to 8 times) until the result passes it
  // too; a program that fails it is, one time in two, spliced into a passing
  // pool program instead (steered the same way). Without that, under 1% of
  // mutants got through sema.
  explicit Mutator(std::vector<std::string> pool, Filter keep = {});

  // One mutation of `in`, at most `max_size` bytes. May return `in` unchanged
  // when no mutation fits.
  std::string mutate(std::string_view in, uint32_t seed, size_t max_size) const;

  // A child of `a` and `b`: a construct or line range of `b` inserted into `a`,
  // or `a`'s head followed by `b`'s tail (cut at line boundaries).
  std::string cross_over(std::string_view a, std::string_view b, uint32_t seed, size_t max_size) const;

  size_t pool_size() const { return pool_.size(); }

 private:
  std::string mutate_once(std::string_view in, uint32_t seed, size_t max_size) const;
  std::string cross_once(std::string_view a, std::string_view b, uint32_t seed, size_t max_size) const;
  // Calls `make(seed')` until `keep_` accepts the result (see the constructor).
  template <class Make> std::string steered(std::string_view base, uint32_t seed, size_t max_size, Make make) const;

  std::vector<std::string> pool_;
  Filter keep_;
  std::vector<size_t> passing_;  // indices of pool_ programs that pass keep_
  bool base_passes(std::string_view base) const;  // keep_(base), remembered for the last base
  mutable std::string last_base_;
  mutable bool last_base_passes_ = false;
};

// The .wo files under `dirs` (recursively), for the pool.
std::vector<std::string> read_wo_files(const std::vector<std::string>& dirs);

}  // namespace wo::fuzz
