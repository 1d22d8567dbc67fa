// The power-loss test of the table store (issue 7 item 11; CTest db.powerloss).
//
//   db_powerloss run SHIM LEGACY_LOG ROUNDS   (the test; DB_POWERLOSS_SEED=N replays a run)
//   db_powerloss write SEED NOPS              (the writer it starts; store from WO_DATA)
//
// Each round starts the writer under tests/db/fs_shim.c (LD_PRELOAD) on the
// store the previous round left. The writer makes NOPS deterministic changes
// (single inserts, updates, deletes, transactions, an aborted transaction)
// chosen by SEED from what the store holds, and prints `ack I` after the I-th
// returned. A tiny WO_CHECKPOINT_BYTES makes it checkpoint every few dozen
// writes. The round's plan, from the shim's event classes:
//   - a crash: SIGKILL just before the N-th event of the run (any event; or
//     one of the first few: start-up, replay, the torn-tail cut, the header,
//     an upgrade; or the N-th step of a checkpoint);
//   - a failure: the N-th fdatasync, file fsync or directory fsync returns EIO
//     (the store must exit 74, or — a checkpoint's own fsync — give the
//     checkpoint up and go on);
//   - nothing (a clean exit, then the power goes).
// Then the power is cut: tests/db/disk_model.h builds, from the shim's
// journal, what the disk may hold — only what was synced; everything; a
// prefix of the unsynced writes cut at any byte; scattered unsynced sectors;
// and every sixteenth round every prefix, cut at every byte of what was
// written (up to 300 cuts) — and each of these is opened by the store. It must open, and hold exactly
// the state after the K acknowledged changes or after K+1 (the one in flight
// may have reached the disk without its acknowledgement): nothing
// acknowledged lost, nothing half applied, nothing invented. One of them is
// the next round's store, so the next start-up (and the crashes planned in
// it) begins from a torn tail, a stale checkpoint or a half-created file.
// Every eighth round starts over: a fresh store (directory or file form) or a
// log of the earlier format (LEGACY_LOG), which the writer's start-up
// upgrades — and which a crash may interrupt.
// Exit status 0 when every variant of every round holds, 1 otherwise, 2 usage.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "disk_model.h"
#include "wo_db.h"

