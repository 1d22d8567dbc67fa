// Start-up against the database (store.h): the tables created on the first
// start, a later start with a changed program migrated as the embedded store
// migrates (db/migrate.h, against the schema head kept in wo_meta), and
// open/close of the PostgreSQL mode. Everything in one transaction under an
// advisory lock, so two processes starting at once do not race.
#include <cstdio>
#include <cstring>
#include <set>

#include "../db/engine.h"
#include "../db/migrate.h"
#include "../db/value.h"
#include "store.h"

namespace wo::pg {

std::string quote_ident(const std::string& s) {
  std::string o = "\"";
  for (char ch : s) o += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return o + "\"";
}

std::string quote_literal(const std::string& s) {
  std::string o = "'";
  for (char ch : s) o += ch == '\'' ? std::string("''") : std::string(1, ch);
  return o + "'";
}

const char* sql_type(const db::Field& f) {
  switch (f.kind) {
    case db::Kind::Bool: return "boolean";
    case db::Kind::Float: return "double precision";
    case db::Kind::Text: return "text COLLATE \"C\"";  // bytewise, as §1.6 orders Text
    case db::Kind::Bytes:
    case db::Kind::Multi:   // the engine's own encoding (db/value.h)
    case db::Kind::Map: return "bytea";
    default: return "bigint";  // Int, Timestamp, Id, ref
  }
}

const char* sql_cast(const db::Field& f) {
  switch (f.kind) {
    case db::Kind::Bool: return "::boolean";
    case db::Kind::Float: return "::double precision";
    case db::Kind::Text: return "::text";
    case db::Kind::Bytes:
    case db::Kind::Multi:
    case db::Kind::Map: return "::bytea";
    default: return "::bigint";
  }
}

// wo_<table>_<cols>_<suffix>; past PostgreSQL's 63 bytes, a prefix and a hash.
std::string constraint_name(const std::string& table, const std::vector<std::string>& cols, const char* suffix) {
  std::string n = "wo_" + table;
  for (const std::string& c : cols) n += "_" + c;
  std::string tail = std::string("_") + suffix;
  if (n.size() + tail.size() <= 63) return n + tail;
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : n) h = (h ^ ch) * 1099511628211ull;
  size_t keep = 40;
  while (keep > 0 && (static_cast<unsigned char>(n[keep]) & 0xC0) == 0x80) --keep;  // whole UTF-8 characters
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return n.substr(0, keep) + "_" + hex + tail;
}

namespace {

// The literal a column added by a migration starts from (§1.14: the kind's zero).
std::string zero_literal(const db::Field& f) {
  if (f.nullable) return "";
  switch (f.kind) {
    case db::Kind::Bool: return "false";
    case db::Kind::Text: return "''";
    case db::Kind::Bytes: return "'\\x'::bytea";
    case db::Kind::Multi:
    case db::Kind::Map: {
      std::string e = db::empty_container(f), hex = "'\\x";
      static const char* d = "0123456789abcdef";
      for (unsigned char ch : e) hex += std::string{d[ch >> 4], d[ch & 15]};
      return hex + "'::bytea";
    }
    default: return "0";
  }
}

std::string column(const db::Field& f) {
  return quote_ident(f.name) + " " + sql_type(f) + (f.nullable ? "" : " NOT NULL");
}

struct Wanted {
  std::string name, sql;   // the name, and the statement that creates it
  bool is_constraint;      // ALTER TABLE … DROP CONSTRAINT, else DROP INDEX
};

std::string hex_decode(const char* s) {  // bytea's text output: \x…
  std::string o;
  if (!s || std::strncmp(s, "\\x", 2) != 0) return o;
  auto v = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  for (const char* p = s + 2; p[0] && p[1]; p += 2) o.push_back(static_cast<char>(v(p[0]) * 16 + v(p[1])));
  return o;
}

}  // namespace

