// fs.* (builtins.md §9): absence is nil/false, OS failures trap IO with the
// bare strerror text, bad arguments trap BOUNDS.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "support.h"

using namespace wotest;

namespace {

const WoSite kSite{"files", 31, nullptr, 0};

// A fresh temp directory, removed (with its plain files) at scope exit.
struct TempDir {
  std::string path;
  std::vector<std::string> made;
  TempDir() {
    char tmpl[] = "/tmp/wo_fs_test_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() {
    for (auto it = made.rbegin(); it != made.rend(); ++it) std::remove(it->c_str());
    rmdir(path.c_str());
  }
  std::string file(const std::string& name, const std::string& content) {
    std::string p = path + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    made.push_back(p);
    return p;
  }
  std::string dir(const std::string& name) {
    std::string p = path + "/" + name;
    mkdir(p.c_str(), 0755);
    made.push_back(p);
    return p;
  }
  std::string track(const std::string& name) {
    std::string p = path + "/" + name;
    made.push_back(p);
    return p;
  }
};

void check_io(const wo::Trap& t, int err) {
  CHECK(t.code == 9);
  CHECK(t.msg == std::strerror(err));
  CHECK(t.method == "files");
  CHECK(t.line == 31);
}

std::string read_all(const std::string& p, int64_t cap) {
  OText path(text(p));
  OText r(wo_fs_read_all(path, cap, &kSite));
  return str(r);
}

std::string read_at(const std::string& p, int64_t off, int64_t n) {
  OText path(text(p));
  OText r(wo_fs_read_at(path, off, n, &kSite));
  return str(r);
}

}  // namespace

TEST_CASE("fs.exists: stat succeeds") {
  TempDir d;
  std::string f = d.file("a.txt", "x");
  OText pf(text(f)), pd(text(d.path)), missing(text(d.path + "/nope")), with_nul(wo_text_new("/tmp\0x", 6));
  CHECK(wo_fs_exists(pf));
  CHECK(wo_fs_exists(pd));
  CHECK_FALSE(wo_fs_exists(missing));
  CHECK_FALSE(wo_fs_exists(with_nul));
  OText empty(text(""));
  CHECK_FALSE(wo_fs_exists(empty));
}

TEST_CASE("fs.stat: size, mtime in ms (second resolution), inode, dir; nil when absent") {
  TempDir d;
  std::string f = d.file("s.txt", "hello");
  OText pf(text(f)), pd(text(d.path)), missing(text(d.path + "/nope"));
  Owned<WoStat> s(wo_fs_stat(pf));
  REQUIRE(s.get());
  CHECK(s->size == 5);
  CHECK(s->dir == 0);
  CHECK(s->mtime % 1000 == 0);
  CHECK(std::llabs(s->mtime - static_cast<int64_t>(time(nullptr)) * 1000) < 5000);
  struct stat st {};
  stat(f.c_str(), &st);
  CHECK(s->inode == static_cast<int64_t>(st.st_ino));
  Owned<WoStat> sd(wo_fs_stat(pd));
  REQUIRE(sd.get());
  CHECK(sd->dir == 1);
  CHECK(wo_fs_stat(missing) == nullptr);
}

TEST_CASE("fs.list: names without . and .., sorted bytewise; failures trap IO") {
  TempDir d;
  d.file("b", "");
  d.file("a", "");
  d.file("B", "");
  d.dir("sub");
  OText pd(text(d.path));
  OList xs(wo_fs_list(pd, &kSite));
  CHECK(xs->elem_kind == WO_ELEM_TEXT);
  CHECK(texts(xs) == std::vector<std::string>{"B", "a", "b", "sub"});
  std::string e = d.dir("empty");
  OText pe(text(e));
  OList none(wo_fs_list(pe, &kSite));
  CHECK(none->len == 0);
  OText missing(text(d.path + "/nope")), file(text(d.path + "/a"));
  check_io(trapped([&] { wo_fs_list(missing, &kSite); }), ENOENT);
  check_io(trapped([&] { wo_fs_list(file, &kSite); }), ENOTDIR);
}

TEST_CASE("fs.read_all: up to cap bytes; errors trap IO with the bare strerror text") {
  TempDir d;
  std::string content("line1\nline2\0bin\xff", 16);
  std::string f = d.file("r.bin", content);
  CHECK(read_all(f, 1000) == content);
  CHECK(read_all(f, 16) == content);
  CHECK(read_all(f, 5) == "line1");
  CHECK(read_all(f, 0) == "");
  CHECK(read_all(d.file("empty", ""), 10) == "");
  std::string big(300000, 'z');
  std::string fb = d.file("big", big);
  CHECK(read_all(fb, INT64_MAX) == big);
  CHECK(read_all(fb, 70000).size() == 70000);
  check_io(trapped([&] { read_all(d.path + "/nope", 10); }), ENOENT);
  CHECK(trapped([&] { read_all(d.path + "/nope", 10); }).msg == "No such file or directory");
  check_io(trapped([&] { read_all(d.path, 10); }), EISDIR);
  check_io(trapped([&] { read_all(d.path, 0); }), EISDIR);
  wo::Trap neg = trapped([&] { read_all(f, -1); });
  CHECK(neg.code == 6);
  CHECK(neg.msg == "fs.read_all: negative cap");
  OText with_nul(wo_text_new("/tmp\0x", 6));
  check_io(trapped([&] { wo_fs_read_all(with_nul, 1, &kSite); }), EINVAL);
}

TEST_CASE("fs.read_at: up to n bytes at offset; short reads are normal; negatives trap BOUNDS") {
  TempDir d;
  std::string f = d.file("r.txt", "0123456789");
  CHECK(read_at(f, 0, 4) == "0123");
  CHECK(read_at(f, 3, 4) == "3456");
  CHECK(read_at(f, 8, 10) == "89");
  CHECK(read_at(f, 10, 5) == "");
  CHECK(read_at(f, 1000, 5) == "");
  CHECK(read_at(f, 2, 0) == "");
  for (auto [off, n] : {std::pair<int64_t, int64_t>{-1, 1}, {0, -1}, {INT64_MIN, 0}}) {
    wo::Trap t = trapped([&] { read_at(f, off, n); });
    CHECK(t.code == 6);
    CHECK(t.msg == "fs.read_at: negative offset or length");
    CHECK(t.line == 31);
  }
  check_io(trapped([&] { read_at(d.path + "/nope", 0, 1); }), ENOENT);
}

TEST_CASE("fs.append: creates (0644) and appends every byte") {
  TempDir d;
  mode_t old = umask(022);
  std::string f = d.track("log.txt");
  OText p(text(f)), a(text("one\n")), b(wo_text_new("two\0\n", 5)), e(text(""));
  wo_fs_append(p, a, &kSite);
  wo_fs_append(p, b, &kSite);
  wo_fs_append(p, e, &kSite);
  umask(old);
  CHECK(read_all(f, 100) == std::string("one\ntwo\0\n", 9));
  struct stat st {};
  stat(f.c_str(), &st);
  CHECK((st.st_mode & 0777) == 0644);
  OText missing_dir(text(d.path + "/no/such/file")), dir(text(d.path));
  check_io(trapped([&] { wo_fs_append(missing_dir, a, &kSite); }), ENOENT);
  check_io(trapped([&] { wo_fs_append(dir, a, &kSite); }), EISDIR);
}
