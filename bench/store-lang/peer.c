/* SQLite `:memory:` peer of main.wo (bench/store-lang): the same rows, the
 * same phases, the same random sequence and the same checksums, with
 * prepared statements. Prints `<phase> <ops> <µs> <checksum>` lines.
 *   insert_tx  N inserts in one transaction          (table items)
 *   insert     N inserts, autocommit                  (table loose)
 *   lookup     SELECT id, v FROM items WHERE k = ?    (checksum: sum of v)
 *   range      SELECT id FROM items WHERE v >= ? AND v < ? ORDER BY v
 *              (ops = rows; checksum: sum of id * position, position from 1)
 * Knobs as main.wo: STORE_N, STORE_LOOKUPS, STORE_RANGES. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t ticks(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t knob(const char* name, int64_t dflt) {
  const char* s = getenv(name);
  return s && *s ? strtoll(s, NULL, 10) : dflt;
}

static void must(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    fprintf(stderr, "peer: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
  }
}

static sqlite3_stmt* prep(sqlite3* db, const char* sql) {
  sqlite3_stmt* st = NULL;
  must(sqlite3_prepare_v2(db, sql, -1, &st, NULL), db, sql);
  return st;
}

/* The .wo program's LCG: wrapping 64-bit arithmetic. */
static uint64_t next(uint64_t* x) {
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return (*x >> 33) & 2147483647u;
}

static void fill(sqlite3* db, sqlite3_stmt* ins, char** keys, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    sqlite3_bind_text(ins, 1, keys[i], -1, SQLITE_STATIC);
    sqlite3_bind_int64(ins, 2, (i * 7919 + 13) % n);
    must(sqlite3_step(ins), db, "insert");
    sqlite3_reset(ins);
  }
}

int main(void) {
  int64_t n = knob("STORE_N", 1000000), lookups = knob("STORE_LOOKUPS", 1000000),
          ranges = knob("STORE_RANGES", 200000);
  char** keys = malloc((size_t)n * sizeof *keys);
  for (int64_t i = 0; i < n; ++i) {
    char b[32];
    snprintf(b, sizeof b, "k%lld", (long long)i);
    keys[i] = strdup(b);
  }
  sqlite3* db;
  must(sqlite3_open(":memory:", &db), db, "open");
  must(sqlite3_exec(db,
                    "CREATE TABLE items(id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, v INTEGER NOT NULL);"
                    "CREATE INDEX items_v ON items(v);"
                    "CREATE TABLE loose(id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, v INTEGER NOT NULL);"
                    "CREATE INDEX loose_v ON loose(v);",
                    NULL, NULL, NULL),
       db, "schema");

  int64_t t0 = ticks();
  sqlite3_stmt* ins = prep(db, "INSERT INTO items(k, v) VALUES(?, ?)");
  must(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), db, "begin");
  fill(db, ins, keys, n);
  must(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), db, "commit");
  printf("insert_tx %lld %lld %lld\n", (long long)n, (long long)(ticks() - t0), (long long)n);

  t0 = ticks();
  sqlite3_stmt* ins2 = prep(db, "INSERT INTO loose(k, v) VALUES(?, ?)");
  fill(db, ins2, keys, n);
  printf("insert %lld %lld %lld\n", (long long)n, (long long)(ticks() - t0), (long long)n);

  uint64_t x = 12345;
  int64_t sum = 0;
  sqlite3_stmt* look = prep(db, "SELECT id, v FROM items WHERE k = ?");
  t0 = ticks();
  for (int64_t q = 0; q < lookups; ++q) {
    int64_t r = (int64_t)(next(&x) % (uint64_t)n);
    sqlite3_bind_text(look, 1, keys[r], -1, SQLITE_STATIC);
    if (sqlite3_step(look) != SQLITE_ROW) {
      fprintf(stderr, "peer: key %s missing\n", keys[r]);
      return 1;
    }
    sum += sqlite3_column_int64(look, 1);
    sqlite3_reset(look);
  }
  printf("lookup %lld %lld %lld\n", (long long)lookups, (long long)(ticks() - t0), (long long)sum);

  sum = 0;
  int64_t seen = 0;
  sqlite3_stmt* rng = prep(db, "SELECT id FROM items WHERE v >= ? AND v < ? ORDER BY v");
  t0 = ticks();
  for (int64_t q = 0; q < ranges; ++q) {
    int64_t a = (int64_t)(next(&x) % (uint64_t)n);
    sqlite3_bind_int64(rng, 1, a);
    sqlite3_bind_int64(rng, 2, a + 100);
    int64_t p = 0;
    while (sqlite3_step(rng) == SQLITE_ROW) {
      p += 1;
      sum += sqlite3_column_int64(rng, 0) * p;
    }
    sqlite3_reset(rng);
    seen += p;
  }
  printf("range %lld %lld %lld\n", (long long)seen, (long long)(ticks() - t0), (long long)sum);
  sqlite3_close(db);
  return 0;
}
