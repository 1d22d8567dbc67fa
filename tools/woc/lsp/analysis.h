// One analysis of one program as the editor sees it: the files on disk with
// the open documents' unsaved text laid over them (frontend/loader.h,
// SourceOverlay), loaded, parsed and — when that succeeded — checked by
// sema, exactly as `woc check` would, but nothing is printed.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "common/diagnostics.h"
#include "frontend/loader.h"
#include "sema/program_info.h"

namespace wo::lsp {

struct Analysis {
  SourceManager sources;
  Diagnostics diags{sources};
  ast::Program program;
  std::unique_ptr<sema::ProgramInfo> info;  // null when loading or parsing failed
  std::string io_error;                     // the program could not be read (shown on the document)

  // The file id of `path` (compared lexically normalised), if it was loaded.
  std::optional<uint32_t> file_of(const std::string& path) const;
};

// The program a file belongs to (docs/decisions/0042-lsp-program-root.md):
// the nearest enclosing directory with a wo.toml; otherwise the file's own
// directory, climbing while that directory has no `fn main` and its parent
// holds .wo files too (a module folder inside a program directory).
std::string program_root(const std::string& file_path);

// Analyses the program at `root` (a directory, or a single file's path) with
// `overlay` laid over the disk. A `root` that does not exist on disk (an
// unsaved file) is analysed from the overlay alone.
std::unique_ptr<Analysis> analyze(const std::string& root, const SourceOverlay& overlay);

// Lexically normal absolute form of a path: the key of SourceOverlay.
std::string normal_path(const std::string& path);

}  // namespace wo::lsp
