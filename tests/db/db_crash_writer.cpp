// The durable writer of the crash test (scripts/db-crash-accept.sh).
//
//   db_crash_writer write <run> <seed> <threads>   (store from WO_DATA)
//   db_crash_writer write <run> <seed> f<actors>   (the same, as actors)
//   db_crash_writer write <run> <seed> r<actors>   (actors that reply)
//   db_crash_writer verify <ackfile>
//
// `write` opens the store with wo_db_boot (so every restart replays the log)
// and runs <threads> writers until it is killed: threads of their own, or
// (f<actors>) actors on the scheduler's shards (WO_SHARDS), whose fibers park
// while their commits wait for the log writer's fdatasync, so the kill finds
// committers parked on every shard. With r<actors>, each writer actor does
// one write per message and replies, and a client actor of its own calls it
// in a loop and prints the acknowledgement once the reply came: the writer's
// commits do not wait (decision 0045), their replies are held until durable,
// so a kill finds replies held on every shard. Each writer owns a key
// range and mixes single inserts, updates and deletes of its own rows, and
// transactions that insert 2..6 rows of one group and update one older row
// to point at that group. After each call returns, it prints one line with
// a single write(2), after the durable barrier (as print does: an actor's
// own acknowledgement must wait for its commits, decision 0045):
//   ins K        the row with key K was inserted
//   upd K V      row K got version V (versions only grow)
//   try-del K    about to delete row K (not an acknowledgement: after a
//                kill, K may be present or not)
//   del K        row K was deleted
//   tx G M       rows G..G+M-1 (group G) were inserted, and an older row
//                got last_grp = G, in one transaction
// `verify` replays the store and checks the acknowledgements: every acked
// row exists (unless its delete was acked), no acked delete is undone,
// every row holds at least its last acked version, and no transaction is
// partial: every group present is complete, and every row whose last_grp
// names a group sees that group complete. Exit 0 when all hold, 1 otherwise.
#include <unistd.h>

#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../runtime/spawned.h"
#include "tests/db/one_int_actor.h"
#include "wo_actor.h"
#include "wo_db.h"

