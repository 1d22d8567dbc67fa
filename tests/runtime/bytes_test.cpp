// Bytes, base64 and the digests (builtins.md §5): FIPS 180 and RFC 4231
// vectors, RFC 4648 base64 vectors, the strict decoder's rejections.
#include <doctest/doctest.h>

#include <string>

#include "support.h"

using namespace wotest;

namespace {

const WoSite kSite{"digest", 8, nullptr, 0};

std::string hex(const WoBytes* b) {
  static const char d[] = "0123456789abcdef";
  std::string s;
  for (int64_t i = 0; i < b->len; ++i) {
    auto c = static_cast<unsigned char>(b->bytes[i]);
    s += d[c >> 4];
    s += d[c & 15];
  }
  return s;
}

std::string sha1_hex(std::string_view s) {
  OBytes b(bytes(s));
  OBytes d(wo_sha1(b));
  CHECK(d->len == 20);
  return hex(d);
}

std::string sha256_hex(std::string_view s) {
  OBytes b(bytes(s));
  OBytes d(wo_sha256(b));
  CHECK(d->len == 32);
  return hex(d);
}

std::string hmac_hex(std::string_view k, std::string_view m) {
  OBytes kb(bytes(k)), mb(bytes(m));
  OBytes d(wo_hmac_sha256(kb, mb));
  CHECK(d->len == 32);
  return hex(d);
}

std::string enc(std::string_view s) {
  OBytes b(bytes(s));
  OText t(wo_base64_encode(b));
  return str(t);
}

// The decoding, or "<nil>".
std::string dec(std::string_view s) {
  OText t(text(s));
  OBytes b(wo_base64_decode(t));
  return b.get() ? str(b.get()) : "<nil>";
}

}  // namespace

TEST_CASE("bytes_of_text / text_of_bytes keep every byte, NULs included") {
  std::string raw("a\0b\xff", 4);
  OText t(text(raw));
  OBytes b(wo_bytes_of_text(t));
  CHECK(wo_bytes_len(b) == 4);
  CHECK(str(b.get()) == raw);
  OText back(wo_text_of_bytes(b));
  CHECK(str(back) == raw);
  CHECK(wo_text_len(back) == 4);
}

TEST_CASE("Text and Bytes share immutable storage safely") {
  OText t(text("abc"));
  OBytes b(wo_bytes_of_text(t));
  // an append to the Text must not change the Bytes (rc 2: no in-place growth)
  OText tail(text("def"));
  wo_retain(t);
  WoText* grown = wo_text_append(t, tail);
  CHECK(str(grown) == "abcdef");
  CHECK(str(b.get()) == "abc");
  wo_release(grown);
}

TEST_CASE("bytes_at: 0..255, out of range traps BOUNDS at the site") {
  OBytes b4(wo_bytes_new("\x00\x7f\x80\xff", 4));
  CHECK(wo_bytes_at(b4, 0, &kSite) == 0);
  CHECK(wo_bytes_at(b4, 1, &kSite) == 127);
  CHECK(wo_bytes_at(b4, 2, &kSite) == 128);
  CHECK(wo_bytes_at(b4, 3, &kSite) == 255);
  for (int64_t i : {int64_t{4}, int64_t{-1}, INT64_MIN, INT64_MAX}) {
    wo::Trap t = trapped([&] { wo_bytes_at(b4, i, &kSite); });
    CHECK(t.code == 6);
    CHECK(t.msg == "bytes index out of range");
    CHECK(t.method == "digest");
    CHECK(t.line == 8);
  }
}

TEST_CASE("bytes_slice clamps like substr and never traps") {
  OBytes b(bytes("hello"));
  auto sl = [&](int64_t s, int64_t n) {
    OBytes r(wo_bytes_slice(b, s, n));
    return str(r.get());
  };
  CHECK(sl(1, 3) == "ell");
  CHECK(sl(0, 5) == "hello");
  CHECK(sl(-2, 3) == "hel");
  CHECK(sl(3, 99) == "lo");
  CHECK(sl(5, 1) == "");
  CHECK(sl(99, 1) == "");
  CHECK(sl(2, -1) == "");
  CHECK(sl(INT64_MIN, INT64_MAX) == "hello");
}

TEST_CASE("bytes_concat and bytes_eq") {
  OBytes a(bytes("ab")), b(bytes("c\0d")), e(bytes(""));
  OBytes ab(wo_bytes_concat(a, b));
  CHECK(str(ab.get()) == "abc");
  OBytes ae(wo_bytes_concat(a, e)), ea(wo_bytes_concat(e, a)), ee(wo_bytes_concat(e, e));
  CHECK(str(ae.get()) == "ab");
  CHECK(str(ea.get()) == "ab");
  CHECK(ee->len == 0);
  OBytes a2(bytes("ab")), a3(bytes("abc")), n1(wo_bytes_new("a\0", 2)), n2(wo_bytes_new("a\0", 2));
  CHECK(wo_bytes_eq(a, a2));
  CHECK_FALSE(wo_bytes_eq(a, a3));
  CHECK(wo_bytes_eq(a3, ab));
  CHECK(wo_bytes_eq(n1, n2));
  CHECK_FALSE(wo_bytes_eq(n1, a));
  CHECK(wo_bytes_eq(e, ee));
}

