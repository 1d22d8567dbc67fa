// TLS in the connection set of App.serve_tls (net.conns_open_tls,
// runtime/src/http/conns.cpp, docs/decisions/0086): a CA and a server
// certificate made by the test with the openssl tool, clients on
// std::threads speaking TLS through libssl directly (not through woc), and
// the woc side on one shard. Checked: requests over TLS with keep-alive,
// plain HTTP at the TLS port answered 400, garbage and silent clients
// dropped without holding anyone, certificate files that cannot be used.
#include <doctest/doctest.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>

#include "socket_support.h"
#include "support.h"

using namespace wotest;

namespace {

const WoSite kSite{"net_tls_test", 1, nullptr, 0};

// A temporary directory with ca.pem, cert.pem and key.pem (SAN 127.0.0.1).
struct Pki {
  std::string dir;
  Pki() {
    char tmpl[] = "/tmp/wo-tls-test.XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    std::string cmd = "cd " + dir +
                      " && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key"
                      " -out ca.pem -days 2 -subj '/CN=wo test CA'"
                      " && openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout key.pem -out s.csr"
                      " -subj /CN=127.0.0.1"
                      " && printf 'subjectAltName=IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\n' > ext.cnf"
                      " && openssl x509 -req -in s.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cert.pem"
                      " -days 2 -extfile ext.cnf >/dev/null 2>&1";
    REQUIRE_MESSAGE(std::system((cmd + " 2>/dev/null").c_str()) == 0, "openssl (Debian package openssl) made no certificates");
  }
  ~Pki() { std::system(("rm -rf " + dir).c_str()); }
  // A new key and certificate for 127.0.0.1 from the same CA, subject
  // /CN=`cn`, renamed over cert.pem and key.pem (as a renewal tool does).
  void renew(const std::string& cn) const {
    std::string cmd = "cd " + dir +
                      " && openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout new-key.pem"
                      " -out new.csr -subj /CN=" + cn +
                      " && openssl x509 -req -in new.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out new-cert.pem"
                      " -days 2 -extfile ext.cnf >/dev/null 2>&1 && mv new-key.pem key.pem && mv new-cert.pem cert.pem";
    REQUIRE(std::system((cmd + " 2>/dev/null").c_str()) == 0);
  }
  std::string file(const char* name) const { return dir + "/" + name; }
};

// A TLS client through libssl itself: verifies the server against ca.pem
// and 127.0.0.1, sends `request` `times` times on one session, reads until
// the server closes. "" when the handshake fails.
std::string tls_client(int port, const std::string& ca, const std::string& request, int times = 1,
                       std::string* subject = nullptr) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  SSL* ssl = SSL_new(ctx);
  SSL_set1_host(ssl, "127.0.0.1");
  int fd = connect_to(port);
  std::string got;
  SSL_set_fd(ssl, fd);
  if (fd >= 0 && SSL_connect(ssl) == 1) {
    if (subject) {  // the certificate this session was served: "/CN=..."
      X509* peer = SSL_get1_peer_certificate(ssl);
      char name[256] = "";
      if (peer) X509_NAME_oneline(X509_get_subject_name(peer), name, sizeof name);
      X509_free(peer);
      *subject = name;
    }
    for (int i = 0; i < times; ++i) SSL_write(ssl, request.data(), static_cast<int>(request.size()));
    char buf[4096];
    int n;
    while ((n = SSL_read(ssl, buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  if (fd >= 0) ::close(fd);
  return got;
}

// A plain client: sends `bytes`, reads until the close (at most 5 s).
std::string plain_client(int port, const std::string& bytes) {
  int fd = connect_to(port);
  if (fd < 0) return "connect failed";
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (!bytes.empty() && ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) < 0) {
  }
  std::string got;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) got.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return got;
}

struct TlsServer {
  // libssl's socket writes are write(2): a peer gone is SIGPIPE unless it
  // is ignored, as wo_start does for every program (entry.cpp).
  struct IgnorePipe {
    IgnorePipe() { std::signal(SIGPIPE, SIG_IGN); }
  } ignore_pipe;
  OneShard env;
  int64_t l = -1, cs = -1;
  TlsServer(const Pki& pki, int64_t first_ms) {
    OText host(text("127.0.0.1"));
    l = wo_net_listen(host, 0, &kSite);
    OText cert(text(pki.file("cert.pem"))), key(text(pki.file("key.pem")));
    cs = wo_net_conns_open_tls(l, first_ms, 2000, cert, key, &kSite);
  }
  int port() const { return port_of(l); }
  // Answers the next request with `body`; the request's target, or "" when none came.
  std::string answer(const std::string& body, bool keep) {
    int64_t c = wo_net_conns_next(cs, 5000, &kSite);
    if (c == WO_NIL_SCALAR) return "";
    Owned<WoRawRequest> r(wo_net_conns_take(cs, c, &kSite));
    OMap h(wo_map_new(WO_ELEM_TEXT, WO_ELEM_TEXT));
    OText b(text(body));
    wo_net_conns_respond(cs, c, 200, h, b, false, keep, &kSite);
    return str(r->target);
  }
  ~TlsServer() {
    wo_net_conns_close(cs, &kSite);
    wo_net_close(l, &kSite);
  }
};

}  // namespace

TEST_CASE("conns over TLS: requests on one verified session, keep-alive then close") {
  Pki pki;
  TlsServer s(pki, 2000);
  std::string reply;
  std::thread c([&] { reply = tls_client(s.port(), pki.file("ca.pem"), "GET /one HTTP/1.1\r\nHost: a\r\n\r\n", 2); });
  CHECK(s.answer("first", true) == "/one");
  CHECK(s.answer("second", false) == "/one");
  c.join();
  CHECK(reply.find("HTTP/1.1 200 OK") == 0);
  CHECK(reply.find("\r\n\r\nfirst") != std::string::npos);
  CHECK(reply.find("\r\n\r\nsecond") != std::string::npos);
}

TEST_CASE("conns over TLS: plain HTTP gets a 400, garbage and silence are dropped, nobody is held") {
  Pki pki;
  TlsServer s(pki, 500);
  std::string plain, garbage, silent, good;
  std::thread a([&] { plain = plain_client(s.port(), "GET / HTTP/1.1\r\nHost: a\r\n\r\n"); });
  std::thread b([&] { garbage = plain_client(s.port(), std::string("\x16\x03\x01\xff\xff", 5) + std::string(64, '\0')); });
  std::thread q([&] { silent = plain_client(s.port(), ""); });
  std::thread g([&] { good = tls_client(s.port(), pki.file("ca.pem"), "GET /good HTTP/1.1\r\nHost: a\r\n\r\n"); });
  CHECK(s.answer("served", false) == "/good");  // while the others are pending or gone
  g.join();
  CHECK(good.find("\r\n\r\nserved") != std::string::npos);
  // The silent one is closed at first_ms; drive the set until then.
  CHECK(wo_net_conns_next(s.cs, 1500, &kSite) == WO_NIL_SCALAR);
  a.join();
  b.join();
  q.join();
  CHECK(plain.find("HTTP/1.1 400 Bad Request") == 0);
  CHECK(plain.find("plain HTTP sent to the HTTPS port") != std::string::npos);
  CHECK(garbage.find("HTTP/") == std::string::npos);  // an alert at most, then the close
  CHECK(silent.empty());
}

TEST_CASE("conns over TLS: certificate files that cannot be used trap IO naming the file") {
  Pki pki;
  OneShard env;
  OText host(text("127.0.0.1"));
  int64_t l = wo_net_listen(host, 0, &kSite);
  OText missing(text(pki.file("none.pem"))), key(text(pki.file("key.pem"))), ca_key(text(pki.file("ca.key")));
  wo::Trap t = trapped([&] { wo_net_conns_open_tls(l, 1000, 1000, missing, key, &kSite); });
  CHECK(t.code == 9);
  CHECK(t.msg.find("TLS: cannot use the certificate chain in " + pki.file("none.pem")) == 0);
  OText cert(text(pki.file("cert.pem")));
  t = trapped([&] { wo_net_conns_open_tls(l, 1000, 1000, cert, ca_key, &kSite); });  // a key, not this certificate's
  CHECK(t.code == 9);
  INFO(t.msg);
  CHECK(t.msg.find("TLS: cannot use the private key in " + pki.file("ca.key")) == 0);
  wo_net_close(l, &kSite);
}

// A service runs for months and its certificate is renewed every few: the
// files are compared at each handshake, and a renewal on disk is what the
// next connection gets, with no restart. A renewal that cannot be used (a
// half-written file) leaves the keys in service as they were.
TEST_CASE("conns over TLS: a certificate renewed on disk is served to the next connection") {
  Pki pki;
  TlsServer s(pki, 2000);
  auto fetch = [&](std::string* subject) {
    std::string reply;
    std::thread c([&] { reply = tls_client(s.port(), pki.file("ca.pem"), "GET /c HTTP/1.1\r\nHost: a\r\n\r\n", 1, subject); });
    CHECK(s.answer("ok", false) == "/c");
    c.join();
    return reply;
  };
  std::string subject;
  CHECK(fetch(&subject).find("\r\n\r\nok") != std::string::npos);
  CHECK(subject == "/CN=127.0.0.1");
  pki.renew("renewed");
  CHECK(fetch(&subject).find("\r\n\r\nok") != std::string::npos);
  CHECK(subject == "/CN=renewed");
  // A certificate file cut short: the renewed keys stay in service.
  REQUIRE(std::system(("head -c 100 " + pki.file("cert.pem") + " > " + pki.file("cut.pem") + " && mv " +
                       pki.file("cut.pem") + " " + pki.file("cert.pem")).c_str()) == 0);
  CHECK(fetch(&subject).find("\r\n\r\nok") != std::string::npos);
  CHECK(subject == "/CN=renewed");
  pki.renew("again");
  CHECK(fetch(&subject).find("\r\n\r\nok") != std::string::npos);
  CHECK(subject == "/CN=again");
}
