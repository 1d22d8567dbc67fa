// Helpers for the table store's unit tests (tests/runtime/db_*.cpp): a temp
// directory, a schema builder that owns its strings, row values that release
// their Texts, a guard that always closes the store, and trap capture.
#pragma once
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/src/core/trap.h"
#include "wo_db.h"
#include "wo_runtime.h"

namespace dbtest {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/wo_db_test_XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Runs f in a child process; its exit status (-1: killed) and stderr.
template <class F>
std::pair<int, std::string> in_child(F f) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    f();
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

// Builds a WoDbSchema; pointers stay valid until the next change.
class Schema {
 public:
  int table(const std::string& name, uint32_t flags = WO_DB_TABLE) {
    cs_.push_back(C{name, flags, {}, {}});
    return static_cast<int>(cs_.size() - 1);
  }
  uint32_t field(int cls, const std::string& name, uint32_t kind, uint32_t flags = 0, int ref = -1, uint32_t elem = 0,
                 uint32_t value = 0) {
    cs_[cls].fields.push_back(F{name, kind, flags, ref, elem, value});
    return static_cast<uint32_t>(cs_[cls].fields.size() - 1);
  }
  void index(int cls, std::vector<uint32_t> cols, bool unique = false) {
    cs_[cls].indexes.push_back(I{std::move(cols), unique ? uint32_t{WO_DB_UNIQUE} : 0u});
  }
  const WoDbSchema* get() {
    fields_.assign(cs_.size(), {});
    indexes_.assign(cs_.size(), {});
    classes_.clear();
    for (size_t c = 0; c < cs_.size(); ++c) {
      for (const F& f : cs_[c].fields) fields_[c].push_back(WoDbField{f.name.c_str(), f.kind, f.flags, f.ref, f.elem, f.value});
      for (const I& i : cs_[c].indexes)
        indexes_[c].push_back(WoDbIndex{i.flags, static_cast<uint32_t>(i.cols.size()), i.cols.data()});
    }
    for (size_t c = 0; c < cs_.size(); ++c)
      classes_.push_back(WoDbClass{cs_[c].name.c_str(), cs_[c].flags, static_cast<uint32_t>(fields_[c].size()),
                                   fields_[c].data(), static_cast<uint32_t>(indexes_[c].size()),
                                   indexes_[c].data()});
    s_ = WoDbSchema{static_cast<uint32_t>(classes_.size()), classes_.data()};
    return &s_;
  }

 private:
  struct F {
    std::string name;
    uint32_t kind, flags;
    int ref;
    uint32_t elem, value;  // containers: element (map: key) and value kinds
  };
  struct I {
    std::vector<uint32_t> cols;
    uint32_t flags;
  };
  struct C {
    std::string name;
    uint32_t flags;
    std::vector<F> fields;
    std::vector<I> indexes;
  };
  std::vector<C> cs_;
  std::vector<std::vector<WoDbField>> fields_;
  std::vector<std::vector<WoDbIndex>> indexes_;
  std::vector<WoDbClass> classes_;
  WoDbSchema s_{};
};

// Opens the store on `data` (a directory or log path; "" = RAM only with
// WO_EPHEMERAL=1 when there are durable tables) and closes it at scope exit.
class Open {
 public:
  explicit Open(const WoDbSchema* s, const std::string& data = "", int64_t ckpt_bytes = 0, bool stats = false) {
    WoDbConfig cfg{};
    if (!data.empty()) cfg.data = data.c_str();
    else cfg.ephemeral = "1";
    cfg.checkpoint_bytes = ckpt_bytes;
    cfg.checkpoint_ratio = -1;
    cfg.quiet = true;
    cfg.wal_stats = stats;
    char buf[1024] = "";
    rc = wo_db_open(s, &cfg, buf, sizeof buf);
    err = buf;
  }
  ~Open() { wo_db_close(); }
  Open(const Open&) = delete;
  Open& operator=(const Open&) = delete;
  int rc;
  std::string err;
};

// A row value for tests: Int, Float, Text or a nil.
struct V {
  enum Kind { I, F, T, NilText, NilInt, NilFloat } k;
  int64_t i = 0;
  double f = 0;
  std::string t;
  V(int v) : k(I), i(v) {}
  V(int64_t v) : k(I), i(v) {}
  V(double v) : k(F), f(v) {}
  V(const char* v) : k(T), t(v) {}
  V(std::string v) : k(T), t(std::move(v)) {}
  static V nil_text() { return V(NilText); }
  static V nil_int() { return V(NilInt); }
  static V nil_float() { return V(NilFloat); }

