// Text values and the single-Text builtins (builtins.md §2–§3).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "runtime/src/core/trap.h"
#include "support.h"

using namespace wotest;

namespace {

// The trap raised by f(), or code 0 if none.
template <class F>
wo::Trap trap_of(F f) {
  try {
    f();
  } catch (const wo::Trap& t) {
    return t;
  }
  return wo::Trap{0, 0, "", ""};
}

std::string sub(std::string_view s, int64_t start, int64_t n) {
  OText t(text(s));
  OText r(wo_substr(t, start, n));
  return str(r);
}

int64_t idx(std::string_view t, std::string_view n) {
  OText a(text(t)), b(text(n));
  return wo_index_of(a, b);
}

int64_t last_idx(std::string_view t, std::string_view n) {
  OText a(text(t)), b(text(n));
  return wo_last_index_of(a, b);
}

}  // namespace

TEST_CASE("wo_text_new copies the bytes, NUL-terminates, rc 1") {
  OText t(text(std::string_view("ab\0c", 4)));
  CHECK(t->h.rc == 1);
  CHECK(t->len == 4);
  CHECK(t->bytes[4] == '\0');
  CHECK(str(t) == std::string("ab\0c", 4));
  CHECK(wo_text_len(t) == 4);
  OText e(text(""));
  CHECK(wo_text_len(e) == 0);
}

TEST_CASE("concat") {
  OText a(text("ab")), b(text("cd")), e(text(""));
  OText ab(wo_concat(a, b));
  CHECK(str(ab) == "abcd");
  CHECK(ab->bytes[4] == '\0');
  OText ae(wo_concat(a, e)), ea(wo_concat(e, a)), ee(wo_concat(e, e));
  CHECK(str(ae) == "ab");
  CHECK(str(ea) == "ab");
  CHECK(str(ee) == "");
  CHECK(str(a) == "ab");  // arguments are borrowed
  CHECK(str(b) == "cd");
}

TEST_CASE("wo_text_append consumes a and extends it") {
  OText x(text("xy"));
  WoText* s = text("");
  for (int i = 0; i < 10000; ++i) s = wo_text_append(s, x);
  CHECK(s->len == 20000);
  CHECK(s->bytes[20000] == '\0');
  CHECK(std::string(s->bytes, 4) == "xyxy");
  CHECK(std::string(s->bytes + 19996, 4) == "xyxy");
  wo_release(s);

  // shared a: copied, the other owner's value is untouched
  WoText* a = text("ab");
  wo_retain(a);
  WoText* r = wo_text_append(a, x);
  CHECK(str(r) == "abxy");
  CHECK(str(a) == "ab");
  CHECK(a->h.rc == 1);
  wo_release(r);
  wo_release(a);

  // s = s .. s
  WoText* d = text("abc");
  d = wo_text_append(d, d);
  d = wo_text_append(d, d);
  CHECK(str(d) == "abcabcabcabc");
  wo_release(d);
}

TEST_CASE("eq and cmp are bytewise") {
  OText abc(text("abc")), abd(text("abd")), ab(text("ab")), abc2(text("abc")), hi(text("\x80"));
  CHECK(wo_text_eq(abc, abc2));
  CHECK_FALSE(wo_text_eq(abc, abd));
  CHECK_FALSE(wo_text_eq(abc, ab));
  CHECK(wo_text_cmp(abc, abc2) == 0);
  CHECK(wo_text_cmp(abc, abd) == -1);
  CHECK(wo_text_cmp(abd, abc) == 1);
  CHECK(wo_text_cmp(ab, abc) == -1);  // a shorter prefix first
  CHECK(wo_text_cmp(abc, ab) == 1);
  CHECK(wo_text_cmp(hi, abc) == 1);  // bytes are unsigned
}

TEST_CASE("int_to_text") {
  auto r = [](int64_t n) {
    OText t(wo_int_to_text(n));
    return str(t);
  };
  CHECK(r(0) == "0");
  CHECK(r(42) == "42");
  CHECK(r(-5) == "-5");
  CHECK(r(INT64_MIN) == "-9223372036854775808");
  CHECK(r(INT64_MAX) == "9223372036854775807");
}

TEST_CASE("words counts runs of non-whitespace (space, tab, LF, CR)") {
  auto w = [](std::string_view s) { return wo_words(OText(text(s))); };
  CHECK(w("  three  small words ") == 3);
  CHECK(w("") == 0);
  CHECK(w(" \t\r\n") == 0);
  CHECK(w("a\tb\nc\rd e") == 5);
  CHECK(w("a\vb") == 1);  // vertical tab is not whitespace here
  CHECK(w("one") == 1);
}

TEST_CASE("byte_at: 0..255; out of range traps BOUNDS") {
  WoSite site{"scan", 31, nullptr, 0};
  OText t(text("A\xff"));
  CHECK(wo_byte_at(t, 0, &site) == 65);
  CHECK(wo_byte_at(t, 1, &site) == 255);
  for (int64_t i : {int64_t{-1}, int64_t{2}, INT64_MIN, INT64_MAX}) {
    wo::Trap tr = trap_of([&] { wo_byte_at(t, i, &site); });
    CHECK(tr.code == 6);
    CHECK(tr.msg == "byte index out of range");
    CHECK(tr.method == "scan");
    CHECK(tr.line == 31);
  }
}

