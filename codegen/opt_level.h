// The optimisation level (-O0 .. -O3): one value from the command line
// (tools/woc/options.cpp) to code generation, the optimiser, the target
// machine of the JIT and of `woc build`. The two LLVM forms of it are made
// here and nowhere else.
#pragma once
#include <optional>
#include <string_view>

#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Support/CodeGen.h>

namespace wo::codegen {

enum class OptLevel { O0, O1, O2, O3 };

// The default of every verb (`woc run`, `build`, `check --emit-llvm`, `test`).
constexpr OptLevel kDefaultOptLevel = OptLevel::O2;

// "-O0" .. "-O3" → the level; anything else → nullopt.
inline std::optional<OptLevel> opt_level_flag(std::string_view flag) {
  if (flag == "-O0") return OptLevel::O0;
  if (flag == "-O1") return OptLevel::O1;
  if (flag == "-O2") return OptLevel::O2;
  if (flag == "-O3") return OptLevel::O3;
  return std::nullopt;
}

// Does the level optimise at all (-O1 and up)?
inline bool optimising(OptLevel level) { return level != OptLevel::O0; }

// The target machine's level (instruction selection, register allocation...).
inline llvm::CodeGenOptLevel llvm_codegen_level(OptLevel level) {
  switch (level) {
    case OptLevel::O0: return llvm::CodeGenOptLevel::None;
    case OptLevel::O1: return llvm::CodeGenOptLevel::Less;
    case OptLevel::O2: return llvm::CodeGenOptLevel::Default;
    case OptLevel::O3: return llvm::CodeGenOptLevel::Aggressive;
  }
  return llvm::CodeGenOptLevel::Default;
}

// The new pass manager's level (the -O pipeline, codegen/optimize.cpp).
inline llvm::OptimizationLevel llvm_pipeline_level(OptLevel level) {
  switch (level) {
    case OptLevel::O0: return llvm::OptimizationLevel::O0;
    case OptLevel::O1: return llvm::OptimizationLevel::O1;
    case OptLevel::O2: return llvm::OptimizationLevel::O2;
    case OptLevel::O3: return llvm::OptimizationLevel::O3;
  }
  return llvm::OptimizationLevel::O2;
}

}  // namespace wo::codegen
