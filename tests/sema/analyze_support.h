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

// `dir_name` keeps each test binary's file apart from the others'.
inline std::unique_ptr<Analyzed> analyze_source(const std::string& src, const char* dir_name) {
  auto dir = std::filesystem::temp_directory_path() / dir_name;
  std::filesystem::create_directories(dir);
  auto path = dir / "main.wo";
  std::ofstream(path) << src;
  auto out = std::make_unique<Analyzed>();
  wo::LoadResult loaded = wo::load_program(path.string(), out->sm, out->diags, {});
  REQUIRE(loaded.io_error.empty());
  out->program = std::make_unique<wo::ast::Program>(std::move(loaded.program));
  if (!out->diags.has_errors()) out->info = wo::sema::analyze(*out->program, out->diags);
  return out;
}

// "WO-E221@5:34" per diagnostic (code @ line:column), sorted: what the
// position tests compare.
inline std::vector<std::string> diag_positions(const std::string& src, const char* dir_name) {
  auto a = analyze_source(src, dir_name);
  std::vector<std::string> out;
  for (auto& d : a->diags.sorted())
    out.push_back(std::string(wo::diag_code_text(d.code)) + "@" + std::to_string(d.loc.line) + ":" +
                  std::to_string(d.loc.col));
  return out;
}

// The same for a program of several files: `files` maps a path under the
// program directory ("main.wo", "conf/a.wo") to its text; the directory is
// loaded as a whole (every file of each module). "WO-W204@b.wo:2:4" each.
inline std::vector<std::string> dir_diag_positions(const std::map<std::string, std::string>& files,
                                                   const char* dir_name) {
  auto dir = std::filesystem::temp_directory_path() / dir_name;
  std::filesystem::remove_all(dir);
  for (const auto& [path, text] : files) {
    std::filesystem::create_directories((dir / path).parent_path());
    std::ofstream(dir / path) << text;
  }
  wo::SourceManager sm;
  wo::Diagnostics diags{sm};
  wo::LoadResult loaded = wo::load_program(dir.string(), sm, diags, {});
  REQUIRE(loaded.io_error.empty());
  auto program = std::make_unique<wo::ast::Program>(std::move(loaded.program));
  std::unique_ptr<wo::sema::ProgramInfo> info;
  if (!diags.has_errors()) info = wo::sema::analyze(*program, diags);
  std::vector<std::string> out;
  for (auto& d : diags.sorted()) {
    std::string file = std::filesystem::relative(sm.get(d.loc.file).path, dir).string();
    out.push_back(std::string(wo::diag_code_text(d.code)) + "@" + file + ":" + std::to_string(d.loc.line) + ":" +
                  std::to_string(d.loc.col));
  }
  return out;
}

}  // namespace wo_test
