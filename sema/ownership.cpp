// The ownership pass (language.md §15): runs after type checking over every
// function body and reports WO-E301 (use after move), E302 (move while
// borrowed), E303 (provably conflicting borrows in one call), E304 (a borrow
// escapes) and E305 (partial move). Traced classes — those that can form a
// cycle, and those demand-promoted by returning a borrowed value — are exempt.
//
// The analysis is lexical, as the spec asks: a `let r = o.part` borrow lives
// to the end of its block, a value moved on one branch is moved after the
// branch, and a move of an outer local inside a loop body is a use after move
// on the next iteration unless the body reassigns it.
#include <functional>
#include <set>

#include "sema/ownership.h"

namespace wo::sema {

namespace {

Loc at(const Span& s) { return s.begin; }

using Moves = std::map<const Symbol*, Loc>;  // local -> where it was moved

struct Borrow {
  const Symbol* owner;
  Loc where;
  size_t depth;  // block depth that created it
};

class OwnershipPass {
 public:
  OwnershipPass(ProgramInfo& info, Diagnostics& diags, const std::set<const ClassInfo*>& traced)
      : info_(info), diags_(diags), traced_(traced) {}

  void run_fn(FnInfo& fn) {
    fn_ = &fn;
    moves_.clear();
    borrows_.clear();
    depth_ = 0;
    dead_ = false;
    reported_.clear();
    if (fn.decl->body) block(*fn.decl->body);
  }

 private:
  // ---- what is tracked
  bool owned(const Type* t) const {
    if (!t) return false;
    t = t->base();
    switch (t->kind) {
      case TypeKind::List:
      case TypeKind::Interface: return true;
      case TypeKind::Union: return t->uni->has_payload;
      case TypeKind::Class: return !t->cls->predeclared && !t->cls->is_table && !traced_.count(t->cls);
      default: return false;  // scalars, Text (copied on store), bare unions
    }
  }
  static bool is_local(const Symbol* s) { return s && s->kind == SymKind::Local; }
  static bool is_borrowed_param(const Symbol* s) {
    return s && ((s->kind == SymKind::Param && s->conv != ast::ParamConv::Take) || s->kind == SymKind::Self);
  }
  static bool is_take_param(const Symbol* s) { return s && s->kind == SymKind::Param && s->conv == ast::ParamConv::Take; }
  // The local or parameter a place expression (`a`, `a.b.c`, `a[i].b`) starts from.
  static const ast::Expr* root_of(const ast::Expr& e) {
    const ast::Expr* p = &e;
    while (p->kind == ast::ExprKind::Member || p->kind == ast::ExprKind::Index) p = p->lhs.get();
    return p->kind == ast::ExprKind::Name ? p : nullptr;
  }

  void report(DiagCode code, Loc loc, const std::string& msg, Loc related, const std::string& label) {
    auto& d = diags_.error(code, loc, msg);
    if (related.line) d.related.push_back({related, label});
  }

  // ---- reads and moves
  void read_name(const ast::Expr& e) {
    const Symbol* s = e.sym;
    auto it = moves_.find(s);
    if (it == moves_.end()) return;
    if (!reported_.insert({s, e.span.begin.line}).second) return;
    report(DiagCode::E301, at(e.span), "use of `" + e.text + "` after it was moved", it->second,
           "`" + e.text + "` moved here");
  }

  // `e` is used where its value is transferred (moved) into a new owner.
  void consume(const ast::Expr& e) {
    if (!owned(e.type)) {
      expr(e);
      return;
    }
    if (e.kind == ast::ExprKind::Name) {
      const Symbol* s = e.sym;
      read_name(e);
      if (is_local(s) || is_take_param(s)) {
        for (auto& b : borrows_)
          if (b.owner == s)
            report(DiagCode::E302, at(e.span), "`" + e.text + "` is moved while a borrow of it is still live", b.where,
                   "borrowed here (until the end of its block)");
        moves_[s] = at(e.span);
        info_.moves.insert(&e);  // codegen hands the value over instead of counting it
      } else if (is_borrowed_param(s)) {
        report(DiagCode::E304, at(e.span),
               "`" + e.text + "` is borrowed, so it cannot be stored or moved away (declare the parameter `take`)",
               Loc{}, "");
      }
      return;
    }
    if (e.kind == ast::ExprKind::Member || e.kind == ast::ExprKind::Index) {
      expr(e);
      const ast::Expr* root = root_of(e);
      if (root && root->sym && (is_local(root->sym) || root->sym->kind == SymKind::Param || root->sym->kind == SymKind::Self))
        report(DiagCode::E305, at(e.span),
               "cannot move a part out of `" + root->text + "` (no partial moves): move the whole value, rebuild it, or use pop/shift",
               Loc{}, "");
      return;
    }
    expr(e);
  }

