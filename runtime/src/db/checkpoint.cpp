// Snapshot writer (see checkpoint.h).
#include "checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "codec.h"
#include "file_header.h"
#include "frame.h"
#include "log_file.h"

namespace wo::db {
namespace {

bool write_all(int fd, const std::string& buf) {
  for (size_t done = 0; done < buf.size();) {
    ssize_t w = ::write(fd, buf.data() + done, buf.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

bool clear_stale_checkpoint(const std::string& log_path, std::string* err) {
  std::string tmp = log_path + ".compact";
  struct stat st {};
  if (::lstat(tmp.c_str(), &st) != 0) return true;  // none
  bool ours = false;
  if (S_ISREG(st.st_mode)) {
    int fd = ::open(tmp.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      // Enough for a header, or for the first frame of an earlier runtime's
      // snapshot (the schema head alone).
      std::string head(static_cast<size_t>(std::min<off_t>(st.st_size, 1 << 20)), '\0');
      ssize_t n = ::pread(fd, head.data(), head.size(), 0);
      ::close(fd);
      if (n == static_cast<ssize_t>(head.size())) {
        FileKind k = classify_file(reinterpret_cast<const uint8_t*>(head.data()), head.size()).kind;
        ours = k != FileKind::Foreign && k != FileKind::Damaged;  // a newer runtime's is stale too
      }
    }
  }
  if (!ours) {
    *err = tmp + " is in the way: the store writes its checkpoints under that name, and this file is not one it "
                 "wrote; move it away (it is left untouched)";
    return false;
  }
  ::unlink(tmp.c_str());
  return true;
}

bool checkpoint_due(uint64_t used, uint64_t last, uint64_t floor, uint64_t ratio) {
  if (used < floor) return false;
  if (last == 0) return true;
  if (used > last && used - last >= (uint64_t{64} << 20)) return true;
  return ratio > 0 && used > ratio * last;
}

int64_t write_checkpoint(const std::string& log_path, const Store& store, std::string* err) {
  std::string tmp = log_path + ".compact";
  // O_EXCL: never truncate a file that appeared under this name (the open
  // deleted any stale one of ours).
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    *err = "cannot create " + tmp + ": " + std::strerror(errno);
    return -1;
  }
  // The header is durable before anything else is written, so after a crash
  // this file is either ours by its header or no longer than the header.
  std::string buf = file_header(), payload;
  int64_t total = static_cast<int64_t>(buf.size());
  bool ok = write_all(fd, buf) && ::fsync(fd) == 0;
  buf.clear();
  auto flush = [&] {
    ok = ok && write_all(fd, buf);
    total += static_cast<int64_t>(buf.size());
    buf.clear();
  };
  put_u8(payload, kSchema);
  put_u32(payload, 0);
  put_u64(payload, kFormatVersion);
  encode_schema(payload, store.schema());
  append_frame(buf, payload);
  for (size_t c = 0; c < store.size() && ok; ++c) {
    const Table& t = store.table(static_cast<uint32_t>(c));
    const ClassDef& def = t.def();
    if (!def.durable()) continue;
    t.each([&](int64_t id, Row* r) {
      payload.clear();
      put_u8(payload, kInsert);
      put_u32(payload, def.id);
      put_u64(payload, static_cast<uint64_t>(id));
      encode_row(payload, def, r->slots());
      append_frame(buf, payload);
      if (buf.size() >= (1u << 20)) flush();  // plain writes; one fsync at the end
    });
  }
  flush();
  if (ok && ::fsync(fd) != 0) ok = false;
  int saved = errno;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), log_path.c_str()) != 0) {
    *err = "cannot write " + tmp + ": " + std::strerror(ok ? errno : saved);
    ::unlink(tmp.c_str());
    return -1;
  }
  int derr = 0;
  if (!fsync_parent_dir(log_path, &derr)) die_durability("fsync (directory, after checkpoint)", log_path, derr, 0);
  return total;
}

}  // namespace wo::db
