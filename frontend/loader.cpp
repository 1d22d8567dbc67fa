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
#include "frontend/manifest.h"
#include "frontend/parser.h"
#include "frontend/stdlib_dir.h"
#include "common/namespaces.h"

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

// `x_test.wo`: read only by `woc test`, and only in the program's own tree
// (never in a dependency), as Go does with _test.go files.
bool is_test_file(const fs::path& p) {
  std::string n = p.filename().string();
  return n.size() > 8 && n.compare(n.size() - 8, 8, "_test.wo") == 0;
}

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


// Adds every .wo file under `root` to `modules`, the module path prefixed by
// `prefix` ("" for the program itself, the dependency name for a dep).
// Directories in `skip` (path dependencies kept inside the project) are left
// to their own collect.
bool collect(const fs::path& root, const std::string& prefix, const std::vector<fs::path>& skip,
             std::map<std::string, std::vector<std::string>>& modules, std::string& io_error,
             bool with_tests = false) {
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    io_error = "cannot read '" + root.string() + "': " + ec.message();
    return false;
  }
  for (auto end = fs::recursive_directory_iterator(); it != end; it.increment(ec)) {
    if (ec) break;
    const fs::directory_entry& e = *it;
    std::string name = e.path().filename().string();
    if (e.is_directory(ec)) {
      if (!name.empty() && name[0] == '.') it.disable_recursion_pending();  // .git, .cache, .wo-deps, ...
      for (const fs::path& s : skip)
        if (fs::equivalent(e.path(), s, ec)) it.disable_recursion_pending();
      continue;
    }
    if (!e.is_regular_file(ec) || !is_wo(e.path())) continue;
    if (is_test_file(e.path()) && !with_tests) continue;
    std::string mod = module_name(e.path().parent_path(), root);
    if (!prefix.empty()) mod = mod.empty() ? prefix : prefix + "/" + mod;
    modules[mod].push_back((root / e.path().lexically_relative(root)).string());
  }
  return true;
}


// Reads, lexes and parses every module of `modules` into res.program.
bool parse_modules(std::map<std::string, std::vector<std::string>>& modules, LoadResult& res, SourceManager& sm,
                   Diagnostics& diags, const LexOptions& opts, const SourceOverlay* overlay) {
  for (auto& [mod, files] : modules) {
    std::sort(files.begin(), files.end());
    auto m = std::make_unique<ast::Module>();
    m->path = mod;
    for (const std::string& f : files) {
      std::string text, err;
      auto over = overlay ? overlay->find(fs::path(f).lexically_normal().string()) : SourceOverlay::const_iterator{};
      if (overlay && over != overlay->end()) {
        text = over->second;  // an editor's unsaved buffer (woc lsp)
      } else if (!read_file(f, text, err)) {
        res.io_error = err;
        return false;
      }
      m->files.push_back(add_and_parse(f, std::move(text), mod, sm, diags, opts));
    }
    substitute_constants(*m);
    res.program.modules.push_back(std::move(m));
  }
  return true;
}

const std::string kStdlibFramework = "framework";

// The dependency a module belongs to ("" for the program's own modules).
std::string owner_of(const std::string& module, const std::vector<ResolvedDep>& deps) {
  for (const ResolvedDep& d : deps)
    if (module == d.name || module.rfind(d.name + "/", 0) == 0) return d.name;
  return "";
}

bool has_module(const ast::Program& program, const std::string& path) {
  for (const auto& m : program.modules)
    if (m->path == path) return true;
  return false;
}

bool declares_table(const ast::Module& m) {
  for (const auto& f : m.files)
    for (const auto& c : f->classes)
      for (const auto& a : c->annotations)
        if (a.name == "table") return true;
  return false;
}

// Whether some module names `path` in a `use`: the program's own modules by
// its full path (framework/middleware), the framework's by the path inside
// it (middleware).
bool module_used(const ast::Program& program, size_t first, const std::string& path) {
  for (size_t i = 0; i < program.modules.size(); ++i)
    for (const auto& f : program.modules[i]->files)
      for (const auto& u : f->uses) {
        std::string p = u.joined();
        if (i < first ? p == path : kStdlibFramework + "/" + p == path) return true;
      }
  return false;
}

// A standard-library framework module that declares @tables (the porch
// middleware's stores) joins the program only when something uses it:
// otherwise every `use framework` program would own durable tables and
// refuse to start without WO_DATA. docs/decisions/0030.
void drop_unused_table_modules(ast::Program& program, size_t first) {
  std::vector<std::string> unused;
  for (size_t i = first; i < program.modules.size(); ++i)
    if (program.modules[i]->path != kStdlibFramework && declares_table(*program.modules[i]) &&
        !module_used(program, first, program.modules[i]->path))
      unused.push_back(program.modules[i]->path);
  auto gone = [&](const ast::Ptr<ast::Module>& m) {
    return std::find(unused.begin(), unused.end(), m->path) != unused.end();
  };
  program.modules.erase(std::remove_if(program.modules.begin() + first, program.modules.end(), gone),
                        program.modules.end());
}

// Whether `use framework…` in a module of `owner` ("" = the program) means
// the standard library's framework: neither the program (or that dep) has a
// `framework` folder of its own, nor is there a dependency named framework.
bool means_stdlib_framework(const ast::Program& program, const std::string& owner,
                            const std::vector<ResolvedDep>& deps) {
  if (owner == kStdlibFramework) return false;
  for (const ResolvedDep& d : deps)
    if (d.name == kStdlibFramework) return false;
  return !has_module(program, owner.empty() ? kStdlibFramework : owner + "/" + kStdlibFramework);
}

