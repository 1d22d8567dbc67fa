// Expressions. Each returns a Val: borrowed, or an owned temporary (Val::temp).
#include <algorithm>

#include <llvm/IR/MDBuilder.h>

#include "codegen/emitter.h"
#include "common/traps.h"
#include "wo_runtime.h"  // the nil spellings, shared with the runtime

namespace wo::codegen {

using ast::BinaryOp;
using ast::ExprKind;

llvm::Value* Emitter::to_slot(llvm::Value* v, const Type* t) {
  llvm::Type* ty = v->getType();
  if (ty == f64_) return b_.CreateBitCast(v, i64_);
  if (ty == i1_) return b_.CreateZExt(v, i64_);
  if (ty->isPointerTy()) return b_.CreatePtrToInt(v, i64_);
  return v;
}

llvm::Value* Emitter::from_slot(llvm::Value* v, const Type* t) {
  llvm::Type* ty = llvm_type(t);
  if (ty == f64_) return b_.CreateBitCast(v, f64_);
  if (ty == i1_) return b_.CreateTrunc(v, i1_);
  if (ty->isPointerTy()) return b_.CreateIntToPtr(v, ptr_);
  return v;
}

Val Emitter::emit_expr(const ast::Expr& e) {
  line_ = e.span.begin.line;
  LocScope at(*this, e.span.begin);
  if (!prog_.guarded_elements.count(&e)) return emit_node(e);
  // An element a BORROW guard compares: kept (so its address cannot be
  // reused by another element before the comparison) and remembered.
  Val v = hold(emit_node(e), e.type);
  guard_values_[&e] = v.v;
  return v;
}

Val Emitter::emit_node(const ast::Expr& e) {
  switch (e.kind) {
    case ExprKind::IntLit: return Val{b_.getInt64(e.int_value)};
    case ExprKind::FloatLit: return Val{llvm::ConstantFP::get(f64_, e.float_value)};
    case ExprKind::TextLit: return Val{text_literal(e.text)};
    case ExprKind::BoolLit: return Val{b_.getInt1(e.int_value != 0)};
    case ExprKind::NilLit: return Val{llvm::ConstantPointerNull::get(ptr_)};  // coerce() gives it a representation
    case ExprKind::Name: return emit_name(e);
    case ExprKind::Interp: return emit_interp(e);
    case ExprKind::Unary: return emit_unary(e);
    case ExprKind::Binary: return emit_binary(e);
    case ExprKind::Call: return emit_call(e);
    case ExprKind::Member: return emit_member(e);
    case ExprKind::Index: return emit_index(e);
    case ExprKind::ListLit: return emit_list(e);
    case ExprKind::Ctor: return emit_ctor(e);
    case ExprKind::Try: return emit_try(e);
    case ExprKind::Switch: return emit_switch(e);
    case ExprKind::As: return emit_expr(*e.lhs);  // the decode call already knows its target (sema)
    case ExprKind::Insert: return emit_insert(e);
    case ExprKind::Spawn: return emit_spawn(e);
    case ExprKind::Delete: return emit_delete(e);
    case ExprKind::Query: return emit_query(e);
    case ExprKind::EmptyMap:
      return own_temp(call(rt("wo_map_new"), {b_.getInt64(elem_kind(e.type->elem)), b_.getInt64(elem_kind(e.type->value))}));
    default: break;
  }
  // Sema rejects every other form before codegen runs.
  llvm::errs() << "woc internal error: unexpected expression kind in codegen\n";
  std::abort();
}

Val Emitter::emit_name(const ast::Expr& e) {
  const Symbol* s = e.sym;
  if (s->kind == sema::SymKind::Self) return Val{self_};
  if (s->kind == sema::SymKind::Variant) return emit_variant(e);
  llvm::AllocaInst* slot = local_slot(s);
  llvm::Value* v = b_.CreateLoad(slot->getAllocatedType(), slot, s->name);
  // A narrowed ?T local read as T (sema proved it is not nil).
  if (e.type != s->type && s->type->is_nullable() && e.type->kind == TypeKind::Bool) v = b_.CreateTrunc(v, i1_);
  // A move out of an owned local: offered like a temporary, so the consumer
  // takes the reference and empties the slot (no retain, no release).
  if (s->kind == sema::SymKind::Local && s->type->is_heap() && prog_.moves.count(&e)) return Val{v, slot};
  return Val{v};
}

llvm::Value* Emitter::nil_of(const Type* t) {
  const Type* base = t->base();
  if (base->is_heap()) return llvm::ConstantPointerNull::get(ptr_);
  if (base->kind == TypeKind::Float)
    return llvm::ConstantFP::get(ctx_, llvm::APFloat(llvm::APFloat::IEEEdouble(), llvm::APInt(64, WO_NIL_FLOAT_BITS)));
  return b_.getInt64(WO_NIL_SCALAR);
}

llvm::Value* Emitter::is_nil(llvm::Value* v, const Type* t) {
  const Type* base = t->base();
  if (base->is_heap()) return b_.CreateIsNull(v);
  if (base->kind == TypeKind::Float)
    return b_.CreateICmpEQ(b_.CreateBitCast(v, i64_), b_.getInt64(WO_NIL_FLOAT_BITS));
  return b_.CreateICmpEQ(v, b_.getInt64(WO_NIL_SCALAR));
}

Val Emitter::coerce(Val v, const Type* from, const Type* to) {
  if (!from || !to || from == to || to->kind == TypeKind::Void) return v;
  if (from->kind == TypeKind::Nil) return Val{to->is_nullable() ? nil_of(to) : llvm::ConstantPointerNull::get(ptr_)};
  const Type* tb = to->base();
  const Type* fb = from->base();
  if (tb->kind == TypeKind::Interface && fb->kind == TypeKind::Class) {
    // Box the object: the box owns it (language.md §6.10).
    auto box_it = [&] {
      llvm::StructType* bt = box_type();
      llvm::Value* box = call(rt("wo_alloc"), {llvm::ConstantExpr::getSizeOf(bt), box_destroy_}, "box");
      Val boxed = own_temp(box);
      llvm::Value* obj = take_owned(v, fb);
      b_.CreateStore(obj, b_.CreateStructGEP(bt, box, 2));
      b_.CreateStore(vtable(fb->cls, tb->iface), b_.CreateStructGEP(bt, box, 3));
      return boxed;
    };
    // A plain interface slot gets a ?C only through pass_arg, which checked it.
    if (!from->is_nullable() || !to->is_nullable()) return box_it();
    // ?C into ?I: nil stays nil (a box around nothing would not compare equal to nil).
    llvm::BasicBlock* box_bb = new_block("box");
    llvm::BasicBlock* done_bb = new_block("box.done");
    llvm::BasicBlock* nil_end = b_.GetInsertBlock();
    b_.CreateCondBr(is_nil(v.v, from), done_bb, box_bb);
    b_.SetInsertPoint(box_bb);
    Val boxed = box_it();
    llvm::BasicBlock* box_end = b_.GetInsertBlock();
    b_.CreateBr(done_bb);
    b_.SetInsertPoint(done_bb);
    llvm::PHINode* phi = b_.CreatePHI(ptr_, 2, "maybe.box");
    phi->addIncoming(llvm::ConstantPointerNull::get(ptr_), nil_end);
    phi->addIncoming(boxed.v, box_end);
    return Val{phi, boxed.temp};  // the temp slot holds the box, or stays empty
  }
  if (to->is_nullable() && !from->is_nullable() && fb->is_int_like()) v.v = not_nil_marker(v.v);
  llvm::Type* want = llvm_type(to);
  if (v.v->getType() == want) return v;
  if (v.v->getType() == i1_ && want == i64_) return Val{b_.CreateZExt(v.v, i64_), v.temp};
  if (v.v->getType() == i64_ && want == i1_) return Val{b_.CreateTrunc(v.v, i1_), v.temp};
  return v;
}

// An Int becoming a `?Int` (or `?Timestamp`, `?Id`): the one value that
// spells nil cannot be held, so it traps BOUNDS instead of turning into nil
// (docs/decisions/0015). Constants other than that value need no check.
llvm::Value* Emitter::not_nil_marker(llvm::Value* v) {
  const int64_t marker = WO_NIL_SCALAR;
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(v); c && c->getSExtValue() != marker) return v;
  llvm::BasicBlock* trap_bb = new_block("nilmarker.trap");
  llvm::BasicBlock* ok_bb = new_block("nilmarker.ok");
  b_.CreateCondBr(b_.CreateICmpEQ(v, b_.getInt64(marker)), trap_bb, ok_bb,
                  llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
  b_.SetInsertPoint(trap_bb);
  trap((int64_t)TrapCode::BOUNDS, line_, "-4611686018427387904 is the nil of a nullable Int and cannot be held in one");
  b_.SetInsertPoint(ok_bb);
  return v;
}

Val Emitter::pass_arg(Val v, const Type* from, const Type* to, int64_t line) {
  if (from->is_nullable() && !to->is_nullable() && to->kind != TypeKind::Void) {
    llvm::BasicBlock* trap_bb = new_block("nil.arg");
    llvm::BasicBlock* ok_bb = new_block("arg.ok");
    b_.CreateCondBr(is_nil(v.v, from), trap_bb, ok_bb, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(trap_bb);
    trap((int64_t)TrapCode::BOUNDS, line, kNullReceiverMessage);
    b_.SetInsertPoint(ok_bb);
  }
  return coerce(v, from, to);
}

llvm::Value* Emitter::union_tag(llvm::Value* v, const Type* t) {
  if (!t->uni->has_payload) return v;
  auto* hdr = llvm::StructType::get(ctx_, {i64_, ptr_, i64_});
  return b_.CreateLoad(i64_, b_.CreateStructGEP(hdr, v, 2), "tag");
}

Val Emitter::emit_variant(const ast::Expr& e) {
  const Symbol* s = e.kind == ExprKind::Call ? e.lhs->sym : e.sym;
  const sema::UnionInfo* u = s->uni;
  const sema::VariantInfo& vi = u->variants[s->variant];
  if (!u->has_payload) return Val{b_.getInt64(vi.index)};
  if (vi.payload.empty()) return Val{bare_variant_object(u, vi.index)};
  std::vector<Val> args;
  std::vector<uint8_t> later = writes_after(operands(e));
  for (size_t i = 0; i < e.args.size(); ++i)
    args.push_back(pass_arg(keep(emit_expr(*e.args[i]), *e.args[i], later[i]), e.args[i]->type, vi.payload[i].type,
                            e.span.begin.line));
  const ClassLayout& l = variant_layout(u, vi.index);
  Val obj = own_temp(call(rt("wo_alloc"), {llvm::ConstantExpr::getSizeOf(l.type), l.destroy}, "variant"));
  b_.CreateStore(b_.getInt64(vi.index), b_.CreateStructGEP(l.type, obj.v, 2));
  for (size_t i = 0; i < args.size(); ++i)
    b_.CreateStore(take_owned(args[i], vi.payload[i].type), b_.CreateStructGEP(l.type, obj.v, (unsigned)(i + 3)));
  return obj;
}

Val Emitter::emit_iface_call(const ast::Expr& e) {
  const Symbol* s = e.sym;
  const sema::IfaceMethodInfo& m = s->iface->methods[s->method_index];
  std::vector<uint8_t> later = writes_after(operands(e));  // the receiver first
  Val recv = keep_arg(emit_expr(*e.lhs->lhs), *e.lhs->lhs, later[0], e);
  llvm::StructType* bt = box_type();
  llvm::Value* obj = b_.CreateLoad(ptr_, b_.CreateStructGEP(bt, recv.v, 2), "obj");
  llvm::Value* vt = b_.CreateLoad(ptr_, b_.CreateStructGEP(bt, recv.v, 3), "vtable");
  llvm::Value* fp = b_.CreateLoad(ptr_, b_.CreateConstGEP1_64(ptr_, vt, s->method_index + 1), "method");  // slot 0: the class desc
  std::vector<llvm::Value*> args = {obj};
  std::vector<llvm::Type*> params = {ptr_};
  for (size_t i = 0; i < e.args.size(); ++i) {
    Val a = keep_arg(emit_expr(*e.args[i]), *e.args[i], later[i + 1], e);
    args.push_back(pass_arg(a, e.args[i]->type, m.params[i], e.span.begin.line).v);
    params.push_back(llvm_type(m.params[i]));
  }
  emit_borrow_guards(e);
  auto* ft = llvm::FunctionType::get(llvm_type(m.ret), params, false);
  llvm::Value* r = call(llvm::FunctionCallee(ft, fp), args, m.name);
  if (m.ret->kind == TypeKind::Void) return Val{};
  if (m.ret->is_heap()) return own_temp(r);
  return Val{r};
}

Val Emitter::emit_interp(const ast::Expr& e) {
  Val v = emit_expr(*e.lhs);
  const Type* t = e.lhs->type;
  if (t->kind == TypeKind::Text) return v;
  if (t->kind == TypeKind::Float) return own_temp(call(rt("wo_float_to_text"), {v.v}));
  return own_temp(call(rt("wo_int_to_text"), {v.v}));
}

Val Emitter::emit_unary(const ast::Expr& e) {
  Val v = emit_expr(*e.lhs);
  if (e.unary_op == ast::UnaryOp::Not) return Val{b_.CreateNot(v.v)};
  if (v.v->getType() == f64_) return Val{b_.CreateFNeg(v.v)};
  return Val{b_.CreateSub(b_.getInt64(0), v.v)};  // wraps: -INT64_MIN == INT64_MIN
}

// `a or b or c …` (left-nested, one operator) short-circuits straight to one
// end block with one phi, as C compilers do, rather than one phi per operator
// tested again by the next: LLVM's SimplifyCFG is quadratic in that shape.
Val Emitter::emit_logical(const ast::Expr& e) {
  bool is_and = e.binary_op == BinaryOp::And;
  std::vector<const ast::Expr*> operands;
  const ast::Expr* p = &e;
  while (p->kind == ExprKind::Binary && p->binary_op == e.binary_op) {
    operands.push_back(p->rhs.get());
    p = p->lhs.get();
  }
  operands.push_back(p);
  std::reverse(operands.begin(), operands.end());
  llvm::BasicBlock* end_bb = new_block(is_and ? "and.end" : "or.end");
  std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> incoming;
  for (size_t i = 0; i + 1 < operands.size(); ++i) {
    llvm::Value* v = emit_expr(*operands[i]).v;
    llvm::BasicBlock* rhs_bb = new_block(is_and ? "and.rhs" : "or.rhs");
    incoming.push_back({b_.getInt1(!is_and), b_.GetInsertBlock()});
    if (is_and)
      b_.CreateCondBr(v, rhs_bb, end_bb);
    else
      b_.CreateCondBr(v, end_bb, rhs_bb);
    b_.SetInsertPoint(rhs_bb);
  }
  llvm::Value* last = emit_expr(*operands.back()).v;
  incoming.push_back({last, b_.GetInsertBlock()});
  b_.CreateBr(end_bb);
  b_.SetInsertPoint(end_bb);
  llvm::PHINode* phi = b_.CreatePHI(i1_, (unsigned)incoming.size());
  for (auto& [v, from] : incoming) phi->addIncoming(v, from);
  return Val{phi};
}

// `a .. b .. c …` (left-nested) becomes one wo_concat_n: one allocation
// instead of one per `..`. A long chain (generated code, an interpolation with
// many holes) goes in chunks of kConcatChunk pieces appended to one growing
// text (wo_text_append, amortised linear): the pieces of a chunk are released
// before the next chunk is evaluated, so only a chunk's temporaries are live
// at once, and no call gets an argument array thousands of stores long
// (InstCombine and DSE are quadratic in those).
Val Emitter::emit_concat_chain(const ast::Expr& e) {
  std::vector<const ast::Expr*> pieces;
  const ast::Expr* p = &e;
  while (p->kind == ExprKind::Binary && p->binary_op == BinaryOp::Concat) {
    pieces.push_back(p->rhs.get());
    p = p->lhs.get();
  }
  pieces.push_back(p);
  std::reverse(pieces.begin(), pieces.end());
  auto concat = [&](size_t from, size_t to) {
    std::vector<llvm::Value*> vals;
    std::vector<uint8_t> later = writes_after({pieces.begin() + from, pieces.begin() + to});
    for (size_t i = from; i < to; ++i) vals.push_back(keep(emit_expr(*pieces[i]), *pieces[i], later[i - from]).v);
    if (vals.size() == 2) return call(rt("wo_concat"), {vals[0], vals[1]}, "cat");
    auto* arr_ty = llvm::ArrayType::get(ptr_, vals.size());
    llvm::AllocaInst* arr = entry_alloca(arr_ty, "cat.parts");
    // The array lives only around the call, so chunks and chains share stack space.
    b_.CreateLifetimeStart(arr);
    for (size_t i = 0; i < vals.size(); ++i) b_.CreateStore(vals[i], b_.CreateConstGEP2_64(arr_ty, arr, 0, i));
    llvm::Value* r = call(rt("wo_concat_n"), {arr, b_.getInt64((int64_t)vals.size())}, "cat");
    b_.CreateLifetimeEnd(arr);
    return r;
  };
  if (pieces.size() <= kConcatChunk) return own_temp(concat(0, pieces.size()));
  push_temps();
  llvm::Value* first = concat(0, kConcatChunk);
  pop_temps();  // only releases (nounwind) between the call and the store below
  Val acc = own_temp(first);
  for (size_t from = kConcatChunk; from < pieces.size(); from += kConcatChunk) {
    size_t to = std::min(pieces.size(), from + kConcatChunk);
    push_temps();
    Val part = to - from == 1 ? emit_expr(*pieces[from]) : own_temp(concat(from, to));
    llvm::Value* old = b_.CreateLoad(ptr_, acc.temp);
    // wo_text_append consumes `old` (also when it traps): the slot must not release it again.
    b_.CreateStore(llvm::ConstantPointerNull::get(ptr_), acc.temp);
    llvm::Value* grown = call(rt("wo_text_append"), {old, part.v}, "grown");
    b_.CreateStore(grown, acc.temp);
    pop_temps();
  }
  return Val{b_.CreateLoad(ptr_, acc.temp), acc.temp};
}

Val Emitter::emit_binary(const ast::Expr& e) {
  if (e.binary_op == BinaryOp::And || e.binary_op == BinaryOp::Or) return emit_logical(e);
  if (e.binary_op == BinaryOp::Concat) return emit_concat_chain(e);
  Val l = keep(emit_expr(*e.lhs), *e.lhs, may_write(*e.rhs));
  Val r = emit_expr(*e.rhs);
  const Type* lt = e.lhs->type;
  const Type* rt_ = e.rhs->type;
  if (e.binary_op == BinaryOp::Eq || e.binary_op == BinaryOp::Ne) {
    llvm::Value* eq = nullptr;
    if (lt->kind == TypeKind::Nil && rt_->kind == TypeKind::Nil) {
      eq = b_.getTrue();
    } else if (lt->kind == TypeKind::Nil || rt_->kind == TypeKind::Nil) {
      eq = lt->kind == TypeKind::Nil ? is_nil(r.v, rt_) : is_nil(l.v, lt);
    } else if (lt->is_nullable() || rt_->is_nullable()) {
      // Compare in the nullable representation: nil equals only nil.
      const Type* nt = lt->is_nullable() ? lt : rt_;
      llvm::Value* a = coerce(l, lt, nt).v;
      llvm::Value* c = coerce(r, rt_, nt).v;
      const Type* base = nt->elem;
      if (base->kind == TypeKind::Text) {
        eq = call(rt("wo_text_eq"), {a, c});
      } else if (base->kind == TypeKind::Float) {
        eq = b_.CreateOr(b_.CreateFCmpOEQ(a, c), b_.CreateAnd(is_nil(a, nt), is_nil(c, nt)));
      } else if (base->kind == TypeKind::Union && base->uni->has_payload) {
        llvm::Value* both_nil = b_.CreateAnd(is_nil(a, nt), is_nil(c, nt));
        llvm::Value* any_nil = b_.CreateOr(is_nil(a, nt), is_nil(c, nt));
        llvm::BasicBlock* cmp_bb = new_block("nullable.cmp");
        llvm::BasicBlock* done_bb = new_block("nullable.done");
        llvm::BasicBlock* from = b_.GetInsertBlock();
        b_.CreateCondBr(any_nil, done_bb, cmp_bb);
        b_.SetInsertPoint(cmp_bb);
        llvm::Value* tags = b_.CreateICmpEQ(union_tag(a, base), union_tag(c, base));
        llvm::BasicBlock* cmp_end = b_.GetInsertBlock();
        b_.CreateBr(done_bb);
        b_.SetInsertPoint(done_bb);
        llvm::PHINode* phi = b_.CreatePHI(i1_, 2);
        phi->addIncoming(both_nil, from);
        phi->addIncoming(tags, cmp_end);
        eq = phi;
      } else if (base->kind == TypeKind::Actor) {
        eq = actors_same(a, c);
      } else if (base->is_heap()) {
        eq = b_.CreateICmpEQ(a, c);  // identity; other heap kinds are rejected by sema
      } else {
        eq = b_.CreateICmpEQ(a, c);
      }
    } else if (lt->kind == TypeKind::Union) {
      eq = b_.CreateICmpEQ(union_tag(l.v, lt), union_tag(r.v, rt_));  // tags (docs/decisions/0007)
    }
    if (eq) return Val{e.binary_op == BinaryOp::Eq ? eq : b_.CreateNot(eq)};
  }
  return binary_values(e.span.begin.line, e.binary_op, l, r, lt);
}

llvm::Value* Emitter::values_equal(llvm::Value* a, llvm::Value* b, const Type* t) {
  if (t->kind == TypeKind::Text) return call(rt("wo_text_eq"), {a, b});
  if (t->kind == TypeKind::Float) return b_.CreateFCmpOEQ(a, b);
  if (t->kind == TypeKind::Actor) return actors_same(a, b);
  return b_.CreateICmpEQ(a, b);
}

// Two handles may name one actor (a copy that crossed shards): addresses
// compare by the actor they name.
llvm::Value* Emitter::actors_same(llvm::Value* a, llvm::Value* b) {
  return call(rt("wo_actor_same"), {b_.CreatePtrToInt(a, i64_), b_.CreatePtrToInt(b, i64_)});
}

Val Emitter::binary_values(int64_t line, BinaryOp op, Val lv, Val rv, const Type* lt) {
  llvm::Value* l = lv.v;
  llvm::Value* r = rv.v;
  bool fp = l->getType() == f64_;
  bool text = lt->kind == TypeKind::Text;
  auto checked_block = [&](llvm::Value* bad, int64_t code, const char* msg) {
    llvm::BasicBlock* trap_bb = new_block("trap");
    llvm::BasicBlock* ok_bb = new_block("ok");
    b_.CreateCondBr(bad, trap_bb, ok_bb, llvm::MDBuilder(ctx_).createBranchWeights(1, 1 << 20));
    b_.SetInsertPoint(trap_bb);
    trap(code, line, msg);
    b_.SetInsertPoint(ok_bb);
  };
  switch (op) {
    case BinaryOp::Eq: return Val{values_equal(l, r, lt)};
    case BinaryOp::Ne:
      if (fp) return Val{b_.CreateFCmpUNE(l, r)};
      return Val{b_.CreateNot(values_equal(l, r, lt))};
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge: {
      if (text) {
        l = call(rt("wo_text_cmp"), {l, r});
        r = b_.getInt64(0);
      }
      if (fp) {
        static const llvm::CmpInst::Predicate p[] = {llvm::CmpInst::FCMP_OLT, llvm::CmpInst::FCMP_OLE,
                                                     llvm::CmpInst::FCMP_OGT, llvm::CmpInst::FCMP_OGE};
        return Val{b_.CreateFCmp(p[(int)op - (int)BinaryOp::Lt], l, r)};
      }
      static const llvm::CmpInst::Predicate p[] = {llvm::CmpInst::ICMP_SLT, llvm::CmpInst::ICMP_SLE,
                                                   llvm::CmpInst::ICMP_SGT, llvm::CmpInst::ICMP_SGE};
      return Val{b_.CreateICmp(p[(int)op - (int)BinaryOp::Lt], l, r)};
    }
    case BinaryOp::Concat: return own_temp(call(rt("wo_concat"), {l, r}, "cat"));
    case BinaryOp::Add: return Val{fp ? b_.CreateFAdd(l, r) : b_.CreateAdd(l, r)};
    case BinaryOp::Sub: return Val{fp ? b_.CreateFSub(l, r) : b_.CreateSub(l, r)};
    case BinaryOp::Mul: return Val{fp ? b_.CreateFMul(l, r) : b_.CreateMul(l, r)};
    case BinaryOp::Div:
    case BinaryOp::Mod: {
      bool div = op == BinaryOp::Div;
      if (fp) return Val{div ? b_.CreateFDiv(l, r) : b_.CreateFRem(l, r)};
      // A constant divisor other than 0 and -1 can trap neither way: no checks to emit.
      auto* c = llvm::dyn_cast<llvm::ConstantInt>(r);
      if (!c || c->isZero() || c->isMinusOne()) {
        checked_block(b_.CreateICmpEQ(r, b_.getInt64(0)), (int64_t)TrapCode::DIV0, nullptr);
        llvm::Value* ovf = b_.CreateAnd(b_.CreateICmpEQ(l, b_.getInt64(INT64_MIN)), b_.CreateICmpEQ(r, b_.getInt64(-1)));
        checked_block(ovf, (int64_t)TrapCode::DIV0, "INT64_MIN / -1 overflows");
      }
      return Val{div ? b_.CreateSDiv(l, r) : b_.CreateSRem(l, r)};
    }
    case BinaryOp::BitAnd: return Val{b_.CreateAnd(l, r)};
    case BinaryOp::BitOr: return Val{b_.CreateOr(l, r)};
    case BinaryOp::BitXor: return Val{b_.CreateXor(l, r)};
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      // Counts are never masked: outside 0..63 traps SHIFT (language.md §10.5).
      if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(r); !c || c->getZExtValue() >= 64)
        checked_block(b_.CreateICmpUGE(r, b_.getInt64(64)), (int64_t)TrapCode::SHIFT, nullptr);
      return Val{op == BinaryOp::Shl ? b_.CreateShl(l, r) : b_.CreateAShr(l, r)};
    default: break;
  }
  std::abort();
}

Val Emitter::emit_call(const ast::Expr& e) {
  const Symbol* s = e.sym;
  if (!s) {
    // multi_new() / map_new(): sema typed them from their destination.
    if (e.type->kind == TypeKind::List)
      return own_temp(call(rt("wo_list_new"), {b_.getInt64(elem_kind(e.type->elem)), b_.getInt64(0)}));
    return own_temp(call(rt("wo_map_new"), {b_.getInt64(elem_kind(e.type->elem)), b_.getInt64(elem_kind(e.type->value))}));
  }
  if (s->kind == sema::SymKind::Builtin) return emit_builtin(e);
  if (s->kind == sema::SymKind::Class) return emit_row_get(e);
  if (s->kind == sema::SymKind::Variant) return emit_variant(e);
  if (s->kind == sema::SymKind::IfaceMethod) return emit_iface_call(e);
  const FnInfo* fn = s->fn;
  std::vector<llvm::Value*> args;
  // `v.m(args)` through `using` is `m(v, args)`: sema typed the receiver. (A
  // module-qualified `alias.f(args)` has an untyped alias as its head.)
  bool extension = s->kind == sema::SymKind::Fn && e.lhs->kind == ExprKind::Member && e.lhs->lhs->type;
  std::vector<const ast::Expr*> ops = operands(e);  // the receiver first, when there is one
  std::vector<uint8_t> later = writes_after(ops);
  size_t k = 0;  // the operand being evaluated
  if (s->kind == sema::SymKind::Method) {
    args.push_back(keep_arg(emit_expr(*e.lhs->lhs), *e.lhs->lhs, later[k], e).v);
    ++k;
  }
  if (extension) {
    Val recv = keep_arg(emit_expr(*e.lhs->lhs), *e.lhs->lhs, later[k++], e);
    args.push_back(pass_arg(recv, e.lhs->lhs->type, fn->params[0]->type, e.span.begin.line).v);
  }
  size_t first = extension ? 1 : 0;
  for (size_t i = 0; i < e.args.size(); ++i, ++k) {
    Val a = keep_arg(emit_expr(*e.args[i]), *e.args[i], later[k], e);
    args.push_back(pass_arg(a, e.args[i]->type, fn->params[i + first]->type, e.span.begin.line).v);
  }
  emit_borrow_guards(e);
  llvm::Value* r = call(fns_.at(fn), args, fn->name);
  if (fn->ret->kind == TypeKind::Void) return Val{};
  if (fn->ret->is_heap()) return own_temp(r);
  return Val{r};
}

// Two views of the same element, one of them `mut`, through run-time indices,
// a loop variable or a `let` bound to an element (§15.3): sema paired the
// element expressions the call's operands went through; their values were
// recorded as they were emitted (emit_expr). Nil (an absent map value) and
// immortal objects (a bare variant of a payload union: one object for every
// value) are never an element borrowed twice.
void Emitter::emit_borrow_guards(const ast::Expr& e) {
  auto g = prog_.borrow_guards.find(&e);
  if (g == prog_.borrow_guards.end()) return;
  for (auto [a, b] : g->second) {
    auto va = guard_values_.find(a), vb = guard_values_.find(b);
    // Sema pairs only places the call's operands evaluate, so both are here.
    if (va == guard_values_.end() || vb == guard_values_.end()) continue;
    llvm::Value* same = b_.CreateAnd(b_.CreateICmpEQ(va->second, vb->second), b_.CreateIsNotNull(va->second));
    llvm::BasicBlock* same_bb = new_block("borrow.same");
    llvm::BasicBlock* trap_bb = new_block("borrow.conflict");
    llvm::BasicBlock* ok_bb = new_block("borrow.ok");
    b_.CreateCondBr(same, same_bb, ok_bb);
    b_.SetInsertPoint(same_bb);
    llvm::Value* rc = b_.CreateLoad(i64_, va->second, "rc");  // the header's count: -1 for an immortal object
    b_.CreateCondBr(b_.CreateICmpSGE(rc, b_.getInt64(0)), trap_bb, ok_bb);
    b_.SetInsertPoint(trap_bb);
    trap((int64_t)TrapCode::BORROW, e.span.begin.line, "the same element borrowed twice, at least once `mut`");
    b_.SetInsertPoint(ok_bb);
  }
  for (auto [a, b] : g->second) {  // each emission of the call records its own
    guard_values_.erase(a);
    guard_values_.erase(b);
  }
}

// Text, Bytes, multi and map all keep their length right after the header
// (wo_runtime.h), so `len` is one load.
llvm::Value* Emitter::inline_len(llvm::Value* obj) {
  return b_.CreateLoad(i64_, b_.CreateConstGEP1_64(b_.getInt8Ty(), obj, 16), "len");
}

// `xs[i]` with the bounds check inline; only an out-of-range index calls the
// runtime, which raises the BOUNDS trap with its message.
llvm::Value* Emitter::inline_list_get(llvm::Value* list, llvm::Value* i, int64_t line) {
  llvm::Value* in_range = b_.CreateICmpULT(i, inline_len(list));
  llvm::BasicBlock* slow = new_block("index.out");
  llvm::BasicBlock* fast = new_block("index.ok");
  b_.CreateCondBr(in_range, fast, slow, llvm::MDBuilder(ctx_).createBranchWeights(1 << 20, 1));
  b_.SetInsertPoint(slow);
  call(rt("wo_list_get"), {list, i, site(line)});
  b_.CreateUnreachable();
  b_.SetInsertPoint(fast);
  llvm::Value* data = b_.CreateLoad(ptr_, b_.CreateConstGEP1_64(b_.getInt8Ty(), list, 40), "data");
  return b_.CreateLoad(i64_, b_.CreateGEP(i64_, data, i), "elem");
}

// Builtins cheap enough to emit inline instead of calling the runtime.
bool Emitter::emit_inline_builtin(const sema::BuiltinSig& sig, const std::vector<llvm::Value*>& args,
                                  int64_t line, llvm::Value** out) {
  std::string_view s = sig.symbol;
  if (s == "wo_float_of_int") {
    *out = b_.CreateSIToFP(args[0], f64_);
  } else if (s == "wo_text_len" || s == "wo_list_len" || s == "wo_map_len" || s == "wo_bytes_len") {
    *out = inline_len(args[0]);
  } else if (s == "wo_list_get") {
    *out = inline_list_get(args[0], args[1], line);
  } else if (s == "wo_trunc") {
    // In range (and not NaN): a plain conversion toward zero; else the runtime traps.
    llvm::Value* f = args[0];
    llvm::Value* ok = b_.CreateAnd(b_.CreateFCmpOGE(f, llvm::ConstantFP::get(f64_, -9223372036854775808.0)),
                                   b_.CreateFCmpOLT(f, llvm::ConstantFP::get(f64_, 9223372036854775808.0)));
    llvm::BasicBlock* slow = new_block("trunc.bad");
    llvm::BasicBlock* fast = new_block("trunc.ok");
    b_.CreateCondBr(ok, fast, slow, llvm::MDBuilder(ctx_).createBranchWeights(1 << 20, 1));
    b_.SetInsertPoint(slow);
    call(rt("wo_trunc"), {f, site(line)});
    b_.CreateUnreachable();
    b_.SetInsertPoint(fast);
    *out = b_.CreateFPToSI(f, i64_);
  } else {
    return false;
  }
  return true;
}

Val Emitter::emit_builtin(const ast::Expr& e) {
  const sema::BuiltinSig& sig = sema::builtin_table()[e.sym->builtin];
  if (sig.flags & sema::ACTOR) return emit_actor_call(e);
  const Type* arg0 = e.args.empty() ? nullptr : e.args[0]->type->base();
  auto container_slot = [&](char code) -> const Type* {
    if (code == 'e') return arg0->elem;
    if (code == 'K') return arg0->elem;
    return arg0->value;  // 'V'
  };
  // The parameter type of each slot: the element/key/value of argument 0, any
  // value for `a` (json.encode takes a ?T as it is), else the argument's own
  // type without its `?` (sema matched its base type to the code).
  auto param_type = [&](char code, const Type* at) -> const Type* {
    if (code == 'e' || code == 'V' || code == 'K') return container_slot(code);
    if (code == 'a' || code == 'c') return at;
    return at->base();
  };
  // First every argument, checked (a nil for a plain parameter traps here),
  // then the ABI values: no element moves into the call before the last check.
  std::vector<Val> vals;
  std::vector<uint8_t> later = writes_after(operands(e));
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Type* at = e.args[i]->type;
    Val a = keep_arg(emit_expr(*e.args[i]), *e.args[i], later[i], e);
    vals.push_back(pass_arg(a, at, param_type(sig.params[i], at), e.span.begin.line));
  }
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Val& a = vals[i];
    char code = sig.params[i];
    const Type* at = e.args[i]->type;
    if (code == 'e' || code == 'V' || code == 'K') {
      const Type* slot_t = container_slot(code);
      // Stored elements and values move in (the container releases them); keys are lent.
      llvm::Value* v = code == 'K' ? a.v : take_owned(a, slot_t);
      args.push_back(to_slot(v, slot_t));
    } else if (code == 'a') {
      // json.encode: a pointer to the value in its field representation, then its type.
      llvm::AllocaInst* tmp = entry_alloca(llvm_type(at), "json.value");
      b_.CreateStore(a.v, tmp);
      args.push_back(tmp);
      args.push_back(type_desc(at));
    } else if (code == 'c') {
      // deep_copy: the (maybe nil) pointer, then its static type.
      args.push_back(a.v);
      args.push_back(type_desc(at));
    } else if ((code == 'i' || code == 'n' || code == 'S') && a.v->getType() == i1_) {
      args.push_back(b_.CreateZExt(a.v, i64_));
    } else {
      args.push_back(a.v);
    }
  }
  std::string_view r = sig.result;
  bool nullable = !r.empty() && r[0] == '?';
  char rc = nullable ? r[1] : (r.empty() ? 'v' : r[0]);
  if (rc == 'X') args.push_back(type_desc(e.type->base()));
  llvm::Value* res = nullptr;
  if (!emit_inline_builtin(sig, args, e.span.begin.line, &res)) {
    if (sig.flags & sema::TRAPS) args.push_back(site(e.span.begin.line));
    res = call(builtin_fn(sig), args);
  }
  if (rc == 'v') return Val{};
  if (rc == 'e' || rc == 'K' || rc == 'V') {
    const Type* t = container_slot(rc);
    llvm::Value* v = from_slot(res, t);
    if ((sig.flags & sema::BORROWED) || !t->is_heap()) return Val{v};
    return own_temp(v);
  }
  if (rc == 'X') {
    // The ?T word: a pointer for heap T (NULL = nil).
    llvm::Value* v = llvm_type(e.type)->isPointerTy() ? b_.CreateIntToPtr(res, ptr_) : res;
    if (e.type->is_heap()) return own_temp(v);
    return Val{v};
  }
  if (e.type->is_heap()) return own_temp(res);
  return Val{res};
}

