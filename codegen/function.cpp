// One function at a time: parameters and locals in allocas, scopes that
// release what they own, full-expression temporaries, and the unwind regions
// whose landing pads release live values when a trap passes through.
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/MDBuilder.h>

#include "codegen/emitter.h"

#include <llvm/IR/Intrinsics.h>
#include "common/traps.h"

namespace wo::codegen {

llvm::BasicBlock* Emitter::new_block(const std::string& name) { return llvm::BasicBlock::Create(ctx_, name, llfn_); }

bool Emitter::terminated() const { return b_.GetInsertBlock()->getTerminator() != nullptr; }

llvm::AllocaInst* Emitter::entry_alloca(llvm::Type* t, const std::string& name) {
  llvm::IRBuilder<> b(alloca_bb_, alloca_bb_->begin());
  return b.CreateAlloca(t, nullptr, name);
}

llvm::AllocaInst* Emitter::heap_slot(const std::string& name) {
  llvm::AllocaInst* slot = entry_alloca(ptr_, name);
  // Null-initialise in the entry block (after the allocas) so a landing pad may always release it.
  // (The entry block always ends in its branch to the body by now.)
  llvm::IRBuilder<> b(alloca_bb_->getTerminator());
  b.CreateStore(llvm::ConstantPointerNull::get(ptr_), slot);
  all_heap_slots_.push_back(slot);
  for (Region* r : regions_) r->owned.push_back(slot);
  return slot;
}

// A landing pad reads every slot it releases. For a slot mem2reg promotes,
// that read is a phi with one entry per call that can unwind, and the value
// stays live across the whole function: with S slots and N such calls that is
// S x N phi entries and S live ranges spanning everything, and in a long
// generated function (thousands of each) the optimiser and the register
// allocator went quadratic and worse. So once a function is done, if S x N
// exceeds kUnwindPhiBudget, its pads' reads become volatile: that keeps the
// slots in memory, where a pad reads them with no phi at all. Ordinary
// functions stay under the budget and are unchanged.
llvm::Value* Emitter::load_for_unwind(llvm::AllocaInst* slot) {
  llvm::LoadInst* load = b_.CreateLoad(ptr_, slot);
  unwind_loads_.push_back(load);
  return load;
}

void Emitter::pin_slots_if_big() {
  size_t invokes = 0;
  for (llvm::BasicBlock& bb : *llfn_)
    if (llvm::isa<llvm::InvokeInst>(bb.getTerminator())) ++invokes;
  if (all_heap_slots_.size() * invokes > kUnwindPhiBudget)
    for (llvm::LoadInst* load : unwind_loads_) load->setVolatile(true);
}

llvm::AllocaInst* Emitter::local_slot(const Symbol* sym) {
  auto it = slots_.find(sym);
  if (it != slots_.end()) return it->second;
  llvm::AllocaInst* slot = sym->type->is_heap() ? heap_slot(sym->name) : entry_alloca(llvm_type(sym->type), sym->name);
  slots_[sym] = slot;
  unsigned arg_no = 0;
  if (sym->kind == sema::SymKind::Param && fn_)
    for (size_t i = 0; i < fn_->params.size(); ++i)
      if (fn_->params[i] == sym) arg_no = static_cast<unsigned>(i + 1 + (fn_->self ? 1 : 0));
  di_local(sym, slot, arg_no);
  return slot;
}

void Emitter::retain(llvm::Value* p) { b_.CreateCall(retain_fn_, {p}); }
void Emitter::release(llvm::Value* p) { b_.CreateCall(release_fn_, {p}); }

void Emitter::release_slot(llvm::AllocaInst* slot) {
  release(b_.CreateLoad(ptr_, slot));
  b_.CreateStore(llvm::ConstantPointerNull::get(ptr_), slot);
}

void Emitter::pop_scope() {
  if (!terminated())
    for (auto it = scopes_.back().rbegin(); it != scopes_.back().rend(); ++it) release_slot(*it);
  scopes_.pop_back();
}

void Emitter::release_scopes_from(size_t depth) {
  for (size_t i = scopes_.size(); i-- > depth;)
    for (auto it = scopes_[i].rbegin(); it != scopes_[i].rend(); ++it) release_slot(*it);
}

void Emitter::pop_temps() {
  if (!terminated())
    for (auto* slot : temps_.back()) release_slot(slot);
  // Every path past this point has released these slots (fall-through here;
  // break/continue/return and traps on their own): later temporaries reuse
  // them, so a function needs as many temp slots as it has live at once.
  free_temps_.insert(free_temps_.end(), temps_.back().begin(), temps_.back().end());
  temps_.pop_back();
}

void Emitter::release_temps_from(size_t depth) {
  for (size_t i = temps_.size(); i-- > depth;)
    for (auto* slot : temps_[i]) release_slot(slot);
}

Val Emitter::own_temp(llvm::Value* v) {
  llvm::AllocaInst* slot = nullptr;
  if (!free_temps_.empty()) {
    slot = free_temps_.back();
    free_temps_.pop_back();
    for (Region* r : regions_) r->owned.push_back(slot);  // a `try` opened since releases it too
  } else {
    slot = heap_slot("tmp");
  }
  b_.CreateStore(v, slot);
  temps_.back().push_back(slot);
  return Val{v, slot};
}

llvm::Value* Emitter::take_owned(const Val& v, const Type* t) {
  if (!t->is_heap()) return v.v;
  if (v.temp) {
    b_.CreateStore(llvm::ConstantPointerNull::get(ptr_), v.temp);  // ownership leaves the temp slot
    return v.v;
  }
  retain(v.v);
  return v.v;
}

llvm::BasicBlock* Emitter::unwind_dest() {
  Region* r = regions_.back();
  if (r->pad) return r->pad;
  r->pad = llvm::BasicBlock::Create(ctx_, "unwind", llfn_);
  r->dispatch = llvm::BasicBlock::Create(ctx_, "unwind.dispatch", llfn_);
  auto* lp_ty = llvm::StructType::get(ctx_, {ptr_, b_.getInt32Ty()});
  llvm::IRBuilder<> b(r->pad);
  auto* lp = b.CreateLandingPad(lp_ty, 1);
  lp->setCleanup(true);
  // If a `try` of this function is at or outside this region, the frame
  // catches: the personality must see a catch clause here too.
  bool catches = false;
  for (Region* x : regions_) catches |= x->kind == Region::Try;
  if (catches) lp->addClause(llvm::ConstantPointerNull::get(ptr_));
  b.CreateBr(r->dispatch);
  b.SetInsertPoint(r->dispatch);
  r->lp = b.CreatePHI(lp_ty, 2, "lp");
  r->lp->addIncoming(lp, r->pad);
  return r->pad;
}

// Hands an unwind that `from` has finished with to the enclosing region.
void Emitter::forward_unwind(Region& from) {
  unwind_dest();  // the enclosing region (now innermost) gets its pad
  Region* outer = regions_.back();
  outer->lp->addIncoming(from.lp, b_.GetInsertBlock());
  b_.CreateBr(outer->dispatch);
}

llvm::Value* Emitter::call(llvm::FunctionCallee f, llvm::ArrayRef<llvm::Value*> args, const llvm::Twine& name) {
  auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee());
  bool nounwind = fn && fn->hasFnAttribute(llvm::Attribute::NoUnwind);
  bool is_void = f.getFunctionType()->getReturnType()->isVoidTy();
  if (nounwind || regions_.empty()) return b_.CreateCall(f, args, is_void ? "" : name);
  llvm::BasicBlock* cont = new_block("cont");
  llvm::Value* r = b_.CreateInvoke(f, cont, unwind_dest(), args, is_void ? "" : name);
  b_.SetInsertPoint(cont);
  return r;
}

