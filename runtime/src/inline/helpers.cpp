// The runtime's hot small helpers: allocation, push, and the map probes.
//
// Compiled twice (docs/decisions/0052): into libwo_runtime.a like every
// runtime file, and by clang++-19 -O2 into LLVM bitcode that woc links into
// every optimised module as available_externally definitions, so LLVM
// inlines these fast paths into generated code (a call it does not inline
// stays a call into libwo_runtime.a). One source for both.
//
// What belongs here: small `extern "C"` entry points of wo_runtime.h whose
// fast path is a few loads and stores. Slow paths (growth, traps with a
// message) are calls to functions defined in the other runtime files;
// nothing here builds a std::string or uses a container, so the bitcode
// stays small and cheap to link. Releasing an object's last reference stays
// a call (wo_release, core/memory.cpp): codegen inlines only the count.
#include <cstdlib>
#include <cstring>

#include "../builtins/map_probe.h"
#include "../core/small_heap.h"
#include "../core/trap.h"
#include "helpers.h"

using namespace wo::map_probe;

// In the bitcode every entry point here is always inlined: each is a fast
// path of a few instructions, and LLVM's cost model would otherwise leave
// some call sites of a large function (`main`) calling.
#ifdef WO_INLINE_BITCODE
#define WO_HOT [[clang::always_inline]]
#else
#define WO_HOT
#endif

extern "C" {

// `size` is the whole object, header included; the fields start zeroed.
WO_HOT void* wo_alloc(int64_t size, void (*destroy)(void*)) {
  if (size < static_cast<int64_t>(sizeof(WoHeader))) size = sizeof(WoHeader);
  // Small objects from the small heap (huge pages), else malloc (core/small_heap.h).
  auto* h = static_cast<WoHeader*>(wo::heap_block(static_cast<size_t>(size)));
  if (!h) [[unlikely]]
    wo::raise_oom();
  h->rc = 1;
  h->destroy = destroy;
  std::memset(h + 1, 0, static_cast<size_t>(size) - sizeof(WoHeader));
  return h;
}

WO_HOT void wo_list_push(WoList* xs, uint64_t v) {
  wo::need(xs);
  if (xs->len == xs->cap) [[unlikely]]
    wo::list_grow(xs, v);
  xs->data[xs->len++] = v;
}

WO_HOT bool wo_map_has(WoMap* m, uint64_t key) {
  wo::need(m);
  return lookup(m, key).entry >= 0;
}

WO_HOT uint64_t wo_map_get_opt(WoMap* m, uint64_t key) {
  wo::need(m);
  Found f = lookup(m, key);
  if (f.entry < 0) return nil_of(m);
  m->hint = f.entry + 1;
  return m->entries[f.entry].val;
}

WO_HOT bool wo_map_find(WoMap* m, uint64_t key, uint64_t* out) {
  wo::need(m);
  Found f = lookup(m, key);
  if (f.entry < 0) return false;
  m->hint = f.entry + 1;
  *out = m->entries[f.entry].val;
  return true;
}

WO_HOT void wo_map_set(WoMap* m, uint64_t key, uint64_t val, const WoSite* site) {
  wo::need(m, site);
  if (text_keys(m) && key == 0) [[unlikely]] {
    drop_val(m, val);
    wo::raise_null_receiver(site);
  }
  // The entry the last read found, when it holds this key (`m[k] = f(m[k])`):
  // no hash and no probe. A removed entry's hash is kDead; squeeze resets the hint.
  if (int64_t c = m->hint - 1; c >= 0) {
    WoMapEntry& e = m->entries[c];
    if (e.hash != kDead && key_eq(m, e.key, key)) {
      uint64_t old = e.val;
      e.val = val;
      drop_val(m, old);
      return;
    }
  }
  set_probed(m, key, val);
}

}  // extern "C"
