// TLS on a connection's fd (docs/decisions/0086), with OpenSSL 3's libssl
// loaded with dlopen on first use (as libcrypto, decision 0063). A
// connection that completed a handshake has a session registered under its
// fd; read_some and send_all (fd_io.h) find it there, so net.read /
// net.write, their `_dl` forms and the HTTP layer work on TLS and plain
// connections alike, and net.close ends the session before the fd.
#pragma once
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "io_outcome.h"
#include "wo_runtime.h"

namespace wo::net::tls {

struct Session;

// A server's certificate chain and key: one per pair of PEM files, kept for
// the process, and loaded again at the next handshake when either file has
// changed on disk (a renewed certificate needs no restart; files that cannot
// be used keep the previous keys in service, said once on stderr).
struct ServerKeys;
// The keys of two PEM files; traps IO when they cannot be used (that is the
// server's configuration, not a client's fault), so a server asks for them
// before it accepts anyone.
ServerKeys* server_keys(const std::string& cert, const std::string& key, const WoSite* site);

// The session registered under `fd`, or NULL (a plain connection). Lock-free.
Session* find(int fd);

// How a client checks the server it reached.
enum class Verify {
  System,    // the system's CA store (or WO_CA_BUNDLE), and the host name
  CaFile,    // a PEM file of trusted CAs instead, and the host name
  Nothing,   // no check at all: net.connect_tls_insecure_dl
};

enum class Handshake { Done, Timeout, Failed };

// A client handshake on connected `fd` for `host` (its SNI and the name
// the certificate must carry, or an IP address it must carry); on Done the
// session is registered under fd. Failed sets *why (the verification
// error, or OpenSSL's reason). Traps IO when libssl cannot be loaded or
// `ca_file` cannot be read.
Handshake client(int fd, const std::string& host, Verify verify, const std::string& ca_file, int64_t deadline_us,
                 bool dl, std::string* why, const WoSite* site);

// A server handshake on accepted `fd` with `keys`; TLS 1.2 and 1.3 only,
// ALPN `http/1.1` when the client offers it. A client that speaks plain
// HTTP gets answer_plain_http before the Failed.
Handshake server(int fd, ServerKeys* keys, int64_t deadline_us, bool dl, std::string* why, const WoSite* site);

// read_some / send_all over a session (fd_io.h's contracts). A TLS failure
// is Io::Failed with *err = kTlsError and the reason in last_error().
Io read(Session* s, int fd, char* buf, size_t max, int64_t deadline_us, bool dl, size_t* got, int* err,
        const WoSite* site);
Io send(Session* s, int fd, const char* p, size_t n, int64_t deadline_us, bool dl, int* err, const WoSite* site);
constexpr int kTlsError = -1;
// Several pieces to send (a response's head and body) as one record: sent
// as two, the second small segment waited behind Nagle for the peer's
// delayed ACK (40 ms a keep-alive request). The pieces joined in a
// per-thread buffer when there are several totalling at most 64 KiB, else
// NULL (send them one by one).
const std::string* joined(const iovec* iov, int n);
const std::string& last_error();  // this thread's last TLS failure

// Sends close_notify (once, without waiting), frees the session and
// unregisters it; the caller closes the fd after.
void end(int fd, Session* s);

// For an event loop of its own (the HTTP connection set, http/conns.cpp),
// which never parks inside these: a server session registered under `fd`
// before its handshake, and non-blocking steps.
Session* server_session(int fd, ServerKeys* keys);
enum class Step {
  Done,
  WantRead,
  WantWrite,
  Failed,     // the client failed the handshake
  PlainHttp,  // ... by speaking plain HTTP to the TLS port
};
Step handshake_step(Session* s);
// > 0 bytes; 0 the end of the stream; kWouldBlock; kBroken (a TLS failure).
constexpr long kWouldBlock = -1, kBroken = -2;
long read_nb(Session* s, char* buf, size_t max);
long write_nb(Session* s, const char* p, size_t n);
// One close_notify, without waiting (before the connection's TCP FIN).
void close_notify(Session* s);
// A plain-HTTP client at a TLS port gets a plain 400 saying so, then our FIN
// (as nginx answers): better than a reset it cannot explain. Best effort.
void answer_plain_http(int fd);

// The handshake deadline of the plain (no `_dl`) forms: WO_TLS_HANDSHAKE_MS,
// default 10,000 (runtime.md §5).
int64_t handshake_ms();

}  // namespace wo::net::tls