void Emitter::trap(int64_t code, int64_t line, const char* msg) {
  if (msg)
    call(rt("wo_trap_msg"), {b_.getInt64(code), site(line), c_string(msg)});
  else
    call(rt("wo_trap"), {b_.getInt64(code), site(line)});
  b_.CreateUnreachable();
}

// The function-level landing pad: release every owned slot, keep unwinding.
void Emitter::finish_function_pad(Region& r) {
  if (!r.pad) return;
  b_.SetInsertPoint(r.dispatch);
  // The unwind path is cold: plain runtime calls instead of the inline fast path keep the IR small.
  for (auto* slot : all_heap_slots_) b_.CreateCall(rt("wo_release"), {load_for_unwind(slot)});
  b_.CreateResume(r.lp);
}

// The running thread's WoFiberLocal (wo_actor.h) without a call: the thread
// pointer plus the offset the runtime published (the same on every thread).
llvm::Value* Emitter::fiber_local() {
  auto* offset = mod_->getOrInsertGlobal("wo_fiber_local_offset", i64_);
  // Published once before any generated code runs: invariant, so a loop loads it once.
  llvm::LoadInst* off = b_.CreateLoad(i64_, offset, "fl.offset");
  off->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx_, {}));
  return b_.CreateGEP(b_.getInt8Ty(), thread_pointer(), off, "fiber.local");
}

