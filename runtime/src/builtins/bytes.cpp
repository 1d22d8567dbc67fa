// Bytes, base64 and the digests (builtins.md §5). Bytes share WoText's layout
// (header, len, bytes, NUL) and are immutable, so the Text<->Bytes
// conversions share the object instead of copying. The digests are
// OpenSSL's libcrypto (EVP one-shot digest, HMAC), and so is base64 (its
// block encoder/decoder, behind our strict decoding rules); libcrypto is
// loaded on first use (crypto_lib.h).

#include <algorithm>
#include <cstring>

#include "base64.h"
#include "crypto_lib.h"
#include "../core/heap.h"
#include "../core/trap.h"

namespace {

WoBytes* as_bytes(WoText* t) { return reinterpret_cast<WoBytes*>(t); }
WoText* as_text(WoBytes* b) { return reinterpret_cast<WoText*>(b); }

constexpr int64_t kMaxBytes = int64_t{1} << 32;  // 4 GiB: larger results trap OOM

// A base64 alphabet character (A-Z a-z 0-9 + /).
bool b64_char(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

// OpenSSL's block calls take int lengths: inputs are cut into pieces this
// long (whole 3-byte groups, whole 4-character groups; outputs < 2^31).
constexpr size_t kEncodeChunk = size_t{3} << 28;
constexpr size_t kDecodeChunk = size_t{4} << 28;

WoBytes* digest(const wo::crypto::Lib& lib, const EVP_MD* md, WoBytes* b) {
  wo::need(b);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!lib.digest(b->bytes, static_cast<size_t>(b->len), out, &n, md, nullptr)) [[unlikely]]
    wo::raise_oom();  // libcrypto fails only on allocation
  return as_bytes(wo::text_from(reinterpret_cast<const char*>(out), n));
}

}  // namespace

namespace wo {

// OpenSSL's EVP_EncodeBlock/EVP_DecodeBlock, 3-4x our hand-written loops
// (bench/libs, docs/decisions/0054). EVP_EncodeBlock writes exactly RFC 4648
// with padding and no line breaks.
void base64_encode_to(const char* data, size_t n, std::string& out) {
  size_t at = out.size();
  out.resize(at + (n + 2) / 3 * 4 + 1);  // + EVP_EncodeBlock's NUL
  auto* dst = reinterpret_cast<unsigned char*>(out.data() + at);
  auto* src = reinterpret_cast<const unsigned char*>(data);
  auto* encode = wo::crypto::lib("base64 encoding").encode_block;
  for (size_t i = 0; i < n; i += kEncodeChunk) {
    size_t k = std::min(kEncodeChunk, n - i);
    dst += encode(dst, src + i, static_cast<int>(k));
  }
  out.resize(static_cast<size_t>(reinterpret_cast<char*>(dst) - out.data()));
}

// EVP_DecodeBlock is more lenient than base64.h's contract: it skips
// whitespace (and other non-alphabet bytes) at either end of its input and
// decodes `=` anywhere as zero bits. So the strict rules are checked here
// first: the length, `=` only as the last one or two characters, and an
// alphabet character at both ends of every piece handed to it; anything else
// it refuses itself. It returns whole 3-byte groups, padding included: the
// padding's bytes are dropped after.
bool base64_decode_to(const char* data, size_t n, std::string& out) {
  if (n % 4 != 0) return false;
  if (n == 0) return true;
  auto* p = reinterpret_cast<const unsigned char*>(data);
  size_t pad = p[n - 1] == '=' ? (p[n - 2] == '=' ? 2 : 1) : 0;
  if (std::memchr(p, '=', n - pad)) return false;
  size_t at = out.size();
  auto* decode = wo::crypto::lib("base64 decoding").decode_block;
  out.resize(at + n / 4 * 3 + 1);  // + EVP_DecodeBlock's room for a NUL
  auto* dst = reinterpret_cast<unsigned char*>(out.data() + at);
  for (size_t i = 0; i < n; i += kDecodeChunk) {
    size_t k = std::min(kDecodeChunk, n - i);
    size_t last = i + k - 1 - (i + k == n ? pad : 0);
    if (!b64_char(p[i]) || !b64_char(p[last])) return false;
    int got = decode(dst, p + i, static_cast<int>(k));
    if (got < 0) return false;
    dst += got;
  }
  out.resize(static_cast<size_t>(reinterpret_cast<char*>(dst) - out.data()) - pad);
  return true;
}

}  // namespace wo

