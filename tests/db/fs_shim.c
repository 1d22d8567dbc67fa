// fs_shim: an LD_PRELOAD layer over the file system calls the table store
// makes, for the crash and power-loss tests (tests/db/CMakeLists.txt). It
// watches one directory, WO_SHIM_DIR (absolute, no trailing slash): the files
// directly in it and the directory itself. Everything else passes through.
//
// Events are the calls on watched files that change something, or that mark
// a step of start-up: create (open that makes the file), write/pwrite,
// ftruncate, fsync/fdatasync (of a file, or of the directory: "dirsync"),
// rename, unlink, and mmap/munmap of a watched file (replay reads the log
// through a mapping). Each event belongs to classes:
//
//   any        every event
//   write create trunc rename unlink map   by call
//   sync       fsync or fdatasync of a file; fdatasync, fsync: each alone
//   dirsync    fsync of the directory
//   ckpt       any event on a name ending in ".compact", every rename and
//              every dirsync (a checkpoint in progress)
//
// Environment:
//   WO_SHIM_KILL=CLASS:N   SIGKILL the process just before the N-th event of
//                          CLASS (one line on stderr first: "fs-shim: kill …")
//   WO_SHIM_FAIL=CLASS:N   the N-th event of CLASS fails with EIO instead of
//                          happening ("fs-shim: fail …" on stderr)
//   WO_SHIM_JOURNAL=PATH   append every event that happened, and every open and
//                          close of a watched file, to PATH (outside the
//                          directory), in order: what tests/db/disk_model.h
//                          replays to find what a disk would hold after a
//                          power loss
//   WO_SHIM_NOSYNC=1       do not pass fsync/fdatasync of watched files on to
//                          the kernel (the journal models them; saves time)
//
// Journal records: u32 size (of what follows), u8 type, then by type
//   'O' fd:i32 created:u8 truncated:u8 is_dir:u8 name    (an open)
//   'C' fd:i32                                             (a close)
//   'W' fd:i32 off:u64 zero:u8 len:u32 [bytes unless zero] (a write)
//   'T' fd:i32 size:u64                                    (ftruncate)
//   'S' fd:i32                                             (fsync/fdatasync of a file)
//   'D' fd:i32                                             (fsync of the directory)
//   'R' len:u32 from to                                    (rename)
//   'U' name                                               (unlink)
// A record is written after its call succeeded, under one lock with the
// call, so the journal's order is the order the calls took effect.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

enum {
  C_ANY = 1 << 0,
  C_WRITE = 1 << 1,
  C_SYNC = 1 << 2,
  C_FDATASYNC = 1 << 3,
  C_FSYNC = 1 << 4,
  C_DIRSYNC = 1 << 5,
  C_RENAME = 1 << 6,
  C_UNLINK = 1 << 7,
  C_CREATE = 1 << 8,
  C_TRUNC = 1 << 9,
  C_CKPT = 1 << 10,
  C_MAP = 1 << 11,
};

static const struct {
  const char* name;
  unsigned cls;
} kClasses[] = {{"any", C_ANY},         {"write", C_WRITE},     {"sync", C_SYNC},     {"fdatasync", C_FDATASYNC},
                {"fsync", C_FSYNC},     {"dirsync", C_DIRSYNC}, {"rename", C_RENAME}, {"unlink", C_UNLINK},
                {"create", C_CREATE},   {"trunc", C_TRUNC},     {"ckpt", C_CKPT},     {"map", C_MAP}};

struct rule {
  unsigned cls;
  long n, seen;
  int kill;
};

#define MAX_FD 1024
#define NAME_MAX_LEN 255

static struct {
  int used, is_dir;
  char name[NAME_MAX_LEN + 1];
} g_fds[MAX_FD];

#define MAX_MAPS 64
static void* g_maps[MAX_MAPS];

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_dir[4096];
static size_t g_dirlen;
static int g_journal = -1, g_nosync;
static struct rule g_rules[2];
static int g_nrules;

static int (*real_open)(const char*, int, ...);
static int (*real_open64)(const char*, int, ...);
static int (*real_openat)(int, const char*, int, ...);
static int (*real_close)(int);
static ssize_t (*real_write)(int, const void*, size_t);
static ssize_t (*real_pwrite)(int, const void*, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void*, size_t, off_t);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_ftruncate)(int, off_t);
static int (*real_rename)(const char*, const char*);
static int (*real_unlink)(const char*);
static void* (*real_mmap)(void*, size_t, int, int, int, off_t);
static int (*real_munmap)(void*, size_t);

