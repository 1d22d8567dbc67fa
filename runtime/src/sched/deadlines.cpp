// The intrusive deadline heap (deadlines.h): each queued fiber records its
// slot, so removal is O(log n) without searching.
#include "deadlines.h"

#include "fiber.h"

namespace wo::sched {

bool ParkDeadlines::before(size_t a, size_t b) const {
  const Fiber* x = heap_[a];
  const Fiber* y = heap_[b];
  return x->deadline_us != y->deadline_us ? x->deadline_us < y->deadline_us : x->deadline_seq < y->deadline_seq;
}

void ParkDeadlines::place(size_t i, Fiber* f) {
  heap_[i] = f;
  f->deadline_slot = i;
}

void ParkDeadlines::sift_up(size_t i) {
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!before(i, parent)) break;
    Fiber* p = heap_[parent];
    place(parent, heap_[i]);
    place(i, p);
    i = parent;
  }
}

void ParkDeadlines::sift_down(size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < heap_.size() && before(l, m)) m = l;
    if (r < heap_.size() && before(r, m)) m = r;
    if (m == i) return;
    Fiber* c = heap_[m];
    place(m, heap_[i]);
    place(i, c);
    i = m;
  }
}

void ParkDeadlines::add(Fiber* f, int64_t deadline_us, uint64_t seq) {
  f->deadline_us = deadline_us;
  f->deadline_seq = seq;
  heap_.push_back(f);
  f->deadline_slot = heap_.size() - 1;
  sift_up(heap_.size() - 1);
}

void ParkDeadlines::remove(Fiber* f) {
  size_t i = f->deadline_slot;
  if (i == kNotQueued) return;
  f->deadline_slot = kNotQueued;
  Fiber* last = heap_.back();
  heap_.pop_back();
  if (last == f) return;
  place(i, last);
  sift_up(i);
  sift_down(last->deadline_slot);
}

void ParkDeadlines::clear() {
  for (Fiber* f : heap_) f->deadline_slot = kNotQueued;
  heap_.clear();
}

}  // namespace wo::sched