  // ---- expressions (reads)
  void expr(const ast::Expr& e) {
    using K = ast::ExprKind;
    switch (e.kind) {
      case K::Name:
        if (is_local(e.sym) || (e.sym && e.sym->kind == SymKind::Param)) read_name(e);
        return;
      case K::Call: call(e); return;
      case K::ListLit:
        for (auto& a : e.args) consume(*a);
        return;
      case K::Ctor:
        for (auto& f : e.fields) consume(*f.value);
        return;
      case K::Try: try_expr(e); return;
      case K::Switch: switch_expr(e); return;
      default:
        if (e.lhs) expr(*e.lhs);
        if (e.rhs) expr(*e.rhs);
        for (auto& a : e.args) expr(*a);
        for (auto& f : e.fields) expr(*f.value);
        return;
    }
  }

  // Try and Switch copy the move maps: out of line, so that their locals do
  // not enlarge the frame of every level of expr()'s recursion (a 100,000-term
  // chain recurses 100,000 deep; in the ASan build that frame was 5.6 KB).
  [[gnu::noinline]] void try_expr(const ast::Expr& e) {
    expr(*e.lhs);
    Moves before = moves_;
    if (e.handler_block) {
      block(*e.handler_block);
    } else if (e.rhs) {
      expr(*e.rhs);
    }
    merge_into(before);
  }

  [[gnu::noinline]] void switch_expr(const ast::Expr& e) {
    expr(*e.lhs);
    Moves start = moves_;
    Moves merged = moves_;
    bool any_live = false;
    for (auto& arm : e.arms) {
      moves_ = start;
      dead_ = false;
      ++depth_;
      for (auto& s : arm.body) stmt(*s);
      end_block();
      if (!dead_) {
        any_live = true;
        for (auto& [k, v] : moves_) merged.emplace(k, v);
      }
    }
    moves_ = merged;
    dead_ = !any_live && !e.arms.empty();
  }

  // A textual key for a place, so two arguments can be proven to be the same.
  static std::string place_key(const ast::Expr& e) {
    switch (e.kind) {
      case ast::ExprKind::Name: return e.sym ? std::to_string(reinterpret_cast<uintptr_t>(e.sym)) : e.text;
      case ast::ExprKind::Member: {
        std::string k = place_key(*e.lhs);
        return k.empty() ? k : k + "." + e.text;
      }
      case ast::ExprKind::Index: {
        std::string k = place_key(*e.lhs);
        std::string i = e.rhs->kind == ast::ExprKind::IntLit ? std::to_string(e.rhs->int_value) : place_key(*e.rhs);
        return k.empty() || i.empty() ? "" : k + "[" + i + "]";
      }
      default: return "";
    }
  }

