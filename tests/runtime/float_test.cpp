// Float rendering (language.md §3.8, builtins.md §4) and the Float builtins.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "runtime/src/core/trap.h"
#include "support.h"

using namespace wotest;

namespace {

std::string render(double f) {
  OText t(wo_float_to_text(f));
  return str(t);
}

double parse(std::string_view s) { return wo_parse_float(OText(text(s))); }

// Keeps the compiler from folding, so the hardware produces the value.
double opaque(double x) {
  volatile double v = x;
  return v;
}

}  // namespace

TEST_CASE("float_to_text: the spec's examples") {
  CHECK(render(1e10) == "10000000000.0");
  CHECK(render(2.5e-4) == "0.00025");
  CHECK(render(7.0) == "7.0");
  CHECK(render(opaque(1.0) / opaque(3.0)) == "0.3333333333333333");
  CHECK(render(opaque(0.1) + opaque(0.2)) == "0.30000000000000004");
  CHECK(render(opaque(9.99) - opaque(10.0)) == "-0.009999999999999787");
  CHECK(render(-0.0) == "-0.0");
  CHECK(render(opaque(1.0) / opaque(0.0)) == "inf");
  CHECK(render(opaque(-1.0) / opaque(0.0)) == "-inf");
  CHECK(render(42.0) == "42.0");
  CHECK(render(20000000000.0) == "20000000000.0");
  CHECK(render(0.0015) == "0.0015");
  CHECK(render(0.25) == "0.25");
  CHECK(render(2.5) == "2.5");
}

TEST_CASE("float_to_text: every NaN is `nan`") {
  double qnan = std::numeric_limits<double>::quiet_NaN();
  CHECK(render(qnan) == "nan");
  CHECK(render(std::copysign(qnan, -1.0)) == "nan");
  double div = opaque(0.0) / opaque(0.0);  // sign bit set on x86-64
  CHECK(render(div) == "nan");
  uint64_t bits = 0xFFF0000000000123ull;  // negative NaN with a payload
  double payload;
  std::memcpy(&payload, &bits, sizeof payload);
  CHECK(render(payload) == "nan");
}

TEST_CASE("float_to_text: fixed notation for 1e-6 <= |x| < 1e21") {
  CHECK(render(0.0) == "0.0");
  CHECK(render(1.0) == "1.0");
  CHECK(render(-1.5) == "-1.5");
  CHECK(render(1e-6) == "0.000001");
  CHECK(render(-1.5e-6) == "-0.0000015");
  CHECK(render(123.456) == "123.456");
  CHECK(render(1e20) == "100000000000000000000.0");
  CHECK(render(1.2345678901234568e20) == "123456789012345680000.0");
  CHECK(render(9.999999999999999e20) == "999999999999999900000.0");
  CHECK(render(9007199254740993.0) == "9007199254740992.0");
}

TEST_CASE("float_to_text: exponential notation outside the fixed range") {
  CHECK(render(1e21) == "1e+21");
  CHECK(render(-1e21) == "-1e+21");
  CHECK(render(1.5e21) == "1.5e+21");
  CHECK(render(1e-7) == "1e-07");
  CHECK(render(1.5e-7) == "1.5e-07");
  CHECK(render(9.99e-7) == "9.99e-07");
  CHECK(render(1e100) == "1e+100");
  CHECK(render(-1.5e300) == "-1.5e+300");
  CHECK(render(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(render(5e-324) == "5e-324");
  CHECK(render(2.2250738585072014e-308) == "2.2250738585072014e-308");
}

TEST_CASE("float_to_text round-trips through parse_float") {
  for (double f : {0.1, 1.0 / 3.0, 123456.789, 1e-300, 6.02214076e23, -2.5e-5, 1e21, 1e-7}) {
    CHECK(parse(render(f)) == f);
  }
}

TEST_CASE("parse_float: the whole text must parse, else NaN") {
  CHECK(parse("1.5") == 1.5);
  CHECK(parse("-2") == -2.0);
  CHECK(parse("+3.25") == 3.25);
  CHECK(parse("1e3") == 1000.0);
  CHECK(parse(".5") == 0.5);
  CHECK(std::signbit(parse("-0")));
  CHECK(parse("inf") == INFINITY);
  CHECK(parse("-infinity") == -INFINITY);
  CHECK(std::isnan(parse("nan")));
  CHECK(parse("1e400") == INFINITY);  // strtod overflow is a number, not garbage
  CHECK(std::isnan(parse("")));
  CHECK(std::isnan(parse("1.5x")));
  CHECK(std::isnan(parse("abc")));
  CHECK(std::isnan(parse("1.5 ")));
  CHECK(std::isnan(parse("-")));
  CHECK(std::isnan(parse(std::string_view("1\0", 2))));
  std::string ok63 = "1." + std::string(61, '0');
  CHECK(ok63.size() == 63);
  CHECK(parse(ok63) == 1.0);
  CHECK(std::isnan(parse(ok63 + "0")));  // 64 bytes
}

TEST_CASE("trunc: toward zero; non-integer values trap BOUNDS") {
  WoSite site{"conv", 4, nullptr, 0};
  CHECK(wo_trunc(2.9, &site) == 2);
  CHECK(wo_trunc(-2.9, &site) == -2);
  CHECK(wo_trunc(0.5, &site) == 0);
  CHECK(wo_trunc(-0.0, &site) == 0);
  CHECK(wo_trunc(-9223372036854775808.0, &site) == INT64_MIN);
  CHECK(wo_trunc(9223372036854774784.0, &site) == 9223372036854774784);
  for (double f : {double{NAN}, double{INFINITY}, -double{INFINITY}, 9223372036854775808.0, -9223372036854777856.0, 1e19}) {
    try {
      wo_trunc(f, &site);
      FAIL("no trap for " << f);
    } catch (const wo::Trap& t) {
      CHECK(t.code == 6);
      CHECK(t.msg == "trunc: float has no integer value");
      CHECK(t.method == "conv");
      CHECK(t.line == 4);
    }
  }
}

TEST_CASE("float(i): exact below 2^53, round-to-nearest above") {
  CHECK(wo_float_of_int(3) == 3.0);
  CHECK(wo_float_of_int(-7) == -7.0);
  CHECK(wo_float_of_int((int64_t{1} << 53) + 1) == 9007199254740992.0);
  CHECK(wo_float_of_int(INT64_MIN) == -9223372036854775808.0);
}

TEST_CASE("float_cmp: -inf < finite < +inf < NaN, -0.0 == 0.0") {
  double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(wo_float_cmp(1.0, 2.0) == -1);
  CHECK(wo_float_cmp(2.0, 1.0) == 1);
  CHECK(wo_float_cmp(2.0, 2.0) == 0);
  CHECK(wo_float_cmp(-0.0, 0.0) == 0);
  CHECK(wo_float_cmp(-INFINITY, -1e308) == -1);
  CHECK(wo_float_cmp(1e308, INFINITY) == -1);
  CHECK(wo_float_cmp(INFINITY, nan) == -1);
  CHECK(wo_float_cmp(nan, INFINITY) == 1);
  CHECK(wo_float_cmp(nan, -INFINITY) == 1);
  CHECK(wo_float_cmp(nan, nan) == 0);
  CHECK(wo_float_cmp(std::copysign(nan, -1.0), 5.0) == 1);
  CHECK(wo_float_cmp(-3.0, -2.0) == -1);
}
