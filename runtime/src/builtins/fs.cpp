// The `fs` namespace (builtins.md §9). OS failures trap IO (9) whose message
// is exactly strerror(errno); absence is not failure (fs.exists is false,
// fs.stat is nil). A path holding a NUL byte cannot name a file: it fails
// like the OS would for an invalid name (EINVAL), or is absent.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "../core/heap.h"
#include "../core/observe.h"
#include "../core/trap.h"
#include "wo_actor.h"

namespace {

[[noreturn]] void raise_errno(int err, const WoSite* site) { wo::raise(9, site, std::strerror(err)); }

// The path as a C string, or nullptr when it holds a NUL byte.
const char* c_path(const WoText* p) {
  if (std::memchr(p->bytes, '\0', static_cast<size_t>(p->len))) return nullptr;
  return p->bytes;  // WoText keeps a NUL after the bytes
}

const char* need_path(WoText* p, const WoSite* site) {
  wo::need(p, site);
  const char* c = c_path(p);
  if (!c) raise_errno(EINVAL, site);
  return c;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

int open_or_trap(const char* path, int flags, const WoSite* site, mode_t mode = 0) {
  int fd;
  do fd = ::open(path, flags | O_CLOEXEC, mode);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) raise_errno(errno, site);
  return fd;
}

// A directory opens fine but cannot be read: EISDIR, whatever the length.
int open_for_reading(const char* path, const WoSite* site) {
  int fd = open_or_trap(path, O_RDONLY, site);
  struct stat st {};
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    raise_errno(EISDIR, site);
  }
  return fd;
}

// Reads up to `n` bytes at `off` (or from the current position when off < 0)
// into a fresh Text; short files give short Texts.
WoText* read_up_to(int fd, int64_t off, int64_t n, const WoSite* site) {
  std::string buf;
  size_t want = static_cast<size_t>(n);
  struct stat st {};
  size_t hint = 64 * 1024;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) hint = static_cast<size_t>(st.st_size) + 1;
  while (buf.size() < want) {
    size_t chunk = std::min(want - buf.size(), std::max<size_t>(hint, 4096));
    size_t at = buf.size();
    buf.resize(at + chunk);
    ssize_t got = off >= 0 ? ::pread(fd, buf.data() + at, chunk, static_cast<off_t>(off) + static_cast<off_t>(at))
                           : ::read(fd, buf.data() + at, chunk);
    wo::observed_outside();
    if (got < 0) {
      buf.resize(at);
      if (errno == EINTR) continue;
      raise_errno(errno, site);
    }
    buf.resize(at + static_cast<size_t>(got));
    if (got == 0) break;
  }
  return wo::text_from(buf.data(), buf.size());
}

}  // namespace

extern "C" {

bool wo_fs_exists(WoText* path) {
  wo::need(path);
  const char* p = c_path(path);
  struct stat st {};
  return p && ::stat(p, &st) == 0;
}

WoList* wo_fs_list(WoText* dir, const WoSite* site) {
  const char* p = need_path(dir, site);
  DIR* d = ::opendir(p);
  if (!d) raise_errno(errno, site);
  std::vector<std::string> names;
  int err = 0;
  for (;;) {
    errno = 0;
    dirent* e = ::readdir(d);
    if (!e) {
      err = errno;
      break;
    }
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    try {
      names.emplace_back(e->d_name);
    } catch (...) {
      ::closedir(d);
      throw;
    }
  }
  ::closedir(d);
  if (err) raise_errno(err, site);
  std::sort(names.begin(), names.end());  // deterministic order (docs/decisions/0007)
  WoList* out = wo_list_new(WO_ELEM_TEXT, static_cast<int64_t>(names.size()));
  wo::OwnedGuard guard(out);
  for (auto& n : names) wo_list_push(out, reinterpret_cast<uint64_t>(wo::text_from(n.data(), n.size())));
  guard.disown();
  return out;
}

WoStat* wo_fs_stat(WoText* path) {
  wo::need(path);
  const char* p = c_path(path);
  struct stat st {};
  if (!p || ::stat(p, &st) != 0) return nullptr;
  auto* r = static_cast<WoStat*>(wo_alloc(sizeof(WoStat), nullptr));
  r->size = static_cast<int64_t>(st.st_size);
  r->mtime = static_cast<int64_t>(st.st_mtime) * 1000;
  r->inode = static_cast<int64_t>(st.st_ino);
  r->dir = S_ISDIR(st.st_mode) ? 1 : 0;
  return r;
}

WoText* wo_fs_read_all(WoText* path, int64_t cap, const WoSite* site) {
  const char* p = need_path(path, site);
  if (cap < 0) [[unlikely]]
    wo::raise(6, site, "fs.read_all: negative cap");
  Fd fd(open_for_reading(p, site));
  return read_up_to(fd.get(), -1, cap, site);
}

WoText* wo_fs_read_at(WoText* path, int64_t offset, int64_t n, const WoSite* site) {
  const char* p = need_path(path, site);
  if (offset < 0 || n < 0) [[unlikely]]
    wo::raise(6, site, "fs.read_at: negative offset or length");
  Fd fd(open_for_reading(p, site));
  return read_up_to(fd.get(), offset, n, site);
}

void wo_fs_append(WoText* path, WoText* t, const WoSite* site) {
  const char* p = need_path(path, site);
  wo::need(t, site);
  wo_sched_durable_barrier();  // after the actor's commits (decision 0045)
  Fd fd(open_or_trap(p, O_WRONLY | O_APPEND | O_CREAT, site, 0644));
  const char* w = t->bytes;
  size_t left = static_cast<size_t>(t->len);
  while (left > 0) {
    ssize_t n = ::write(fd.get(), w, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      raise_errno(errno, site);
    }
    w += n;
    left -= static_cast<size_t>(n);
  }
}

}  // extern "C"