  void call(const ast::Expr& e) {
    const Symbol* s = e.sym;
    if (s && s->kind == SymKind::Method) expr(*e.lhs->lhs);
    const FnInfo* fn = s && (s->kind == SymKind::Fn || s->kind == SymKind::Method || s->kind == SymKind::StaticFn) ? s->fn : nullptr;
    bool extension = fn && s->kind == SymKind::Fn && e.lhs->kind == ast::ExprKind::Member && e.lhs->lhs->type;
    if (extension) expr(*e.lhs->lhs);
    size_t first = extension ? 1 : 0;
    if (s && s->kind == SymKind::Builtin) {
      const BuiltinSig& b = builtin_table()[s->builtin];
      for (size_t i = 0; i < e.args.size(); ++i) {
        char c = i < b.params.size() ? b.params[i] : '?';
        if (c == 'e' || c == 'V')
          consume(*e.args[i]);  // stored into the container
        else
          expr(*e.args[i]);
      }
      return;
    }
    if (s && s->kind == SymKind::Variant) {
      for (auto& a : e.args) consume(*a);
      return;
    }
    if (!fn) {
      for (auto& a : e.args) expr(*a);
      return;
    }
    // WO-E303: the same place passed to a `mut` parameter and to any other one.
    std::vector<std::string> keys;
    for (size_t i = 0; i < e.args.size(); ++i) keys.push_back(place_key(*e.args[i]));
    for (size_t i = 0; i < e.args.size(); ++i) {
      if (i + first >= fn->params.size() || fn->params[i + first]->conv != ast::ParamConv::Mut || keys[i].empty()) continue;
      for (size_t j = 0; j < e.args.size(); ++j) {
        if (j == i || keys[j].empty()) continue;
        const std::string& a = keys[i];
        const std::string& b = keys[j];
        bool overlap = a == b || b.rfind(a + ".", 0) == 0 || a.rfind(b + ".", 0) == 0 ||
                       b.rfind(a + "[", 0) == 0 || a.rfind(b + "[", 0) == 0;
        if (overlap && (j > i || fn->params[j + first]->conv != ast::ParamConv::Mut))
          diags_.error(DiagCode::E303, at(e.args[j]->span),
                       "this argument is the same place as the `mut` argument " + std::to_string(i + 1) + " of `" +
                           fn->name + "`");
      }
    }
    // Elements of one list through different run-time indices: checked at run time.
    for (size_t i = 0; i < e.args.size(); ++i) {
      if (i + first >= fn->params.size() || fn->params[i + first]->conv != ast::ParamConv::Mut) continue;
      const ast::Expr& a = *e.args[i];
      if (a.kind != ast::ExprKind::Index || !a.type || !a.type->is_heap()) continue;
      for (size_t j = 0; j < e.args.size(); ++j) {
        const ast::Expr& b = *e.args[j];
        if (j == i || b.kind != ast::ExprKind::Index || keys[i] == keys[j]) continue;
        bool constant = a.rhs->kind == ast::ExprKind::IntLit && b.rhs->kind == ast::ExprKind::IntLit;
        if (!constant && place_key(*a.lhs) == place_key(*b.lhs) && !place_key(*a.lhs).empty())
          info_.borrow_guards[&e].push_back({i, j});
      }
    }
    for (size_t i = 0; i < e.args.size(); ++i) {
      bool take = i + first < fn->params.size() && fn->params[i + first]->conv == ast::ParamConv::Take;
      if (take)
        consume(*e.args[i]);
      else
        expr(*e.args[i]);
    }
  }

  // ---- statements
  void merge_into(const Moves& before) {
    // Whatever either path moved is moved afterwards.
    Moves merged = before;
    for (auto& [k, v] : moves_) merged.emplace(k, v);
    moves_ = merged;
  }

  void end_block() {
    while (!borrows_.empty() && borrows_.back().depth >= depth_) borrows_.pop_back();
    --depth_;
  }

  void block(const ast::Block& b) {
    ++depth_;
    for (auto& s : b.stmts) stmt(*s);
    end_block();
  }

  void loop_body(const ast::Block& body, const ast::Expr* cond_after) {
    Moves before = moves_;
    bool was_dead = dead_;
    dead_ = false;
    block(body);
    bool leaves = dead_;  // the body ends in break/return: no next iteration from here
    if (cond_after) expr(*cond_after);
    // A local from outside the loop moved in the body and not reassigned by
    // the end of it would be used dead by the next iteration.
    if (!leaves) {
      for (auto& [sym, where] : moves_) {
        if (before.count(sym) || declared_in_loop_.count(sym)) continue;
        if (!reported_.insert({sym, where.line}).second) continue;
        report(DiagCode::E301, where,
               "`" + sym->name + "` is moved inside a loop: the next iteration would use it after the move", Loc{}, "");
      }
    }
    dead_ = was_dead;
  }

