// The table store benchmark (issue 4): the same workloads on woc's engine,
// through the C ABI of wo_db.h, and on SQLite (WAL, synchronous=FULL), with
// the same schema, in one run, plus this disk's raw fdatasync rate.
//
//   store_bench DIR [SECONDS [ONLY]]
//
// ONLY, a comma-separated list of the durable workloads below (e.g.
// `fsync,durable8`), runs just those, with no SQLite and no in-memory
// workloads: for profiling one workload (perf stat, WO_WAL_STATS).
//
// DIR must be on the disk to measure (never tmpfs: fsync is free there).
// Each durable workload runs SECONDS in all (default 3), in 6 interleaved
// slices. Schema on both sides:
//   items(k Text @unique, v Int, note Text), index: [v]
// Workloads, each statement on its own (SQLite autocommit, prepared):
//   fsync     pwrite 64 bytes + fdatasync at growing offsets of a pre-zeroed file
//   durable1  single-row inserts, one writer
//   durable8  single-row inserts, 8 writer threads (SQLite: 8 connections)
//   durable1f single-row inserts, one writer actor (woc only), each insert
//             acknowledged once durable: the actor's commit does not wait
//             (decision 0045), its acknowledgement passes the durable
//             barrier, which parks while the log writer syncs, or leads the
//             round itself when its shard has nothing else to run
//   durable8f single-row inserts, 8 writer actors on WO_SHARDS shards
//             (default 2 here)
//   memory    1,000,000 inserts into a `durable: false` table vs `:memory:`
//   lookup    1,000,000 lookups by the unique key, reading `v` (random keys)
//   range     20,000 ordered range scans `v >= a and v < a + 100 order by v` (~100 rows each)
// Output: one line per workload and side with ops/s, then the ratios, then
// tab-separated `store <name> <side> <ops/s>` lines for tools.
#include <fcntl.h>
#include <sys/stat.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "wo_actor.h"
#include "wo_db.h"

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string dir;
double seconds = 3.0;
std::string only;  // empty: everything
bool wanted(const char* name) {
  if (only.empty()) return true;
  std::string list = "," + only + ",";
  return list.find("," + std::string(name) + ",") != std::string::npos;
}
std::vector<std::string> report;

void result(const char* name, const char* side, double ops) {
  std::printf("  %-9s %-7s %14.0f ops/s\n", name, side, ops);
  std::fflush(stdout);
  char line[128];
  std::snprintf(line, sizeof line, "store\t%s\t%s\t%.0f", name, side, ops);
  report.push_back(line);
}

std::string note_of(uint64_t i) { return "note " + std::to_string(i * 2654435761u % 100000); }
std::string key_of(const char* prefix, uint64_t i) { return std::string(prefix) + std::to_string(i); }

// Work done in a measured slice.
struct Meter {
  double ops = 0, secs = 0;
  void add(const Meter& m) {
    ops += m.ops;
    secs += m.secs;
  }
  double rate() const { return ops / secs; }
};

// ---- raw fdatasync -----------------------------------------------------------

Meter fsync_slice(double secs) {
  std::string path = dir + "/fsync.bin";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
  std::vector<char> zeros(8 << 20, 0);
  if (fd < 0 || ::write(fd, zeros.data(), zeros.size()) != static_cast<ssize_t>(zeros.size()) || ::fsync(fd) != 0) {
    std::perror("fsync.bin");
    std::exit(1);
  }
  char rec[64];
  std::memset(rec, 'r', sizeof rec);
  uint64_t n = 0;
  auto t0 = Clock::now();
  while (since(t0) < secs) {
    if (::pwrite(fd, rec, sizeof rec, static_cast<off_t>((n * sizeof rec) % zeros.size())) != sizeof rec ||
        ::fdatasync(fd) != 0) {
      std::perror("fdatasync");
      std::exit(1);
    }
    ++n;
  }
  Meter m{double(n), since(t0)};
  ::close(fd);
  ::unlink(path.c_str());
  return m;
}

// ---- woc -------------------------------------------------------------------------

