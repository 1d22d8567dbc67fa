// The cycle collector for traced classes (language.md §15.6).
//
// Reference counts free everything except cycles, and only objects of traced
// classes can close a cycle. So the collector tracks exactly those objects and,
// when asked, runs trial deletion (Bacon & Rajan) over the subgraph reachable
// from them: an object whose count exceeds the references it receives from
// inside the subgraph is held from outside (a local, a field of an untraced
// object, a global) and is live, as is everything it reaches; the rest is
// garbage held only by itself. Garbage is freed by first cutting its edges to
// other garbage, then releasing each object once, so every destroy runs
// exactly once and values outside the garbage are released normally.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gc.h"
#include "heap.h"

namespace {

// destroy -> trace. Registered by the program's entry before `main` (and so
// before any shard thread starts); read-only afterwards.
std::unordered_map<void (*)(void*), WoTrace>& traces() {
  static std::unordered_map<void (*)(void*), WoTrace> t;
  return t;
}

// One collector per thread (per shard): traced objects never cross shards
// (WO-E222), so each shard finds its own cycles.
struct Collector {
  std::unordered_set<void*> tracked;                     // live traced objects
  size_t threshold = 4096;                               // collect when tracked grows past this
  bool collecting = false;

  WoTrace trace_of(void* obj) const {
    auto destroy = static_cast<WoHeader*>(obj)->destroy;
    if (!destroy) return nullptr;  // Text, Bytes, runtime records: leaves
    if (wo::is_list_destroy(destroy)) return wo::list_trace;
    if (wo::is_map_destroy(destroy)) return wo::map_trace;
    auto it = traces().find(destroy);
    return it == traces().end() ? nullptr : it->second;
  }

  void collect();
};

Collector& gc() {
  thread_local Collector c;
  return c;
}

struct Walk {
  const Collector* c;
  std::unordered_map<void*, size_t> index;  // object -> position in nodes
  std::vector<void*> nodes;

  void add(void* obj) {
    if (!obj || static_cast<WoHeader*>(obj)->rc < 0) return;  // immortal objects are never garbage
    if (index.emplace(obj, nodes.size()).second) nodes.push_back(obj);
  }
};

void Collector::collect() {
  if (collecting || tracked.empty()) return;
  collecting = true;
  // 1. The subgraph reachable from the traced objects.
  Walk w{this, {}, {}};
  for (void* t : tracked) w.add(t);
  for (size_t i = 0; i < w.nodes.size(); ++i) {
    if (WoTrace tr = trace_of(w.nodes[i]))
      tr(w.nodes[i], [](void** slot, void* ctx) { static_cast<Walk*>(ctx)->add(*slot); }, &w);
  }
  // 2. References each node receives from inside the subgraph.
  std::vector<int64_t> internal(w.nodes.size(), 0);
  struct Count { Walk* w; std::vector<int64_t>* internal; };
  Count cnt{&w, &internal};
  for (void* n : w.nodes)
    if (WoTrace tr = trace_of(n))
      tr(n, [](void** slot, void* ctx) {
        auto* c = static_cast<Count*>(ctx);
        auto it = c->w->index.find(*slot);
        if (it != c->w->index.end()) ++(*c->internal)[it->second];
      }, &cnt);
  // 3. Held from outside -> live, and so is everything it reaches.
  std::vector<char> live(w.nodes.size(), 0);
  std::vector<size_t> work;
  for (size_t i = 0; i < w.nodes.size(); ++i)
    if (static_cast<WoHeader*>(w.nodes[i])->rc > internal[i]) {
      live[i] = 1;
      work.push_back(i);
    }
  struct Mark { Walk* w; std::vector<char>* live; std::vector<size_t>* work; };
  Mark mk{&w, &live, &work};
  while (!work.empty()) {
    size_t i = work.back();
    work.pop_back();
    if (WoTrace tr = trace_of(w.nodes[i]))
      tr(w.nodes[i], [](void** slot, void* ctx) {
        auto* m = static_cast<Mark*>(ctx);
        auto it = m->w->index.find(*slot);
        if (it == m->w->index.end() || (*m->live)[it->second]) return;
        (*m->live)[it->second] = 1;
        m->work->push_back(it->second);
      }, &mk);
  }
  // 4. Garbage: cut the edges between garbage objects, then release each once.
  std::vector<void*> garbage;
  for (size_t i = 0; i < w.nodes.size(); ++i)
    if (!live[i]) garbage.push_back(w.nodes[i]);
  struct Cut { Walk* w; std::vector<char>* live; };
  Cut cut{&w, &live};
  for (void* g : garbage)
    if (WoTrace tr = trace_of(g))
      tr(g, [](void** slot, void* ctx) {
        auto* c = static_cast<Cut*>(ctx);
        auto it = c->w->index.find(*slot);
        if (it != c->w->index.end() && !(*c->live)[it->second]) *slot = nullptr;
      }, &cut);
  for (void* g : garbage) {
    static_cast<WoHeader*>(g)->rc = 1;
    wo_release(g);
  }
  threshold = std::max<size_t>(4096, tracked.size() * 2);
  collecting = false;
}

}  // namespace

extern "C" {

void wo_gc_register(void (*destroy)(void*), WoTrace trace) { traces()[destroy] = trace; }

void* wo_alloc_traced(int64_t size, void (*destroy)(void*)) {
  Collector& c = gc();
  if (c.tracked.size() >= c.threshold) c.collect();
  void* obj = wo_alloc(size, destroy);
  c.tracked.insert(obj);
  return obj;
}

void wo_gc_forget(void* obj) { gc().tracked.erase(obj); }

void wo_gc_collect(void) { gc().collect(); }

int64_t wo_gc_tracked(void) { return static_cast<int64_t>(gc().tracked.size()); }

}  // extern "C"
