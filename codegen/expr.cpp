// Expressions. Each returns a Val: borrowed, or an owned temporary (Val::temp).
#include <llvm/IR/MDBuilder.h>

#include "codegen/emitter.h"
#include "common/traps.h"

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
  switch (e.kind) {
    case ExprKind::IntLit: return Val{b_.getInt64(e.int_value)};
    case ExprKind::FloatLit: return Val{llvm::ConstantFP::get(f64_, e.float_value)};
    case ExprKind::TextLit: return Val{text_literal(e.text)};
    case ExprKind::BoolLit: return Val{b_.getInt1(e.int_value != 0)};
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
    default: break;
  }
  // Sema rejects every other form before codegen runs.
  llvm::errs() << "woc internal error: unexpected expression kind in codegen\n";
  std::abort();
}

Val Emitter::emit_name(const ast::Expr& e) {
  const Symbol* s = e.sym;
  if (s->kind == sema::SymKind::Self) return Val{self_};
  llvm::AllocaInst* slot = local_slot(s);
  return Val{b_.CreateLoad(slot->getAllocatedType(), slot, s->name)};
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

Val Emitter::emit_logical(const ast::Expr& e) {
  bool is_and = e.binary_op == BinaryOp::And;
  llvm::Value* l = emit_expr(*e.lhs).v;
  llvm::BasicBlock* lhs_end = b_.GetInsertBlock();
  llvm::BasicBlock* rhs_bb = new_block(is_and ? "and.rhs" : "or.rhs");
  llvm::BasicBlock* end_bb = new_block(is_and ? "and.end" : "or.end");
  if (is_and)
    b_.CreateCondBr(l, rhs_bb, end_bb);
  else
    b_.CreateCondBr(l, end_bb, rhs_bb);
  b_.SetInsertPoint(rhs_bb);
  llvm::Value* r = emit_expr(*e.rhs).v;
  llvm::BasicBlock* rhs_end = b_.GetInsertBlock();
  b_.CreateBr(end_bb);
  b_.SetInsertPoint(end_bb);
  llvm::PHINode* phi = b_.CreatePHI(i1_, 2);
  phi->addIncoming(b_.getInt1(!is_and), lhs_end);
  phi->addIncoming(r, rhs_end);
  return Val{phi};
}

Val Emitter::emit_binary(const ast::Expr& e) {
  if (e.binary_op == BinaryOp::And || e.binary_op == BinaryOp::Or) return emit_logical(e);
  Val l = emit_expr(*e.lhs);
  Val r = emit_expr(*e.rhs);
  return binary_values(e.span.begin.line, e.binary_op, l, r, e.lhs->type);
}

llvm::Value* Emitter::values_equal(llvm::Value* a, llvm::Value* b, const Type* t) {
  if (t->kind == TypeKind::Text) return call(rt("wo_text_eq"), {a, b});
  if (t->kind == TypeKind::Float) return b_.CreateFCmpOEQ(a, b);
  return b_.CreateICmpEQ(a, b);
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
      checked_block(b_.CreateICmpEQ(r, b_.getInt64(0)), (int64_t)TrapCode::DIV0, nullptr);
      llvm::Value* ovf = b_.CreateAnd(b_.CreateICmpEQ(l, b_.getInt64(INT64_MIN)), b_.CreateICmpEQ(r, b_.getInt64(-1)));
      checked_block(ovf, (int64_t)TrapCode::DIV0, "INT64_MIN / -1 overflows");
      return Val{div ? b_.CreateSDiv(l, r) : b_.CreateSRem(l, r)};
    }
    case BinaryOp::BitAnd: return Val{b_.CreateAnd(l, r)};
    case BinaryOp::BitOr: return Val{b_.CreateOr(l, r)};
    case BinaryOp::BitXor: return Val{b_.CreateXor(l, r)};
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      // Counts are never masked: outside 0..63 traps SHIFT (language.md §10.5).
      checked_block(b_.CreateICmpUGE(r, b_.getInt64(64)), (int64_t)TrapCode::SHIFT, nullptr);
      return Val{op == BinaryOp::Shl ? b_.CreateShl(l, r) : b_.CreateAShr(l, r)};
    default: break;
  }
  std::abort();
}

Val Emitter::emit_call(const ast::Expr& e) {
  const Symbol* s = e.sym;
  if (s->kind == sema::SymKind::Builtin) return emit_builtin(e);
  const FnInfo* fn = s->fn;
  std::vector<llvm::Value*> args;
  if (s->kind == sema::SymKind::Method) args.push_back(emit_expr(*e.lhs->lhs).v);
  for (auto& a : e.args) args.push_back(emit_expr(*a).v);
  llvm::Value* r = call(fns_.at(fn), args, fn->name);
  if (fn->ret->kind == TypeKind::Void) return Val{};
  if (fn->ret->is_heap()) return own_temp(r);
  return Val{r};
}

