// Float builtins (builtins.md §4) and Float rendering (language.md §3.8):
// shortest round-trip digits; fixed notation for 1e-6 <= |x| < 1e21 (always
// with a digit after the point), exponential otherwise in the spelling of
// docs/decisions/0003-float-exponent-form.md (`1e+21`, `1.5e-07`); `nan` for
// every NaN, `inf`, `-inf`.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "float_render.h"
#include "../core/heap.h"
#include "../core/trap.h"

namespace wo {

size_t render_float(double f, char* out) {
  if (std::isnan(f)) return std::memcpy(out, "nan", 3), 3;
  char* w = out;
  if (std::signbit(f)) {
    *w++ = '-';
    f = -f;
  }
  if (std::isinf(f)) return std::memcpy(w, "inf", 3), static_cast<size_t>(w + 3 - out);
  if (f == 0) return std::memcpy(w, "0.0", 3), static_cast<size_t>(w + 3 - out);

  // Shortest round-trip digits in scientific form: d[.ddd]e±XX.
  char sci[32];
  char* sci_end = std::to_chars(sci, sci + sizeof sci, f, std::chars_format::scientific).ptr;
  char* e_pos = static_cast<char*>(std::memchr(sci, 'e', static_cast<size_t>(sci_end - sci)));
  char digits[24];
  int nd = 0;
  for (char* p = sci; p < e_pos; ++p)
    if (*p != '.') digits[nd++] = *p;
  const char* exp_text = e_pos + 1;
  if (*exp_text == '+') ++exp_text;
  int exp = 0;
  std::from_chars(exp_text, sci_end, exp);  // value = d.ddd × 10^exp

  if (exp >= -6 && exp < 21) {
    if (exp < 0) {  // 0.000ddd
      *w++ = '0';
      *w++ = '.';
      for (int i = -1; i > exp; --i) *w++ = '0';
      std::memcpy(w, digits, static_cast<size_t>(nd));
      w += nd;
    } else {  // ddd[000].ddd or ddd.0
      int int_digits = exp + 1;
      for (int i = 0; i < int_digits; ++i) *w++ = i < nd ? digits[i] : '0';
      *w++ = '.';
      if (nd > int_digits) {
        std::memcpy(w, digits + int_digits, static_cast<size_t>(nd - int_digits));
        w += nd - int_digits;
      } else {
        *w++ = '0';
      }
    }
    return static_cast<size_t>(w - out);
  }

  // Exponential: shortest mantissa (no trailing `.0`), signed exponent of at
  // least two digits.
  *w++ = digits[0];
  if (nd > 1) {
    *w++ = '.';
    std::memcpy(w, digits + 1, static_cast<size_t>(nd - 1));
    w += nd - 1;
  }
  *w++ = 'e';
  *w++ = exp < 0 ? '-' : '+';
  int mag = exp < 0 ? -exp : exp;
  if (mag < 10) *w++ = '0';
  w = std::to_chars(w, w + 4, mag).ptr;
  return static_cast<size_t>(w - out);
}

}  // namespace wo

extern "C" {

WoText* wo_float_to_text(double f) {
  char buf[48];
  return wo::text_from(buf, wo::render_float(f, buf));
}

double wo_float_of_int(int64_t n) { return static_cast<double>(n); }

int64_t wo_trunc(double f, const WoSite* site) {
  // [-2^63, 2^63): the doubles whose truncation is an i64. NaN fails both tests.
  if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0)) [[unlikely]]
    wo::raise(6, site, "trunc: float has no integer value");
  return static_cast<int64_t>(f);
}

// The whole text must be one strtod number (strtod's grammar, which skips
// leading whitespace); anything else is NaN, never a trap.
double wo_parse_float(WoText* t) {
  wo::need(t);
  if (t->len == 0 || t->len >= 64) return std::nan("");
  char buf[64];
  std::memcpy(buf, t->bytes, static_cast<size_t>(t->len));
  buf[t->len] = '\0';
  char* end = nullptr;
  double v = std::strtod(buf, &end);
  if (end != buf + t->len || end == buf) return std::nan("");
  // strtod keeps a payload ("nan(0xee1)"); one NaN only, so no computed Float
  // can carry the bits of ?Float's nil (docs/decisions/0015).
  if (std::isnan(v)) return std::copysign(std::nan(""), v);
  return v;
}

// Total order: -inf < finite < +inf < NaN; -0.0 == 0.0; NaN == NaN.
int64_t wo_float_cmp(double a, double b) {
  bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  if (a < b) return -1;
  if (a > b) return 1;
  return 0;
}

}  // extern "C"