const WoDbField kFields[] = {{"k", WO_DB_TEXT, 0, -1, 0, 0}, {"v", WO_DB_INT, 0, -1, 0, 0}, {"note", WO_DB_TEXT, 0, -1, 0, 0}};
const uint32_t kK[] = {0}, kV[] = {1};
const WoDbIndex kIndexes[] = {{WO_DB_UNIQUE, 1, kK}, {0, 1, kV}};
const WoDbClass kClasses[] = {{"items", WO_DB_TABLE, 3, kFields, 2, kIndexes},
                              {"items_mem", WO_DB_TABLE | WO_DB_VOLATILE, 3, kFields, 2, kIndexes}};
const WoDbSchema kSchema = {2, kClasses};
enum { DURABLE = 0, MEMORY = 1 };

void woc_open() {
  WoDbConfig cfg{};
  std::string data = dir + "/woc/";
  cfg.data = data.c_str();
  cfg.quiet = true;
  cfg.wal_stats = std::getenv("WO_WAL_STATS") != nullptr;  // the walstats line at close (profiling)
  char err[512];
  if (wo_db_open(&kSchema, &cfg, err, sizeof err) != 0) {
    std::fprintf(stderr, "woc open: %s\n", err);
    std::exit(1);
  }
}

void woc_insert(uint32_t cls, const std::string& k, int64_t v, const std::string& note) {
  WoText* kt = wo_text_new(k.data(), static_cast<int64_t>(k.size()));
  WoText* nt = wo_text_new(note.data(), static_cast<int64_t>(note.size()));
  uint64_t w[3] = {reinterpret_cast<uint64_t>(kt), static_cast<uint64_t>(v), reinterpret_cast<uint64_t>(nt)};
  wo_db_insert(cls, w, nullptr);
  wo_release(kt);
  wo_release(nt);
}

// Runs `threads` writers for `secs`, each calling insert(thread, i).
template <class F>
Meter timed_writers(int threads, double secs, F insert) {
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> total{0};
  std::vector<std::thread> ts;
  auto t0 = Clock::now();
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      uint64_t i = 0;
      while (!stop.load(std::memory_order_relaxed)) insert(t, i++);
      total += i;
    });
  std::this_thread::sleep_for(std::chrono::duration<double>(secs));
  stop = true;
  for (auto& th : ts) th.join();
  return Meter{double(total), since(t0)};
}

// Keys stay distinct across slices: `round` goes into the key.
Meter woc_durable(int threads, const char* tag, int round, double secs) {
  return timed_writers(threads, secs, [&](int t, uint64_t i) {
    woc_insert(DURABLE, key_of(tag, uint64_t(round) << 40 | uint64_t(t) << 32 | i), int64_t(i), note_of(i));
  });
}

// Writer actors: each one's receive inserts until `g_fiber_stop`, each insert
// counted once durable (wo_sched_durable_barrier, what print does first).
struct FiberState {
  WoHeader h;
  int64_t unused;
};
const WoTypeDesc kIntDesc{WO_TY_INT, nullptr, nullptr, nullptr, 0, nullptr};
const WoFieldDesc kFiberFields[] = {{"unused", &kIntDesc, offsetof(FiberState, unused)}};
const WoClassDesc kFiberClass{"FiberWriter", sizeof(FiberState), nullptr, 1, kFiberFields};
const WoTypeDesc kFiberDesc{WO_TY_CLASS, nullptr, nullptr, &kFiberClass, 0, nullptr};
std::atomic<bool> g_fiber_stop{false};
std::atomic<uint64_t> g_fiber_total{0};
const char* g_fiber_tag = "";
int g_fiber_round = 0;

uint64_t fiber_writer(void*, uint64_t t) {
  uint64_t i = 0;
  while (!g_fiber_stop.load(std::memory_order_relaxed)) {
    woc_insert(DURABLE, key_of(g_fiber_tag, uint64_t(g_fiber_round) << 40 | t << 32 | i), int64_t(i), note_of(i));
    wo_sched_durable_barrier();
    ++i;
  }
  g_fiber_total += i;
  return 0;
}
const WoActorType kFiberWriter{"FiberWriter", fiber_writer, &kFiberDesc, &kIntDesc};

