// The ownership pass: WO-E301..E305 over the typed AST (language.md §15).
#pragma once
#include <map>
#include <set>
#include <string>

#include "common/diagnostics.h"
#include "sema/builtins.h"
#include "sema/program_info.h"

namespace wo::sema {

// Classes that can form a cycle (language.md §15.6), each with why: the
// path of fields by which it reaches itself ("Node.next -> Node").
struct TracedClasses {
  std::set<const ClassInfo*> classes;
  std::map<const ClassInfo*, std::string> why;
};
TracedClasses infer_traced(const ProgramInfo& info);

// Marks traced classes (ClassInfo::traced) and reports ownership errors.
// Returns the classes demand-promoted to traced (§15.6), each with why (a
// borrowed value of it escapes, and where): the caller checks them at actor
// boundaries (WO-E222) like the classes that form cycles.
std::map<const ClassInfo*, std::string> check_ownership(ProgramInfo& info, Diagnostics& diags);

// Sets FnInfo::mutates_self on every method that writes through `self`
// (self_mut.cpp); check_ownership runs it first.
void infer_mutating_methods(ProgramInfo& info);

// Whether a call of interface method `m` of `iface` may write through its
// receiver: some class that satisfies the interface writes through `self`
// in its method of that name (self_mut.cpp).
bool iface_method_mutates(const ProgramInfo& info, const InterfaceInfo* iface, int m);

// WO-E303 for a write through a shared (not `mut`) parameter (language.md
// §15.4; self_mut.cpp). Traced classes and rows are exempt, and so is an
// actor's `receive`, whose message is its own (FnInfo::writes_message).
void check_shared_writes(ProgramInfo& info, Diagnostics& diags);

}  // namespace wo::sema
