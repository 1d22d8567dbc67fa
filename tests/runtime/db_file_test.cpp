// WO_DATA never destroys what the store did not write (issue 7 item 6,
// docs/decisions/0013-store-file-header.md): the store's files start with a
// header; a file without it (or from a newer format) is refused, byte for byte
// untouched; a log of the earlier, headerless format still opens and is
// rewritten with a header; a header torn while the file was created is ours;
// the checkpoint's temporary never overwrites a user's file; symbolic links
// are followed to the file they name.
#include <doctest/doctest.h>
#include <pwd.h>
#include <sys/stat.h>

#include "runtime/src/db/model.h"
#include "runtime/src/db/file_header.h"
#include "runtime/src/db/frame.h"
#include "support.h"
#include "tests/db/db_test_support.h"

using namespace dbtest;

namespace {

// The schema of tests/db/assets/legacy-items.wal (see its README.md).
struct Items {
  Schema s;
  Items() {
    int items = s.table("items");
    s.field(items, "key", WO_DB_INT);
    s.field(items, "name", WO_DB_TEXT);
    s.field(items, "price", WO_DB_FLOAT);
    s.field(items, "note", WO_DB_TEXT, WO_DB_NULLABLE);
    s.index(items, {0}, true);
    int tags = s.table("tags");
    s.field(tags, "item", WO_DB_REF, 0, items);
    s.field(tags, "label", WO_DB_TEXT);
  }
};

// The rows of both tables as text, in id order.
std::string dump() {
  std::string out;
  for (int64_t id : scan(0))
    out += std::to_string(id) + ":" + std::to_string(get_int(0, id, 0)) + ":" + get_text(0, id, 1) + ":" +
           std::to_string(get_float(0, id, 2)) + ":" + get_text(0, id, 3) + ";";
  for (int64_t id : scan(1))
    out += std::string("t") + std::to_string(id) + ":" + std::to_string(get_int(1, id, 0)) + ":" +
           get_text(1, id, 1) + ";";
  return out;
}

// What the generator of legacy-items.wal left in the store.
const char* const kLegacyRows =
    "1:10:item 1:1.500000:odd;2:20:renamed two:3.000000:<nil>;3:30:item 3:4.500000:odd;"
    "5:50:item 5:7.500000:odd;6:60:item 6:9.000000:in a transaction;t1:1:first;t2:3:third;";

std::string legacy_log() {
  std::string log = read_file(std::string(WO_DB_ASSETS) + "/legacy-items.wal");
  REQUIRE(log.size() == 711);
  return log;
}

// Opens WO_DATA=`data` (default: `path`) expecting a refusal that names the
// log `path`; the file must not change.
void refused(const std::string& path, const std::string& words, const std::string& data = "") {
  Items it;
  std::string before = read_file(path);
  {
    Open db(it.s.get(), data.empty() ? path : data);
    CHECK(db.rc == 2);
    CHECK_MESSAGE(db.err.find(path) != std::string::npos, db.err);
    CHECK_MESSAGE(db.err.find(words) != std::string::npos, db.err);
  }
  CHECK(read_file(path) == before);
  CHECK_FALSE(exists(path + ".compact"));
}

}  // namespace

TEST_CASE("a text file in WO_DATA is refused with exit 2 and left byte for byte untouched") {
  TempDir dir;
  std::string notes = dir.file("notes.txt");
  write_file(notes, "my notes\nline two\n");
  refused(notes, "is not a wo store");
  Items it;
  auto [status, err] = in_child([&] {
    setenv("WO_DATA", notes.c_str(), 1);
    unsetenv("WO_EPHEMERAL");
    wo_db_boot(it.s.get());
    std::fprintf(stderr, "booted\n");
  });
  CHECK(status == 2);
  CHECK_MESSAGE(err.rfind("wo: " + notes + " is not a wo store", 0) == 0, err);
  CHECK(err.find("left untouched") != std::string::npos);
  CHECK(read_file(notes) == "my notes\nline two\n");
  // The directory form finds a foreign file under the log's name.
  write_file(dir.file("shard-0.wal"), "not a log");
  refused(dir.file("shard-0.wal"), "is not a wo store", dir.path());
}

TEST_CASE("any file without the header is foreign, whatever its length; zeros longer than the header too") {
  TempDir dir;
  std::string path = dir.file("x.wal");
  for (std::string bytes : {std::string("x"), std::string(100, 'a'), std::string(4096, '\0'),
                            std::string(wo::db::kHeaderSize + 1, '\0'), std::string("\x89WODB\r\n\x1a") + "xxxx",
                            std::string("\x89WODB\r\n\x1a\x02", 9) + "qqq"}) {
    write_file(path, bytes);
    refused(path, "is not a wo store");
  }
}

