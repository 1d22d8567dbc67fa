// Constant substitution per module (language.md §5.1, §6.6, §6.9).
//
// The reference substitutes textually at parse time; doing it on the AST of
// the whole module is equivalent and lets a constant of one file be used in a
// sibling file. Shadowing: a local `let` (from the next statement to the end
// of its block), a parameter, `self` (in methods), a `for` variable, a catch
// variable, a query range variable (and a `group ... into` name) and a switch
// payload binding (`case V(a, b):` binds a and b in that arm) hide a constant
// of the same name. Class constants win over top-level ones inside that
// class's methods and field defaults. The ConstDecls stay in the File.
#include "frontend/const_subst.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace wo {
namespace {

using namespace ast;
using ConstMap = std::unordered_map<std::string, const Expr*>;

ExprPtr clone_literal(const Expr& v, const Span& at) {
  auto e = std::make_unique<Expr>(v.kind, at);
  e->int_value = v.int_value;
  e->float_value = v.float_value;
  e->text = v.text;
  return e;
}

class Subst {
 public:
  Subst(const ConstMap& top, const ConstMap* cls) : top_(top), cls_(cls) {}

  void fn(FnDecl& f, bool method) {
    push();
    if (method) bind("self");
    for (auto& p : f.sig.params) bind(p.name);
    if (f.body) block(f.body->stmts);
    pop();
  }

  void expr_no_scope(ExprPtr& e) { expr(e); }

 private:
  const Expr* lookup(const std::string& n) const {
    if (bound_.count(n)) return nullptr;  // shadowed by a local
    if (cls_) {
      auto c = cls_->find(n);
      if (c != cls_->end()) return c->second;
    }
    auto t = top_.find(n);
    return t == top_.end() ? nullptr : t->second;
  }
  void push() { scopes_.emplace_back(); }
  void pop() {
    for (auto& n : scopes_.back()) {
      auto it = bound_.find(n);
      if (--it->second == 0) bound_.erase(it);
    }
    scopes_.pop_back();
  }
  void bind(const std::string& n) {
    if (scopes_.back().insert(n).second) ++bound_[n];
  }

  void block(std::vector<StmtPtr>& stmts) {
    push();
    for (auto& s : stmts) stmt(s.get());
    pop();
  }

  void stmt(Stmt* s) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::Let:
        expr(s->expr);
        bind(s->name);  // visible from the next statement on
        return;
      case StmtKind::For:
        expr(s->expr);
        push();
        bind(s->name);
        if (!s->second_name.empty()) bind(s->second_name);
        if (s->body) block(s->body->stmts);
        pop();
        return;
      default:
        break;
    }
    expr(s->target);
    expr(s->expr);
    if (s->body) block(s->body->stmts);
    if (s->else_body) block(s->else_body->stmts);
  }

  // A `case V(a, b)` pattern: a call whose arguments are all plain names.
  static bool binding_pattern(const Expr& p) {
    if (p.kind != ExprKind::Call || p.args.empty()) return false;
    for (auto& a : p.args)
      if (!a || a->kind != ExprKind::Name) return false;
    return true;
  }

  void expr(ExprPtr& e) {
    if (!e) return;
    Expr& x = *e;
    switch (x.kind) {
      case ExprKind::Name:
        if (const Expr* v = lookup(x.text)) e = clone_literal(*v, x.span);
        return;
      case ExprKind::Switch: {
        expr(x.lhs);
        for (auto& arm : x.arms) {
          push();
          for (auto& p : arm.patterns) {
            if (p && binding_pattern(*p)) {
              expr(p->lhs);
              for (auto& a : p->args) bind(a->text);
            } else {
              expr(p);
            }
          }
          block(arm.body);
          pop();
        }
        return;
      }
      case ExprKind::Try:
        expr(x.lhs);
        push();
        bind(x.catch_name);
        expr(x.rhs);
        if (x.handler_block) block(x.handler_block->stmts);
        pop();
        return;
      case ExprKind::Query:
        expr(x.lhs);
        push();
        bind(x.catch_name);
        for (auto& c : x.clauses) {
          expr(c.expr);
          if (!c.into.empty()) bind(c.into);
        }
        expr(x.rhs);
        pop();
        return;
      default:
        break;
    }
    expr(x.lhs);
    expr(x.rhs);
    for (auto& a : x.args) expr(a);
    for (auto& f : x.fields) expr(f.value);
    for (auto& c : x.clauses) expr(c.expr);
    if (x.handler_block) block(x.handler_block->stmts);
  }

  const ConstMap& top_;
  const ConstMap* cls_;
  std::vector<std::unordered_set<std::string>> scopes_;
  // How many open scopes bind each name: lookup in O(1) at any scope depth.
  std::unordered_map<std::string, int> bound_;
};

void fields(std::vector<FieldDecl>& fs, const ConstMap& top, const ConstMap* cls) {
  for (auto& f : fs) {
    if (!f.default_value) continue;
    Subst s(top, cls);
    s.expr_no_scope(f.default_value);
  }
}

}  // namespace

void substitute_constants(Module& module) {
  ConstMap top;
  for (auto& file : module.files)
    for (auto& c : file->consts)
      if (c.value) top.emplace(c.name, c.value.get());  // first declaration wins (sema reports duplicates)
  for (auto& file : module.files) {
    for (auto& f : file->fns) {
      Subst s(top, nullptr);
      s.fn(*f, false);
    }
    for (auto& c : file->classes) {
      ConstMap cls;
      for (auto& k : c->consts)
        if (k.value) cls.emplace(k.name, k.value.get());
      for (auto& m : c->methods) {
        Subst s(top, &cls);
        s.fn(*m, true);
      }
      fields(c->fields, top, &cls);
    }
    for (auto& r : file->records) fields(r->fields, top, nullptr);
  }
}

}  // namespace wo
