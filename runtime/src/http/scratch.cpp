// scratch.h: the thread-local free list of Scratch objects.
#include "scratch.h"

#include "../core/asan_poison.h"

namespace wo::http {

namespace {
constexpr size_t kKeepBytes = size_t{64} << 10;  // a buffer grown past this is not pooled
constexpr size_t kKeepFields = 256;
constexpr size_t kPoolMax = 64;                  // idle Scratch objects kept per thread

std::vector<std::unique_ptr<Scratch>>& pool() {
  thread_local std::vector<std::unique_ptr<Scratch>> p = [] {
    std::vector<std::unique_ptr<Scratch>> v;
    v.reserve(kPoolMax);  // so the push_back of a released lease never allocates (or throws)
    return v;
  }();
  return p;
}
}  // namespace

char* Bytes::room(size_t n) {
  if (cap_ - len_ < n) {
    size_t want = cap_ ? cap_ : 4096;
    while (want - len_ < n) want *= 2;
    auto q = std::make_unique_for_overwrite<char[]>(want);
    if (len_) std::memcpy(q.get(), p_.get(), len_);
    p_ = std::move(q);
    cap_ = want;
  }
  return p_.get() + len_;
}

namespace {
// Under ASan an idle Scratch's buffers are poisoned: a span still pointing
// into a finished call's request is reported when read (decision 0077).
void poison(Scratch& s, bool on) {
  auto mark = on ? asan_poison : asan_unpoison;
  if (s.buf.data()) mark(s.buf.data(), s.buf.capacity());
  if (s.fields.data()) mark(s.fields.data(), s.fields.capacity() * sizeof(Field));
}
}  // namespace

ScratchLease::ScratchLease() {
  auto& p = pool();
  if (p.empty()) {
    s_ = std::make_unique<Scratch>();
  } else {
    s_ = std::move(p.back());
    p.pop_back();
    poison(*s_, false);
  }
  s_->buf.clear();
  s_->fields.clear();
}

ScratchLease::~ScratchLease() {
  auto& p = pool();
  if (s_->buf.capacity() > kKeepBytes || s_->fields.capacity() > kKeepFields || p.size() >= kPoolMax) return;
  s_->buf.clear();
  s_->fields.clear();  // nothing of it is read again before the next lease
  poison(*s_, true);
  p.push_back(std::move(s_));
}

}  // namespace wo::http
