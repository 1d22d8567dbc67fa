// The IR emitter's state, shared by the files of codegen/:
//   module.cpp    module setup, runtime declarations, class layouts, entry points
//   function.cpp  one function: slots, scopes, temporaries, unwind regions
//   stmt.cpp      statements
//   expr.cpp      expressions
//
// Memory discipline (docs/decisions/0001-value-representation.md): heap values
// are reference counted. Every expression yields a Val that is either borrowed
// (owned by someone else for at least the rest of the full expression) or an
// owned temporary kept in a "temp slot". Every owned value lives in an alloca
// that is null when empty, so an unwinding trap can release exactly what is
// live: a landing pad loads each registered slot and releases it.
#pragma once
#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "codegen/codegen.h"
#include "common/source.h"
#include "sema/builtins.h"
#include "sema/program_info.h"

namespace wo::codegen {

using sema::ClassInfo;
using sema::FnInfo;
using sema::Symbol;
using sema::Type;
using sema::TypeKind;

struct Val {
  llvm::Value* v = nullptr;
  llvm::AllocaInst* temp = nullptr;  // set when this is an owned temporary held in a temp slot
};

struct ClassLayout {
  llvm::StructType* type = nullptr;  // { i64 rc, ptr destroy, fields... }
  llvm::Function* destroy = nullptr; // releases heap fields (for a predeclared record: of copies made from its descriptor)
};

// An unwind region: the function as a whole (cleanup, then resume) or the body
// of a `try` (release what the body owns, then run the handler).
// The landing pad (`pad`) only holds the landingpad instruction; the work is
// in `dispatch`, which an inner region may also branch to when it has done
// its own part (a transaction aborts, then the unwind continues outward).
struct Region {
  enum Kind { Function, Try, Transaction } kind = Function;
  llvm::BasicBlock* pad = nullptr;       // created on first use
  llvm::BasicBlock* dispatch = nullptr;
  llvm::PHINode* lp = nullptr;           // the in-flight { exception, selector }
  std::vector<llvm::AllocaInst*> owned;  // heap slots registered while this region was open
};

// An assignment target whose own operands are evaluated (docs/decisions/0015):
// the object of a field (or the row), the container and the index or key of
// an element. A local needs neither.
struct Place {
  const ast::Expr* target = nullptr;
  Val obj;
  Val key;
};

struct Loop {
  llvm::BasicBlock* break_bb;
  llvm::BasicBlock* continue_bb;
  size_t scope_depth;   // scopes_.size() when the loop body started
  size_t break_scope_depth;  // scopes a `break` leaves (a for loop's variable scope too)
  size_t temp_depth;    // temps_.size() when the loop started
};

class Emitter {
 public:
  Emitter(const sema::ProgramInfo& prog, llvm::LLVMContext& ctx, const Options& opts);
  std::unique_ptr<llvm::Module> run();

 private:
  // ---- module.cpp
  void set_target();
  void declare_runtime();
  llvm::Function* rt(const std::string& name);
  llvm::Function* builtin_fn(const sema::BuiltinSig& b);
  llvm::Type* llvm_type(const Type* t);
  llvm::Type* slot_code_type(char code);
  llvm::Type* result_code_type(std::string_view r);
  int64_t elem_kind(const Type* t);                  // WO_ELEM_* for a list element / map key or value
  llvm::Constant* type_desc(const Type* t);         // WoTypeDesc for json
  llvm::Constant* class_desc(const ClassInfo* cls);
  llvm::Constant* row_desc(const ClassInfo* cls); // WoClassDesc for json
  const ClassLayout& layout(const ClassInfo* cls);
  // Payload unions: each variant is a heap object { rc, destroy, i64 tag, payload... };
  // bare variants of such a union are immortal constants. Bare-only unions are i64 tags.
  const ClassLayout& variant_layout(const sema::UnionInfo* u, int v);
  llvm::Constant* bare_variant_object(const sema::UnionInfo* u, int v);
  // Interface values are boxes { rc, destroy, obj, vtable } owning their object.
  llvm::Constant* vtable(const ClassInfo* cls, const sema::InterfaceInfo* i);
  llvm::StructType* box_type();
  void declare_fns();
  void emit_entry_points();
  void register_traces();
  llvm::Function* make_trace(const std::string& name, llvm::StructType* type, unsigned first,
                             const std::vector<const Type*>& fields);
  llvm::Constant* text_literal(const std::string& bytes);
  llvm::Constant* site(int64_t line);
  llvm::Constant* c_string(const std::string& s);
  void make_refcount_helpers();

