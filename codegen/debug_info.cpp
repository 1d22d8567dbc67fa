// DWARF through LLVM's DIBuilder (docs/decisions/0035, 0036).
//
// Every module gets a compile unit, a DIFile per .wo source, a subprogram per
// function and method (named as a .wo programmer writes it: `fib`,
// `Account.deposit`) and a line:column location on every instruction emitted
// for a statement or expression (LocScope). That line table is always there:
// an uncaught trap symbolizes its call chain from it, with or without -g.
// With -g (DebugInfo::Full) parameters and locals are described too, with
// DI types for Int, Float, Bool and Text, so gdb can `info locals`/`print`.
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include "codegen/emitter.h"

namespace wo::codegen {

const std::string& Emitter::source_path(uint32_t file) {
  auto it = source_paths_.find(file);
  if (it != source_paths_.end()) return it->second;
  llvm::SmallString<256> path(opts_.sources && file < opts_.sources->size() ? opts_.sources->get(file).path : "?");
  if (opts_.sources) {
    llvm::sys::fs::make_absolute(path);
    llvm::sys::path::remove_dots(path, true);
  }
  return source_paths_[file] = std::string(path);
}

void Emitter::di_begin() {
  if (!opts_.sources || opts_.sources->size() == 0) return;
  di_ = std::make_unique<llvm::DIBuilder>(*mod_);
  mod_->addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
  mod_->addModuleFlag(llvm::Module::Warning, "Dwarf Version", 5);
  uint32_t main_file = prog_.main ? prog_.main->file : 0;
  // Always FullDebug: a LineTablesOnly unit drops the subprogram of every
  // function with nothing inlined into it, and libbacktrace then has no .wo
  // name for its frames. Without -g it still describes no variable or type.
  auto kind = llvm::DICompileUnit::FullDebug;
  // DW_LANG_C: debuggers have no .wo language; C gives gdb the expression syntax closest to ours.
  // The producer starts with "clang " as rustc's does ("clang LLVM (rustc
  // version …)"): gdb trusts the line table's prologue_end only for LLVM
  // producers, and otherwise `step` into a function stops before its
  // parameters are stored.
  di_cu_ = di_->createCompileUnit(llvm::dwarf::DW_LANG_C, di_file(main_file), "clang LLVM (woc)", optimising(opts_.opt_level),
                                  "", 0, "", kind);
}

llvm::DIFile* Emitter::di_file(uint32_t file) {
  auto it = di_files_.find(file);
  if (it != di_files_.end()) return it->second;
  const std::string& path = source_path(file);
  return di_files_[file] = di_->createFile(llvm::sys::path::filename(path), llvm::sys::path::parent_path(path));
}

void Emitter::di_begin_fn(const FnInfo& fn) {
  di_sp_ = nullptr;
  at_ = fn.decl->span.begin;
  if (!di_) return;
  llvm::DIFile* file = di_file(fn.file);
  unsigned line = fn.decl->span.begin.line;
  std::vector<llvm::Metadata*> types;
  if (opts_.debug == DebugInfo::Full) {
    types.push_back(fn.ret->kind == TypeKind::Void ? nullptr : di_type(fn.ret));
    if (fn.self) types.push_back(di_type(fn.self->type));
    for (auto* p : fn.params) types.push_back(di_type(p->type));
  }
  auto* sub = di_->createSubroutineType(di_->getOrCreateTypeArray(types));
  std::string name = fn.owner ? fn.owner->name + "." + fn.name : fn.name;
  auto flags = llvm::DISubprogram::SPFlagDefinition | llvm::DISubprogram::SPFlagLocalToUnit;
  if (optimising(opts_.opt_level)) flags |= llvm::DISubprogram::SPFlagOptimized;
  // No linkage name: debuggers and symbolizers then show DW_AT_name, the .wo name.
  di_sp_ = di_->createFunction(file, name, "", file, line, sub, line, llvm::DINode::FlagPrototyped, flags);
  llfn_->setSubprogram(di_sp_);
  // The stack check and the parameter stores are line 0: a debugger's
  // prologue_end then falls on the first statement, where the parameters
  // are in their slots (gdb's `step` into a function shows their values).
  b_.SetCurrentDebugLocation(llvm::DILocation::get(ctx_, 0, 0, di_sp_));
}

void Emitter::di_set_loc(const Loc& at) {
  if (at.line == 0) return;
  at_ = at;
  if (di_sp_) b_.SetCurrentDebugLocation(llvm::DILocation::get(ctx_, at.line, at.col, di_sp_));
}

llvm::DIType* Emitter::di_type(const Type* t) {
  auto it = di_types_.find(t);
  if (it != di_types_.end()) return it->second;
  llvm::DIType* out = nullptr;
  switch (t->kind) {
    case TypeKind::Int: out = di_->createBasicType("Int", 64, llvm::dwarf::DW_ATE_signed); break;
    case TypeKind::Timestamp: out = di_->createBasicType("Timestamp", 64, llvm::dwarf::DW_ATE_signed); break;
    case TypeKind::Float: out = di_->createBasicType("Float", 64, llvm::dwarf::DW_ATE_float); break;
    case TypeKind::Bool: out = di_->createBasicType("Bool", 8, llvm::dwarf::DW_ATE_boolean); break;
    case TypeKind::Text: {
      // A pointer to the runtime's WoText (wo_runtime.h): { WoHeader h; int64_t len; char bytes[]; }.
      // `print *s` shows len and the characters; `print s->bytes` the characters alone.
      llvm::DIFile* file = di_cu_->getFile();
      auto* i64 = di_->createBasicType("int64_t", 64, llvm::dwarf::DW_ATE_signed);
      auto* chr = di_->createBasicType("char", 8, llvm::dwarf::DW_ATE_signed_char);
      auto* vptr = di_->createPointerType(nullptr, 64);
      auto* header = di_->createStructType(
          di_cu_, "WoHeader", file, 0, 128, 64, llvm::DINode::FlagZero, nullptr,
          di_->getOrCreateArray({di_->createMemberType(di_cu_, "rc", file, 0, 64, 64, 0, llvm::DINode::FlagZero, i64),
                                 di_->createMemberType(di_cu_, "destroy", file, 0, 64, 64, 64, llvm::DINode::FlagZero,
                                                       vptr)}));
      auto* bytes = di_->createArrayType(0, 8, chr, di_->getOrCreateArray({di_->getOrCreateSubrange(0, -1)}));
      auto* text = di_->createStructType(
          di_cu_, "WoText", file, 0, 192, 64, llvm::DINode::FlagZero, nullptr,
          di_->getOrCreateArray(
              {di_->createMemberType(di_cu_, "h", file, 0, 128, 64, 0, llvm::DINode::FlagZero, header),
               di_->createMemberType(di_cu_, "len", file, 0, 64, 64, 128, llvm::DINode::FlagZero, i64),
               di_->createMemberType(di_cu_, "bytes", file, 0, 0, 8, 192, llvm::DINode::FlagZero, bytes)}));
      out = di_->createTypedef(di_->createPointerType(text, 64), "Text", file, 0, di_cu_);
      break;
    }
    case TypeKind::Class:
      if (!t->cls->is_table) {
        out = di_class(t);
        break;
      }
      [[fallthrough]];  // a row is its id
    default: {
      // Other values are words or pointers to runtime objects: shown as such.
      llvm::Type* ty = llvm_type(t);
      out = ty->isPointerTy() ? static_cast<llvm::DIType*>(di_->createPointerType(nullptr, 64))
                              : di_->createBasicType("Int", 64, llvm::dwarf::DW_ATE_signed);
      break;
    }
  }
  return di_types_[t] = out;
}

// A pointer to the class's object: { WoHeader h; fields... } at the offsets of
// its layout, so `print *self` and `print acct->balance` work. The struct is
// a forward declaration until its fields are described (a class may refer
// to itself).
llvm::DIType* Emitter::di_class(const Type* t) {
  const ClassInfo* cls = t->cls;
  const ClassLayout& l = layout(cls);
  llvm::DIFile* file = di_cu_->getFile();
  auto* fwd = di_->createReplaceableCompositeType(llvm::dwarf::DW_TAG_structure_type, cls->name, di_cu_, file, 0);
  llvm::DIType* ptr = di_->createPointerType(fwd, 64);
  di_types_[t] = ptr;
  const llvm::DataLayout& dl = mod_->getDataLayout();
  const llvm::StructLayout* sl = dl.getStructLayout(l.type);
  std::vector<llvm::Metadata*> members;
  for (size_t i = 0; i < cls->fields.size() && i + 2 < l.type->getNumElements(); ++i) {
    const sema::FieldInfo& f = cls->fields[i];
    llvm::Type* ft = l.type->getElementType(static_cast<unsigned>(i + 2));
    llvm::DIType* dt = ft->isIntegerTy(64) && f.type->kind == TypeKind::Bool ? di_->createBasicType("Int", 64, llvm::dwarf::DW_ATE_signed)
                                                                             : di_type(f.type);
    members.push_back(di_->createMemberType(di_cu_, f.name, file, 0, dl.getTypeSizeInBits(ft), 64,
                                            sl->getElementOffsetInBits(static_cast<unsigned>(i + 2)),
                                            llvm::DINode::FlagZero, dt));
  }
  auto* st = di_->createStructType(di_cu_, cls->name, file, 0, sl->getSizeInBits(), 64, llvm::DINode::FlagZero,
                                   nullptr, di_->getOrCreateArray(members));
  di_->replaceTemporary(llvm::TempDIType(fwd), st);
  return ptr;
}

// `self` is the function's first argument, not a slot: described by a dbg.value.
void Emitter::di_self(const FnInfo& fn) {
  if (!di_sp_ || opts_.debug != DebugInfo::Full || !fn.self || !self_) return;
  unsigned line = di_sp_->getLine();
  auto* var = di_->createParameterVariable(di_sp_, "self", 1, di_sp_->getFile(), line, di_type(fn.self->type), true);
  di_->insertDbgValueIntrinsic(self_, var, di_->createExpression(), llvm::DILocation::get(ctx_, line, 0, di_sp_),
                               alloca_bb_->getTerminator());
}

void Emitter::di_local(const Symbol* sym, llvm::AllocaInst* slot, unsigned arg_no) {
  if (!di_sp_ || opts_.debug != DebugInfo::Full) return;
  llvm::DIFile* file = di_sp_->getFile();
  unsigned line = sym->loc.line ? sym->loc.line : di_sp_->getLine();
  llvm::DILocalVariable* var =
      arg_no ? di_->createParameterVariable(di_sp_, sym->name, arg_no, file, line, di_type(sym->type), true)
             : di_->createAutoVariable(di_sp_, sym->name, file, line, di_type(sym->type), true);
  di_->insertDeclare(slot, var, di_->createExpression(), llvm::DILocation::get(ctx_, line, sym->loc.col, di_sp_),
                     alloca_bb_->getTerminator());
}

// Helper functions (destructors, trampolines, entry points) get an
// artificial subprogram at line 0: .wo functions inlined into them (main into
// wo_main_entry) keep their locations only inside a function that has one,
// and symbolizers skip line 0. A location a helper picked up from the builder
// is replaced. In a .wo function, an instruction emitted with no location
// (landing pads) or with another function's gets the function's own line,
// since the verifier wants a location on every call between functions that
// have subprograms.
void Emitter::di_finish() {
  if (!di_) return;
  auto* no_types = di_->createSubroutineType(di_->getOrCreateTypeArray({}));
  for (llvm::Function& f : *mod_) {
    if (f.isDeclaration()) continue;
    llvm::DISubprogram* sp = f.getSubprogram();
    bool artificial = !sp;
    if (artificial) {
      auto flags = llvm::DISubprogram::SPFlagDefinition;
      if (f.hasLocalLinkage()) flags |= llvm::DISubprogram::SPFlagLocalToUnit;
      if (optimising(opts_.opt_level)) flags |= llvm::DISubprogram::SPFlagOptimized;
      sp = di_->createFunction(di_cu_->getFile(), f.getName(), "", di_cu_->getFile(), 0, no_types, 0,
                               llvm::DINode::FlagArtificial, flags);
      f.setSubprogram(sp);
    }
    llvm::DILocation* fallback = llvm::DILocation::get(ctx_, artificial ? 0 : sp->getLine(), 0, sp);
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& inst : bb) {
        if (artificial) {
          inst.setDebugLoc(fallback);
          continue;
        }
        llvm::DILocation* loc = inst.getDebugLoc().get();
        if (loc ? loc->getScope()->getSubprogram() != sp : llvm::isa<llvm::CallBase>(inst))
          inst.setDebugLoc(fallback);
      }
  }
  di_->finalize();
}

}  // namespace wo::codegen