TEST_CASE("a header from a newer format, or a damaged one, is refused untouched") {
  TempDir dir;
  std::string path = dir.file("x.wal");
  std::string h = wo::db::file_header();
  REQUIRE(h.size() == wo::db::kHeaderSize);
  std::string newer = h;
  newer[8] = 5;
  write_file(path, newer + "frames of the future");
  refused(path, "written by a newer version of the store (file format 5; this runtime reads formats 1 to 4)");
  std::string zero = h;
  zero[8] = 0;
  write_file(path, zero + std::string(64, '\0'));
  refused(path, "damaged store header");
  std::string flags = h;
  flags[12] = 1;
  write_file(path, flags);
  refused(path, "damaged store header");
}

TEST_CASE("a new or empty log gets the header first; a header torn at creation is reinitialised") {
  TempDir dir;
  Items it;
  const std::string h = wo::db::file_header();
  std::string path = dir.file("new.wal");
  {
    Open db(it.s.get(), path);
    REQUIRE(db.rc == 0);
    CHECK(read_file(path) == h);  // created: the header alone until the first write
  }
  // Every way the header's creation can be cut short: a prefix of it, with
  // some of its bytes not yet on disk (zeros), up to its full length.
  std::vector<std::string> torn{""};
  for (size_t n = 1; n <= h.size(); ++n) {
    torn.push_back(h.substr(0, n));
    torn.push_back(std::string(n, '\0'));
    std::string holes = h.substr(0, n);
    for (size_t i = 0; i < n; i += 3) holes[i] = '\0';
    torn.push_back(holes);
  }
  for (const std::string& bytes : torn) {
    write_file(path, bytes);
    {
      Open db(it.s.get(), path);
      REQUIRE_MESSAGE(db.rc == 0, bytes.size() << " bytes: " << db.err);
      CHECK(scan(0).empty());
      ins(0, {1, "one", 1.0, V::nil_text()});
    }
    Open db(it.s.get(), path);
    CHECK(dump() == "1:1:one:1.000000:<nil>;");
    CHECK(read_file(path).substr(0, h.size()) == h);
  }
}

TEST_CASE("a log of the earlier, headerless format opens with its rows and is rewritten with the header") {
  TempDir dir;
  Items it;
  std::string path = dir.file("legacy.wal");
  write_file(path, legacy_log());
  std::string err = wotest::capture_fd(2, [&] {
    WoDbConfig cfg{};
    cfg.data = path.c_str();
    char buf[512] = "";
    REQUIRE(wo_db_open(it.s.get(), &cfg, buf, sizeof buf) == 0);
    CHECK(dump() == kLegacyRows);
    CHECK(ins(0, {70, "after the upgrade", 0.5, V::nil_text()}) == 7);
    wo_db_close();
  });
  CHECK(err == "wo: " + path + " upgraded to store file format 4 (it now starts with a header)\n");
  CHECK(read_file(path).substr(0, wo::db::kHeaderSize) == wo::db::file_header());
  CHECK_FALSE(exists(path + ".compact"));
  Open db(it.s.get(), path);
  REQUIRE(db.rc == 0);
  CHECK(dump() ==
        "1:10:item 1:1.500000:odd;2:20:renamed two:3.000000:<nil>;3:30:item 3:4.500000:odd;5:50:item 5:7.500000:odd;"
        "6:60:item 6:9.000000:in a transaction;7:70:after the upgrade:0.500000:<nil>;t1:1:first;t2:3:third;");
  CHECK(trap_of([] { ins(0, {10, "dup", 0.0, V::nil_text()}); }).code == 10);  // the index came back
}

TEST_CASE("an earlier-format log keeps its torn-tail and corruption rules") {
  TempDir dir;
  Items it;
  std::string path = dir.file("legacy.wal");
  std::string log = legacy_log();
  // Its last frame (the transaction) torn: the rows before it, as always.
  write_file(path, log.substr(0, log.size() - 5) + std::string(300, '\0'));
  {
    Open db(it.s.get(), path);
    REQUIRE(db.rc == 0);
    CHECK(dump() == "1:10:item 1:1.500000:odd;2:20:renamed two:3.000000:<nil>;3:30:item 3:4.500000:odd;"
                    "5:50:item 5:7.500000:odd;");
  }
  // Damage in the middle is refused before anything is rewritten.
  std::string bad = log;
  bad[300] ^= 0x10;
  write_file(path, bad);
  refused(path, "corrupt");
}