bool Store::setup(bool quiet, std::string* err) {
  Conn* c = pool_.take(err);
  if (!c) {  // libpq's words: they name the host and port, never the password
    *err = "WO_DATA names a PostgreSQL database that cannot be reached: " + *err;
    return false;
  }
  Failure f;
  std::vector<std::string> notes;
  auto sql = [&](const std::string& q) -> PGresult* {
    PGresult* r = run_simple(*c, q, nullptr, &f);
    if (!r) *err = "PostgreSQL refused the store's tables: " + f.message;
    return r;
  };
  auto ok = [&](const std::string& q) {
    PGresult* r = sql(q);
    if (r) pq().clear(r);
    return r != nullptr;
  };
  auto done = [&](bool good) {
    if (!good) {
      Failure ignore;
      if (PGresult* r = run_simple(*c, "ROLLBACK", nullptr, &ignore)) pq().clear(r);
    }
    pool_.give(c);
    return good;
  };
  if (!ok("BEGIN") || !ok("SELECT pg_advisory_xact_lock(7277707171)") ||
      !ok("CREATE TABLE IF NOT EXISTS wo_meta (name text PRIMARY KEY, head bytea NOT NULL)") ||
      !ok("CREATE TABLE IF NOT EXISTS wo_ids (tbl text PRIMARY KEY, next bigint NOT NULL)"))
    return done(false);
  PGresult* h = sql("SELECT head FROM wo_meta WHERE name = 'schema'");
  if (!h) return done(false);
  std::string old_head = pq().ntuples(h) ? hex_decode(pq().getvalue(h, 0, 0)) : std::string();
  pq().clear(h);
  db::Schema stored;
  if (!old_head.empty()) {
    db::Reader rd(old_head);
    if (!db::decode_schema(rd, &stored)) {
      *err = "the table wo_meta of the PostgreSQL database holds a schema this woc cannot read";
      return done(false);
    }
  }
  db::MigrationPlan plan;
  if (!db::plan_migration(stored, schema_, &plan, err)) {  // the engine's words, about this database
    for (size_t at; (at = err->find("the log holds")) != std::string::npos;) err->replace(at, 13, "the database holds");
    for (size_t at; (at = err->find("in the log")) != std::string::npos;) err->replace(at, 10, "in the database");
    return done(false);
  }

  // Tables first (a FOREIGN KEY needs its target), then columns, then
  // constraints and indexes, compared by name with what is there.
  for (const db::ClassDef& k : schema_.classes) {
    if (!k.durable()) continue;
    int at = stored.find(k.name);
    if (at < 0) {
      PGresult* e = sql("SELECT to_regclass(" + quote_literal(quote_ident(k.name)) + ") IS NOT NULL");
      if (!e) return done(false);
      bool there = pq().getvalue(e, 0, 0)[0] == 't';
      pq().clear(e);
      if (there) {
        *err = "the PostgreSQL database already has a table \"" + k.name +
               "\" that this store did not create; drop it or use another database";
        return done(false);
      }
      std::string q = "CREATE TABLE " + quote_ident(k.name) + " (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY";
      for (const db::Field& fd : k.fields) q += ", " + column(fd);
      if (!ok(q + ")") ||
          !ok("INSERT INTO wo_ids VALUES (" + quote_literal(k.name) + ", 1) ON CONFLICT (tbl) DO NOTHING"))
        return done(false);
      continue;
    }
    const db::ClassDef& old = stored.classes[static_cast<size_t>(at)];
    const db::ClassMap& m = plan.by_log_id.at(old.id);
    std::vector<bool> kept(k.fields.size(), false);
    for (size_t i = 0; i < old.fields.size(); ++i) {
      if (m.to[i] >= 0) kept[static_cast<size_t>(m.to[i])] = true;
      else if (!ok("ALTER TABLE " + quote_ident(k.name) + " DROP COLUMN " + quote_ident(old.fields[i].name)))
        return done(false);
    }
    for (size_t i = 0; i < k.fields.size(); ++i) {
      if (kept[i]) continue;
      std::string z = zero_literal(k.fields[i]);
      if (!ok("ALTER TABLE " + quote_ident(k.name) + " ADD COLUMN " + column(k.fields[i]) +
              (z.empty() ? "" : " DEFAULT " + z)))
        return done(false);
    }
  }
  for (const db::ClassDef& k : schema_.classes) {
    if (!k.durable()) continue;
    std::vector<Wanted> want;
    std::string t = quote_ident(k.name);
    for (const db::IndexDef& ix : k.indexes) {
      std::vector<std::string> cols;
      std::string list;
      for (uint32_t col : ix.cols) {
        cols.push_back(k.fields[col].name);
        list += (list.empty() ? "" : ", ") + quote_ident(k.fields[col].name);
      }
      std::string name = constraint_name(k.name, cols, ix.unique ? "uq" : "ix");
      want.push_back({name, std::string(ix.unique ? "CREATE UNIQUE INDEX " : "CREATE INDEX ") + quote_ident(name) +
                                " ON " + t + " (" + list + ")",
                      false});
      if (ix.unique) {
        std::string label = k.name + ".";
        if (cols.size() == 1) label += cols[0];
        else {
          label += "(";
          for (size_t i = 0; i < cols.size(); ++i) label += (i ? ", " : "") + cols[i];
          label += ")";
        }
        std::string detail = "table " + k.name + (cols.size() == 1 ? ", field " : ", fields ");
        for (size_t i = 0; i < cols.size(); ++i) detail += (i ? ", " : "") + cols[i];
        violations_[name] = {"unique constraint violated: " + label, detail};
      }
    }
    for (const db::Field& fd : k.fields) {
      if (fd.kind != db::Kind::Ref) continue;
      std::string name = constraint_name(k.name, {fd.name}, "fk");
      want.push_back({name, "ALTER TABLE " + t + " ADD CONSTRAINT " + quote_ident(name) + " FOREIGN KEY (" +
                                quote_ident(fd.name) + ") REFERENCES " +
                                quote_ident(schema_.classes[static_cast<size_t>(fd.ref_class)].name) +
                                " (id) ON DELETE RESTRICT",
                      true});
      violations_[name] = {"referenced row does not exist: " + k.name + "." + fd.name, {}};
    }
    PGresult* have = sql("SELECT conname::text, true FROM pg_constraint WHERE conrelid = " +
                         quote_literal(t) + "::regclass AND contype = 'f' UNION ALL SELECT indexname::text, false "
                         "FROM pg_indexes WHERE schemaname = current_schema() AND tablename = " + quote_literal(k.name));
    if (!have) return done(false);
    std::set<std::string> names;
    for (const Wanted& w : want) names.insert(w.name);
    std::set<std::string> present;
    std::vector<std::string> drops;
    for (int i = 0; i < pq().ntuples(have); ++i) {
      std::string n = pq().getvalue(have, i, 0);
      bool cons = pq().getvalue(have, i, 1)[0] == 't';
      present.insert(n);
      if (n.rfind("wo_", 0) == 0 && !names.count(n))
        drops.push_back(cons ? "ALTER TABLE " + t + " DROP CONSTRAINT " + quote_ident(n) : "DROP INDEX " + quote_ident(n));
    }
    pq().clear(have);
    for (const std::string& d : drops)
      if (!ok(d)) return done(false);
    for (const Wanted& w : want)
      if (!present.count(w.name) && !ok(w.sql)) return done(false);
  }
  std::string head;
  db::encode_schema(head, schema_);
  if (head != old_head) {
    std::vector<Param> ps{Param{head.data(), static_cast<int>(head.size()), false}};
    PGresult* r = run(*c, "INSERT INTO wo_meta VALUES ('schema', $1::bytea) ON CONFLICT (name) DO UPDATE SET head = "
                          "EXCLUDED.head", ps, nullptr, &f);
    if (!r) {
      *err = "PostgreSQL refused the store's tables: " + f.message;
      return done(false);
    }
    pq().clear(r);
  }
  if (!ok("COMMIT")) return done(false);
  done(true);
  if (!quiet) {
    for (const std::string& line : plan.notes) std::fprintf(stderr, "%s\n", line.c_str());
    if (plan.fields_changed) std::fprintf(stderr, "wo: schema migrated (the PostgreSQL database of WO_DATA)\n");
  }
  return true;
}

