// WO_COPY_TO (issue 13 item 8, `woc copy-store`): a program started on its
// embedded store (WO_DATA = a directory or a log file) with
// WO_COPY_TO=postgresql://… copies every durable table of that store into
// the database instead of running `main`, with the same ids and the same
// next id per table, then exits. The program's own classes are the schema,
// so the copy creates exactly the tables the program will use there.
//
// The rows go in through the store's ABI (wo_db_insert: the PostgreSQL
// store's own encoding, constraints and traps); only the id counter
// (wo_ids, decision 0056) is set directly before a row whose id follows a
// gap and after each table's last row. Tables are copied referenced-first;
// a ref to a row of a later id of the same table (written by an update)
// cannot be inserted first and is refused with a message.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../db/engine.h"
#include "../core/trap.h"
#include "../pg/store.h"
#include "copy.h"
#include "mixed.h"

namespace wo::wo_db {
namespace {

const WoSite kSite{"copy-store", 0, nullptr, 0};

struct TableRows {
  uint32_t cls = 0;
  int64_t next_id = 1;
  std::vector<int64_t> ids;
  std::vector<std::vector<uint64_t>> values;
};

// Durable classes, each after the durable classes its refs name (a cycle
// keeps declaration order for the rest).
std::vector<uint32_t> copy_order(const store::Schema& s) {
  std::vector<uint32_t> out;
  std::vector<int> state(s.classes.size(), 0);  // 0 new, 1 visiting, 2 done
  auto visit = [&](auto&& self, uint32_t c) -> void {
    if (state[c] != 0) return;
    state[c] = 1;
    for (const store::Field& f : s.classes[c].fields)
      if (f.kind == store::Kind::Ref && f.ref_class >= 0 && static_cast<uint32_t>(f.ref_class) != c &&
          s.classes[static_cast<size_t>(f.ref_class)].durable())
        self(self, static_cast<uint32_t>(f.ref_class));
    state[c] = 2;
    out.push_back(c);
  };
  for (uint32_t c = 0; c < s.classes.size(); ++c)
    if (s.classes[c].durable()) visit(visit, c);
  return out;
}

void release_values(const store::Schema& s, std::vector<TableRows>& tables) {
  for (TableRows& t : tables)
    for (std::vector<uint64_t>& row : t.values)
      for (size_t f = 0; f < row.size(); ++f)
        if (store::is_blob(s.classes[t.cls].fields[f].kind) && row[f] != 0) wo_release(reinterpret_cast<void*>(row[f]));
}

int refuse(const std::string& why) {
  std::fflush(stdout);
  std::fprintf(stderr, "wo: copy-store: %s\n", why.c_str());
  return 2;
}

// The rows of every durable table of the open engine.
bool read_embedded(const store::Schema& s, const std::vector<uint32_t>& order, std::vector<TableRows>* out,
                   std::string* err) {
  try {
    for (uint32_t cls : order) {
      TableRows t;
      t.cls = cls;
      t.next_id = db::Engine::instance()->next_id(cls, &kSite);
      WoList* ids = wo_db_scan(cls, &kSite);
      for (int64_t i = 0; i < wo_list_len(ids); ++i) {
        auto id = static_cast<int64_t>(wo_list_get(ids, i, &kSite));
        std::vector<uint64_t> row(s.classes[cls].fields.size());
        for (uint32_t f = 0; f < row.size(); ++f) row[f] = wo_db_get(cls, id, f, &kSite);
        t.ids.push_back(id);
        t.values.push_back(std::move(row));
      }
      wo_release(ids);
      out->push_back(std::move(t));
    }
  } catch (...) {
    *err = "reading the embedded store: " + current_trap().msg;
    return false;
  }
  return true;
}

bool write_database(const store::Schema& s, const std::vector<TableRows>& tables, pg::Store& target, int64_t* copied,
                    std::string* err) {
  for (const TableRows& t : tables)
    if (wo_db_count(t.cls, &kSite) != 0) {
      *err = "table " + s.classes[t.cls].name + " of the database already has rows; copy into an empty database";
      return false;
    }
  bool ok = true;
  for (const TableRows& t : tables) {
    const std::string& name = s.classes[t.cls].name;
    int64_t expect = 1;
    for (size_t i = 0; ok && i < t.ids.size(); ++i) {
      if (t.ids[i] != expect) ok = target.set_next_id(t.cls, t.ids[i], err);
      if (!ok) break;
      try {
        int64_t got = wo_db_insert(t.cls, t.values[i].data(), &kSite);
        if (got != t.ids[i]) {
          *err = "row " + std::to_string(t.ids[i]) + " of " + name + " got id " + std::to_string(got);
          ok = false;
        }
      } catch (...) {
        *err = "row " + std::to_string(t.ids[i]) + " of " + name + ": " + current_trap().msg +
               " (a ref to a row copied later cannot be written first)";
        ok = false;
      }
      expect = t.ids[i] + 1;
      ++*copied;
    }
    if (ok) ok = target.set_next_id(t.cls, t.next_id, err);
    if (!ok) break;
  }
  return ok;
}

}  // namespace

int copy_store(const WoDbSchema* abi, const WoDbConfig* config, const char* to) {
  if (!config->data || !*config->data || pg::is_uri(config->data))
    return refuse("WO_COPY_TO copies from an embedded store: WO_DATA must name its directory or log file");
  if (!pg::is_uri(to)) return refuse("WO_COPY_TO must be a postgresql:// or postgres:// URI");
  store::Schema schema;
  std::string err;
  if (!store::schema_from_abi(abi, &schema, &err)) return refuse(err);
  std::vector<uint32_t> order = copy_order(schema);
  if (db::Engine::open(abi, config, &err) != 0) return refuse(err);
  std::vector<TableRows> tables;
  bool ok = read_embedded(schema, order, &tables, &err);
  wo_db_close();
  if (!ok) {
    release_values(schema, tables);
    return refuse(err);
  }
  WoDbConfig pc = *config;
  pc.data = to;
  if (Mixed::open(abi, &pc, &err) != 0) {
    release_values(schema, tables);
    return refuse(err);
  }
  int64_t copied = 0;
  // A program with durable tables (read_embedded found some) gets the
  // composition, whose PostgreSQL part sets the id counters.
  Mixed* mixed = Mixed::instance();
  ok = mixed ? write_database(schema, tables, mixed->durable(), &copied, &err) : true;
  wo_db_close();
  release_values(schema, tables);
  if (!ok) return refuse(err + "; nothing else was copied (drop the database's tables before trying again)");
  std::printf("copy-store: %lld rows of %zu tables copied\n", static_cast<long long>(copied), tables.size());
  std::fflush(stdout);
  return 0;
}

}  // namespace wo::wo_db