// `m[k]`: the optional read; the value is lent by the map (nil when absent).
Val Emitter::emit_map_index(const ast::Expr& e) {
  const Type* mt = e.lhs->type->base();
  Val m = keep(emit_expr(*e.lhs), *e.lhs, may_write(*e.rhs));  // the key may replace the map
  Val k = coerce(emit_expr(*e.rhs), e.rhs->type, mt->elem);
  if (mt->value->is_int_like()) {
    // A stored Int equal to ?Int's nil must not read as absent: find, then check.
    llvm::AllocaInst* out = entry_alloca(i64_, "map.found");
    llvm::Value* found = call(rt("wo_map_find"), {m.v, to_slot(k.v, mt->elem), out});
    llvm::BasicBlock* hit_bb = new_block("map.hit");
    llvm::BasicBlock* done_bb = new_block("map.done");
    llvm::BasicBlock* from_bb = b_.GetInsertBlock();
    b_.CreateCondBr(found, hit_bb, done_bb);
    b_.SetInsertPoint(hit_bb);
    llvm::Value* got = not_nil_marker(b_.CreateLoad(i64_, out));
    llvm::BasicBlock* hit_end = b_.GetInsertBlock();
    b_.CreateBr(done_bb);
    b_.SetInsertPoint(done_bb);
    llvm::PHINode* r = b_.CreatePHI(i64_, 2);
    r->addIncoming(b_.getInt64(WO_NIL_SCALAR), from_bb);
    r->addIncoming(got, hit_end);
    return Val{r};
  }
  llvm::Value* raw = call(rt("wo_map_get_opt"), {m.v, to_slot(k.v, mt->elem)});
  llvm::Type* want = llvm_type(e.type);
  if (want->isPointerTy()) return Val{b_.CreateIntToPtr(raw, ptr_)};
  if (want == f64_) return Val{b_.CreateBitCast(raw, f64_)};
  return Val{raw};
}

