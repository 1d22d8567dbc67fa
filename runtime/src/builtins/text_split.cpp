// The Text builtins that cross into lists: split, split_ws and join
// (builtins.md §3). Results are `multi Text` lists (WO_ELEM_TEXT) owning
// fresh Texts.
#include <cstring>

#include "../core/heap.h"
#include "text_ws.h"
#include "../core/trap.h"

namespace {

void push_piece(WoList* out, const char* p, size_t n) {
  wo_list_push(out, reinterpret_cast<uint64_t>(wo::text_from(p, n)));
}

}  // namespace

extern "C" {

WoList* wo_split(WoText* t, WoText* sep, const WoSite* site) {
  wo::need(t, site);
  wo::need(sep, site);
  if (sep->len == 0) [[unlikely]]
    wo::raise(6, site, "split: empty separator");
  WoList* out = wo_list_new(WO_ELEM_TEXT, 4);
  wo::OwnedGuard guard(out);
  const char* p = t->bytes;
  const char* end = t->bytes + t->len;
  const size_t slen = static_cast<size_t>(sep->len);
  for (;;) {
    const void* hit = memmem(p, static_cast<size_t>(end - p), sep->bytes, slen);
    if (!hit) break;
    const char* h = static_cast<const char*>(hit);
    push_piece(out, p, static_cast<size_t>(h - p));
    p = h + slen;
  }
  push_piece(out, p, static_cast<size_t>(end - p));  // the last piece, possibly empty
  guard.disown();
  return out;
}

WoList* wo_split_ws(WoText* t) {
  wo::need(t);
  WoList* out = wo_list_new(WO_ELEM_TEXT, 0);
  wo::OwnedGuard guard(out);
  int64_t i = 0;
  while (i < t->len) {
    while (i < t->len && wo::is_ws(t->bytes[i])) ++i;
    int64_t start = i;
    while (i < t->len && !wo::is_ws(t->bytes[i])) ++i;
    if (i > start) push_piece(out, t->bytes + start, static_cast<size_t>(i - start));
  }
  guard.disown();
  return out;
}

WoText* wo_join(WoList* xs, WoText* sep) {
  wo::need(xs);
  wo::need(sep);
  if (xs->len == 0) return wo::text_alloc(0);
  if (xs->elem_kind != WO_ELEM_TEXT && xs->elem_kind != WO_ELEM_HEAP) [[unlikely]]
    wo::raise(6, nullptr, "not a text value");
  auto at = [xs](int64_t i) { return reinterpret_cast<WoText*>(xs->data[i]); };
  int64_t total = sep->len * (xs->len - 1);
  for (int64_t i = 0; i < xs->len; ++i) {
    if (!at(i)) [[unlikely]]
      wo::raise(6, nullptr, "not a text value");
    total += at(i)->len;
  }
  WoText* r = wo::text_alloc(total);
  char* w = r->bytes;
  for (int64_t i = 0; i < xs->len; ++i) {
    if (i > 0) {
      std::memcpy(w, sep->bytes, static_cast<size_t>(sep->len));
      w += sep->len;
    }
    std::memcpy(w, at(i)->bytes, static_cast<size_t>(at(i)->len));
    w += at(i)->len;
  }
  return r;
}

}  // extern "C"
