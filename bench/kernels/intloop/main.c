/* Benchmark kernel `intloop`: 100 million iterations of an integer recurrence
   mixing wrapping `*` and `+`, `^`, `>>` and `%` by a divisor that changes
   every iteration. Same algorithm as main.wo and main.cr.
   .wo Int wraps on `*` and `+`, so those are done on uint64_t (defined
   wrap-around) and cast back; `%` and `>>` are the signed int64 ones
   (truncating remainder, arithmetic shift), as in .wo. */
#include <stdint.h>
#include <stdio.h>

int main(void) {
  int64_t n = 100000000;
  int64_t acc = 1;
  for (int64_t i = 0; i < n; i++) {
    int64_t d = (i & 1023) + 3;
    acc = (int64_t)((uint64_t)acc * 2862933555777941757ULL + (uint64_t)i);
    acc = acc ^ (acc >> 29);
    acc = (int64_t)((uint64_t)acc + (uint64_t)(acc % d));
  }
  printf("%lld\n", (long long)acc);
  return 0;
}