Val Emitter::emit_member(const ast::Expr& e) {
  Val obj = emit_expr(*e.lhs);
  const Symbol* f = e.sym;
  if (f->cls->is_table) return emit_row_field(e, obj.v);
  const ClassLayout& l = layout(f->cls);
  llvm::Value* fp = b_.CreateStructGEP(l.type, obj.v, (unsigned)(f->field_index + 2));
  llvm::Type* stored = l.type->getElementType((unsigned)(f->field_index + 2));
  llvm::Value* v = b_.CreateLoad(stored, fp, e.text);
  if (stored != llvm_type(f->type)) v = b_.CreateTrunc(v, i1_);  // a runtime record's Bool slot
  return Val{v};
}

Val Emitter::emit_index(const ast::Expr& e) {
  if (e.lhs->type->base()->kind == TypeKind::Map) return emit_map_index(e);
  Val list = keep(emit_expr(*e.lhs), *e.lhs, may_write(*e.rhs));  // the index may replace the list
  Val idx = emit_expr(*e.rhs);
  return Val{from_slot(inline_list_get(list.v, idx.v, e.span.begin.line), e.type)};
}

Val Emitter::emit_list(const ast::Expr& e) {
  const Type* elem = e.type->elem;
  Val list = own_temp(call(rt("wo_list_new"), {b_.getInt64(elem_kind(elem)),
                                               b_.getInt64((int64_t)e.args.size())}));
  for (auto& item : e.args) {
    Val v = coerce(emit_expr(*item), item->type, elem);
    call(rt("wo_list_push"), {list.v, to_slot(take_owned(v, elem), elem)});
  }
  return list;
}