  // ---- debug_info.cpp (DWARF: always line tables, -g adds types and locals)
  void di_begin();                                   // the compile unit
  llvm::DIFile* di_file(uint32_t file);
  const std::string& source_path(uint32_t file);    // absolute, as DWARF and trap sites name it
  void di_begin_fn(const FnInfo& fn);                // the subprogram; sets the builder's location
  void di_set_loc(const Loc& at);                    // line and column of what is emitted next
  void di_local(const Symbol* sym, llvm::AllocaInst* slot, unsigned arg_no);  // -g: a variable
  llvm::DIType* di_type(const Type* t);
  llvm::DIType* di_class(const Type* t);             // -g: a pointer to the object's struct
  void di_self(const FnInfo& fn);                    // -g: `self` of a method
  void di_finish();                                  // repairs stray locations, DIBuilder::finalize
  // Emitting a node: its location while inside it, the parent's again after it.
  struct LocScope {
    Emitter& em;
    llvm::DebugLoc saved;
    Loc saved_at;
    LocScope(Emitter& e, const Loc& at) : em(e), saved(e.b_.getCurrentDebugLocation()), saved_at(e.at_) { e.di_set_loc(at); }
    ~LocScope() { em.b_.SetCurrentDebugLocation(saved); em.at_ = saved_at; }
  };

  // ---- function.cpp
  void emit_fn(const FnInfo& fn);
  llvm::Value* fiber_local();   // this thread's WoFiberLocal*
  llvm::Value* thread_pointer();  // the thread pointer (a call of wo.o0.thread_pointer at -O0 on x86-64: FastISel)
  llvm::Function* o0_thread_pointer_fn();  // the module's wo.o0.thread_pointer (made on first use)
  void emit_stack_check();
  void thread_recursion_depth();  // recursion.cpp: recursive functions count the calls LLVM may turn into loops
  llvm::AllocaInst* entry_alloca(llvm::Type* t, const std::string& name);
  llvm::AllocaInst* heap_slot(const std::string& name);  // null-initialised, registered for unwinding
  llvm::Value* load_for_unwind(llvm::AllocaInst* slot);   // a landing pad's read of a slot (function.cpp)
  void pin_slots_if_big();                                // keeps a long function's slots out of SSA
  llvm::AllocaInst* local_slot(const Symbol* sym);       // slot for a local/param symbol
  void push_scope() { scopes_.emplace_back(); }
  void pop_scope();                                       // releases the scope's owned slots
  void release_slot(llvm::AllocaInst* slot);              // release + null
  void release_scopes_from(size_t depth);                 // without popping (break/continue/return)
  void push_temps() { temps_.emplace_back(); }
  void pop_temps();                                       // releases the full expression's temporaries
  void release_temps_from(size_t depth);
  Val own_temp(llvm::Value* v);                           // a fresh owned heap value -> temp slot
  llvm::Value* take_owned(const Val& v, const Type* t);   // an owned reference for storing
  void retain(llvm::Value* p);
  void release(llvm::Value* p);
  llvm::BasicBlock* unwind_dest();
  llvm::Value* call(llvm::FunctionCallee f, llvm::ArrayRef<llvm::Value*> args, const llvm::Twine& name = "");
  void trap(int64_t code, int64_t line, const char* msg = nullptr);
  void finish_function_pad(Region& r);
  void forward_unwind(Region& from);   // continue an unwind in the enclosing region
  void emit_transaction(const ast::Stmt& s);
  // ---- tables (tables.cpp)
  void emit_schema_boot();
  Val emit_insert(const ast::Expr& e);
  Val emit_row_field(const ast::Expr& e, llvm::Value* row);
  Val emit_row_get(const ast::Expr& e);
  void emit_row_store(const ast::Expr& target, llvm::Value* row, const Val& value);
  Val emit_delete(const ast::Expr& e);
  Val emit_query(const ast::Expr& e);
  llvm::Value* db_word(llvm::Value* v, const Type* t);      // a value as the store's 64-bit word
  llvm::Value* from_db_word(llvm::Value* w, const Type* t); // and back
  bool terminated() const;
  llvm::BasicBlock* new_block(const std::string& name);

