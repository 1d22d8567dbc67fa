// What the process's control groups allow it (cgroup v1 and v2): read by the
// heap's default cap (memory, heap_cap.cpp) and the default shard count
// (CPU time, sched/cpu_budget.cpp). A limit set on a parent binds its
// children, so every ancestor up to the hierarchy's root is looked at.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace wo {

// Reads one cgroup directory's limit: > 0, or <= 0 for none.
using CgroupRead = std::function<int64_t(const std::string& dir)>;

// The smallest limit of the process's cgroup or an ancestor, or -1. `self`
// is /proc/self/cgroup; `sys` is where the hierarchies are mounted
// (/sys/fs/cgroup: v2 there or, on a hybrid host, in `unified/`; a v1
// controller in its own directory). `v2` reads a v2 directory, `v1` a
// directory of the v1 hierarchy of `controller`.
int64_t cgroup_smallest(const char* self, const std::string& sys, const char* controller, const CgroupRead& v2,
                        const CgroupRead& v1);

// A cgroup file's first line, without its newline ("" when it cannot be read).
std::string read_cgroup_line(const std::string& path);

// The first number in a file (a limit), or -1 (missing, "max", garbage).
int64_t read_cgroup_number(const std::string& path);

}  // namespace wo