Val Emitter::emit_field_default(const sema::FieldInfo& f) {
  const ast::Expr& d = *f.decl->default_value;
  if (d.kind == ExprKind::Name && d.text == "now") return Val{call(rt("wo_now"), {})};
  return emit_expr(d);
}

// The value of every field of a constructor literal (`C { … }`, and the one
// inside `insert`): given fields in source order, then defaults, then nil for
// omitted `?T` fields. Backlink fields (computed, never stored) stay empty.
std::vector<Val> Emitter::ctor_field_values(const ast::Expr& ctor, const ClassInfo* cls) {
  std::vector<Val> vals(cls->fields.size());
  std::vector<bool> has(cls->fields.size(), false);
  std::vector<const ast::Expr*> given;
  for (auto& f : ctor.fields) given.push_back(f.value.get());
  std::vector<uint8_t> later = writes_after(given);
  uint8_t defaults = 0;  // field defaults are evaluated after the given fields
  for (size_t i = 0; i < cls->fields.size(); ++i) {
    const sema::FieldInfo& fi = cls->fields[i];
    if (fi.decl && fi.decl->default_value && !fi.backlink_cls) defaults |= may_write(*fi.decl->default_value);
  }
  for (size_t j = 0; j < ctor.fields.size(); ++j) {
    const ast::CtorField& f = ctor.fields[j];
    int i = cls->field_index(f.name);
    vals[i] = coerce(keep(emit_expr(*f.value), *f.value, later[j] | defaults), f.value->type, cls->fields[i].type);
    has[i] = true;
  }
  for (size_t i = 0; i < cls->fields.size(); ++i) {
    const sema::FieldInfo& fi = cls->fields[i];
    if (has[i] || fi.backlink_cls) continue;
    if (fi.decl && fi.decl->default_value)
      vals[i] = coerce(emit_field_default(fi), fi.decl->default_value->type, fi.type);
    else
      vals[i] = Val{nil_of(fi.type)};  // an omitted ?T field is nil (language.md §6.7)
  }
  return vals;
}

