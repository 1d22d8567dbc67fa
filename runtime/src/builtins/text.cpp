// Text values and the Text builtins of builtins.md §2–§3 that return or
// inspect a single Text (split/split_ws/join live in text_split.cpp).
// Text is immutable bytes; every offset is a byte offset. A result equal to
// an argument may be that argument, retained (immutable values share).
#include <malloc.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "../core/heap.h"
#include "text_ws.h"
#include "../core/trap.h"

using wo::need;

extern "C" {

WoText* wo_text_new(const char* bytes, int64_t len) {
  return wo::text_from(bytes, static_cast<size_t>(len < 0 ? 0 : len));
}

WoText* wo_concat(WoText* a, WoText* b) {
  need(a);
  need(b);
  if (b->len == 0) {
    wo_retain(a);
    return a;
  }
  if (a->len == 0) {
    wo_retain(b);
    return b;
  }
  WoText* t = wo::text_alloc(a->len + b->len);
  std::memcpy(t->bytes, a->bytes, static_cast<size_t>(a->len));
  std::memcpy(t->bytes + a->len, b->bytes, static_cast<size_t>(b->len));
  return t;
}

WoText* wo_concat_n(WoText* const* parts, int64_t n) {
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    need(parts[i]);
    total += parts[i]->len;
  }
  WoText* t = wo::text_alloc(total);
  char* out = t->bytes;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(out, parts[i]->bytes, static_cast<size_t>(parts[i]->len));
    out += parts[i]->len;
  }
  return t;
}

// Appends in place when `a` is uniquely owned, growing its block
// geometrically, so `s = s .. x` in a loop is amortised O(len(x)).
WoText* wo_text_append(WoText* a, WoText* b) {
  need(a);
  need(b);
  if (a->h.rc != 1) {
    WoText* t = wo_concat(a, b);
    wo_release(a);
    return t;
  }
  const int64_t blen = b->len;
  if (blen == 0) return a;
  const bool self = a == b;
  const size_t needed = sizeof(WoText) + static_cast<size_t>(a->len + blen) + 1;
  const bool small = wo::small_owns(a);
  const size_t have = small ? wo::small_usable(a) : malloc_usable_size(a);
  if (needed > have) {
    size_t want = std::max(needed, have * 2);
    WoText* grown;
    if (small) {  // out of the small heap for good: it only serves fixed sizes
      grown = static_cast<WoText*>(wo::big_alloc(want));  // counted (core/heap_cap.h)
      if (grown) {
        std::memcpy(grown, a, sizeof(WoText) + static_cast<size_t>(a->len) + 1);
        wo::small_free(a);
      }
    } else {
      grown = static_cast<WoText*>(wo::big_realloc(a, want));
    }
    if (!grown) [[unlikely]] {
      wo_release(a);
      wo::raise_oom();
    }
    a = grown;
    if (self) b = a;
  }
  std::memcpy(a->bytes + a->len, b->bytes, static_cast<size_t>(blen));
  a->len += blen;
  a->bytes[a->len] = '\0';
  return a;
}

bool wo_text_eq(WoText* a, WoText* b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->len == b->len && std::memcmp(a->bytes, b->bytes, static_cast<size_t>(a->len)) == 0;
}

int64_t wo_text_cmp(WoText* a, WoText* b) {
  if (a == b) return 0;
  if (!a || !b) return a ? 1 : -1;  // nil sorts first
  size_t n = static_cast<size_t>(std::min(a->len, b->len));
  int c = n ? std::memcmp(a->bytes, b->bytes, n) : 0;
  if (c != 0) return c < 0 ? -1 : 1;
  if (a->len == b->len) return 0;
  return a->len < b->len ? -1 : 1;
}

int64_t wo_text_len(WoText* t) {
  need(t);
  return t->len;
}

WoText* wo_int_to_text(int64_t n) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, n);
  return wo::text_from(buf, static_cast<size_t>(r.ptr - buf));
}

int64_t wo_words(WoText* t) {
  need(t);
  int64_t count = 0;
  bool in_word = false;
  for (int64_t i = 0; i < t->len; ++i) {
    bool ws = wo::is_ws(t->bytes[i]);
    if (!ws && !in_word) ++count;
    in_word = !ws;
  }
  return count;
}