std::string v2_log() {
  std::string log = read_file(std::string(WO_DB_ASSETS) + "/v2-items.wal");
  REQUIRE(log.size() == 718);
  return log;
}

// A store of format 2 (the header; a checkpoint, then the log; IEEE CRCs):
// read under its own CRC, rewritten in the current format at open (appending CRC-32C
// frames to it would leave a file that a format-2 runtime misreads as torn).
TEST_CASE("a store of format 2 (IEEE CRC-32 frames) opens with its rows and is rewritten with CRC-32C") {
  TempDir dir;
  Items it;
  std::string path = dir.file("v2.wal");
  std::string log = v2_log();
  REQUIRE(static_cast<uint8_t>(log[8]) == 2);
  write_file(path, log);
  std::string err = wotest::capture_fd(2, [&] {
    WoDbConfig cfg{};
    cfg.data = path.c_str();
    char buf[512] = "";
    REQUIRE(wo_db_open(it.s.get(), &cfg, buf, sizeof buf) == 0);
    CHECK(dump() == kLegacyRows);
    CHECK(ins(0, {90, "after format 3", 0.25, V::nil_text()}) == 7);
    wo_db_close();
  });
  CHECK(err == "wo: " + path + " upgraded to store file format 4 (its frames now carry CRC-32C)\n");
  std::string now = read_file(path);
  CHECK(now.substr(0, wo::db::kHeaderSize) == wo::db::file_header());
  // Every frame of the rewritten file passes CRC-32C (and so none passes the old CRC).
  std::string_view p;
  size_t off = wo::db::kHeaderSize, next = 0, frames = 0;
  while (wo::db::read_frame(reinterpret_cast<const uint8_t*>(now.data()), now.size(), off, &p, &next)) {
    CHECK_FALSE(wo::db::read_frame(reinterpret_cast<const uint8_t*>(now.data()), now.size(), off, &p, &next,
                                   wo::db::FrameSum::Crc32));
    ++frames, off = next;
  }
  CHECK(frames >= 2);
  CHECK(wo::db::load_u32(now.data() + 8) == wo::db::kFileVersion);
  std::string want = std::string(kLegacyRows).replace(std::string(kLegacyRows).find("t1:"), 0,
                                                      "7:90:after format 3:0.250000:<nil>;");
  {
    Open db(it.s.get(), path);
    REQUIRE(db.rc == 0);
    CHECK(dump() == want);
    CHECK(trap_of([] { ins(0, {10, "dup", 0.0, V::nil_text()}); }).code == 10);  // the index came back
    REQUIRE(wo_db_checkpoint());  // a checkpoint of the upgraded store (restart's format-3 frames)
  }
  CHECK(wo::db::load_u32(read_file(path).data() + 8) == wo::db::kFileVersion);
  Open db(it.s.get(), path);
  REQUIRE(db.rc == 0);
  CHECK(dump() == want);
}

// A store of format 3 (tests/db/assets/v3-items.wal: a checkpoint's ROWS
// and marks, then the log; written by the last runtime of format 3) is
// already a store of format 4, which only adds the NEXT_ID frame (decision
// 0080): it opens as it is, and only its header's version is rewritten, so
// a runtime of format 3 refuses it from then on instead of finding a frame
// kind it does not know. A NEXT_ID frame in a file still of format 3 is
// corruption.
TEST_CASE("a store of format 3 opens as it is and only its header's version changes") {
  TempDir dir;
  Items it;
  std::string path = dir.file("v3.wal");
  std::string log = read_file(std::string(WO_DB_ASSETS) + "/v3-items.wal");
  REQUIRE(log.size() == 708);
  REQUIRE(static_cast<uint8_t>(log[8]) == 3);
  write_file(path, log);
  std::string err = wotest::capture_fd(2, [&] {
    WoDbConfig cfg{};
    cfg.data = path.c_str();
    char buf[512] = "";
    REQUIRE(wo_db_open(it.s.get(), &cfg, buf, sizeof buf) == 0);
    CHECK(dump() == kLegacyRows);
    std::string now = read_file(path);
    CHECK(now.substr(0, wo::db::kHeaderSize) == wo::db::file_header());
    CHECK(now.substr(wo::db::kHeaderSize) == log.substr(wo::db::kHeaderSize));  // every frame as it was
    CHECK(ins(0, {70, "after format 3", 0.5, V::nil_text()}) == 7);
    wo_db_close();
  });
  CHECK(err == "wo: " + path + " upgraded to store file format 4 (its header only)\n");
  {
    Open db(it.s.get(), path);
    REQUIRE(db.rc == 0);
    CHECK(ins(0, {80, "again", 0.5, V::nil_text()}) == 8);
  }

  std::string mark;
  wo::db::put_u8(mark, wo::db::kNextId);
  wo::db::put_u32(mark, 0);
  wo::db::put_u64(mark, 9);
  std::string v3_with_mark = log;
  wo::db::append_frame(v3_with_mark, mark);
  write_file(dir.file("marked.wal"), v3_with_mark);
  refused(dir.file("marked.wal"), "a next-id mark in a file of format 3 or earlier");
}