extern "C" {

WoBytes* wo_bytes_new(const char* bytes, int64_t len) {
  return as_bytes(wo::text_from(bytes, static_cast<size_t>(len < 0 ? 0 : len)));
}

WoBytes* wo_bytes_of_text(WoText* t) {
  wo::need(t);
  wo_retain(t);
  return as_bytes(t);
}

WoText* wo_text_of_bytes(WoBytes* b) {
  wo::need(b);
  wo_retain(b);
  return as_text(b);
}

int64_t wo_bytes_len(WoBytes* b) {
  wo::need(b);
  return b->len;
}

int64_t wo_bytes_at(WoBytes* b, int64_t i, const WoSite* site) {
  wo::need(b, site);
  if (static_cast<uint64_t>(i) >= static_cast<uint64_t>(b->len)) [[unlikely]]
    wo::raise(6, site, "bytes index out of range", wo::index_detail(i, b->len));
  return static_cast<unsigned char>(b->bytes[i]);
}

WoBytes* wo_bytes_slice(WoBytes* b, int64_t start, int64_t n) {
  wo::need(b);
  return as_bytes(wo_substr(as_text(b), start, n));
}

WoBytes* wo_bytes_concat(WoBytes* a, WoBytes* b) {
  wo::need(a);
  wo::need(b);
  if (a->len + b->len > kMaxBytes) [[unlikely]]
    wo::raise_oom();
  return as_bytes(wo_concat(as_text(a), as_text(b)));  // same layout as Text
}

bool wo_bytes_eq(WoBytes* a, WoBytes* b) {
  wo::need(a);
  wo::need(b);
  return a->len == b->len && std::memcmp(a->bytes, b->bytes, static_cast<size_t>(a->len)) == 0;
}

WoText* wo_base64_encode(WoBytes* b) {
  wo::need(b);
  std::string out;
  wo::base64_encode_to(b->bytes, static_cast<size_t>(b->len), out);
  return wo::text_from(out.data(), out.size());
}

WoBytes* wo_base64_decode(WoText* t) {
  wo::need(t);
  std::string out;
  if (!wo::base64_decode_to(t->bytes, static_cast<size_t>(t->len), out)) return nullptr;
  return as_bytes(wo::text_from(out.data(), out.size()));
}

WoBytes* wo_sha1(WoBytes* b) {
  wo::need(b);  // nil traps BOUNDS before anything is loaded
  const wo::crypto::Lib& lib = wo::crypto::lib("sha1");
  return digest(lib, lib.sha1(), b);
}

WoBytes* wo_sha256(WoBytes* b) {
  wo::need(b);
  const wo::crypto::Lib& lib = wo::crypto::lib("sha256");
  return digest(lib, lib.sha256(), b);
}

WoBytes* wo_hmac_sha256(WoBytes* key, WoBytes* msg) {
  wo::need(key);
  wo::need(msg);
  const wo::crypto::Lib& lib = wo::crypto::lib("hmac_sha256");
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  // HMAC hashes keys longer than the block (64 bytes) itself; doing it here
  // keeps key lengths past INT_MAX out of its `int` parameter.
  const void* k = key->bytes;
  int klen = static_cast<int>(key->len);
  unsigned char hashed[EVP_MAX_MD_SIZE];
  unsigned int hlen = 0;
  if (key->len > 64) {
    if (!lib.digest(key->bytes, static_cast<size_t>(key->len), hashed, &hlen, lib.sha256(), nullptr)) [[unlikely]]
      wo::raise_oom();
    k = hashed;
    klen = static_cast<int>(hlen);
  }
  if (!lib.hmac(lib.sha256(), k, klen,
            reinterpret_cast<const unsigned char*>(msg->bytes), static_cast<size_t>(msg->len), out, &n))
      [[unlikely]]
    wo::raise_oom();
  return as_bytes(wo::text_from(reinterpret_cast<const char*>(out), n));
}

}  // extern "C"
