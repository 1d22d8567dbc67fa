// Statements: each expression inside a statement is one "full expression"
// whose temporaries are released when it ends.
#include <algorithm>
#include <functional>

#include "codegen/emitter.h"

namespace wo::codegen {

void Emitter::emit_block(const ast::Block& b) {
  push_scope();
  emit_stmts(b.stmts);
  pop_scope();
}

void Emitter::emit_stmts(const std::vector<ast::StmtPtr>& stmts) {
  for (auto& s : stmts) {
    if (terminated()) {
      // Code after return/break/continue is unreachable; keep the IR well formed.
      b_.SetInsertPoint(new_block("dead"));
    }
    emit_stmt(*s);
  }
}

llvm::Value* Emitter::emit_cond(const ast::Expr& e) {
  push_temps();
  llvm::Value* v = emit_expr(e).v;
  pop_temps();
  return v;
}

void Emitter::emit_stmt(const ast::Stmt& s) {
  LocScope at(*this, s.span.begin);
  switch (s.kind) {
    case ast::StmtKind::Let: emit_let(s); return;
    case ast::StmtKind::Assign: emit_assign(s); return;
    case ast::StmtKind::Expr:
      push_temps();
      emit_expr(*s.expr);
      pop_temps();
      return;
    case ast::StmtKind::If: emit_if(s); return;
    case ast::StmtKind::While: emit_while(s); return;
    case ast::StmtKind::DoWhile: emit_do_while(s); return;
    case ast::StmtKind::For: emit_for(s); return;
    case ast::StmtKind::Return: emit_return(s); return;
    case ast::StmtKind::Break: emit_jump(true); return;
    case ast::StmtKind::Continue: emit_jump(false); return;
    case ast::StmtKind::Block: emit_block(*s.body); return;
    case ast::StmtKind::Transaction: emit_transaction(s); return;
  }
}

void Emitter::emit_let(const ast::Stmt& s) {
  const Symbol* sym = s.sym;
  push_temps();
  Val v = coerce(emit_expr(*s.expr), s.expr->type, sym->type);
  llvm::Value* owned = take_owned(v, sym->type);
  llvm::AllocaInst* slot = local_slot(sym);
  if (sym->type->is_heap()) {
    // A `let` inside a loop re-binds the same slot each iteration: drop the old value.
    release(b_.CreateLoad(ptr_, slot));
    scopes_.back().push_back(slot);
  }
  b_.CreateStore(owned, slot);
  pop_temps();
}

// Evaluates the target's own operands, left to right: the object of a field,
// or the container then the index or key of an element.
Place Emitter::prepare_place(const ast::Expr& target, uint8_t later_code) {
  Place p;
  p.target = &target;
  if (target.kind == ast::ExprKind::Name) return p;
  if (target.kind == ast::ExprKind::Member) {
    p.obj = keep(emit_expr(*target.lhs), *target.lhs, later_code);
    return p;
  }
  p.obj = keep(emit_expr(*target.lhs), *target.lhs, later_code | may_write(*target.rhs));
  p.key = keep(emit_expr(*target.rhs), *target.rhs, later_code);
  if (target.lhs->type->base()->kind == TypeKind::Map) p.key = coerce(p.key, target.rhs->type, target.lhs->type->base()->elem);
  return p;
}

// Stores an owned copy of `value` into a prepared place (local, field or element).
void Emitter::store_place(const Place& p, const Val& value) {
  const ast::Expr& target = *p.target;
  const Type* t = target.type;
  if (target.kind == ast::ExprKind::Name) {
    llvm::AllocaInst* slot = local_slot(target.sym);
    llvm::Value* owned = take_owned(value, t);
    if (t->is_heap()) {
      llvm::Value* old = b_.CreateLoad(ptr_, slot);
      b_.CreateStore(owned, slot);
      release(old);
    } else {
      b_.CreateStore(owned, slot);
    }
    return;
  }
  if (target.kind == ast::ExprKind::Member) {
    const Symbol* f = target.sym;
    if (f->cls->is_table) return emit_row_store(target, p.obj.v, value);  // written through to the store
    const ClassLayout& l = layout(f->cls);
    llvm::Value* fp = b_.CreateStructGEP(l.type, p.obj.v, (unsigned)(f->field_index + 2));
    llvm::Value* owned = take_owned(value, t);
    if (t->is_heap()) {
      llvm::Value* old = b_.CreateLoad(ptr_, fp);
      b_.CreateStore(owned, fp);
      release(old);
    } else {
      b_.CreateStore(owned, fp);
    }
    return;
  }
  if (target.lhs->type->base()->kind == TypeKind::Map) {
    // `m[k] = v`: insert or replace; the map takes the value.
    const Type* mt = target.lhs->type->base();
    llvm::Value* owned = take_owned(value, t);
    call(rt("wo_map_set"), {p.obj.v, to_slot(p.key.v, mt->elem), to_slot(owned, t), site(target.span.begin.line)});
    return;
  }
  // Element of a multi.
  llvm::Value* owned = take_owned(value, t);
  call(rt("wo_list_set"), {p.obj.v, p.key.v, to_slot(owned, t), site(target.span.begin.line)});
}

// Whether `e` reads the local `sym` anywhere (left spines as a loop).
static bool mentions(const ast::Expr& e, const Symbol* sym) {
  for (const ast::Expr* p = &e; p; p = p->lhs.get()) {
    if (p->kind == ast::ExprKind::Name && p->sym == sym) return true;
    if (p->rhs && mentions(*p->rhs, sym)) return true;
    for (auto& a : p->args)
      if (mentions(*a, sym)) return true;
    for (auto& f : p->fields)
      if (mentions(*f.value, sym)) return true;
    for (auto& c : p->clauses)
      if (c.expr && mentions(*c.expr, sym)) return true;
    if (!p->arms.empty() || p->handler_block) return true;  // statement bodies: assume so
  }
  return false;
}

// `s = s .. a .. b` on a Text local: append to `s` in place when it is the
// only owner (wo_text_append), so building text in a loop is linear.
bool Emitter::emit_append_assign(const ast::Stmt& s) {
  const ast::Expr& target = *s.target;
  if (s.assign_op != ast::AssignOp::Assign || target.kind != ast::ExprKind::Name ||
      target.type->kind != TypeKind::Text)
    return false;
  std::vector<const ast::Expr*> pieces;
  const ast::Expr* e = s.expr.get();
  while (e->kind == ast::ExprKind::Binary && e->binary_op == ast::BinaryOp::Concat) {
    pieces.push_back(e->rhs.get());
    e = e->lhs.get();
  }
  if (pieces.empty() || e->kind != ast::ExprKind::Name || e->sym != target.sym) return false;
  // A piece with a statement body may give `s` a new value before the append
  // reads it, and a piece that reads `s` itself would see it grown (or moved)
  // by the appends before it: the general path reads `s` first, as written.
  for (const ast::Expr* piece : pieces)
    if ((may_write(*piece) & kWritesLocals) || mentions(*piece, target.sym)) return false;
  push_temps();
  std::reverse(pieces.begin(), pieces.end());
  std::vector<uint8_t> later = writes_after(pieces);
  std::vector<Val> vals;
  for (size_t i = 0; i < pieces.size(); ++i) vals.push_back(keep(emit_expr(*pieces[i]), *pieces[i], later[i]));
  llvm::AllocaInst* slot = local_slot(target.sym);
  for (const Val& v : vals) {
    // wo_text_append consumes the old text (also when it traps), so the slot
    // is empty during the call and an unwinding trap never releases it twice.
    llvm::Value* old = b_.CreateLoad(ptr_, slot);
    b_.CreateStore(llvm::ConstantPointerNull::get(ptr_), slot);
    b_.CreateStore(call(rt("wo_text_append"), {old, v.v}, "grown"), slot);
  }
  pop_temps();
  return true;
}

void Emitter::emit_assign(const ast::Stmt& s) {
  if (emit_append_assign(s)) return;
  push_temps();
  // The target's operands, then the value, then the store (decision 0015).
  if (s.assign_op == ast::AssignOp::Assign) {
    Place p = prepare_place(*s.target, may_write(*s.expr));
    Val v = coerce(emit_expr(*s.expr), s.expr->type, s.target->type);
    store_place(p, v);
  } else {
    // `t op= e` is `t = t op e`, the target evaluated twice (language.md §9.3):
    // for the store, then for the read.
    static const ast::BinaryOp ops[] = {ast::BinaryOp::Add, ast::BinaryOp::Add, ast::BinaryOp::Sub,
                                        ast::BinaryOp::Mul, ast::BinaryOp::Div, ast::BinaryOp::Mod};
    ast::BinaryOp op = ops[(int)s.assign_op];
    Place p = prepare_place(*s.target, may_write(*s.target) | may_write(*s.expr));
    Val cur = emit_expr(*s.target);
    Val rhs = emit_expr(*s.expr);
    Val result = binary_values(s.span.begin.line, op, cur, rhs, s.target->type);
    store_place(p, result);
  }
  pop_temps();
}

void Emitter::emit_if(const ast::Stmt& s) {
  llvm::Value* c = emit_cond(*s.expr);
  llvm::BasicBlock* then_bb = new_block("then");
  llvm::BasicBlock* else_bb = s.else_body ? new_block("else") : nullptr;
  llvm::BasicBlock* end_bb = new_block("endif");
  b_.CreateCondBr(c, then_bb, else_bb ? else_bb : end_bb);
  b_.SetInsertPoint(then_bb);
  emit_block(*s.body);
  if (!terminated()) b_.CreateBr(end_bb);
  if (else_bb) {
    b_.SetInsertPoint(else_bb);
    emit_block(*s.else_body);
    if (!terminated()) b_.CreateBr(end_bb);
  }
  b_.SetInsertPoint(end_bb);
}

void Emitter::emit_while(const ast::Stmt& s) {
  llvm::BasicBlock* cond_bb = new_block("while.cond");
  llvm::BasicBlock* body_bb = new_block("while.body");
  llvm::BasicBlock* latch_bb = new_block("while.latch");  // every back-edge, `continue` too
  llvm::BasicBlock* end_bb = new_block("while.end");
  b_.CreateBr(cond_bb);
  b_.SetInsertPoint(cond_bb);
  b_.CreateCondBr(emit_cond(*s.expr), body_bb, end_bb);
  b_.SetInsertPoint(body_bb);
  loops_.push_back({end_bb, latch_bb, scopes_.size(), scopes_.size(), temps_.size()});
  emit_block(*s.body);
  loops_.pop_back();
  if (!terminated()) b_.CreateBr(latch_bb);
  b_.SetInsertPoint(latch_bb);
  emit_preempt_check();
  b_.CreateBr(cond_bb);
  b_.SetInsertPoint(end_bb);
}

void Emitter::emit_do_while(const ast::Stmt& s) {
  llvm::BasicBlock* body_bb = new_block("do.body");
  llvm::BasicBlock* cond_bb = new_block("do.cond");
  llvm::BasicBlock* end_bb = new_block("do.end");
  b_.CreateBr(body_bb);
  b_.SetInsertPoint(body_bb);
  loops_.push_back({end_bb, cond_bb, scopes_.size(), scopes_.size(), temps_.size()});
  emit_block(*s.body);
  loops_.pop_back();
  if (!terminated()) b_.CreateBr(cond_bb);
  b_.SetInsertPoint(cond_bb);
  llvm::Value* again = emit_cond(*s.expr);
  llvm::BasicBlock* back_bb = new_block("do.back");
  b_.CreateCondBr(again, back_bb, end_bb);
  b_.SetInsertPoint(back_bb);
  emit_preempt_check();
  b_.CreateBr(body_bb);
  b_.SetInsertPoint(end_bb);
}

// The shape of `for x in xs` and `for k, v in m`: the container is held for
// the whole loop; `advance` says whether position `pos` has an element (it may
// move `pos` forward); `bind` binds the loop variables in a scope that ends at
// the step, where `continue` lands too.
void Emitter::emit_for_loop(const ast::Stmt& s, const std::function<llvm::Value*(llvm::Value*, llvm::AllocaInst*)>& advance,
                            const std::function<void(llvm::Value*, llvm::AllocaInst*)>& bind) {
  const Type* ct = s.expr->type;
  push_scope();
  llvm::AllocaInst* held = heap_slot("for.container");
  scopes_.back().push_back(held);
  push_temps();
  Val cv = emit_expr(*s.expr);
  b_.CreateStore(take_owned(cv, ct), held);
  pop_temps();
  llvm::AllocaInst* pos = entry_alloca(i64_, "for.pos");
  b_.CreateStore(b_.getInt64(0), pos);
  llvm::BasicBlock* cond_bb = new_block("for.cond");
  llvm::BasicBlock* body_bb = new_block("for.body");
  llvm::BasicBlock* step_bb = new_block("for.step");
  llvm::BasicBlock* end_bb = new_block("for.end");
  b_.CreateBr(cond_bb);
  b_.SetInsertPoint(cond_bb);
  llvm::Value* container = b_.CreateLoad(ptr_, held);
  b_.CreateCondBr(advance(container, pos), body_bb, end_bb);
  b_.SetInsertPoint(body_bb);
  push_scope();
  bind(container, pos);
  loops_.push_back({end_bb, step_bb, scopes_.size(), scopes_.size() - 1, temps_.size()});
  emit_block(*s.body);
  loops_.pop_back();
  if (!terminated()) b_.CreateBr(step_bb);
  b_.SetInsertPoint(step_bb);
  pop_scope();
  b_.CreateStore(b_.CreateAdd(b_.CreateLoad(i64_, pos), b_.getInt64(1)), pos);
  emit_preempt_check();
  b_.CreateBr(cond_bb);
  b_.SetInsertPoint(end_bb);
  pop_scope();
}

// A loop variable holds its own reference: the body may shrink the list or
// replace the map entry it is looking at.
void Emitter::bind_loop_var(const Symbol* sym, llvm::Value* v) {
  llvm::AllocaInst* var = local_slot(sym);
  if (sym->type->is_heap()) {
    retain(v);
    scopes_.back().push_back(var);
  }
  b_.CreateStore(v, var);
}

void Emitter::emit_for(const ast::Stmt& s) {
  if (s.expr->type->kind == TypeKind::Map) {
    // `for k, v in m`: the runtime's iterator lends each live entry in insertion order.
    llvm::AllocaInst* kslot = entry_alloca(i64_, "for.key");
    llvm::AllocaInst* vslot = entry_alloca(i64_, "for.val");
    emit_for_loop(
        s,
        [&](llvm::Value* m, llvm::AllocaInst* pos) {
          llvm::Value* p = call(rt("wo_map_iter"), {m, b_.CreateLoad(i64_, pos), kslot, vslot});
          b_.CreateStore(p, pos);
          return b_.CreateICmpSGE(p, b_.getInt64(0));
        },
        [&](llvm::Value*, llvm::AllocaInst*) {
          bind_loop_var(s.sym, from_slot(b_.CreateLoad(i64_, kslot), s.sym->type));
          bind_loop_var(s.sym2, from_slot(b_.CreateLoad(i64_, vslot), s.sym2->type));
        });
    return;
  }
  const Type* elem_t = s.expr->type->elem;
  emit_for_loop(
      s, [&](llvm::Value* xs, llvm::AllocaInst* pos) { return b_.CreateICmpSLT(b_.CreateLoad(i64_, pos), inline_len(xs)); },
      [&](llvm::Value* xs, llvm::AllocaInst* pos) {
        llvm::Value* raw = inline_list_get(xs, b_.CreateLoad(i64_, pos), s.span.begin.line);
        bind_loop_var(s.sym, from_slot(raw, elem_t));
      });
}

void Emitter::emit_return(const ast::Stmt& s) {
  llvm::Value* result = nullptr;
  if (s.expr) {
    Val v = coerce(emit_expr(*s.expr), s.expr->type, fn_->ret);
    result = take_owned(v, fn_->ret);
  }
  // Release every owned value of the function: slots out of scope are null.
  for (auto* slot : all_heap_slots_) release(b_.CreateLoad(ptr_, slot));
  if (result && fn_->ret->kind != TypeKind::Void)
    b_.CreateRet(result);
  else
    b_.CreateRetVoid();
}

void Emitter::emit_jump(bool is_break) {
  const Loop& loop = loops_.back();
  release_temps_from(loop.temp_depth);
  // `continue` in a for loop lands on the step, which ends the loop variable's scope itself.
  release_scopes_from(is_break ? loop.break_scope_depth : loop.scope_depth);
  b_.CreateBr(is_break ? loop.break_bb : loop.continue_bb);
}

}  // namespace wo::codegen
