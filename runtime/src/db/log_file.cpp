// The log file (see log_file.h).
#include "log_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "file_header.h"

namespace wo::db {

namespace testing {
std::atomic<int> fail_sync_countdown{0};
std::atomic<void (*)()> before_sync{nullptr};
}

namespace {

constexpr uint64_t kGrow = uint64_t{1} << 20;  // preallocation step (§1.9: 1 MiB)

std::string parent_of(const std::string& p) {
  size_t slash = p.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

bool refuse(std::string* err, std::string msg) {
  *err = std::move(msg);
  return false;
}

int sync_data(int fd) {
  if (auto hook = testing::before_sync.load()) hook();
  int n = testing::fail_sync_countdown.load();
  if (n > 0 && testing::fail_sync_countdown.fetch_sub(1) == 1) {
    errno = EIO;
    return -1;
  }
  return ::fdatasync(fd);
}

// A log path that is a symbolic link -> the file it names (which must exist
// and be a regular file); any other path is kept as it is.
bool follow_link(std::string* log, std::string* err) {
  struct stat st {};
  if (::lstat(log->c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return true;
  char* real = ::realpath(log->c_str(), nullptr);
  if (!real)
    return refuse(err, "the log " + *log + " is a symbolic link to a missing file (" + std::strerror(errno) + ")");
  std::string target = real;
  std::free(real);
  if (::stat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return refuse(err, "the log " + *log + " is a symbolic link to " + target + ", which is not a regular file");
  *log = target;
  return true;
}

// One process per log: a second one would append at its own idea of the end
// and overwrite the first one's acknowledged frames. (A file system without
// flock keeps the behaviour of before.)
bool lock(int fd, const std::string& path, std::string* err) {
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK) return true;
  return refuse(err,
                "the log " + path + " is in use by another process (a store is opened by one process at a time)");
}

}  // namespace

bool resolve_data_path(const std::string& data, std::string* log, std::string* err) {
  if (data.empty()) return refuse(err, "WO_DATA is set but empty; give a directory or a log file path");
  if (data.size() > 512) return refuse(err, "WO_DATA is longer than 512 bytes");
  // wo_db_open hands a database URI to the PostgreSQL store (runtime/src/pg/);
  // one that reaches the engine anyway must not become a relative path
  // "postgresql:" (a directory nobody asked for). The URI is not repeated: it
  // may carry a password.
  if (data.rfind("postgresql://", 0) == 0 || data.rfind("postgres://", 0) == 0)
    return refuse(err, "WO_DATA names a PostgreSQL database, which the embedded store cannot open "
                       "(wo_db_open gives it to the PostgreSQL store)");
  struct stat st {};
  if (::stat(data.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      *log = data + (data.back() == '/' ? "" : "/") + "shard-0.wal";
      return follow_link(log, err);
    }
    if (S_ISREG(st.st_mode)) {
      *log = data;
      return follow_link(log, err);
    }
    return refuse(err, "WO_DATA=" + data + " is neither a regular file nor a directory");
  }
  if (data.back() == '/') return refuse(err, "WO_DATA=" + data + ": no such directory");
  if (::lstat(data.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    return refuse(err, "WO_DATA=" + data + " is a symbolic link to a missing file");
  std::string parent = parent_of(data);
  if (::stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return refuse(err, "WO_DATA=" + data + ": the parent directory " + parent +
                           " does not exist (the runtime never creates directories)");
  *log = data;
  return true;
}

void die_durability(const char* op, const std::string& path, int err, uint64_t nrec) {
  std::fflush(stdout);
  std::fprintf(stderr, "wo: durability failure: %s %s: %s (%llu records in the batch); exiting\n", op,
               path.c_str(), std::strerror(err), static_cast<unsigned long long>(nrec));
  std::fflush(stderr);
  ::_exit(74);  // not exit(): other threads may be inside the store
}

bool fsync_parent_dir(const std::string& path, int* err) {
  int dfd = ::open(parent_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    *err = errno;
    return false;
  }
  int rc = ::fsync(dfd);
  *err = errno;
  ::close(dfd);
  return rc == 0;
}

LogFile::~LogFile() {
  if (fd_ >= 0) ::close(fd_);
  if (retired_fd_ >= 0) ::close(retired_fd_);
}

bool LogFile::open(const std::string& path, std::string* err) {
  path_ = path;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))  // not even opened: a device may act on open
    return refuse(err, "the log " + path + " is not a regular file");
  fd_ = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0 && errno == ENOENT)
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) return refuse(err, "cannot open the log " + path + ": " + std::strerror(errno));
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode))
    return refuse(err, "the log " + path + " is not a regular file");
  if (!lock(fd_, path, err)) return false;
  size_ = static_cast<uint64_t>(st.st_size);
  end_ = 0;
  return true;
}

void LogFile::initialise() {
  std::string h = file_header();
  if (::pwrite(fd_, h.data(), h.size(), 0) != static_cast<ssize_t>(h.size()))
    die_durability("pwrite (header)", path_, errno ? errno : ENOSPC, 0);
  if (::ftruncate(fd_, static_cast<off_t>(h.size())) != 0) die_durability("ftruncate", path_, errno, 0);
  if (::fsync(fd_) != 0) die_durability("fsync", path_, errno, 0);
  int derr = 0;
  if (!fsync_parent_dir(path_, &derr)) die_durability("fsync (directory, after creating the log)", path_, derr, 0);
  size_ = end_ = h.size();
}

bool LogFile::upgrade_header(std::string* err) {
  // Only the version differs (3 → 4, one byte), so a crash leaves one
  // header or the other, and both are read the same.
  std::string h = file_header();
  if (::pwrite(fd_, h.data(), h.size(), 0) != static_cast<ssize_t>(h.size()) || ::fdatasync(fd_) != 0)
    return refuse(err, "cannot upgrade the log " + path_ + " to store file format " + std::to_string(kFileVersion) +
                           ": " + std::strerror(errno ? errno : EIO));
  return true;
}

void LogFile::write_at(int fd, uint64_t end, uint64_t* size, std::string_view bytes, uint64_t nrec,
                       const std::string& name) {
  static const char zeros[64 << 10] = {};
  if (end + bytes.size() > *size) {
    uint64_t target = (end + bytes.size() + kGrow) / kGrow * kGrow;
    for (uint64_t at = *size; at < target;) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(sizeof zeros, target - at));
      ssize_t w = ::pwrite(fd, zeros, n, static_cast<off_t>(at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) die_durability("pwrite (preallocate)", name, w < 0 ? errno : ENOSPC, nrec);
      at += static_cast<uint64_t>(w);
    }
    *size = target;
  }
  for (size_t done = 0; done < bytes.size();) {
    ssize_t w = ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(end + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) die_durability("pwrite", name, w < 0 ? errno : ENOSPC, nrec);
    done += static_cast<size_t>(w);
  }
}

