// Connections to the database WO_DATA names: a small pool of libpq
// connections shared by every thread, prepared statements per connection,
// and the wait for an answer — the calling fiber parked on the socket
// (sched::wait_fd) when it may park, the thread blocked in poll() otherwise;
// every wait is bounded (kAnswerMs, kConnectMs).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "libpq.h"
#include "wo_runtime.h"

namespace wo::sched {
struct CallWait;
}

namespace wo::pg {

// How long one statement may wait for the server's answer before it traps
// DB and its connection is dropped (a row lock held by another process's
// transaction counts too).
inline constexpr int kAnswerMs = 30000;
// How long connecting may take (libpq's connect_timeout is not used by its
// polling handshake).
inline constexpr int kConnectMs = 10000;

// One parameter: NULL data is SQL NULL; binary unless `text`.
struct Param {
  const char* data = nullptr;
  int len = 0;
  bool text = false;
};

// What a failed statement reports (the server's words, never the URI).
struct Failure {
  std::string sqlstate;     // "" when the connection failed
  std::string constraint;   // PG_DIAG_CONSTRAINT_NAME, if any
  std::string message;      // one line
  bool connection = false;  // the connection is gone (lost, timed out)
};

class Conn {
 public:
  PGconn* pg = nullptr;
  std::vector<bool> prepared;   // by statement number (statement_number)
  bool broken = false;
};

// The number of a statement text, the same in every connection ("wo<n>").
int statement_number(const std::string& sql);

// Runs `sql` as a prepared statement (prepared on this connection at its
// first use) with binary results. NULL and *fail set on any failure; a
// connection failure also marks the connection broken.
PGresult* run(Conn& c, const std::string& sql, const std::vector<Param>& ps, const WoSite* site, Failure* fail);
// A plain query without parameters (BEGIN, COMMIT, DDL), text results;
// several statements fail if any one fails, and return the first's result.
PGresult* run_simple(Conn& c, const std::string& sql, const WoSite* site, Failure* fail);
// `first`, then `then` in the same round trip; `first` alone decides the
// result. A failure of `then` (or a connection lost after `first`'s answer)
// marks the connection broken, so the pool closes it and its session ends.
PGresult* run_simple_then(Conn& c, const std::string& first, const std::string& then, const WoSite* site,
                          Failure* fail);

// The most connections one process holds open. Many woc processes share
// one server, whose max_connections (100 by default) is for all of them; a
// shard runs one statement at a time per parked fiber, so beyond a few per
// shard more connections only queue inside the server.
inline constexpr size_t kMaxConnections = 16;

class Pool {
 public:
  explicit Pool(std::string uri) : uri_(std::move(uri)) {}
  ~Pool();
  // An idle connection (one found dead while idle is dropped) or a new one;
  // with kMaxConnections open, waits in line for one to be handed back (a
  // fiber parks, a thread blocks at most kAnswerMs). NULL with `err` when
  // the server cannot be reached (libpq's first line) or none came in time.
  Conn* take(std::string* err);
  // Back to the pool: handed to the first waiter if there is one, else
  // idle. A broken one is closed (its place goes to the first waiter).
  void give(Conn* c);

 private:
  // One caller waiting in line: a fiber parked on `w`, or a thread on cv_.
  struct Waiter {
    sched::CallWait* w = nullptr;
    Conn* conn = nullptr;   // handed over by give()
    bool slot = false;      // a connection was closed: connect in its place
  };
  Conn* connect(std::string* err);
  bool wait_in_line(int64_t deadline_ms, Conn** c, bool* place, std::string* err);
  void closed_one();  // a connection went: its place to the first waiter, or free
  std::string uri_;
  std::mutex mu_;
  std::condition_variable cv_;        // threads in line
  std::deque<Waiter*> line_;          // first come, first served
  std::vector<Conn*> idle_;
  size_t open_ = 0;                   // connections open or being opened (idle or taken)
};

const Libpq& pq();   // the loaded table (wo::pg::open loads it first)

}  // namespace wo::pg