Meter woc_fibers(int actors, const char* tag, int round, double secs) {
  g_fiber_stop = false;
  g_fiber_total = 0;
  g_fiber_tag = tag;
  g_fiber_round = round;
  auto t0 = Clock::now();
  std::vector<int64_t> as;
  for (int t = 0; t < actors; ++t) {
    as.push_back(wo_spawn(wo_alloc(sizeof(FiberState), nullptr), &kFiberWriter, nullptr));
    wo_send(as.back(), uint64_t(t), &kIntDesc, nullptr);
  }
  wo_time_sleep(static_cast<int64_t>(secs * 1000), nullptr);  // main parks: shard 0 runs its writers
  g_fiber_stop = true;
  for (int64_t a : as) wo_call(a, 0, &kIntDesc, nullptr);  // behind the writing delivery: it has ended
  return Meter{double(g_fiber_total), since(t0)};
}

// ---- SQLite ----------------------------------------------------------------------

void check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    std::fprintf(stderr, "sqlite %s: %s\n", what, sqlite3_errmsg(db));
    std::exit(1);
  }
}

sqlite3* sql_open(const std::string& path, bool create) {
  sqlite3* db = nullptr;
  check(sqlite3_open(path.c_str(), &db), db, "open");
  sqlite3_busy_timeout(db, 60000);
  if (path != ":memory:") {
    check(sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr), db, "wal");
    check(sqlite3_exec(db, "PRAGMA synchronous=FULL", nullptr, nullptr, nullptr), db, "sync");
  }
  if (create)
    check(sqlite3_exec(db,
                       "CREATE TABLE IF NOT EXISTS items(id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, "
                       "v INTEGER NOT NULL, note TEXT NOT NULL);"
                       "CREATE INDEX IF NOT EXISTS items_v ON items(v);",
                       nullptr, nullptr, nullptr),
          db, "schema");
  return db;
}

struct SqlInsert {
  sqlite3* db;
  sqlite3_stmt* st = nullptr;
  explicit SqlInsert(sqlite3* d) : db(d) {
    check(sqlite3_prepare_v2(db, "INSERT INTO items(k, v, note) VALUES(?, ?, ?)", -1, &st, nullptr), db, "prepare");
  }
  ~SqlInsert() { sqlite3_finalize(st); }
  void run(const std::string& k, int64_t v, const std::string& note) {
    sqlite3_bind_text(st, 1, k.data(), static_cast<int>(k.size()), SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, v);
    sqlite3_bind_text(st, 3, note.data(), static_cast<int>(note.size()), SQLITE_STATIC);
    check(sqlite3_step(st), db, "insert");
    sqlite3_reset(st);
  }
};

Meter sql_durable(int threads, const char* tag, int round, double secs) {
  std::string path = dir + "/sqlite.db";
  sqlite3_close(sql_open(path, true));
  std::vector<sqlite3*> dbs;
  std::vector<std::unique_ptr<SqlInsert>> ins;
  for (int t = 0; t < threads; ++t) {
    dbs.push_back(sql_open(path, false));
    ins.push_back(std::make_unique<SqlInsert>(dbs.back()));
  }
  Meter m = timed_writers(threads, secs, [&](int t, uint64_t i) {
    ins[t]->run(key_of(tag, uint64_t(round) << 40 | uint64_t(t) << 32 | i), int64_t(i), note_of(i));
  });
  ins.clear();
  for (sqlite3* db : dbs) sqlite3_close(db);
  return m;
}

// ---- in-memory workloads ---------------------------------------------------------

constexpr uint64_t kRows = 1'000'000;
constexpr uint64_t kLookups = 1'000'000;
constexpr uint64_t kScans = 20'000;
constexpr int64_t kWidth = 100;

int64_t v_of(uint64_t i) { return static_cast<int64_t>(i * 2654435761u % kRows); }  // a permutation: ~1 row per value

struct Memory {
  double insert, lookup, range;
  uint64_t checksum;
};

