// wo_alloc / wo_retain / wo_release: counts, destruction, immortal objects.
#include <doctest/doctest.h>

#include "wo_runtime.h"

namespace {

int destroyed = 0;
void count_destroy(void*) { ++destroyed; }

struct Obj {
  WoHeader h;
  int64_t a;
  int64_t b;
};

}  // namespace

TEST_CASE("wo_alloc: rc 1, destroy stored, payload zeroed") {
  auto* o = static_cast<Obj*>(wo_alloc(sizeof(Obj), count_destroy));
  REQUIRE(o != nullptr);
  CHECK(o->h.rc == 1);
  CHECK((o->h.destroy == count_destroy));
  CHECK(o->a == 0);
  CHECK(o->b == 0);
  destroyed = 0;
  wo_release(o);
  CHECK(destroyed == 1);
}

TEST_CASE("retain/release: destroy runs once, when the count reaches 0") {
  destroyed = 0;
  auto* o = static_cast<Obj*>(wo_alloc(sizeof(Obj), count_destroy));
  wo_retain(o);
  wo_retain(o);
  CHECK(o->h.rc == 3);
  wo_release(o);
  wo_release(o);
  CHECK(o->h.rc == 1);
  CHECK(destroyed == 0);
  wo_release(o);
  CHECK(destroyed == 1);
}

TEST_CASE("objects without a destroy function are just freed") {
  void* o = wo_alloc(sizeof(Obj), nullptr);
  wo_retain(o);
  wo_release(o);
  wo_release(o);  // LeakSanitizer checks it is gone
}

TEST_CASE("immortal objects (rc < 0) are never counted nor destroyed") {
  destroyed = 0;
  static Obj immortal{{-1, count_destroy}, 7, 8};
  wo_retain(&immortal);
  wo_release(&immortal);
  wo_release(&immortal);
  CHECK(immortal.h.rc == -1);
  CHECK(destroyed == 0);
  CHECK(immortal.a == 7);
}

TEST_CASE("retain/release accept NULL") {
  wo_retain(nullptr);
  wo_release(nullptr);
}
