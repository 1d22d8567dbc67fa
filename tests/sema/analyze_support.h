// Shared by the sema unit tests: write a one-file program, load it through the
// real loader and run sema's entry point, keeping everything the result points
// into (the source manager, the AST) alive together.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "frontend/loader.h"
#include "sema/program_info.h"
#include "sema/sema.h"

namespace wo_test {

struct Analyzed {
  wo::SourceManager sm;
  wo::Diagnostics diags{sm};
  std::unique_ptr<wo::ast::Program> program;
  std::unique_ptr<wo::sema::ProgramInfo> info;  // null when loading reported errors
};

// Loads `path` (a file, or a directory as a whole program) through the real
// loader and runs sema when loading reported no errors.
inline std::unique_ptr<Analyzed> analyze_path(const std::filesystem::path& path) {
  auto out = std::make_unique<Analyzed>();
  wo::LoadResult loaded = wo::load_program(path.string(), out->sm, out->diags, {});
  REQUIRE(loaded.io_error.empty());
  out->program = std::make_unique<wo::ast::Program>(std::move(loaded.program));
  if (!out->diags.has_errors()) out->info = wo::sema::analyze(*out->program, out->diags);
  return out;
}

// `dir_name` keeps each test binary's file apart from the others'.
inline std::unique_ptr<Analyzed> analyze_source(const std::string& src, const char* dir_name) {
  auto dir = std::filesystem::temp_directory_path() / dir_name;
  std::filesystem::create_directories(dir);
  auto path = dir / "main.wo";
  std::ofstream(path) << src;
  return analyze_path(path);
}

// "WO-E221@5:34" per diagnostic (code @ line:column), sorted: what the
// position tests compare. With `dir`, each position also names its file
// relative to it ("WO-W204@b.wo:2:4").
inline std::vector<std::string> positions(const Analyzed& a, const std::filesystem::path* dir = nullptr) {
  std::vector<std::string> out;
  for (auto& d : a.diags.sorted()) {
    std::string file = dir ? std::filesystem::relative(a.sm.get(d.loc.file).path, *dir).string() + ":" : "";
    out.push_back(std::string(wo::diag_code_text(d.code)) + "@" + file + std::to_string(d.loc.line) + ":" +
                  std::to_string(d.loc.col));
  }
  return out;
}

inline std::vector<std::string> diag_positions(const std::string& src, const char* dir_name) {
  return positions(*analyze_source(src, dir_name));
}

// The same for a program of several files: `files` maps a path under the
// program directory ("main.wo", "conf/a.wo") to its text; the directory is
// loaded as a whole (every file of each module).
inline std::vector<std::string> dir_diag_positions(const std::map<std::string, std::string>& files,
                                                   const char* dir_name) {
  auto dir = std::filesystem::temp_directory_path() / dir_name;
  std::filesystem::remove_all(dir);
  for (const auto& [path, text] : files) {
    std::filesystem::create_directories((dir / path).parent_path());
    std::ofstream(dir / path) << text;
  }
  return positions(*analyze_path(dir), &dir);
}

}  // namespace wo_test
