// The record of one trap, wo::Trap: what trap.cpp throws and catches and
// what backtrace.cpp prints the extra lines of. A header of its own so the
// two need not include each other (trap.cpp captures the backtrace, the
// backtrace reads the record); include trap.h to raise or catch one.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wo {

// The one exception type the runtime throws for a `.wo` trap. Thrown by value,
// caught by reference (wo_start, wo_catch, tests).
struct Trap {
  Trap() = default;
  Trap(int64_t c, int64_t l, std::string fn, std::string m)
      : code(c), line(l), method(std::move(fn)), msg(std::move(m)) {}
  int64_t code = 0;
  int64_t line = 0;
  std::string method;
  std::string msg;
  // What only an uncaught trap in `main` prints (backtrace.h; never in
  // `e.msg`): the site's file and column, the values that matter ("index 7,
  // length 3") and the return addresses (of which an actor's death shows
  // the receive's frame, docs/decisions/0092).
  std::string file;
  int64_t col = 0;
  std::string detail;
  std::vector<uintptr_t> pcs;
};

}  // namespace wo
