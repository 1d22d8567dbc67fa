// Helpers for the runtime unit tests: Texts from string literals, Texts back
// to std::string, owned-value holders, and a way to run code with a standard
// stream redirected to a temp file.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/src/core/trap.h"
#include "wo_runtime.h"

namespace wotest {

inline WoText* text(std::string_view s) { return wo_text_new(s.data(), static_cast<int64_t>(s.size())); }

inline std::string str(const WoText* t) { return std::string(t->bytes, static_cast<size_t>(t->len)); }

// An owned heap value, released at scope exit.
template <class T>
class Owned {
 public:
  explicit Owned(T* p = nullptr) : p_(p) {}
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { wo_release(p_); }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  operator T*() const { return p_; }

 private:
  T* p_;
};

using OText = Owned<WoText>;
using OList = Owned<WoList>;
using OMap = Owned<WoMap>;
using OBytes = Owned<WoBytes>;

inline WoBytes* bytes(std::string_view s) { return wo_bytes_new(s.data(), static_cast<int64_t>(s.size())); }
inline std::string str(const WoBytes* b) { return std::string(b->bytes, static_cast<size_t>(b->len)); }

// The trap raised by f(), or one with code 0 when f() returned normally.
template <class F>
wo::Trap trapped(F f) {
  try {
    f();
  } catch (const wo::Trap& t) {
    return t;
  }
  return wo::Trap{0, 0, "", ""};
}

// Slot <-> value helpers for lists and maps.
inline uint64_t pslot(const void* p) { return reinterpret_cast<uint64_t>(p); }
inline uint64_t islot(int64_t n) { return static_cast<uint64_t>(n); }
inline uint64_t fslot(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
inline double fval(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}
inline WoText* tslot(uint64_t u) { return reinterpret_cast<WoText*>(u); }

// Runs f() with file descriptor `fd` (1 or 2) redirected to a temp file;
// returns what was written there.
inline std::string capture_fd(int fd, const std::function<void()>& f) {
  std::fflush(stdout);
  std::fflush(stderr);
  char path[] = "/tmp/wo_rt_test_XXXXXX";
  int tmp = mkstemp(path);
  int saved = dup(fd);
  dup2(tmp, fd);
  f();
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(saved, fd);
  close(saved);
  std::string out;
  lseek(tmp, 0, SEEK_SET);
  char buf[4096];
  ssize_t n;
  while ((n = read(tmp, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(tmp);
  unlink(path);
  return out;
}

// The Texts of a multi Text, in order.
inline std::vector<std::string> texts(const WoList* xs) {
  std::vector<std::string> v;
  for (int64_t i = 0; i < xs->len; ++i) v.push_back(str(reinterpret_cast<const WoText*>(xs->data[i])));
  return v;
}

}  // namespace wotest
