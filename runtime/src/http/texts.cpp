// texts.h.
#include "texts.h"

#include <cstring>

#include "../core/heap.h"

namespace wo::http {

namespace {
struct ImmortalEmpty {
  WoHeader h;
  int64_t len;
  char bytes[8];
};
// Never written: rc < 0 makes wo_retain / wo_release leave it alone, so
// every thread may hand it out.
ImmortalEmpty g_empty = {{-1, nullptr}, 0, {0}};
}  // namespace

WoText* empty_text() { return reinterpret_cast<WoText*>(&g_empty); }

namespace {
// Immortal copies of the methods and header names most requests carry, so
// they cost no allocation per request (and map keys no refcount traffic).
struct Interned {
  WoHeader h;
  int64_t len;
  char bytes[32];
};
#define WO_INTERN(s) Interned{{-1, nullptr}, sizeof(s) - 1, s}
Interned g_methods[] = {WO_INTERN("GET"),    WO_INTERN("HEAD"),    WO_INTERN("POST"),
                        WO_INTERN("PUT"),    WO_INTERN("DELETE"),  WO_INTERN("PATCH"),
                        WO_INTERN("OPTIONS")};
Interned g_names[] = {
    WO_INTERN("host"),           WO_INTERN("user-agent"),      WO_INTERN("accept"),
    WO_INTERN("accept-encoding"), WO_INTERN("accept-language"), WO_INTERN("connection"),
    WO_INTERN("content-type"),   WO_INTERN("content-length"),  WO_INTERN("cookie"),
    WO_INTERN("authorization"),  WO_INTERN("referer"),         WO_INTERN("origin"),
    WO_INTERN("cache-control"),  WO_INTERN("if-none-match"),   WO_INTERN("if-modified-since"),
    WO_INTERN("pragma"),         WO_INTERN("x-forwarded-for"), WO_INTERN("x-forwarded-proto"),
    WO_INTERN("x-request-id"),   WO_INTERN("x-real-ip"),       WO_INTERN("idempotency-key"),
    WO_INTERN("upgrade"),        WO_INTERN("range"),           WO_INTERN("sec-fetch-site"),
    WO_INTERN("sec-fetch-mode"), WO_INTERN("sec-fetch-dest"),  WO_INTERN("upgrade-insecure-requests")};
#undef WO_INTERN

template <size_t N>
WoText* find(Interned (&table)[N], const char* p, size_t n, bool fold) {
  for (Interned& t : table) {
    if (static_cast<size_t>(t.len) != n) continue;
    size_t i = 0;
    while (i < n && (fold ? ascii_lower(p[i]) : p[i]) == t.bytes[i]) ++i;
    if (i == n) return reinterpret_cast<WoText*>(&t);
  }
  return nullptr;
}
}  // namespace

WoText* method_text_of(const char* p, size_t n) {
  if (WoText* t = find(g_methods, p, n, false)) return t;
  return text_of(p, n);
}

WoText* text_of(const char* p, size_t n) { return n == 0 ? empty_text() : wo::text_from(p, n); }

WoText* lower_text_of(const char* p, size_t n) {
  if (n == 0) return empty_text();
  if (WoText* t = find(g_names, p, n, true)) return t;
  WoText* t = wo::text_alloc(static_cast<int64_t>(n));
  for (size_t i = 0; i < n; ++i) t->bytes[i] = ascii_lower(p[i]);
  return t;
}

WoText* trimmed_text_of(const char* p, size_t n) {
  trim_ows(&p, &n);
  return text_of(p, n);
}

}  // namespace wo::http