int64_t wo_byte_at(WoText* t, int64_t i, const WoSite* site) {
  need(t, site);
  if (static_cast<uint64_t>(i) >= static_cast<uint64_t>(t->len)) [[unlikely]]
    wo::raise(6, site, "byte index out of range", wo::index_detail(i, t->len));
  return static_cast<unsigned char>(t->bytes[i]);
}

WoText* wo_char_of(int64_t b) {
  char c = static_cast<char>(static_cast<unsigned char>(b & 0xFF));
  return wo::text_from(&c, 1);
}

WoText* wo_substr(WoText* t, int64_t start, int64_t count) {
  need(t);
  start = std::clamp<int64_t>(start, 0, t->len);
  count = std::clamp<int64_t>(count, 0, t->len - start);
  if (start == 0 && count == t->len) {
    wo_retain(t);
    return t;
  }
  return wo::text_from(t->bytes + start, static_cast<size_t>(count));
}

WoText* wo_trim(WoText* t) {
  need(t);
  int64_t b = 0, e = t->len;
  while (b < e && wo::is_ws(t->bytes[b])) ++b;
  while (e > b && wo::is_ws(t->bytes[e - 1])) --e;
  return wo_substr(t, b, e - b);
}

WoText* wo_to_lower(WoText* t) {
  need(t);
  int64_t i = 0;
  while (i < t->len && !(t->bytes[i] >= 'A' && t->bytes[i] <= 'Z')) ++i;
  if (i == t->len) {
    wo_retain(t);
    return t;
  }
  WoText* r = wo::text_from(t->bytes, static_cast<size_t>(t->len));
  for (; i < r->len; ++i) {
    char c = r->bytes[i];
    if (c >= 'A' && c <= 'Z') r->bytes[i] = static_cast<char>(c + ('a' - 'A'));
  }
  return r;
}

bool wo_starts_with(WoText* t, WoText* p) {
  need(t);
  need(p);
  return p->len <= t->len && std::memcmp(t->bytes, p->bytes, static_cast<size_t>(p->len)) == 0;
}

bool wo_ends_with(WoText* t, WoText* s) {
  need(t);
  need(s);
  return s->len <= t->len &&
         std::memcmp(t->bytes + (t->len - s->len), s->bytes, static_cast<size_t>(s->len)) == 0;
}

int64_t wo_index_of(WoText* t, WoText* n) {
  need(t);
  need(n);
  if (n->len == 0) return 0;
  const void* hit = memmem(t->bytes, static_cast<size_t>(t->len), n->bytes, static_cast<size_t>(n->len));
  return hit ? static_cast<const char*>(hit) - t->bytes : -1;
}

int64_t wo_last_index_of(WoText* t, WoText* n) {
  need(t);
  need(n);
  if (n->len == 0) return t->len;
  if (n->len > t->len) return -1;
  const char first = n->bytes[0];
  // Candidates are the occurrences of the needle's first byte, right to left.
  size_t span = static_cast<size_t>(t->len - n->len) + 1;
  while (span > 0) {
    const void* hit = memrchr(t->bytes, first, span);
    if (!hit) return -1;
    int64_t i = static_cast<const char*>(hit) - t->bytes;
    if (std::memcmp(t->bytes + i, n->bytes, static_cast<size_t>(n->len)) == 0) return i;
    span = static_cast<size_t>(i);
  }
  return -1;
}

// ?Int (builtins.md §3): leading whitespace (space, tab, LF, CR), an optional
// sign, then decimal digits up to the first non-digit ("12px" -> 12). No
// digits, or a value outside int64, is nil (WO_NIL_SCALAR): docs/decisions/0007.
// So is -(2^62), the one Int a `?Int` cannot hold (docs/decisions/0015).
int64_t wo_parse_int(WoText* t) {
  need(t);
  const char* p = t->bytes;
  const char* end = p + t->len;
  while (p < end && wo::is_ws(*p)) ++p;
  bool neg = false;
  if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
  if (p == end || *p < '0' || *p > '9') return WO_NIL_SCALAR;
  uint64_t mag = 0;
  const uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  for (; p < end && *p >= '0' && *p <= '9'; ++p) {
    uint64_t d = static_cast<uint64_t>(*p - '0');
    if (mag > (limit - d) / 10) return WO_NIL_SCALAR;
    mag = mag * 10 + d;
  }
  return neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
}

}  // extern "C"
