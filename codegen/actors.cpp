// Actors (language.md §14) against the C ABI of runtime/include/wo_actor.h:
// `spawn`, the ACTOR builtins of common/builtins.def (send, call, call_dl,
// monitor, time.after), one WoActorType constant per spawned class with its receive
// trampoline, and the loop back-edge budget read inline from the per-fiber
// state (Emitter::fiber_local in function.cpp; the entry stack check uses it too).
#include <llvm/IR/MDBuilder.h>

#include "codegen/emitter.h"
#include "common/traps.h"

namespace wo::codegen {

namespace {
// Field positions in WoFiberLocal (wo_actor.h).
constexpr unsigned kBudget = 0;
}  // namespace

llvm::StructType* Emitter::fiber_local_type() {
  return llvm::StructType::get(ctx_, {i64_, i64_});
}

// A loop back-edge (runtime.md §3.3, language.md §14.7): one decrement of the
// fiber's budget; at zero the cold path yields (wo_yield refills it). The
// store and the possible call keep LLVM from deleting or hoisting the loop.
void Emitter::emit_preempt_check() {
  if (terminated()) return;
  llvm::Value* fl = fiber_local();
  llvm::Value* bp = b_.CreateStructGEP(fiber_local_type(), fl, kBudget, "budget.ptr");
  llvm::Value* left = b_.CreateSub(b_.CreateLoad(i64_, bp, "budget"), b_.getInt64(1), "budget.left");
  b_.CreateStore(left, bp);
  llvm::BasicBlock* yield_bb = new_block("preempt.yield");
  llvm::BasicBlock* go_bb = new_block("preempt.go");
  b_.CreateCondBr(b_.CreateICmpSLE(left, b_.getInt64(0)), yield_bb, go_bb,
                  llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
  b_.SetInsertPoint(yield_bb);
  call(rt("wo_yield"), {});  // an invoke: after the program's end it unwinds this fiber
  b_.CreateBr(go_bb);
  b_.SetInsertPoint(go_bb);
}

// The message as the runtime's 64-bit word (a pointer, or a bare union's tag).
llvm::Value* Emitter::message_word(llvm::Value* v) { return to_slot(v, nullptr); }

// `uint64_t receive(void* state, uint64_t msg)`: calls C.receive with both
// borrowed and turns the reply into a word (Int as is, Bool 0/1, Float bits,
// an address or a row id); a receive used only with `send` may return any
// type (WO-E226 is at `call`): a heap reply is released, the word is 0.
llvm::Function* Emitter::receive_trampoline(const ClassInfo* cls, const FnInfo* recv) {
  auto* ft = llvm::FunctionType::get(i64_, {ptr_, i64_}, false);
  auto* f = llvm::Function::Create(ft, llvm::Function::InternalLinkage, "wo.receive." + cls->name, mod_.get());
  f->setUWTableKind(llvm::UWTableKind::Async);  // traps unwind through it into the runtime
  llvm::IRBuilder<> b(ctx_);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", f));
  const Type* mt = recv->params[0]->type;
  llvm::Value* msg = f->getArg(1);
  if (llvm_type(mt)->isPointerTy()) msg = b.CreateIntToPtr(msg, ptr_);
  llvm::Value* r = b.CreateCall(fns_.at(recv), {f->getArg(0), msg});
  const Type* rt_ = recv->ret;
  llvm::Value* word = b.getInt64(0);
  if (rt_->kind == TypeKind::Void) {
  } else if (rt_->kind == TypeKind::Actor) {
    word = b.CreatePtrToInt(r, i64_);  // an owned handle: the runtime passes it on (reply_address)
  } else if (rt_->is_heap()) {
    b.CreateCall(release_fn_, {r});
  } else if (r->getType() == f64_) {
    word = b.CreateBitCast(r, i64_);
  } else if (r->getType() == i1_) {
    word = b.CreateZExt(r, i64_);
  } else if (r->getType() == i64_) {
    word = r;
  }
  b.CreateRet(word);
  return f;
}

// The WoActorType constant of an actor class (wo_actor.h).
llvm::Constant* Emitter::actor_type(const ClassInfo* cls) {
  auto it = actor_types_.find(cls);
  if (it != actor_types_.end()) return it->second;
  const FnInfo* recv = cls->method("receive");
  auto* ty = llvm::StructType::get(ctx_, {ptr_, ptr_, ptr_, ptr_, i64_});
  auto* gv = new llvm::GlobalVariable(*mod_, ty, true, llvm::GlobalValue::PrivateLinkage, nullptr, "actor." + cls->name);
  actor_types_[cls] = gv;
  gv->setInitializer(llvm::ConstantStruct::get(
      ty, {c_string(cls->name), receive_trampoline(cls, recv), type_desc(cls->type), type_desc(recv->params[0]->type),
           b_.getInt64(recv->ret->kind == TypeKind::Actor ? 1 : 0)}));
  return gv;
}

// `spawn C { fields }`: the state is built as the constructor literal is,
// then handed to the runtime (its temp slot emptied first: the runtime owns
// it from the call on, also when the call traps).
Val Emitter::emit_spawn(const ast::Expr& e) {
  const ClassInfo* cls = e.lhs->sym->cls;
  Val state = emit_ctor(*e.lhs);
  llvm::Constant* type = actor_type(cls);
  llvm::Value* s = take_owned(state, cls->type);
  llvm::Value* addr = call(rt("wo_spawn"), {s, type, site(e.span.begin.line)}, "actor");
  return own_temp(b_.CreateIntToPtr(addr, ptr_));  // an owned handle
}

// send / call / call_dl / monitor / time.after (builtins.def codes n, R, m, r). Every
// argument is evaluated first; then a nil address or a nil message traps
// BOUNDS `<op>: nil actor address` / `<op>: nil message` here (the message
// is still in its slot, so the unwind releases it); then the message leaves
// its slot and moves into the runtime with the call.
Val Emitter::emit_actor_call(const ast::Expr& e) {
  const sema::BuiltinSig& sig = sema::builtin_table()[e.sym->builtin];
  int64_t line = e.span.begin.line;
  std::string op = e.sym->name;  // as written: `send`, `time.after`
  std::vector<Val> vals;
  std::vector<const Type*> msg_types(e.args.size(), nullptr);
  const Type* msg = nullptr;
  std::vector<uint8_t> later = writes_after(operands(e));
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Type* at = e.args[i]->type;
    char c = sig.params[i];
    if (c == 'n') {
      vals.push_back(pass_arg(keep(emit_expr(*e.args[i]), *e.args[i], later[i]), at, at->base(), line));
      continue;
    }
    Val v = keep(emit_expr(*e.args[i]), *e.args[i], later[i]);
    if (c == 'R') msg = at->base()->elem;
    if (c == 'm') {
      msg_types[i] = msg;
      v = coerce(v, at, at->is_nullable() ? at : msg);
    }
    vals.push_back(v);
  }
  auto nil_trap = [&](const Val& v, const Type* at, const std::string& what) {
    if (!at->is_nullable()) return;
    llvm::BasicBlock* trap_bb = new_block("actor.nil");
    llvm::BasicBlock* ok_bb = new_block("actor.ok");
    b_.CreateCondBr(is_nil(v.v, at), trap_bb, ok_bb, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(trap_bb);
    trap((int64_t)TrapCode::BOUNDS, line, (op + ": " + what).c_str());
    b_.SetInsertPoint(ok_bb);
  };
  for (size_t i = 0; i < e.args.size(); ++i)
    if (sig.params[i] == 'R') nil_trap(vals[i], e.args[i]->type, "nil actor address");
  for (size_t i = 0; i < e.args.size(); ++i)
    if (sig.params[i] == 'm') nil_trap(vals[i], e.args[i]->type, "nil message");
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (sig.params[i] == 'R') {
      args.push_back(b_.CreatePtrToInt(vals[i].v, i64_));  // the handle, borrowed for the call
      continue;
    }
    if (sig.params[i] != 'm') {
      args.push_back(vals[i].v);
      continue;
    }
    args.push_back(message_word(take_owned(vals[i], e.args[i]->type)));
    args.push_back(type_desc(msg_types[i]));
  }
  if (sig.result == "?r") return emit_call_dl(e, args);
  args.push_back(site(line));
  llvm::Value* r = call(builtin_fn(sig), args);
  if (sig.result != "r") return Val{};
  if (e.type->is_heap()) return own_temp(from_slot(r, e.type));  // an address reply: an owned handle
  return Val{from_slot(r, e.type)};
}

// call_dl(addr, msg, ms): the runtime says whether a reply came and writes
// its word into a slot; no reply is the nil of ?R (e.type), a reply is
// converted as `call`'s and made nullable (an Int equal to ?Int's nil
// traps BOUNDS, as every Int that becomes a ?Int does).
Val Emitter::emit_call_dl(const ast::Expr& e, std::vector<llvm::Value*>& args) {
  llvm::AllocaInst* slot = entry_alloca(i64_, "call_dl.reply");
  args.push_back(slot);
  args.push_back(site(e.span.begin.line));
  llvm::Value* got = call(builtin_fn(sema::builtin_table()[e.sym->builtin]), args, "call_dl.got");
  const Type* reply = e.type->base();
  llvm::BasicBlock* from_bb = b_.GetInsertBlock();
  llvm::BasicBlock* hit_bb = new_block("call_dl.reply");
  llvm::BasicBlock* done_bb = new_block("call_dl.done");
  b_.CreateCondBr(got, hit_bb, done_bb);
  b_.SetInsertPoint(hit_bb);
  llvm::Value* word = from_slot(b_.CreateLoad(i64_, slot), reply);
  llvm::Value* v = coerce(Val{word}, reply, e.type).v;
  llvm::BasicBlock* hit_end = b_.GetInsertBlock();
  b_.CreateBr(done_bb);
  b_.SetInsertPoint(done_bb);
  llvm::PHINode* r = b_.CreatePHI(llvm_type(e.type), 2, "call_dl");
  r->addIncoming(nil_of(e.type), from_bb);
  r->addIncoming(v, hit_end);
  if (e.type->is_heap()) return own_temp(r);  // an address reply: an owned handle (or nil)
  return Val{r};
}

}  // namespace wo::codegen