Val Emitter::emit_ctor(const ast::Expr& e) {
  const ClassInfo* cls = e.sym->cls;
  std::vector<Val> vals = ctor_field_values(e, cls);
  const ClassLayout& l = layout(cls);
  llvm::Value* size = llvm::ConstantExpr::getSizeOf(l.type);
  // Traced classes are tracked by the cycle collector (runtime/src/core/gc.cpp).
  Val obj = own_temp(call(rt(cls->traced ? "wo_alloc_traced" : "wo_alloc"), {size, l.destroy}, "obj"));
  for (size_t i = 0; i < cls->fields.size(); ++i)
    b_.CreateStore(take_owned(vals[i], cls->fields[i].type), b_.CreateStructGEP(l.type, obj.v, (unsigned)(i + 2)));
  return obj;
}

// `case V(a, b):` binds the payload fields to locals for the arm (copies of
// scalars, counted references to heap values).
void Emitter::bind_payload(const ast::SwitchArm& arm, llvm::Value* subject, const Type* st) {
  for (auto& p : arm.patterns) {
    if (p->kind != ExprKind::Call || p->args.empty()) continue;
    const sema::UnionInfo* u = st->uni;
    int v = p->sym->variant;
    const ClassLayout& l = variant_layout(u, v);
    for (size_t i = 0; i < p->args.size(); ++i) {
      const ast::Expr& a = *p->args[i];
      if (!a.sym) continue;
      const Type* ft = u->variants[v].payload[i].type;
      llvm::Value* fv = b_.CreateLoad(llvm_type(ft), b_.CreateStructGEP(l.type, subject, (unsigned)(i + 3)), a.text);
      llvm::AllocaInst* slot = local_slot(a.sym);
      if (ft->is_heap()) {
        retain(fv);
        scopes_.back().push_back(slot);
      }
      b_.CreateStore(fv, slot);
    }
  }
}

