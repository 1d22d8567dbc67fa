// After optimisation: STACK checks that a deeper call has already made are
// dropped (docs/decisions/0063; the checks themselves: 0053).
//
// Once tail-recursion elimination has turned fib's second call into a loop,
// every iteration checks `frame < limit + 16k` (recursion.cpp) right after
// calling fib(n - 1) with that same raised limit. The callee's own entry
// check compares its frame, which is below ours, with the same limit: if
// ours would trap, the callee's already has, so ours can never fire. Kept,
// it held the frame address and the limit in two registers across the call
// and cost fib a third of its time against clang -O2.
//
// The rule, per conditional branch to a block that traps STACK with a
// condition `F < L` (F: this function's frame address, from
// llvm.addressofreturnaddress, or its stack pointer from llvm.read_register): dropped when, earlier in the same block (or
// as the invoke that leads to it), a direct call passes L to a function
// whose entry block ends with that same check on that parameter. Such a
// call runs its check on entry, before anything it does can return here.
// A loop without such a call (a tail recursion with nothing else in it)
// keeps its check and traps.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

#include "codegen/codegen.h"

namespace wo::codegen {

namespace {

// Does `bb` raise STACK: a call of wo_trap with code 3 and then unreachable?
bool traps_stack(const llvm::BasicBlock* bb) {
  const auto* call = llvm::dyn_cast_or_null<llvm::CallInst>(bb->getFirstNonPHIOrDbg());
  if (!call || !llvm::isa<llvm::UnreachableInst>(call->getNextNonDebugInstruction())) return false;
  const llvm::Function* f = call->getCalledFunction();
  auto* code = call->arg_size() ? llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0)) : nullptr;
  return f && f->getName() == "wo_trap" && code && code->getZExtValue() == 3;
}

// Is `v` this function's frame address (ptrtoint of llvm.addressofreturnaddress,
// or the stack pointer read by llvm.read_register: codegen/function.cpp)?
bool is_frame(const llvm::Value* v) {
  if (const auto* rr = llvm::dyn_cast<llvm::IntrinsicInst>(v)) return rr->getIntrinsicID() == llvm::Intrinsic::read_register;
  const auto* p2i = llvm::dyn_cast<llvm::PtrToIntInst>(v);
  const auto* ii = p2i ? llvm::dyn_cast<llvm::IntrinsicInst>(p2i->getOperand(0)) : nullptr;
  return ii && ii->getIntrinsicID() == llvm::Intrinsic::addressofreturnaddress;
}

// The limit L of a branch that traps STACK exactly when frame < L; null if
// `br` is not such a check.
llvm::Value* checked_limit(const llvm::BranchInst* br) {
  if (!br || !br->isConditional()) return nullptr;
  const auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(br->getCondition());
  if (!cmp) return nullptr;
  bool trap_if_true = traps_stack(br->getSuccessor(0));
  if (!trap_if_true && !traps_stack(br->getSuccessor(1))) return nullptr;
  llvm::Value* a = cmp->getOperand(0);
  llvm::Value* b = cmp->getOperand(1);
  // Normalise to "trap when frame < limit".
  llvm::CmpInst::Predicate p = trap_if_true ? cmp->getPredicate() : cmp->getInversePredicate();
  if (p == llvm::CmpInst::ICMP_ULT && is_frame(a)) return b;
  if (p == llvm::CmpInst::ICMP_UGT && is_frame(b)) return a;
  return nullptr;
}

// Does a call of `g` with `limit` as its argument k trap when the caller's
// frame is below `limit`? Yes when g's entry block ends with the check of
// its parameter k.
bool checks_param_on_entry(llvm::Function* g, unsigned k) {
  if (!g || g->isDeclaration() || k >= g->arg_size()) return false;
  return checked_limit(llvm::dyn_cast<llvm::BranchInst>(g->getEntryBlock().getTerminator())) == g->getArg(k);
}

bool passes_to_checking_callee(const llvm::CallBase* call, const llvm::Value* limit) {
  for (unsigned k = 0; k < call->arg_size(); ++k)
    if (call->getArgOperand(k) == limit && checks_param_on_entry(call->getCalledFunction(), k)) return true;
  return false;
}

// Is the check ending `bb` made earlier by a callee?
bool implied(llvm::BasicBlock* bb, const llvm::Value* limit) {
  for (auto it = bb->getTerminator()->getReverseIterator(); it != bb->rend(); ++it)
    if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&*it); call && passes_to_checking_callee(call, limit))
      return true;
  if (const llvm::BasicBlock* pred = bb->getSinglePredecessor())
    if (const auto* inv = llvm::dyn_cast<llvm::InvokeInst>(pred->getTerminator()))
      return inv->getNormalDest() == bb && passes_to_checking_callee(inv, limit);
  return false;
}

}  // namespace

unsigned drop_implied_stack_checks(llvm::Module& m) {
  unsigned dropped = 0;
  for (llvm::Function& f : m) {
    if (f.isDeclaration() || f.hasOptNone()) continue;
    for (llvm::BasicBlock& bb : f) {
      auto* br = llvm::dyn_cast<llvm::BranchInst>(bb.getTerminator());
      llvm::Value* limit = checked_limit(br);
      // The entry block's own check is what callers rely on: never dropped.
      if (!limit || &bb == &f.getEntryBlock() || !implied(&bb, limit)) continue;
      bool trap_if_true = traps_stack(br->getSuccessor(0));
      llvm::BasicBlock* ok = br->getSuccessor(trap_if_true ? 1 : 0);
      llvm::BasicBlock* trap = br->getSuccessor(trap_if_true ? 0 : 1);
      auto* cond = llvm::dyn_cast<llvm::Instruction>(br->getCondition());
      trap->removePredecessor(&bb);
      llvm::BranchInst::Create(ok, br->getIterator());
      br->eraseFromParent();
      if (cond && cond->use_empty()) cond->eraseFromParent();
      ++dropped;
    }
  }
  return dropped;
}

}  // namespace wo::codegen
