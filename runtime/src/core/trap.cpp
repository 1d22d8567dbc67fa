// Raising traps (wo_trap, wo_trap_msg and the internal helpers of trap.h) and
// catching them from generated code (wo_catch).
//
// wo_catch is called by a catch-all landing pad with the landingpad's raw
// exception pointer (the _Unwind_Exception*). It does exactly what a C++
// `catch (...)` does: __cxa_begin_catch, then identifies the in-flight
// exception by rethrowing it inside a local try (`throw;` rethrows the
// exception begun last), builds the Error record, and __cxa_end_catch, which
// destroys the exception object. Works for foreign exceptions too.
#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <typeinfo>

#include "common/traps.h"
#include "backtrace.h"
#include "fiber_unwind.h"
#include "heap.h"
#include "heap_cap.h"
#include "trap.h"

namespace wo {

[[noreturn]] void raise(int64_t code, const WoSite* site, const char* msg, std::string detail) {
  const char* fn = site && site->fn ? site->fn : kNoSiteFn;
  int64_t line = site ? site->line : 0;
  Trap t{code, line, fn, msg ? msg : trap_default_message(code)};
  if (site && site->file) {
    t.file = site->file;
    t.col = site->col;
  }
  t.detail = std::move(detail);
  capture_backtrace(t.pcs);
  throw t;
}

std::string index_detail(int64_t index, int64_t length) {
  return "index " + std::to_string(index) + ", length " + std::to_string(length);
}

// When the heap's ceiling refused (heap_cap.h), an uncaught trap's detail
// line says so: the message stays "out of memory" (runtime.md §4.1).
[[noreturn]] void raise_oom() {
  std::string detail;
  if (heap_cap_refused()) {
    constexpr int64_t kMiB = int64_t{1} << 20;
    detail = "the VM heap's ceiling: " + std::to_string(heap_cap_bytes() / kMiB) + " MiB (WO_HEAP_MB" +
             (std::getenv("WO_HEAP_MB") && *std::getenv("WO_HEAP_MB") ? "" : " unset: half of the memory limit") +
             "), " + std::to_string(heap_used_bytes() / kMiB) + " MiB in use";
  }
  raise(static_cast<int64_t>(TrapCode::OOM), nullptr, nullptr, std::move(detail));
}

[[noreturn]] void raise_null_receiver(const WoSite* site) {
  raise(static_cast<int64_t>(TrapCode::BOUNDS), site, kNullReceiverMessage);
}

Trap current_trap() noexcept {
  try {
    throw;
  } catch (const Trap& t) {
    return t;
  } catch (const std::bad_alloc&) {
    return Trap{static_cast<int64_t>(TrapCode::OOM), 0, kNoSiteFn,
                trap_default_message(static_cast<int64_t>(TrapCode::OOM))};
  } catch (const std::exception& e) {
    return Trap{static_cast<int64_t>(TrapCode::EXPLICIT), 0, kNoSiteFn, e.what()};
  } catch (...) {
    return Trap{static_cast<int64_t>(TrapCode::EXPLICIT), 0, kNoSiteFn, "foreign exception"};
  }
}

namespace {
void destroy_error(void* self) {
  auto* e = static_cast<WoError*>(self);
  wo_release(e->method);
  wo_release(e->msg);
}
}  // namespace

WoError* make_error(const Trap& t) {
  auto* e = static_cast<WoError*>(wo_alloc(sizeof(WoError), destroy_error));
  OwnedGuard guard(e);
  e->code = t.code;
  e->line = t.line;
  e->method = text_from(t.method.data(), t.method.size());
  e->msg = text_from(t.msg.data(), t.msg.size());
  guard.disown();
  return e;
}

namespace {
// noexcept: running out of memory while building the record of a trap is
// beyond recovery (std::terminate); so the heap's ceiling does not apply
// to it (heap_cap.h): the trap being caught may be that ceiling's.
WoError* error_from_current_exception() noexcept {
  HeapCapExempt exempt;
  return make_error(current_trap());
}
}  // namespace

}  // namespace wo

extern "C" {

void wo_trap(int64_t code, const WoSite* site) { wo::raise(code, site, nullptr); }

void wo_trap_msg(int64_t code, const WoSite* site, const char* msg) {
  wo::raise(code, site, msg);
}

// The fiber-unwind exception (fiber_unwind.h) is not a trap: it is rethrown, so the
// unwinding goes on past the `try` (the landing pad's invoke of wo_catch
// leads to the enclosing cleanups), exactly as `catch (...) { throw; }`.
WoError* wo_catch(void* exception) {
  __cxxabiv1::__cxa_begin_catch(exception);
  struct EndCatch {
    ~EndCatch() { __cxxabiv1::__cxa_end_catch(); }
  } end_catch;
  const std::type_info* type = __cxxabiv1::__cxa_current_exception_type();
  if (type && *type == typeid(wo::sched::Unwind)) throw;
  return wo::error_from_current_exception();
}

}  // extern "C"
