// now(): wall-clock milliseconds since the Unix epoch (CLOCK_REALTIME).
#include <ctime>

#include "wo_runtime.h"

extern "C" int64_t wo_now(void) {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}