namespace {

// The schema of tests/db/assets/legacy-items.wal:
// items { key: Int @unique, name: Text, price: Float, note: ?Text }, tags { item: ref items, label: Text }
enum { I_KEY, I_NAME, I_PRICE, I_NOTE };
const WoDbField kItemFields[] = {{"key", WO_DB_INT, 0, -1, 0, 0},
                                 {"name", WO_DB_TEXT, 0, -1, 0, 0},
                                 {"price", WO_DB_FLOAT, 0, -1, 0, 0},
                                 {"note", WO_DB_TEXT, WO_DB_NULLABLE, -1, 0, 0}};
const WoDbField kTagFields[] = {{"item", WO_DB_REF, 0, 0, 0, 0}, {"label", WO_DB_TEXT, 0, -1, 0, 0}};
const uint32_t kKeyCol[] = {I_KEY};
const WoDbIndex kItemIndexes[] = {{WO_DB_UNIQUE, 1, kKeyCol}};
const WoDbClass kClasses[] = {{"items", WO_DB_TABLE, 4, kItemFields, 1, kItemIndexes},
                              {"tags", WO_DB_TABLE, 2, kTagFields, 0, nullptr}};
const WoDbSchema kSchema = {2, kClasses};

// ---- the state, as the store holds it and as the driver predicts it --------

struct Item {
  std::string name;
  double price = 0;
  bool has_note = false;
  std::string note;
  bool operator==(const Item&) const = default;
};

struct State {
  std::map<int64_t, Item> items;                       // by key
  std::multiset<std::pair<int64_t, std::string>> tags;  // (item key, label)
  bool operator==(const State&) const = default;
};

std::string summary(const State& s) {
  std::string out = std::to_string(s.items.size()) + " items, " + std::to_string(s.tags.size()) + " tags; keys";
  size_t shown = 0;
  for (const auto& [k, it] : s.items)
    if (shown++ < 12) out += " " + std::to_string(k) + "(" + std::to_string(static_cast<int64_t>(it.price)) + ")";
  return out;
}

// Where two states first differ.
std::string difference(const State& want, const State& got) {
  for (const auto& [k, it] : want.items) {
    auto g = got.items.find(k);
    if (g == got.items.end()) return "item " + std::to_string(k) + " missing";
    if (!(g->second == it)) return "item " + std::to_string(k) + " differs";
  }
  for (const auto& [k, it] : got.items)
    if (!want.items.count(k)) return "item " + std::to_string(k) + " should not be there";
  if (want.tags != got.tags) return "the tags differ";
  return "equal";
}

std::string text_of(uint64_t word) {
  auto* t = reinterpret_cast<WoText*>(word);
  std::string s(t->bytes, static_cast<size_t>(t->len));
  wo_release(t);
  return s;
}

State read_state() {
  State s;
  std::map<int64_t, int64_t> key_of;
  WoList* ids = wo_db_scan(0, nullptr);
  for (int64_t i = 0; i < ids->len; ++i) {
    auto id = static_cast<int64_t>(ids->data[i]);
    auto key = static_cast<int64_t>(wo_db_get(0, id, I_KEY, nullptr));
    Item it;
    it.name = text_of(wo_db_get(0, id, I_NAME, nullptr));
    uint64_t bits = wo_db_get(0, id, I_PRICE, nullptr);
    std::memcpy(&it.price, &bits, 8);
    if (uint64_t note = wo_db_get(0, id, I_NOTE, nullptr)) {
      it.has_note = true;
      it.note = text_of(note);
    }
    s.items[key] = it;
    key_of[id] = key;
  }
  wo_release(ids);
  WoList* tids = wo_db_scan(1, nullptr);
  for (int64_t i = 0; i < tids->len; ++i) {
    auto id = static_cast<int64_t>(tids->data[i]);
    auto item = static_cast<int64_t>(wo_db_get(1, id, 0, nullptr));
    s.tags.insert({key_of.count(item) ? key_of[item] : -item, text_of(wo_db_get(1, id, 1, nullptr))});
  }
  wo_release(tids);
  return s;
}

// The rows of tests/db/assets/legacy-items.wal (see its README.md).
State legacy_state() {
  State s;
  for (int i = 1; i <= 5; ++i)
    if (i != 4) s.items[i * 10] = Item{"item " + std::to_string(i), i * 1.5, i % 2 == 1, i % 2 ? "odd" : ""};
  s.items[20].name = "renamed two";
  s.items[60] = Item{"item 6", 9.0, true, "in a transaction"};
  s.tags = {{10, "first"}, {30, "third"}};
  return s;
}

// ---- the workload: one change, the same in the model and in the store ------

// Applies one change to `s` and, when `live`, to the store through wo_db.h:
// every change is one statement or one transaction, so it is durable whole
// or not at all. The random draws do not depend on `live`.
class Workload {
 public:
  explicit Workload(uint64_t seed) : rng_(seed) {}

