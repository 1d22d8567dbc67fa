// Per-call working memory of the HTTP builtins without per-request malloc:
// a lease on a buffer + header-span vector from a thread-local free list.
// A lease is held across parks, so each concurrent call on a thread (one per
// parked fiber) has its own; released, it goes back with its capacity kept,
// unless a huge request grew it (then it is freed, so a burst of 1 MiB heads
// does not pin that memory per thread forever).
#pragma once
#include <cstring>
#include <memory>
#include <vector>

#include "request_parser.h"

namespace wo::http {

// A growable byte buffer that, unlike std::string::resize, does not clear
// the room it makes before a read(2) fills it.
class Bytes {
 public:
  char* data() { return p_.get(); }
  size_t size() const { return len_; }
  size_t capacity() const { return cap_; }
  void clear() { len_ = 0; }
  // Room for `n` more bytes after size(); returns where they go.
  char* room(size_t n);
  void grow_by(size_t n) { len_ += n; }  // n <= the room just made
  void append(const char* s, size_t n) {
    if (n == 0) return;  // an empty carry into a buffer never grown: no memcpy on NULL
    std::memcpy(room(n), s, n);
    len_ += n;
  }

 private:
  std::unique_ptr<char[]> p_;
  size_t len_ = 0, cap_ = 0;
};

struct Scratch {
  Bytes buf;                  // the request bytes / the response head
  std::vector<Field> fields;  // header spans of the request being read
};

class ScratchLease {
 public:
  ScratchLease();
  ~ScratchLease();
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  Scratch& operator*() { return *s_; }
  Scratch* operator->() { return s_.get(); }

 private:
  std::unique_ptr<Scratch> s_;
};

}  // namespace wo::http
