// Bytes, base64 and the digests (builtins.md §5). Bytes share WoText's layout
// (header, len, bytes, NUL) and are immutable, so the Text<->Bytes
// conversions share the object instead of copying. The digests are
// OpenSSL's libcrypto (EVP one-shot digest, HMAC).
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstring>

#include "base64.h"
#include "heap.h"
#include "trap.h"

namespace {

WoBytes* as_bytes(WoText* t) { return reinterpret_cast<WoBytes*>(t); }
WoText* as_text(WoBytes* b) { return reinterpret_cast<WoText*>(b); }

constexpr int64_t kMaxBytes = int64_t{1} << 32;  // 4 GiB: larger results trap OOM

const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// The 6-bit value of a base64 alphabet character, or -1.
int b64_value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

WoBytes* digest(const EVP_MD* md, WoBytes* b) {
  wo::need(b);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!EVP_Digest(b->bytes, static_cast<size_t>(b->len), out, &n, md, nullptr)) [[unlikely]]
    wo::raise_oom();  // libcrypto fails only on allocation
  return as_bytes(wo::text_from(reinterpret_cast<const char*>(out), n));
}

}  // namespace

namespace wo {

void base64_encode_to(const char* data, size_t n, std::string& out) {
  auto* p = reinterpret_cast<const unsigned char*>(data);
  out.reserve(out.size() + (n + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (n - i == 1) {
    uint32_t v = uint32_t{p[i]} << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (n - i == 2) {
    uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
}

bool base64_decode_to(const char* data, size_t n, std::string& out) {
  if (n % 4 != 0) return false;
  auto* p = reinterpret_cast<const unsigned char*>(data);
  out.reserve(out.size() + n / 4 * 3);
  for (size_t i = 0; i < n; i += 4) {
    bool last = i + 4 == n;
    int pad = 0;
    if (last && p[i + 3] == '=') pad = p[i + 2] == '=' ? 2 : 1;
    int v[4];
    for (int k = 0; k < 4 - pad; ++k)
      if ((v[k] = b64_value(p[i + k])) < 0) return false;  // also rejects a misplaced '='
    uint32_t w = (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12);
    if (pad < 2) w |= uint32_t(v[2]) << 6;
    if (pad < 1) w |= uint32_t(v[3]);
    out += static_cast<char>(w >> 16);
    if (pad < 2) out += static_cast<char>((w >> 8) & 0xFF);
    if (pad < 1) out += static_cast<char>(w & 0xFF);
  }
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

WoBytes* wo_sha1(WoBytes* b) { return digest(EVP_sha1(), b); }

WoBytes* wo_sha256(WoBytes* b) { return digest(EVP_sha256(), b); }

WoBytes* wo_hmac_sha256(WoBytes* key, WoBytes* msg) {
  wo::need(key);
  wo::need(msg);
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  // HMAC hashes keys longer than the block (64 bytes) itself; doing it here
  // keeps key lengths past INT_MAX out of its `int` parameter.
  const void* k = key->bytes;
  int klen = static_cast<int>(key->len);
  unsigned char hashed[EVP_MAX_MD_SIZE];
  unsigned int hlen = 0;
  if (key->len > 64) {
    if (!EVP_Digest(key->bytes, static_cast<size_t>(key->len), hashed, &hlen, EVP_sha256(), nullptr)) [[unlikely]]
      wo::raise_oom();
    k = hashed;
    klen = static_cast<int>(hlen);
  }
  if (!HMAC(EVP_sha256(), k, klen,
            reinterpret_cast<const unsigned char*>(msg->bytes), static_cast<size_t>(msg->len), out, &n))
      [[unlikely]]
    wo::raise_oom();
  return as_bytes(wo::text_from(reinterpret_cast<const char*>(out), n));
}

}  // extern "C"
