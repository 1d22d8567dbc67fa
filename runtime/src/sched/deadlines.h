// Park deadlines: the wake-up time of a parked fiber (time.sleep, a net wait
// with a deadline), kept in a per-shard min-heap that the fiber itself
// indexes, so a park that ends early (the fd became ready) removes its
// deadline at once. A server doing thousands of reads a second with a
// multi-second deadline would otherwise keep every stale deadline in the
// heap until it expired: memory growing with rate × deadline (issue 9,
// "timed-out waits leave no fd, timer or fiber behind").
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fiber.h"

namespace wo::sched {

class ParkDeadlines {
 public:
  static constexpr size_t kNotQueued = kDeadlineNotQueued;
  // `f` wakes at `deadline_us`; `seq` orders equal deadlines (arming order,
  // shared with the time.after timers so both keep one order).
  void add(Fiber* f, int64_t deadline_us, uint64_t seq);
  void remove(Fiber* f);             // no-op when f has no deadline queued
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  Fiber* top() const { return heap_.front(); }
  void clear();

 private:
  bool before(size_t a, size_t b) const;
  void place(size_t i, Fiber* f);
  void sift_up(size_t i);
  void sift_down(size_t i);
  std::vector<Fiber*> heap_;
};

}  // namespace wo::sched
