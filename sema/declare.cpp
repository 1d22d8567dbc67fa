// Declaration collection: classes, records and functions of every file, the
// predeclared Error record, declared types, duplicates (WO-E214/E215) and the
// declaration forms woc does not implement yet.
#include <algorithm>
#include <set>

#include "common/namespaces.h"
#include "sema/checker.h"
#include "sema/ownership.h"
#include "sema/sema.h"

namespace wo::sema {

namespace {
Loc at(const Span& s) { return s.begin; }

std::string link_prefix(const std::string& module) {
  std::string p = "wo.";
  for (char c : module) p += (c == '/') ? '.' : c;
  if (!module.empty()) p += '.';
  return p;
}
}  // namespace

// The runtime builds these records (language.md §11.3, builtins.md §11): their
// field order is a runtime contract and matches the C structs of wo_runtime.h.
void Checker::declare_predeclared() {
  struct Field { const char* name; const Type* type; };
  auto record = [&](const char* name, std::vector<Field> fields) {
    auto cls = std::make_unique<ClassInfo>();
    cls->name = name;
    cls->predeclared = true;
    cls->type = types_.class_type(cls.get());
    for (auto& f : fields) {
      FieldInfo fi;
      fi.name = f.name;
      fi.type = f.type;
      fi.sym = std::make_unique<Symbol>(Symbol{SymKind::Field, f.name, f.type});
      fi.sym->cls = cls.get();
      fi.sym->field_index = (int)cls->fields.size();
      cls->fields.push_back(std::move(fi));
    }
    cls->sym = std::make_unique<Symbol>(Symbol{SymKind::Class, name});
    cls->sym->cls = cls.get();
    predeclared_[name] = cls.get();
    info_.classes.push_back(std::move(cls));
    return info_.classes.back().get();
  };
  const Type* I = types_.int_();
  const Type* T = types_.text();
  info_.error_class = record("Error", {{"code", I}, {"line", I}, {"method", T}, {"msg", T}});
  record("Stat", {{"size", I}, {"mtime", I}, {"inode", I}, {"dir", types_.bool_()}});
  record("TimeParts", {{"year", I}, {"month", I}, {"day", I}, {"hour", I}, {"minute", I}, {"second", I}, {"dow", I}});
  record("Proc", {{"code", I}, {"out", T}, {"err", T}});
  const Type* B = types_.bool_();
  record("RawRequest", {{"status", I}, {"method", T}, {"target", T}, {"headers", types_.map_of(T, T)},
                        {"body", T}, {"rest", T}, {"keep_alive", B}, {"error", T}});
  record("RawResponse", {{"status", I}, {"reason", T}, {"headers", types_.map_of(T, T)}, {"body", T}, {"rest", T},
                         {"keep_alive", B}, {"error", T}});
}

void Checker::declare_uses(ast::File& file, const std::string&) {
  auto& list = uses_[file.file_id];
  for (auto& u : file.uses) {
    UseEntry e;
    e.path = u.joined();
    e.alias = u.path.empty() ? "" : u.path.back();
    e.is_using = u.is_using;
    e.loc = at(u.span);
    if (u.path.size() == 1 && wo::is_stdlib_namespace(e.path)) {
      e.stdlib = true;
    } else if (!modules_.count(e.path) || e.path.empty()) {
      error(DiagCode::E216, e.loc, "unknown module `" + e.path + "`: no such directory in the program and not a standard-library namespace");
      continue;
    }
    list.push_back(e);
  }
}

Checker::UseEntry* Checker::find_alias(const std::string& alias) {
  auto it = uses_.find(cur_file_);
  if (it == uses_.end()) return nullptr;
  for (auto& u : it->second)
    if (u.alias == alias) return &u;
  return nullptr;
}

// The lookup of a bare name in a call or constructor position (§5.4): the
// current module, then the `pub` declarations of the used modules (E218 when
// several export it), and E210 when only a module this file does not use has it.
template <class T>
T* Checker::resolve_gated(std::map<std::string, T*> ModuleScope::*decls, const std::string& name, Loc loc, bool report,
                          bool (*is_pub)(const T*), bool report_unused) {
  auto& here = modules_[cur_module_].*decls;
  if (auto it = here.find(name); it != here.end()) return it->second;
  T* found = nullptr;
  UseEntry* via = nullptr;
  for (auto& u : uses_[cur_file_]) {
    if (u.stdlib) continue;
    auto& there = modules_[u.path].*decls;
    auto it = there.find(name);
    if (it == there.end() || !is_pub(it->second)) continue;
    if (found && found != it->second) {
      via->used = u.used = true;  // both uses were meant; the call is what is wrong
      if (report)
        error(DiagCode::E218, loc, "`" + name + "` is exported by both `" + via->path + "` and `" + u.path +
                                       "`: qualify it (`" + u.alias + "." + name + "`) to choose");
      return found;
    }
    found = it->second;
    via = &u;
  }
  if (found) {
    via->used = true;
    return found;
  }
  if (!report || !report_unused) return nullptr;
  for (auto& [path, m] : modules_) {
    auto& there = m.*decls;
    if (path == cur_module_ || !there.count(name)) continue;
    error(DiagCode::E210, loc, "`" + name + "` is declared in module `" + (path.empty() ? "<main>" : path) +
                                   "`, which this file does not `use`");
    return there[name];
  }
  return nullptr;
}

FnInfo* Checker::resolve_fn(const std::string& name, Loc loc, bool report) {
  // A builtin of the same name is the fallback: no E210 for it (E218 still applies).
  return resolve_gated(&ModuleScope::fns, name, loc, report, +[](const FnInfo* f) { return f->decl->is_pub; },
                       !is_builtin_name(name));
}

ClassInfo* Checker::resolve_ctor_class(const std::string& name, Loc loc) {
  return resolve_gated(&ModuleScope::classes, name, loc, true, +[](const ClassInfo* c) { return c->is_pub; });
}

// `using m`: a pub free fn of m whose first parameter is exactly the receiver's type.
FnInfo* Checker::find_extension(const Type* recv, const std::string& name) {
  for (auto& u : uses_[cur_file_]) {
    if (!u.is_using || u.stdlib) continue;
    auto& m = modules_[u.path];
    auto it = m.fns.find(name);
    if (it == m.fns.end() || !it->second->decl->is_pub) continue;
    FnInfo* fn = it->second;
    if (!fn->params.empty() && fn->params[0]->type == recv) {
      u.used = true;
      return fn;
    }
  }
  return nullptr;
}

void Checker::check_using_collisions() {
  for (auto& [file, list] : uses_) {
    for (auto& u : list) {
      if (!u.is_using || u.stdlib) continue;
      for (auto& [name, fn] : modules_[u.path].fns) {
        if (!fn->decl->is_pub || fn->params.empty()) continue;
        const Type* t = fn->params[0]->type;
        if (t->kind == TypeKind::Class && t->cls->method(name))
          error(DiagCode::E220, u.loc, "extension `" + name + "` from `" + u.path + "` collides with the method `" +
                                           t->cls->name + "." + name + "` (extensions never override methods)");
      }
    }
  }
}

void Checker::warn_unused_uses() {
  for (auto& [file, list] : uses_)
    for (auto& u : list)
      if (!u.used) diags_.report(DiagCode::W202, u.loc, "`use " + u.path + "` is never used in this file");
}

void Checker::declare_union(ast::UnionDecl& decl, const std::string& module) {
  auto u = std::make_unique<UnionInfo>();
  u->name = decl.name;
  u->module = module;
  u->decl = &decl;
  u->type = types_.union_type(u.get());
  for (auto& vd : decl.variants) {
    VariantInfo v;
    v.name = vd.name;
    v.index = (int)u->variants.size();
    v.decl = &vd;
    if (!vd.payload.empty()) u->has_payload = true;
    u->variants.push_back(std::move(v));
  }
  for (auto& v : u->variants) {
    v.sym = std::make_unique<Symbol>(Symbol{SymKind::Variant, v.name, u->type});
    v.sym->uni = u.get();
    v.sym->variant = v.index;
    v.sym->loc = at(v.decl->span);
    if (!variants_by_name_.count(v.name)) variants_by_name_[v.name] = &v;
  }
  if (!unions_by_name_.count(u->name)) unions_by_name_[u->name] = u.get();
  info_.unions.push_back(std::move(u));
}

void Checker::declare_interface(ast::InterfaceDecl& decl, const std::string& module) {
  auto i = std::make_unique<InterfaceInfo>();
  i->name = decl.name;
  i->module = module;
  i->decl = &decl;
  i->type = types_.interface_type(i.get());
  if (!interfaces_by_name_.count(i->name)) interfaces_by_name_[i->name] = i.get();
  info_.interfaces.push_back(std::move(i));
}

void Checker::resolve_union(UnionInfo& u) {
  for (auto& v : u.variants) {
    for (auto& fd : v.decl->payload) {
      FieldInfo f;
      f.name = fd.name;
      f.decl = &fd;
      f.type = resolve_type(fd.type.get());
      v.payload.push_back(std::move(f));
    }
  }
}

void Checker::resolve_interface(InterfaceInfo& i) {
  for (auto& sig : i.decl->methods) {
    IfaceMethodInfo m;
    m.name = sig.name;
    m.sig = &sig;
    m.ret = resolve_type(sig.ret.get());
    for (auto& p : sig.params) m.params.push_back(resolve_type(p.type.get()));
    m.sym = std::make_unique<Symbol>(Symbol{SymKind::IfaceMethod, sig.name});
    m.sym->iface = &i;
    m.sym->method_index = (int)i.methods.size();
    i.methods.push_back(std::move(m));
  }
}

bool Checker::satisfies(const ClassInfo& cls, const InterfaceInfo& i, std::string* why) {
  return sema::satisfies(cls, i, why);
}

bool satisfies(const ClassInfo& cls, const InterfaceInfo& i, std::string* why) {
  for (auto& m : i.methods) {
    FnInfo* fn = cls.method(m.name);
    if (!fn || fn->is_static) {
      if (why) *why = "`" + cls.name + "` has no method `" + m.name + "` required by `" + i.name + "`";
      return false;
    }
    bool same = fn->params.size() == m.params.size() && fn->ret == m.ret;
    for (size_t k = 0; same && k < m.params.size(); ++k) same = fn->params[k]->type == m.params[k];
    if (!same) {
      if (why) *why = "`" + cls.name + "." + m.name + "` does not match the signature required by `" + i.name + "`";
      return false;
    }
  }
  return true;
}

void Checker::declare_file(ast::File& file, const std::string& module) {
  auto add_class = [&](const std::string& name, const Span& span, const ast::ClassDecl* decl,
                       const ast::RecordDecl* rec) {
    auto cls = std::make_unique<ClassInfo>();
    cls->name = name;
    cls->module = module;
    cls->decl = decl;
    cls->record = rec;
    cls->type = types_.class_type(cls.get());
    cls->sym = std::make_unique<Symbol>(Symbol{SymKind::Class, name});
    cls->sym->cls = cls.get();
    cls->sym->loc = at(span);
    if (!classes_by_name_.count(name)) classes_by_name_[name] = cls.get();
    if (!modules_[module].classes.count(name)) modules_[module].classes[name] = cls.get();
    info_.classes.push_back(std::move(cls));
    return info_.classes.back().get();
  };
  for (auto& c : file.classes) {
    ClassInfo* cls = add_class(c->name, c->span, c.get(), nullptr);
    for (auto& a : c->annotations) {
      if (a.name != "table") continue;
      if (cls->is_table) {
        error(DiagCode::E102, at(a.span), "`" + c->name + "` has two `@table` annotations; give every argument in one");
        continue;
      }
      cls->is_table = true;
      cls->table_name = a.table_name.value_or(c->name);
      cls->durable = a.durable.value_or(true);
      cls->resident_keys = a.resident.value_or("all") == "keys";
      // Rows read back from the log (runtime.md §1.15) are not implemented:
      // refused rather than silently kept in RAM (docs/decisions/0017).
      // With `durable: false` the parser's WO-E102 already covers it.
      if (cls->resident_keys && cls->durable)
        error(DiagCode::E403, at(a.resident_span),
              "`resident: keys` is not implemented yet in woc (rows would stay in RAM); drop it to keep the default "
              "`resident: all`");
    }
    cls->is_pub = c->is_pub;
    for (auto& m : c->methods) declare_fn(*m, cls, module, file.file_id);
  }
  for (auto& r : file.records) add_class(r->name, r->span, nullptr, r.get())->is_pub = r->is_pub;
  for (auto& u : file.unions) declare_union(*u, module);
  for (auto& i : file.interfaces) declare_interface(*i, module);
  for (auto& f : file.fns) {
    FnInfo* fn = declare_fn(*f, nullptr, module, file.file_id);
    if (!modules_[module].fns.count(fn->name)) modules_[module].fns[fn->name] = fn;
    if (module.empty() && !fns_by_name_.count(fn->name)) fns_by_name_[fn->name] = fn;
  }
}

FnInfo* Checker::declare_fn(ast::FnDecl& decl, ClassInfo* owner, const std::string& module, uint32_t file) {
  auto fn = std::make_unique<FnInfo>();
  fn->module = module;
  fn->file = file;
  fn->name = decl.sig.name;
  fn->decl = &decl;
  fn->owner = owner;
  fn->is_static = decl.is_static;
  fn->link_name = link_prefix(module) + (owner ? owner->name + "." : "") + fn->name;
  SymKind k = !owner ? SymKind::Fn : (decl.is_static ? SymKind::StaticFn : SymKind::Method);
  fn->sym = std::make_unique<Symbol>(Symbol{k, fn->name});
  fn->sym->fn = fn.get();
  fn->sym->cls = owner;
  fn->sym->loc = at(decl.sig.span);
  decl.sym = fn->sym.get();
  FnInfo* raw = fn.get();
  if (owner)
    owner->methods.push_back(std::move(fn));
  else
    info_.fns.push_back(std::move(fn));
  return raw;
}

const Type* Checker::resolve_type(const ast::TypeExpr* t) {
  if (!t) return types_.void_();
  Loc loc = at(t->span);
  if (t->nullable && t->kind == ast::TypeExpr::Backlink) {
    error(DiagCode::E225, loc, "`?backlink " + t->name + "." + t->second +
                                   "`: a backlink is the set of referring rows and is never nil; drop the `?`");
    ast::TypeExpr plain = *t;  // go on as if the `?` were not there: no cascade in constructors
    plain.nullable = false;
    return resolve_type(&plain);
  }
  if (t->nullable) {
    ast::TypeExpr plain = *t;
    plain.nullable = false;
    return types_.nullable(resolve_type(&plain));
  }
  auto named = [&](const std::string& n) -> const Type* {
    auto u = unions_by_name_.find(n);
    if (u != unions_by_name_.end()) return u->second->type;
    auto i = interfaces_by_name_.find(n);
    if (i != interfaces_by_name_.end()) return i->second->type;
    if (n == "Int") return types_.int_();
    if (n == "Float") return types_.float_();
    if (n == "Bool") return types_.bool_();
    if (n == "Text") return types_.text();
    if (n == "Timestamp") return types_.timestamp();
    if (n == "Id") return types_.id();
    if (ClassInfo* c = find_class(n)) return c->type;
    if (n == "Dynamic" || n == "untyped") {
      error(DiagCode::E225, loc,
            "`" + n + "` is not a type: .wo has no dynamic typing; declare a class, record or union instead");
      return types_.poison();
    }
    if (n == "Bytes") return types_.bytes();
    error(DiagCode::E225, loc, "unknown type name `" + n + "`").with_span(Span{loc, static_cast<uint32_t>(n.size())}).hint(type_help(n));
    return types_.poison();
  };
  switch (t->kind) {
    case ast::TypeExpr::Named:
      if (!t->qualifier.empty()) {
        if (t->qualifier == "json" && t->name == "Value") return types_.json_value();
        if (t->qualifier == "net" && t->name == "Conn") return types_.int_();  // a plain fd (builtins.md §11)
        error(DiagCode::E225, loc, "unknown type name `" + t->qualifier + "." + t->name + "`");
        return types_.poison();
      }
      return named(t->name);
    case ast::TypeExpr::Multi: {
      const Type* e = named(t->name);
      if (e->is_poison()) return e;
      return types_.list_of(e);
    }
    case ast::TypeExpr::Map: {
      const Type* k = named(t->name);
      const Type* v = named(t->second);
      if (k->is_poison() || v->is_poison()) return types_.poison();
      if (!k->is_int_like() && k->kind != TypeKind::Text) {
        error(DiagCode::E225, loc, "map keys are Int or Text, not " + type_name(k));
        return types_.poison();
      }
      return types_.map_of(k, v);
    }
    case ast::TypeExpr::Ref: {
      const Type* target = named(t->name);
      if (target->is_poison()) return target;
      if (target->kind != TypeKind::Class || !target->cls->is_table) {
        error(DiagCode::E225, loc, "`ref " + t->name + "`: `" + t->name + "` is not a @table class");
        return types_.poison();
      }
      return target;  // a row value is its id: `ref C` and `C` are the same handle
    }
    case ast::TypeExpr::Backlink: {
      // A computed field of a table class (§7.8): resolve_table fills it in.
      // Anywhere else nothing would, so it is not silently a `multi C` (but
      // goes on as one, so that its uses are checked without a cascade).
      if (!table_field_type_) {
        error(DiagCode::E225, loc, "`backlink " + t->name + "." + t->second +
                                       "` is only the type of a field of a @table class; use `multi " + t->name +
                                       "` here");
        const Type* elem = named(t->name);
        return elem->is_poison() ? elem : types_.list_of(elem);
      }
      const Type* source = named(t->name);
      if (source->is_poison()) return source;
      if (source->kind != TypeKind::Class || !source->cls->is_table) {
        error(DiagCode::E225, loc, "`backlink " + t->name + "." + t->second + "`: `" + t->name + "` is not a @table class");
        return types_.poison();
      }
      return types_.list_of(source);  // the referring rows; resolved in resolve_table
    }
    case ast::TypeExpr::Actor: {
      // `actor M` (§7.9): M is what some class's `receive` takes — a class,
      // record or union (a @table row is an id, not a message).
      const Type* msg = named(t->name);
      if (msg->is_poison()) return msg;
      if (!message_type_ok(msg)) {
        error(DiagCode::E225, loc, "`actor " + t->name + "`: a message type is a class, record or union, not " +
                                       type_name(msg));
        return types_.poison();
      }
      return types_.actor_of(msg);
    }
  }
  return types_.poison();
}

void Checker::resolve_class_fields(ClassInfo& cls) {
  const std::vector<ast::FieldDecl>* decls = cls.decl ? &cls.decl->fields : cls.record ? &cls.record->fields : nullptr;
  if (!decls) return;
  std::set<std::string> seen;
  for (auto& d : *decls) {
    FieldInfo f;
    f.name = d.name;
    f.decl = &d;
    f.pub_read = d.pub_read;
    table_field_type_ = cls.is_table;
    f.type = resolve_type(d.type.get());
    table_field_type_ = false;
    if (d.optional_marker) f.type = types_.nullable(f.type);
    if (!seen.insert(d.name).second) {
      Diagnostic& dup = error(DiagCode::E215, at(d.span), "field `" + d.name + "` is declared twice in `" + cls.name + "`");
      if (const FieldInfo* first = cls.field(d.name); first && first->sym) dup.note(first->sym->loc, "first declared here");
    }
    f.sym = std::make_unique<Symbol>(Symbol{SymKind::Field, d.name, f.type});
    f.sym->cls = &cls;
    f.sym->field_index = (int)cls.fields.size();
    f.sym->loc = at(d.span);
    for (auto& a : d.annotations)
      if (a.name == "unique") f.unique = true;
    cls.fields.push_back(std::move(f));
  }
}

// Table classes: stored columns, backlinks, declared indexes, WO-E224, and the
// position in the store's schema.
void Checker::resolve_table(ClassInfo& cls) {
  if (!cls.is_table) return;
  cls.db_index = table_count_++;
  int column = 0;
  for (auto& f : cls.fields) {
    const ast::TypeExpr* te = f.decl ? f.decl->type.get() : nullptr;
    if (te && te->kind == ast::TypeExpr::Backlink) {
      if (f.type->is_poison()) continue;
      ClassInfo* src = f.type->elem->cls;
      int fi = src->field_index(te->second);
      const Type* want = cls.type;
      if (fi < 0 || src->fields[fi].type->base() != want) {
        error(DiagCode::E225, at(f.decl->span), "`backlink " + te->name + "." + te->second + "` needs `" + te->name + "." +
                                                  te->second + "` to be a `ref " + cls.name + "` field");
        continue;
      }
      f.backlink_cls = src;
      f.backlink_field = fi;
      continue;
    }
    f.column = column++;
    const Type* b = f.type->base();
    std::string why;
    if (!storable(f.type, true, &why))
      error(DiagCode::E403, at(f.decl->span), "a field of type " + type_name(f.type) + " cannot be stored: " + why);
    if (f.unique && (b->kind == TypeKind::List || b->kind == TypeKind::Map))
      error(DiagCode::E102, at(f.decl->span), "`@unique` on `" + f.name + "`: a container field cannot be indexed");
    if (b->kind == TypeKind::Class && b->cls->is_table && cls.durable && !b->cls->durable)
      error(DiagCode::E224, at(f.decl->span), "durable table `" + cls.name + "` refers to `" + b->cls->name +
                                                  "`, which is `durable: false`: the id would dangle after a restart");
  }
  for (auto& a : cls.decl->annotations) {
    if (a.name != "table") continue;
    for (size_t k = 0; k < a.indexes.size(); ++k) {
      std::vector<int> cols;
      for (auto& name : a.indexes[k]) {
        int fi = cls.field_index(name);
        if (fi < 0 || cls.fields[fi].column < 0) {
          error(DiagCode::E102, at(a.span), "`index:` names `" + name + "`, which is not a stored field of `" + cls.name + "`");
          cols.clear();
          break;
        }
        const Type* fb = cls.fields[fi].type->base();
        if (fb->kind == TypeKind::List || fb->kind == TypeKind::Map) {
          error(DiagCode::E102, at(a.span), "`index:` names `" + name + "`, a container field: it cannot be indexed");
          cols.clear();
          break;
        }
        cols.push_back(fi);
      }
      if (!cols.empty()) cls.indexes.push_back(cols);
    }
  }
}

void Checker::resolve_signature(FnInfo& fn) {
  auto& sig = fn.decl->sig;
  fn.ret = resolve_type(sig.ret.get());
  for (auto& p : sig.params) {
    const Type* t = resolve_type(p.type.get());
    auto sym = std::make_unique<Symbol>(Symbol{SymKind::Param, p.name, t, at(p.span)});
    sym->conv = p.conv;
    p.sym = sym.get();
    fn.params.push_back(sym.get());
    fn.locals.push_back(std::move(sym));
  }
  if (fn.owner && !fn.is_static) {
    fn.self = std::make_unique<Symbol>(Symbol{SymKind::Self, "self", fn.owner->type});
    fn.self->cls = fn.owner;
  }
}

bool Checker::check_duplicates() {
  // WO-E215: the same name twice in one file; WO-E214: a class name in two files.
  bool type_clash = false;
  // A constant declared again (in its module, or in its class): every use
  // takes the first one's value (frontend/const_subst.cpp), WO-W204 here.
  auto const_once = [&](std::map<std::string, Loc>& seen, const ast::ConstDecl& k, const std::string& where) {
    auto [it, first] = seen.emplace(k.name, at(k.span));
    if (!first)
      diags_.report(DiagCode::W204, at(k.span),
                    "constant `" + k.name + "` is declared again in " + where +
                        "; every use takes the first declaration's value, so this one has no effect")
          .related.push_back({it->second, "the declaration in use"});
  };
  struct TypeSeen {
    uint32_t file;
    Loc loc;
    const char* what;
    const ast::Module* mod;
  };
  std::map<std::string, TypeSeen> class_seen;
  for (auto& mod : prog_.modules) {
    // A fn or constant of the same name in two files of one module is legal
    // (diagnostics.md: free fns are not checked across files) but only the
    // first by path is ever reached: WO-W204, so it is not silent
    // (docs/decisions/0095).
    std::map<std::string, Loc> module_fns;
    std::map<std::string, Loc> module_consts;
    for (auto& file : mod->files) {
      for (auto& k : file->consts) const_once(module_consts, k, "this module");
      std::map<std::string, Loc> types_here, fns_here;
      auto type_name_once = [&](const std::string& n, const Span& s, const char* what) {
        if (types_here.count(n)) {
          error(DiagCode::E215, at(s), std::string(what) + " `" + n + "` is declared twice in this file")
              .related.push_back({types_here[n], "first declared here"});
          return;
        }
        types_here[n] = at(s);
        // Type names resolve program-wide (language.md §5.4), so a duplicate
        // in another file is E214 wherever that file is.
        auto it = class_seen.find(n);
        if (it != class_seen.end() && it->second.file != file->file_id) {
          type_clash = true;
          const TypeSeen& first = it->second;
          if (mod->dependency.empty() != first.mod->dependency.empty()) {
            // The program's own type against a dependency's (the framework's
            // `Route`): said at the program's declaration, the one its
            // author can rename.
            const bool first_is_own = first.mod->dependency.empty();
            const ast::Module& dep = first_is_own ? *mod : *first.mod;
            const char* own_what = first_is_own ? first.what : what;
            error(DiagCode::E214, first_is_own ? first.loc : at(s),
                  std::string(own_what) + " `" + n + "` is also declared in `" + dep.path + "`, a module of `" +
                      dep.dependency + "` that this program uses; type names are program-wide (language.md §5.4)")
                .hint("rename this " + std::string(own_what))
                .related.push_back({first_is_own ? at(s) : first.loc, "declared here"});
          } else {
            error(DiagCode::E214, at(s), std::string(what) + " `" + n + "` is already declared in another file")
                .related.push_back({first.loc, "first declared here"});
          }
        } else if (it == class_seen.end()) {
          class_seen[n] = {file->file_id, at(s), what, mod.get()};
        }
      };
      for (auto& c : file->classes) type_name_once(c->name, c->span, "class");
      for (auto& r : file->records) type_name_once(r->name, r->span, "record");
      for (auto& i : file->interfaces) type_name_once(i->name, i->span, "interface");
      for (auto& u : file->unions) type_name_once(u->name, u->span, "union");
      std::map<std::string, Loc> variants_here;
      for (auto& u : file->unions)
        for (auto& v : u->variants) {
          if (variants_here.count(v.name)) {
            error(DiagCode::E215, at(v.span), "variant `" + v.name + "` is declared twice in this file")
                .related.push_back({variants_here[v.name], "first declared here"});
            continue;
          }
          variants_here[v.name] = at(v.span);
        }
      for (auto& f : file->fns) {
        if (fns_here.count(f->sig.name)) {
          error(DiagCode::E215, at(f->sig.span), "fn `" + f->sig.name + "` is declared twice in this file")
              .related.push_back({fns_here[f->sig.name], "first declared here"});
          continue;
        }
        fns_here[f->sig.name] = at(f->sig.span);
        auto [it, first] = module_fns.emplace(f->sig.name, at(f->sig.span));
        if (!first)  // an earlier file's: fns_here caught this file's
          diags_.report(DiagCode::W204, at(f->sig.span),
                        "fn `" + f->sig.name + "` is also declared in another file of this module; calls reach "
                        "that one (the first file by path), so this one is never called")
              .related.push_back({it->second, "the fn calls reach"});
      }
      for (auto& c : file->classes) {
        std::map<std::string, Loc> class_consts;
        for (auto& k : c->consts) const_once(class_consts, k, "`" + c->name + "`");
        std::map<std::string, Loc> methods;
        for (auto& m : c->methods) {
          if (methods.count(m->sig.name)) {
            error(DiagCode::E215, at(m->sig.span),
                  "method `" + m->sig.name + "` is declared twice in `" + c->name + "`");
            continue;
          }
          methods[m->sig.name] = at(m->sig.span);
        }
      }
    }
  }
  return !type_clash;
}

ClassInfo* Checker::find_class(const std::string& name) {
  auto it = classes_by_name_.find(name);
  if (it != classes_by_name_.end()) return it->second;  // a program's own `Error` shadows the predeclared one
  auto p = predeclared_.find(name);
  return p == predeclared_.end() ? nullptr : p->second;
}

VariantInfo* Checker::find_variant(const std::string& name) {
  auto it = variants_by_name_.find(name);
  return it == variants_by_name_.end() ? nullptr : it->second;
}

FnInfo* Checker::find_fn(const std::string& name) {
  auto it = fns_by_name_.find(name);
  return it == fns_by_name_.end() ? nullptr : it->second;
}

void Checker::run() {
  info_.program = &prog_;
  declare_predeclared();
  // Two declarations of one type name leave every use of it ambiguous: the
  // reference's driver stops at WO-E214 (diagnostics.md), and so do we,
  // rather than check the other module's code against the wrong class.
  if (!check_duplicates()) return;
  for (auto& mod : prog_.modules) modules_[mod->path];
  for (auto& mod : prog_.modules)
    for (auto& file : mod->files) declare_file(*file, mod->path);
  for (auto& mod : prog_.modules)
    for (auto& file : mod->files) declare_uses(*file, mod->path);
  for (auto& cls : info_.classes) resolve_class_fields(*cls);
  for (auto& cls : info_.classes) resolve_table(*cls);
  for (auto& u : info_.unions) resolve_union(*u);
  for (auto& i : info_.interfaces) resolve_interface(*i);
  for (auto& fn : info_.fns) resolve_signature(*fn);
  for (auto& cls : info_.classes)
    for (auto& m : cls->methods) resolve_signature(*m);
  for (auto& cls : info_.classes)
    for (auto& f : cls->fields)
      if (f.decl && f.decl->default_value) check_field_default(f, *cls);
  for (auto& fn : info_.fns) check_fn(*fn);
  for (auto& cls : info_.classes)
    for (auto& m : cls->methods) check_fn(*m);
  check_using_collisions();
  check_stored_classes();
  if (!prog_.library) check_main();  // a wo.toml kind = "library" needs no entry point
  warn_unused_uses();
  if (!diags_.has_errors()) check_crossings_again(check_ownership(info_, diags_));
}

std::unique_ptr<ProgramInfo> analyze(ast::Program& program, Diagnostics& diags) {
  auto info = std::make_unique<ProgramInfo>();
  Checker(program, diags, *info).run();
  return info;
}

}  // namespace wo::sema
