// wo.toml / wo.lock reading and dependency resolution (manifest.h).
//
// The TOML subset (docs/decisions/0022-packages.md): one `key = value` per
// line, `[section]` headers, `#` comments; values are basic "..." or literal
// '...' strings, integers, booleans, and one-line inline tables { k = v, ... }.
// Anything else is an error with file:line - a manifest is never half-read.
#include "common/namespaces.h"
#include "frontend/manifest.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace wo {
namespace fs = std::filesystem;

namespace {

struct Field;

// `table` holds Fields, defined after Value: a std::vector may name a type
// that is still incomplete (C++17, [vector.overview]). It held
// std::pair<std::string, Value>, whose constructors make libstdc++ ask whether
// Value is default-constructible while Value's own constructor is being
// defined: GCC let it pass, clang-19 rejects it (and the fuzz build with it).
struct Value {
  enum Kind { Str, Int, Bool, Table } kind = Str;
  std::string str;
  long long num = 0;
  bool flag = false;
  std::vector<Field> table;  // Table: the `k = v` of `{ }` in order; never nested
};

struct Field {
  std::string key;
  Value value;
};

struct Entry {
  std::string section, key;
  Value value;
  int line = 0;
};

const char* kind_name(Value::Kind k) {
  switch (k) {
    case Value::Str: return "a string";
    case Value::Int: return "an integer";
    case Value::Bool: return "a boolean";
    case Value::Table: return "an inline table";
  }
  return "?";
}

class TomlReader {
 public:
  TomlReader(const std::string& file, const std::string& text) : file_(file), text_(text) {}

  bool read(std::vector<Entry>& out, std::string& error) {
    std::set<std::string> sections;
    std::set<std::string> keys;  // section + "\n" + key
    std::string section;
    size_t start = 0;
    while (start <= text_.size()) {
      size_t nl = text_.find('\n', start);
      if (nl == std::string::npos) nl = text_.size();
      line_ = std::string_view(text_).substr(start, nl - start);
      if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
      pos_ = 0;
      ++lineno_;
      skip_ws();
      if (pos_ < line_.size() && line_[pos_] != '#') {
        if (line_[pos_] == '[') {
          ++pos_;
          skip_ws();
          if (pos_ < line_.size() && line_[pos_] == '[') return fail("arrays of tables ([[...]]) are not supported", error);
          std::string name;
          if (!key(name)) return fail("expected a section name after `[`", error);
          skip_ws();
          if (pos_ >= line_.size() || line_[pos_] != ']') return fail("expected `]` to close the section header", error);
          ++pos_;
          if (!end_of_line()) return fail("unexpected text after the section header", error);
          if (!sections.insert(name).second) return fail("section [" + name + "] appears twice", error);
          section = name;
          headers.emplace_back(name, lineno_);
        } else {
          Entry e;
          e.section = section;
          e.line = lineno_;
          if (!key(e.key)) return fail("expected `key = value`", error);
          skip_ws();
          if (pos_ >= line_.size() || line_[pos_] != '=') return fail("expected `=` after `" + e.key + "`", error);
          ++pos_;
          skip_ws();
          if (!value(e.value, error)) return false;
          if (!end_of_line()) return fail("unexpected text after the value of `" + e.key + "`", error);
          if (!keys.insert(section + "\n" + e.key).second) return fail("key `" + e.key + "` appears twice", error);
          out.push_back(std::move(e));
        }
      }
      if (nl == text_.size()) break;
      start = nl + 1;
    }
    return true;
  }

  int line() const { return lineno_; }
  std::vector<std::pair<std::string, int>> headers;  // every [section] and its line

