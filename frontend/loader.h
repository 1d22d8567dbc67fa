// Loads a program: a .wo file or a directory (its .wo files form the main
// module; every subdirectory holding .wo files is a module for `use`).
// Reads, lexes and parses every file, then substitutes constants per module.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "common/diagnostics.h"
#include "frontend/ast.h"
#include "frontend/token.h"

namespace wo {

struct LoadResult {
  ast::Program program;
  std::string io_error;  // non-empty: the path could not be read (woc exits 2)
};

// A directory with a wo.toml is a project (frontend/manifest.h): its [deps]
// are resolved first (git deps fetched, wo.lock written; `update_deps` ignores
// the lock) and each dependency's directories become modules `<dep>` and
// `<dep>/sub` (docs/decisions/0022-packages.md). A manifest or dependency
// failure is an io_error (exit 2); WO-E108 goes to `diags`.
// Files whose text is in `overlay` (keyed by the lexically normal path, as
// std::filesystem::path::lexically_normal spells it) are taken from there
// instead of the disk: the unsaved buffers of an editor (woc lsp).
using SourceOverlay = std::map<std::string, std::string>;
LoadResult load_program(const std::string& path, SourceManager& sm, Diagnostics& diags,
                        const LexOptions& opts, bool update_deps = false, const SourceOverlay* overlay = nullptr);

// A one-file program from memory (`path` is only what diagnostics show): what
// load_program does for a .wo file, without the file system. The fuzz targets
// (fuzz/) feed their inputs through it.
ast::Program load_source(const std::string& path, std::string text, SourceManager& sm, Diagnostics& diags,
                         const LexOptions& opts);

}  // namespace wo
