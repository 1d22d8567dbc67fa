// The default shard count follows the CPU the process may use
// (runtime/src/sched/cpu_budget.h, docs/decisions/0083): the affinity mask
// and a cgroup quota (v2 cpu.max, v1 cfs quota/period) bound it, the
// tightest of a cgroup and its ancestors wins. The cgroup trees here are
// fake directories; the affinity case pins this thread with
// sched_setaffinity, as taskset would.
#include <doctest/doctest.h>

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/src/sched/cpu_budget.h"

namespace {

namespace fs = std::filesystem;

// A scratch directory holding a fake /proc/self/cgroup ("self") and a fake
// /sys/fs/cgroup ("sys").
struct FakeCgroups {
  fs::path root;
  FakeCgroups() {
    char tmpl[] = "/tmp/wo-cgroup-XXXXXX";
    root = mkdtemp(tmpl);
    fs::create_directories(root / "sys");
  }
  ~FakeCgroups() { fs::remove_all(root); }
  void write(const std::string& rel, const std::string& text) const {
    fs::path p = root / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  int cpus() const { return wo::sched::cgroup_cpus((root / "self").c_str(), (root / "sys").string()); }
};

}  // namespace

TEST_CASE("cpu.max lines read as whole CPUs, rounded up") {
  CHECK(wo::sched::parse_cpu_max("max 100000") == 0);
  CHECK(wo::sched::parse_cpu_max("100000 100000") == 1);
  CHECK(wo::sched::parse_cpu_max("50000 100000") == 1);
  CHECK(wo::sched::parse_cpu_max("150000 100000\n") == 2);
  CHECK(wo::sched::parse_cpu_max("400000 100000") == 4);
  CHECK(wo::sched::parse_cpu_max("") == 0);
  CHECK(wo::sched::parse_cpu_max("garbage") == 0);
  CHECK(wo::sched::parse_cpu_max("100000 0") == 0);
  CHECK(wo::sched::parse_cpu_max("-5 100000") == 0);
}

TEST_CASE("a cgroup v2 quota bounds the CPUs, the tightest ancestor wins") {
  FakeCgroups g;
  g.write("self", "0::/a/b\n");
  g.write("sys/cgroup.controllers", "cpu memory\n");
  CHECK(g.cpus() == 0);  // no cpu.max anywhere: no limit
  g.write("sys/a/b/cpu.max", "max 100000\n");
  CHECK(g.cpus() == 0);
  g.write("sys/a/b/cpu.max", "300000 100000\n");
  CHECK(g.cpus() == 3);
  g.write("sys/a/cpu.max", "100000 100000\n");  // the parent's binds the child
  CHECK(g.cpus() == 1);
}

TEST_CASE("on a hybrid host the v2 hierarchy is read from unified/") {
  FakeCgroups g;
  g.write("self", "4:memory:/m\n0::/svc\n");
  g.write("sys/unified/svc/cpu.max", "200000 100000\n");
  CHECK(g.cpus() == 2);
}

TEST_CASE("a cgroup v1 cfs quota bounds the CPUs; -1 is no limit") {
  FakeCgroups g;
  g.write("self", "2:cpu,cpuacct:/job\n1:memory:/job\n");
  g.write("sys/cpu/job/cpu.cfs_quota_us", "-1\n");
  g.write("sys/cpu/job/cpu.cfs_period_us", "100000\n");
  CHECK(g.cpus() == 0);
  g.write("sys/cpu/job/cpu.cfs_quota_us", "150000\n");
  CHECK(g.cpus() == 2);
}

TEST_CASE("no /proc/self/cgroup: no limit") {
  FakeCgroups g;
  CHECK(g.cpus() == 0);
}

TEST_CASE("the affinity mask bounds the CPUs (taskset -c 0)") {
  cpu_set_t before;
  REQUIRE(sched_getaffinity(0, sizeof before, &before) == 0);
  CHECK(wo::sched::affinity_cpus() == CPU_COUNT(&before));
  int first = 0;
  while (!CPU_ISSET(first, &before)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  CHECK(wo::sched::affinity_cpus() == 1);
  CHECK(wo::sched::usable_cpus() == 1);
  REQUIRE(sched_setaffinity(0, sizeof before, &before) == 0);
  CHECK(wo::sched::usable_cpus() >= 1);
}
