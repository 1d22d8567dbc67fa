// Module-level lowering: runtime declarations (from common/builtins.def and
// runtime/include/wo_runtime.h), class layouts and destroy functions, text
// literals, trap sites, and the two entry points (wo_main_entry, C main).
#include <llvm/TargetParser/Triple.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/emitter.h"

namespace wo::codegen {

Emitter::Emitter(const sema::ProgramInfo& prog, llvm::LLVMContext& ctx, const Options& opts)
    : prog_(prog), ctx_(ctx), opts_(opts), mod_(std::make_unique<llvm::Module>("wo", ctx)), b_(ctx) {
  i64_ = b_.getInt64Ty();
  i1_ = b_.getInt1Ty();
  f64_ = b_.getDoubleTy();
  ptr_ = b_.getPtrTy();
  site_type_ = llvm::StructType::create(ctx_, {ptr_, i64_, ptr_, i64_}, "WoSite");
  for (auto& c : prog_.classes) any_traced_ |= c->traced;
  if (any_traced_) find_aliasable_classes();
}

llvm::Type* Emitter::llvm_type(const Type* t) {
  switch (t->kind) {
    case TypeKind::Int:
    case TypeKind::Timestamp:
    case TypeKind::Id: return i64_;
    case TypeKind::Actor: return ptr_;  // an address: a counted handle (wo_actor.h, decision 0079)
    case TypeKind::Float: return f64_;
    case TypeKind::Bool: return i1_;
    case TypeKind::Void: return b_.getVoidTy();
    case TypeKind::Union: return t->uni->has_payload ? static_cast<llvm::Type*>(ptr_) : i64_;
    case TypeKind::Nullable:
      // ?T: heap values use null; Float a reserved NaN; every other scalar an i64 with a sentinel.
      if (t->elem->is_heap()) return ptr_;
      if (t->elem->kind == TypeKind::Float) return f64_;
      return i64_;
    case TypeKind::Bytes:
    case TypeKind::Map: return ptr_;
    case TypeKind::Class: return t->cls->is_table ? static_cast<llvm::Type*>(i64_) : ptr_;  // a row is its id
    default: return ptr_;
  }
}

const ClassLayout& Emitter::variant_layout(const sema::UnionInfo* u, int v) {
  auto key = std::make_pair(u, v);
  auto it = variant_layouts_.find(key);
  if (it != variant_layouts_.end()) return it->second;
  ClassLayout& l = variant_layouts_[key];
  const sema::VariantInfo& vi = u->variants[v];
  std::vector<llvm::Type*> fields = {i64_, ptr_, i64_};
  for (auto& f : vi.payload) fields.push_back(llvm_type(f.type));
  l.type = llvm::StructType::create(ctx_, fields, "variant." + u->name + "." + vi.name);
  auto* ft = llvm::FunctionType::get(b_.getVoidTy(), {ptr_}, false);
  l.destroy = llvm::Function::Create(ft, llvm::Function::InternalLinkage, "wo.destroy." + u->name + "." + vi.name, mod_.get());
  l.destroy->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(ctx_);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", l.destroy));
  for (size_t i = 0; i < vi.payload.size(); ++i) {
    if (!vi.payload[i].type->is_heap()) continue;
    llvm::Value* fp = b.CreateStructGEP(l.type, l.destroy->getArg(0), (unsigned)(i + 3));
    b.CreateCall(release_fn_, {b.CreateLoad(ptr_, fp)});
  }
  b.CreateRetVoid();
  return l;
}

llvm::Constant* Emitter::bare_variant_object(const sema::UnionInfo* u, int v) {
  auto key = std::make_pair(u, v);
  auto it = bare_variants_.find(key);
  if (it != bare_variants_.end()) return it->second;
  auto* ty = llvm::StructType::get(ctx_, {i64_, ptr_, i64_});
  auto* init = llvm::ConstantStruct::get(ty, {b_.getInt64(-1), llvm::ConstantPointerNull::get(ptr_), b_.getInt64(v)});
  auto* gv = new llvm::GlobalVariable(*mod_, ty, true, llvm::GlobalValue::PrivateLinkage, init,
                                      "variant." + u->name + "." + u->variants[v].name);
  gv->setAlignment(llvm::Align(8));
  return bare_variants_[key] = gv;
}

llvm::StructType* Emitter::box_type() {
  if (box_type_) return box_type_;
  box_type_ = llvm::StructType::create(ctx_, {i64_, ptr_, ptr_, ptr_}, "iface.box");
  auto* ft = llvm::FunctionType::get(b_.getVoidTy(), {ptr_}, false);
  box_destroy_ = llvm::Function::Create(ft, llvm::Function::InternalLinkage, "wo.destroy.iface_box", mod_.get());
  box_destroy_->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(ctx_);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", box_destroy_));
  llvm::Value* obj = b.CreateLoad(ptr_, b.CreateStructGEP(box_type_, box_destroy_->getArg(0), 2));
  b.CreateCall(release_fn_, {obj});
  b.CreateRetVoid();
  return box_type_;
}

// Slot 0: the WoClassDesc of `cls` (the runtime deep-copies a box that
// crosses shards by it, WO_TY_IFACE); then the methods of `cls` in the order
// `i` declares them (emit_iface_call adds the 1).
llvm::Constant* Emitter::vtable(const ClassInfo* cls, const sema::InterfaceInfo* i) {
  auto key = std::make_pair(cls, i);
  auto it = vtables_.find(key);
  if (it != vtables_.end()) return it->second;
  std::vector<llvm::Constant*> entries = {class_desc(cls)};
  for (auto& m : i->methods) entries.push_back(fns_.at(cls->method(m.name)));
  auto* ty = llvm::ArrayType::get(ptr_, entries.size());
  auto* gv = new llvm::GlobalVariable(*mod_, ty, true, llvm::GlobalValue::PrivateLinkage,
                                      llvm::ConstantArray::get(ty, entries), "vtable." + cls->name + "." + i->name);
  return vtables_[key] = gv;
}

// The ABI type of a builtins.def type code (a `?` prefix is skipped by the caller).
llvm::Type* Emitter::slot_code_type(char code) {
  switch (code) {
    case 'v': return b_.getVoidTy();
    case 'b': return i1_;
    case 'f': return f64_;
    case 't': case 'T': case 'L': case 'M': case 'y': case '0': case 'A': case 'D': case 'P': case 'Q': case 'W': case 'H': case 'a':
    case 'c':
      return ptr_;
    default: return i64_;  // i n S e K V, and the ?X word
  }
}

llvm::Type* Emitter::result_code_type(std::string_view r) {
  if (r.size() > 1 && r[0] == '?') {
    char c = r[1];
    if (c == 'n' || c == 'b' || c == 'X') return i64_;  // the nullable word
    if (c == 'r') return i1_;                           // call_dl: did a reply come
    if (c == 'f') return f64_;
    return ptr_;
  }
  return slot_code_type(r.empty() ? 'v' : r[0]);
}

namespace {
// Runtime entry points that never unwind (no trap, no allocation).
bool runtime_nounwind(const std::string& n) {
  static const char* names[] = {"wo_retain", "wo_release", "wo_text_eq", "wo_text_cmp", "wo_text_len",
                                "wo_list_len", "wo_starts_with", "wo_ends_with", "wo_index_of",
                                "wo_last_index_of", "wo_float_cmp", "wo_float_of_int", "wo_now",
                                "wo_print", "wo_print_err", "wo_print_int", "wo_time_ticks", "wo_env_stopping",
                                "wo_map_len", "wo_map_has", "wo_map_get_opt", "wo_map_iter", "wo_bytes_len",
                                "wo_bytes_eq", "wo_gc_forget", "wo_gc_register", "wo_tx_abort", "wo_actor_same"};
  for (auto* x : names)
    if (n == x) return true;
  return false;
}
}  // namespace

void Emitter::declare_runtime() {
  auto decl = [&](const std::string& name, llvm::Type* ret, std::vector<llvm::Type*> params, bool noreturn = false) {
    auto* ft = llvm::FunctionType::get(ret, params, false);
    auto* f = llvm::Function::Create(ft, llvm::Function::ExternalLinkage, name, mod_.get());
    if (ret == i1_) f->addRetAttr(llvm::Attribute::ZExt);
    if (noreturn) f->addFnAttr(llvm::Attribute::NoReturn);
    // Two trap calls must not become one: the merged call would carry the
    // common scope of both locations, and a trap's call chain would lose its
    // innermost .wo frame (docs/decisions/0035). Trap paths are cold.
    if (noreturn) f->addFnAttr(llvm::Attribute::NoMerge);
    if (runtime_nounwind(name)) f->addFnAttr(llvm::Attribute::NoUnwind);
    runtime_[name] = f;
  };
  decl("wo_alloc", ptr_, {i64_, ptr_});
  decl("wo_retain", b_.getVoidTy(), {ptr_});
  decl("wo_release", b_.getVoidTy(), {ptr_});
  decl("wo_trap", b_.getVoidTy(), {i64_, ptr_}, true);
  decl("wo_trap_msg", b_.getVoidTy(), {i64_, ptr_, ptr_}, true);
  decl("wo_catch", ptr_, {ptr_});
  decl("wo_start", b_.getInt32Ty(), {b_.getInt32Ty(), ptr_, ptr_});
  decl("wo_concat", ptr_, {ptr_, ptr_});
  decl("wo_text_append", ptr_, {ptr_, ptr_});
  decl("wo_concat_n", ptr_, {ptr_, i64_});
  decl("wo_text_eq", i1_, {ptr_, ptr_});
  decl("wo_text_cmp", i64_, {ptr_, ptr_});
  decl("wo_list_new", ptr_, {i64_, i64_});
  decl("wo_list_set", b_.getVoidTy(), {ptr_, i64_, i64_, ptr_});
  decl("wo_map_new", ptr_, {i64_, i64_});
  decl("wo_alloc_traced", ptr_, {i64_, ptr_});
  // The table store (runtime/include/wo_db.h); uint32_t crosses as i32.
  auto* i32 = b_.getInt32Ty();
  decl("wo_db_boot", b_.getVoidTy(), {ptr_});
  decl("wo_db_close", b_.getVoidTy(), {});
  decl("wo_db_insert", i64_, {i32, ptr_, ptr_});
  decl("wo_db_get", i64_, {i32, i64_, i32, ptr_});
  decl("wo_db_exists", i1_, {i32, i64_});
  decl("wo_db_set", b_.getVoidTy(), {i32, i64_, i32, i64_, ptr_});
  decl("wo_db_delete", b_.getVoidTy(), {i32, i64_, ptr_});
  decl("wo_db_scan", ptr_, {i32, ptr_});
  decl("wo_db_probe", ptr_, {i32, i32, i64_, ptr_});
  decl("wo_db_range", ptr_, {i32, i32, i64_, i64_, i32, i64_, ptr_});
  decl("wo_db_sort", b_.getVoidTy(), {i32, ptr_, i32, i1_, ptr_});
  runtime_["wo_db_sort"]->addParamAttr(3, llvm::Attribute::ZExt);
  decl("wo_db_sort_keys", b_.getVoidTy(), {ptr_, ptr_, i32, i1_, i1_, ptr_});
  runtime_["wo_db_sort_keys"]->addParamAttr(3, llvm::Attribute::ZExt);
  runtime_["wo_db_sort_keys"]->addParamAttr(4, llvm::Attribute::ZExt);
  decl("wo_tx_begin", b_.getVoidTy(), {ptr_});
  decl("wo_tx_commit", b_.getVoidTy(), {ptr_});
  decl("wo_tx_abort", b_.getVoidTy(), {});
  decl("wo_gc_forget", b_.getVoidTy(), {ptr_});
  decl("wo_gc_register", b_.getVoidTy(), {ptr_, ptr_});
  decl("wo_map_get_opt", i64_, {ptr_, i64_});
  decl("wo_map_find", i1_, {ptr_, i64_, ptr_});
  decl("wo_map_iter", i64_, {ptr_, i64_, ptr_, ptr_});
  // Actors (runtime/include/wo_actor.h); send/call/monitor/time.after come
  // from builtins.def below.
  decl("wo_spawn", i64_, {ptr_, ptr_, ptr_});
  decl("wo_actor_same", i1_, {i64_, i64_});
  decl("wo_yield", b_.getVoidTy(), {});
  decl("wo_sched_shutdown", b_.getVoidTy(), {});
  for (auto& bi : sema::builtin_table()) {
    std::string sym(bi.symbol);
    if (runtime_.count(sym)) continue;
    std::vector<llvm::Type*> params;
    for (char c : bi.params) {
      params.push_back(slot_code_type(c));
      if (c == 'a' || c == 'c' || c == 'm') params.push_back(ptr_);  // the value's (the message's) WoTypeDesc
    }
    if (bi.result.find('X') != std::string_view::npos) params.push_back(ptr_);  // the target's WoTypeDesc
    if (bi.result == "?r") params.push_back(ptr_);  // call_dl: where the reply word goes
    if (bi.flags & sema::TRAPS) params.push_back(ptr_);
    decl(sym, result_code_type(bi.result), params);
  }
  llvm::Function::Create(llvm::FunctionType::get(b_.getInt32Ty(), true), llvm::Function::ExternalLinkage,
                         "__gxx_personality_v0", mod_.get());
}

llvm::Function* Emitter::rt(const std::string& name) {
  auto it = runtime_.find(name);
  if (it == runtime_.end()) {
    llvm::errs() << "woc internal error: runtime function " << name << " is not declared\n";
    std::abort();
  }
  return it->second;
}

llvm::Function* Emitter::builtin_fn(const sema::BuiltinSig& b) { return rt(std::string(b.symbol)); }

// Inline fast paths for retain/release: the common case touches only the count.
void Emitter::make_refcount_helpers() {
  auto* ft = llvm::FunctionType::get(b_.getVoidTy(), {ptr_}, false);
  auto make = [&](const char* name, bool is_retain) {
    auto* f = llvm::Function::Create(ft, llvm::Function::InternalLinkage, name, mod_.get());
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilder<> b(ctx_);
    auto* entry = llvm::BasicBlock::Create(ctx_, "entry", f);
    auto* nonnull = llvm::BasicBlock::Create(ctx_, "nonnull", f);
    auto* counted = llvm::BasicBlock::Create(ctx_, "counted", f);
    auto* done = llvm::BasicBlock::Create(ctx_, "done", f);
    llvm::Value* p = f->getArg(0);
    b.SetInsertPoint(entry);
    b.CreateCondBr(b.CreateIsNull(p), done, nonnull);
    b.SetInsertPoint(nonnull);
    llvm::Value* rc = b.CreateLoad(i64_, p, "rc");
    b.CreateCondBr(b.CreateICmpSLT(rc, b.getInt64(0)), done, counted);  // immortal
    b.SetInsertPoint(counted);
    if (is_retain) {
      b.CreateStore(b.CreateAdd(rc, b.getInt64(1)), p);
      b.CreateBr(done);
    } else {
      auto* last = llvm::BasicBlock::Create(ctx_, "last", f, done);
      auto* dec = llvm::BasicBlock::Create(ctx_, "dec", f, done);
      b.CreateCondBr(b.CreateICmpEQ(rc, b.getInt64(1)), last, dec);
      b.SetInsertPoint(last);
      b.CreateCall(rt("wo_release"), {p});
      b.CreateBr(done);
      b.SetInsertPoint(dec);
      b.CreateStore(b.CreateSub(rc, b.getInt64(1)), p);
      b.CreateBr(done);
    }
    b.SetInsertPoint(done);
    b.CreateRetVoid();
    return f;
  };
  retain_fn_ = make("wo.retain", true);
  release_fn_ = make("wo.release", false);
}

const ClassLayout& Emitter::layout(const ClassInfo* cls) {
  auto it = layouts_.find(cls);
  if (it != layouts_.end()) return it->second;
  ClassLayout& l = layouts_[cls];
  std::vector<llvm::Type*> fields = {i64_, ptr_};
  for (auto& f : cls->fields)
    // The runtime's records hold a Bool in a whole int64 slot (wo_runtime.h).
    fields.push_back(cls->predeclared && f.type->kind == TypeKind::Bool ? i64_ : llvm_type(f.type));
  l.type = llvm::StructType::create(ctx_, fields, "class." + cls->name);
  // A predeclared record the runtime builds carries the runtime's destroy; this
  // one is for the copies made from its descriptor (a message deep-copied to
  // another shard, json.decode), which would otherwise leak their heap fields.
  auto* ft = llvm::FunctionType::get(b_.getVoidTy(), {ptr_}, false);
  l.destroy = llvm::Function::Create(ft, llvm::Function::InternalLinkage, "wo.destroy." + cls->name, mod_.get());
  l.destroy->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(ctx_);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", l.destroy));
  llvm::Value* self = l.destroy->getArg(0);
  if (cls->traced) b.CreateCall(rt("wo_gc_forget"), {self});  // no longer a cycle candidate
  for (size_t i = 0; i < cls->fields.size(); ++i) {
    if (!cls->fields[i].type->is_heap()) continue;
    llvm::Value* fp = b.CreateStructGEP(l.type, self, (unsigned)(i + 2));
    b.CreateCall(release_fn_, {b.CreateLoad(ptr_, fp)});
  }
  b.CreateRetVoid();
  return l;
}

// With opaque pointers the global is its first byte's address (no GEP
// constant: CreateGlobalStringPtr's drew a false -Wmaybe-uninitialized from
// gcc 12 inside LLVM's headers in the sanitizer builds).
llvm::Constant* Emitter::c_string(const std::string& s) {
  return b_.CreateGlobalString(s, ".str", 0, mod_.get());
}

// A text literal is an immortal WoText constant: { rc = -1, destroy = null, len, bytes..., NUL }.
llvm::Constant* Emitter::text_literal(const std::string& bytes) {
  auto it = text_literals_.find(bytes);
  if (it != text_literals_.end()) return it->second;
  auto* data = llvm::ConstantDataArray::getString(ctx_, bytes, true);
  auto* ty = llvm::StructType::get(ctx_, {i64_, ptr_, i64_, data->getType()});
  auto* init = llvm::ConstantStruct::get(
      ty, {b_.getInt64(-1), llvm::ConstantPointerNull::get(ptr_), b_.getInt64((int64_t)bytes.size()), data});
  auto* gv = new llvm::GlobalVariable(*mod_, ty, true, llvm::GlobalValue::PrivateLinkage, init, ".text");
  gv->setAlignment(llvm::Align(8));
  gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return text_literals_[bytes] = gv;
}

// WoSite { fn, line, file, col } (wo_runtime.h). The column is the one of the
// node being emitted when the site is on its line (0: unknown).
llvm::Constant* Emitter::site(int64_t line) {
  std::string fn = fn_ ? fn_->name : "?";
  uint32_t col = line == at_.line ? at_.col : 0;
  auto key = std::make_tuple(fn_, line, col);
  auto it = sites_.find(key);
  if (it != sites_.end()) return it->second;
  llvm::Constant* file = fn_ && opts_.sources ? c_string(source_path(fn_->file)) : llvm::ConstantPointerNull::get(ptr_);
  auto* init = llvm::ConstantStruct::get(site_type_, {c_string(fn), b_.getInt64(line), file, b_.getInt64(col)});
  auto* gv = new llvm::GlobalVariable(*mod_, site_type_, true, llvm::GlobalValue::PrivateLinkage, init, ".site");
  return sites_[key] = gv;
}

void Emitter::declare_fns() {
  auto declare = [&](const FnInfo& fn) {
    std::vector<llvm::Type*> params;
    if (fn.self) params.push_back(llvm_type(fn.self->type));  // a table row's self is its id, not a pointer
    for (auto* p : fn.params) params.push_back(llvm_type(p->type));
    auto* ft = llvm::FunctionType::get(llvm_type(fn.ret), params, false);
    auto* f = llvm::Function::Create(ft, llvm::Function::InternalLinkage, fn.link_name, mod_.get());
    f->setUWTableKind(llvm::UWTableKind::Async);
    fns_[&fn] = f;
  };
  for (auto& fn : prog_.fns) declare(*fn);
  for (auto& cls : prog_.classes)
    for (auto& m : cls->methods) declare(*m);
}

// A trace function for the cycle collector: visits every heap slot of an
// object laid out as `type` (fields from `first` on).
llvm::Function* Emitter::make_trace(const std::string& name, llvm::StructType* type, unsigned first,
                                    const std::vector<const Type*>& fields) {
  auto* ft = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_, ptr_}, false);
  auto* f = llvm::Function::Create(ft, llvm::Function::InternalLinkage, "wo.trace." + name, mod_.get());
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(ctx_);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", f));
  auto* visit_ty = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_}, false);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!fields[i]->is_heap()) continue;
    b.CreateCall(visit_ty, f->getArg(1), {b.CreateStructGEP(type, f->getArg(0), (unsigned)(first + i)), f->getArg(2)});
  }
  b.CreateRetVoid();
  return f;
}

