// TLS sessions on connection fds (tls.h, docs/decisions/0086).
#include "tls.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "../core/dynlib.h"
#include "../core/observe.h"
#include "../core/trap.h"
#include "../sched/io.h"
#include "common/traps.h"
#include "resolve.h"
#include "wo_actor.h"

namespace wo::net::tls {
namespace {

constexpr const char* kSoname = "libssl.so.3";

// The libssl (and, through it, libcrypto) functions used; the types are the
// headers' own, so a changed signature fails to compile. Macros of the API
// (SSL_CTX_set_min_proto_version, SSL_set_tlsext_host_name, ...) are spelt
// out with the ctrl functions below.
struct Lib {
  decltype(&::TLS_client_method) client_method;
  decltype(&::TLS_server_method) server_method;
  decltype(&::SSL_CTX_new) ctx_new;
  decltype(&::SSL_CTX_free) ctx_free;
  decltype(&::SSL_CTX_ctrl) ctx_ctrl;
  decltype(&::SSL_CTX_set_options) ctx_set_options;
  decltype(&::SSL_CTX_set_verify) ctx_set_verify;
  decltype(&::SSL_CTX_set_default_verify_paths) ctx_default_verify_paths;
  decltype(&::SSL_CTX_load_verify_locations) ctx_load_verify_locations;
  decltype(&::SSL_CTX_use_certificate_chain_file) ctx_use_chain_file;
  decltype(&::SSL_CTX_use_PrivateKey_file) ctx_use_key_file;
  decltype(&::SSL_CTX_check_private_key) ctx_check_key;
  decltype(&::SSL_CTX_set_cipher_list) ctx_set_cipher_list;
  decltype(&::SSL_CTX_set_alpn_select_cb) ctx_set_alpn_select_cb;
  decltype(&::SSL_select_next_proto) select_next_proto;
  decltype(&::SSL_new) ssl_new;
  decltype(&::SSL_free) ssl_free;
  decltype(&::SSL_set_fd) set_fd;
  decltype(&::SSL_ctrl) ctrl;
  decltype(&::SSL_set1_host) set1_host;
  decltype(&::SSL_get0_param) get0_param;
  decltype(&::X509_VERIFY_PARAM_set1_ip_asc) param_set1_ip_asc;
  decltype(&::SSL_connect) connect;
  decltype(&::SSL_accept) accept;
  decltype(&::SSL_read) read;
  decltype(&::SSL_write) write;
  decltype(&::SSL_get_error) get_error;
  decltype(&::SSL_shutdown) shutdown;
  decltype(&::SSL_get_verify_result) get_verify_result;
  decltype(&::X509_verify_cert_error_string) verify_error_string;
  decltype(&::ERR_get_error) err_get;
  decltype(&::ERR_error_string_n) err_string;
  decltype(&::ERR_clear_error) err_clear;
};

using dynlib::sym;

std::string load(Lib& l) {
  std::string why;
  void* h = dynlib::open(kSoname, &why);
  if (!h) return why;
  bool ok = sym(h, "TLS_client_method", l.client_method) && sym(h, "TLS_server_method", l.server_method) &&
            sym(h, "SSL_CTX_new", l.ctx_new) && sym(h, "SSL_CTX_free", l.ctx_free) &&
            sym(h, "SSL_CTX_ctrl", l.ctx_ctrl) && sym(h, "SSL_CTX_set_options", l.ctx_set_options) &&
            sym(h, "SSL_CTX_set_verify", l.ctx_set_verify) &&
            sym(h, "SSL_CTX_set_default_verify_paths", l.ctx_default_verify_paths) &&
            sym(h, "SSL_CTX_load_verify_locations", l.ctx_load_verify_locations) &&
            sym(h, "SSL_CTX_use_certificate_chain_file", l.ctx_use_chain_file) &&
            sym(h, "SSL_CTX_use_PrivateKey_file", l.ctx_use_key_file) &&
            sym(h, "SSL_CTX_check_private_key", l.ctx_check_key) &&
            sym(h, "SSL_CTX_set_cipher_list", l.ctx_set_cipher_list) &&
            sym(h, "SSL_CTX_set_alpn_select_cb", l.ctx_set_alpn_select_cb) &&
            sym(h, "SSL_select_next_proto", l.select_next_proto) && sym(h, "SSL_new", l.ssl_new) &&
            sym(h, "SSL_free", l.ssl_free) && sym(h, "SSL_set_fd", l.set_fd) && sym(h, "SSL_ctrl", l.ctrl) &&
            sym(h, "SSL_set1_host", l.set1_host) && sym(h, "SSL_get0_param", l.get0_param) &&
            sym(h, "X509_VERIFY_PARAM_set1_ip_asc", l.param_set1_ip_asc) && sym(h, "SSL_connect", l.connect) &&
            sym(h, "SSL_accept", l.accept) && sym(h, "SSL_read", l.read) && sym(h, "SSL_write", l.write) &&
            sym(h, "SSL_get_error", l.get_error) && sym(h, "SSL_shutdown", l.shutdown) &&
            sym(h, "SSL_get_verify_result", l.get_verify_result) &&
            sym(h, "X509_verify_cert_error_string", l.verify_error_string) && sym(h, "ERR_get_error", l.err_get) &&
            sym(h, "ERR_error_string_n", l.err_string) && sym(h, "ERR_clear_error", l.err_clear);
  if (ok) return "";
  return dynlib::missing(h);
}

const Lib& lib() {
  static const Lib loaded = [] {
    Lib l{};
    if (std::string why = load(l); !why.empty()) {
      std::string msg = std::string("cannot load ") + kSoname + " (OpenSSL's libssl, Debian package libssl3), which TLS needs: " + why;
      wo::raise(static_cast<int64_t>(TrapCode::IO), nullptr, msg.c_str());
    }
    return l;
  }();
  return loaded;
}

thread_local std::string t_error;

constexpr const char* kPlainHttp = "plain HTTP sent to the TLS port";

// OpenSSL's queued reasons as one line (the queue is cleared).
std::string queued_errors(const Lib& l) {
  std::string out;
  while (unsigned long e = l.err_get()) {
    if (ERR_GET_LIB(e) == ERR_LIB_SSL && ERR_GET_REASON(e) == SSL_R_HTTP_REQUEST) {
      out = kPlainHttp;  // said so, whatever else is queued
      while (l.err_get()) {
      }
      return out;
    }
    char buf[256];
    l.err_string(e, buf, sizeof buf);
    // "error:0A000086:SSL routines::certificate verify failed": the reason is the last field
    const char* reason = std::strrchr(buf, ':');
    if (!out.empty()) out += "; ";
    out += reason && reason[1] ? reason + 1 : buf;
  }
  return out;
}

// TLS 1.2 suites with forward secrecy and AEAD only (TLS 1.3's are OpenSSL's defaults).
constexpr const char* kCiphers12 = "ECDHE+AESGCM:ECDHE+CHACHA20:!aNULL:!eNULL:!MD5:!DSS";

void common_options(const Lib& l, SSL_CTX* ctx) {
  l.ctx_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, nullptr);
  // A peer that closes without close_notify reads as the end of the stream
  // (as Go and curl treat it); HTTP bodies carry their own lengths.
  l.ctx_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
  l.ctx_ctrl(ctx, SSL_CTRL_MODE, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER, nullptr);
  l.ctx_set_cipher_list(ctx, kCiphers12);
}

std::mutex g_ctx_mu;
// For the process's life: a handful, one per configuration. Never destroyed
// (a pointer, not a static map): shard threads may still use a context while
// static destructors run at exit, and the contexts stay reachable for LSan.
std::map<std::string, SSL_CTX*>& g_ctx = *new std::map<std::string, SSL_CTX*>;

[[noreturn]] void config_trap(const std::string& msg, const WoSite* site) {
  wo::raise(static_cast<int64_t>(TrapCode::IO), site, msg.c_str());
}

SSL_CTX* client_ctx(const Lib& l, Verify v, const std::string& ca_file, const WoSite* site) {
  std::string key = "client:" + std::to_string(static_cast<int>(v)) + ":" + ca_file;
  std::lock_guard lk(g_ctx_mu);
  if (auto it = g_ctx.find(key); it != g_ctx.end()) return it->second;
  l.err_clear();
  SSL_CTX* ctx = l.ctx_new(l.client_method());
  if (!ctx) config_trap("TLS: cannot make a client context: " + queued_errors(l), site);
  common_options(l, ctx);
  if (v == Verify::Nothing) {
    l.ctx_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
  } else {
    l.ctx_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    const char* bundle = std::getenv("WO_CA_BUNDLE");
    std::string file = v == Verify::CaFile ? ca_file : (bundle && *bundle ? bundle : "");
    int ok = file.empty() ? l.ctx_default_verify_paths(ctx) : l.ctx_load_verify_locations(ctx, file.c_str(), nullptr);
    if (ok != 1) {
      std::string why = queued_errors(l);
      l.ctx_free(ctx);
      config_trap("TLS: cannot read the trusted certificates" + (file.empty() ? std::string() : " in " + file) +
                      ": " + why,
                  site);
    }
  }
  g_ctx[key] = ctx;
  return ctx;
}

int alpn_http11(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in, unsigned int inlen,
                void*) {
  static const unsigned char kOurs[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* chosen = nullptr;
  if (lib().select_next_proto(&chosen, outlen, kOurs, sizeof kOurs, in, inlen) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_NOACK;  // no http/1.1 offered: go on without ALPN
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

// A server context of the two PEM files, or NULL with *why saying what
// could not be used, from which file, and OpenSSL's reason.
SSL_CTX* load_server_ctx(const Lib& l, const std::string& cert, const std::string& key, std::string* why) {
  l.err_clear();
  SSL_CTX* ctx = l.ctx_new(l.server_method());
  if (!ctx) {
    *why = "TLS: cannot make a server context: " + queued_errors(l);
    return nullptr;
  }
  common_options(l, ctx);
  std::string bad;  // what could not be used, and from which file
  if (l.ctx_use_chain_file(ctx, cert.c_str()) != 1)
    bad = "the certificate chain in " + cert;
  else if (l.ctx_use_key_file(ctx, key.c_str(), SSL_FILETYPE_PEM) != 1)
    bad = "the private key in " + key;
  else if (l.ctx_check_key(ctx) != 1)
    bad = "the private key in " + key + " with the certificate in " + cert;
  if (!bad.empty()) {
    *why = "TLS: cannot use " + bad + ": " + queued_errors(l);
    l.ctx_free(ctx);
    return nullptr;
  }
  l.ctx_set_alpn_select_cb(ctx, alpn_http11, nullptr);
  return ctx;
}

// Which file a path names now, and which version of it: a renewal written
// in place changes the size or mtime, one renamed into place the inode.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = -1;
  int64_t mtime_ns = -1;  // -1 with size -1: the path could not be stat'ed
  bool operator==(const FileId&) const = default;
};

FileId file_id(const std::string& path) {
  FileId id;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return id;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  id.size = st.st_size;
  id.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return id;
}

}  // namespace

// One pair of PEM files, for the process's life (never freed: shard threads
// may still hand out sessions while static destructors run at exit). Each
// handshake first compares the files with the ones loaded: a certificate
// renewed on disk is served to the next connection, with no restart (a
// service runs for months; certificates are renewed every few). Sessions
// already open keep the context they started with (OpenSSL counts its
// users). New files that cannot be used leave the previous keys in service,
// said once on stderr; they are tried again when they change, and every
// kRetryRefusedUs besides (a load can fail for a passing reason: the fd
// limit of a busy server, memory).
struct ServerKeys {
  static constexpr int64_t kRetryRefusedUs = 10000000;
  const std::string cert, key;
  std::mutex mu;
  SSL_CTX* ctx = nullptr;            // in service
  FileId cert_id, key_id;            // of the files `ctx` was loaded from
  FileId refused_cert, refused_key;  // the last pair that could not be used
  int64_t refused_at_us = 0;         // when (sched::now_us)

  ServerKeys(std::string c, std::string k) : cert(std::move(c)), key(std::move(k)) {}

  // A session on `fd` with the keys of the files as they are now; NULL with
  // OpenSSL's reason in *why. The files are looked at outside the lock (two
  // stats, against a handshake's public-key work); only a reload, rare,
  // holds the other shards' handshakes.
  SSL* new_ssl(const Lib& l, std::string* why) {
    FileId c = file_id(cert), k = file_id(key);
    std::lock_guard lk(mu);
    if (c != cert_id || k != key_id) {
      bool known_bad = c == refused_cert && k == refused_key;
      if (!known_bad || sched::now_us() - refused_at_us >= kRetryRefusedUs) {
        std::string bad;
        if (SSL_CTX* fresh = load_server_ctx(l, cert, key, &bad)) {
          l.ctx_free(ctx);  // freed by OpenSSL once its last session ends
          ctx = fresh;
          cert_id = c;
          key_id = k;
        } else {
          refused_cert = c;
          refused_key = k;
          refused_at_us = sched::now_us();
          if (!known_bad) std::fprintf(stderr, "%s (the keys loaded before stay in service)\n", bad.c_str());
        }
      }
    }
    SSL* ssl = l.ssl_new(ctx);
    if (!ssl) *why = queued_errors(l);
    return ssl;
  }
};

namespace {

std::map<std::string, ServerKeys*>& g_server_keys = *new std::map<std::string, ServerKeys*>;

}  // namespace

struct Session {
  SSL* ssl;
  bool broken = false;  // a fatal error happened: SSL_shutdown must not be called (OpenSSL's rule)
};

namespace {

// fd -> session: 1,024 pages of 1,024 slots, a page made (and never freed)
// the first time one of its fds gets a session; readers take no lock.
constexpr size_t kPage = 1024, kPages = 1024;
std::atomic<std::atomic<Session*>*> g_pages[kPages];
std::mutex g_pages_mu;

std::atomic<Session*>* slot(int fd, bool make) {
  if (fd < 0 || static_cast<size_t>(fd) >= kPage * kPages) return nullptr;
  std::atomic<Session*>* page = g_pages[fd / kPage].load(std::memory_order_acquire);
  if (!page && make) {
    std::lock_guard lk(g_pages_mu);
    page = g_pages[fd / kPage].load(std::memory_order_acquire);
    if (!page) {
      page = new std::atomic<Session*>[kPage]();
      g_pages[fd / kPage].store(page, std::memory_order_release);
    }
  }
  return page ? &page[fd % kPage] : nullptr;
}

// Drives one SSL call that may want the socket readable or writable, parking
// the fiber in between; 1 = done, 0 = the deadline, -1 = failed (*why).
template <class Op>
int drive(const Lib& l, SSL* ssl, int fd, Op op, int64_t deadline, bool dl, int* result, std::string* why,
          const WoSite* site) {
  for (;;) {
    l.err_clear();
    int r = op();
    observed_outside();
    if (r > 0) {
      *result = r;
      return 1;
    }
    int e = l.get_error(ssl, r);
    uint32_t events;
    if (e == SSL_ERROR_WANT_READ)
      events = EPOLLIN | EPOLLRDHUP;
    else if (e == SSL_ERROR_WANT_WRITE)
      events = EPOLLOUT;
    else {
      *result = e;
      if (e == SSL_ERROR_ZERO_RETURN) return -1;
      std::string q = queued_errors(l);
      if (e == SSL_ERROR_SYSCALL && q.empty()) q = errno ? std::strerror(errno) : "the peer closed the connection";
      *why = q.empty() ? "TLS error " + std::to_string(e) : q;
      return -1;
    }
    if (sched::wait_fd(fd, events, deadline, dl, site) != sched::Wait::Ready) return 0;
  }
}

Session* register_session(int fd, SSL* ssl) {
  std::atomic<Session*>* s = slot(fd, true);
  if (!s) {  // an fd past a million: cannot be tracked (never happens below RLIMIT_NOFILE's usual caps)
    lib().ssl_free(ssl);
    wo::raise(static_cast<int64_t>(TrapCode::IO), nullptr, "TLS: descriptor number too large to track");
  }
  auto* session = new Session{ssl};
  s->store(session, std::memory_order_release);
  return session;
}

// SSL_connect or SSL_accept (`op`) on `ssl`, bound to fd, to its end: the
// session registered on Done; otherwise `ssl` is freed after `on_fail`
// (which may still read it) has run. Also freed when a stop signal unwinds.
template <class Op, class OnFail>
Handshake handshake(const Lib& l, SSL* ssl, int fd, Op op, int64_t deadline_us, bool dl, std::string* why,
                    const WoSite* site, OnFail on_fail) {
  int r = 0;
  int d;
  try {
    d = drive(l, ssl, fd, op, deadline_us, dl, &r, why, site);
  } catch (...) {
    l.ssl_free(ssl);
    throw;
  }
  if (d == 1) {
    register_session(fd, ssl);
    return Handshake::Done;
  }
  if (d == -1) on_fail();
  l.ssl_free(ssl);
  return d == 0 ? Handshake::Timeout : Handshake::Failed;
}

}  // namespace

Session* find(int fd) {
  std::atomic<Session*>* s = slot(fd, false);
  return s ? s->load(std::memory_order_acquire) : nullptr;
}

Handshake client(int fd, const std::string& host, Verify verify, const std::string& ca_file, int64_t deadline_us,
                 bool dl, std::string* why, const WoSite* site) {
  const Lib& l = lib();
  SSL* ssl = l.ssl_new(client_ctx(l, verify, ca_file, site));
  if (!ssl) {
    *why = queued_errors(l);
    return Handshake::Failed;
  }
  std::string name = bare_host(host);
  bool ip = is_ip_literal(name);
  l.set_fd(ssl, fd);
  if (!ip) l.ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, const_cast<char*>(name.c_str()));
  if (verify != Verify::Nothing) {
    int ok = ip ? l.param_set1_ip_asc(l.get0_param(ssl), name.c_str()) : l.set1_host(ssl, name.c_str());
    if (ok != 1) {
      l.ssl_free(ssl);
      *why = "cannot check the certificate against `" + name + "`";
      return Handshake::Failed;
    }
  }
  return handshake(l, ssl, fd, [&] { return l.connect(ssl); }, deadline_us, dl, why, site, [&] {
    if (verify == Verify::Nothing) return;
    long v = l.get_verify_result(ssl);
    if (v != X509_V_OK) *why = std::string("certificate verify failed: ") + l.verify_error_string(v);
  });
}

ServerKeys* server_keys(const std::string& cert, const std::string& key, const WoSite* site) {
  const Lib& l = lib();
  std::string name = cert + "\n" + key;
  std::lock_guard lk(g_ctx_mu);
  if (auto it = g_server_keys.find(name); it != g_server_keys.end()) return it->second;
  auto fresh = std::make_unique<ServerKeys>(cert, key);
  // The files' versions before the load: one changed meanwhile is loaded
  // again at the next handshake.
  fresh->cert_id = file_id(cert);
  fresh->key_id = file_id(key);
  std::string why;
  fresh->ctx = load_server_ctx(l, cert, key, &why);
  if (!fresh->ctx) config_trap(why, site);
  return g_server_keys[name] = fresh.release();
}

Handshake server(int fd, ServerKeys* keys, int64_t deadline_us, bool dl, std::string* why, const WoSite* site) {
  const Lib& l = lib();
  SSL* ssl = keys->new_ssl(l, why);
  if (!ssl) return Handshake::Failed;
  l.set_fd(ssl, fd);
  return handshake(l, ssl, fd, [&] { return l.accept(ssl); }, deadline_us, dl, why, site, [&] {
    if (*why == kPlainHttp) answer_plain_http(fd);
  });
}

void answer_plain_http(int fd) {
  static const char kBody[] = "plain HTTP sent to the HTTPS port\n";
  std::string r = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: " +
                  std::to_string(sizeof kBody - 1) + "\r\n\r\n" + kBody;
  if (::send(fd, r.data(), r.size(), MSG_NOSIGNAL | MSG_DONTWAIT) > 0) ::shutdown(fd, SHUT_WR);
}

Session* server_session(int fd, ServerKeys* keys) {
  const Lib& l = lib();
  std::string why;
  SSL* ssl = keys->new_ssl(l, &why);
  if (!ssl) return nullptr;
  l.set_fd(ssl, fd);
  return register_session(fd, ssl);
}

Step handshake_step(Session* s) {
  const Lib& l = lib();
  l.err_clear();
  int r = l.accept(s->ssl);
  observed_outside();
  if (r == 1) return Step::Done;
  switch (l.get_error(s->ssl, r)) {
    case SSL_ERROR_WANT_READ: return Step::WantRead;
    case SSL_ERROR_WANT_WRITE: return Step::WantWrite;
    default: break;
  }
  s->broken = true;
  return queued_errors(l) == kPlainHttp ? Step::PlainHttp : Step::Failed;
}

namespace {

long nb_result(const Lib& l, Session* s, int r) {
  if (r > 0) return r;
  switch (l.get_error(s->ssl, r)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: return kWouldBlock;
    case SSL_ERROR_ZERO_RETURN: return 0;
    default:
      l.err_clear();
      s->broken = true;
      return kBroken;
  }
}

}  // namespace

long read_nb(Session* s, char* buf, size_t max) {
  const Lib& l = lib();
  l.err_clear();
  int r = l.read(s->ssl, buf, static_cast<int>(std::min<size_t>(max, INT32_MAX)));
  observed_outside();
  return nb_result(l, s, r);
}

long write_nb(Session* s, const char* p, size_t n) {
  const Lib& l = lib();
  l.err_clear();
  int r = l.write(s->ssl, p, static_cast<int>(std::min<size_t>(n, 1 << 30)));
  return nb_result(l, s, r);
}

void close_notify(Session* s) {
  if (s->broken) return;
  const Lib& l = lib();
  l.err_clear();
  l.shutdown(s->ssl);
  l.err_clear();
}

Io read(Session* s, int fd, char* buf, size_t max, int64_t deadline_us, bool dl, size_t* got, int* err,
        const WoSite* site) {
  const Lib& l = lib();
  int n = 0;
  int chunk = static_cast<int>(std::min<size_t>(max, INT32_MAX));
  switch (drive(l, s->ssl, fd, [&] { return l.read(s->ssl, buf, chunk); }, deadline_us, dl, &n, &t_error, site)) {
    case 1: *got = static_cast<size_t>(n); return Io::Done;
    case 0: return Io::Timeout;
    default:
      if (n == SSL_ERROR_ZERO_RETURN) return Io::Eof;  // close_notify, or a bare close (IGNORE_UNEXPECTED_EOF)
      s->broken = true;
      *err = kTlsError;
      return Io::Failed;
  }
}

Io send(Session* s, int fd, const char* p, size_t n, int64_t deadline_us, bool dl, int* err, const WoSite* site) {
  const Lib& l = lib();
  while (n > 0) {
    int chunk = static_cast<int>(std::min<size_t>(n, 1 << 30));
    int wrote = 0;
    switch (drive(l, s->ssl, fd, [&] { return l.write(s->ssl, p, chunk); }, deadline_us, dl, &wrote, &t_error, site)) {
      case 1: break;
      case 0: return Io::Timeout;
      default:
        s->broken = true;
        *err = kTlsError;
        return Io::Failed;
    }
    p += wrote;
    n -= static_cast<size_t>(wrote);
  }
  return Io::Done;
}

const std::string& last_error() { return t_error; }

const std::string* joined(const iovec* iov, int n) {
  if (n < 2) return nullptr;
  size_t total = 0;
  for (int i = 0; i < n; ++i) total += iov[i].iov_len;
  if (total > (size_t{64} << 10)) return nullptr;
  thread_local std::string buf;
  buf.clear();
  for (int i = 0; i < n; ++i) buf.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
  return &buf;
}

void end(int fd, Session* s) {
  if (std::atomic<Session*>* sl = slot(fd, false)) sl->store(nullptr, std::memory_order_release);
  const Lib& l = lib();
  close_notify(s);  // if the socket takes it now; no wait for the peer's
  l.err_clear();
  l.ssl_free(s->ssl);
  delete s;
}

int64_t handshake_ms() {
  const char* v = std::getenv("WO_TLS_HANDSHAKE_MS");
  if (!v || !*v) return 10000;
  char* end = nullptr;
  long long ms = std::strtoll(v, &end, 10);
  return end && *end == '\0' && ms > 0 ? ms : 10000;
}

}  // namespace wo::net::tls
