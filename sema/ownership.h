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
void check_ownership(ProgramInfo& info, Diagnostics& diags);

// Sets FnInfo::mutates_self on every method that writes through `self`
// (self_mut.cpp); check_ownership runs it first.
void infer_mutating_methods(ProgramInfo& info);

}  // namespace wo::sema
