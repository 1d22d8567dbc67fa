// The ownership pass (language.md §15): runs after type checking over every
// function body and reports WO-E301 (use after move), E302 (move while
// borrowed), E303 (provably conflicting borrows in one call), E304 (a borrow
// escapes) and E305 (partial move). Traced classes — those that can form a
// cycle, and those demand-promoted by returning a borrowed value — are exempt.
//
// The analysis is lexical, as the spec asks: a `let r = o.part` borrow lives
// to the end of its block, a value moved on one branch is moved after the
// branch, and a move of an outer local inside a loop body is a use after move
// on the next iteration unless the body reassigns it before every use.
//
// One call is one access set (§15.3): the receiver (`self` is exclusive when
// the method writes through it, FnInfo::mutates_self) and every argument are
// live together, so a `mut` access that provably overlaps another one is E303,
// and a value moved into a `take` parameter while the same call borrows it
// (or a part of it) is E302, whatever the order (decision 0011): the moves
// into `take` parameters happen once every argument has been evaluated.
#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "sema/ownership.h"

namespace wo::sema {

namespace {

Loc at(const Span& s) { return s.begin; }

using Moves = std::map<const Symbol*, Loc>;  // local -> where it was moved
// local -> the depth of the innermost open loop since whose head the local has
// been given a new value on every path (absent: none). A use of a local at a
// lower level than a loop's depth may see what the previous iteration left.
using Fresh = std::map<const Symbol*, size_t>;

// What is known at one program point; paths join by union of the moves and
// the least of the fresh levels.
struct Flow {
  Moves moves;
  Fresh fresh;
};

void join(Flow& into, const Flow& from) {
  for (auto& [k, v] : from.moves) into.moves.emplace(k, v);
  for (auto it = into.fresh.begin(); it != into.fresh.end();) {
    auto o = from.fresh.find(it->first);
    if (o == from.fresh.end()) {
      it = into.fresh.erase(it);
    } else {
      it->second = std::min(it->second, o->second);
      ++it;
    }
  }
}

void join(std::optional<Flow>& into, const Flow& from) {
  if (into)
    join(*into, from);
  else
    into = from;
}

struct Borrow {
  const Symbol* owner;
  Loc where;
  size_t depth;  // block depth that created it
  const char* how;  // for the note: how long it lives
};

// One open loop: the states its `break`s and `continue`s leave it with, and
// the first use of each outer local that no new value precedes on some path
// from the loop head.
struct Loop {
  Span span;  // the loop statement: locals declared in it are new each iteration
  std::optional<Flow> breaks, continues;
  std::map<const Symbol*, Loc> exposed;
};

class OwnershipPass {
 public:
  OwnershipPass(ProgramInfo& info, Diagnostics& diags, const std::set<const ClassInfo*>& traced,
                std::map<const ClassInfo*, std::string>& demands)
      : info_(info), diags_(diags), traced_(traced), demands_(demands) {}

