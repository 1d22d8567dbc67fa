// texts.h.
#include "texts.h"

#include <cstring>

#include "../heap.h"

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

WoText* text_of(const char* p, size_t n) { return n == 0 ? empty_text() : wo::text_from(p, n); }

WoText* lower_text_of(const char* p, size_t n) {
  if (n == 0) return empty_text();
  WoText* t = wo::text_alloc(static_cast<int64_t>(n));
  for (size_t i = 0; i < n; ++i) {
    char c = p[i];
    t->bytes[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return t;
}

WoText* trimmed_text_of(const char* p, size_t n) {
  while (n > 0 && (p[0] == ' ' || p[0] == '\t')) ++p, --n;
  while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t')) --n;
  return text_of(p, n);
}

}  // namespace wo::http
