// How many CPUs this process may use: the default shard count (runtime.md
// §3.9, docs/decisions/0083). A machine's CPU count says nothing about a
// container limited to one CPU or a process pinned by taskset: a shard per
// CPU it cannot run on only adds cross-thread hand-offs that wait for a
// core.
#pragma once
#include <string>

namespace wo::sched {

// The CPUs in the calling thread's affinity mask (the online count when it
// cannot be read).
int affinity_cpus();

// The CPU time a cgroup quota allows, in whole CPUs rounded up (1.5 CPUs of
// time: two shards may both run), from the v2 `cpu.max` ("150000 100000";
// "max 100000" is no limit) or the v1 cpu.cfs_quota_us / cpu.cfs_period_us
// of the process's cgroup and its ancestors. 0: no limit. `self` is
// /proc/self/cgroup, `sys` where the hierarchies are mounted.
int cgroup_cpus(const char* self = "/proc/self/cgroup", const std::string& sys = "/sys/fs/cgroup");

// A `cpu.max` line as whole CPUs (rounded up); 0 when it sets no limit or
// does not parse.
int parse_cpu_max(const std::string& line);

// min(affinity, cgroup quota), clamped to 1..64: the default shard count.
int usable_cpus();

}  // namespace wo::sched
