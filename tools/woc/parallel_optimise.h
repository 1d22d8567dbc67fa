// `woc build -O2` of a large program: the optimiser on several threads
// (docs/decisions/0067).
#pragma once

#include <vector>

#include <llvm/ADT/SmallVector.h>

namespace llvm {
class Module;
}  // namespace llvm

namespace wo::driver {

// Splits `module` — prepared for the optimiser (codegen::prepare_optimize)
// but not optimised — into at most `most` partitions whose functions the -O2
// pipeline can optimise apart: `module` itself becomes the first, the others
// are returned as bitcode; none (and `module` is left as it was) when that
// is not worth it (a small module, or one whose calls the inliner may follow tie it
// together). A function goes with every function it calls unless the call
// is never inlined, so the inliner sees what it would have seen in the
// whole module; the runtime's helpers and the always-inlined ones are copied
// into each partition, and so are constants whose address means nothing.
// Whatever one partition uses of another's becomes a hidden symbol.
std::vector<llvm::SmallVector<char, 0>> partition_for_optimising(llvm::Module& module, unsigned most);

}  // namespace wo::driver
