// Recursive functions carry their call depth (docs/decisions/0053).
//
// The STACK check compares the frame address with the fiber's limit. Once
// LLVM's tail-recursion elimination turns a self call into a loop (fib's
// `fib(n - 1) + fib(n - 2)`: the second call becomes an accumulator loop),
// the frame no longer moves, so an unbounded recursion (`down(n + 1) + 1`,
// or two functions calling each other once inlined into one) would loop
// forever instead of trapping. So every function of a recursive cycle of
// direct calls gets a twin with one more parameter: the limit its check
// compares with, raised by kBytesPerCall for each call of the cycle on the
// way (calls inside the cycle pass limit + kBytesPerCall). A loop made from
// a call then still raises the limit on every iteration and traps STACK; a
// call that stays a call counts twice (its real frame and the raise), which
// only makes the trap come a little earlier. Passing the limit also spares
// the twin its load of the fiber's limit. The original function keeps its
// signature and callers (other functions, vtables, trampolines) and becomes
// an always-inlined forwarder that loads the fiber's limit and passes it.
#include <functional>
#include <set>

#include "codegen/emitter.h"

namespace wo::codegen {

namespace {

// The smallest frame a call can take on x86-64 (return address + saved frame pointer).
constexpr uint64_t kBytesPerCall = 16;

// Direct callees of f among `fns`.
std::vector<llvm::Function*> callees(llvm::Function* f, const std::set<llvm::Function*>& fns) {
  std::vector<llvm::Function*> out;
  for (llvm::BasicBlock& bb : *f)
    for (llvm::Instruction& i : bb)
      if (auto* cb = llvm::dyn_cast<llvm::CallBase>(&i))
        if (auto* g = cb->getCalledFunction(); g && fns.count(g)) out.push_back(g);
  return out;
}

// Tarjan's strongly connected components; returns the functions that are on
// a cycle (a component of two or more, or one that calls itself).
std::set<llvm::Function*> recursive_functions(const std::vector<llvm::Function*>& order,
                                              const std::set<llvm::Function*>& fns) {
  std::map<llvm::Function*, std::vector<llvm::Function*>> edges;
  for (llvm::Function* f : order) edges[f] = callees(f, fns);
  std::map<llvm::Function*, int> index, low;
  std::vector<llvm::Function*> stack;
  std::set<llvm::Function*> on_stack, out;
  int next = 0;
  std::function<void(llvm::Function*)> visit = [&](llvm::Function* v) {
    index[v] = low[v] = next++;
    stack.push_back(v);
    on_stack.insert(v);
    for (llvm::Function* w : edges[v]) {
      if (!index.count(w)) {
        visit(w);
        low[v] = std::min(low[v], low[w]);
      } else if (on_stack.count(w)) {
        low[v] = std::min(low[v], index[w]);
      }
    }
    if (low[v] != index[v]) return;
    std::vector<llvm::Function*> scc;
    llvm::Function* w;
    do {
      w = stack.back();
      stack.pop_back();
      on_stack.erase(w);
      scc.push_back(w);
    } while (w != v);
    bool self = false;
    for (llvm::Function* g : edges[v]) self |= g == v;
    if (scc.size() > 1 || self) out.insert(scc.begin(), scc.end());
  };
  for (llvm::Function* f : order)
    if (!index.count(f)) visit(f);
  return out;
}

}  // namespace

void Emitter::thread_recursion_depth() {
  // At -O0 nothing turns calls into loops: every call keeps its frame.
  if (!optimising(opts_.opt_level)) return;
  std::vector<llvm::Function*> order;
  std::set<llvm::Function*> fns;
  for (llvm::Function& f : *mod_)
    if (stack_limits_.count(&f)) {
      order.push_back(&f);
      fns.insert(&f);
    }
  std::set<llvm::Function*> rec = recursive_functions(order, fns);
  if (rec.empty()) return;

  // The twins: the body moves into a function taking the limit as its last parameter.
  std::map<llvm::Function*, llvm::Function*> twin;
  for (llvm::Function* f : order) {
    if (!rec.count(f)) continue;
    llvm::FunctionType* ft = f->getFunctionType();
    std::vector<llvm::Type*> params(ft->param_begin(), ft->param_end());
    params.push_back(i64_);
    std::string name = f->getName().str();
    f->setName(name + ".entry");
    auto* r = llvm::Function::Create(llvm::FunctionType::get(ft->getReturnType(), params, false),
                                     llvm::Function::InternalLinkage, name, mod_.get());
    r->copyAttributesFrom(f);
    r->setLinkage(llvm::Function::InternalLinkage);
    r->splice(r->end(), f);
    for (unsigned i = 0; i < ft->getNumParams(); ++i) {
      r->getArg(i)->takeName(f->getArg(i));
      f->getArg(i)->replaceAllUsesWith(r->getArg(i));
    }
    llvm::Argument* limit = r->getArg(ft->getNumParams());
    limit->setName("stack.limit");
    r->setSubprogram(f->getSubprogram());
    f->setSubprogram(nullptr);
    // The twin's check compares with the limit it was given.
    llvm::LoadInst* load = stack_limits_.at(f);
    load->replaceAllUsesWith(limit);
    load->eraseFromParent();
    // The original: loads the fiber's limit and forwards; inlined wherever it is called directly.
    b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", f));
    b_.SetCurrentDebugLocation({});
    llvm::Value* addr = b_.CreateConstGEP1_64(b_.getInt8Ty(), fiber_local(), 8, "stack.limit.addr");
    llvm::LoadInst* lim = b_.CreateLoad(i64_, addr, "stack.limit");
    lim->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx_, {}));
    std::vector<llvm::Value*> args;
    for (llvm::Argument& a : f->args()) args.push_back(&a);
    args.push_back(lim);
    llvm::CallInst* c = b_.CreateCall(r, args);
    c->setCallingConv(r->getCallingConv());
    if (ft->getReturnType()->isVoidTy())
      b_.CreateRetVoid();
    else
      b_.CreateRet(c);
    f->removeFnAttr(llvm::Attribute::NoInline);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    twin[f] = r;
  }

  // Calls inside a cycle go twin to twin with the limit raised by one call.
  for (auto& [f, r] : twin) {
    std::vector<llvm::CallBase*> calls;
    for (llvm::BasicBlock& bb : *r)
      for (llvm::Instruction& i : bb)
        if (auto* cb = llvm::dyn_cast<llvm::CallBase>(&i))
          if (auto* g = cb->getCalledFunction(); g && twin.count(g)) calls.push_back(cb);
    llvm::Argument* limit = r->getArg(r->arg_size() - 1);
    for (llvm::CallBase* cb : calls) {
      llvm::Function* target = twin.at(cb->getCalledFunction());
      llvm::IRBuilder<> b(cb);
      b.SetCurrentDebugLocation(cb->getDebugLoc());
      std::vector<llvm::Value*> args(cb->arg_begin(), cb->arg_end());
      args.push_back(b.CreateAdd(limit, b.getInt64(kBytesPerCall), "stack.limit.next"));
      llvm::CallBase* nc;
      if (auto* inv = llvm::dyn_cast<llvm::InvokeInst>(cb))
        nc = b.CreateInvoke(target, inv->getNormalDest(), inv->getUnwindDest(), args);
      else
        nc = b.CreateCall(target, args);
      nc->setCallingConv(cb->getCallingConv());
      nc->setAttributes(cb->getAttributes());
      nc->takeName(cb);
      cb->replaceAllUsesWith(nc);
      cb->eraseFromParent();
    }
  }
}

}  // namespace wo::codegen