static void parse_rule(const char* var, int kill) {
  const char* v = getenv(var);
  if (!v || !*v) return;
  const char* colon = strchr(v, ':');
  if (!colon) return;
  for (size_t i = 0; i < sizeof kClasses / sizeof kClasses[0]; ++i)
    if (strlen(kClasses[i].name) == (size_t)(colon - v) && strncmp(v, kClasses[i].name, (size_t)(colon - v)) == 0) {
      g_rules[g_nrules].cls = kClasses[i].cls;
      g_rules[g_nrules].n = atol(colon + 1);
      g_rules[g_nrules].seen = 0;
      g_rules[g_nrules].kill = kill;
      g_nrules++;
      return;
    }
}

// The next definitions of the calls. Idempotent and needing no environment:
// a sanitizer's start-up may call in before the C library has set one up.
static void resolve(void) {
#define RESOLVE(f) real_##f = dlsym(RTLD_NEXT, #f)
  RESOLVE(open);
  RESOLVE(open64);
  RESOLVE(openat);
  RESOLVE(close);
  RESOLVE(write);
  RESOLVE(pwrite);
  RESOLVE(pwrite64);
  RESOLVE(fsync);
  RESOLVE(fdatasync);
  RESOLVE(ftruncate);
  RESOLVE(rename);
  RESOLVE(unlink);
  RESOLVE(mmap);
  RESOLVE(munmap);
#undef RESOLVE
}

static void ensure(void) { pthread_once(&g_once, resolve); }

// The configuration, once the environment exists (a constructor runs after
// the C library's start-up and before main; calls made earlier pass through).
__attribute__((constructor)) static void configure(void) {
  ensure();
  pthread_mutex_lock(&g_mu);
  const char* dir = getenv("WO_SHIM_DIR");
  if (dir && dir[0] == '/' && strlen(dir) < sizeof g_dir) {
    strcpy(g_dir, dir);
    g_dirlen = strlen(g_dir);
    while (g_dirlen > 1 && g_dir[g_dirlen - 1] == '/') g_dir[--g_dirlen] = '\0';
  }
  const char* j = getenv("WO_SHIM_JOURNAL");
  if (j && *j) g_journal = real_open(j, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  g_nosync = getenv("WO_SHIM_NOSYNC") != NULL;
  parse_rule("WO_SHIM_KILL", 1);
  parse_rule("WO_SHIM_FAIL", 0);
  pthread_mutex_unlock(&g_mu);
}

// The name of `path` in the watched directory ("" for the directory itself),
// or NULL when it is not watched. Relative paths are taken from the cwd.
static const char* watched(const char* path, char* buf, size_t cap) {
  if (!g_dirlen || !path) return NULL;
  char abs[4096];
  if (path[0] == '/') {
    snprintf(abs, sizeof abs, "%s", path);
  } else {
    char cwd[2048];
    if (!getcwd(cwd, sizeof cwd)) return NULL;
    snprintf(abs, sizeof abs, "%s/%s", cwd, path);
  }
  // Collapse "//" and drop a trailing '/'.
  size_t w = 0;
  for (size_t r = 0; abs[r]; ++r)
    if (!(abs[r] == '/' && w > 0 && abs[w - 1] == '/')) abs[w++] = abs[r];
  while (w > 1 && abs[w - 1] == '/') --w;
  abs[w] = '\0';
  if (strcmp(abs, g_dir) == 0) {
    buf[0] = '\0';
    return buf;
  }
  if (strncmp(abs, g_dir, g_dirlen) != 0 || abs[g_dirlen] != '/') return NULL;
  const char* name = abs + g_dirlen + 1;
  if (strchr(name, '/') || strlen(name) >= cap) return NULL;
  snprintf(buf, cap, "%s", name);
  return buf;
}

static int ends_with_compact(const char* name) {
  size_t n = strlen(name);
  return n >= 8 && strcmp(name + n - 8, ".compact") == 0;
}

static void say(const char* what, const char* call, const char* name, long n) {
  char line[512];
  int len = snprintf(line, sizeof line, "fs-shim: %s at %s #%ld (%s)\n", what, call, n, name);
  if (len > 0) (void)!real_write(2, line, (size_t)len);
}

// Counts the event; kills the process or returns 1 (the call must fail).
static int event(unsigned cls, const char* call, const char* name) {
  cls |= C_ANY;
  int fail = 0;
  for (int i = 0; i < g_nrules; ++i) {
    if (!(g_rules[i].cls & cls)) continue;
    if (++g_rules[i].seen != g_rules[i].n) continue;
    if (g_rules[i].kill) {
      say("kill", call, name, g_rules[i].n);
      raise(SIGKILL);
    }
    say("fail", call, name, g_rules[i].n);
    fail = 1;
  }
  return fail;
}

static void record(char type, const void* a, size_t alen, const void* b, size_t blen) {
  if (g_journal < 0) return;
  uint32_t size = (uint32_t)(1 + alen + blen);
  struct iovec iov[4] = {{&size, 4}, {&type, 1}, {(void*)a, alen}, {(void*)b, blen}};
  size_t want = 4 + size;
  ssize_t w = writev(g_journal, iov, 4);
  if (w != (ssize_t)want) abort();  // a journal we cannot trust must not pass a test
}

static void record_fd(char type, int fd) {
  int32_t f = fd;
  record(type, &f, 4, NULL, 0);
}

static int fd_watched(int fd) { return fd >= 0 && fd < MAX_FD && g_fds[fd].used; }

static unsigned ckpt_of(int fd) { return ends_with_compact(g_fds[fd].name) ? C_CKPT : 0; }

static int do_open(int (*real)(const char*, int, ...), int dirfd, int use_at, const char* path, int flags,
                   mode_t mode) {
  ensure();
  char name[NAME_MAX_LEN + 1];
  const char* n = (use_at && dirfd != AT_FDCWD && path[0] != '/') ? NULL : watched(path, name, sizeof name);
  if (!n) return use_at ? real_openat(dirfd, path, flags, mode) : real(path, flags, mode);
  pthread_mutex_lock(&g_mu);
  struct stat st;
  int existed = lstat(path, &st) == 0;
  int creates = (flags & O_CREAT) && !existed;
  if (creates && event(C_CREATE | (ends_with_compact(n) ? C_CKPT : 0), "create", n)) {
    pthread_mutex_unlock(&g_mu);
    errno = EIO;
    return -1;
  }
  int fd = use_at ? real_openat(dirfd, path, flags, mode) : real(path, flags, mode);
  if (fd >= 0 && fd < MAX_FD) {
    g_fds[fd].used = 1;
    g_fds[fd].is_dir = n[0] == '\0';
    snprintf(g_fds[fd].name, sizeof g_fds[fd].name, "%s", n);
    char hdr[7];
    int32_t f = fd;
    memcpy(hdr, &f, 4);
    hdr[4] = (char)creates;
    hdr[5] = (char)(existed && (flags & O_TRUNC) && (flags & O_ACCMODE) != O_RDONLY);
    hdr[6] = (char)g_fds[fd].is_dir;
    record('O', hdr, sizeof hdr, n, strlen(n));
  }
  pthread_mutex_unlock(&g_mu);
  return fd;
}

int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  ensure();
  return do_open(real_open, AT_FDCWD, 0, path, flags, mode);
}

