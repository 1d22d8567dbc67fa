// The default shard count from the CPUs the process may use (cpu_budget.h).
#include "cpu_budget.h"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "../core/cgroup.h"

namespace wo::sched {

namespace {

int64_t cpus_of(long long quota, long long period) {
  if (quota <= 0 || period <= 0) return -1;
  long long n = (quota + period - 1) / period;
  return n > 1024 ? 1024 : n;
}

}  // namespace

int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus < 1 ? 1 : static_cast<int>(cpus);
}

int parse_cpu_max(const std::string& line) {
  std::istringstream in(line);
  std::string quota;
  long long period = 0;
  if (!(in >> quota >> period) || quota == "max") return 0;
  char* end = nullptr;
  long long q = std::strtoll(quota.c_str(), &end, 10);
  if (*end) return 0;
  int64_t n = cpus_of(q, period);
  return n > 0 ? static_cast<int>(n) : 0;
}

int cgroup_cpus(const char* self, const std::string& sys) {
  int64_t n = wo::cgroup_smallest(
      self, sys, "cpu", [](const std::string& dir) -> int64_t { return parse_cpu_max(read_cgroup_line(dir + "/cpu.max")); },
      [](const std::string& dir) -> int64_t {
        // -1 in cfs_quota_us is no limit (read_cgroup_number gives -1 too).
        return cpus_of(read_cgroup_number(dir + "/cpu.cfs_quota_us"), read_cgroup_number(dir + "/cpu.cfs_period_us"));
      });
  return n > 0 ? static_cast<int>(n) : 0;
}

int usable_cpus() {
  int n = affinity_cpus();
  int quota = cgroup_cpus();
  if (quota > 0 && quota < n) n = quota;
  return n < 1 ? 1 : n > 64 ? 64 : n;
}

}  // namespace wo::sched