  void step(State& s, bool live) {
    unsigned r = draw(100);
    int64_t next = s.items.empty() ? 1 : s.items.rbegin()->first + 1;
    if (r < 35 || s.items.empty()) {
      Item it{text(400), static_cast<double>(draw(100000)) / 4, draw(3) == 0, text(40)};
      if (!it.has_note) it.note.clear();
      if (live) insert(next, it);
      s.items[next] = it;
    } else if (r < 55) {
      int64_t key = pick(s);
      Item& it = s.items[key];
      if (draw(2)) {
        it.price = static_cast<double>(draw(100000)) / 4;
        if (live) set_price(key, it.price);
      } else {
        it.name = text(400);
        if (live) set_text(key, I_NAME, &it.name);
      }
    } else if (r < 65) {
      std::vector<int64_t> free;
      for (const auto& [k, it] : s.items)
        if (!referenced(s, k)) free.push_back(k);
      if (free.empty()) return;
      int64_t key = free[draw(static_cast<unsigned>(free.size()))];
      if (live) wo_db_delete(0, id_of(key), nullptr);
      s.items.erase(key);
    } else if (r < 85) {
      // A transaction: 1..3 new items, a tag on one of them or an older item,
      // and an older item's price.
      int64_t older = pick(s);
      double price = static_cast<double>(draw(100000)) / 4;
      unsigned m = 1 + draw(3);
      if (live) wo_tx_begin(nullptr);
      for (unsigned j = 0; j < m; ++j) {
        Item it{text(200), static_cast<double>(j), false, ""};
        if (live) insert(next + j, it);
        s.items[next + j] = it;
      }
      int64_t target = draw(2) ? older : next;
      std::string label = "tag " + std::to_string(next);
      if (live) insert_tag(target, label);
      s.tags.insert({target, label});
      s.items[older].price = price;
      if (live) {
        set_price(older, price);
        wo_tx_commit(nullptr);
      }
    } else if (r < 90) {
      // A transaction that is abandoned: nothing of it may ever appear.
      int64_t older = pick(s);
      double price = static_cast<double>(draw(100000)) / 4;
      Item it{text(100), 1, false, ""};
      if (live) {
        wo_tx_begin(nullptr);
        insert(next, it);
        set_price(older, price);
        wo_tx_abort();
      }
    } else {
      int64_t key = pick(s);
      Item& it = s.items[key];
      it.has_note = draw(2);
      it.note = it.has_note ? text(60) : "";
      if (live) set_text(key, I_NOTE, it.has_note ? &it.note : nullptr);
    }
  }

 private:
  unsigned draw(unsigned n) { return static_cast<unsigned>(rng_() % n); }
  std::string text(unsigned max) {
    std::string t(draw(max + 1), 'a');
    for (char& c : t) c = static_cast<char>('a' + draw(26));
    return t;
  }
  int64_t pick(const State& s) {
    auto it = s.items.begin();
    std::advance(it, draw(static_cast<unsigned>(s.items.size())));
    return it->first;
  }
  static bool referenced(const State& s, int64_t key) {
    auto it = s.tags.lower_bound({key, ""});
    return it != s.tags.end() && it->first == key;
  }
  static int64_t id_of(int64_t key) { return wo_db_find(0, I_KEY, static_cast<uint64_t>(key), nullptr); }
  static void insert(int64_t key, const Item& it) {
    WoText* name = wo_text_new(it.name.data(), static_cast<int64_t>(it.name.size()));
    WoText* note = it.has_note ? wo_text_new(it.note.data(), static_cast<int64_t>(it.note.size())) : nullptr;
    uint64_t price;
    std::memcpy(&price, &it.price, 8);
    uint64_t v[4] = {static_cast<uint64_t>(key), reinterpret_cast<uint64_t>(name), price,
                     reinterpret_cast<uint64_t>(note)};
    wo_db_insert(0, v, nullptr);
    wo_release(name);
    wo_release(note);
  }
  static void insert_tag(int64_t key, const std::string& label) {
    WoText* l = wo_text_new(label.data(), static_cast<int64_t>(label.size()));
    uint64_t v[2] = {static_cast<uint64_t>(id_of(key)), reinterpret_cast<uint64_t>(l)};
    wo_db_insert(1, v, nullptr);
    wo_release(l);
  }
  static void set_price(int64_t key, double price) {
    uint64_t bits;
    std::memcpy(&bits, &price, 8);
    wo_db_set(0, id_of(key), I_PRICE, bits, nullptr);
  }
  static void set_text(int64_t key, uint32_t field, const std::string* t) {
    WoText* w = t ? wo_text_new(t->data(), static_cast<int64_t>(t->size())) : nullptr;
    wo_db_set(0, id_of(key), field, reinterpret_cast<uint64_t>(w), nullptr);
    wo_release(w);
  }

