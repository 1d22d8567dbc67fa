// Tests that drive the actor ABI directly hold the addresses wo_spawn hands
// them (counted handles, docs/decisions/0079) for as long as the process
// runs, the way a program keeps its actors by naming them: spawn() records
// each one, and they are released at exit, after their scheduler is gone
// (then a release frees only the handle), so LeakSanitizer sees no leak.
#pragma once
#include <cstdint>
#include <vector>

#include "wo_actor.h"
#include "wo_runtime.h"

namespace wotest {

struct SpawnedHandles {
  std::vector<int64_t> all;
  ~SpawnedHandles() {
    for (int64_t h : all) wo_release(reinterpret_cast<void*>(h));
  }
};

inline SpawnedHandles& spawned_handles() {
  static SpawnedHandles handles;
  return handles;
}

inline int64_t spawn(void* state, const WoActorType* type, const WoSite* site) {
  int64_t a = wo_spawn(state, type, site);
  spawned_handles().all.push_back(a);
  return a;
}

}  // namespace wotest
