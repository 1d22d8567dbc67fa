// The C ABI between generated code and the woc runtime.
//
// Generated code knows the runtime only through this header (and the tables in
// common/*.def). Every symbol is `extern "C"` and prefixed `wo_`.
//
// Value representation (see docs/decisions/0001-value-representation.md):
//   Int, Timestamp, Id   int64_t
//   Bool                 bool (i1 zeroext in IR)
//   Float                double
//   Text, multi, class   pointer to a heap object that starts with WoHeader
//   list element slot    uint64_t (Int as-is, Float as its bits, Bool 0/1,
//                        heap values as the pointer)
// Heap objects are reference counted (non-atomic: an object never crosses
// threads by pointer). rc < 0 marks an immortal object (text literals emitted
// as constants by codegen); retain/release leave those alone.
#ifndef WO_RUNTIME_H
#define WO_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct WoHeader {
  int64_t rc;                    // reference count; < 0 means immortal
  void (*destroy)(void* self);   // releases what the object holds (not the object itself); may be NULL
} WoHeader;

typedef struct WoText {
  WoHeader h;
  int64_t len;
  char bytes[];                  // len bytes, then a NUL (not counted) for C interop
} WoText;

// Element kinds of a list, so the list can release its elements.
enum { WO_ELEM_SCALAR = 0, WO_ELEM_HEAP = 1 };

typedef struct WoList {
  WoHeader h;
  int64_t len;
  int64_t cap;
  int64_t elem_kind;             // WO_ELEM_SCALAR or WO_ELEM_HEAP
  uint64_t* data;
} WoList;

// Where a trap is raised: emitted by codegen as a constant per call site.
typedef struct WoSite {
  const char* fn;                // the .wo function or method name
  int64_t line;                  // 1-based source line
} WoSite;

// The predeclared `Error` record bound by `catch (e)`: fields in spec order.
typedef struct WoError {
  WoHeader h;
  int64_t code;
  int64_t line;
  WoText* method;
  WoText* msg;
} WoError;

// ---- memory ---------------------------------------------------------------
// `size` counts the whole object, WoHeader included. Allocation failure
// raises the OOM trap (4) everywhere in the runtime.
void* wo_alloc(int64_t size, void (*destroy)(void*));  // rc = 1, zeroed payload
void wo_retain(void* obj);                             // NULL-safe
void wo_release(void* obj);                            // NULL-safe; destroys and frees at 0

// ---- traps ----------------------------------------------------------------
// Raise trap `code` (traps.def) at `site` with the default message / a message.
[[noreturn]] void wo_trap(int64_t code, const WoSite* site);
[[noreturn]] void wo_trap_msg(int64_t code, const WoSite* site, const char* msg);
// Called from a landing pad of `try ... catch`: takes the in-flight exception
// object (first value of the landingpad), ends the catch, returns an owned Error.
// Exceptions that are not traps (std::bad_alloc) become OOM traps.
WoError* wo_catch(void* exception);

// ---- stack depth ------------------------------------------------------------
// Generated functions compare their frame address with this limit on entry and
// raise STACK (3) below it, so runaway recursion is a catchable trap, not a
// crash. Set by wo_start from the thread's stack size, with a margin that
// leaves room to unwind.
extern uintptr_t wo_stack_limit;

// ---- program entry ----------------------------------------------------------
// Runs `entry` with the program's arguments (a multi Text; argv[0] excluded)
// and turns an uncaught trap into the one stderr line + exit status 1.
// Returns the process exit status (already masked with 0xFF). `args` is
// borrowed by `entry`; the runtime releases it after `entry` returns or traps.
typedef int64_t (*WoEntry)(WoList* args);
int wo_start(int argc, char** argv, WoEntry entry);

// ---- text -----------------------------------------------------------------
WoText* wo_text_new(const char* bytes, int64_t len);   // owned
WoText* wo_concat(WoText* a, WoText* b);               // owned
// `a .. b` that consumes `a` (owned) and borrows `b`; returns the owned
// result. When `a` is uniquely owned (rc == 1) it is extended in place with
// geometric growth, so `s = s .. x` in a loop is amortised O(len(x)). The
// caller must hold no other pointer to `a` (b == a is allowed).
WoText* wo_text_append(WoText* a, WoText* b);
bool wo_text_eq(WoText* a, WoText* b);
int64_t wo_text_cmp(WoText* a, WoText* b);             // -1/0/1, bytewise

// ---- builtins (common/builtins.def) -------------------------------------------
void wo_print(WoText* t);
void wo_print_err(WoText* t);
void wo_print_int(int64_t n);
int64_t wo_now(void);
WoText* wo_int_to_text(int64_t n);
WoText* wo_float_to_text(double f);
double wo_float_of_int(int64_t n);
int64_t wo_trunc(double f, const WoSite* site);
double wo_parse_float(WoText* t);
int64_t wo_float_cmp(double a, double b);
int64_t wo_text_len(WoText* t);
int64_t wo_words(WoText* t);
int64_t wo_byte_at(WoText* t, int64_t i, const WoSite* site);
WoText* wo_char_of(int64_t b);
WoText* wo_substr(WoText* t, int64_t start, int64_t count);
WoText* wo_trim(WoText* t);
WoText* wo_to_lower(WoText* t);
bool wo_starts_with(WoText* t, WoText* p);
bool wo_ends_with(WoText* t, WoText* s);
int64_t wo_index_of(WoText* t, WoText* n);
int64_t wo_last_index_of(WoText* t, WoText* n);
WoList* wo_split(WoText* t, WoText* sep, const WoSite* site);
WoList* wo_split_ws(WoText* t);
WoText* wo_join(WoList* xs, WoText* sep);

// ---- lists ----------------------------------------------------------------
// push/set take ownership of `v` even when they trap (the list releases it).
WoList* wo_list_new(int64_t elem_kind, int64_t capacity);   // owned, empty
int64_t wo_list_len(WoList* xs);
void wo_list_push(WoList* xs, uint64_t v);                   // takes ownership of v
uint64_t wo_list_get(WoList* xs, int64_t i, const WoSite* site);   // borrowed
uint64_t wo_list_latest(WoList* xs, const WoSite* site);           // borrowed
uint64_t wo_list_pop(WoList* xs, const WoSite* site);              // owned
void wo_list_set(WoList* xs, int64_t i, uint64_t v, const WoSite* site);  // takes v, releases old

#ifdef __cplusplus
}
#endif
#endif
