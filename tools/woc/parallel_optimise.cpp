// Partitions of a large module for the optimiser on several threads
// (docs/decisions/0067).
//
// Almost all of an -O2 build's optimiser time is the per-function
// simplification pipeline with the inliner (on the generated 1,000-line
// program, ~245 of ~270 ms; the module-wide passes after it ~20 ms), and it
// ran on one core while the machine code after it already ran on all of
// them (docs/decisions/0063). llvm::SplitModule cannot be used before the
// optimiser: it puts functions in partitions by the hash of their names,
// and a call from one partition into another can no longer be inlined. Here
// functions are grouped along the calls the inliner may follow: every call
// not marked noinline (a large function called once, outside a loop, is
// such a call at -O2: optimize.cpp). What is lost is only what crosses
// partitions by nature: interprocedural constant propagation and attribute
// inference between functions the inliner would not have merged anyway.
#include "tools/woc/parallel_optimise.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include "tools/woc/time_report.h"

namespace wo::driver {
namespace {

// Partitions smaller than this are not worth a bitcode round trip and a
// thread (instructions before optimisation).
constexpr size_t kMinPartitionInstructions = 3000;

// Copied into every partition rather than owned by one.
bool copied(const llvm::GlobalValue& gv) {
  if (gv.isDeclaration()) return false;
  // The runtime's helpers (codegen/runtime_inline.cpp) and what they use
  // from the runtime's headers (inline C++ functions: linkonce_odr, dropped
  // where unused once inlined, so one partition's copy could not serve another).
  if (gv.hasAvailableExternallyLinkage() || gv.hasLinkOnceLinkage() || gv.hasWeakLinkage()) return true;
  if (const auto* f = llvm::dyn_cast<llvm::Function>(&gv))
    return f->hasLocalLinkage() && f->hasFnAttribute(llvm::Attribute::AlwaysInline);
  if (const auto* g = llvm::dyn_cast<llvm::GlobalVariable>(&gv))
    return g->hasLocalLinkage() && g->isConstant() && g->hasGlobalUnnamedAddr();
  return false;
}

struct UnionFind {
  std::vector<size_t> up;
  explicit UnionFind(size_t n) : up(n) { std::iota(up.begin(), up.end(), 0); }
  size_t find(size_t x) {
    while (up[x] != x) x = up[x] = up[up[x]];
    return x;
  }
  void join(size_t a, size_t b) { up[find(a)] = find(b); }
};

// The global values and functions whose code or initialiser uses `c`,
// looking through constant expressions and aggregates.
void using_places(const llvm::Value* c, std::vector<const llvm::Value*>& out, std::set<const llvm::Value*>& seen) {
  for (const llvm::User* u : c->users()) {
    if (!seen.insert(u).second) continue;
    if (const auto* i = llvm::dyn_cast<llvm::Instruction>(u))
      out.push_back(i->getFunction());
    else if (llvm::isa<llvm::GlobalValue>(u))
      out.push_back(u);
    else
      using_places(u, out, seen);
  }
}

}  // namespace

std::vector<llvm::SmallVector<char, 0>> partition_for_optimising(llvm::Module& module, unsigned most) {
  std::vector<llvm::SmallVector<char, 0>> out;
  size_t total = 0;
  for (const llvm::Function& f : module) total += f.getInstructionCount();
  unsigned n = static_cast<unsigned>(std::min<size_t>(most, total / kMinPartitionInstructions));
  if (n < 2) return out;
  Phase phase("partition for the threads");

  // Functions tied by calls the inliner may follow.
  std::vector<llvm::Function*> owned;
  std::map<const llvm::Function*, size_t> index;
  for (llvm::Function& f : module)
    if (!f.isDeclaration() && !copied(f)) {
      index[&f] = owned.size();
      owned.push_back(&f);
    }
  UnionFind groups(owned.size());
  for (llvm::Function* f : owned)
    for (llvm::BasicBlock& bb : *f)
      for (llvm::Instruction& i : bb) {
        auto* call = llvm::dyn_cast<llvm::CallBase>(&i);
        llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
        if (!callee || !index.count(callee) || call->isNoInline() || callee->hasFnAttribute(llvm::Attribute::NoInline))
          continue;
        groups.join(index[f], index[callee]);
      }
  // Largest group first, each to the least loaded partition.
  std::map<size_t, size_t> group_size;
  for (size_t i = 0; i < owned.size(); ++i) group_size[groups.find(i)] += owned[i]->getInstructionCount();
  std::vector<std::pair<size_t, size_t>> by_size;  // (size, group)
  for (auto [g, size] : group_size) by_size.push_back({size, g});
  std::sort(by_size.begin(), by_size.end(), std::greater<>());
  // One group holding most of the module leaves the other threads little to do.
  if (by_size.empty() || by_size.front().first * 4 > total * 3) return out;
  std::vector<size_t> load(n, 0);
  std::map<size_t, unsigned> group_part;
  for (auto [size, g] : by_size) {
    unsigned p = static_cast<unsigned>(std::min_element(load.begin(), load.end()) - load.begin());
    group_part[g] = p;
    load[p] += size;
  }
  std::map<const llvm::GlobalValue*, unsigned> owner;
  for (size_t i = 0; i < owned.size(); ++i) owner[owned[i]] = group_part[groups.find(i)];

  // A global variable not copied lives with the functions that use it when
  // they are all in one partition, else in the first.
  auto part_of = [&](const llvm::Value* place) -> int {  // -1: copied into several, or not placed yet
    auto it = owner.find(llvm::dyn_cast<llvm::GlobalValue>(place));
    return it == owner.end() ? -1 : static_cast<int>(it->second);
  };
  for (llvm::GlobalVariable& g : module.globals()) {
    if (g.isDeclaration() || copied(g)) continue;
    std::vector<const llvm::Value*> places;
    std::set<const llvm::Value*> seen;
    using_places(&g, places, seen);
    std::set<int> parts;
    for (const llvm::Value* place : places) parts.insert(part_of(place));
    owner[&g] = parts.size() == 1 && *parts.begin() >= 0 ? static_cast<unsigned>(*parts.begin()) : 0;
  }
  for (llvm::GlobalAlias& a : module.aliases()) owner[&a] = 0;

  // Whatever is used outside its own partition gets a hidden external name.
  // Text literals and trap sites are named `.text`, `.site`…, which as
  // symbols would clash with the sections of those names.
  for (auto [gv_const, part] : owner) {
    auto* gv = const_cast<llvm::GlobalValue*>(gv_const);
    if (!gv->hasLocalLinkage()) continue;
    std::vector<const llvm::Value*> places;
    std::set<const llvm::Value*> seen;
    using_places(gv, places, seen);
    bool outside = std::any_of(places.begin(), places.end(), [&](const llvm::Value* p) { return part_of(p) != static_cast<int>(part); });
    if (!outside) continue;
    if (!gv->hasName() || gv->getName().starts_with(".")) gv->setName("wo.part" + gv->getName());
    gv->setLinkage(llvm::GlobalValue::ExternalLinkage);
    gv->setVisibility(llvm::GlobalValue::HiddenVisibility);
  }

  // Partitions 1..n-1 are copies, as bitcode for their threads' contexts;
  // the module itself becomes partition 0 (a copy less to make, write and read).
  for (unsigned p = 1; p < n; ++p) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part = llvm::CloneModule(module, map, [&](const llvm::GlobalValue* gv) {
      if (copied(*gv)) return true;
      auto it = owner.find(gv);
      return it != owner.end() && it->second == p;
    });
    llvm::raw_svector_ostream os(out.emplace_back());
    llvm::WriteBitcodeToFile(*part, os);
  }
  for (auto [gv_const, part] : owner) {
    if (part == 0) continue;
    auto* gv = const_cast<llvm::GlobalValue*>(gv_const);
    if (auto* f = llvm::dyn_cast<llvm::Function>(gv)) {
      f->deleteBody();  // a declaration, external
      f->clearMetadata();
      f->setComdat(nullptr);
    } else if (auto* g = llvm::dyn_cast<llvm::GlobalVariable>(gv)) {
      g->setInitializer(nullptr);
      g->setLinkage(llvm::GlobalValue::ExternalLinkage);
      g->clearMetadata();
      g->setComdat(nullptr);
    }
  }
  return out;
}

}  // namespace wo::driver
