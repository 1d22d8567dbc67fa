// wo.toml and wo.lock: a small reader for the TOML subset the package system
// uses (docs/decisions/0022-packages.md), and the project/dependency resolver
// the loader calls for a program directory that holds a wo.toml.
#pragma once
#include <string>
#include <vector>

namespace wo {

struct ManifestDep {
  std::string name;
  std::string path;  // { path = "..." }
  std::string git;   // { git = "...", rev = "..." }
  std::string rev;
  std::string commit;  // wo.lock only: the resolved SHA
  int line = 0;
};

struct Manifest {
  std::string file;  // as shown in messages
  std::string name, version;
  std::string kind = "program";  // "program" (default) or "library"
  int kind_line = 0;
  std::vector<ManifestDep> deps;
};

// Reads `text` (the bytes of `file`). On failure returns false and sets
// `error` to "<file>:<line>: <message>" (WO-E109 for an unknown kind is
// worded "<file>:<line>: error WO-E109: ...").
bool parse_manifest(const std::string& file, const std::string& text, Manifest& out, std::string& error);
// wo.lock: `[deps]` entries { git, rev, commit }.
bool parse_lock(const std::string& file, const std::string& text, Manifest& out, std::string& error);

struct ResolvedDep {
  std::string name;
  std::string dir;  // the directory whose .wo files form module `name`
};

struct Project {
  bool has_manifest = false;
  bool library = false;
  std::vector<ResolvedDep> deps;
};

// For a program directory: reads <dir>/wo.toml if present, fetches git deps
// into <dir>/.wo-deps/<name>/ and writes <dir>/wo.lock. `update` ignores the
// lock (woc --update-deps). On failure returns false with `error` worded for
// `woc: <error>` (exit 2).
bool resolve_project(const std::string& dir, bool update, Project& out, std::string& error);

}  // namespace wo