TEST_CASE("a format-2 store keeps its torn-tail and corruption rules under its own CRC") {
  TempDir dir;
  Items it;
  std::string path = dir.file("v2.wal");
  std::string log = v2_log();
  // Its last frame (the transaction) torn: the rows before it.
  write_file(path, log.substr(0, log.size() - 5) + std::string(300, '\0'));
  {
    Open db(it.s.get(), path);
    REQUIRE_MESSAGE(db.rc == 0, db.err);
    CHECK(dump() == "1:10:item 1:1.500000:odd;2:20:renamed two:3.000000:<nil>;3:30:item 3:4.500000:odd;"
                    "5:50:item 5:7.500000:odd;");
  }
  // Damage in the middle (a byte of the snapshot's frames) is refused untouched.
  std::string bad = log;
  bad[200] ^= 0x10;
  write_file(path, bad);
  refused(path, "corrupt");
  // A format-2 header torn at creation (nothing after it) is ours: initialised afresh.
  write_file(path, log.substr(0, 9));
  Open db(it.s.get(), path);
  REQUIRE_MESSAGE(db.rc == 0, db.err);
  CHECK(scan(0).empty());
}

TEST_CASE("a .compact the store did not write is never overwritten or deleted") {
  TempDir dir;
  Items it;
  std::string path = dir.file("s.wal");
  {
    Open db(it.s.get(), path);
    ins(0, {1, "one", 1.0, V::nil_text()});
  }
  std::string log = read_file(path);
  std::string compact = path + ".compact";
  write_file(compact, "a user's file that happens to have this name");
  {
    Open db(it.s.get(), path);
    CHECK(db.rc == 2);
    CHECK_MESSAGE(db.err.find(compact + " is in the way") != std::string::npos, db.err);
  }
  CHECK(read_file(compact) == "a user's file that happens to have this name");
  CHECK(read_file(path) == log);
  REQUIRE(::unlink(compact.c_str()) == 0);
  REQUIRE(::mkdir(compact.c_str(), 0755) == 0);  // a directory of that name
  {
    Open db(it.s.get(), path);
    CHECK(db.rc == 2);
  }
  CHECK(exists(compact));
  REQUIRE(::rmdir(compact.c_str()) == 0);
  // Ours, left by a checkpoint that died: the header (or its torn start) and anything.
  for (std::string stale : {wo::db::file_header() + "half a snapshot", std::string(), std::string(7, '\0'),
                            wo::db::file_header().substr(0, 5), legacy_log().substr(0, 400)}) {
    write_file(compact, stale);
    Open db(it.s.get(), path);
    REQUIRE_MESSAGE(db.rc == 0, db.err);
    CHECK_FALSE(exists(compact));
    CHECK(dump() == "1:1:one:1.000000:<nil>;");
  }
}

TEST_CASE("a checkpoint that finds its temporary name taken gives up and leaves the file") {
  TempDir dir;
  Items it;
  std::string path = dir.file("s.wal");
  Open db(it.s.get(), path);
  ins(0, {1, "one", 1.0, V::nil_text()});
  write_file(path + ".compact", "appeared while the store was open");
  CHECK_FALSE(wo_db_checkpoint());
  CHECK(read_file(path + ".compact") == "appeared while the store was open");
  ins(0, {2, "two", 2.0, V::nil_text()});
  CHECK(scan(0).size() == 2);
}

