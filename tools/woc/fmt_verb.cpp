// woc fmt: the file-system side of the formatter (format/format.h does the
// work). Directories are walked for .wo files; without --check a file that
// changes is rewritten in place (through a temporary file and a rename, so an
// interrupted run never leaves half a file).
#include "tools/woc/fmt_verb.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "format/format.h"
#include "tools/woc/pipeline.h"

namespace wo::driver {
namespace fs = std::filesystem;
namespace {

// The .wo files under `dir`, sorted; dot-directories and fetched deps skipped.
std::vector<std::string> wo_files_under(const fs::path& dir, std::string& error) {
  std::vector<std::string> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  if (ec) {
    error = "cannot read " + dir.string() + ": " + ec.message();
    return files;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) {
      error = "cannot read " + dir.string() + ": " + ec.message();
      return files;
    }
    std::string name = it->path().filename().string();
    if (it->is_directory()) {
      if (name.size() > 1 && name[0] == '.') it.disable_recursion_pending();
      if (name == ".wo-deps") it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".wo") files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool read_all(std::istream& in, std::string& out) {
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return !in.bad();
}

bool write_file(const std::string& path, const std::string& text) {
  std::string tmp = path + ".wofmt.tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !(out << text) || !out.flush()) return false;
  }
  std::error_code ec;
  fs::permissions(tmp, fs::status(path, ec).permissions(), ec);
  fs::rename(tmp, path, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

}  // namespace

int fmt_verb(const Options& opts) {
  if (std::find(opts.paths.begin(), opts.paths.end(), "-") != opts.paths.end()) {
    if (opts.paths.size() != 1) return driver_failure("fmt: `-` (standard input) must be the only PATH");
    std::string src;
    if (!read_all(std::cin, src)) return driver_failure("cannot read standard input");
    format::Result r = format::format_source(src, "<stdin>");
    if (!r.ok) {
      std::cerr << r.error;
      return 1;
    }
    if (opts.fmt_check) {
      if (r.text == src) return 0;
      std::cout << "<stdin>\n";
      return 1;
    }
    std::cout << r.text;
    return 0;
  }
  std::vector<std::string> files;
  for (const std::string& p : opts.paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::string error;
      auto under = wo_files_under(p, error);
      if (!error.empty()) return driver_failure(error);
      files.insert(files.end(), under.begin(), under.end());
    } else if (fs::exists(p, ec)) {
      files.push_back(p);
    } else {
      return driver_failure("cannot read " + p + ": no such file or directory");
    }
  }
  int status = 0;
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string src;
    if (!in || !read_all(in, src)) return driver_failure("cannot read " + f);
    format::Result r = format::format_source(src, f);
    if (!r.ok) {
      std::cerr << r.error;
      status = 1;
      continue;
    }
    if (r.text == src) continue;
    if (opts.fmt_check) {
      std::cout << f << "\n";
      status = 1;
    } else if (!write_file(f, r.text)) {
      return driver_failure("cannot write " + f);
    }
  }
  return status;
}

}  // namespace wo::driver
