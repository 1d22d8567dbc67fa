// Control-group limits (cgroup.h).
#include "cgroup.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace wo {

namespace {

// The smallest limit `read` finds in `mount` + `path` or an ancestor, or -1.
int64_t smallest_up(const std::string& mount, std::string path, const CgroupRead& read) {
  int64_t best = -1;
  for (;;) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    int64_t v = read(mount + (path == "/" ? "" : path));
    if (v > 0 && (best < 0 || v < best)) best = v;
    if (path.empty() || path == "/") break;
    size_t slash = path.rfind('/');
    path.resize(slash == std::string::npos ? 0 : slash);
    if (path.empty()) path = "/";
  }
  return best;
}

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

}  // namespace

std::string read_cgroup_line(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "re");
  if (!f) return {};
  char buf[256] = {};
  bool got = std::fgets(buf, sizeof buf, f) != nullptr;
  std::fclose(f);
  std::string line = got ? buf : "";
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

int64_t read_cgroup_number(const std::string& path) {
  std::string line = read_cgroup_line(path);
  if (line.empty() || line[0] < '0' || line[0] > '9') return -1;
  unsigned long long v = std::strtoull(line.c_str(), nullptr, 10);
  return v > static_cast<unsigned long long>(INT64_MAX) ? -1 : static_cast<int64_t>(v);
}

int64_t cgroup_smallest(const char* self, const std::string& sys, const char* controller, const CgroupRead& v2,
                        const CgroupRead& v1) {
  int64_t limit = -1;
  FILE* f = std::fopen(self, "re");
  if (!f) return limit;
  // A v2 hierarchy mounted beside v1 ones (a hybrid host) lives in unified/.
  std::string v2_mount = exists(sys + "/cgroup.controllers") || !exists(sys + "/unified") ? sys : sys + "/unified";
  std::string wanted = std::string(",") + controller + ",";
  char line[4096];
  while (std::fgets(line, sizeof line, f)) {
    std::string l(line);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    size_t a = l.find(':');
    size_t b = a == std::string::npos ? a : l.find(':', a + 1);
    if (b == std::string::npos) continue;
    std::string controllers = l.substr(a + 1, b - a - 1);
    std::string path = l.substr(b + 1);
    int64_t v = -1;
    if (l.compare(0, a, "0") == 0 && controllers.empty())
      v = smallest_up(v2_mount, path, v2);
    else if (("," + controllers + ",").find(wanted) != std::string::npos)
      v = smallest_up(sys + "/" + controller, path, v1);
    if (v > 0 && (limit < 0 || v < limit)) limit = v;
  }
  std::fclose(f);
  return limit;
}

}  // namespace wo