 private:
  bool fail(const std::string& msg, std::string& error) {
    error = file_ + ":" + std::to_string(lineno_) + ": " + msg;
    return false;
  }
  void skip_ws() {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
  }
  bool end_of_line() {
    skip_ws();
    return pos_ >= line_.size() || line_[pos_] == '#';
  }
  static bool bare(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }
  bool key(std::string& out) {
    if (pos_ < line_.size() && (line_[pos_] == '"' || line_[pos_] == '\'')) {
      std::string err;
      return string(out, err);
    }
    size_t b = pos_;
    while (pos_ < line_.size() && bare(line_[pos_])) ++pos_;
    out = std::string(line_.substr(b, pos_ - b));
    return !out.empty();
  }
  bool string(std::string& out, std::string& error) {
    char q = line_[pos_++];
    out.clear();
    while (pos_ < line_.size() && line_[pos_] != q) {
      char c = line_[pos_++];
      if (q == '"' && c == '\\') {
        if (pos_ >= line_.size()) break;
        char e = line_[pos_++];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          default: return fail(std::string("unsupported escape `\\") + e + "` in a string", error);
        }
      } else {
        out += c;
      }
    }
    if (pos_ >= line_.size()) return fail("unterminated string", error);
    ++pos_;
    return true;
  }
  bool value(Value& v, std::string& error) {
    if (pos_ >= line_.size() || line_[pos_] == '#') return fail("expected a value", error);
    char c = line_[pos_];
    if (c == '"' || c == '\'') {
      if (c == '"' && line_.substr(pos_, 3) == "\"\"\"") return fail("multi-line strings are not supported", error);
      v.kind = Value::Str;
      return string(v.str, error);
    }
    if (c == '{') {
      v.kind = Value::Table;
      ++pos_;
      skip_ws();
      if (pos_ < line_.size() && line_[pos_] == '}') {
        ++pos_;
        return true;
      }
      for (;;) {
        skip_ws();
        std::string k;
        if (!key(k)) return fail("expected `key = value` inside `{ }`", error);
        for (auto& [seen, _] : v.table)
          if (seen == k) return fail("key `" + k + "` appears twice", error);
        skip_ws();
        if (pos_ >= line_.size() || line_[pos_] != '=') return fail("expected `=` after `" + k + "`", error);
        ++pos_;
        skip_ws();
        Value inner;
        if (!value(inner, error)) return false;
        if (inner.kind == Value::Table) return fail("nested inline tables are not supported", error);
        v.table.push_back(Field{k, std::move(inner)});
        skip_ws();
        if (pos_ < line_.size() && line_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < line_.size() && line_[pos_] == '}') {
          ++pos_;
          return true;
        }
        return fail("expected `,` or `}` in an inline table (it must fit on one line)", error);
      }
    }
    if (c == '[') return fail("arrays are not supported", error);
    size_t b = pos_;
    while (pos_ < line_.size() && (bare(line_[pos_]) || line_[pos_] == '+' || line_[pos_] == '.')) ++pos_;
    std::string word(line_.substr(b, pos_ - b));
    if (word == "true" || word == "false") {
      v.kind = Value::Bool;
      v.flag = word == "true";
      return true;
    }
    std::string digits;
    for (size_t i = 0; i < word.size(); ++i)
      if (word[i] != '_' || (i > 0 && i + 1 < word.size() && std::isdigit((unsigned char)word[i - 1]) &&
                             std::isdigit((unsigned char)word[i + 1])))
        digits += word[i];
      else
        digits = "x";
    size_t d = (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) ? 1 : 0;
    bool ok = digits.size() > d && digits.size() < 19;
    for (size_t i = d; ok && i < digits.size(); ++i) ok = std::isdigit((unsigned char)digits[i]);
    if (ok) {
      v.kind = Value::Int;
      v.num = std::stoll(digits);
      return true;
    }
    return fail(word.empty() ? "expected a value" : "`" + word + "` is not a value woc reads (strings are quoted)",
                error);
  }

  const std::string& file_;
  const std::string& text_;
  std::string_view line_;
  size_t pos_ = 0;
  int lineno_ = 0;
};

bool valid_dep_name(const std::string& n) {
  if (n.empty() || !(std::isalpha((unsigned char)n[0]) || n[0] == '_')) return false;
  for (char c : n)
    if (!(std::isalnum((unsigned char)c) || c == '_' || c == '-')) return false;
  return n.back() != '-';
}