 private:
  explicit V(Kind kind) : k(kind) {}
};

// ABI words for values; owns the Texts it made.
class Words {
 public:
  explicit Words(const std::vector<V>& vs) {
    for (const V& v : vs) w_.push_back(word(v));
  }
  explicit Words(const V& v) : Words(std::vector<V>{v}) {}
  ~Words() {
    for (WoText* t : texts_) wo_release(t);
  }
  Words(const Words&) = delete;
  Words& operator=(const Words&) = delete;
  const uint64_t* data() const { return w_.data(); }
  uint64_t operator[](size_t i) const { return w_[i]; }

 private:
  uint64_t word(const V& v) {
    switch (v.k) {
      case V::I: return static_cast<uint64_t>(v.i);
      case V::F: {
        uint64_t b;
        std::memcpy(&b, &v.f, 8);
        return b;
      }
      case V::T: {
        WoText* t = wo_text_new(v.t.data(), static_cast<int64_t>(v.t.size()));
        texts_.push_back(t);
        return reinterpret_cast<uint64_t>(t);
      }
      case V::NilText: return 0;
      case V::NilInt: return static_cast<uint64_t>(WO_NIL_SCALAR);
      case V::NilFloat: return WO_NIL_FLOAT_BITS;
    }
    return 0;
  }
  std::vector<uint64_t> w_;
  std::vector<WoText*> texts_;
};

inline int64_t ins(uint32_t cls, const std::vector<V>& vs) { return wo_db_insert(cls, Words(vs).data(), nullptr); }
inline void set(uint32_t cls, int64_t id, uint32_t f, const V& v) { wo_db_set(cls, id, f, Words(v)[0], nullptr); }
inline int64_t get_int(uint32_t cls, int64_t id, uint32_t f) {
  return static_cast<int64_t>(wo_db_get(cls, id, f, nullptr));
}
inline double get_float(uint32_t cls, int64_t id, uint32_t f) {
  uint64_t b = wo_db_get(cls, id, f, nullptr);
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
// The Text of a field, or "<nil>".
inline std::string get_text(uint32_t cls, int64_t id, uint32_t f) {
  auto* t = reinterpret_cast<WoText*>(wo_db_get(cls, id, f, nullptr));
  if (!t) return "<nil>";
  std::string s(t->bytes, static_cast<size_t>(t->len));
  wo_release(t);
  return s;
}

// The ids of an owned list (released).
inline std::vector<int64_t> ids(WoList* xs) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < xs->len; ++i) v.push_back(static_cast<int64_t>(xs->data[i]));
  wo_release(xs);
  return v;
}
inline std::vector<int64_t> probe(uint32_t cls, uint32_t f, const V& key) {
  return ids(wo_db_probe(cls, f, Words(key)[0], nullptr));
}
inline std::vector<int64_t> scan(uint32_t cls) { return ids(wo_db_scan(cls, nullptr)); }

// The trap `f` raises (code 0 when it returns normally).
template <class Fn>
wo::Trap trap_of(Fn f) {
  try {
    f();
  } catch (const wo::Trap& t) {
    return t;
  }
  return wo::Trap{0, 0, "", ""};
}

}  // namespace dbtest
