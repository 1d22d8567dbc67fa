// print, print_err, print_int (one line each) and now().
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "support.h"

using namespace wotest;

TEST_CASE("print writes the bytes and a newline to stdout") {
  std::string out = capture_fd(1, [] {
    wo_print(OText(text("hello")));
    wo_print(OText(text("")));
    wo_print(OText(text(std::string_view("a\0b", 3))));
  });
  CHECK(out == std::string("hello\n\na\0b\n", 11));
}

TEST_CASE("print handles long lines") {
  std::string long_line(5000, 'x');
  std::string out = capture_fd(1, [&] { wo_print(OText(text(long_line))); });
  CHECK(out == long_line + "\n");
}

TEST_CASE("print_err writes to stderr") {
  std::string err = capture_fd(2, [] { wo_print_err(OText(text("oops"))); });
  CHECK(err == "oops\n");
}

TEST_CASE("print_int: decimal, leading minus, no padding") {
  std::string out = capture_fd(1, [] {
    wo_print_int(0);
    wo_print_int(42);
    wo_print_int(-7);
    wo_print_int(1);  // a Bool true
    wo_print_int(INT64_MIN);
    wo_print_int(INT64_MAX);
  });
  CHECK(out == "0\n42\n-7\n1\n-9223372036854775808\n9223372036854775807\n");
}

TEST_CASE("now() is wall-clock milliseconds since the epoch") {
  // std::chrono's system clock, not std::time: glibc's time() reads the
  // coarse clock, which can still be in the previous second when wo_now()
  // (the precise one) is already in the next.
  auto wall_ms = [] {
    return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count());
  };
  int64_t before = wall_ms();
  int64_t n = wo_now();
  int64_t after = wall_ms();
  CHECK(n >= before);
  CHECK(n <= after);
  CHECK(wo_now() >= n);
}