void Emitter::emit_valued_stmts(const std::vector<ast::StmtPtr>& stmts, llvm::AllocaInst* result, const Type* t) {
  push_scope();
  bool valued = result && !stmts.empty() && stmts.back()->kind == ast::StmtKind::Expr;
  size_t n = valued ? stmts.size() - 1 : stmts.size();
  for (size_t i = 0; i < n; ++i) {
    if (terminated()) b_.SetInsertPoint(new_block("dead"));
    emit_stmt(*stmts[i]);
  }
  if (valued) {
    if (terminated()) b_.SetInsertPoint(new_block("dead"));
    push_temps();
    const ast::Expr& last = *stmts.back()->expr;
    Val v = coerce(emit_expr(last), last.type, t);
    b_.CreateStore(take_owned(v, t), result);
    pop_temps();
  }
  pop_scope();
}

namespace {
bool has_value(const Type* t) { return t->kind != TypeKind::Void; }
}  // namespace

Val Emitter::emit_try(const ast::Expr& e) {
  const Type* t = e.type;
  llvm::AllocaInst* result = nullptr;
  if (has_value(t)) result = t->is_heap() ? heap_slot("try.result") : entry_alloca(llvm_type(t), "try.result");
  llvm::BasicBlock* end_bb = new_block("try.end");

  Region region;
  region.kind = Region::Try;
  regions_.push_back(&region);
  Val body = emit_expr(*e.lhs);
  if (result) b_.CreateStore(take_owned(coerce(body, e.lhs->type, t), t), result);
  if (!terminated()) b_.CreateBr(end_bb);
  regions_.pop_back();

  if (region.pad) {
    // The pad's catch-all clause catches everything; wo_catch sorts it out.
    b_.SetInsertPoint(region.dispatch);
    llvm::Value* exn = b_.CreateExtractValue(region.lp, 0);
    for (auto* slot : region.owned) {  // cold path: runtime calls, not the inline fast path
      b_.CreateCall(rt("wo_release"), {load_for_unwind(slot)});
      b_.CreateStore(llvm::ConstantPointerNull::get(ptr_), slot);
    }
    llvm::Value* err = call(rt("wo_catch"), {exn}, "err");
    push_scope();
    llvm::AllocaInst* var = local_slot(e.sym);
    scopes_.back().push_back(var);
    b_.CreateStore(err, var);
    if (e.handler_block) {
      emit_valued_stmts(e.handler_block->stmts, result, t);
    } else {
      push_temps();
      Val h = coerce(emit_expr(*e.rhs), e.rhs->type, t);
      if (result) b_.CreateStore(take_owned(h, t), result);
      pop_temps();
    }
    pop_scope();
    if (!terminated()) b_.CreateBr(end_bb);
  }
  b_.SetInsertPoint(end_bb);
  if (!result) return Val{};
  llvm::Value* v = b_.CreateLoad(llvm_type(t), result);
  if (!t->is_heap()) return Val{v};
  temps_.back().push_back(result);  // released with the enclosing full expression
  return Val{v, result};
}