  // ---- actors.cpp
  llvm::StructType* fiber_local_type();    // WoFiberLocal (fiber_local() is in function.cpp)
  void emit_preempt_check();               // at every loop back-edge
  llvm::Value* message_word(llvm::Value* v);
  llvm::Function* receive_trampoline(const ClassInfo* cls, const FnInfo* recv);
  llvm::Constant* actor_type(const ClassInfo* cls);  // WoActorType
  Val emit_spawn(const ast::Expr& e);
  Val emit_actor_call(const ast::Expr& e);  // the ACTOR builtins
  Val emit_call_dl(const ast::Expr& e, std::vector<llvm::Value*>& args);  // call_dl: the ?R phi
  llvm::Constant* variant_descs(const sema::UnionInfo* u);  // json_desc.cpp: WoClassDesc[] of a payload union

  // ---- stmt.cpp
  void emit_block(const ast::Block& b);
  void emit_stmts(const std::vector<ast::StmtPtr>& stmts);
  void emit_stmt(const ast::Stmt& s);
  void emit_let(const ast::Stmt& s);
  void emit_assign(const ast::Stmt& s);
  bool emit_append_assign(const ast::Stmt& s);
  Place prepare_place(const ast::Expr& target, uint8_t later_code);  // later_code: what runs before the store may write
  void store_place(const Place& p, const Val& value);
  void emit_if(const ast::Stmt& s);
  void emit_while(const ast::Stmt& s);
  void emit_do_while(const ast::Stmt& s);
  void emit_for(const ast::Stmt& s);
  void emit_return(const ast::Stmt& s);
  void emit_jump(bool is_break);
  llvm::Value* emit_cond(const ast::Expr& e);  // a full expression yielding i1

  // ---- keep_alive.cpp: borrowed operands that later operands could free (docs/decisions/0078)
  static constexpr uint8_t kWritesPlaces = 1;  // may replace or destroy a field, element or map value
  static constexpr uint8_t kWritesLocals = 2;  // may give a local a new value (a statement body)
  uint8_t may_write(const ast::Expr& e);       // what evaluating `e` may write (memoised)
  uint8_t own_writes(const ast::Expr& e) const;
  // [i]: what the operands after ops[i] may write
  std::vector<uint8_t> writes_after(const std::vector<const ast::Expr*>& ops);
  // A call's receiver (if any), then its arguments, in evaluation order.
  static std::vector<const ast::Expr*> operands(const ast::Expr& call);
  bool through_aliasable(const ast::Expr& e) const;  // read through what a traced object may own
  void find_aliasable_classes();
  Val hold(Val v, const Type* t);              // a borrowed heap value kept alive to the end of the full expression
  Val keep(Val v, const ast::Expr& e, uint8_t later);      // hold `v` (the value of `e`) if `later` could free it
  Val keep_arg(Val v, const ast::Expr& e, uint8_t later, const ast::Expr& call);  // keep(), or hold when the call itself could free it