  std::mt19937_64 rng_;
};

void say(const std::string& line) {
  std::string l = line + "\n";
  if (::write(1, l.data(), l.size()) != static_cast<ssize_t>(l.size())) std::_Exit(3);
}

int write_mode(uint64_t seed, int nops) {
  wo_db_boot(&kSchema);
  State s = read_state();
  Workload w(seed);
  for (int i = 1; i <= nops; ++i) {
    w.step(s, true);
    say("ack " + std::to_string(i));
  }
  wo_db_close();
  say("done");
  return 0;
}

// ---- the driver --------------------------------------------------------------

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::map<std::string, std::string> read_dir(const std::string& dir) {
  std::map<std::string, std::string> files;
  DIR* d = ::opendir(dir.c_str());
  while (dirent* e = d ? ::readdir(d) : nullptr)
    if (e->d_name[0] != '.') files[e->d_name] = slurp(dir + "/" + e->d_name);
  if (d) ::closedir(d);
  return files;
}

void write_dir(const std::string& dir, const std::map<std::string, std::string>& files) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directory(dir);
  for (const auto& [name, bytes] : files) {
    std::ofstream out(dir + "/" + name, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
}

struct Plan {
  std::string var, value, what;  // WO_SHIM_KILL / WO_SHIM_FAIL = value
};

struct Counts {
  int rounds = 0, killed = 0, exit74 = 0, clean = 0, checkpoints = 0, upgrades = 0, variants = 0, in_flight = 0;
};

class Driver {
 public:
  Driver(std::string self, std::string shim, std::string legacy, uint64_t seed)
      : self_(std::move(self)), shim_(std::move(shim)), legacy_(std::move(legacy)), seed_(seed), rng_(seed) {}

  int run(int rounds) {
    // In RAM when it can be: the model, not the file system, says what is
    // durable, and the checks' own start-ups fsync.
    const char* base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : std::getenv("TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/wo-powerloss.XXXXXX";
    if (!::mkdtemp(tmpl.data())) return fail("cannot make a temporary directory in " + tmpl);
    char* real = ::realpath(tmpl.c_str(), nullptr);
    tmp_ = real;
    std::free(real);
    dir_ = tmp_ + "/data";
    int rc = 0;
    for (int r = 1; r <= rounds && rc == 0; ++r) rc = round(r);
    std::filesystem::remove_all(tmp_);
    if (rc == 0)
      std::printf(
          "db-powerloss: %d rounds (seed %" PRIu64 "): %d crashes, %d exits after a failed sync, %d clean "
          "exits; %d with a checkpoint, %d starting from an earlier-format log; %d power-loss images "
          "recovered exactly (%d held the change in flight)\n",
          counts_.rounds, seed_, counts_.killed, counts_.exit74, counts_.clean, counts_.checkpoints, counts_.upgrades,
          counts_.variants, counts_.in_flight);
    return rc;
  }

 private:
  int fail(const std::string& what) {
    std::fprintf(stderr, "db-powerloss: %s (seed %" PRIu64 ", DB_POWERLOSS_SEED=%" PRIu64 " replays it)\n",
                 what.c_str(), seed_, seed_);
    return 1;
  }
  unsigned draw(unsigned n) { return static_cast<unsigned>(rng_() % n); }

  void start_epoch(int r) {
    unsigned kind = (r / 8) % 3;
    file_form_ = kind != 0;
    write_dir(dir_, {});
    model_ = State{};
    if (kind == 2) {
      write_dir(dir_, {{"store.wal", slurp(legacy_)}});
      model_ = legacy_state();
    }
  }

  std::string data() const { return file_form_ ? dir_ + "/store.wal" : dir_ + "/"; }

  Plan plan(int nops, bool legacy) {
    unsigned p = draw(100);
    auto n = [&](unsigned max) { return std::to_string(1 + draw(max)); };
    // A log of the earlier format is upgraded at start-up: crash that often.
    if (legacy && p < 75) return {"WO_SHIM_KILL", "any:" + n(12), "a crash during the upgrade"};
    if (p < 40) return {"WO_SHIM_KILL", "any:" + n(static_cast<unsigned>(events_)), "a crash at any event"};
    if (p < 55) return {"WO_SHIM_KILL", "any:" + n(8), "a crash during start-up"};
    if (p < 64) return {"WO_SHIM_KILL", "ckpt:" + n(12), "a crash during a checkpoint"};
    // The install's two steps taken while commits go into both files
    // (decision 0074): just before the rename, and between the rename and
    // the directory's fsync (the rename itself then pending on the disk).
    if (p < 67) return {"WO_SHIM_KILL", "rename:1", "a crash just before a checkpoint's rename"};
    if (p < 70) return {"WO_SHIM_KILL", "dirsync:1", "a crash just before a directory fsync"};
    if (p < 82) return {"WO_SHIM_FAIL", "fdatasync:" + n(static_cast<unsigned>(nops)), "a failed fdatasync"};
    if (p < 88) return {"WO_SHIM_FAIL", "fsync:" + n(6), "a failed fsync"};
    if (p < 94) return {"WO_SHIM_FAIL", "dirsync:" + n(3), "a failed directory fsync"};
    return {"", "", "no failure"};
  }

  int round(int r) {
    if (r % 8 == 1) start_epoch(r);
    counts_.rounds++;
    const std::map<std::string, std::string> before = read_dir(dir_);
    const int nops = 30 + static_cast<int>(draw(60));
    const uint64_t wseed = rng_();
    const bool legacy = file_form_ && before.count("store.wal") && !before.at("store.wal").empty() &&
                        before.at("store.wal")[0] != '\x89';
    const Plan pl = plan(nops, legacy);
    const std::string journal = tmp_ + "/journal", acks = tmp_ + "/acks", errs = tmp_ + "/stderr";
    ::unlink(journal.c_str());
    std::string where = "round " + std::to_string(r) + " (" + pl.what + (pl.value.empty() ? "" : " " + pl.value) +
                        ", " + std::to_string(nops) + " changes, WO_DATA=" + data() + ")";

    pid_t pid = ::fork();
    if (pid == 0) {
      int out = ::open(acks.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = ::open(errs.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(out, 1);
      ::dup2(err, 2);
      ::unsetenv("WO_EPHEMERAL");
      ::setenv("WO_DATA", data().c_str(), 1);
      ::setenv("WO_CHECKPOINT_BYTES", "8192", 1);
      ::setenv("LD_PRELOAD", shim_.c_str(), 1);
      ::setenv("WO_SHIM_DIR", dir_.c_str(), 1);
      ::setenv("WO_SHIM_JOURNAL", journal.c_str(), 1);
      ::setenv("WO_SHIM_NOSYNC", "1", 1);
      if (!pl.var.empty()) ::setenv(pl.var.c_str(), pl.value.c_str(), 1);
      // An ASan build links libasan first; the shim, preloaded, comes before it.
      const char* asan = std::getenv("ASAN_OPTIONS");
      ::setenv("ASAN_OPTIONS", (std::string(asan ? asan : "") + ":verify_asan_link_order=0").c_str(), 1);
      std::string s = std::to_string(wseed), n = std::to_string(nops);
      ::execl(self_.c_str(), self_.c_str(), "write", s.c_str(), n.c_str(), static_cast<char*>(nullptr));
      std::_Exit(127);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    std::string err = slurp(errs);
    std::string out = slurp(acks);
    int k = 0;  // acknowledged changes
    for (size_t at = 0; (at = out.find("ack ", at)) != std::string::npos; at += 4) ++k;
    bool done = out.find("done\n") != std::string::npos;
    // The ways a writer may end: killed by the shim; exit 74 after an
    // injected failure, with its diagnostic; a start-up that refuses (exit 2)
    // because an injected failure kept it from writing what it must (the
    // rewrite of an earlier-format log), before anything was acknowledged; or
    // the whole workload done.
    bool injected = err.find("fs-shim: fail") != std::string::npos;
    bool killed = WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && err.find("fs-shim: kill") != std::string::npos;
    bool exit74 = WIFEXITED(st) && WEXITSTATUS(st) == 74 && injected &&
                  err.find("wo: durability failure: ") != std::string::npos;
    bool refused =
        WIFEXITED(st) && WEXITSTATUS(st) == 2 && injected && k == 0 && err.find("\nwo: ") != std::string::npos;
    bool clean = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!killed && !exit74 && !refused && !clean)
      return fail(where + ": the writer ended with status " + std::to_string(st) + ":\n" + err.substr(0, 2000));
    counts_.killed += killed;
    counts_.exit74 += exit74 || refused;
    counts_.clean += clean;

    if (clean && !done) return fail(where + ": a clean exit before the end of the workload");
    // The two states recovery may yield: after the K acknowledged changes, or K+1.
    Workload w(wseed);
    State sk = model_;
    for (int i = 0; i < k; ++i) w.step(sk, false);
    State sk1 = sk;
    if (k < nops) w.step(sk1, false);

    disk_model::Disk disk(before);
    std::string jerr;
    if (!disk.replay_journal(journal, &jerr)) return fail(where + ": " + jerr);
    counts_.checkpoints += disk.renames() > 0;
    counts_.upgrades += legacy;
    if (clean && pl.var.empty()) events_ = std::max<size_t>(40, disk.events());

    // Opens one power-loss image; its state, or a failure.
    std::string scratch = tmp_ + "/scratch";
    auto recover = [&](const std::map<std::string, std::string>& image, const std::string& how, State* got) {
      write_dir(scratch, image);
      WoDbConfig cfg{};
      std::string d = file_form_ ? scratch + "/store.wal" : scratch + "/";
      cfg.data = d.c_str();
      cfg.quiet = true;
      char msg[1024] = "";
      std::string at = where + ", power lost with " + how + " (" + std::to_string(disk.pending()) + " pending), " +
                       std::to_string(k) + " acknowledged";
      if (wo_db_open(&kSchema, &cfg, msg, sizeof msg) != 0) return fail(at + ": the store does not open: " + msg);
      *got = read_state();
      wo_db_close();
      counts_.variants++;
      if (*got == sk) return 0;
      if (k < nops && *got == sk1) {
        counts_.in_flight++;
        return 0;
      }
      std::string want = summary(sk) + " (" + difference(sk, *got) + ")";
      if (k < nops) want += "\n  or " + summary(sk1) + " (" + difference(sk1, *got) + ")";
      return fail(at + ": recovered " + summary(*got) + "\n  expected " + want);
    };
    std::vector<std::map<std::string, std::string>> images;
    std::vector<State> states;
    const disk_model::Variant vs[] = {disk_model::Variant::Synced, disk_model::Variant::All,
                                      disk_model::Variant::Prefix, disk_model::Variant::Scattered};
    for (disk_model::Variant v : vs) {
      images.push_back(disk.materialise(v, rng_));
      states.emplace_back();
      if (int rc = recover(images.back(), disk_model::variant_name(v), &states.back())) return rc;
    }
    // Now and then, every prefix of what was pending, cut at every byte.
    if (r % 16 == 0) {
      State got;
      for (auto [cut, keep] : disk.prefix_cuts(300)) {
        std::string how = "the first " + std::to_string(cut) + " pending operations and " + std::to_string(keep) +
                          " bytes of the next";
        if (int rc = recover(disk.materialise_prefix(cut, keep), how, &got)) return rc;
      }
    }
    // The next round starts from one of them, as the disk left it.
    size_t pick = draw(static_cast<unsigned>(images.size()));
    write_dir(dir_, images[pick]);
    model_ = states[pick];
    return 0;
  }

  std::string self_, shim_, legacy_, tmp_, dir_;
  uint64_t seed_;
  std::mt19937_64 rng_;
  bool file_form_ = false;
  State model_;
  size_t events_ = 400;  // events in a round, measured by the clean ones
  Counts counts_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "write") == 0)
    return write_mode(std::strtoull(argv[2], nullptr, 10), std::atoi(argv[3]));
  if (argc == 5 && std::strcmp(argv[1], "run") == 0) {
    const char* env = std::getenv("DB_POWERLOSS_SEED");
    uint64_t seed = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
    char* self = ::realpath("/proc/self/exe", nullptr);
    Driver d(self, argv[2], argv[3], seed);
    std::free(self);
    return d.run(std::atoi(argv[4]));
  }
  std::fprintf(stderr, "usage: db_powerloss run SHIM LEGACY_LOG ROUNDS | write SEED NOPS\n");
  return 2;
}