Val Emitter::emit_switch(const ast::Expr& e) {
  const Type* t = e.type;
  const Type* st = e.lhs->type;
  llvm::AllocaInst* result = nullptr;
  if (has_value(t)) result = t->is_heap() ? heap_slot("switch.result") : entry_alloca(llvm_type(t), "switch.result");
  Val subject = emit_expr(*e.lhs);
  llvm::Value* tag = st->kind == TypeKind::Union ? union_tag(subject.v, st) : nullptr;
  llvm::BasicBlock* end_bb = new_block("switch.end");
  const ast::SwitchArm* default_arm = nullptr;
  for (auto& arm : e.arms) {
    if (arm.is_default) {
      default_arm = &arm;
      continue;
    }
    llvm::BasicBlock* arm_bb = new_block("case");
    llvm::BasicBlock* next_bb = new_block("case.next");
    for (size_t i = 0; i < arm.patterns.size(); ++i) {
      llvm::Value* eq;
      if (tag) {
        eq = b_.CreateICmpEQ(tag, b_.getInt64(arm.patterns[i]->sym->variant));
      } else {
        Val p = emit_expr(*arm.patterns[i]);
        eq = values_equal(subject.v, p.v, st);
      }
      llvm::BasicBlock* more = i + 1 < arm.patterns.size() ? new_block("case.or") : next_bb;
      b_.CreateCondBr(eq, arm_bb, more);
      b_.SetInsertPoint(more);
    }
    b_.SetInsertPoint(arm_bb);
    push_scope();
    if (tag) bind_payload(arm, subject.v, st);
    emit_valued_stmts(arm.body, result, t);
    pop_scope();
    if (!terminated()) b_.CreateBr(end_bb);
    b_.SetInsertPoint(next_bb);
  }
  if (default_arm) {
    emit_valued_stmts(default_arm->body, result, t);
    if (!terminated()) b_.CreateBr(end_bb);
  } else {
    b_.CreateUnreachable();  // sema requires a default (or full coverage)
  }
  b_.SetInsertPoint(end_bb);
  if (!result) return Val{};
  llvm::Value* v = b_.CreateLoad(llvm_type(t), result);
  if (!t->is_heap()) return Val{v};
  temps_.back().push_back(result);
  return Val{v, result};
}

}  // namespace wo::codegen