  void run_fn(FnInfo& fn) {
    fn_ = &fn;
    moves_.clear();
    fresh_.clear();
    loops_.clear();
    borrow_keys_.clear();
    alias_keys_.clear();
    element_aliases_.clear();
    alias_roots_.clear();
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
      case TypeKind::Map:
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
  // The store copies what it is given and what it gives back (runtime.md
  // §1.1, decision 0015): `insert` field values and a value assigned to a
  // row's field are only read, and reading a row's field makes a fresh value.
  static bool row_field(const ast::Expr& e) {
    return e.kind == ast::ExprKind::Member && e.sym && e.sym->kind == SymKind::Field && e.sym->cls->is_table;
  }
  // `get(xs, i)`, `latest(xs)`, `val_at(m, i)`: the builtin's result is the
  // element itself, borrowed from its container (builtins.def BORROWED), so
  // it is a part of that container like `xs[i]`.
  static bool is_borrowed_builtin(const ast::Expr& e) {
    return e.kind == ast::ExprKind::Call && e.sym && e.sym->kind == SymKind::Builtin &&
           (builtin_table()[e.sym->builtin].flags & BORROWED) && !e.args.empty();
  }
  // A part of a value: `a.b`, `a[i]`, `get(a, i)`.
  static bool is_part(const ast::Expr& e) {
    return e.kind == ast::ExprKind::Member || e.kind == ast::ExprKind::Index || is_borrowed_builtin(e);
  }
  // The local or parameter a place expression (`a`, `a.b.c`, `a[i].b`) starts from.
  static const ast::Expr* root_of(const ast::Expr& e) {
    const ast::Expr* p = &e;
    while (is_part(*p)) p = p->kind == ast::ExprKind::Call ? p->args[0].get() : p->lhs.get();
    return p->kind == ast::ExprKind::Name ? p : nullptr;
  }

  void report(DiagCode code, Loc loc, const std::string& msg, Loc related, const std::string& label) {
    auto& d = diags_.error(code, loc, msg);
    if (related.line) d.related.push_back({related, label});
  }

  // ---- reads and moves
  // A local gets a new value (`let`, assignment, a `for` variable).
  void assigned(const Symbol* s) {
    moves_.erase(s);
    borrow_keys_.erase(s);
    alias_keys_.erase(s);
    element_aliases_.erase(s);
    // alias_roots_ stays: a local bound to a borrow and then given a new value
    // on some path may still hold the borrow (the analysis is not per path).
    if (loops_.empty())
      fresh_.erase(s);
    else
      fresh_[s] = loops_.size();
  }

  void read_name(const ast::Expr& e) {
    const Symbol* s = e.sym;
    if (owned(s->type) && !loops_.empty()) {
      // Every open loop whose head this use can see the local from.
      auto f = fresh_.find(s);
      for (size_t d = f == fresh_.end() ? 0 : f->second; d < loops_.size(); ++d) loops_[d].exposed.emplace(s, at(e.span));
    }
    auto it = moves_.find(s);
    if (it == moves_.end()) return;
    if (!reported_.insert({s, e.span.begin.line}).second) return;
    report(DiagCode::E301, at(e.span), "use of `" + e.text + "` after it was moved", it->second,
           "`" + e.text + "` moved here");
  }

  // Where a consumed value goes: stored (a local, a field, a container, a
  // return value, a payload), into a `take` parameter, or to another actor.
  // A borrowed class value stored is demand-promoted (§15.3, §15.6); into a
  // `take` parameter or across actors it stays an error (E304/E305).
  enum class Into { Store, Take, Actor };

  // A class whose values may be demand-promoted to traced.
  bool promotable(const Type* t) const {
    if (!t) return false;
    t = t->base();
    return t->kind == TypeKind::Class && !t->cls->is_table && !t->cls->predeclared && !traced_.count(t->cls);
  }
  void demand(const Type* t, const ast::Expr& e, const std::string& how) {
    const ClassInfo* c = t->base()->cls;
    if (demands_.count(c)) return;
    const SourceFile& f = diags_.sources().get(e.span.begin.file);
    demands_[c] = how + " (" + f.path + ":" + std::to_string(e.span.begin.line) + ":" +
                  std::to_string(e.span.begin.col) + ")";
  }
  // The parameter or `self` a borrow-bound local (`let r = p.part`, `for it
  // in p.items`) borrows from, or the local's own symbol.
  const Symbol* underlying(const Symbol* s) const {
    for (auto it = alias_roots_.find(s); it != alias_roots_.end(); it = alias_roots_.find(s)) s = it->second;
    return s;
  }
  // A place (or a borrow-bound local) whose value is borrowed from a caller:
  // rooted in a non-`take` parameter or `self`.
  bool borrowed_from_caller(const ast::Expr& e) const {
    const ast::Expr* root = root_of(e);
    return root && root->sym && is_borrowed_param(underlying(root->sym));
  }

  // `e` is used where its value is transferred (moved) into a new owner.
  void consume(const ast::Expr& e, Into into = Into::Store) {
    if (!owned(e.type) || row_field(e)) {
      expr(e);
      return;
    }
    bool promote = into == Into::Store && promotable(e.type);
    if (e.kind == ast::ExprKind::Name) {
      const Symbol* s = e.sym;
      read_name(e);
      if ((is_local(s) || is_take_param(s)) && alias_roots_.count(s)) {
        // A local bound to a borrow (`let r = o.part`, a loop variable): its
        // value is still owned by the place it was read from.
        if (promote) {
          demand(e.type, e, "a borrowed value of it is stored or returned");
        } else {
          report(DiagCode::E304, at(e.span),
                 "`" + e.text + "` is a borrow of a part of `" + underlying(s)->name +
                     "`, so it cannot be " + (into == Into::Store ? "stored" : "moved away"),
                 Loc{}, "");
        }
        return;
      }
      if (is_local(s) || is_take_param(s)) {
        for (auto& b : borrows_)
          if (b.owner == s) {
            report(DiagCode::E302, at(e.span), "`" + e.text + "` is moved while a borrow of it is still live", b.where,
                   std::string("borrowed here ") + b.how);
            break;
          }
        moves_[s] = at(e.span);
        info_.moves.insert(&e);  // codegen hands the value over instead of counting it
      } else if (is_borrowed_param(s)) {
        if (promote)
          demand(e.type, e, "a borrowed value of it is stored or returned");
        else
          report(DiagCode::E304, at(e.span),
                 "`" + e.text + "` is borrowed, so it cannot be stored or moved away (declare the parameter `take`)",
                 Loc{}, "");
      }
      return;
    }
    if (is_part(e)) {
      expr(e);
      if (promote) {
        demand(e.type, e, "a part of another value is stored into a second owner");
        return;
      }
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
      {
        // A spawn's own fields go to the actor; constructors inside them stay here.
        Into into = in_spawn_ ? Into::Actor : Into::Store;
        bool was = in_spawn_;
        in_spawn_ = false;
        for (auto& f : e.fields) consume(*f.value, into);
        in_spawn_ = was;
        return;
      }
      case K::Spawn: {
        // The state's fields move to another actor: no demand promotion.
        bool was = in_spawn_;
        in_spawn_ = true;
        if (e.lhs) expr(*e.lhs);
        in_spawn_ = was;
        return;
      }
      case K::Insert:
        if (e.lhs)
          for (auto& f : e.lhs->fields) expr(*f.value);
        return;
      case K::Try: try_expr(e); return;
      case K::Switch: switch_expr(e); return;
      case K::Query: query_expr(e); return;
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
    // After the `try`: the body succeeded, or the handler ran to its end.
    // A handler that returns or breaks does not end the path after it.
    expr(*e.lhs);
    Flow after = flow();
    bool was_dead = dead_;
    dead_ = false;
    if (e.handler_block) {
      block(*e.handler_block);
    } else if (e.rhs) {
      expr(*e.rhs);
    }
    if (!dead_) join(after, flow());
    set_flow(std::move(after));
    dead_ = was_dead;
  }

  // `from x in src where … order by … select …`: the source is evaluated
  // once; the clauses and the select run once per row, like a loop body, so
  // moving an outer local there is a use after move on the next row (E301).
  [[gnu::noinline]] void query_expr(const ast::Expr& e) {
    if (e.lhs) expr(*e.lhs);
    Moves before = moves_;
    for (auto& c : e.clauses)
      if (c.expr) expr(*c.expr);
    if (e.rhs) expr(*e.rhs);
    for (auto& [sym, where] : moves_) {
      if (before.count(sym) || !reported_.insert({sym, where.line}).second) continue;
      report(DiagCode::E301, where, "`" + sym->name + "` is moved in a query clause, which runs once per row",
             Loc{}, "");
    }
  }

  [[gnu::noinline]] void switch_expr(const ast::Expr& e) {
    expr(*e.lhs);
    // Every switch is exhaustive (E208), so some arm runs.
    Flow start = flow();
    std::optional<Flow> out;
    const ast::Expr* subject_root = owned(e.lhs->type) ? root_of(*e.lhs) : nullptr;
    for (auto& arm : e.arms) {
      set_flow(start);
      dead_ = false;
      ++depth_;
      // An arm that binds the payload borrows the subject for its body (§15.3).
      bool binds = false;
      for (auto& p : arm.patterns)
        for (auto& a : p->args) binds |= a->sym != nullptr;
      if (binds && subject_root && subject_root->sym)
        borrows_.push_back({subject_root->sym, at(e.lhs->span), depth_, "by the `switch` arm that binds its payload"});
      for (auto& s : arm.body) stmt(*s);
      // The arm's value is a payload of a subject borrowed from the caller:
      // the caller's value keeps it too (demand promotion of a class, §15.6).
      if (binds && !arm.body.empty() && arm.body.back()->kind == ast::StmtKind::Expr && borrowed_from_caller(*e.lhs)) {
        const ast::Expr& v = *arm.body.back()->expr;
        if (v.kind == ast::ExprKind::Name && v.sym && v.sym->kind == SymKind::Local && owned(v.type)) {
          if (promotable(v.type))
            demand(v.type, v, "a payload of a borrowed value is the value of a `switch`");
          else
            report(DiagCode::E304, at(v.span),
                   "`" + v.text + "` is a payload of borrowed `" + underlying(root_of(*e.lhs)->sym)->name +
                       "`, so it cannot be the value of the `switch`",
                   Loc{}, "");
        }
      }
      end_block();
      if (!dead_) join(out, flow());
    }
    set_flow(out ? std::move(*out) : std::move(start));
    dead_ = !out && !e.arms.empty();
  }

  // A textual key for a place, so two arguments can be proven to be the same.
  // A borrow bound by `let r = o.part` is that place (`r` and `o.part` are the
  // same key) as long as the place is fixed: fields and constant indices.
  std::string place_key(const ast::Expr& e) const {
    switch (e.kind) {
      case ast::ExprKind::Name: {
        if (auto b = borrow_keys_.find(e.sym); b != borrow_keys_.end()) return b->second;
        return e.sym ? std::to_string(reinterpret_cast<uintptr_t>(e.sym)) : e.text;
      }
      case ast::ExprKind::Member: {
        std::string k = place_key(*e.lhs);
        return k.empty() ? k : k + "." + e.text;
      }
      case ast::ExprKind::Index: {
        std::string k = place_key(*e.lhs);
        std::string i = index_key(*e.rhs);
        return k.empty() || i.empty() ? "" : k + "[" + i + "]";
      }
      case ast::ExprKind::Call: {
        // `get(xs, i)`, `latest(xs)`, `val_at(m, i)`: an element, like `xs[i]`.
        if (!is_borrowed_builtin(e)) return "";
        std::string k = place_key(*e.args[0]);
        std::string i = e.args.size() < 2 ? "latest"
                        : e.sym->name == "get" ? index_key(*e.args[1])  // the same element as `xs[i]`, `m[k]`
                                               : index_key(*e.args[1]).empty() ? "" : e.sym->name + " " + index_key(*e.args[1]);
        return k.empty() || i.empty() ? "" : k + "[" + i + "]";
      }
      default: return "";
    }
  }
  // Two indices written as the same expression are the same place (§15.3):
  // literals, places and operators over them (no calls: they may differ).
  std::string index_key(const ast::Expr& e) const {
    switch (e.kind) {
      case ast::ExprKind::IntLit: return std::to_string(e.int_value);
      case ast::ExprKind::TextLit: return "\"" + e.text + "\"";
      case ast::ExprKind::Name:
      case ast::ExprKind::Member:
      case ast::ExprKind::Index: return place_key(e);
      case ast::ExprKind::Unary: {
        std::string k = index_key(*e.lhs);
        return k.empty() ? k : (e.unary_op == ast::UnaryOp::Neg ? "(-" : "(not ") + k + ")";
      }
      case ast::ExprKind::Binary: {
        std::string l = index_key(*e.lhs), r = index_key(*e.rhs);
        return l.empty() || r.empty() ? "" : "(" + l + " " + ast::binary_op_spelling(e.binary_op) + " " + r + ")";
      }
      default: return "";
    }
  }

  // The key of every place `e` may be at run time: each index is `[*]`, and
  // a name bound to an element (`for it in xs`, `let r = xs[i]`) is the
  // container's key with `[*]` (alias_keys_). Two places whose wild keys do
  // not overlap are never the same place, whatever the indices.
  std::string wild_key(const ast::Expr& e) const {
    switch (e.kind) {
      case ast::ExprKind::Name: {
        if (auto b = borrow_keys_.find(e.sym); b != borrow_keys_.end()) return b->second;
        if (auto a = alias_keys_.find(e.sym); a != alias_keys_.end()) return a->second;
        return e.sym ? std::to_string(reinterpret_cast<uintptr_t>(e.sym)) : "";
      }
      case ast::ExprKind::Member: {
        std::string k = wild_key(*e.lhs);
        return k.empty() ? k : k + "." + e.text;
      }
      case ast::ExprKind::Index: {
        std::string k = wild_key(*e.lhs);
        return k.empty() ? k : k + "[*]";
      }
      case ast::ExprKind::Call:
        if (is_borrowed_builtin(e)) {
          std::string k = wild_key(*e.args[0]);
          return k.empty() ? k : k + "[*]";
        }
        return "";
      default: return "";
    }
  }
  // `inner` is `outer` or a part of it.
  static bool within(const std::string& inner, const std::string& outer) {
    return inner == outer || inner.rfind(outer + ".", 0) == 0 || inner.rfind(outer + "[", 0) == 0;
  }
  // The elements a place goes through, outermost first: each `xs[i]` (or
  // `get(xs, i)`) and a name bound to an element, with the wild key of that
  // element. Two places that meet in the same element at every level are
  // the same place; the deepest level where their indices may differ is
  // where a run-time guard compares them.
  struct Level {
    std::string wild;
    const ast::Expr* node;
  };
  void levels(const ast::Expr& e, std::vector<Level>& out) const {
    switch (e.kind) {
      case ast::ExprKind::Name:
        if (alias_keys_.count(e.sym) && element_aliases_.count(e.sym)) out.push_back({alias_keys_.at(e.sym), &e});
        return;
      case ast::ExprKind::Member: levels(*e.lhs, out); return;
      case ast::ExprKind::Index:
        levels(*e.lhs, out);
        out.push_back({wild_key(e), &e});
        return;
      case ast::ExprKind::Call:
        if (is_borrowed_builtin(e)) {
          levels(*e.args[0], out);
          out.push_back({wild_key(e), &e});
        }
        return;
      default: return;
    }
  }
  // The exact key of an element level: a name bound to an element has none
  // (which element it is is known only at run time).
  std::string level_key(const ast::Expr& node) const {
    if (node.kind == ast::ExprKind::Name) return "";
    if (node.kind == ast::ExprKind::Call) {
      std::string c = place_key(*node.args[0]);
      std::string i = node.args.size() > 1 ? index_key(*node.args[1]) : "";
      return c.empty() || i.empty() ? "" : c + "[" + i + "]";
    }
    return place_key(node);
  }
  static bool constant_index(const ast::Expr& node) {
    return node.kind == ast::ExprKind::Index && node.rhs->kind == ast::ExprKind::IntLit;
  }

  // One access of a call: the receiver or an argument, with its convention.
  struct Access {
    const ast::Expr* e;
    ast::ParamConv conv;
    size_t pos;  // in the argument list, the receiver first
    bool receiver;
  };

  static bool overlap(const std::string& a, const std::string& b) {
    return a == b || b.rfind(a + ".", 0) == 0 || a.rfind(b + ".", 0) == 0 || b.rfind(a + "[", 0) == 0 ||
           a.rfind(b + "[", 0) == 0;
  }

  // The receiver and arguments of call `e`, each with the convention of the
  // parameter it binds. Fills `callee` for messages; false when the call can
  // have no run-time guard (builtins, variants).
  bool accesses(const ast::Expr& e, std::vector<Access>& out, std::string& callee) {
    using C = ast::ParamConv;
    const Symbol* s = e.sym;
    const ast::Expr* recv = e.lhs && e.lhs->kind == ast::ExprKind::Member ? e.lhs->lhs.get() : nullptr;
    if (s && s->kind == SymKind::Builtin) {
      const BuiltinSig& b = builtin_table()[s->builtin];
      callee = std::string(b.name);
      for (size_t i = 0; i < e.args.size(); ++i) {
        char c = i < b.params.size() ? b.params[i] : '?';
        C conv = c == 'e' || c == 'V' || c == 'm' ? C::Take  // stored into the container, or a message moved to an actor
                 : i == 0 && (b.flags & MUTATES) ? C::Mut
                                                 : C::Borrow;
        out.push_back({e.args[i].get(), conv, i, false});
      }
      return false;
    }
    if (s && s->kind == SymKind::Variant) {
      callee = s->name;
      for (size_t i = 0; i < e.args.size(); ++i) out.push_back({e.args[i].get(), C::Take, i, false});
      return false;
    }
    std::vector<C> convs;  // the receiver's first when it has one
    bool has_recv = false;
    if (s && s->kind == SymKind::IfaceMethod) {
      const IfaceMethodInfo& m = s->iface->methods[s->method_index];
      callee = m.name;
      has_recv = true;
      // The implementation is only known at run time: exclusive when some
      // class that satisfies the interface writes through `self` in it.
      convs.push_back(iface_method_mutates(info_, s->iface, s->method_index) ? C::Mut : C::Borrow);
      for (size_t i = 0; i < e.args.size(); ++i)
        convs.push_back(m.sig && i < m.sig->params.size() ? m.sig->params[i].conv : C::Borrow);
    } else if (s && s->fn && (s->kind == SymKind::Fn || s->kind == SymKind::Method || s->kind == SymKind::StaticFn)) {
      const FnInfo* fn = s->fn;
      callee = fn->name;
      if (s->kind == SymKind::Method) {
        has_recv = true;
        convs.push_back(fn->mutates_self ? C::Mut : C::Borrow);
      }
      // `v.m(args)` through `using` is `m(v, args)`: the receiver is parameter 0.
      if (s->kind == SymKind::Fn && recv && recv->type) has_recv = true;
      for (const Symbol* p : fn->params) convs.push_back(fn->writes_message ? C::Mut : p->conv);
    } else {
      for (size_t i = 0; i < e.args.size(); ++i) out.push_back({e.args[i].get(), C::Borrow, i, false});
      return false;
    }
    size_t n = e.args.size() + (has_recv ? 1 : 0);
    for (size_t i = 0; i < n; ++i) {
      const ast::Expr* a = has_recv && i == 0 ? recv : e.args[i - (has_recv ? 1 : 0)].get();
      out.push_back({a, i < convs.size() ? convs[i] : C::Borrow, i, has_recv && i == 0});
    }
    return true;
  }

  void call(const ast::Expr& e) {
    using C = ast::ParamConv;
    std::vector<Access> acc;
    std::string callee;
    bool guarded = accesses(e, acc, callee);
    // Only owned values are borrowed: copies and traced values may alias (§15.1, §15.6).
    std::vector<std::string> keys;
    for (auto& a : acc) keys.push_back(owned(a.e->type) ? place_key(*a.e) : "");
    size_t arg0 = !acc.empty() && acc[0].receiver ? 1 : 0;  // acc index of the first written argument
    // WO-E303: a `mut` access and any other access (`take` ones are E302
    // below) to provably the same place; reported at the later one.
    for (size_t j = 0; j < acc.size(); ++j) {
      if (keys[j].empty() || acc[j].conv == C::Take) continue;
      for (size_t i = 0; i < j; ++i) {
        if (keys[i].empty() || acc[i].conv == C::Take) continue;
        if (acc[i].conv != C::Mut && acc[j].conv != C::Mut) continue;
        if (!overlap(keys[i], keys[j])) continue;
        std::string msg;
        if (acc[i].receiver)
          msg = acc[i].conv == C::Mut
                    ? "this argument is the same place as the receiver of `" + callee + "`, which `" + callee +
                          "` modifies"
                    : "this `mut` argument is the same place as the receiver of `" + callee + "`";
        else if (acc[i].conv == C::Mut)
          msg = "this argument is the same place as the `mut` argument " + std::to_string(i - arg0 + 1) + " of `" +
                callee + "`";
        else
          msg = "this `mut` argument is the same place as argument " + std::to_string(i - arg0 + 1) + " of `" +
                callee + "`";
        diags_.error(DiagCode::E303, at(acc[j].e->span), msg);
        break;
      }
    }
    // Places that may be the same element through run-time indices, a loop
    // variable or a `let` bound to an element: compared at run time, at the
    // deepest element where they may differ (decision 0078).
    for (size_t j = 0; guarded && j < acc.size(); ++j)
      for (size_t i = 0; i < j; ++i) {
        if (acc[i].conv == C::Take || acc[j].conv == C::Take) continue;
        if (acc[i].conv != C::Mut && acc[j].conv != C::Mut) continue;
        if (!owned(acc[i].e->type) || !owned(acc[j].e->type)) continue;
        if (!keys[i].empty() && !keys[j].empty() && overlap(keys[i], keys[j])) continue;  // provably the same: E303 above
        std::string wi = wild_key(*acc[i].e), wj = wild_key(*acc[j].e);
        if (wi.empty() || wj.empty() || !(within(wi, wj) || within(wj, wi))) continue;
        std::vector<Level> li, lj;
        levels(*acc[i].e, li);
        levels(*acc[j].e, lj);
        const Level* gi = nullptr;
        const Level* gj = nullptr;
        for (size_t k = 0; k < li.size() && k < lj.size() && li[k].wild == lj[k].wild; ++k) {
          gi = &li[k];
          gj = &lj[k];
        }
        if (!gi) continue;
        std::string ki = level_key(*gi->node), kj = level_key(*gj->node);
        if (!ki.empty() && ki == kj) continue;  // the same element: E303 above
        if (constant_index(*gi->node) && constant_index(*gj->node) && ki != kj && place_key(*gi->node->lhs) == place_key(*gj->node->lhs) &&
            !place_key(*gi->node->lhs).empty())
          continue;  // provably different elements
        info_.borrow_guards[&e].push_back({gi->node, gj->node});
        info_.guarded_elements.insert(gi->node);
        info_.guarded_elements.insert(gj->node);
      }
    // What the call itself may free while it runs: a part (a Text, a traced
    // object's field) of a place that a `mut` or `take` argument of the same
    // call contains. E303 covers owned places; these are held instead.
    for (size_t i = 0; i < acc.size(); ++i) {
      const ast::Expr& a = *acc[i].e;
      if (!is_part(a) || !a.type || !a.type->base()->is_heap()) continue;
      std::string wa = wild_key(a);
      if (wa.empty()) continue;
      for (size_t j = 0; j < acc.size(); ++j) {
        if (j == i || acc[j].conv == C::Borrow) continue;
        std::string wb = wild_key(*acc[j].e);
        if (!wb.empty() && within(wa, wb)) {
          info_.keep_alive.insert(&a);
          break;
        }
      }
    }
    // Every access is live for the whole call: the borrowed ones are held
    // while the rest are evaluated, and the moves into `take` parameters
    // happen last, so a value both borrowed and moved by the call is E302.
    size_t held = borrows_.size();
    std::vector<std::pair<const ast::Expr*, Into>> takes;
    for (auto& a : acc) {
      if (a.conv == C::Take) {
        takes.push_back({a.e, take_into(e, a.pos)});
        continue;
      }
      expr(*a.e);
      if (owned(a.e->type))
        if (const ast::Expr* root = root_of(*a.e))
          if (root->sym) borrows_.push_back({root->sym, at(a.e->span), depth_, "by the same call (until it returns)"});
    }
    for (auto [t, into] : takes) consume(*t, into);
    borrows_.resize(held);
  }

  // Where a `take` argument of call `e` at position `pos` goes: a builtin
  // stores it into a container ('e', 'V') or sends it to an actor ('m'); a
  // variant stores it as a payload; a function takes it.
  static Into take_into(const ast::Expr& e, size_t pos) {
    const Symbol* s = e.sym;
    if (s && s->kind == SymKind::Builtin) {
      const BuiltinSig& b = builtin_table()[s->builtin];
      return pos < b.params.size() && b.params[pos] == 'm' ? Into::Actor : Into::Store;
    }
    if (s && s->kind == SymKind::Variant) return Into::Store;
    return Into::Take;
  }

  // ---- statements
  Flow flow() const { return {moves_, fresh_}; }
  void set_flow(Flow f) {
    moves_ = std::move(f.moves);
    fresh_ = std::move(f.fresh);
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

  // A place whose identity cannot change: a name, fields, constant indices.
  static bool fixed_place(const ast::Expr& e) {
    if (e.kind == ast::ExprKind::Name) return true;
    if (e.kind == ast::ExprKind::Member) return fixed_place(*e.lhs);
    if (e.kind == ast::ExprKind::Index) return e.rhs->kind == ast::ExprKind::IntLit && fixed_place(*e.lhs);
    return false;
  }

  static bool declared_in(const Symbol* s, const Span& sp) {
    return s->loc.file == sp.begin.file && s->loc.offset >= sp.begin.offset && s->loc.offset < sp.begin.offset + sp.len;
  }

  // `while`, `do … while` and `for`. One pass over the body from the entry
  // state; the state the body hands to the next iteration (its end and its
  // `continue`s) is then checked against the uses the body makes of outer
  // locals before giving them a new value (Loop::exposed): such a use of a
  // local that the next iteration starts with moved is E301 (§15.2 "Loops").
  void loop(const ast::Stmt& s) {
    using K = ast::StmtKind;
    bool was_dead = dead_;
    if (s.kind == K::For) expr(*s.expr);  // evaluated once, before the loop
    loops_.push_back(Loop{s.span, {}, {}, {}});
    // `for it in xs`: `it` borrows each element of `xs` through the body (§15.3).
    if (s.kind == K::For && owned(s.expr->type))
      if (const ast::Expr* root = root_of(*s.expr))
        if (root->sym) borrows_.push_back({root->sym, at(s.expr->span), depth_ + 1, "by the loop (until it ends)"});
    if (s.kind == K::For) {
      if (s.sym) assigned(s.sym);
      if (s.sym2) assigned(s.sym2);
      // The loop variable (a map's value) is some element of the container.
      const Symbol* elem = s.expr->type && s.expr->type->base()->kind == TypeKind::Map ? s.sym2 : s.sym;
      std::string container = wild_key(*s.expr);
      if (elem && !container.empty()) bind_alias(elem, container + "[*]", true);
      if (elem && owned(elem->type))
        if (const ast::Expr* root = root_of(*s.expr))
          if (root->sym) alias_roots_[elem] = root->sym;
    }
    if (s.kind == K::While) expr(*s.expr);
    Flow at_head = flow();  // where `while` and `for` leave when the loop ends
    dead_ = false;
    block(*s.body);
    std::optional<Flow> next = std::move(loops_.back().continues);
    if (!dead_) join(next, flow());
    if (s.kind == K::DoWhile && next) {
      set_flow(std::move(*next));
      dead_ = false;
      expr(*s.expr);
      next = flow();
    }
    Loop& l = loops_.back();
    if (next) {
      for (auto& [sym, where] : next->moves) {
        auto use = l.exposed.find(sym);
        if (use == l.exposed.end() || declared_in(sym, l.span)) continue;
        if (!reported_.insert({sym, use->second.line}).second) continue;
        report(DiagCode::E301, use->second,
               "use of `" + sym->name + "` after it was moved in an earlier iteration of the loop", where,
               "`" + sym->name + "` moved here");
      }
    }
    std::optional<Flow> out;
    if (s.kind == K::DoWhile) {
      out = std::move(next);
    } else {
      out = std::move(at_head);
      if (next) join(out, *next);
    }
    if (l.breaks) join(out, *l.breaks);
    loops_.pop_back();
    if (!out) {  // `do { … } while` whose body never completes
      dead_ = true;
      return;
    }
    // New values given in this loop are new since the enclosing loop's head too.
    for (auto& [sym, level] : out->fresh) level = std::min(level, loops_.size());
    std::erase_if(out->fresh, [](const auto& kv) { return kv.second == 0; });
    set_flow(std::move(*out));
    dead_ = was_dead;
  }

  void stmt(const ast::Stmt& s) {
    using K = ast::StmtKind;
    switch (s.kind) {
      case K::Let: {
        const ast::Expr& init = *s.expr;
        if (is_part(init) && owned(init.type)) {
          // `let r = o.part` (or `xs[i]`, `get(xs, i)`): a borrow of `o` until the end of this block.
          expr(init);
          if (const ast::Expr* root = root_of(init))
            if (root->sym) borrows_.push_back({root->sym, at(init.span), depth_, "(until the end of its block)"});
          if (s.sym) assigned(s.sym);
          if (s.sym && fixed_place(init)) borrow_keys_[s.sym] = place_key(init);
          if (s.sym && !fixed_place(init)) bind_alias(s.sym, wild_key(init), init.kind != ast::ExprKind::Member);
          if (s.sym && root_of(init) && root_of(init)->sym) alias_roots_[s.sym] = root_of(init)->sym;
          return;
        }
        consume(init);
        if (s.sym) assigned(s.sym);
        return;
      }
      case K::Assign: {
        if (s.assign_op == ast::AssignOp::Assign && !row_field(*s.target))
          consume(*s.expr);
        else
          expr(*s.expr);
        if (s.target->kind == ast::ExprKind::Name) {
          assigned(s.target->sym);  // a dead local may be given a new value
        } else {
          expr(*s.target);
        }
        return;
      }
      case K::Expr: expr(*s.expr); return;
      case K::If: {
        // Paths that end in return/break/continue do not reach the join.
        expr(*s.expr);
        Flow start = flow();
        std::optional<Flow> out;
        dead_ = false;
        block(*s.body);
        if (!dead_) out = flow();
        set_flow(start);
        dead_ = false;
        if (s.else_body) block(*s.else_body);
        if (!dead_) join(out, flow());
        set_flow(out ? std::move(*out) : std::move(start));
        dead_ = !out;
        return;
      }
      case K::While:
      case K::DoWhile:
      case K::For: loop(s); return;
      case K::Return:
        if (s.expr) {
          // Returning a borrowed class value demand-promotes it (§15.3, §9.9);
          // a borrowed part of another kind (a `multi` field of a parameter)
          // cannot outlive its owner: E304. A part of a local is the last
          // owner's (the local dies here).
          const ast::Expr& r = *s.expr;
          if (r.kind == ast::ExprKind::Name && alias_roots_.count(r.sym) && !is_borrowed_param(underlying(r.sym))) {
            // A borrow of a part of a local (`let j = b.job; return j`): the
            // local dies at the return, so the value has one owner again.
            read_name(r);
          } else if (r.kind == ast::ExprKind::Name) {
            consume(r);
          } else if (is_part(r) && owned(r.type) && borrowed_from_caller(r)) {
            expr(r);
            if (promotable(r.type))
              demand(r.type, r, "a borrowed value of it is returned");
            else
              report(DiagCode::E304, at(r.span),
                     "a part of borrowed `" + underlying(root_of(r)->sym)->name +
                         "` cannot be returned (it outlives the call only as a copy: use deep_copy)",
                     Loc{}, "");
          } else {
            expr(r);
          }
        }
        dead_ = true;
        return;
      case K::Break:
      case K::Continue:
        // The path goes on after the loop, or into its next iteration.
        if (!loops_.empty() && !dead_) join(s.kind == K::Break ? loops_.back().breaks : loops_.back().continues, flow());
        dead_ = true;
        return;
      case K::Block:
      case K::Transaction: block(*s.body); return;
    }
  }

  // `sym` is bound to a part of a place whose identity is known only at run
  // time; `element`: to an element itself (a level of its own).
  void bind_alias(const Symbol* sym, const std::string& wild, bool element) {
    if (wild.empty()) return;
    alias_keys_[sym] = wild;
    if (element) element_aliases_.insert(sym);
  }

  ProgramInfo& info_;
  Diagnostics& diags_;
  const std::set<const ClassInfo*>& traced_;
  FnInfo* fn_ = nullptr;
  Moves moves_;
  Fresh fresh_;
  std::map<const Symbol*, std::string> borrow_keys_;  // `let r = o.part` -> the key of `o.part`
  std::map<const Symbol*, std::string> alias_keys_;   // `for it in xs`, `let r = xs[i]` -> the wild key of the element
  std::set<const Symbol*> element_aliases_;           // those bound to a whole element
  std::map<const Symbol*, const Symbol*> alias_roots_;  // a borrow-bound local -> the root it borrows from
  std::map<const ClassInfo*, std::string>& demands_;   // classes to demand-promote, with why
  bool in_spawn_ = false;
  std::vector<Loop> loops_;  // the open loops, outermost first (depth = index + 1)
  std::vector<Borrow> borrows_;
  std::set<std::pair<const Symbol*, uint32_t>> reported_;
  size_t depth_ = 0;
  bool dead_ = false;
};

}  // namespace

// Classes that can reach themselves through fields (directly or via other
// classes, unions, lists, map values and interfaces) form cycles: they are traced. Each
// edge is labelled with the field it goes through, so the path back to the
// class can be shown (WO-E222 names why a class is traced).
// Traced classes (language.md §15.6; docs/decisions/0032). A class is traced
// when it reaches itself through fields of classes and unions (`?Node`).
// Edges through an interface value go to every class that satisfies it (a
// box holds nothing else); a box is always owned, so recursion through one
// alone (a decorator: `Frame { inner: Shape }` that is itself a Shape) cannot
// close a cycle and does not make a class traced. Only when such a path
// meets a traced class (the aliased object a run-time cycle needs) is every
// class on it traced too, so the collector can walk the whole cycle.
TracedClasses infer_traced(const ProgramInfo& info) {
  struct Edge {
    const void* to;
    std::string via;
    bool iface;
  };
  std::map<const void*, std::vector<Edge>> edges;
  std::function<void(const void*, const Type*, const std::string&, bool)> add =
      [&](const void* from, const Type* t, const std::string& via, bool iface) {
        if (!t) return;
        t = t->base();
        switch (t->kind) {
          case TypeKind::List: add(from, t->elem, via, iface); break;
          case TypeKind::Map: add(from, t->value, via, iface); break;  // keys are Int-shaped or Text
          case TypeKind::Class:
            if (!t->cls->is_table) edges[from].push_back({t->cls, via, iface});  // rows are ids: they never close a cycle
            break;
          case TypeKind::Union: edges[from].push_back({t->uni, via, iface}); break;
          case TypeKind::Interface:
            // A box holds only a class that satisfies the interface (WO-E205
            // at every conversion), never a row.
            for (auto& c : info.classes)
              if (!c->is_table && satisfies(*c, *t->iface, nullptr))
                edges[from].push_back({c.get(), via + " (an interface value, which may hold a `" + c->name + "`)", true});
            break;
          default: break;
        }
      };
  for (auto& c : info.classes)
    for (auto& f : c->fields) add(c.get(), f.type, c->name + "." + f.name, false);
  for (auto& u : info.unions)
    for (auto& v : u->variants)
      for (auto& f : v.payload) add(u.get(), f.type, v.name + "." + f.name, false);
  // The shortest way from `from` back to `to` (breadth first), over class and
  // union edges only or over interface edges too; "" when there is none,
  // else the fields on the way ("A.b -> B.a -> ").
  auto path = [&](const void* from, const void* to, bool with_iface) -> std::string {
    std::map<const void*, const Edge*> reached_by;
    std::map<const void*, const void*> parent;
    std::vector<const void*> work = {from};
    bool found = false;
    for (size_t k = 0; k < work.size() && !found; ++k) {
      const void* n = work[k];
      for (const Edge& e : edges[n]) {
        if ((e.iface && !with_iface) || reached_by.count(e.to)) continue;
        reached_by[e.to] = &e;
        parent[e.to] = n;
        if (e.to == to) {
          found = true;
          break;
        }
        work.push_back(e.to);
      }
    }
    if (!found) return "";
    std::vector<std::string> steps;
    for (const void* n = to;;) {
      steps.push_back(reached_by[n]->via);
      n = parent[n];
      if (n == from) break;
    }
    std::string out;
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) out += *it + " -> ";
    return out;
  };
  TracedClasses traced;
  for (auto& c : info.classes) {
    std::string why = path(c.get(), c.get(), false);
    if (why.empty()) continue;
    traced.classes.insert(c.get());
    traced.why[c.get()] = why + c->name;
  }
  std::set<const ClassInfo*> seeds = traced.classes;
  for (auto& c : info.classes) {
    if (seeds.count(c.get())) continue;
    for (const ClassInfo* s : seeds) {
      std::string there = path(c.get(), s, true);
      if (there.empty()) continue;
      std::string back = path(s, c.get(), true);
      if (back.empty()) continue;
      traced.classes.insert(c.get());
      traced.why[c.get()] = there + back + c->name + " (through the traced class `" + s->name + "`)";
      break;
    }
  }
  return traced;
}

std::map<const ClassInfo*, std::string> check_ownership(ProgramInfo& info, Diagnostics& diags) {
  infer_mutating_methods(info);
  std::set<const ClassInfo*> traced = infer_traced(info).classes;
  for (const ClassInfo* c : traced) const_cast<ClassInfo*>(c)->traced = true;
  // Demand promotion (§15.6) to a fixed point: each round runs the pass into
  // a scratch list; a round that asks for no promotion is the answer, so its
  // diagnostics are the program's. Every other round promotes at least one
  // class, so there are at most (classes + 1) rounds; most programs take one.
  std::map<const ClassInfo*, std::string> promoted;
  for (;;) {
    info.moves.clear();
    info.keep_alive.clear();
    info.borrow_guards.clear();
    info.guarded_elements.clear();
    Diagnostics round(diags.sources());
    std::map<const ClassInfo*, std::string> demands;
    check_shared_writes(info, round);
    OwnershipPass pass(info, round, traced, demands);
    for (auto& fn : info.fns) pass.run_fn(*fn);
    for (auto& cls : info.classes)
      for (auto& m : cls->methods) pass.run_fn(*m);
    if (demands.empty()) {
      for (const Diagnostic& d : round.all()) diags.report(d.code, d.loc, d.message) = d;
      break;
    }
    for (auto& [c, why] : demands) {
      traced.insert(c);
      const_cast<ClassInfo*>(c)->traced = true;
      promoted.emplace(c, why);
    }
  }
  return promoted;
}

}  // namespace wo::sema
