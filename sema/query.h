// Position queries over an analysed program, for tools (woc lsp): what name
// is at a byte offset, what it means and what type it has, and a readable
// one-line description of a symbol. Read-only: walks the AST that analyze()
// annotated (Expr::type/sym, Stmt::sym, Param::sym) and the ProgramInfo
// tables; the checker itself knows nothing of these queries.
#pragma once
#include <cstdint>
#include <string>

#include "common/source.h"
#include "sema/program_info.h"

namespace wo::sema {

// What sits at one position of a file.
struct PositionInfo {
  bool found = false;
  Span span{};                   // the name (or the innermost expression) under the position
  const Symbol* sym = nullptr;   // what the name means (a use or a declaration), if it names something
  const Type* type = nullptr;    // the value's type, if it has one
  const ClassInfo* cls = nullptr;  // a class named in a type or a declaration (sym may be null for records)
};

// The innermost name or expression of file `file` that covers byte `offset`
// (an offset just past a name still counts, so a cursor at a word's end finds
// it). `found` is false when nothing annotated is there.
PositionInfo info_at(const ProgramInfo& info, uint32_t file, uint32_t offset);

// The innermost expression of `file` whose span ends exactly at `end` (the
// receiver before a `.` being completed), or null.
const ast::Expr* expr_ending_at(const ProgramInfo& info, uint32_t file, uint32_t end);

// "x: Int", "fn area(w: Int, h: Int) -> Int", "Point.x: Float", "class Point", …
std::string describe(const Symbol& sym);

// Where a symbol is declared, or a Loc with line 0 when it has no source
// (builtins, the predeclared Error record).
Loc declaration_of(const Symbol& sym);

}  // namespace wo::sema
