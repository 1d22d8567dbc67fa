// Actors (language.md §14): `spawn C { ... }` and the actor builtins of
// common/builtins.def (flag ACTOR: send, call, call_dl, monitor, time.after).
//  * WO-E221: `spawn` of a class without `fn receive(msg: M)` (one parameter,
//    M a class, record or union).
//  * WO-E222: a traced class (also one an interface value in it may hold) in
//    an actor's state, its message type or its reply type, checked at `spawn`
//    (also when nothing is ever sent) and at every send/call/monitor/
//    time.after of the message.
//  * WO-E226: the program-wide reply table — `call` on an M needs every
//    `receive(msg: M)` of the program to declare one copyable scalar reply R.
//    Reported at the `call` (docs/decisions/0019-actor-typing.md).
//  * WO-E111 (with time.sleep, flag NO_TX): in check_builtin_call.
// The message argument moves: the ownership pass treats code `m` as `take`.
#include <functional>
#include <set>

#include "sema/checker.h"
#include "sema/ownership.h"

namespace wo::sema {

namespace {
Loc at(const Span& s) { return s.begin; }

// What a `call` may return (language.md §14.4): a word the runtime hands
// back as is. `net.Conn` resolves to Int.
bool reply_scalar(const Type* t) {
  return t->is_int_like() || t->kind == TypeKind::Float || t->kind == TypeKind::Bool || t->kind == TypeKind::Actor ||
         (t->kind == TypeKind::Class && t->cls->is_table);
}

std::string where(const FnInfo& fn) {
  return "`" + (fn.owner ? fn.owner->name + "." : std::string()) + fn.name + "`";
}
}  // namespace

FnInfo* Checker::actor_receive(const ClassInfo& cls) {
  FnInfo* fn = cls.method("receive");
  if (!fn || fn->is_static || fn->params.size() != 1) return nullptr;
  return fn;
}

bool Checker::message_type_ok(const Type* m) {
  return (m->kind == TypeKind::Class && !m->cls->is_table) || m->kind == TypeKind::Union;
}

// WO-E222: `t` (a message, a state or a reply) must not be or contain a
// traced class: what crosses actors moves (or is deep copied to another
// shard), and a shared graph cannot. An interface value may hold any class
// of the program that satisfies it, so it crosses iff each of those may
// (docs/decisions/0032); `seen` guards cycles through interfaces and classes.
void Checker::check_crossing(const Type* t, Loc loc, const std::string& what, bool copy) {
  if (!traced_) {
    traced_ = std::make_unique<TracedClasses>(infer_traced(info_));
    for (auto& [c, path] : traced_->why) path = "it can reach itself: " + path;
  }
  crossings_.push_back({t, loc, what, copy});
  std::set<const void*> seen;
  std::string found;  // the first traced class, with the field (and interface) that leads to it
  // `via`: the first field on the way; `iface`: set when the class was reached
  // as a possible content of that interface.
  std::function<void(const Type*, const std::string&, const InterfaceInfo*)> walk =
      [&](const Type* x, const std::string& via, const InterfaceInfo* iface) {
        if (!x || !found.empty()) return;
        x = x->base();
        auto in = [&](const std::string& field) { return via.empty() ? field : via; };
        switch (x->kind) {
          case TypeKind::List: walk(x->elem, via, nullptr); return;
          case TypeKind::Map: walk(x->value, via, nullptr); return;
          case TypeKind::Interface:
            if (!seen.insert(x->iface).second) return;
            for (auto& c : info_.classes)
              if (!c->is_table && satisfies(*c, *x->iface, nullptr)) walk(c->type, via, x->iface);
            return;
          case TypeKind::Union:
            if (!seen.insert(x->uni).second) return;
            for (auto& v : x->uni->variants)
              for (auto& f : v.payload) walk(f.type, in(v.name + "." + f.name), nullptr);
            return;
          case TypeKind::Class: {
            const ClassInfo* c = x->cls;
            if (c->is_table || !seen.insert(c).second) return;
            if (traced_->classes.count(c)) {
              std::string where_from = iface ? "it satisfies the interface `" + iface->name + "`" +
                                                   (via.empty() ? "" : ", in " + via)
                                             : via.empty() ? "" : "in " + via;
              found = "`" + c->name + "`" + (where_from.empty() ? "" : " (" + where_from + ")") +
                      ", which is traced because " + traced_->why.at(c);
              return;
            }
            for (auto& f : c->fields) walk(f.type, in(c->name + "." + f.name), nullptr);
            return;
          }
          default: return;
        }
      };
  walk(t, "", nullptr);
  if (!found.empty())
    error(DiagCode::E222, loc, what + " is or may contain the traced class " + found +
                                   "; a shared graph cannot move between actors");
}

// Demand promotion (§15.6) makes more classes traced once the ownership
// pass has run: every value that crossed an actor boundary is checked again
// against those classes alone (the others were checked when it was seen).
void Checker::check_crossings_again(const std::map<const ClassInfo*, std::string>& promoted) {
  if (promoted.empty()) return;
  auto again = std::make_unique<TracedClasses>();
  for (auto& [c, why] : promoted) {
    again->classes.insert(c);
    again->why[c] = "it is demand-promoted: " + why;
  }
  traced_ = std::move(again);
  std::vector<Crossing> seen = std::move(crossings_);
  // deep_copy copies what a promoted class shares (it has no cycle to trip on).
  for (auto& c : seen)
    if (!c.copy) check_crossing(c.type, c.loc, c.what);
}

// `spawn C { fields }`: the state is built as a constructor literal (the
// field values move in); the value is the address, `actor M`.
const Type* Checker::check_spawn(ast::Expr& e) {
  const Type* st = check_expr(*e.lhs);
  if (st->is_poison() || st->kind != TypeKind::Class) return types_.poison();
  ClassInfo& cls = *st->cls;
  FnInfo* recv = actor_receive(cls);
  if (!recv) {
    FnInfo* any = cls.method("receive");
    std::string why = !any                ? "it declares no `fn receive(msg: M)`"
                      : any->is_static    ? "its `receive` is a static fn"
                                          : "its `receive` takes " + std::to_string(any->params.size()) +
                                             " parameters; an actor's takes exactly one, the message";
    error(DiagCode::E221, at(e.span), "`spawn " + cls.name + "`: `" + cls.name + "` is not an actor class: " + why);
    return types_.poison();
  }
  const Type* m = recv->params[0]->type;
  if (m->is_poison()) return m;
  if (!message_type_ok(m)) {
    error(DiagCode::E221, at(e.span), "`spawn " + cls.name + "`: " + where(*recv) + " takes a " + type_name(m) +
                                          ", but a message type is a class, record or union")
        .related.push_back({recv->sym->loc, "`receive` declared here"});
    return types_.poison();
  }
  check_crossing(st, at(e.span), "the state of actor class `" + cls.name + "`");
  check_crossing(m, at(e.span), "the message type `" + type_name(m) + "` of " + where(*recv));
  if (recv->ret->kind != TypeKind::Void)
    check_crossing(recv->ret, at(e.span), "the reply type `" + type_name(recv->ret) + "` of " + where(*recv));
  return types_.actor_of(m);
}

// WO-E226: the reply type of `call` on an `actor M`, from every `receive`
// of the program that takes an M (language.md §14.4).
const Type* Checker::reply_type(const Type* m, ast::Expr& e) {
  std::vector<FnInfo*> receivers;
  for (auto& cls : info_.classes)
    if (FnInfo* r = actor_receive(*cls))
      if (r->params[0]->type == m) receivers.push_back(r);
  std::string head = "`" + (e.sym ? e.sym->name : std::string("call")) + "` on `actor " + type_name(m) + "`: ";
  if (receivers.empty()) {
    error(DiagCode::E226, at(e.span), head + "no class declares `fn receive(msg: " + type_name(m) +
                                          ") -> R`, so nothing can reply");
    return types_.poison();
  }
  FnInfo* first = receivers[0];
  for (FnInfo* r : receivers) {
    if (r->ret == first->ret) continue;
    auto& d = error(DiagCode::E226, at(e.span),
                    head + where(*first) + " replies " + type_name(first->ret) + " but " + where(*r) + " replies " +
                        type_name(r->ret) + ": every `receive` of " + type_name(m) +
                        " in the program must declare the same reply type");
    d.related.push_back({first->sym->loc, where(*first) + " declared here"});
    d.related.push_back({r->sym->loc, where(*r) + " declared here"});
    return types_.poison();
  }
  const Type* r = first->ret;
  if (r->is_poison()) return r;
  if (r->kind == TypeKind::Void) {
    error(DiagCode::E226, at(e.span), head + where(*first) + " returns nothing, so there is no reply: declare `-> R` " +
                                          "on it or use `send`")
        .related.push_back({first->sym->loc, "`receive` declared here"});
    return types_.poison();
  }
  if (!reply_scalar(r)) {
    error(DiagCode::E226, at(e.span), head + where(*first) + " replies " + type_name(r) +
                                          ", but a reply must be a copyable scalar (Int, Float, Bool, Timestamp, Id, "
                                          "an actor address or a ref)")
        .related.push_back({first->sym->loc, "`receive` declared here"});
    return types_.poison();
  }
  return r;
}

// send(addr, msg), call(addr, msg), call_dl(addr, msg, ms),
// monitor(watched, observer, notice), time.after(ms, addr, msg):
// builtins.def codes n, R (an address) and m
// (the message for the nearest R before it, which moves into the runtime).
const Type* Checker::check_actor_call(ast::Expr& e, const std::string& shown, size_t bi) {
  const BuiltinSig& b = builtin_table()[bi];
  auto sym = std::make_unique<Symbol>(Symbol{SymKind::Builtin, shown});
  sym->builtin = (int)bi;
  e.sym = sym.get();
  info_.extra_symbols.push_back(std::move(sym));
  if (e.args.size() != b.params.size()) {
    for (auto& a : e.args) check_expr(*a);
    error(DiagCode::E209, at(e.span), "builtin `" + shown + "` takes " + std::to_string(b.params.size()) +
                                          " argument(s), but " + std::to_string(e.args.size()) + " were given");
    return types_.poison();
  }
  const Type* msg = nullptr;    // the M of the nearest address so far
  const Type* first = nullptr;  // the M of the first address (call's reply)
  bool ok = true;
  for (size_t i = 0; i < e.args.size(); ++i) {
    ast::Expr& a = *e.args[i];
    std::string nth = "argument " + std::to_string(i + 1) + " of `" + shown + "`";
    switch (b.params[i]) {
      case 'R': {
        const Type* t = check_expr(a);
        msg = nullptr;
        if (t->is_poison()) {
          ok = false;
        } else if (t->kind == TypeKind::Nil) {
          error(DiagCode::E212, at(a.span), nth + ": nil is not an actor address");
          ok = false;
        } else if (t->base()->kind != TypeKind::Actor) {
          error(DiagCode::E209, at(a.span), nth + " is an actor address (`actor M`), not " + type_name(t));
          ok = false;
        } else {
          msg = t->base()->elem;
          if (!first) first = msg;
        }
        break;
      }
      case 'm': {
        const Type* t = check_expr(a, msg);
        if (msg) {
          check_flow(msg, t, at(a.span), "the message (" + nth + ")", Flow::Arg);
          check_crossing(msg, at(a.span), "the message type `" + type_name(msg) + "`");
        }
        break;
      }
      default: {  // 'n': the delay (time.after) or the deadline (call_dl) in ms
        const Type* t = check_expr(a, types_.int_());
        check_flow(types_.int_(), t, at(a.span), nth, Flow::Arg);
        break;
      }
    }
  }
  std::string_view r = b.result;
  if (r != "r" && r != "?r") return types_.void_();
  if (!ok || !first) return types_.poison();
  const Type* reply = reply_type(first, e);
  if (r == "r" || reply->is_poison()) return reply;
  return types_.nullable(reply);  // call_dl: nil when no reply came in time
}

}  // namespace wo::sema
