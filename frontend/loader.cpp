// load_program (loader.h): finds the .wo files of a program, registers,
// lexes and parses them, then substitutes constants module by module.
#include "frontend/loader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "frontend/const_subst.h"
#include "frontend/parser.h"

namespace wo {
namespace fs = std::filesystem;

namespace {

bool read_file(const std::string& path, std::string& out, std::string& err) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err = "cannot read '" + path + "': " + std::strerror(errno ? errno : ENOENT);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    err = "cannot read '" + path + "': " + std::strerror(errno ? errno : EIO);
    return false;
  }
  out = ss.str();
  return true;
}

bool is_wo(const fs::path& p) { return p.extension() == ".wo"; }

// "billing/tax" for <root>/billing/tax; "" for the root itself.
std::string module_name(const fs::path& dir, const fs::path& root) {
  fs::path rel = dir.lexically_relative(root);
  std::string s = rel.generic_string();
  if (s == ".") s.clear();
  return s;
}

// Registers one file's bytes, lexes and parses them.
ast::Ptr<ast::File> add_and_parse(const std::string& path, std::string text, const std::string& mod,
                                  SourceManager& sm, Diagnostics& diags, const LexOptions& opts) {
  SourceFile sf;
  sf.path = path;
  sf.text = std::move(text);
  sf.module = mod;
  uint32_t id = sm.add(std::move(sf));
  std::vector<Token> toks = lex_file(id, sm.get(id).text, diags, opts);
  return parse_file(id, std::move(toks), diags);
}

}  // namespace

LoadResult load_program(const std::string& path, SourceManager& sm, Diagnostics& diags, const LexOptions& opts) {
  LoadResult res;
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    res.io_error = "cannot read '" + path + "': " + std::strerror(ENOENT);
    return res;
  }

  // module path -> file paths (as shown in diagnostics)
  std::map<std::string, std::vector<std::string>> modules;
  modules[""];  // the main module always exists
  if (fs::is_directory(st)) {
    fs::path root(path);
    auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
      res.io_error = "cannot read '" + path + "': " + ec.message();
      return res;
    }
    for (auto end = fs::recursive_directory_iterator(); it != end; it.increment(ec)) {
      if (ec) break;
      const fs::directory_entry& e = *it;
      std::string name = e.path().filename().string();
      if (e.is_directory(ec)) {
        if (!name.empty() && name[0] == '.') it.disable_recursion_pending();  // .git, .cache, ...
        continue;
      }
      if (!e.is_regular_file(ec) || !is_wo(e.path())) continue;
      modules[module_name(e.path().parent_path(), root)].push_back((root / e.path().lexically_relative(root)).string());
    }
  } else {
    modules[""].push_back(path);
  }

  for (auto& [mod, files] : modules) {
    std::sort(files.begin(), files.end());
    auto m = std::make_unique<ast::Module>();
    m->path = mod;
    for (const std::string& f : files) {
      std::string text, err;
      if (!read_file(f, text, err)) {
        res.io_error = err;
        return res;
      }
      m->files.push_back(add_and_parse(f, std::move(text), mod, sm, diags, opts));
    }
    substitute_constants(*m);
    res.program.modules.push_back(std::move(m));
  }
  return res;
}

ast::Program load_source(const std::string& path, std::string text, SourceManager& sm, Diagnostics& diags,
                         const LexOptions& opts) {
  ast::Program program;
  auto m = std::make_unique<ast::Module>();
  m->files.push_back(add_and_parse(path, std::move(text), "", sm, diags, opts));
  substitute_constants(*m);
  program.modules.push_back(std::move(m));
  return program;
}

}  // namespace wo
