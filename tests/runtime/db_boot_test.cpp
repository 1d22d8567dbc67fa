// Start-up rules (runtime.md §1.8, §1.9): when the store refuses to start,
// with what message; wo_db_boot's exit 2; a failed fdatasync's exit 74.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "runtime/src/db/log_file.h"
#include "tests/db/db_test_support.h"

using namespace dbtest;

namespace {

Schema durable_schema(uint32_t flags = WO_DB_TABLE) {
  Schema s;
  int t = s.table("invoices", flags);
  s.field(t, "n", WO_DB_INT);
  return s;
}

int open_with(const WoDbSchema* s, const char* data, const char* eph, std::string* err) {
  WoDbConfig cfg{};
  cfg.data = data;
  cfg.ephemeral = eph;
  cfg.quiet = true;
  char buf[1024] = "";
  int rc = wo_db_open(s, &cfg, buf, sizeof buf);
  *err = buf;
  wo_db_close();
  return rc;
}

}  // namespace

TEST_CASE("a durable table needs WO_DATA or WO_EPHEMERAL=1, and only one of them") {
  Schema s = durable_schema();
  std::string err;
  CHECK(open_with(s.get(), nullptr, nullptr, &err) == 2);
  CHECK(err.find("table \"invoices\" is durable") != std::string::npos);
  CHECK(err.find("WO_DATA=<dir or file>") != std::string::npos);
  CHECK(err.find("WO_EPHEMERAL=1") != std::string::npos);
  CHECK(err.find("@table(durable: false)") != std::string::npos);
  CHECK(open_with(s.get(), nullptr, "1", &err) == 0);
  CHECK(open_with(s.get(), nullptr, "yes", &err) == 2);
  CHECK(err.find("WO_EPHEMERAL must be 1") != std::string::npos);
  TempDir dir;
  CHECK(open_with(s.get(), dir.path().c_str(), "1", &err) == 2);
  CHECK(err.find("both WO_DATA and WO_EPHEMERAL") != std::string::npos);
  Schema keys = durable_schema(WO_DB_TABLE | WO_DB_RESIDENT_KEYS);
  CHECK(open_with(keys.get(), nullptr, "1", &err) == 2);
  CHECK(err.find("resident: keys") != std::string::npos);
  Schema vol = durable_schema(WO_DB_TABLE | WO_DB_VOLATILE);
  CHECK(open_with(vol.get(), nullptr, nullptr, &err) == 0);  // neither variable consulted
  CHECK(open_with(vol.get(), "/nonexistent/dir/x.wal", "junk", &err) == 0);
}

TEST_CASE("WO_DATA: a directory holds shard-0.wal, a file is the log, bad paths refuse") {
  Schema s = durable_schema();
  TempDir dir;
  std::string err;
  CHECK(open_with(s.get(), dir.path().c_str(), nullptr, &err) == 0);
  CHECK(exists(dir.file("shard-0.wal")));
  CHECK(open_with(s.get(), dir.file("own.log").c_str(), nullptr, &err) == 0);
  CHECK(exists(dir.file("own.log")));
  std::string missing = dir.file("nope/x.wal");
  CHECK(open_with(s.get(), missing.c_str(), nullptr, &err) == 2);
  CHECK(err.find("the parent directory " + dir.file("nope") + " does not exist") != std::string::npos);
  std::string slash = dir.file("nodir/");
  CHECK(open_with(s.get(), slash.c_str(), nullptr, &err) == 2);
  CHECK(err.find("no such directory") != std::string::npos);
  std::string fifo = dir.file("fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(open_with(s.get(), fifo.c_str(), nullptr, &err) == 2);
  CHECK(err.find("neither a regular file nor a directory") != std::string::npos);
  CHECK(open_with(s.get(), std::string(600, 'x').c_str(), nullptr, &err) == 2);
  CHECK(open_with(s.get(), "", nullptr, &err) == 2);
}

TEST_CASE("wo_db_boot prints the refusal and exits 2") {
  Schema s = durable_schema();
  auto [status, err] = in_child([&] {
    unsetenv("WO_DATA");
    unsetenv("WO_EPHEMERAL");
    wo_db_boot(s.get());
  });
  CHECK(status == 2);
  CHECK(err.rfind("wo: table \"invoices\" is durable", 0) == 0);
}

TEST_CASE("a failed fdatasync prints one diagnostic and exits 74") {
  Schema s = durable_schema();
  TempDir dir;
  auto [status, err] = in_child([&] {
    Open db(s.get(), dir.path());
    ins(0, {1});
    wo::db::testing::fail_sync_countdown = 1;
    ins(0, {2});
    std::fprintf(stderr, "returned\n");
  });
  CHECK(status == 74);
  CHECK(err.find("wo: durability failure: fdatasync " + dir.file("shard-0.wal") + ": Input/output error (1 records") == 0);
  CHECK(err.find("returned") == std::string::npos);
  Open db(s.get(), dir.path());  // replay decides: the row may or may not be there, the store opens
  CHECK(db.rc == 0);
  CHECK(wo_db_count(0, nullptr) >= 1);
}