TEST_CASE("base64_encode: RFC 4648 vectors, padding, binary") {
  CHECK(enc("") == "");
  CHECK(enc("f") == "Zg==");
  CHECK(enc("fo") == "Zm8=");
  CHECK(enc("foo") == "Zm9v");
  CHECK(enc("foob") == "Zm9vYg==");
  CHECK(enc("fooba") == "Zm9vYmE=");
  CHECK(enc("foobar") == "Zm9vYmFy");
  CHECK(enc(std::string("\0\0\0", 3)) == "AAAA");
  CHECK(enc("\xff\xff\xfe") == "///+");
  CHECK(enc("\xfb\xef") == "++8=");
  std::string big(3000, 'x');
  CHECK(enc(big).find('\n') == std::string::npos);  // no line breaks
  CHECK(enc(big).size() == 4000);
}

TEST_CASE("base64_decode: round trips and strict rejections (nil, never a trap)") {
  CHECK(dec("") == "");
  CHECK(dec("Zg==") == "f");
  CHECK(dec("Zm8=") == "fo");
  CHECK(dec("Zm9v") == "foo");
  CHECK(dec("Zm9vYmFy") == "foobar");
  CHECK(dec("AAAA") == std::string("\0\0\0", 3));  // NULs kept and counted
  CHECK(dec("///+") == "\xff\xff\xfe");
  CHECK(dec("Zm9") == "<nil>");       // length 3
  CHECK(dec("Zm9vY") == "<nil>");     // length 5
  CHECK(dec("Zm9!") == "<nil>");      // outside the alphabet
  CHECK(dec("Zm 9") == "<nil>");      // no whitespace
  CHECK(dec("Zm9v\n") == "<nil>");
  CHECK(dec("Z===") == "<nil>");      // at most two pads
  CHECK(dec("====") == "<nil>");
  CHECK(dec("Zg==Zg==") == "<nil>");  // padding only at the very end
  CHECK(dec("Z=g=") == "<nil>");
  CHECK(dec("Zm-_") == "<nil>");      // URL-safe alphabet is not the standard one
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  CHECK(dec(enc(all)) == all);
}

// base64 decodes through OpenSSL's EVP_DecodeBlock, which skips whitespace
// and other non-alphabet bytes at either end and reads `=` anywhere as zero
// bits; the strict rules of builtins.md §5 still hold (docs/decisions/0054).
TEST_CASE("base64_decode: what OpenSSL's decoder would let through is still nil") {
  CHECK(dec("    Zm9v") == "<nil>");  // a whole group of leading spaces
  CHECK(dec("Zm9v    ") == "<nil>");  // ... of trailing spaces
  CHECK(dec("Zm9v\r\n\r\n") == "<nil>");
  CHECK(dec("\tZm9vYg=") == "<nil>");
  CHECK(dec("Zm9vYg=\n") == "<nil>");
  CHECK(dec(std::string("Zm9v\0\0\0\0", 8)) == "<nil>");
  CHECK(dec(std::string("\0\0\0\0Zm9v", 8)) == "<nil>");
  CHECK(dec("Zm=v") == "<nil>");      // `=` inside a group
  CHECK(dec("=m9v") == "<nil>");
  CHECK(dec("Zm9v=m9v") == "<nil>");  // ... or in an earlier group
  CHECK(dec("Zm9vZ=g=") == "<nil>");
  CHECK(dec("Zm9v.m9v") == "<nil>");
  CHECK(dec("Zm9v Zm9") == "<nil>");
  // Unused low bits of the last character are not checked (as before).
  CHECK(dec("Zh==") == "f");
  // Large inputs: every piece ends checked, pads dropped.
  std::string big(3 * 100000 + 1, 'q');
  std::string e = enc(big);
  CHECK(e.size() == 400004);
  CHECK(e.substr(e.size() - 2) == "==");
  CHECK(dec(e) == big);
}

TEST_CASE("sha1 / sha256: FIPS 180 vectors") {
  CHECK(sha1_hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(sha1_hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(sha1_hex(std::string(1000000, 'a')) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("hmac_sha256: RFC 4231 vectors, long keys hashed first") {
  CHECK(hmac_hex(std::string(20, '\x0b'), "Hi There") ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  CHECK(hmac_hex("Jefe", "what do ya want for nothing?") ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  CHECK(hmac_hex(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First") ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  CHECK(hmac_hex("", "") == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
  CHECK(hmac_hex(std::string(64, 'k'), "m") == "3b7a8d453e76edb519238a515105a57508d0f169f480ebeee120a9e7803289fa");
  CHECK(hmac_hex(std::string(65, 'k'), "m") == "c2d7d4c2256ddb097409ec0c67e1d58fa1a007fc6932cac0d892a525d08af7cc");
}

TEST_CASE("the WebSocket accept key of builtins.md §5") {
  OText key(text("dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11"));
  OBytes kb(wo_bytes_of_text(key));
  OBytes d(wo_sha1(kb));
  OText accept(wo_base64_encode(d));
  CHECK(str(accept) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST_CASE("nil Bytes where Bytes are required trap BOUNDS `null receiver`") {
  CHECK(trapped([] { wo_bytes_len(nullptr); }).msg == "null receiver");
  CHECK(trapped([] { wo_sha1(nullptr); }).code == 6);
  CHECK(trapped([] { wo_bytes_at(nullptr, 0, &kSite); }).line == 8);
}
