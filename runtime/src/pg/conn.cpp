// The pool, prepared statements and the bounded wait (conn.h).
#include "conn.h"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include "../sched/external_wait.h"
#include "../sched/io.h"

namespace wo::pg {
namespace {

std::mutex g_stmt_mu;
std::unordered_map<std::string, int> g_stmts;

std::string first_line(const char* s) {
  std::string m = s ? s : "";
  size_t nl = m.find('\n');
  if (nl != std::string::npos) m.resize(nl);
  return m;
}

void quiet_notices(void*, const char*) {}  // "relation already exists, skipping" and the like

int64_t now_ms() { return sched::now_us() / 1000; }

// Until the socket reports `events` or the deadline passes: the fiber parks
// when it may (outside a transaction, on a scheduler shard), else poll().
bool wait_sock(Conn& c, short events, int64_t deadline_ms, const WoSite* site) {
  int fd = pq().socket(c.pg);
  if (fd < 0) return false;
  if (sched::can_park_here()) {
    uint32_t ev = (events & POLLOUT) ? EPOLLOUT : EPOLLIN;
    return sched::wait_fd(fd, ev, deadline_ms * 1000, false, site) == sched::Wait::Ready || now_ms() < deadline_ms;
  }
  int64_t left = deadline_ms - now_ms();
  if (left <= 0) return false;
  pollfd p{fd, events, 0};
  int n = ::poll(&p, 1, static_cast<int>(left));
  return n != 0;  // an error (EINTR) retries through PQconsumeInput
}

bool conn_failed(Conn& c, Failure* f, const std::string& why) {
  c.broken = true;
  f->connection = true;
  f->sqlstate.clear();
  f->message = why.empty() ? first_line(pq().errorMessage(c.pg)) : why;
  if (f->message.empty()) f->message = "the connection to the server was lost";
  return false;
}

// Sends what is queued and waits until a whole result can be read.
bool await(Conn& c, int64_t deadline_ms, const WoSite* site, Failure* f) {
  for (;;) {
    int fl = pq().flush(c.pg);
    if (fl < 0) return conn_failed(c, f, "");
    if (fl == 0) {
      if (!pq().consumeInput(c.pg)) return conn_failed(c, f, "");
      if (!pq().isBusy(c.pg)) return true;
    }
    if (now_ms() >= deadline_ms ||
        !wait_sock(c, fl == 1 ? static_cast<short>(POLLIN | POLLOUT) : static_cast<short>(POLLIN), deadline_ms, site)) {
      if (now_ms() >= deadline_ms)
        return conn_failed(c, f, "the server did not answer within " + std::to_string(kAnswerMs / 1000) + " s");
    }
  }
}

// A failed result into *f (NULL): its SQLSTATE, constraint and message.
PGresult* failed(Conn& c, PGresult* r, Failure* f) {
  const char* code = pq().resultErrorField(r, PG_DIAG_SQLSTATE);
  const char* cons = pq().resultErrorField(r, PG_DIAG_CONSTRAINT_NAME);
  const char* prim = pq().resultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
  f->sqlstate = code ? code : "";
  f->constraint = cons ? cons : "";
  f->message = prim ? prim : first_line(pq().resultErrorMessage(r));
  f->connection = false;
  pq().clear(r);
  if (pq().status(c.pg) != CONNECTION_OK) {
    c.broken = true;
    f->connection = true;
  }
  return nullptr;
}

bool ok(PGresult* r) {
  ExecStatusType st = pq().resultStatus(r);
  return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

// Every result of the query sent (several statements give several; after
// a failed one the server skips the rest). The first result is kept and
// returned; a failure of any statement fails the call. With
// `first_decides` the first statement alone decides: a later statement's
// failure, or a connection lost after the first answer, marks the
// connection broken (closing it ends the session) but returns the first.
PGresult* collect(Conn& c, int64_t deadline_ms, const WoSite* site, Failure* f, bool first_decides = false) {
  PGresult* keep = nullptr;
  PGresult* bad = nullptr;  // the first failed result after `keep`
  for (;;) {
    if (!await(c, deadline_ms, site, f)) {
      if (keep && first_decides && ok(keep)) {
        if (bad) pq().clear(bad);
        return keep;  // await marked the connection broken
      }
      if (keep) pq().clear(keep);
      if (bad) pq().clear(bad);
      return nullptr;
    }
    PGresult* r = pq().getResult(c.pg);
    if (!r) break;
    if (!keep) keep = r;
    else if (!bad && !ok(r)) bad = r;
    else pq().clear(r);
  }
  if (!keep) {
    conn_failed(c, f, "");
    return nullptr;
  }
  if (!ok(keep)) {
    if (bad) pq().clear(bad);
    return failed(c, keep, f);
  }
  if (!bad) return keep;
  if (first_decides) {
    pq().clear(bad);
    c.broken = true;
    return keep;
  }
  pq().clear(keep);
  return failed(c, bad, f);
}

}  // namespace

const Libpq& pq() { return *libpq(nullptr); }

int statement_number(const std::string& sql) {
  std::lock_guard lk(g_stmt_mu);
  auto [it, fresh] = g_stmts.emplace(sql, static_cast<int>(g_stmts.size()));
  (void)fresh;
  return it->second;
}

PGresult* run(Conn& c, const std::string& sql, const std::vector<Param>& ps, const WoSite* site, Failure* f) {
  if (c.broken) {
    conn_failed(c, f, "the connection to the server was lost");
    return nullptr;
  }
  int n = statement_number(sql);
  std::string name = "wo" + std::to_string(n);
  int64_t deadline = now_ms() + kAnswerMs;
  if (static_cast<size_t>(n) >= c.prepared.size()) c.prepared.resize(static_cast<size_t>(n) + 16, false);
  if (!c.prepared[static_cast<size_t>(n)]) {
    if (!pq().sendPrepare(c.pg, name.c_str(), sql.c_str(), 0, nullptr)) {
      conn_failed(c, f, "");
      return nullptr;
    }
    PGresult* r = collect(c, deadline, site, f);
    if (!r) return nullptr;
    pq().clear(r);
    c.prepared[static_cast<size_t>(n)] = true;
  }
  std::vector<const char*> vals(ps.size());
  std::vector<int> lens(ps.size()), fmts(ps.size());
  for (size_t i = 0; i < ps.size(); ++i) {
    vals[i] = ps[i].data;
    lens[i] = ps[i].len;
    fmts[i] = ps[i].text ? 0 : 1;
  }
  if (!pq().sendQueryPrepared(c.pg, name.c_str(), static_cast<int>(ps.size()), vals.data(), lens.data(), fmts.data(),
                              1)) {
    conn_failed(c, f, "");
    return nullptr;
  }
  return collect(c, deadline, site, f);
}

PGresult* run_simple(Conn& c, const std::string& sql, const WoSite* site, Failure* f) {
  if (c.broken) {
    conn_failed(c, f, "the connection to the server was lost");
    return nullptr;
  }
  if (!pq().sendQuery(c.pg, sql.c_str())) {
    conn_failed(c, f, "");
    return nullptr;
  }
  return collect(c, now_ms() + kAnswerMs, site, f);
}

PGresult* run_simple_then(Conn& c, const std::string& first, const std::string& then, const WoSite* site, Failure* f) {
  if (c.broken) {
    conn_failed(c, f, "the connection to the server was lost");
    return nullptr;
  }
  if (!pq().sendQuery(c.pg, (first + "; " + then).c_str())) {
    conn_failed(c, f, "");
    return nullptr;
  }
  return collect(c, now_ms() + kAnswerMs, site, f, true);
}

Pool::~Pool() {
  for (Conn* c : idle_) {
    pq().finish(c->pg);
    delete c;
  }
}

// Connecting does not block a shard either: libpq's polling handshake, each
// step waited for like an answer, the whole bounded by kConnectMs.
Conn* Pool::connect(std::string* err) {
  const char* keys[] = {"fallback_application_name", "dbname", nullptr};
  const char* vals[] = {"woc", uri_.c_str(), nullptr};
  PGconn* pg = pq().connectStartParams(keys, vals, 1);
  auto refuse = [&](const std::string& why) -> Conn* {
    *err = why;
    if (pg) pq().finish(pg);
    return nullptr;
  };
  if (!pg) return refuse("out of memory");
  if (pq().status(pg) == CONNECTION_BAD) return refuse(first_line(pq().errorMessage(pg)));
  Conn probe;
  probe.pg = pg;
  int64_t deadline = now_ms() + kConnectMs;
  for (PostgresPollingStatusType st = PGRES_POLLING_WRITING; st != PGRES_POLLING_OK;) {
    if (st == PGRES_POLLING_FAILED) return refuse(first_line(pq().errorMessage(pg)));
    wait_sock(probe, st == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline, nullptr);
    if (now_ms() >= deadline)
      return refuse("no connection within " + std::to_string(kConnectMs / 1000) + " s");
    st = pq().connectPoll(pg);
  }
  pq().setNoticeProcessor(pg, quiet_notices, nullptr);
  pq().setnonblocking(pg, 1);
  auto* c = new Conn;
  c->pg = pg;
  return c;
}

// An idle connection has nothing to read unless the server is closing it (a
// restart sends FATAL, then EOF): then it is dropped, and the statement goes
// to a new connection instead of failing. (A stray ParameterStatus costs a
// reconnection, nothing worse.)
static bool healthy(Conn* c) {
  pollfd p{pq().socket(c->pg), POLLIN, 0};
  return p.fd >= 0 && ::poll(&p, 1, 0) == 0 && pq().status(c->pg) == CONNECTION_OK;
}

Conn* Pool::take(std::string* err) {
  int64_t deadline = now_ms() + kAnswerMs;
  Conn* c = nullptr;
  bool place = false;  // a place below the bound is this caller's: connect
  while (!c && !place) {
    std::unique_lock lk(mu_);
    if (!idle_.empty()) {
      c = idle_.back();
      idle_.pop_back();
    } else if (open_ < kMaxConnections) {
      open_++;  // counted before connecting
      place = true;
    } else {
      lk.unlock();
      if (!wait_in_line(deadline, &c, &place, err)) return nullptr;
    }
  }
  if (c && healthy(c)) return c;
  if (c) {  // dead while idle: connect in its place
    pq().finish(c->pg);
    delete c;
  }
  c = connect(err);
  if (!c) closed_one();
  return c;
}

// Waits for a connection handed over (*c) or a closed one's place (*place);
// returns with neither when one came free before the caller got in line
// (take looks again), false with `err` when a thread's wait ran out. A
// fiber parks: its shard runs the fibers that hold the connections, and
// each gives its own back after one statement (kAnswerMs at most) or at the
// end of its transaction block.
bool Pool::wait_in_line(int64_t deadline_ms, Conn** c, bool* place, std::string* err) {
  Waiter me;
  bool park = sched::can_park_here();
  std::unique_lock lk(mu_);
  if (!idle_.empty() || open_ < kMaxConnections) return true;  // freed meanwhile
  if (park) me.w = sched::external_wait_new();
  line_.push_back(&me);
  if (park) {
    lk.unlock();
    try {
      sched::external_wait_park(me.w);
    } catch (...) {  // the program's end: leave the line, pass on what came
      lk.lock();
      auto it = std::find(line_.begin(), line_.end(), &me);
      if (it != line_.end()) line_.erase(it);
      lk.unlock();
      if (me.conn) give(me.conn);
      if (me.slot) closed_one();
      throw;
    }
    lk.lock();
  } else if (!cv_.wait_for(lk, std::chrono::milliseconds(std::max<int64_t>(0, deadline_ms - now_ms())),
                           [&] { return me.conn || me.slot; })) {
    line_.erase(std::find(line_.begin(), line_.end(), &me));
    *err = "no free connection to the database within " + std::to_string(kAnswerMs / 1000) + " s (" +
           std::to_string(kMaxConnections) + " in use)";
    return false;
  }
  *c = me.conn;
  *place = me.slot;
  return true;
}

void Pool::closed_one() {
  sched::CallWait* fire = nullptr;
  {
    std::lock_guard lk(mu_);
    if (line_.empty()) {
      open_--;
      return;
    }
    Waiter* x = line_.front();  // the place passes on: open_ stays
    line_.pop_front();
    x->slot = true;
    fire = x->w;
  }
  if (fire)
    sched::external_wait_fire(fire);
  else
    cv_.notify_all();
}

void Pool::give(Conn* c) {
  if (!c) return;
  if (c->broken || pq().status(c->pg) != CONNECTION_OK || pq().transactionStatus(c->pg) != PQTRANS_IDLE) {
    pq().finish(c->pg);
    delete c;
    closed_one();
    return;
  }
  sched::CallWait* fire = nullptr;
  {
    std::lock_guard lk(mu_);
    if (line_.empty()) {
      idle_.push_back(c);
      return;
    }
    Waiter* x = line_.front();
    line_.pop_front();
    x->conn = c;
    fire = x->w;
  }
  if (fire)
    sched::external_wait_fire(fire);
  else
    cv_.notify_all();
}

}  // namespace wo::pg
