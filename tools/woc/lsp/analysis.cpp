// Analysis (analysis.h): the pipeline of `woc check` without printing.
#include "tools/woc/lsp/analysis.h"

#include <filesystem>
#include <fstream>

#include "sema/sema.h"

namespace wo::lsp {
namespace fs = std::filesystem;

namespace {

bool holds_wo_files(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".wo" && it->is_regular_file(ec)) return true;
  return false;
}

// Whether a .wo file of `dir` declares the entry point (a program's own
// directory, not a module folder inside one). A text search is enough here.
bool declares_main(const fs::path& dir) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".wo" || !it->is_regular_file(ec)) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("fn main(", 0) == 0) return true;
  }
  return false;
}

// Module folders nest a few levels at most; the walk stops there.
constexpr int kMaxModuleDepth = 8;

}  // namespace

std::string normal_path(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(path), ec);
  if (ec) p = fs::path(path);
  return p.lexically_normal().string();
}

std::optional<uint32_t> Analysis::file_of(const std::string& path) const {
  std::string want = normal_path(path);
  for (uint32_t i = 0; i < sources.size(); ++i)
    if (normal_path(sources.get(i).path) == want) return i;
  return std::nullopt;
}

std::string program_root(const std::string& file_path) {
  std::error_code ec;
  fs::path file(normal_path(file_path));
  fs::path dir = file.parent_path();
  if (!fs::is_directory(dir, ec)) return file.string();
  for (fs::path d = dir; !d.empty(); d = d.parent_path()) {
    if (fs::exists(d / "wo.toml", ec)) return d.string();
    if (d == d.parent_path()) break;
  }
  fs::path root = dir;
  for (int up = 0; up < kMaxModuleDepth && !declares_main(root) && root.parent_path() != root &&
                   holds_wo_files(root.parent_path());
       ++up)
    root = root.parent_path();
  return root.string();
}

std::unique_ptr<Analysis> analyze(const std::string& root, const SourceOverlay& overlay) {
  auto a = std::make_unique<Analysis>();
  LexOptions lex;
  lex.with_tests = true;  // *_test.wo files are edited too: checked with their program (as gopls does)
  std::error_code ec;
  if (!fs::exists(root, ec)) {
    auto it = overlay.find(root);
    if (it == overlay.end()) {
      a->io_error = "cannot read '" + root + "'";
      return a;
    }
    a->program = load_source(root, it->second, a->sources, a->diags, lex);
  } else {
    LoadResult r = load_program(root, a->sources, a->diags, lex, false, &overlay);
    a->io_error = std::move(r.io_error);
    a->program = std::move(r.program);
    if (!a->io_error.empty()) return a;
  }
  // As in the driver: sema only sees a program that parsed.
  if (!a->diags.has_errors()) a->info = sema::analyze(a->program, a->diags);
  return a;
}

}  // namespace wo::lsp