namespace {

// items { key: Int @unique, grp: Int, n: Int, ver: Int, last_grp: Int, note: Text }, index: [grp]
enum { F_KEY, F_GRP, F_N, F_VER, F_LAST, F_NOTE, NFIELDS };
const WoDbField kFields[NFIELDS] = {
    {"key", WO_DB_INT, 0, -1, 0, 0}, {"grp", WO_DB_INT, 0, -1, 0, 0},      {"n", WO_DB_INT, 0, -1, 0, 0},
    {"ver", WO_DB_INT, 0, -1, 0, 0}, {"last_grp", WO_DB_INT, 0, -1, 0, 0}, {"note", WO_DB_TEXT, 0, -1, 0, 0},
};
const uint32_t kKeyCol[] = {F_KEY};
const uint32_t kGrpCol[] = {F_GRP};
const WoDbIndex kIndexes[] = {{WO_DB_UNIQUE, 1, kKeyCol}, {0, 1, kGrpCol}};
const WoDbClass kClasses[] = {{"items", WO_DB_TABLE, NFIELDS, kFields, 2, kIndexes}};
const WoDbSchema kSchema = {1, kClasses};

void ack(const std::string& line) {
  wo_sched_durable_barrier();
  std::string l = line + "\n";
  if (::write(1, l.data(), l.size()) != static_cast<ssize_t>(l.size())) std::_Exit(3);
}

int64_t insert_row(int64_t key, int64_t grp, int64_t n, int64_t ver, const std::string& note) {
  WoText* t = wo_text_new(note.data(), static_cast<int64_t>(note.size()));
  uint64_t v[NFIELDS] = {uint64_t(key), uint64_t(grp), uint64_t(n), uint64_t(ver), 0, reinterpret_cast<uint64_t>(t)};
  int64_t id = wo_db_insert(0, v, nullptr);
  wo_release(t);
  return id;
}

// One writer's workload, one write at a time: step() writes and returns the
// acknowledgement to print once the write returned (a delete prints its
// try-del line itself, before it starts).
struct Writer {
  std::mt19937_64 rng;
  int64_t next_key, version;
  std::vector<std::pair<int64_t, int64_t>> mine;  // (key, id) of this run's single rows
  Writer(int run, int thread, uint64_t seed)
      : rng(seed * 131 + static_cast<uint64_t>(thread)),
        next_key(int64_t(run) * 10'000'000 + int64_t(thread) * 1'000'000 + 1),
        version(int64_t(run) * 1'000'000'000 + int64_t(thread) * 100'000'000) {}

  std::string step() {
    std::string note(rng() % 300, static_cast<char>('a' + rng() % 26));
    unsigned op = rng() % 10;
    if (op < 4 || mine.empty()) {
      int64_t key = next_key++;
      int64_t id = insert_row(key, 0, 0, 0, note);
      mine.emplace_back(key, id);
      return "ins " + std::to_string(key);
    }
    if (op < 6) {
      auto& [key, id] = mine[rng() % mine.size()];
      wo_db_set(0, id, F_VER, uint64_t(++version), nullptr);
      return "upd " + std::to_string(key) + " " + std::to_string(version);
    }
    if (op < 7) {
      size_t i = rng() % mine.size();
      int64_t key = mine[i].first;
      ack("try-del " + std::to_string(key));  // in flight: may be durable without its ack
      wo_db_delete(0, mine[i].second, nullptr);
      mine.erase(mine.begin() + static_cast<ptrdiff_t>(i));
      return "del " + std::to_string(key);
    }
    int64_t m = 2 + int64_t(rng() % 5);
    int64_t g = next_key;
    next_key += m;
    int64_t oid = mine[rng() % mine.size()].second;
    wo_tx_begin(nullptr);
    for (int64_t j = 0; j < m; ++j) insert_row(g + j, g, m, 0, note);
    wo_db_set(0, oid, F_LAST, uint64_t(g), nullptr);
    wo_tx_commit(nullptr);
    return "tx " + std::to_string(g) + " " + std::to_string(m);
  }
};

void writer(int run, int thread, uint64_t seed) {
  Writer w(run, thread, seed);
  for (;;) ack(w.step());
}

// Fiber writers: an actor whose one receive runs writer() for good.
using dbtest::kIntDesc;
const WoTypeDesc& kStateDesc = dbtest::kOneIntState;
int g_run = 0;
uint64_t g_seed = 0;
uint64_t fiber_writer(void*, uint64_t msg) {
  writer(g_run, static_cast<int>(msg), g_seed);
  return 0;
}
const WoActorType kWriterActor{"Writer", fiber_writer, &kStateDesc, &kIntDesc, 0};

// r<actors>: writer i does one step per message (its Writer and the line it
// acknowledges live in slot i); client i calls it for good and prints that
// line once the reply came. The client committed nothing, so its barrier
// does not wait: only the held reply keeps the line from coming early.
struct Slot {
  Writer* w = nullptr;
  std::string line;
  int64_t writer = 0;
};
std::vector<Slot> g_slots;
uint64_t reply_writer(void*, uint64_t msg) {
  Slot& s = g_slots[msg];
  s.line = s.w->step();
  return 1;
}
const WoActorType kReplyWriter{"ReplyWriter", reply_writer, &kStateDesc, &kIntDesc, 0};
uint64_t client(void*, uint64_t msg) {
  Slot& s = g_slots[msg];
  for (;;) {
    wo_call(s.writer, msg, &kIntDesc, nullptr);
    ack(s.line);  // the call's reply orders the writer's step before this read
  }
}
const WoActorType kClient{"Client", client, &kStateDesc, &kIntDesc, 0};

int write_replying(int run, uint64_t seed, int actors) {
  g_slots.resize(static_cast<size_t>(actors));
  for (int a = 0; a < actors; ++a) {
    g_slots[a].w = new Writer(run, a, seed);
    g_slots[a].writer = wotest::spawn(dbtest::new_one_int_state(), &kReplyWriter, nullptr);
  }
  for (int a = 0; a < actors; ++a) {
    int64_t c = wotest::spawn(dbtest::new_one_int_state(), &kClient, nullptr);
    wo_send(c, static_cast<uint64_t>(a), &kIntDesc, nullptr);
  }
  for (;;) wo_time_sleep(1000, nullptr);
}

int write_fibers(int run, uint64_t seed, int actors) {
  g_run = run;
  g_seed = seed;
  for (int a = 0; a < actors; ++a) {
    int64_t addr = wotest::spawn(dbtest::new_one_int_state(), &kWriterActor, nullptr);
    wo_send(addr, static_cast<uint64_t>(a), &kIntDesc, nullptr);
  }
  for (;;) wo_time_sleep(1000, nullptr);  // main parks: shard 0 runs its writers
}

int write_mode(int run, uint64_t seed, const char* threads_arg) {
  wo_db_boot(&kSchema);
  ack("open " + std::to_string(run));
  if (threads_arg[0] == 'f') return write_fibers(run, seed, std::atoi(threads_arg + 1));
  if (threads_arg[0] == 'r') return write_replying(run, seed, std::atoi(threads_arg + 1));
  int threads = std::atoi(threads_arg);
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) ts.emplace_back(writer, run, t, seed);
  for (auto& t : ts) t.join();
  return 0;
}

int64_t get_int(int64_t id, uint32_t f) { return static_cast<int64_t>(wo_db_get(0, id, f, nullptr)); }

int verify_mode(const char* ackfile) {
  WoDbConfig cfg{};
  cfg.data = std::getenv("WO_DATA");
  cfg.quiet = true;
  char err[1024];
  if (wo_db_open(&kSchema, &cfg, err, sizeof err) != 0) {
    std::fprintf(stderr, "verify: the store does not open: %s\n", err);
    return 1;
  }
  std::map<int64_t, bool> alive;        // acked inserts: true, acked deletes: false
  std::map<int64_t, int64_t> version;   // key -> last acked version
  std::map<int64_t, int64_t> groups;    // acked group -> size
  std::set<int64_t> maybe_gone;         // deletes attempted
  std::ifstream in(ackfile);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string op;
    int64_t a = 0, b = 0;
    ls >> op >> a >> b;
    if (op == "ins") alive[a] = true;
    else if (op == "try-del") maybe_gone.insert(a);
    else if (op == "del") alive[a] = false;
    else if (op == "upd") version[a] = std::max(version[a], b);
    else if (op == "tx") groups[a] = b;
  }
  int bad = 0;
  auto fail = [&](const std::string& what) {
    if (bad++ < 10) std::fprintf(stderr, "verify: %s\n", what.c_str());
  };
  for (auto [key, live] : alive) {
    bool present = wo_db_find(0, F_KEY, uint64_t(key), nullptr) != 0;
    if (live && !present && !maybe_gone.count(key)) fail("acknowledged row " + std::to_string(key) + " is missing");
    if (!live && present) fail("acknowledged delete of " + std::to_string(key) + " was undone");
  }
  for (auto [key, ver] : version) {
    int64_t id = wo_db_find(0, F_KEY, uint64_t(key), nullptr);
    if (id && get_int(id, F_VER) < ver)
      fail("row " + std::to_string(key) + " lost its acknowledged version " + std::to_string(ver));
  }
  for (auto [g, m] : groups)
    if (wo_db_probe_count(0, F_GRP, uint64_t(g), nullptr) != m)
      fail("acknowledged transaction " + std::to_string(g) + " is not all there");
  WoList* ids = wo_db_scan(0, nullptr);
  std::map<int64_t, std::pair<int64_t, int64_t>> seen;  // group -> (rows present, declared size)
  std::set<int64_t> referenced;
  for (int64_t i = 0; i < ids->len; ++i) {
    auto id = static_cast<int64_t>(ids->data[i]);
    if (int64_t g = get_int(id, F_GRP)) {
      seen[g].first++;
      seen[g].second = get_int(id, F_N);
    }
    if (int64_t g = get_int(id, F_LAST)) referenced.insert(g);
  }
  for (auto [g, c] : seen)
    if (c.first != c.second)
      fail("transaction " + std::to_string(g) + " is partial: " + std::to_string(c.first) + " of " +
           std::to_string(c.second) + " rows");
  for (int64_t g : referenced)
    if (!seen.count(g)) fail("a row points at transaction " + std::to_string(g) + ", whose rows are missing");
  std::printf("verify: %" PRId64 " rows, %zu acked keys, %zu acked transactions, %zu groups present: %s\n",
              ids->len, alive.size(), groups.size(), seen.size(), bad ? "FAILED" : "ok");
  wo_release(ids);
  wo_db_close();
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 5 && std::strcmp(argv[1], "write") == 0)
    return write_mode(std::atoi(argv[2]), std::strtoull(argv[3], nullptr, 10), argv[4]);
  if (argc >= 3 && std::strcmp(argv[1], "verify") == 0) return verify_mode(argv[2]);
  std::fprintf(stderr, "usage: db_crash_writer write <run> <seed> <threads>|f<actors>|r<actors> | verify <ackfile>\n");
  return 2;
}