  void stmt(const ast::Stmt& s) {
    using K = ast::StmtKind;
    switch (s.kind) {
      case K::Let: {
        const ast::Expr& init = *s.expr;
        if ((init.kind == ast::ExprKind::Member || init.kind == ast::ExprKind::Index) && owned(init.type)) {
          // `let r = o.part`: a borrow of `o` until the end of this block.
          expr(init);
          if (const ast::Expr* root = root_of(init))
            if (root->sym) borrows_.push_back({root->sym, at(init.span), depth_});
        } else {
          consume(init);
        }
        if (s.sym) {
          moves_.erase(s.sym);
          if (loop_depth_) declared_in_loop_.insert(s.sym);
        }
        return;
      }
      case K::Assign: {
        if (s.assign_op == ast::AssignOp::Assign)
          consume(*s.expr);
        else
          expr(*s.expr);
        if (s.target->kind == ast::ExprKind::Name) {
          moves_.erase(s.target->sym);  // a dead local may be given a new value
        } else {
          expr(*s.target);
        }
        return;
      }
      case K::Expr: expr(*s.expr); return;
      case K::If: {
        expr(*s.expr);
        Moves start = moves_;
        dead_ = false;
        block(*s.body);
        Moves then_moves = moves_;
        bool then_dead = dead_;
        moves_ = start;
        dead_ = false;
        if (s.else_body) block(*s.else_body);
        bool else_dead = dead_;
        Moves merged = start;
        if (!then_dead) for (auto& [k, v] : then_moves) merged.emplace(k, v);
        if (!else_dead) for (auto& [k, v] : moves_) merged.emplace(k, v);
        moves_ = merged;
        dead_ = then_dead && else_dead;
        return;
      }
      case K::While:
        expr(*s.expr);
        ++loop_depth_;
        loop_body(*s.body, s.expr.get());
        --loop_depth_;
        return;
      case K::DoWhile:
        ++loop_depth_;
        loop_body(*s.body, s.expr.get());
        --loop_depth_;
        return;
      case K::For:
        expr(*s.expr);
        ++loop_depth_;
        if (s.sym) declared_in_loop_.insert(s.sym);
        loop_body(*s.body, nullptr);
        --loop_depth_;
        return;
      case K::Return:
        if (s.expr) {
          // Returning a borrowed class value demand-promotes it (§15.3): allowed.
          if (s.expr->kind == ast::ExprKind::Name)
            consume(*s.expr);
          else
            expr(*s.expr);
        }
        dead_ = true;
        return;
      case K::Break:
      case K::Continue: dead_ = true; return;
      case K::Block:
      case K::Transaction: block(*s.body); return;
    }
  }

  ProgramInfo& info_;
  Diagnostics& diags_;
  const std::set<const ClassInfo*>& traced_;
  FnInfo* fn_ = nullptr;
  Moves moves_;
  std::vector<Borrow> borrows_;
  std::set<const Symbol*> declared_in_loop_;
  std::set<std::pair<const Symbol*, uint32_t>> reported_;
  size_t depth_ = 0;
  int loop_depth_ = 0;
  bool dead_ = false;
};

// Classes that can reach themselves through fields (directly or via other
// classes, unions, lists and interfaces) form cycles: they are traced.
std::set<const ClassInfo*> infer_traced(const ProgramInfo& info) {
  std::map<const void*, std::set<const void*>> edges;
  std::function<void(const void*, const Type*)> add = [&](const void* from, const Type* t) {
    if (!t) return;
    t = t->base();
    switch (t->kind) {
      case TypeKind::List: add(from, t->elem); break;
      case TypeKind::Class:
        if (!t->cls->is_table) edges[from].insert(t->cls);  // rows are ids: they never close a cycle
        break;
      case TypeKind::Union: edges[from].insert(t->uni); break;
      case TypeKind::Interface:
        for (auto& c : info.classes) edges[from].insert(c.get());  // could hold any class
        break;
      default: break;
    }
  };
  for (auto& c : info.classes)
    for (auto& f : c->fields) add(c.get(), f.type);
  for (auto& u : info.unions)
    for (auto& v : u->variants)
      for (auto& f : v.payload) add(u.get(), f.type);
  std::set<const ClassInfo*> traced;
  for (auto& c : info.classes) {
    // Is c reachable from its own fields?
    std::set<const void*> seen;
    std::vector<const void*> work(edges[c.get()].begin(), edges[c.get()].end());
    while (!work.empty()) {
      const void* n = work.back();
      work.pop_back();
      if (n == c.get()) {
        traced.insert(c.get());
        break;
      }
      if (!seen.insert(n).second) continue;
      for (auto* m : edges[n]) work.push_back(m);
    }
  }
  return traced;
}

}  // namespace

void check_ownership(ProgramInfo& info, Diagnostics& diags) {
  std::set<const ClassInfo*> traced = infer_traced(info);
  for (const ClassInfo* c : traced) const_cast<ClassInfo*>(c)->traced = true;
  OwnershipPass pass(info, diags, traced);
  for (auto& fn : info.fns) pass.run_fn(*fn);
  for (auto& cls : info.classes)
    for (auto& m : cls->methods) pass.run_fn(*m);
}

}  // namespace wo::sema