  // ---- expr.cpp
  Val emit_expr(const ast::Expr& e);
  Val emit_node(const ast::Expr& e);  // emit_expr without the bookkeeping
  Val emit_name(const ast::Expr& e);
  Val emit_unary(const ast::Expr& e);
  Val emit_binary(const ast::Expr& e);
  Val emit_concat_chain(const ast::Expr& e);
  static constexpr size_t kConcatChunk = 32;  // pieces per wo_concat_n of a long chain
  Val binary_values(int64_t line, ast::BinaryOp op, Val l, Val r, const Type* lt);
  Val emit_logical(const ast::Expr& e);
  Val emit_call(const ast::Expr& e);
  void emit_borrow_guards(const ast::Expr& e);  // compares the guarded elements the call's operands went through
  Val emit_builtin(const ast::Expr& e);
  bool emit_inline_builtin(const sema::BuiltinSig& sig, const std::vector<llvm::Value*>& args, int64_t line,
                           llvm::Value** out);
  llvm::Value* inline_len(llvm::Value* obj);
  llvm::Value* inline_list_get(llvm::Value* list, llvm::Value* i, int64_t line);
  Val emit_member(const ast::Expr& e);
  Val emit_index(const ast::Expr& e);
  Val emit_list(const ast::Expr& e);
  Val emit_ctor(const ast::Expr& e);
  std::vector<Val> ctor_field_values(const ast::Expr& ctor, const ClassInfo* cls);
  Val emit_try(const ast::Expr& e);
  Val emit_switch(const ast::Expr& e);
  void bind_payload(const ast::SwitchArm& arm, llvm::Value* subject, const Type* st);
  Val emit_interp(const ast::Expr& e);
  Val emit_field_default(const sema::FieldInfo& f);
  Val emit_variant(const ast::Expr& e);          // a bare variant name or V(args)
  Val emit_map_index(const ast::Expr& e);        // `m[k]`: ?V
  void emit_for_loop(const ast::Stmt& s, const std::function<llvm::Value*(llvm::Value*, llvm::AllocaInst*)>& advance,
                     const std::function<void(llvm::Value*, llvm::AllocaInst*)>& bind);
  void bind_loop_var(const Symbol* sym, llvm::Value* v);
  Val emit_iface_call(const ast::Expr& e);
  // Converts a value of type `from` for a slot of type `to`: wraps T into ?T,
  // nil into its sentinel, a class into an interface box, unwraps a ?T argument
  // (after pass_arg has checked it for nil).
  Val coerce(Val v, const Type* from, const Type* to);
  // Every call passes each argument through here (user fns, methods,
  // interface methods, variants, builtins). A ?T argument for a parameter of
  // plain type T is accepted by sema (language.md §8.2); nil traps BOUNDS
  // `null receiver` here, at the call's line, through trap(): catchable, and
  // the unwind releases the live temporaries. Then coerce().
  Val pass_arg(Val v, const Type* from, const Type* to, int64_t line);
  llvm::Value* nil_of(const Type* nullable);
  llvm::Value* not_nil_marker(llvm::Value* v);  // traps BOUNDS on the Int that spells ?Int's nil
  llvm::Value* is_nil(llvm::Value* v, const Type* nullable);
  llvm::Value* union_tag(llvm::Value* v, const Type* t);
  llvm::Value* to_slot(llvm::Value* v, const Type* t);
  llvm::Value* from_slot(llvm::Value* v, const Type* t);
  llvm::Value* values_equal(llvm::Value* a, llvm::Value* b, const Type* t);
  llvm::Value* actors_same(llvm::Value* a, llvm::Value* b);
  // Emits a statement list whose last expression statement is the value (switch arms, catch blocks).
  void emit_valued_stmts(const std::vector<ast::StmtPtr>& stmts, llvm::AllocaInst* result, const Type* t);