// Tells the collector how to walk every generated object that can sit on a
// cycle: traced classes, payload-union variants and interface boxes.
void Emitter::register_traces() {
  llvm::Function* reg = rt("wo_gc_register");
  bool any_traced = false;
  for (auto& cls : prog_.classes) {
    if (!cls->traced) continue;
    any_traced = true;
    const ClassLayout& l = layout(cls.get());
    std::vector<const Type*> fts;
    for (auto& f : cls->fields) fts.push_back(f.type);
    b_.CreateCall(reg, {l.destroy, make_trace(cls->name, l.type, 2, fts)});
  }
  if (!any_traced) return;  // no cycles possible: nothing to walk
  for (auto& [key, l] : variant_layouts_) {
    std::vector<const Type*> fts;
    for (auto& f : key.first->variants[key.second].payload) fts.push_back(f.type);
    b_.CreateCall(reg, {l.destroy, make_trace(key.first->name + "." + key.first->variants[key.second].name, l.type, 3, fts)});
  }
  if (box_type_) {
    auto* tr = llvm::Function::Create(llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_, ptr_}, false),
                                      llvm::Function::InternalLinkage, "wo.trace.iface_box", mod_.get());
    llvm::IRBuilder<> b(ctx_);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", tr));
    auto* visit_ty = llvm::FunctionType::get(b_.getVoidTy(), {ptr_, ptr_}, false);
    b.CreateCall(visit_ty, tr->getArg(1), {b.CreateStructGEP(box_type_, tr->getArg(0), 2), tr->getArg(2)});
    b.CreateRetVoid();
    b_.CreateCall(reg, {box_destroy_, tr});
  }
}

