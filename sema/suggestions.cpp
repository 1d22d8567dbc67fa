// "Did you mean", missing `use` and "declared here" for the checker's
// diagnostics (docs/decisions/0040). Only consulted once an error is certain,
// so none of this costs anything on a program that compiles.
#include <set>

#include "common/namespaces.h"
#include "common/suggest.h"
#include "sema/checker.h"

namespace wo::sema {
namespace {

void add_unique(std::vector<std::string>& out, std::set<std::string>& seen, std::string_view s) {
  if (seen.insert(std::string(s)).second) out.emplace_back(s);
}

std::string mean(const std::string& s) { return s.empty() ? "" : "did you mean `" + s + "`?"; }

}  // namespace

std::string Checker::name_help(const std::string& name, bool callee) {
  // `time.now()` without `use time`: the namespace is right, the `use` is missing.
  if (is_stdlib_namespace(name))
    return "`" + name + "` is a standard-library namespace: add `use " + name + "` at the top of this file";
  for (auto& [path, scope] : modules_) {
    (void)scope;
    size_t slash = path.rfind('/');
    if (!path.empty() && path.substr(slash == std::string::npos ? 0 : slash + 1) == name)
      return "`" + name + "` is a module: add `use " + path + "` at the top of this file";
  }
  // Inside a method, a field or method of the class without `self.`.
  if (fn_ && fn_->self && fn_->owner) {
    if (!callee && fn_->owner->field(name)) return "`" + name + "` is a field: write `self." + name + "`";
    if (callee && fn_->owner->method(name)) return "`" + name + "` is a method: write `self." + name + "(...)`";
  }
  if (const ForeignWord* f = foreign_word(name, callee ? ForeignWord::Call : ForeignWord::Value)) return foreign_help(*f);
  std::vector<std::string> cands;
  std::set<std::string> seen;
  for (auto& [n, syms] : visible_)
    if (!syms.empty()) add_unique(cands, seen, n);
  if (fn_ && fn_->self) add_unique(cands, seen, "self");
  for (auto& [n, f] : modules_[cur_module_].fns) add_unique(cands, seen, n);
  if (callee)
    for (const BuiltinSig& b : builtin_table())
      if (b.ns.empty()) add_unique(cands, seen, b.name);
  for (auto& [n, v] : variants_by_name_) add_unique(cands, seen, n);
  return mean(closest_name(name, cands));
}

std::string Checker::field_help(const ClassInfo& cls, const std::string& name) {
  std::vector<std::string> cands;
  for (const FieldInfo& f : cls.fields) cands.push_back(f.name);
  std::string best = closest_name(name, cands);
  if (!best.empty()) return mean(best);
  // `p.area` for a method `area()`: the call parentheses are missing.
  for (auto& m : cls.methods)
    if (m->name == name && !m->is_static) return "`" + name + "` is a method: call it with `" + name + "()`";
  return "";
}

std::string Checker::method_help(const ClassInfo& cls, const std::string& name) {
  std::vector<std::string> cands;
  for (auto& m : cls.methods)
    if (!m->is_static) cands.push_back(m->name);
  std::string best = closest_name(name, cands);
  if (!best.empty()) return mean(best);
  if (cls.field(name)) return "`" + name + "` is a field, not a method: read it without `()`";
  return "";
}

std::string Checker::type_help(const std::string& name) {
  if (const ForeignWord* f = foreign_word(name, ForeignWord::Type)) return foreign_help(*f);
  std::vector<std::string> cands = {"Int", "Float", "Bool", "Text", "Bytes", "Timestamp", "Id"};
  std::set<std::string> seen(cands.begin(), cands.end());
  for (auto& [n, c] : classes_by_name_) add_unique(cands, seen, n);
  for (auto& [n, c] : predeclared_) add_unique(cands, seen, n);
  for (auto& [n, u] : unions_by_name_) add_unique(cands, seen, n);
  for (auto& [n, i] : interfaces_by_name_) add_unique(cands, seen, n);
  return mean(closest_name(name, cands));
}

std::string Checker::ns_member_help(const std::string& ns, const std::string& name) {
  std::vector<std::string> cands;
  std::set<std::string> seen;
  for (const BuiltinSig& b : builtin_table())
    if (b.ns == ns) add_unique(cands, seen, b.name);
  return mean(closest_name(name, cands));
}

void Checker::note_declared(Diagnostic& d, const ast::Expr& operand) {
  // A local or parameter operand: where it got the type the error names.
  if (operand.kind != ast::ExprKind::Name || !operand.sym || operand.sym->loc.line == 0) return;
  SymKind k = operand.sym->kind;
  if (k != SymKind::Local && k != SymKind::Param) return;
  d.note(operand.sym->loc, "`" + operand.text + "` declared here as " + type_name(operand.sym->type));
}

}  // namespace wo::sema
