// The ownership pass: WO-E301..E305 over the typed AST (language.md §15).
#pragma once
#include "common/diagnostics.h"
#include "sema/builtins.h"
#include "sema/program_info.h"

namespace wo::sema {

// Marks traced classes (ClassInfo::traced) and reports ownership errors.
void check_ownership(ProgramInfo& info, Diagnostics& diags);

// Sets FnInfo::mutates_self on every method that writes through `self`
// (self_mut.cpp); check_ownership runs it first.
void infer_mutating_methods(ProgramInfo& info);

}  // namespace wo::sema
