/* Benchmark kernel `textbuild`: builds 1,000,000 small strings (about 30
   bytes each) from formatted ints and doubles and concatenations, each in its
   own malloc'd buffer (as .wo allocates a Text per piece and per `..`), keeps
   them in a growable array, joins them with "|" and prints the byte length of
   the result and a checksum over every 97th byte. Same work as main.wo and
   main.cr. The doubles are all k + 0.25 or k + 0.75, so "%.2f" prints their
   shortest round-trip form, as .wo and Crystal do. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char* p;
  size_t len;
} Str;

static Str str_fmt_int(const char* fmt, int64_t v) {
  char buf[64];
  int n = snprintf(buf, sizeof buf, fmt, (long long)v);
  Str s = {malloc((size_t)n + 1), (size_t)n};
  memcpy(s.p, buf, (size_t)n + 1);
  return s;
}

static Str str_fmt_float(const char* fmt, double v) {
  char buf[64];
  int n = snprintf(buf, sizeof buf, fmt, v);
  Str s = {malloc((size_t)n + 1), (size_t)n};
  memcpy(s.p, buf, (size_t)n + 1);
  return s;
}

/* a .. b into a fresh buffer; frees a (the consumed temporary). */
static Str str_cat(Str a, const char* b, size_t blen) {
  Str s = {malloc(a.len + blen + 1), a.len + blen};
  memcpy(s.p, a.p, a.len);
  memcpy(s.p + a.len, b, blen);
  s.p[s.len] = 0;
  free(a.p);
  return s;
}

int main(void) {
  int64_t n = 1000000;
  size_t cap = 16, count = 0;
  Str* parts = malloc(cap * sizeof *parts);
  for (int64_t i = 0; i < n; i++) {
    double f = (double)i * 0.5 + 0.25;
    Str head = str_fmt_int("item %lld: ", i);
    Str v = str_fmt_float("v=%.2f", f);
    Str k = str_fmt_int("%lld", (i * 7) % 1000);
    Str s = str_cat(head, v.p, v.len);
    s = str_cat(s, ";k=", 3);
    s = str_cat(s, k.p, k.len);
    s = str_cat(s, ",", 1);
    free(v.p);
    free(k.p);
    if (count == cap) {
      cap *= 2;
      parts = realloc(parts, cap * sizeof *parts);
    }
    parts[count++] = s;
  }
  size_t total = count ? count - 1 : 0;
  for (size_t j = 0; j < count; j++) total += parts[j].len;
  char* all = malloc(total + 1);
  size_t at = 0;
  for (size_t j = 0; j < count; j++) {
    if (j) all[at++] = '|';
    memcpy(all + at, parts[j].p, parts[j].len);
    at += parts[j].len;
  }
  all[at] = 0;
  printf("%lld\n", (long long)total);
  int64_t sum = 0;
  for (int64_t j = 0; j < (int64_t)total; j += 97)
    sum += (int64_t)(unsigned char)all[j] * ((j % 7) + 1);
  printf("%lld\n", (long long)sum);
  for (size_t j = 0; j < count; j++) free(parts[j].p);
  free(parts);
  free(all);
  return 0;
}