// The thread pointer. At -O0 on x86-64 a call of one function of the module
// that reads it (`mov %fs:0`, inline assembly): FastISel, -O0's instruction
// selector, cannot select llvm.thread.pointer nor inline assembly with
// operands, and sent each read (every preemption and stack check) to
// SelectionDAG, and the assembly printer parsed each asm statement anew
// (docs/decisions/0071). A call it selects. The optimiser needs the
// intrinsic (it can hoist and merge it), so -O1+ keeps it.
llvm::Value* Emitter::thread_pointer() {
  if (o0_fast_isel_) return b_.CreateCall(o0_thread_pointer_fn(), {}, "tp");
  llvm::Function* tp = llvm::Intrinsic::getDeclaration(mod_.get(), llvm::Intrinsic::thread_pointer);
  return b_.CreateCall(tp, {}, "tp");
}

llvm::Function* Emitter::o0_thread_pointer_fn() {
  if (llvm::Function* f = mod_->getFunction("wo.o0.thread_pointer")) return f;
  auto* ty = llvm::FunctionType::get(ptr_, false);
  auto* f = llvm::Function::Create(ty, llvm::GlobalValue::InternalLinkage, "wo.o0.thread_pointer", mod_.get());
  f->addFnAttr(llvm::Attribute::NoUnwind);
  f->addFnAttr(llvm::Attribute::NoInline);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", f));
  b.CreateRet(b.CreateCall(ty, llvm::InlineAsm::get(ty, "movq %fs:0, $0", "=r", /*hasSideEffects=*/false), {}, "tp"));
  return f;
}

