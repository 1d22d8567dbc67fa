// The smallest actor state the store's actor tests need, `class S { me: Int }`
// (unused by their code), the Int type descriptor their messages and
// replies use, and main's bounded wait: one copy for db_fiber_commit_test, db_held_messages_test and
// db_crash_writer.
#pragma once
#include <cstddef>
#include <cstdint>

#include "wo_actor.h"
#include "wo_runtime.h"

namespace dbtest {

inline const WoTypeDesc kIntDesc{WO_TY_INT, nullptr, nullptr, nullptr, 0, nullptr};

struct OneIntState {
  WoHeader h;
  int64_t me;
};
inline const WoFieldDesc kOneIntFields[] = {{"me", &kIntDesc, offsetof(OneIntState, me)}};
inline const WoClassDesc kOneIntClass{"S", sizeof(OneIntState), nullptr, 1, kOneIntFields};
inline const WoTypeDesc kOneIntState{WO_TY_CLASS, nullptr, nullptr, &kOneIntClass, 0, nullptr};

// A fresh state for wo_spawn, which takes ownership.
inline void* new_one_int_state() { return wo_alloc(sizeof(OneIntState), nullptr); }

// Parks `main` (1 ms naps, a fiber wait like any other) until `done`, at
// most 10 s; false on the bound.
template <class F>
bool main_waits_for(F done) {
  static const WoSite site{"main_waits_for", 1, nullptr, 0};
  for (int i = 0; i < 10000; ++i) {
    if (done()) return true;
    wo_time_sleep(1, &site);
  }
  return done();
}

}  // namespace dbtest