// `use framework` (or framework/...) where it means the standard library
// (above) loads stdlib/framework as if it were a dependency named
// `framework` (decision 0022's rules: its own `use http` means its http/
// folder, its internal/ is private to it). Only programs that use it pay
// for parsing it. docs/decisions/0024.
bool add_stdlib_framework(std::vector<ResolvedDep>& deps, bool& loaded, LoadResult& res, SourceManager& sm,
                          Diagnostics& diags, const LexOptions& opts, const SourceOverlay* overlay) {
  bool wanted = false;
  for (const auto& m : res.program.modules) {
    bool uses = false;
    for (const auto& f : m->files)
      for (const auto& u : f->uses) uses = uses || (!u.path.empty() && u.path[0] == kStdlibFramework);
    wanted = wanted || (uses && means_stdlib_framework(res.program, owner_of(m->path, deps), deps));
  }
  if (!wanted) return true;
  std::vector<std::string> tried;
  std::string dir = find_stdlib_dir(tried);
  if (dir.empty()) {
    std::string where;
    for (const std::string& t : tried) where += (where.empty() ? "" : ", ") + t;
    res.io_error = "`use framework`: cannot find the standard library (no framework/ in " + where +
                   "); set WO_STDLIB to the directory holding framework/";
    return false;
  }
  fs::path root = fs::path(dir) / kStdlibFramework;
  std::map<std::string, std::vector<std::string>> modules;
  if (!collect(root, kStdlibFramework, {}, modules, res.io_error)) return false;
  deps.push_back(ResolvedDep{kStdlibFramework, root.string()});
  loaded = true;
  size_t first = res.program.modules.size();
  if (!parse_modules(modules, res, sm, diags, opts, overlay)) return false;
  drop_unused_table_modules(res.program, first);
  return true;
}

}  // namespace

LoadResult load_program(const std::string& path, SourceManager& sm, Diagnostics& diags, const LexOptions& opts,
                        bool update_deps, const SourceOverlay* overlay) {
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
  Project project;
  if (fs::is_directory(st)) {
    if (!resolve_project(path, update_deps, project, res.io_error)) return res;
    res.program.library = project.library;
    std::vector<fs::path> dep_dirs;
    for (const ResolvedDep& d : project.deps) dep_dirs.emplace_back(d.dir);
    if (!collect(fs::path(path), "", dep_dirs, modules, res.io_error, opts.with_tests)) return res;
    // A directory without a single .wo file is a wrong path, not a program
    // with no `fn main` (that message would name no file): exit 2.
    bool any = false;
    for (const auto& [mod, files] : modules) any = any || !files.empty();
    if (!any) {
      std::map<std::string, std::vector<std::string>> with_tests;
      std::string ignored;
      bool tests_only = !opts.with_tests && collect(fs::path(path), "", dep_dirs, with_tests, ignored, true);
      bool found = false;
      for (const auto& [mod, files] : with_tests) found = found || !files.empty();
      res.io_error = tests_only && found
                         ? "'" + path + "' holds only test files (*_test.wo): run them with `woc test " + path +
                               "`, or add a .wo file with `fn main()`"
                         : "'" + path + "' holds no .wo files: a program directory needs at least one " +
                               "(e.g. main.wo with `fn main()`), or pass a .wo file";
      return res;
    }
    for (const ResolvedDep& d : project.deps)
      if (!collect(fs::path(d.dir), d.name, {}, modules, res.io_error)) return res;
  } else {
    modules[""].push_back(path);
  }

  std::vector<ResolvedDep> deps = project.deps;
  bool stdlib_loaded = false;
  if (!parse_modules(modules, res, sm, diags, opts, overlay)) return res;
  if (!add_stdlib_framework(deps, stdlib_loaded, res, sm, diags, opts, overlay)) return res;

  // Dependencies: a dep's own `use a/b` means its directory a/b, which is
  // module `<dep>/a/b` here — except a `use framework…` that means the
  // standard library; an `internal` segment of a dep's path is refused from
  // outside that dep (WO-E108).
  for (auto& m : res.program.modules) {
    std::string owner = owner_of(m->path, deps);
    m->dependency = owner;
    bool own_framework = !stdlib_loaded || !means_stdlib_framework(res.program, owner, project.deps);
    for (auto& f : m->files) {
      for (auto& u : f->uses) {
        if (u.path.empty() || (u.path.size() == 1 && is_stdlib_namespace(u.path[0]))) continue;
        if (!owner.empty() && (own_framework || u.path[0] != kStdlibFramework)) {
          u.path.insert(u.path.begin(), owner);
          continue;
        }
        bool is_dep = false;
        for (const ResolvedDep& d : deps) is_dep = is_dep || u.path[0] == d.name;
        if (!is_dep) continue;
        for (size_t i = 1; i < u.path.size(); ++i)
          if (u.path[i] == "internal") {
            diags.error(DiagCode::E108, u.span.begin,
                        "`use " + u.joined() + "` reaches into the `internal/` part of dependency `" + u.path[0] +
                            "`, which only the dependency itself may use");
            break;
          }
      }
    }
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