// Runaway recursion traps STACK instead of crashing: compare this frame's
// address with the running fiber's limit (WoFiberLocal.stack_limit).
void Emitter::emit_stack_check() {
  // The address of this frame's return address, not an alloca's: an alloca
  // whose address escapes stops LLVM's tail-recursion elimination (fib's
  // second call as a loop), and llvm.frameaddress would force a frame
  // pointer (a register and two instructions per call). x86-64 and AArch64
  // lower it; woc generates code for the host only.
  // At -O0 on x86-64 the address of a byte of this frame (an alloca: FastISel
  // selects it, where the intrinsic or inline assembly went to SelectionDAG,
  // docs/decisions/0071): below the return address's slot, so the check is
  // as strict or stricter, and -O0 eliminates no tail calls.
  // At -O1 and above the stack pointer too, read with llvm.read_register
  // (docs/decisions/0067): compared as it is, where the return address's
  // slot costs an `lea` from it in every call (fib: one instruction in ~20).
  llvm::Value* probe = nullptr;
  if (sp_register_) {
    llvm::Function* rr = llvm::Intrinsic::getDeclaration(mod_.get(), llvm::Intrinsic::read_register, {i64_});
    llvm::Metadata* name = llvm::MDString::get(ctx_, sp_register_);
    probe = b_.CreateCall(rr, {llvm::MetadataAsValue::get(ctx_, llvm::MDNode::get(ctx_, {name}))}, "frame.addr");
  } else {
    llvm::Value* frame = o0_fast_isel_ ? entry_alloca(b_.getInt8Ty(), "frame.probe") : nullptr;
    if (!frame) {
      llvm::Function* fa = llvm::Intrinsic::getDeclaration(mod_.get(), llvm::Intrinsic::addressofreturnaddress, {ptr_});
      frame = b_.CreateCall(fa, {}, "frame");
    }
    probe = b_.CreatePtrToInt(frame, i64_, "frame.addr");
  }
  llvm::Value* limit = b_.CreateConstGEP1_64(b_.getInt8Ty(), fiber_local(), 8, "stack.limit.addr");
  // The running fiber's limit: another fiber's is stored there while this
  // one is switched out, but every read this activation makes sees its own,
  // so the load is invariant (a loop made from a self call loads it once).
  llvm::LoadInst* lim = b_.CreateLoad(i64_, limit, "stack.limit");
  lim->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx_, {}));
  stack_limits_[llfn_] = lim;
  llvm::Value* below = b_.CreateICmpULT(probe, lim);
  llvm::BasicBlock* trap_bb = new_block("stack.overflow");
  llvm::BasicBlock* ok_bb = new_block("stack.ok");
  b_.CreateCondBr(below, trap_bb, ok_bb, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
  b_.SetInsertPoint(trap_bb);
  LocScope at(*this, fn_->decl->sig.span.begin);  // the trap's frame is the function's line, not line 0
  trap((int64_t)TrapCode::STACK, fn_->decl->sig.span.begin.line);
  b_.SetInsertPoint(ok_bb);
  stack_trap_bb_ = trap_bb;
}

void Emitter::emit_fn(const FnInfo& fn) {
  fn_ = &fn;
  llfn_ = fns_.at(&fn);
  llfn_->setPersonalityFn(mod_->getFunction("__gxx_personality_v0"));
  slots_.clear();
  all_heap_slots_.clear();
  unwind_loads_.clear();
  free_temps_.clear();
  scopes_.clear();
  temps_.clear();
  loops_.clear();
  self_ = nullptr;
  di_begin_fn(fn);

  alloca_bb_ = llvm::BasicBlock::Create(ctx_, "entry", llfn_);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "body", llfn_);
  Region fn_region;
  fn_region.kind = Region::Function;
  regions_ = {&fn_region};
  push_scope();
  push_temps();

  b_.SetInsertPoint(alloca_bb_);
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  emit_stack_check();
  unsigned arg = 0;
  if (fn.self) self_ = llfn_->getArg(arg++);
  di_self(fn);
  for (const Symbol* p : fn.params) {
    llvm::Value* v = llfn_->getArg(arg++);
    v->setName(p->name);
    llvm::AllocaInst* slot = local_slot(p);
    if (p->type->is_heap() && p->assigned) {
      // The body reassigns this parameter: it owns its own reference from here on.
      retain(v);
      scopes_.back().push_back(slot);
    } else if (p->type->is_heap()) {
      // Borrowed: never released by this function, so not an owned slot.
      all_heap_slots_.pop_back();
      for (Region* r : regions_) r->owned.pop_back();
    }
    b_.CreateStore(v, slot);
  }

  emit_block(*fn.decl->body);
  if (!terminated()) {
    pop_temps();
    pop_scope();
    if (fn.ret->kind == TypeKind::Void)
      b_.CreateRetVoid();
    else
      b_.CreateUnreachable();  // sema proved every path returns
  } else {
    temps_.pop_back();
    scopes_.pop_back();
  }
  finish_function_pad(fn_region);
  // Laid out last (-O0 keeps IR order): the first located instruction, where
  // a debugger's prologue ends, is then the first statement's.
  if (stack_trap_bb_) stack_trap_bb_->moveAfter(&llfn_->back());
  stack_trap_bb_ = nullptr;
  pin_slots_if_big();
  regions_.clear();
  fn_ = nullptr;
  di_sp_ = nullptr;
  b_.SetCurrentDebugLocation({});
}

}  // namespace wo::codegen