bool read_deps(const std::string& file, const Entry& e, ManifestDep& d, bool lock, std::string& error) {
  auto at = [&](const std::string& msg) {
    error = file + ":" + std::to_string(e.line) + ": " + msg;
    return false;
  };
  d.name = e.key;
  d.line = e.line;
  if (!valid_dep_name(d.name)) return at("`" + d.name + "` is not a valid dependency name (it is a module name in `use`)");
  if (e.value.kind != Value::Table)
    return at("dependency `" + d.name + "` must be an inline table: { path = \"...\" } or { git = \"...\", rev = \"...\" }");
  for (auto& [k, v] : e.value.table) {
    std::string* slot = k == "path" && !lock ? &d.path
                        : k == "git"        ? &d.git
                        : k == "rev"        ? &d.rev
                        : k == "commit" && lock ? &d.commit
                                                : nullptr;
    if (!slot) return at("unknown key `" + k + "` in dependency `" + d.name + "`" + (lock ? "" : " (known: path, git, rev)"));
    if (v.kind != Value::Str) return at("`" + k + "` of dependency `" + d.name + "` must be a string, not " + kind_name(v.kind));
    if (v.str.empty()) return at("`" + k + "` of dependency `" + d.name + "` is empty");
    *slot = v.str;
  }
  if (lock) {
    if (d.git.empty() || d.rev.empty() || d.commit.empty()) return at("lock entry `" + d.name + "` needs git, rev and commit");
    return true;
  }
  if (!d.path.empty() && (!d.git.empty() || !d.rev.empty()))
    return at("dependency `" + d.name + "` has both `path` and `git`/`rev`: give one source");
  if (d.path.empty() && d.git.empty())
    return at("dependency `" + d.name + "` needs `path` or `git`");
  if ((!d.git.empty() && d.git[0] == '-') || (!d.rev.empty() && d.rev[0] == '-'))
    return at("`git`/`rev` of dependency `" + d.name + "` may not start with `-`");
  if (!d.git.empty() && d.rev.empty())
    return at("git dependency `" + d.name + "` needs an exact `rev` (a tag or commit SHA)");
  return true;
}

}  // namespace

bool parse_manifest(const std::string& file, const std::string& text, Manifest& out, std::string& error) {
  std::vector<Entry> entries;
  TomlReader reader(file, text);
  if (!reader.read(entries, error)) return false;
  // Sections first (reported at the header line; an empty one counts too).
  for (auto& [name, line] : reader.headers)
    if (name != "deps") {
      error = file + ":" + std::to_string(line) + ": unknown section [" + name + "] (known: [deps])";
      return false;
    }
  out.file = file;
  for (const Entry& e : entries) {
    auto at = [&](const std::string& msg) {
      error = file + ":" + std::to_string(e.line) + ": " + msg;
      return false;
    };
    if (e.section.empty()) {
      std::string* slot = e.key == "name" ? &out.name : e.key == "version" ? &out.version : e.key == "kind" ? &out.kind : nullptr;
      if (!slot) return at("unknown key `" + e.key + "` (known: name, version, kind, and the [deps] section)");
      if (e.value.kind != Value::Str) return at("`" + e.key + "` must be a string, not " + kind_name(e.value.kind));
      *slot = e.value.str;
      if (e.key == "kind") out.kind_line = e.line;
    } else if (e.section == "deps") {
      ManifestDep d;
      if (!read_deps(file, e, d, false, error)) return false;
      out.deps.push_back(std::move(d));
    } else {
      return at("unknown section [" + e.section + "] (known: [deps])");
    }
  }
  if (out.kind != "program" && out.kind != "library") {
    error = file + ":" + std::to_string(out.kind_line) + ": error WO-E109: unknown kind `" + out.kind +
            "` (valid: \"program\", the default, and \"library\")";
    return false;
  }
  return true;
}

bool parse_lock(const std::string& file, const std::string& text, Manifest& out, std::string& error) {
  std::vector<Entry> entries;
  TomlReader reader(file, text);
  if (!reader.read(entries, error)) return false;
  for (auto& [name, line] : reader.headers)
    if (name != "deps") {
      error = file + ":" + std::to_string(line) + ": unknown section [" + name + "] (wo.lock holds only [deps])";
      return false;
    }
  out.file = file;
  for (const Entry& e : entries) {
    if (e.section != "deps") {
      error = file + ":" + std::to_string(e.line) + ": unexpected `" + e.key + "` (wo.lock holds only [deps])";
      return false;
    }
    ManifestDep d;
    if (!read_deps(file, e, d, true, error)) return false;
    out.deps.push_back(std::move(d));
  }
  return true;
}

// ---- resolution ----------------------------------------------------------

