// The `time` and `env` namespaces (builtins.md §8): monotonic ticks, sleep,
// the local-time breakdown, ISO-8601 UTC text, environment variables and the
// stop latch of env.stopping(). time.now() is wo_now (clock.cpp).
#include <time.h>

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../core/heap.h"
#include "stop.h"
#include "../core/trap.h"
#include "../sched/sched.h"
#include "wo_db.h"

namespace {

// Lock-free atomics: written by the signal handler on whichever thread the
// signal lands, read by every shard.
std::atomic<int> g_stop_armed{0};
std::atomic<int> g_stop_requested{0};
std::atomic<int> g_stop_wake_fd{-1};

// Async-signal-safe: an atomic store and write(2) to the eventfd that wakes
// shard 0, so a parked `main` sees the stop at once.
void on_stop_signal(int) {
  int saved = errno;
  g_stop_requested.store(1);
  int fd = g_stop_wake_fd.load();
  if (fd >= 0) {
    uint64_t one = 1;
    if (::write(fd, &one, sizeof one) < 0) { /* already awake */ }
  }
  errno = saved;
}

// Seconds since the epoch for `ms`, rounded toward minus infinity.
int64_t floor_seconds(int64_t ms) {
  int64_t s = ms / 1000;
  if (ms % 1000 < 0) --s;
  return s;
}

}  // namespace

namespace wo {

bool stop_armed() { return g_stop_armed.load() != 0; }
bool stop_requested() { return g_stop_requested.load() != 0; }

// Once actors run, other threads are alive: the stop unwinds the calling
// fiber instead (wo_start turns that into status 0 after an orderly end).
[[noreturn]] void stop_exit() {
  if (sched::started()) throw sched::Unwind{};
  std::fflush(stdout);
  std::fflush(stderr);
  std::exit(0);
}

namespace sched {
void set_stop_wake_fd(int fd) { g_stop_wake_fd.store(fd); }
}  // namespace sched

}  // namespace wo

extern "C" {

int64_t wo_time_ticks(void) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

// At least `ms` ms (measured on CLOCK_MONOTONIC). Once actors run, the
// calling fiber parks and its shard runs other fibers meanwhile; before that
// the thread sleeps. A signal that interrupts the wait resumes it, unless
// the stop latch is armed and a stop arrived. Never inside a transaction
// (decision 0018): a parked fiber would hold the store's gate.
void wo_time_sleep(int64_t ms, const WoSite* site) {
  if (ms <= 0) return;
  if (wo_tx_active()) wo::raise(5, site, "cannot park inside a transaction");
  if (wo::sched::started()) {
    wo::sched::park(wo::sched::deadline_after_ms(ms));
    return;
  }
  timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  int64_t add_s = ms / 1000;
  int64_t add_ns = (ms % 1000) * 1000000;
  until.tv_sec += static_cast<time_t>(add_s);
  until.tv_nsec += static_cast<long>(add_ns);
  if (until.tv_nsec >= 1000000000) {
    until.tv_nsec -= 1000000000;
    ++until.tv_sec;
  }
  for (;;) {
    if (wo::stop_armed() && wo::stop_requested()) wo::stop_exit();
    int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
    if (rc == 0) return;
    if (rc != EINTR) return;  // EINVAL cannot happen for a normalised time
  }
}

WoTimeParts* wo_time_local(int64_t ms, const WoSite* site) {
  time_t s = static_cast<time_t>(floor_seconds(ms));
  tm parts{};
  if (!localtime_r(&s, &parts)) [[unlikely]]
    wo::raise(6, site, "time.local: time out of range");
  auto* r = static_cast<WoTimeParts*>(wo_alloc(sizeof(WoTimeParts), nullptr));
  r->year = static_cast<int64_t>(parts.tm_year) + 1900;
  r->month = parts.tm_mon + 1;
  r->day = parts.tm_mday;
  r->hour = parts.tm_hour;
  r->minute = parts.tm_min;
  r->second = parts.tm_sec;
  r->dow = parts.tm_wday;
  return r;
}

// Proleptic Gregorian calendar arithmetic (days-from-civil inverse), so every
// int64 ms has an answer: years past 9999 get more digits, years before 0
// a leading '-'.
WoText* wo_time_iso(int64_t ms) {
  int64_t s = floor_seconds(ms);
  int64_t days = s / 86400;
  int64_t secs = s % 86400;
  if (secs < 0) {
    secs += 86400;
    --days;
  }
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%s%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", y < 0 ? "-" : "",
                        static_cast<long long>(y < 0 ? -y : y), static_cast<long long>(m),
                        static_cast<long long>(d), static_cast<long long>(secs / 3600),
                        static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  return wo::text_from(buf, static_cast<size_t>(n));
}

WoText* wo_env_get(WoText* name) {
  wo::need(name);
  if (name->len == 0 || std::memchr(name->bytes, '\0', static_cast<size_t>(name->len))) return nullptr;
  const char* v = std::getenv(name->bytes);
  if (!v) return nullptr;
  return wo::text_from(v, std::strlen(v));
}

// The first call installs the SIGTERM/SIGINT handlers (without SA_RESTART,
// so a blocking call sees EINTR) and arms the latch.
bool wo_env_stopping(void) {
  if (!g_stop_armed.load()) {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    g_stop_armed.store(1);
  }
  return g_stop_requested.load() != 0;
}

}  // extern "C"
