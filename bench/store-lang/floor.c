// The memory floor under bench/store-lang on this machine (issue 12 item 1,
// docs/perf/store-lang.md, "round 5"): what a dependent cache miss
// and a first touch of fresh memory cost here, so that the bench's lookup and
// insert rates can be set against what the hardware allows.
//
//   cc -O2 bench/store-lang/floor.c -o floor && ./floor      (or floor.sh)
//
// Prints, as `name value unit` lines:
//   chase SIZE PAGES k=K   ns per load of a random pointer chase over SIZE
//                          MiB, K independent chains interleaved (K = 1: the
//                          latency of a dependent miss; K > 1: how many
//                          misses the core overlaps), on 4 KiB pages
//                          (MADV_NOHUGEPAGE) or huge pages (MADV_HUGEPAGE)
//   touch PAGES KIND       ms per MiB of writing one byte per 4 KiB into
//                          memory: fresh (a new mapping, the process's first
//                          use of that much), again (a new mapping right
//                          after unmapping the last: pages the guest has
//                          just backed), memset (already touched memory, the
//                          pure cost of writing it)
// Every figure is thread CPU time (CLOCK_THREAD_CPUTIME_ID: a stalled load
// and the kernel's page zeroing both count, being descheduled does not), the
// median of FLOOR_RUNS (default 3) runs. FLOOR_MB (default 256) sets the
// largest chase and the touch size (the chases stop there: FLOOR_MB=8 is
// the quick smoke run of ctest bench.store-lang.floor).
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}
static double median(double* v, int n) {
  qsort(v, n, sizeof *v, cmp_double);
  return v[n / 2];
}

// A mapping of `bytes` aligned to 2 MiB (so that THP can back all of it),
// advised huge or not.
static void* map(size_t bytes, int huge) {
  size_t pad = (size_t)2 << 20;
  char* p = mmap(NULL, bytes + pad, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  char* a = (char*)(((uintptr_t)p + pad - 1) & ~(uintptr_t)(pad - 1));
  if (a > p) munmap(p, a - p);
  munmap(a + bytes, p + pad - a);
  madvise(a, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  return a;
}

static uint64_t rng = 88172645463325252u;
static uint64_t next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

// ns per load over `mb` MiB: one 64-byte line per node, the nodes linked in
// one random cycle (Sattolo), `k` chains started at evenly spaced points of it.
static double chase(size_t mb, int huge, int k, int runs) {
  size_t bytes = mb << 20, n = bytes / 64;
  char* mem = map(bytes, huge);
  uint32_t* order = malloc(n * sizeof *order);
  for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
  for (size_t i = n - 1; i > 0; i--) {  // Sattolo: one cycle through every node
    size_t j = next_rand() % i;
    uint32_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (size_t i = 0; i < n; i++) *(char**)(mem + (size_t)order[i] * 64) = mem + (size_t)order[(i + 1) % n] * 64;
  char* p[8];
  for (int c = 0; c < k; c++) p[c] = mem + (size_t)order[(n / k) * c] * 64;
  free(order);
  size_t steps = 2000000 / k;
  double v[32];
  for (int r = 0; r < runs; r++) {
    double t = cpu_ns();
    for (size_t s = 0; s < steps; s++)
      for (int c = 0; c < k; c++) p[c] = *(char**)p[c];
    v[r] = (cpu_ns() - t) / (double)(steps * k);
  }
  uintptr_t sink = 0;
  for (int c = 0; c < k; c++) sink ^= (uintptr_t)p[c];
  if (sink == 1) puts("");
  munmap(mem, bytes);
  return median(v, runs);
}

// ms per MiB of touching `mb` MiB: one byte written per 4 KiB page.
static double touch_pages(char* mem, size_t bytes) {
  double t = cpu_ns();
  for (size_t o = 0; o < bytes; o += 4096) mem[o] = 1;
  return (cpu_ns() - t) / 1e6 / (double)(bytes >> 20);
}

static void touch(size_t mb, int huge, int runs) {
  size_t bytes = mb << 20;
  double fresh[32], again[32], set[32];
  char* m[32];
  // Fresh: every run its own mapping, all kept until the last is touched,
  // so no run gets pages another run of this process has just freed.
  for (int r = 0; r < runs; r++) {
    m[r] = map(bytes, huge);
    fresh[r] = touch_pages(m[r], bytes);
  }
  for (int r = 0; r < runs; r++) {
    double t = cpu_ns();
    memset(m[r], r, bytes);
    set[r] = (cpu_ns() - t) / 1e6 / (double)mb;
  }
  for (int r = 0; r < runs; r++) munmap(m[r], bytes);
  // Again: a new mapping right after unmapping the last one.
  for (int r = 0; r < runs; r++) {
    char* a = map(bytes, huge);
    again[r] = touch_pages(a, bytes);
    munmap(a, bytes);
  }
  const char* pages = huge ? "huge" : "4k";
  printf("touch %s fresh %.3f ms/MiB\n", pages, median(fresh, runs));
  printf("touch %s again %.3f ms/MiB\n", pages, median(again, runs));
  printf("touch %s memset %.3f ms/MiB\n", pages, median(set, runs));
  fflush(stdout);
}

// floor [touch-huge|touch-4k|chase]...: the parts to run, in order (all
// three when none is named). A part's "fresh" figure means what it says only
// when the guest has not just freed that much memory: freed 2 MiB blocks go
// back to the host after about 2 s (virtio-balloon free page reporting) and
// the next fresh touch of them faults in the host, while memory freed a
// moment ago is still backed (floor.sh runs each part in its own process,
// a few seconds apart).
int main(int argc, char** argv) {
  const char* e = getenv("FLOOR_RUNS");
  int runs = e ? atoi(e) : 3;
  if (runs < 1) runs = 1;
  if (runs > 31) runs = 31;
  e = getenv("FLOOR_MB");
  size_t big = e ? (size_t)atol(e) : 256;
  if (big < 8) big = 8;
  const char* all[] = {"touch-huge", "touch-4k", "chase"};
  int nparts = argc > 1 ? argc - 1 : 3;
  for (int a = 0; a < nparts; a++) {
    const char* part = argc > 1 ? argv[a + 1] : all[a];
    if (strcmp(part, "touch-huge") == 0) {
      touch(big, 1, runs);
    } else if (strcmp(part, "touch-4k") == 0) {
      touch(big, 0, runs);
    } else if (strcmp(part, "chase") == 0) {
      size_t sizes[] = {1, 4, 8, 32, 64, big};
      for (int s = 0; s < 6; s++)
        for (int huge = 0; huge <= 1 && (s == 5 || sizes[s] < big); huge++)
          for (int k = 1; k <= 4; k *= 4)
            printf("chase %zu MiB %s k=%d %.1f ns/load\n", sizes[s], huge ? "huge" : "4k", k,
                   chase(sizes[s], huge, k, runs)),
                fflush(stdout);
    } else {
      fprintf(stderr, "usage: floor [touch-huge|touch-4k|chase]...\n");
      return 2;
    }
  }
  return 0;
}
