// Raising traps (wo_trap, wo_trap_msg) and turning a caught exception into
// an Error record (wo_catch).
#include <doctest/doctest.h>
#include <unwind.h>

#include <exception>
#include <new>
#include <stdexcept>

#include "runtime/src/core/trap.h"
#include "support.h"

using namespace wotest;

namespace {

// The landingpad's exception pointer for a C++ exception caught as `obj`:
// in the Itanium C++ ABI the _Unwind_Exception ends right where the thrown
// object starts. Lets a test hand wo_catch what generated code hands it.
template <class E>
void* unwind_header_of(E& obj) {
  return reinterpret_cast<_Unwind_Exception*>(static_cast<void*>(&obj)) - 1;
}

// libstdc++'s per-thread exception state (layout of __cxa_eh_globals).
struct EhGlobals {
  void* caught_exceptions;
  unsigned int uncaught_exceptions;
};
extern "C" EhGlobals* __cxa_get_globals() noexcept;

// Calls wo_catch the way generated code does, from inside a C++ handler. A
// real landing pad calls it before anything began the catch; here the test's
// own `catch` already did, so wo_catch's __cxa_begin_catch is a nested one
// (the exception's handler count goes 1 -> 2 -> 1, and the C++ handler's end
// destroys it). Every __cxa_begin_catch also decrements the thread's
// uncaught-exception count, so the nested one is compensated here.
template <class E, class Throw>
WoError* catch_as_error(Throw do_throw) {
  try {
    do_throw();
  } catch (E& e) {
    WoError* err = wo_catch(unwind_header_of(e));
    ++__cxa_get_globals()->uncaught_exceptions;
    return err;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("wo_trap raises wo::Trap with the site and the default message") {
  WoSite site{"ratio", 2, nullptr, 0};
  try {
    wo_trap(1, &site);
    FAIL("wo_trap returned");
  } catch (const wo::Trap& t) {
    CHECK(t.code == 1);
    CHECK(t.line == 2);
    CHECK(t.method == "ratio");
    CHECK(t.msg == "division by zero");
  }
}

TEST_CASE("default messages come from common/traps.def") {
  WoSite site{"f", 1, nullptr, 0};
  auto msg_of = [&](int64_t code) {
    try {
      wo_trap(code, &site);
    } catch (const wo::Trap& t) {
      return t.msg;
    }
    return std::string("(none)");
  };
  CHECK(msg_of(4) == "out of memory");
  CHECK(msg_of(6) == "index out of range");
  CHECK(msg_of(7) == "missing map key");
  CHECK(msg_of(11) == "row is still referenced (restrict)");
  CHECK(msg_of(13) == "actor failure");
}

TEST_CASE("wo_trap_msg carries its own message; NULL falls back to the default") {
  WoSite site{"lookup", 12, nullptr, 0};
  try {
    wo_trap_msg(7, &site, "custom text");
  } catch (const wo::Trap& t) {
    CHECK(t.code == 7);
    CHECK(t.line == 12);
    CHECK(t.method == "lookup");
    CHECK(t.msg == "custom text");
  }
  try {
    wo_trap_msg(7, &site, nullptr);
  } catch (const wo::Trap& t) {
    CHECK(t.msg == "missing map key");
  }
}

TEST_CASE("a trap without a site names `?` at line 0") {
  try {
    wo_trap(8, nullptr);
  } catch (const wo::Trap& t) {
    CHECK(t.method == "?");
    CHECK(t.line == 0);
    CHECK(t.msg == "explicit trap");
  }
}

TEST_CASE("wo_catch turns a trap into an owned Error {code, line, method, msg}") {
  WoSite site{"ask", 9, nullptr, 0};
  WoError* e = catch_as_error<wo::Trap>([&] { wo_trap_msg(13, &site, "actor died during call"); });
  REQUIRE(e != nullptr);
  CHECK(e->h.rc == 1);
  CHECK(e->code == 13);
  CHECK(e->line == 9);
  CHECK(str(e->method) == "ask");
  CHECK(str(e->msg) == "actor died during call");
  wo_release(e);  // releases method and msg too (LeakSanitizer)
}

TEST_CASE("wo_catch: std::bad_alloc becomes an OOM record") {
  WoError* e = catch_as_error<std::bad_alloc>([] { throw std::bad_alloc(); });
  REQUIRE(e != nullptr);
  CHECK(e->code == 4);
  CHECK(str(e->msg) == "out of memory");
  CHECK(str(e->method) == "?");
  CHECK(e->line == 0);
  wo_release(e);
}

TEST_CASE("wo_catch: any other exception becomes code 8") {
  WoError* e = catch_as_error<int>([] { throw 42; });
  REQUIRE(e != nullptr);
  CHECK(e->code == 8);
  CHECK(str(e->msg) == "foreign exception");
  wo_release(e);

  e = catch_as_error<std::runtime_error>([] { throw std::runtime_error("boom"); });
  REQUIRE(e != nullptr);
  CHECK(e->code == 8);
  CHECK(str(e->msg) == "boom");
  wo_release(e);
}

TEST_CASE("wo_catch leaves the exception machinery balanced") {
  WoSite site{"f", 3, nullptr, 0};
  for (int i = 0; i < 3; ++i) {
    WoError* e = catch_as_error<wo::Trap>([&] { wo_trap(6, &site); });
    REQUIRE(e != nullptr);
    wo_release(e);
    CHECK(std::uncaught_exceptions() == 0);
    CHECK(std::current_exception() == nullptr);
  }
}

TEST_CASE("current_trap and make_error (the helper behind wo_catch)") {
  WoSite site{"inner", 44, nullptr, 0};
  WoError* e = nullptr;
  try {
    wo_trap(12, &site);
  } catch (...) {
    e = wo::make_error(wo::current_trap());
  }
  REQUIRE(e != nullptr);
  CHECK(e->code == 12);
  CHECK(e->line == 44);
  CHECK(str(e->method) == "inner");
  CHECK(str(e->msg) == "shift count out of range");
  wo_release(e);
}