bool is_uri(const char* data) {
  return data && (std::strncmp(data, "postgresql://", 13) == 0 || std::strncmp(data, "postgres://", 11) == 0);
}

int open(const WoDbSchema* abi, const WoDbConfig* config, std::string* err) {
  if (db::Engine::instance() || g_store) {
    *err = "the store is already open";
    return 2;
  }
  db::Schema schema;
  if (!db::schema_from_abi(abi, &schema, err)) return 2;
  bool durable = false;
  for (const db::ClassDef& c : schema.classes) durable = durable || c.durable();
  WoDbConfig cfg = *config;
  cfg.data = nullptr;  // the engine keeps the rest in RAM: it has no log in this mode
  if (durable) {
    if (config->ephemeral) {
      *err = "both WO_DATA and WO_EPHEMERAL are set; set WO_DATA to keep the data or WO_EPHEMERAL=1 to keep it in RAM only";
      return 2;
    }
    for (const db::ClassDef& c : schema.classes)
      for (const db::Field& fd : c.fields)
        if (c.durable() && fd.name == "id") {
          *err = "table \"" + c.name + "\" has a field named id, which is the column of the row ids in PostgreSQL: rename the field";
          return 2;
        }
    // A row in RAM cannot hold a reference the database checks and restricts.
    for (const db::ClassDef& c : schema.classes)
      for (const db::Field& fd : c.fields)
        if (!c.durable() && fd.kind == db::Kind::Ref && schema.classes[static_cast<size_t>(fd.ref_class)].durable()) {
          *err = "class \"" + c.name + "\" (in RAM) refers to the durable table \"" +
                 schema.classes[static_cast<size_t>(fd.ref_class)].name +
                 "\", which lives in PostgreSQL: such a ref is not supported with a PostgreSQL WO_DATA";
          return 2;
        }
    std::string why;
    if (!libpq(&why)) {
      *err = "WO_DATA names a PostgreSQL database, but " + why;
      return 2;
    }
  }
  // The engine gets the schema with every durable class in RAM only and
  // unused: the numbering stays the compiler's, the rows are PostgreSQL's.
  std::vector<WoDbClass> classes(abi->classes, abi->classes + abi->nclasses);
  for (WoDbClass& c : classes)
    if ((c.flags & WO_DB_TABLE) && !(c.flags & WO_DB_VOLATILE)) c.flags = (c.flags | WO_DB_VOLATILE) & ~WO_DB_RESIDENT_KEYS;
  WoDbSchema ram{abi->nclasses, classes.data()};
  std::unique_ptr<Store> store;
  if (durable) {
    store = std::make_unique<Store>(std::move(schema), config->data);
    if (!store->setup(config->quiet, err)) return 2;
  }
  int rc = db::Engine::open(&ram, &cfg, err);
  if (rc != 0) return rc;
  g_store = store.release();
  return 0;
}

void close() {
  if (!g_store) return;
  g_store->abort();
  delete g_store;
  g_store = nullptr;
}

}  // namespace wo::pg
