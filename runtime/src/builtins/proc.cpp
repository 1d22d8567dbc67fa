// proc.run / proc.run_dl (builtins.md §9): run a command (PATH lookup) with
// stdin on /dev/null, capture stdout and stderr under byte caps and a
// deadline, and build the Proc record {code, out, err}.
//
//   code      exit status; -1 when killed by a signal; 127 when the command
//             could not be executed (not found, not executable, ...)
//   bounds    stdout cap (default 1 MiB), stderr cap (64 KiB), deadline
//             (30 000 ms). Exceeding a cap kills the child and traps IO
//             naming the bound, in both forms. Exceeding the deadline kills
//             the child and traps IO in proc.run, and is nil in proc.run_dl
//             (absence, not failure: builtins.md §1.4).
//   arguments at most 62, each (and the command) under 512 bytes, with no
//             NUL byte; otherwise BOUNDS.
//   stop      with the env.stopping() latch armed, a SIGTERM/SIGINT during
//             the wait kills the child; proc.run then ends the program with
//             status 0, proc.run_dl returns nil.
// The child gets default SIGPIPE/SIGINT/SIGTERM dispositions and an empty
// signal mask (wo_start ignores SIGPIPE in the parent).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "../core/heap.h"
#include "../core/observe.h"
#include "stop.h"
#include "../core/trap.h"
#include "wo_actor.h"

extern char** environ;

namespace {

constexpr int64_t kDefaultDeadlineMs = 30000;
constexpr int64_t kDefaultOutCap = 1 << 20;
constexpr int64_t kDefaultErrCap = 64 << 10;
constexpr int64_t kMaxArgs = 62;
constexpr int64_t kMaxArgLen = 512;

[[noreturn]] void raise_errno(int err, const WoSite* site) { wo::raise(9, site, std::strerror(err)); }

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// A running child and the parent's ends of its pipes. The destructor kills
// and reaps a child still running (a trap unwinding through the wait).
struct Child {
  pid_t pid = -1;
  int out = -1, err = -1, pidfd = -1;
  bool reaped = false;
  int status = 0;

  ~Child() {
    close_fd(out);
    close_fd(err);
    close_fd(pidfd);
    if (pid > 0 && !reaped) {
      ::kill(pid, SIGKILL);
      reap(true);
    }
  }
  // True once the child has been reaped (`status` set).
  bool reap(bool block) {
    if (reaped) return true;
    for (;;) {
      pid_t r = ::waitpid(pid, &status, block ? 0 : WNOHANG);
      if (r == pid) return reaped = true;
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {  // not our child any more: nothing to wait for
        status = 0;
        return reaped = true;
      }
      return false;
    }
  }
  void kill_and_reap() {
    ::kill(pid, SIGKILL);
    reap(true);
  }
};

struct Pipe {
  int r = -1, w = -1;
  ~Pipe() {
    close_fd(r);
    close_fd(w);
  }
};

void make_pipe(Pipe& p, const WoSite* site) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) raise_errno(errno, site);
  p.r = fds[0];
  p.w = fds[1];
}

// Validated argv strings: [cmd, args...].
std::vector<std::string> argv_of(WoText* cmd, WoList* args, const char* what, const WoSite* site) {
  wo::need(cmd, site);
  wo::need(args, site);
  if (args->len > kMaxArgs) wo::raise(6, site, (std::string(what) + ": more than 62 arguments").c_str());
  std::vector<std::string> v;
  v.reserve(static_cast<size_t>(args->len) + 1);
  auto add = [&](const WoText* t) {
    if (!t) wo::raise(6, site, "not a text value");
    if (t->len >= kMaxArgLen)
      wo::raise(6, site, (std::string(what) + ": argument of 512 bytes or more").c_str());
    if (std::memchr(t->bytes, '\0', static_cast<size_t>(t->len)))
      wo::raise(6, site, (std::string(what) + ": argument holds a NUL byte").c_str());
    v.emplace_back(t->bytes, static_cast<size_t>(t->len));
  };
  add(cmd);
  for (int64_t i = 0; i < args->len; ++i) add(reinterpret_cast<const WoText*>(args->data[i]));
  return v;
}

void destroy_proc(void* self) {
  auto* p = static_cast<WoProc*>(self);
  wo_release(p->out);
  wo_release(p->err);
}

WoProc* make_proc(int64_t code, const std::string& out, const std::string& err) {
  auto* p = static_cast<WoProc*>(wo_alloc(sizeof(WoProc), destroy_proc));
  wo::OwnedGuard guard(p);
  p->code = code;
  p->out = wo::text_from(out.data(), out.size());
  p->err = wo::text_from(err.data(), err.size());
  guard.disown();
  return p;
}

// Errors of posix_spawnp that mean "the command could not be executed" (the
// exit status 127 of a shell), as opposed to the OS failing to make a process.
bool exec_failure(int e) { return e != EAGAIN && e != ENOMEM; }

