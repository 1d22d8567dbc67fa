// Deep copies at the shard boundary (runtime.md §3.11): reference counts are
// not atomic, so no object may be reachable from two threads. A message, a
// spawned actor's state or a notice that crosses to another shard is copied
// on the sending thread, guided by the WoTypeDesc of its static type, and the
// sender releases its original. Immortal objects (literals, bare union
// variants) are never written, so they are shared as they are.
#include <cstring>

#include "../core/heap.h"
#include "../core/trap.h"
#include "sched.h"

namespace wo::sched {

namespace {

bool is_heap_kind(int64_t kind) {
  switch (kind) {
    case WO_TY_TEXT: case WO_TY_BYTES: case WO_TY_JSON_VALUE: case WO_TY_CLASS:
    case WO_TY_LIST: case WO_TY_MAP: case WO_TY_UNION: case WO_TY_IFACE:
    case WO_TY_ACTOR:  // a handle (docs/decisions/0079)
      return true;
    default:
      return false;
  }
}

// A value of this type is (or, nullable, may be) a pointer to a heap object.
bool holds_heap(const WoTypeDesc* t) {
  return is_heap_kind(t->kind) || (t->kind == WO_TY_NULLABLE && is_heap_kind(t->elem->kind));
}

bool immortal(uint64_t word) { return reinterpret_cast<WoHeader*>(word)->rc < 0; }

uint64_t copy_text(uint64_t word) {
  auto* t = reinterpret_cast<WoText*>(word);
  return reinterpret_cast<uint64_t>(text_from(t->bytes, static_cast<size_t>(t->len)));
}

// Copies the object's bytes, then replaces each heap field by its own copy.
uint64_t copy_object(uint64_t word, const WoClassDesc* cls) {
  auto* src = reinterpret_cast<char*>(word);
  auto* dst = static_cast<char*>(wo_alloc(cls->size, cls->destroy));
  OwnedGuard guard(dst);
  size_t payload = static_cast<size_t>(cls->size) - sizeof(WoHeader);
  std::memcpy(dst + sizeof(WoHeader), src + sizeof(WoHeader), payload);
  // Null the heap fields first: if a copy below traps OOM, the guard's
  // release must not free the source's objects.
  for (int64_t i = 0; i < cls->nfields; ++i) {
    const WoFieldDesc& f = cls->fields[i];
    if (holds_heap(f.type)) std::memset(dst + f.offset, 0, sizeof(uint64_t));
  }
  for (int64_t i = 0; i < cls->nfields; ++i) {
    const WoFieldDesc& f = cls->fields[i];
    if (!holds_heap(f.type)) continue;
    uint64_t v;
    std::memcpy(&v, src + f.offset, sizeof v);
    uint64_t c = copy_value(v, f.type);
    std::memcpy(dst + f.offset, &c, sizeof c);
  }
  guard.disown();
  return reinterpret_cast<uint64_t>(dst);
}

uint64_t copy_list(uint64_t word, const WoTypeDesc* elem) {
  auto* xs = reinterpret_cast<WoList*>(word);
  WoList* out = wo_list_new(xs->elem_kind, xs->len);
  OwnedGuard guard(out);
  for (int64_t i = 0; i < xs->len; ++i) wo_list_push(out, copy_value(xs->data[i], elem));
  guard.disown();
  return reinterpret_cast<uint64_t>(out);
}

uint64_t copy_map(uint64_t word, const WoTypeDesc* key, const WoTypeDesc* val) {
  auto* m = reinterpret_cast<WoMap*>(word);
  WoMap* out = wo_map_new(m->key_kind, m->val_kind);
  OwnedGuard guard(out);
  uint64_t k = 0, v = 0;
  for (int64_t p = wo_map_iter(m, 0, &k, &v); p >= 0; p = wo_map_iter(m, p + 1, &k, &v)) {
    uint64_t kc = copy_value(k, key);
    OwnedGuard key_guard(is_heap_kind(key->kind) ? reinterpret_cast<void*>(kc) : nullptr);
    wo_map_set(out, kc, copy_value(v, val), nullptr);  // the map retains a Text key itself
  }
  guard.disown();
  return reinterpret_cast<uint64_t>(out);
}

// An interface box { WoHeader, obj, vtable }: a new box with the same
// destroy and vtable around a deep copy of the object, laid out by the
// dynamic class's descriptor in vtable slot 0 (WO_TY_IFACE).
struct Box {
  WoHeader h;
  void* obj;
  const void* const* vtable;
};

uint64_t copy_box(uint64_t word) {
  auto* src = reinterpret_cast<Box*>(word);
  auto* cls = static_cast<const WoClassDesc*>(src->vtable[0]);
  auto* dst = static_cast<Box*>(wo_alloc(sizeof(Box), src->h.destroy));
  dst->obj = nullptr;  // the guard's release must find no object if the copy traps
  dst->vtable = src->vtable;
  OwnedGuard guard(dst);
  auto obj = reinterpret_cast<uint64_t>(src->obj);
  dst->obj = reinterpret_cast<void*>(immortal(obj) ? obj : copy_object(obj, cls));
  guard.disown();
  return reinterpret_cast<uint64_t>(dst);
}

}  // namespace

bool is_nil(uint64_t word, const WoTypeDesc* type) {
  if (type->kind == WO_TY_NULLABLE) type = type->elem;
  if (is_heap_kind(type->kind)) return word == 0;
  if (type->kind == WO_TY_FLOAT) return word == WO_NIL_FLOAT_BITS;
  return static_cast<int64_t>(word) == WO_NIL_SCALAR;
}

uint64_t copy_value(uint64_t word, const WoTypeDesc* type) {
  switch (type->kind) {
    case WO_TY_TEXT: case WO_TY_BYTES: case WO_TY_JSON_VALUE:
      return word == 0 || immortal(word) ? word : copy_text(word);
    case WO_TY_CLASS:
      return word == 0 || immortal(word) ? word : copy_object(word, type->cls);
    case WO_TY_UNION: {
      if (word == 0 || immortal(word)) return word;
      int64_t tag;
      std::memcpy(&tag, reinterpret_cast<char*>(word) + sizeof(WoHeader), sizeof tag);
      if (tag < 0 || tag >= type->nvariants) raise_oom();  // a corrupt value: never silently shared
      return copy_object(word, &type->variants[tag]);
    }
    case WO_TY_LIST:
      return word == 0 || immortal(word) ? word : copy_list(word, type->elem);
    case WO_TY_MAP:
      return word == 0 || immortal(word) ? word : copy_map(word, type->elem, type->value);
    case WO_TY_IFACE:
      return word == 0 || immortal(word) ? word : copy_box(word);
    case WO_TY_ACTOR:  // a handle of the receiving side, naming the same actor
      return word == 0 ? word : reinterpret_cast<uint64_t>(new_ref(ref_actor(static_cast<int64_t>(word))));
    case WO_TY_NULLABLE:
      return is_heap_kind(type->elem->kind) ? copy_value(word, type->elem) : word;
    default:
      return word;  // Int, Float, Bool: plain words
  }
}

void release_value(uint64_t word, const WoTypeDesc* type) {
  if (holds_heap(type)) wo_release(reinterpret_cast<void*>(word));
}

}  // namespace wo::sched

extern "C" void* wo_deep_copy(void* value, const WoTypeDesc* type) {
  return reinterpret_cast<void*>(wo::sched::copy_value(reinterpret_cast<uint64_t>(value), type));
}