int open64(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  ensure();
  return do_open(real_open64, AT_FDCWD, 0, path, flags, mode);
}

int openat(int dirfd, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (flags & (O_CREAT | O_TMPFILE)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  ensure();
  return do_open(real_open, dirfd, 1, path, flags, mode);
}

int close(int fd) {
  ensure();
  if (!fd_watched(fd)) return real_close(fd);
  pthread_mutex_lock(&g_mu);
  int rc = real_close(fd);
  g_fds[fd].used = 0;
  record_fd('C', fd);
  pthread_mutex_unlock(&g_mu);
  return rc;
}

static int all_zero(const void* buf, size_t n) {
  const unsigned char* p = buf;
  for (size_t i = 0; i < n; ++i)
    if (p[i]) return 0;
  return 1;
}

static ssize_t do_write(ssize_t (*real)(int, const void*, size_t, off_t), int fd, const void* buf, size_t n, off_t off,
                        int positioned) {
  pthread_mutex_lock(&g_mu);
  if (event(C_WRITE | ckpt_of(fd), positioned ? "pwrite" : "write", g_fds[fd].name)) {
    pthread_mutex_unlock(&g_mu);
    errno = EIO;
    return -1;
  }
  if (!positioned) off = lseek(fd, 0, SEEK_CUR);
  ssize_t w = positioned ? real(fd, buf, n, off) : real_write(fd, buf, n);
  if (w > 0) {
    char hdr[17];
    int32_t f = fd;
    uint64_t o = (uint64_t)off;
    uint32_t len = (uint32_t)w;
    int zero = all_zero(buf, (size_t)w);
    memcpy(hdr, &f, 4);
    memcpy(hdr + 4, &o, 8);
    hdr[12] = (char)zero;
    memcpy(hdr + 13, &len, 4);
    record('W', hdr, sizeof hdr, zero ? NULL : buf, zero ? 0 : (size_t)w);
  }
  pthread_mutex_unlock(&g_mu);
  return w;
}

ssize_t write(int fd, const void* buf, size_t n) {
  ensure();
  if (!fd_watched(fd)) return real_write(fd, buf, n);
  return do_write(NULL, fd, buf, n, 0, 0);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
  ensure();
  if (!fd_watched(fd)) return real_pwrite(fd, buf, n, off);
  return do_write(real_pwrite, fd, buf, n, off, 1);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off_t off) {
  ensure();
  if (!fd_watched(fd)) return real_pwrite64(fd, buf, n, off);
  return do_write(real_pwrite64, fd, buf, n, off, 1);
}

static int do_sync(int (*real)(int), int fd, unsigned which, const char* call) {
  pthread_mutex_lock(&g_mu);
  int dir = g_fds[fd].is_dir;
  unsigned cls = dir ? (C_DIRSYNC | C_CKPT) : (C_SYNC | which | ckpt_of(fd));
  if (event(cls, dir ? "dirsync" : call, dir ? "." : g_fds[fd].name)) {
    pthread_mutex_unlock(&g_mu);
    errno = EIO;
    return -1;
  }
  int rc = g_nosync ? 0 : real(fd);
  if (rc == 0) record_fd(dir ? 'D' : 'S', fd);
  pthread_mutex_unlock(&g_mu);
  return rc;
}

int fsync(int fd) {
  ensure();
  if (!fd_watched(fd)) return real_fsync(fd);
  return do_sync(real_fsync, fd, C_FSYNC, "fsync");
}

int fdatasync(int fd) {
  ensure();
  if (!fd_watched(fd)) return real_fdatasync(fd);
  return do_sync(real_fdatasync, fd, C_FDATASYNC, "fdatasync");
}

int ftruncate(int fd, off_t size) {
  ensure();
  if (!fd_watched(fd)) return real_ftruncate(fd, size);
  pthread_mutex_lock(&g_mu);
  if (event(C_TRUNC | ckpt_of(fd), "ftruncate", g_fds[fd].name)) {
    pthread_mutex_unlock(&g_mu);
    errno = EIO;
    return -1;
  }
  int rc = real_ftruncate(fd, size);
  if (rc == 0) {
    char hdr[12];
    int32_t f = fd;
    uint64_t s = (uint64_t)size;
    memcpy(hdr, &f, 4);
    memcpy(hdr + 4, &s, 8);
    record('T', hdr, sizeof hdr, NULL, 0);
  }
  pthread_mutex_unlock(&g_mu);
  return rc;
}

int rename(const char* from, const char* to) {
  ensure();
  char a[NAME_MAX_LEN + 1], b[NAME_MAX_LEN + 1];
  const char* na = watched(from, a, sizeof a);
  const char* nb = watched(to, b, sizeof b);
  if (!na || !nb || !*na || !*nb) return real_rename(from, to);
  pthread_mutex_lock(&g_mu);
  if (event(C_RENAME | C_CKPT, "rename", na)) {
    pthread_mutex_unlock(&g_mu);
    errno = EIO;
    return -1;
  }
  int rc = real_rename(from, to);
  if (rc == 0) {
    uint32_t la = (uint32_t)strlen(na);
    char buf[4 + 2 * (NAME_MAX_LEN + 1)];
    memcpy(buf, &la, 4);
    memcpy(buf + 4, na, la);
    memcpy(buf + 4 + la, nb, strlen(nb));
    record('R', buf, 4 + la + strlen(nb), NULL, 0);
  }
  pthread_mutex_unlock(&g_mu);
  return rc;
}

int unlink(const char* path) {
  ensure();
  char a[NAME_MAX_LEN + 1];
  const char* n = watched(path, a, sizeof a);
  if (!n || !*n) return real_unlink(path);
  pthread_mutex_lock(&g_mu);
  if (event(C_UNLINK | (ends_with_compact(n) ? C_CKPT : 0), "unlink", n)) {
    pthread_mutex_unlock(&g_mu);
    errno = EIO;
    return -1;
  }
  int rc = real_unlink(path);
  if (rc == 0) record('U', n, strlen(n), NULL, 0);
  pthread_mutex_unlock(&g_mu);
  return rc;
}

void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  ensure();
  if (!fd_watched(fd)) return real_mmap(addr, len, prot, flags, fd, off);
  pthread_mutex_lock(&g_mu);
  event(C_MAP, "mmap", g_fds[fd].name);  // a step of start-up: replay reads the mapping
  void* p = real_mmap(addr, len, prot, flags, fd, off);
  for (int i = 0; p != MAP_FAILED && i < MAX_MAPS; ++i)
    if (!g_maps[i]) {
      g_maps[i] = p;
      break;
    }
  pthread_mutex_unlock(&g_mu);
  return p;
}

int munmap(void* addr, size_t len) {
  ensure();
  if (!addr) return real_munmap(addr, len);
  pthread_mutex_lock(&g_mu);
  for (int i = 0; i < MAX_MAPS; ++i)
    if (g_maps[i] == addr) {
      g_maps[i] = NULL;
      event(C_MAP, "munmap", "(a watched file)");  // replay is over
      break;
    }
  pthread_mutex_unlock(&g_mu);
  return real_munmap(addr, len);
}
