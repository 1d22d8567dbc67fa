// Trap backtraces (backtrace.h, docs/decisions/0035). Capturing walks the
// stack with the C++ unwinder (_Unwind_Backtrace over .eh_frame: JIT'd code
// registers its frames too); symbolizing uses GCC's libbacktrace on the
// executable's own DWARF line tables (native programs, statically linked, so
// a program needs nothing installed), or the symbolizer woc run installs.
#include "backtrace.h"

#include <backtrace.h>
#include <unwind.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "trap_record.h"
#include "wo_runtime.h"

namespace wo {
namespace {

constexpr size_t kMaxPcs = 128;   // frames recorded per trap
constexpr size_t kMaxShown = 32;  // .wo frames printed
// On a receive's fiber the outermost frames matter too (the receive is
// there, under a recursion however deep): the innermost kMaxPcs - kOuterPcs
// and the outermost kOuterPcs are kept.
constexpr size_t kOuterPcs = 16;

std::atomic<WoSymbolizer> g_symbolizer{nullptr};

bool ends_with(const char* s, const char* suffix) {
  size_t n = std::strlen(s), m = std::strlen(suffix);
  return n >= m && std::memcmp(s + n - m, suffix, m) == 0;
}

struct Walk {
  std::vector<uintptr_t>* pcs;
  bool keep_outer = false;       // a receive's fiber: walk to the bottom
  uintptr_t outer[kOuterPcs] = {};  // the last frames seen past the innermost ones, a ring
  size_t outer_seen = 0;
};

_Unwind_Reason_Code on_frame(_Unwind_Context* ctx, void* arg) {
  auto* w = static_cast<Walk*>(arg);
  int before = 0;
  uintptr_t ip = _Unwind_GetIPInfo(ctx, &before);
  if (ip == 0) return _URC_END_OF_STACK;
  // A return address: the call is the byte before it (a signal frame's ip is the instruction itself).
  uintptr_t pc = before ? ip : ip - 1;
  if (!w->keep_outer) {
    w->pcs->push_back(pc);
    return w->pcs->size() >= kMaxPcs ? _URC_END_OF_STACK : _URC_NO_REASON;
  }
  if (w->pcs->size() < kMaxPcs - kOuterPcs) w->pcs->push_back(pc);
  else w->outer[w->outer_seen++ % kOuterPcs] = pc;
  return _URC_NO_REASON;
}

// libbacktrace: one state for the process (it caches the parsed DWARF).
backtrace_state* native_state() {
  static backtrace_state* state = backtrace_create_state(nullptr, 1, [](void*, const char*, int) {}, nullptr);
  return state;
}

struct Sink {
  WoFrameFn frame;
  void* ctx;
};

void native_symbolize(uintptr_t pc, WoFrameFn frame, void* ctx) {
  Sink sink{frame, ctx};
  backtrace_pcinfo(
      native_state(), pc,
      [](void* data, uintptr_t, const char* file, int line, const char* fn) -> int {
        auto* s = static_cast<Sink*>(data);
        if (file && fn) s->frame(s->ctx, fn, file, line);
        return 0;
      },
      [](void*, const char*, int) {}, &sink);
}

struct Chain {
  std::string out;
  size_t shown = 0;
  bool more = false;
};

void add_frame(void* arg, const char* fn, const char* file, int64_t line) {
  auto* c = static_cast<Chain*>(arg);
  // Runtime and C++ frames are not the program's; line 0 is a generated helper (wo_main_entry).
  if (!fn || !file || line <= 0 || !ends_with(file, ".wo")) return;
  if (c->shown == kMaxShown) {
    c->more = true;
    return;
  }
  ++c->shown;
  c->out += "    " + std::string(fn) + " at " + file + ":" + std::to_string(line) + "\n";
}

// The outermost frame with a given name (innermost frames come first, so the
// last one seen wins).
struct Outermost {
  const std::string* fn;
  std::string file;
  int64_t line = 0;
};

void outermost_frame(void* arg, const char* fn, const char* file, int64_t line) {
  auto* o = static_cast<Outermost*>(arg);
  if (!fn || !file || line <= 0 || *o->fn != fn) return;
  o->file = file;
  o->line = line;
}

}  // namespace

bool backtrace_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("WO_BACKTRACE");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

void capture_backtrace(std::vector<uintptr_t>& pcs) {
  if (!backtrace_enabled()) return;
  StackKind kind = current_stack_kind();
  if (kind == StackKind::Scheduler) return;
  pcs.reserve(kMaxPcs);
  Walk w{&pcs};
  w.keep_outer = kind == StackKind::Receive;
  _Unwind_Backtrace(on_frame, &w);
  // The outermost frames, in order (innermost first, as the others).
  size_t n = std::min(w.outer_seen, kOuterPcs);
  for (size_t i = w.outer_seen - n; i < w.outer_seen; ++i) pcs.push_back(w.outer[i % kOuterPcs]);
}

std::string trap_extra_lines(const Trap& t) {
  if (!backtrace_enabled()) return "";
  std::string out;
  if (!t.file.empty()) {
    out += "  at " + t.file + ":" + std::to_string(t.line);
    if (t.col > 0) out += ":" + std::to_string(t.col);
    out += "\n";
  }
  if (!t.detail.empty()) out += "  " + t.detail + "\n";
  WoSymbolizer sym = g_symbolizer.load();
  if (!sym) sym = native_symbolize;
  Chain chain;
  for (uintptr_t pc : t.pcs) sym(pc, add_frame, &chain);
  if (chain.shown > 0) {
    out += "  call chain, innermost first:\n" + chain.out;
    if (chain.more) out += "    ...\n";
  }
  return out;
}

std::string trap_frame_line(const Trap& t, const std::string& fn) {
  if (!backtrace_enabled()) return "";
  WoSymbolizer sym = g_symbolizer.load();
  if (!sym) sym = native_symbolize;
  Outermost o{&fn, {}, 0};
  for (uintptr_t pc : t.pcs) sym(pc, outermost_frame, &o);
  if (o.line == 0) return "";
  return "  in " + fn + " at " + o.file + ":" + std::to_string(o.line) + "\n";
}

}  // namespace wo

extern "C" void wo_set_symbolizer(WoSymbolizer symbolizer) { wo::g_symbolizer.store(symbolizer); }