WoProc* run(WoText* cmd, WoList* args, int64_t deadline_ms, int64_t out_cap, int64_t err_cap, bool dl,
            const WoSite* site) {
  const char* what = dl ? "proc.run_dl" : "proc.run";
  wo_sched_durable_barrier();  // a process is an effect: after the actor's commits (decision 0045)
  if (deadline_ms <= 0) deadline_ms = kDefaultDeadlineMs;
  deadline_ms = std::min<int64_t>(deadline_ms, int64_t{1} << 40);  // ~35 years: keeps µs arithmetic in range
  if (out_cap <= 0) out_cap = kDefaultOutCap;
  if (err_cap <= 0) err_cap = kDefaultErrCap;
  std::vector<std::string> argv_s = argv_of(cmd, args, what, site);
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  Pipe po, pe;
  make_pipe(po, site);
  make_pipe(pe, site);

  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, po.w, 1);
  posix_spawn_file_actions_adddup2(&fa, pe.w, 2);
  sigset_t def, none;
  sigemptyset(&def);
  sigaddset(&def, SIGPIPE);
  sigaddset(&def, SIGINT);
  sigaddset(&def, SIGTERM);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &def);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    if (exec_failure(rc)) return make_proc(127, "", "");
    raise_errno(rc, site);
  }

  Child c;
  c.pid = pid;
  close_fd(po.w);
  close_fd(pe.w);
  std::swap(c.out, po.r);
  std::swap(c.err, pe.r);
  c.pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));  // -1 on old kernels: polled instead

  std::string out, err;
  const int64_t until = wo_time_ticks() + deadline_ms * 1000;
  char buf[65536];
  while (c.out >= 0 || c.err >= 0 || !c.reaped) {
    if (!c.reaped && c.out < 0 && c.err < 0 && c.pidfd < 0) {
      if (c.reap(false)) break;
    }
    int64_t left_us = until - wo_time_ticks();
    if (left_us <= 0) {
      c.kill_and_reap();
      if (dl) return nullptr;
      wo::raise(9, site, (std::string(what) + ": deadline of " + std::to_string(deadline_ms) + " ms exceeded").c_str());
    }
    pollfd fds[3];
    int n = 0;
    int i_out = -1, i_err = -1, i_pid = -1;
    if (c.out >= 0) fds[i_out = n++] = pollfd{c.out, POLLIN, 0};
    if (c.err >= 0) fds[i_err = n++] = pollfd{c.err, POLLIN, 0};
    if (!c.reaped && c.pidfd >= 0) fds[i_pid = n++] = pollfd{c.pidfd, POLLIN, 0};
    int timeout_ms = static_cast<int>(std::min<int64_t>((left_us + 999) / 1000, 1000));
    if (!c.reaped && c.pidfd < 0) timeout_ms = std::min(timeout_ms, 10);  // no pidfd: poll the exit
    int pr = ::poll(fds, static_cast<nfds_t>(n), timeout_ms);
    if (pr < 0) {
      if (errno != EINTR) raise_errno(errno, site);
      if (wo::stop_armed() && wo::stop_requested() && (dl || wo::sched::stop_ends_current())) {
        c.kill_and_reap();
        if (dl) return nullptr;
        wo::stop_exit();
      }
      continue;
    }
    auto drain = [&](int& fd, int idx, std::string& into, int64_t cap, const char* stream) {
      if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
      ssize_t got = ::read(fd, buf, sizeof buf);
      wo::observed_outside();
      if (got < 0) {
        if (errno == EINTR || errno == EAGAIN) return;
        raise_errno(errno, site);
      }
      if (got == 0) {
        close_fd(fd);
        return;
      }
      into.append(buf, static_cast<size_t>(got));
      if (static_cast<int64_t>(into.size()) > cap) {
        c.kill_and_reap();
        wo::raise(9, site, (std::string(what) + ": " + stream + " exceeds " + std::to_string(cap) + " bytes").c_str());
      }
    };
    drain(c.out, i_out, out, out_cap, "stdout");
    drain(c.err, i_err, err, err_cap, "stderr");
    if (i_pid >= 0 && (fds[i_pid].revents & POLLIN)) c.reap(false);
  }
  int64_t code = WIFEXITED(c.status) ? WEXITSTATUS(c.status) : (WIFSIGNALED(c.status) ? -1 : 0);
  return make_proc(code, out, err);
}

}  // namespace

extern "C" {

WoProc* wo_proc_run(WoText* cmd, WoList* args, const WoSite* site) {
  return run(cmd, args, kDefaultDeadlineMs, kDefaultOutCap, kDefaultErrCap, false, site);
}

WoProc* wo_proc_run_dl(WoText* cmd, WoList* args, int64_t deadline_ms, int64_t out_cap, int64_t err_cap,
                       const WoSite* site) {
  return run(cmd, args, deadline_ms, out_cap, err_cap, true, site);
}

}  // extern "C"