Memory woc_memory(const std::vector<std::string>& keys, const std::vector<std::string>& notes,
                  const std::vector<uint64_t>& probes, const std::vector<int64_t>& starts) {
  Memory m{};
  auto t0 = Clock::now();
  for (uint64_t i = 0; i < kRows; ++i) woc_insert(MEMORY, keys[i], v_of(i), notes[i]);
  m.insert = kRows / since(t0);
  std::vector<WoText*> probe_keys;
  for (uint64_t p : probes) probe_keys.push_back(wo_text_new(keys[p].data(), static_cast<int64_t>(keys[p].size())));
  t0 = Clock::now();
  for (WoText* k : probe_keys) {  // `from x in T where x.k == key select x`, then x.v
    WoList* ids = wo_db_probe(MEMORY, 0, reinterpret_cast<uint64_t>(k), nullptr);
    m.checksum += wo_db_get(MEMORY, static_cast<int64_t>(ids->data[0]), 1, nullptr);
    wo_release(ids);
  }
  m.lookup = kLookups / since(t0);
  for (WoText* k : probe_keys) wo_release(k);
  t0 = Clock::now();
  for (int64_t a : starts) {  // `where x.v >= a where x.v < a + W order by x.v select x`
    WoList* ids = wo_db_range(MEMORY, 1, uint64_t(a), uint64_t(a + kWidth), WO_DB_LO | WO_DB_HI | WO_DB_HI_OPEN, -1,
                              nullptr);
    m.checksum += static_cast<uint64_t>(ids->len);
    wo_release(ids);
  }
  m.range = kScans / since(t0);
  return m;
}