void Emitter::emit_entry_points() {
  const FnInfo* main = prog_.main;
  auto* entry_ty = llvm::FunctionType::get(i64_, {ptr_}, false);
  auto* entry = llvm::Function::Create(entry_ty, llvm::Function::ExternalLinkage, kEntrySymbol, mod_.get());
  entry->setUWTableKind(llvm::UWTableKind::Async);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", entry));
  register_traces();
  emit_schema_boot();  // tables: start-up rules, migration and replay before `main`
  std::vector<llvm::Value*> args;
  if (!main->params.empty()) args.push_back(entry->getArg(0));
  llvm::Value* r = b_.CreateCall(fns_.at(main), args);
  // The program ends when `main` returns (language.md §14.7): the actors
  // are unwound and released before the store closes.
  b_.CreateCall(rt("wo_sched_shutdown"), {});
  bool tables = false;
  for (auto& c : prog_.classes) tables |= c->db_index >= 0;
  if (tables) b_.CreateCall(rt("wo_db_close"), {});
  b_.CreateRet(main->ret->kind == TypeKind::Void ? static_cast<llvm::Value*>(b_.getInt64(0)) : r);

  if (!opts_.with_c_main) return;
  auto* main_ty = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getInt32Ty(), ptr_}, false);
  auto* cmain = llvm::Function::Create(main_ty, llvm::Function::ExternalLinkage, "main", mod_.get());
  cmain->setUWTableKind(llvm::UWTableKind::Async);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", cmain));
  b_.CreateRet(b_.CreateCall(rt("wo_start"), {cmain->getArg(0), cmain->getArg(1), entry}));
}