Val Emitter::emit_builtin(const ast::Expr& e) {
  const sema::BuiltinSig& sig = sema::builtin_table()[e.sym->builtin];
  const Type* arg0 = e.args.empty() ? nullptr : e.args[0]->type;
  std::vector<llvm::Value*> args;
  for (size_t i = 0; i < e.args.size(); ++i) {
    Val a = emit_expr(*e.args[i]);
    char code = sig.params[i];
    if (code == 'e') {
      const Type* elem = arg0->elem;
      args.push_back(to_slot(take_owned(a, elem), elem));  // the container takes ownership
    } else if ((code == 'i' || code == 'n' || code == 'S') && a.v->getType() == i1_) {
      args.push_back(b_.CreateZExt(a.v, i64_));
    } else {
      args.push_back(a.v);
    }
  }
  if (sig.flags & sema::TRAPS) args.push_back(site(e.span.begin.line));
  llvm::Value* r = call(builtin_fn(sig), args);
  switch (sig.result[0]) {
    case 'v': return Val{};
    case 'e': {
      const Type* elem = arg0->elem;
      llvm::Value* v = from_slot(r, elem);
      if ((sig.flags & sema::BORROWED) || !elem->is_heap()) return Val{v};
      return own_temp(v);
    }
    case 't':
    case 'T':
    case 'y': return own_temp(r);
    default: return Val{r};
  }
}

Val Emitter::emit_member(const ast::Expr& e) {
  Val obj = emit_expr(*e.lhs);
  const Symbol* f = e.sym;
  const ClassLayout& l = layout(f->cls);
  llvm::Value* fp = b_.CreateStructGEP(l.type, obj.v, (unsigned)(f->field_index + 2));
  return Val{b_.CreateLoad(llvm_type(f->type), fp, e.text)};
}

Val Emitter::emit_index(const ast::Expr& e) {
  Val list = emit_expr(*e.lhs);
  Val idx = emit_expr(*e.rhs);
  llvm::Value* r = call(rt("wo_list_get"), {list.v, idx.v, site(e.span.begin.line)});
  return Val{from_slot(r, e.type)};
}

Val Emitter::emit_list(const ast::Expr& e) {
  const Type* elem = e.type->elem;
  Val list = own_temp(call(rt("wo_list_new"), {b_.getInt64(elem->is_heap() ? 1 : 0),
                                               b_.getInt64((int64_t)e.args.size())}));
  for (auto& item : e.args) {
    Val v = emit_expr(*item);
    call(rt("wo_list_push"), {list.v, to_slot(take_owned(v, elem), elem)});
  }
  return list;
}

Val Emitter::emit_field_default(const sema::FieldInfo& f) {
  const ast::Expr& d = *f.decl->default_value;
  if (d.kind == ExprKind::Name && d.text == "now") return Val{call(rt("wo_now"), {})};
  return emit_expr(d);
}

Val Emitter::emit_ctor(const ast::Expr& e) {
  const ClassInfo* cls = e.sym->cls;
  // Field values in source order first, then the object (language.md §6.7).
  std::vector<Val> given(cls->fields.size());
  std::vector<bool> has(cls->fields.size(), false);
  for (auto& f : e.fields) {
    int i = cls->field_index(f.name);
    given[i] = emit_expr(*f.value);
    has[i] = true;
  }
  const ClassLayout& l = layout(cls);
  llvm::Value* size = llvm::ConstantExpr::getSizeOf(l.type);
  Val obj = own_temp(call(rt("wo_alloc"), {size, l.destroy}, "obj"));
  for (size_t i = 0; i < cls->fields.size(); ++i) {
    const sema::FieldInfo& fi = cls->fields[i];
    Val v = has[i] ? given[i] : emit_field_default(fi);
    llvm::Value* owned = take_owned(v, fi.type);
    b_.CreateStore(owned, b_.CreateStructGEP(l.type, obj.v, (unsigned)(i + 2)));
  }
  return obj;
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
    Val v = emit_expr(*stmts.back()->expr);
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
  regions_.push_back(&region);
  Val body = emit_expr(*e.lhs);
  if (result) b_.CreateStore(take_owned(body, t), result);
  if (!terminated()) b_.CreateBr(end_bb);
  regions_.pop_back();

  if (region.pad) {
    b_.SetInsertPoint(region.pad);
    auto* lp = b_.CreateLandingPad(llvm::StructType::get(ctx_, {ptr_, b_.getInt32Ty()}), 1);
    lp->addClause(llvm::ConstantPointerNull::get(ptr_));  // catch everything; wo_catch sorts it out
    llvm::Value* exn = b_.CreateExtractValue(lp, 0);
    for (auto* slot : region.owned) release_slot(slot);
    llvm::Value* err = call(rt("wo_catch"), {exn}, "err");
    push_scope();
    llvm::AllocaInst* var = local_slot(e.sym);
    scopes_.back().push_back(var);
    b_.CreateStore(err, var);
    if (e.handler_block) {
      emit_valued_stmts(e.handler_block->stmts, result, t);
    } else {
      push_temps();
      Val h = emit_expr(*e.rhs);
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
      Val p = emit_expr(*arm.patterns[i]);
      llvm::Value* eq = values_equal(subject.v, p.v, st);
      llvm::BasicBlock* more = i + 1 < arm.patterns.size() ? new_block("case.or") : next_bb;
      b_.CreateCondBr(eq, arm_bb, more);
      b_.SetInsertPoint(more);
    }
    b_.SetInsertPoint(arm_bb);
    emit_valued_stmts(arm.body, result, t);
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
