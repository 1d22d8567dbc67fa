// The ceiling under bench/store-lang on this machine (issue 12 item 1): the
// bench's insert and lookup phases done by the least code that can do them,
// in C with no language, no store and no durability around it. What it does
// not do (no ordered index on v, no row ids, no nil or type checks, no
// result list, nothing to undo) makes its rates an UPPER bound on what any
// store reaches here through any language; main.wo's and SQLite's rates are
// set against it in docs/perf.md.
//
//   cc -O2 bench/store-lang/ideal.c -o ideal && ./ideal     (run.sh runs it)
//
// STORE_N rows (default 1,000,000), key "k<i>" (built as peer.c builds it,
// one strdup each), v = (i * 7919 + 13) % N; STORE_LOOKUPS (default
// 1,000,000) lookups at the bench's random sequence. Rows: the key copied
// into an arena (the store owns its keys) and v, in one growing array; the
// unique index: open addressing, 32-bit hash + row number per slot, doubled
// at half full. Prints, as main.wo does, `<phase> <ops> <µs> <checksum>`
// (thread CPU time), the checksums being the bench's: rows, and the sum of
// v. bench/store-lang/run.sh prints its rates as each line's ceiling.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t cpu_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static int64_t knob(const char* name, int64_t dflt) {
  const char* s = getenv(name);
  return s ? atoll(s) : dflt;
}

static void* grow(void* p, size_t bytes) {
  void* q = realloc(p, bytes);
  if (!q) {
    perror("ideal: realloc");
    exit(1);
  }
  return q;
}

// FNV-1a: short keys, no setup.
static uint32_t hash(const char* s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
  return h | 1;  // 0 marks an empty slot
}

typedef struct {
  uint32_t key_off, key_len;
  int64_t v;
} Row;

typedef struct {
  uint32_t hash, row;
} Slot;

static Row* rows;
static size_t nrows, cap_rows;
static char* arena;
static size_t arena_len, arena_cap;
static Slot* slots;
static size_t mask;  // slots - 1 (a power of two)

static void put_slot(Slot* tab, size_t m, uint32_t h, uint32_t row) {
  size_t i = h & m;
  while (tab[i].hash) i = (i + 1) & m;
  tab[i].hash = h;
  tab[i].row = row;
}

static int insert(const char* key, int64_t v) {
  size_t n = strlen(key);
  uint32_t h = hash(key, n);
  for (size_t i = h & mask; slots[i].hash; i = (i + 1) & mask)  // unique: refuse a duplicate
    if (slots[i].hash == h && rows[slots[i].row].key_len == n && memcmp(arena + rows[slots[i].row].key_off, key, n) == 0)
      return 0;
  if (nrows == cap_rows) rows = grow(rows, (cap_rows *= 2) * sizeof *rows);
  if (arena_len + n > arena_cap) arena = grow(arena, arena_cap *= 2);
  memcpy(arena + arena_len, key, n);
  rows[nrows] = (Row){(uint32_t)arena_len, (uint32_t)n, v};
  arena_len += n;
  put_slot(slots, mask, h, (uint32_t)nrows);
  if (++nrows * 2 > mask + 1) {  // double at half full
    size_t m = mask * 2 + 1;
    Slot* tab = calloc(m + 1, sizeof *tab);
    for (size_t i = 0; i <= mask; i++)
      if (slots[i].hash) put_slot(tab, m, slots[i].hash, slots[i].row);
    free(slots);
    slots = tab;
    mask = m;
  }
  return 1;
}

static const Row* find(const char* key) {
  size_t n = strlen(key);
  uint32_t h = hash(key, n);
  for (size_t i = h & mask; slots[i].hash; i = (i + 1) & mask) {
    const Row* r = &rows[slots[i].row];
    if (slots[i].hash == h && r->key_len == n && memcmp(arena + r->key_off, key, n) == 0) return r;
  }
  return NULL;
}

int main(void) {
  int64_t n = knob("STORE_N", 1000000), lookups = knob("STORE_LOOKUPS", 1000000);
  if (n < 1 || n > 100000000) {
    fprintf(stderr, "ideal: STORE_N must be 1..100000000\n");
    return 2;
  }
  char** keys = malloc((size_t)n * sizeof *keys);
  for (int64_t i = 0; i < n; i++) {
    char b[32];
    snprintf(b, sizeof b, "k%lld", (long long)i);
    keys[i] = strdup(b);
  }
  cap_rows = 16;
  rows = grow(NULL, cap_rows * sizeof *rows);
  arena_cap = 256;
  arena = grow(NULL, arena_cap);
  mask = 15;
  slots = calloc(mask + 1, sizeof *slots);

  int64_t t0 = cpu_us();
  for (int64_t i = 0; i < n; i++)
    if (!insert(keys[i], (i * 7919 + 13) % n)) {
      fprintf(stderr, "ideal: duplicate key %s\n", keys[i]);
      return 1;
    }
  printf("insert_tx %lld %lld %zu\n", (long long)n, (long long)(cpu_us() - t0), nrows);

  uint64_t x = 12345;  // the bench's sequence (main.wo, peer.c)
  int64_t sum = 0;
  t0 = cpu_us();
  for (int64_t q = 0; q < lookups; q++) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    int64_t r = (int64_t)((x >> 33) & 2147483647) % n;
    const Row* row = find(keys[r]);
    if (!row) {
      fprintf(stderr, "ideal: key %s missing\n", keys[r]);
      return 1;
    }
    sum += row->v;
  }
  printf("lookup %lld %lld %lld\n", (long long)lookups, (long long)(cpu_us() - t0), (long long)sum);
  return 0;
}