std::unique_ptr<llvm::Module> Emitter::run() {
  set_target();
  di_begin();
  declare_runtime();
  make_refcount_helpers();
  for (auto& cls : prog_.classes) layout(cls.get());
  declare_fns();
  for (auto& fn : prog_.fns) emit_fn(*fn);
  for (auto& cls : prog_.classes)
    for (auto& m : cls->methods) emit_fn(*m);
  if (prog_.main) emit_entry_points();
  thread_recursion_depth();
  di_finish();
  // Not verified here: the caller does (codegen.h), so that a broken module is
  // reported (woc: exit 2; the fuzzer: a finding) instead of ending the process.
  return std::move(mod_);
}

std::unique_ptr<llvm::Module> lower(const sema::ProgramInfo& program, llvm::LLVMContext& ctx, const Options& opts) {
  return Emitter(program, ctx, opts).run();
}

// Class layouts must match the runtime's C structs (WoError), so the module
// carries the host's triple and data layout from the start.
void Emitter::set_target() {
  std::string triple = llvm::sys::getProcessTriple();
  mod_->setTargetTriple(triple);
  auto arch = llvm::Triple(triple).getArch();
  o0_fast_isel_ = !optimising(opts_.opt_level) && arch == llvm::Triple::x86_64;
  if (optimising(opts_.opt_level) && arch == llvm::Triple::x86_64) sp_register_ = "rsp";
  if (optimising(opts_.opt_level) && arch == llvm::Triple::aarch64) sp_register_ = "sp";
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target) return;
  std::unique_ptr<llvm::TargetMachine> tm(
      target->createTargetMachine(triple, "generic", "", llvm::TargetOptions(), llvm::Reloc::PIC_));
  if (tm) mod_->setDataLayout(tm->createDataLayout());
}

}  // namespace wo::codegen