  const sema::ProgramInfo& prog_;
  llvm::LLVMContext& ctx_;
  Options opts_;
  bool o0_fast_isel_ = false;  // -O0 on x86-64: thread pointer and stack probe in FastISel's forms (set_target)
  const char* sp_register_ = nullptr;  // the stack pointer's name for llvm.read_register at -O1+ (set_target), or none
  std::unique_ptr<llvm::Module> mod_;
  llvm::IRBuilder<> b_;
  llvm::Type* i64_;
  llvm::Type* i1_;
  llvm::Type* f64_;
  llvm::PointerType* ptr_;

  std::map<std::string, llvm::Function*> runtime_;
  std::map<const FnInfo*, llvm::Function*> fns_;
  std::map<const ClassInfo*, ClassLayout> layouts_;
  std::map<std::pair<const sema::UnionInfo*, int>, ClassLayout> variant_layouts_;
  std::map<std::pair<const sema::UnionInfo*, int>, llvm::Constant*> bare_variants_;
  std::map<std::pair<const ClassInfo*, const sema::InterfaceInfo*>, llvm::Constant*> vtables_;
  llvm::StructType* box_type_ = nullptr;
  std::map<const Type*, llvm::GlobalVariable*> type_descs_;
  std::map<const ClassInfo*, llvm::GlobalVariable*> class_descs_;
  std::map<const ClassInfo*, llvm::GlobalVariable*> row_descs_;  // JSON of @table rows (row_desc)
  std::map<const ClassInfo*, llvm::GlobalVariable*> actor_types_;
  llvm::Function* box_destroy_ = nullptr;
  std::map<std::string, llvm::Constant*> text_literals_;
  std::map<std::tuple<const FnInfo*, int64_t, uint32_t>, llvm::Constant*> sites_;
  std::unique_ptr<llvm::DIBuilder> di_;           // null: no DWARF (no sources given)
  llvm::DICompileUnit* di_cu_ = nullptr;
  std::map<uint32_t, llvm::DIFile*> di_files_;
  std::map<uint32_t, std::string> source_paths_;
  std::map<const Type*, llvm::DIType*> di_types_;
  llvm::DISubprogram* di_sp_ = nullptr;           // the function being emitted
  llvm::BasicBlock* stack_trap_bb_ = nullptr;     // its stack check's trap block (moved last)
  std::map<llvm::Function*, llvm::LoadInst*> stack_limits_;  // each function's load of the limit its check compares with
  llvm::Function* retain_fn_ = nullptr;
  llvm::Function* release_fn_ = nullptr;
  llvm::StructType* site_type_ = nullptr;
  bool any_traced_ = false;  // the program has traced classes: any call may write a shared value
  std::set<const ClassInfo*> aliasable_classes_;  // classes a traced object may own (find_aliasable_classes)
  std::map<const ast::Expr*, uint8_t> write_memo_;  // may_write's answers
  std::map<const ast::Expr*, llvm::Value*> guard_values_;  // values of the elements BORROW guards compare

  // ---- per-function state
  const FnInfo* fn_ = nullptr;
  llvm::Function* llfn_ = nullptr;
  llvm::BasicBlock* alloca_bb_ = nullptr;
  std::map<const Symbol*, llvm::AllocaInst*> slots_;
  std::vector<llvm::AllocaInst*> all_heap_slots_;
  static constexpr size_t kUnwindPhiBudget = 1 << 14;  // heap slots x invokes (load_for_unwind)
  std::vector<llvm::LoadInst*> unwind_loads_;  // every landing-pad read of a slot in this function
  std::vector<llvm::AllocaInst*> free_temps_;    // released temp slots, reused by own_temp
  std::vector<Region*> regions_;
  std::vector<std::vector<llvm::AllocaInst*>> scopes_;
  std::vector<std::vector<llvm::AllocaInst*>> temps_;
  std::vector<Loop> loops_;
  llvm::Value* self_ = nullptr;
  int64_t line_ = 0;  // the line of the expression being emitted (traps raised by conversions)
  Loc at_{};          // the node being emitted (LocScope): a trap site on its line gets its column
};

}  // namespace wo::codegen