void LogFile::append_durable(std::string_view bytes, uint64_t nrec) {
  if (mirror_fd_ >= 0 && mirror_durable_.load(std::memory_order_acquire)) switch_to_mirror();
  write_at(fd_, end_, &size_, bytes, nrec, path_);
  // During a checkpoint's install the same bytes go to the new file, synced
  // after the log (two device flushes for the few rounds the install takes).
  // A failure there exits as one on the log does: the new file is the log
  // as soon as its rename is durable, which may already be so.
  if (mirror_fd_ >= 0) write_at(mirror_fd_, mirror_end_, &mirror_size_, bytes, nrec, mirror_name_);
  if (sync_data(fd_) != 0) die_durability("fdatasync", path_, errno, nrec);
  if (mirror_fd_ >= 0 && sync_data(mirror_fd_) != 0) die_durability("fdatasync", mirror_name_, errno, nrec);
  end_ += bytes.size();
  if (mirror_fd_ >= 0) mirror_end_ += bytes.size();
}

void LogFile::truncate_at_end() {
  if (::ftruncate(fd_, static_cast<off_t>(end_)) != 0) die_durability("ftruncate", path_, errno, 0);
  if (::fsync(fd_) != 0) die_durability("fsync", path_, errno, 0);
  size_ = end_;
}

void LogFile::mirror(int fd, uint64_t end, uint64_t size, std::string mirror_name) {
  mirror_fd_ = fd;
  mirror_end_ = end;
  mirror_size_ = std::max(size, end);
  mirror_name_ = std::move(mirror_name);
}

void LogFile::switch_to_mirror() {
  retired_fd_ = fd_;
  fd_ = mirror_fd_;
  end_ = mirror_end_;
  size_ = mirror_size_;
  mirror_fd_ = -1;
  mirror_durable_.store(false, std::memory_order_relaxed);
}

int LogFile::take_mirror() {
  if (mirror_fd_ >= 0) switch_to_mirror();
  int fd = retired_fd_;
  retired_fd_ = -1;
  return fd;
}

void release_retired(int fd) {
  constexpr off_t kStep = off_t{4} << 20;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_nlink == 0) {
    for (off_t size = st.st_size; size > 0;) {
      size = size > kStep ? size - kStep : 0;
      // Nothing depends on these: the file has no name. A failure ends the
      // steps, and close frees the rest at once.
      if (::ftruncate(fd, size) != 0 || ::fsync(fd) != 0) break;
    }
  }
  ::close(fd);
}

bool LogFile::reopen(uint64_t end, uint64_t size, int* retired, std::string* err) {
  int fd = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return refuse(err, "cannot reopen the log " + path_ + ": " + std::strerror(errno));
  if (!lock(fd, path_, err)) {  // taken between the rename and here
    ::close(fd);
    return false;
  }
  *retired = fd_;
  fd_ = fd;
  end_ = end;
  size_ = std::max(size, end);
  return true;
}

}  // namespace wo::db