TEST_CASE("char_of: one byte from the low 8 bits") {
  auto c = [](int64_t b) {
    OText t(wo_char_of(b));
    return str(t);
  };
  CHECK(c(65) == "A");
  CHECK(c(65 + 256) == "A");
  CHECK(c(-1) == "\xff");
  CHECK(c(0) == std::string(1, '\0'));
}

TEST_CASE("substr clamps and never traps") {
  CHECK(sub("hello", 1, 3) == "ell");
  CHECK(sub("hello", 0, 5) == "hello");
  CHECK(sub("hello", 0, 0) == "");
  CHECK(sub("hello", -2, 3) == "hel");
  CHECK(sub("hello", 2, -1) == "");
  CHECK(sub("hello", 3, 100) == "lo");
  CHECK(sub("hello", 5, 1) == "");
  CHECK(sub("hello", 10, 2) == "");
  CHECK(sub("hello", INT64_MAX, INT64_MAX) == "");
  CHECK(sub("hello", INT64_MIN, INT64_MAX) == "hello");
  CHECK(sub("hello", 1, INT64_MAX) == "ello");
  CHECK(sub("", 0, 3) == "");
}

TEST_CASE("trim strips space, tab, LF, CR at both ends only") {
  auto tr = [](std::string_view s) {
    OText t(text(s));
    OText r(wo_trim(t));
    return str(r);
  };
  CHECK(tr("  \t hi there \r\n") == "hi there");
  CHECK(tr("") == "");
  CHECK(tr(" \t\r\n ") == "");
  CHECK(tr("x") == "x");
  CHECK(tr("\vx\v") == "\vx\v");
}

TEST_CASE("to_lower lowers ASCII A-Z only") {
  auto lo = [](std::string_view s) {
    OText t(text(s));
    OText r(wo_to_lower(t));
    return str(r);
  };
  CHECK(lo("HeLLo, WORLD! 123") == "hello, world! 123");
  CHECK(lo("@[`{AZ") == "@[`{az");
  CHECK(lo("\xC3\x84") == "\xC3\x84");  // UTF-8 Ä unchanged
  CHECK(lo("already") == "already");
  CHECK(lo("") == "");
  OText orig(text("ABC"));
  OText low(wo_to_lower(orig));
  CHECK(str(orig) == "ABC");  // the argument is not modified
}

TEST_CASE("starts_with / ends_with") {
  auto sw = [](std::string_view t, std::string_view p) { return wo_starts_with(OText(text(t)), OText(text(p))); };
  auto ew = [](std::string_view t, std::string_view s) { return wo_ends_with(OText(text(t)), OText(text(s))); };
  CHECK(sw("hello", "he"));
  CHECK(sw("hello", ""));
  CHECK(sw("hello", "hello"));
  CHECK_FALSE(sw("he", "hello"));
  CHECK_FALSE(sw("hello", "el"));
  CHECK(ew("hello", "lo"));
  CHECK(ew("hello", ""));
  CHECK(ew("", ""));
  CHECK_FALSE(ew("lo", "hello"));
  CHECK_FALSE(ew("hello", "ll"));
}

TEST_CASE("index_of: first offset, -1 if absent, empty needle -> 0") {
  CHECK(idx("hello", "l") == 2);
  CHECK(idx("hello", "lo") == 3);
  CHECK(idx("hello", "h") == 0);
  CHECK(idx("hello", "x") == -1);
  CHECK(idx("hello", "") == 0);
  CHECK(idx("", "") == 0);
  CHECK(idx("", "a") == -1);
  CHECK(idx("aaa", "aaaa") == -1);
  CHECK(idx("GET /items?id=42", "?") == 10);
}

TEST_CASE("last_index_of: last offset, -1 if absent, empty needle -> len") {
  CHECK(last_idx("hello", "l") == 3);
  CHECK(last_idx("abcabc", "abc") == 3);
  CHECK(last_idx("abcabc", "a") == 3);
  CHECK(last_idx("hello", "h") == 0);
  CHECK(last_idx("hello", "") == 5);
  CHECK(last_idx("", "") == 0);
  CHECK(last_idx("hello", "x") == -1);
  CHECK(last_idx("aaa", "aa") == 1);
  CHECK(last_idx("ab", "abc") == -1);
  CHECK(last_idx("axbxc", "xc") == 3);
}

TEST_CASE("a nil Text traps BOUNDS `null receiver`") {
  wo::Trap t = trap_of([] { wo_text_len(nullptr); });
  CHECK(t.code == 6);
  CHECK(t.msg == "null receiver");
  WoSite site{"f", 5, nullptr, 0};
  t = trap_of([&] { wo_byte_at(nullptr, 0, &site); });
  CHECK(t.code == 6);
  CHECK(t.line == 5);
  CHECK(wo_text_eq(nullptr, nullptr));
}