TEST_CASE("a symbolic link in WO_DATA is followed: a checkpoint replaces the file it names, not the link") {
  TempDir dir;
  Items it;
  std::string real = dir.file("real.wal"), link = dir.file("link.wal");
  REQUIRE(::symlink(real.c_str(), link.c_str()) == 0);
  {
    Open db(it.s.get(), link);  // a dangling link: refused, nothing created
    CHECK(db.rc == 2);
    CHECK_MESSAGE(db.err.find("symbolic link to a missing file") != std::string::npos, db.err);
  }
  CHECK_FALSE(exists(real));
  write_file(real, "");
  {
    Open db(it.s.get(), link);
    REQUIRE_MESSAGE(db.rc == 0, db.err);
    ins(0, {1, "one", 1.0, V::nil_text()});
    REQUIRE(wo_db_checkpoint());
    ins(0, {2, "two", 2.0, V::nil_text()});
  }
  struct stat st {};
  REQUIRE(::lstat(link.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  CHECK_FALSE(exists(link + ".compact"));
  Open db(it.s.get(), link);
  CHECK(scan(0).size() == 2);
  wo_db_close();
  // The directory form: shard-0.wal may be a link too.
  TempDir other;
  REQUIRE(::symlink(real.c_str(), other.file("shard-0.wal").c_str()) == 0);
  Open db2(it.s.get(), other.path());
  REQUIRE_MESSAGE(db2.rc == 0, db2.err);
  CHECK(scan(0).size() == 2);
}

TEST_CASE("a log name that is a directory, or a file the store cannot open, is refused") {
  TempDir dir;
  Items it;
  REQUIRE(::mkdir(dir.file("shard-0.wal").c_str(), 0755) == 0);
  {
    Open db(it.s.get(), dir.path());
    CHECK(db.rc == 2);
    CHECK_MESSAGE(db.err.find("the log " + dir.file("shard-0.wal") + " is not a regular file") != std::string::npos,
                  db.err);
  }
  std::string locked = dir.file("locked.wal");
  write_file(locked, "private");
  bool root = ::geteuid() == 0;
  REQUIRE(::chmod(locked.c_str(), root ? 0600 : 0) == 0);
  REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);
  auto [status, err] = in_child([&] {
    if (root) {  // root may open anything: try as `nobody`
      const passwd* nobody = ::getpwnam("nobody");
      if (!nobody || ::setgid(nobody->pw_gid) != 0 || ::setuid(nobody->pw_uid) != 0) _exit(9);
    }
    setenv("WO_DATA", locked.c_str(), 1);
    unsetenv("WO_EPHEMERAL");
    wo_db_boot(it.s.get());
  });
  CHECK(status == 2);
  CHECK_MESSAGE(err.find("cannot open the log " + locked + ": Permission denied") != std::string::npos, err);
  REQUIRE(::chmod(locked.c_str(), 0600) == 0);
  CHECK(read_file(locked) == "private");
}

TEST_CASE("a store is opened by one process at a time") {
  TempDir dir;
  Items it;
  std::string path = dir.file("s.wal");
  Open db(it.s.get(), path);
  REQUIRE(db.rc == 0);
  ins(0, {1, "one", 1.0, V::nil_text()});
  std::string log = read_file(path);
  auto [status, err] = in_child([&] {
    wo_db_close();  // the child's copy of this process's store (its fd is the parent's lock)
    setenv("WO_DATA", path.c_str(), 1);
    unsetenv("WO_EPHEMERAL");
    wo_db_boot(it.s.get());
  });
  CHECK(status == 2);
  CHECK_MESSAGE(err.find("wo: the log " + path + " is in use by another process") == 0, err);
  CHECK(read_file(path) == log);
  REQUIRE(wo_db_checkpoint());  // the lock moves to the new file with the rename
  auto [status2, err2] = in_child([&] {
    wo_db_close();
    setenv("WO_DATA", path.c_str(), 1);
    unsetenv("WO_EPHEMERAL");
    wo_db_boot(it.s.get());
  });
  CHECK(status2 == 2);
  CHECK(err2.find("is in use by another process") != std::string::npos);
}

TEST_CASE("an earlier-format log whose schema changed is migrated and upgraded in one rewrite") {
  TempDir dir;
  std::string path = dir.file("legacy.wal");
  write_file(path, legacy_log());
  Items it;
  it.s.field(0, "stock", WO_DB_INT);  // an added field: migrates with the kind's zero
  std::string err = wotest::capture_fd(2, [&] {
    WoDbConfig cfg{};
    cfg.data = path.c_str();
    char buf[512] = "";
    REQUIRE(wo_db_open(it.s.get(), &cfg, buf, sizeof buf) == 0);
    CHECK(get_int(0, 6, 4) == 0);
    CHECK(get_text(0, 6, 3) == "in a transaction");
    wo_db_close();
  });
  CHECK(err.find("wo: schema migrated (" + path + ")\n") != std::string::npos);
  CHECK(err.find("wo: " + path + " upgraded to store file format 4") != std::string::npos);
  CHECK(read_file(path).substr(0, wo::db::kHeaderSize) == wo::db::file_header());
  Open db(it.s.get(), path);
  REQUIRE(db.rc == 0);
  CHECK(scan(0).size() == 5);
}
