// assert / assert_eq (common/builtins.def; docs/decisions/0038-woc-test.md):
// a failed check raises the EXPLICIT trap (8) with a message saying what was
// expected, so `woc test` reports it like any trap (message, function, line)
// and a `try` can catch it.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "float_render.h"
#include "../core/trap.h"
#include "wo_runtime.h"

namespace {
constexpr int64_t kExplicit = 8;  // TRAP(EXPLICIT, 8, ...) in common/traps.def

// A Text shown in a failure message: quoted, cut at 200 bytes.
std::string shown(const WoText* t) {
  std::string s = "\"";
  s.append(t->bytes, static_cast<size_t>(t->len < 200 ? t->len : 200));
  if (t->len > 200) s += "...";
  return s + "\"";
}

[[noreturn]] void fail(const WoSite* site, const std::string& left, const std::string& right) {
  std::string msg = "assert_eq failed: " + left + " != " + right;
  wo::raise(kExplicit, site, msg.c_str());
}
}  // namespace

void wo_assert(bool cond, WoText* msg, const WoSite* site) {
  if (cond) [[likely]]
    return;
  wo::need(msg, site);
  std::string m = "assertion failed: ";
  m.append(msg->bytes, static_cast<size_t>(msg->len));
  wo::raise(kExplicit, site, m.c_str());
}

void wo_assert_eq_bool(bool a, bool b, const WoSite* site) {
  if (a != b) fail(site, a ? "true" : "false", b ? "true" : "false");
}

void wo_assert_eq_int(int64_t a, int64_t b, const WoSite* site) {
  if (a != b) fail(site, std::to_string(a), std::to_string(b));
}

void wo_assert_eq_float(double a, double b, const WoSite* site) {
  if (a == b) return;
  char x[48], y[48];
  std::string l(x, wo::render_float(a, x)), r(y, wo::render_float(b, y));
  fail(site, l, r);
}

void wo_assert_eq_text(WoText* a, WoText* b, const WoSite* site) {
  wo::need(a, site);
  wo::need(b, site);
  if (a->len == b->len && std::string_view(a->bytes, a->len) == std::string_view(b->bytes, b->len)) return;
  fail(site, shown(a), shown(b));
}