Memory sql_memory(const std::vector<std::string>& keys, const std::vector<std::string>& notes,
                  const std::vector<uint64_t>& probes, const std::vector<int64_t>& starts) {
  Memory m{};
  sqlite3* db = sql_open(":memory:", true);
  {
    SqlInsert ins(db);
    auto t0 = Clock::now();
    for (uint64_t i = 0; i < kRows; ++i) ins.run(keys[i], v_of(i), notes[i]);
    m.insert = kRows / since(t0);
  }
  sqlite3_stmt* st;
  check(sqlite3_prepare_v2(db, "SELECT v FROM items WHERE k = ?", -1, &st, nullptr), db, "prepare");
  auto t0 = Clock::now();
  for (uint64_t p : probes) {
    sqlite3_bind_text(st, 1, keys[p].data(), static_cast<int>(keys[p].size()), SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) m.checksum += static_cast<uint64_t>(sqlite3_column_int64(st, 0));
    sqlite3_reset(st);
  }
  m.lookup = kLookups / since(t0);
  sqlite3_finalize(st);
  check(sqlite3_prepare_v2(db, "SELECT id FROM items WHERE v >= ? AND v < ? ORDER BY v", -1, &st, nullptr), db,
        "prepare");
  t0 = Clock::now();
  for (int64_t a : starts) {
    sqlite3_bind_int64(st, 1, a);
    sqlite3_bind_int64(st, 2, a + kWidth);
    while (sqlite3_step(st) == SQLITE_ROW) m.checksum++;
    sqlite3_reset(st);
  }
  m.range = kScans / since(t0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return m;
}

void ratio(const char* what, double a, double b) { std::printf("  %-44s %7.2fx\n", what, a / b); }
// The bench-line format of `make bench`: name: woc X, peer Y, ratio R (aim A) met|MISSED.
void aim(const char* name, double woc, const char* peer, double p, double at_least) {
  double r = woc / p;
  std::printf("%s: woc %.0f/s, peer %s %.0f/s, ratio %.2fx (aim >=%.1fx) %s\n", name, woc, peer, p, r, at_least,
              r >= at_least ? "met" : "MISSED");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: store_bench DIR [SECONDS [ONLY]]\n"
                 "  ONLY: comma-separated durable workloads to run alone (fsync,durable1,durable8,durable1f,\n"
                 "        durable8f), without SQLite and the in-memory workloads\n");
    return 2;
  }
  dir = argv[1];
  if (argc > 2) seconds = std::atof(argv[2]);
  if (argc > 3) only = argv[3];
  for (size_t at = 0; !only.empty() && at <= only.size();) {
    size_t comma = std::min(only.find(',', at), only.size());
    std::string name = only.substr(at, comma - at);
    if (name != "fsync" && name != "durable1" && name != "durable8" && name != "durable1f" && name != "durable8f") {
      std::fprintf(stderr, "store_bench: unknown workload '%s' in ONLY\n", name.c_str());
      return 2;
    }
    at = comma + 1;
  }
  ::mkdir((dir + "/woc").c_str(), 0755);
  std::printf("store benchmark: %s, %.1f s per durable workload (6 interleaved slices), SQLite %s\n", dir.c_str(), seconds,
              sqlite3_libversion());

  // The disk's fdatasync rate drifts (other tenants, the page cache): the
  // durable workloads take turns in short slices, so each ratio compares
  // runs made under the same conditions.
  constexpr int kRounds = 6;
  double slice = seconds / kRounds;
  Meter fs, w1, s1, w8, s8, f1, f8;
  setenv("WO_SHARDS", "2", 0);
  woc_open();
  for (int r = 0; r < kRounds; ++r) {
    if (wanted("fsync")) fs.add(fsync_slice(slice));
    if (wanted("durable1")) w1.add(woc_durable(1, "a", r, slice));
    if (only.empty()) s1.add(sql_durable(1, "a", r, slice));
    if (wanted("durable8")) w8.add(woc_durable(8, "b", r, slice));
    if (only.empty()) s8.add(sql_durable(8, "b", r, slice));
    if (wanted("durable1f")) f1.add(woc_fibers(1, "c", r, slice));
    if (wanted("durable8f")) f8.add(woc_fibers(8, "d", r, slice));
  }
  wo_sched_shutdown();
  if (!only.empty()) {
    const char* names[] = {"fsync", "durable1", "durable8", "durable1f", "durable8f"};
    const Meter* ms[] = {&fs, &w1, &w8, &f1, &f8};
    for (int i = 0; i < 5; ++i)
      if (wanted(names[i])) result(names[i], i == 0 ? "raw" : "woc", ms[i]->rate());
    wo_db_close();  // WO_WAL_STATS prints here
    return 0;
  }
  result("fsync", "raw", fs.rate());
  result("durable1", "woc", w1.rate());
  result("durable1", "sqlite", s1.rate());
  result("durable8", "woc", w8.rate());
  result("durable8", "sqlite", s8.rate());
  result("durable1f", "woc", f1.rate());
  result("durable8f", "woc", f8.rate());

  std::vector<std::string> keys, notes;
  for (uint64_t i = 0; i < kRows; ++i) {
    keys.push_back(key_of("user-", i * 7919 % kRows) + "@example.test");
    notes.push_back(note_of(i));
  }
  std::mt19937_64 rng(42);
  std::vector<uint64_t> probes;
  for (uint64_t i = 0; i < kLookups; ++i) probes.push_back(rng() % kRows);
  std::vector<int64_t> starts;
  for (uint64_t i = 0; i < kScans; ++i) starts.push_back(static_cast<int64_t>(rng() % (kRows - kWidth)));

  Memory wm = woc_memory(keys, notes, probes, starts);
  wo_db_close();
  result("memory", "woc", wm.insert);
  Memory sm = sql_memory(keys, notes, probes, starts);
  result("memory", "sqlite", sm.insert);
  result("lookup", "woc", wm.lookup);
  result("lookup", "sqlite", sm.lookup);
  result("range", "woc", wm.range);
  result("range", "sqlite", sm.range);
  if (wm.checksum != sm.checksum) {
    std::fprintf(stderr, "store_bench: woc and SQLite disagree (checksums %" PRIu64 " vs %" PRIu64 ")\n",
                 wm.checksum, sm.checksum);
    return 1;
  }

  std::printf("ratios (aims from issue 4 in brackets):\n");
  ratio("durable1 woc / raw fdatasync   [>= 0.9]", w1.rate(), fs.rate());
  ratio("durable1 woc / sqlite          [> 1]", w1.rate(), s1.rate());
  ratio("durable8 woc / durable1 woc    [>= 5]", w8.rate(), w1.rate());
  ratio("durable8 woc / sqlite", w8.rate(), s8.rate());
  ratio("durable1f woc / raw fdatasync", f1.rate(), fs.rate());
  ratio("durable8f woc / durable1f woc", f8.rate(), f1.rate());
  ratio("durable8f woc / durable1 woc", f8.rate(), w1.rate());
  ratio("memory inserts woc / sqlite    [>= 3]", wm.insert, sm.insert);
  ratio("unique lookups woc / sqlite    [>= 3]", wm.lookup, sm.lookup);
  ratio("range scans woc / sqlite       [>= 3]", wm.range, sm.range);
  std::printf("durable commits (issue 12 item 3):\n");
  aim("durable1", w1.rate(), "raw fdatasync", fs.rate(), 0.9);
  aim("durable8", w8.rate(), "durable1", w1.rate(), 5);
  aim("durable1f", f1.rate(), "raw fdatasync", fs.rate(), 0.9);
  aim("durable8f", f8.rate(), "durable1f", f1.rate(), 5);
  for (const std::string& l : report) std::printf("%s\n", l.c_str());
  return 0;
}