namespace {

bool read_text(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return !in.bad();
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `git <args>`; returns its exit status, stdout in `out`, stderr+stdout
// tail in `err`. -1 when git cannot be started.
int run_git(const std::vector<std::string>& args, std::string& out, std::string& err) {
  std::string cmd = "GIT_TERMINAL_PROMPT=0 git";
  for (auto& a : args) cmd += " " + shell_quote(a);
  cmd += " </dev/null 2>&1";
  out.clear();
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  err = out;
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  if (auto nl = err.rfind('\n'); nl != std::string::npos) err = err.substr(nl + 1);  // the last line says why
  if (st == -1 || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
}

bool has_git() {
  std::string out, err;
  return run_git({"--version"}, out, err) == 0;
}

bool has_wo_files(const fs::path& dir) {
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
  for (auto end = fs::recursive_directory_iterator(); !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) {
      std::string n = it->path().filename().string();
      if (!n.empty() && n[0] == '.') it.disable_recursion_pending();
      continue;
    }
    if (it->path().extension() == ".wo") return true;
  }
  return false;
}

}  // namespace

bool resolve_project(const std::string& dir, bool update, Project& out, std::string& error) {
  fs::path root(dir);
  fs::path manifest_path = root / "wo.toml";
  std::error_code ec;
  if (!fs::exists(manifest_path, ec)) return true;
  out.has_manifest = true;
  std::string mfile = manifest_path.string();
  std::string text;
  if (!read_text(mfile, text)) {
    error = "cannot read '" + mfile + "': " + std::strerror(errno ? errno : EIO);
    return false;
  }
  Manifest m;
  if (!parse_manifest(mfile, text, m, error)) return false;
  out.library = m.kind == "library";

  auto fail = [&](const ManifestDep& d, const std::string& code, const std::string& msg) {
    error = mfile + ":" + std::to_string(d.line) + ": error " + code + ": dependency `" + d.name + "`: " + msg;
    return false;
  };

  // The lock, when there is one and it is wanted.
  std::string lfile = (root / "wo.lock").string();
  Manifest lock;
  if (!update && fs::exists(lfile, ec)) {
    std::string ltext;
    if (!read_text(lfile, ltext)) {
      error = "cannot read '" + lfile + "': " + std::strerror(errno ? errno : EIO);
      return false;
    }
    if (!parse_lock(lfile, ltext, lock, error)) return false;
  }

  std::vector<ManifestDep> locked_out;
  bool any_git = false;
  for (ManifestDep& d : m.deps) {
    if (wo::is_stdlib_namespace(d.name))
      return fail(d, "WO-E107", "the name is a standard-library namespace, so `use " + d.name + "` could never reach it");
    // A top-level module of the same name (a folder with .wo files that is not
    // this path dependency itself) would make `use <name>` ambiguous.
    bool own_dir = !d.path.empty() && fs::equivalent(root / d.name,
                                                     fs::path(d.path).is_absolute() ? fs::path(d.path) : root / d.path, ec);
    if (fs::is_directory(root / d.name, ec) && has_wo_files(root / d.name) && !own_dir)
      return fail(d, "WO-E107", "the project has a top-level directory `" + d.name + "/` of the same name (ambiguous `use`)");
    fs::path ddir;
    if (!d.path.empty()) {
      ddir = fs::path(d.path).is_absolute() ? fs::path(d.path) : root / d.path;
      if (!fs::is_directory(ddir, ec)) return fail(d, "WO-E106", "path '" + ddir.string() + "' is not a directory");
    } else {
      any_git = true;
      if (!has_git()) return fail(d, "WO-E106", "the `git` command is not available");
      ddir = root / ".wo-deps" / d.name;
      std::string want;  // the commit to check out
      for (auto& l : lock.deps)
        if (l.name == d.name && l.git == d.git && l.rev == d.rev) want = l.commit;
      std::string o, e;
      std::string dstr = ddir.string();
      bool have = fs::exists(ddir / ".git", ec);
      if (have && !want.empty() && run_git({"-C", dstr, "rev-parse", "HEAD"}, o, e) == 0 &&
          o.substr(0, o.find('\n')) == want) {
        // cached at the locked commit
      } else {
        if (have) {
          std::string url;
          if (run_git({"-C", dstr, "config", "--get", "remote.origin.url"}, url, e) != 0 ||
              url.substr(0, url.find('\n')) != d.git) {
            fs::remove_all(ddir, ec);
            have = false;
          }
        }
        // A fresh clone goes to a temporary sibling, renamed into place only
        // once checked out: an interrupted fetch never looks like a cache.
        fs::path final_dir = ddir;
        if (!have) {
          fs::create_directories(ddir.parent_path(), ec);
          ddir = ddir.parent_path() / (".tmp-" + d.name + "-" + std::to_string(getpid()));
          fs::remove_all(ddir, ec);
          dstr = ddir.string();
          if (run_git({"clone", "--quiet", "--no-checkout", d.git, dstr}, o, e) != 0) {
            fs::remove_all(ddir, ec);
            return fail(d, "WO-E106", "git clone of '" + d.git + "' failed: " + e);
          }
        } else if (run_git({"-C", dstr, "fetch", "--quiet", "--tags", "--force", "origin"}, o, e) != 0) {
          return fail(d, "WO-E106", "git fetch of '" + d.git + "' failed: " + e);
        }
        std::string target = want.empty() ? d.rev : want;
        if (run_git({"-C", dstr, "rev-parse", "--verify", "--quiet", target + "^{commit}"}, o, e) != 0) {
          // a SHA not reachable from the cloned refs
          run_git({"-C", dstr, "fetch", "--quiet", "origin", target}, o, e);
          if (run_git({"-C", dstr, "rev-parse", "--verify", "--quiet", target + "^{commit}"}, o, e) != 0) {
            if (ddir != final_dir) fs::remove_all(ddir, ec);
            return fail(d, "WO-E106",
                        want.empty() ? "rev `" + d.rev + "` not found in '" + d.git + "' (give an exact tag or commit SHA)"
                                     : "locked commit " + want + " (wo.lock) not found in '" + d.git + "'");
          }
        }
        std::string sha = o.substr(0, o.find('\n'));
        if (run_git({"-C", dstr, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--force", "--detach", sha}, o,
                    e) != 0) {
          if (ddir != final_dir) fs::remove_all(ddir, ec);
          return fail(d, "WO-E106", "git checkout of " + sha + " failed: " + e);
        }
        want = sha;
        if (ddir != final_dir) {
          fs::rename(ddir, final_dir, ec);
          if (ec) {
            fs::remove_all(ddir, ec);
            return fail(d, "WO-E106", "cannot move the clone into '" + final_dir.string() + "'");
          }
          ddir = final_dir;
        }
      }
      ManifestDep l = d;
      l.commit = want;
      locked_out.push_back(l);
    }
    if (!has_wo_files(ddir)) return fail(d, "WO-E106", "'" + ddir.string() + "' holds no .wo files (not a writeonce project)");
    if (fs::exists(ddir / "wo.toml", ec)) {
      std::string dtext, dfile = (ddir / "wo.toml").string();
      Manifest dm;
      if (!read_text(dfile, dtext)) return fail(d, "WO-E106", "cannot read '" + dfile + "'");
      if (!parse_manifest(dfile, dtext, dm, error)) return false;
      if (!dm.deps.empty())
        return fail(d, "WO-E106", "it has [deps] of its own; only flat dependencies are allowed (list them in this wo.toml)");
    }
    out.deps.push_back({d.name, ddir.string()});
  }

  if (any_git) {
    std::string lt = "# wo.lock: written by woc. Each git dependency pinned to the commit its rev resolved to.\n"
                     "# The lock wins over a moved tag; `woc --update-deps` re-resolves.\n[deps]\n";
    for (auto& l : locked_out) {
      auto q = [](const std::string& s) {
        std::string r = "\"";
        for (char c : s) r += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
        return r + "\"";
      };
      lt += l.name + " = { git = " + q(l.git) + ", rev = " + q(l.rev) + ", commit = " + q(l.commit) + " }\n";
    }
    std::string old;
    if (!read_text(lfile, old) || old != lt) {
      std::ofstream f(lfile, std::ios::binary | std::ios::trunc);
      f << lt;
      if (!f) {
        error = "cannot write '" + lfile + "'";
        return false;
      }
    }
  }
  return true;
}

}  // namespace wo
