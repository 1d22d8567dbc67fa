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

// Element kinds of a list (and key/value kinds of a map): tell the runtime
// whether a slot owns a heap value (bit 0 set: released on destroy and on
// overwrite) and how slots order (`sort`). Values 0 and 1 keep their original
// meaning, so code that only knows SCALAR/HEAP still gets correct ownership.
enum {
  WO_ELEM_SCALAR = 0,            // Int, Bool, Timestamp, Id: ordered as signed int64
  WO_ELEM_INT = 0,               //   (the same kind, by its other name)
  WO_ELEM_HEAP = 1,              // owned objects with no order: class, multi, map, payload union
  WO_ELEM_FLOAT = 2,             // Float bits: ordered by wo_float_cmp (total order)
  WO_ELEM_TEXT = 3,              // Text (heap): ordered bytewise, shorter prefix first
  WO_ELEM_BYTES = 5              // Bytes (heap): ordered bytewise, shorter prefix first
};
#define WO_ELEM_IS_HEAP(kind) (((kind) & 1) != 0)

// `multi T`. `data[0 .. len)` are the elements; the allocation may start
// `off` slots before `data` (room left by `shift`, reused on growth).
typedef struct WoList {
  WoHeader h;
  int64_t len;
  int64_t cap;                   // slots available from `data` on
  int64_t elem_kind;             // a WO_ELEM_* kind
  uint64_t* data;
  int64_t off;                   // slots freed at the front by shift (allocation = data - off)
} WoList;

// `map<K, V>`: insertion-ordered hash map. Generated code reads nothing but
// `len` directly; everything else is private to the runtime (map.cpp).
typedef struct WoMapEntry WoMapEntry;
typedef struct WoMap {
  WoHeader h;
  int64_t len;                   // live entries
  int64_t key_kind;              // WO_ELEM_INT or WO_ELEM_TEXT
  int64_t val_kind;              // any WO_ELEM_* kind
  int64_t used;                  // entry slots in use (live + removed)
  int64_t cap;                   // entry slots allocated
  WoMapEntry* entries;           // insertion order; removed entries are holes until compaction
  uint32_t* index;               // open-addressing table of entry numbers + 1 (0 empty)
  int64_t index_mask;            // index size - 1 (size is a power of two), or -1 before the first set
  int64_t hint;                  // 1 + the entry the last read found (0: none): `m[k] = f(m[k])` skips a second probe
} WoMap;

// `Bytes`: the same layout as WoText (header, len, bytes, a NUL not counted)
// but a distinct static type; no run-time tag (sema keeps Text and Bytes
// apart). Immutable, so a Text and a Bytes may share one object.
typedef struct WoBytes {
  WoHeader h;
  int64_t len;
  char bytes[];
} WoBytes;

// The nil of a `?T` (builtins.md §1.2) as it crosses the ABI in a 64-bit word:
// Int-shaped and Bool scalars use WO_NIL_SCALAR, Float the quiet-NaN payload
// WO_NIL_FLOAT_BITS (compare bits, not values), heap values NULL.
#define WO_NIL_SCALAR ((int64_t)(-(INT64_C(1) << 62)))
#define WO_NIL_FLOAT_BITS UINT64_C(0x7FF8000000000EE1)

// Where a trap is raised: emitted by codegen as a constant per call site.
typedef struct WoSite {
  const char* fn;                // the .wo function or method name
  int64_t line;                  // 1-based source line
  const char* file;              // the source file's absolute path (NULL: unknown)
  int64_t col;                   // 1-based column (0: unknown)
} WoSite;

// The predeclared `Error` record bound by `catch (e)`: fields in spec order.
typedef struct WoError {
  WoHeader h;
  int64_t code;
  int64_t line;
  WoText* method;
  WoText* msg;
} WoError;

// The other predeclared records the runtime builds (builtins.md §11): a header
// then one 8-byte slot per field in spec order (Int as int64, Bool as int64
// 0/1, Text as an owned WoText*). Their destroy functions are the runtime's.
typedef struct WoStat {          // fs.stat
  WoHeader h;
  int64_t size;
  int64_t mtime;                 // ms since the epoch, second resolution
  int64_t inode;
  int64_t dir;                   // Bool
} WoStat;

typedef struct WoTimeParts {     // time.local
  WoHeader h;
  int64_t year;
  int64_t month;                 // 1..12
  int64_t day;                   // 1..31
  int64_t hour;
  int64_t minute;
  int64_t second;
  int64_t dow;                   // 0 = Sunday
} WoTimeParts;

typedef struct WoProc {          // proc.run, proc.run_dl
  WoHeader h;
  int64_t code;                  // exit status; -1 killed by a signal; 127 exec failed
  WoText* out;
  WoText* err;
} WoProc;

typedef struct WoRawRequest {    // net.read_request (the HTTP ABI of issue 9; runtime/src/http/)
  WoHeader h;
  int64_t status;                // 0 one request; -1 clean close; else 400 / 413 / 431 to answer
  WoText* method;                // as sent ("" unless status 0)
  WoText* target;                // the raw request-target, not decoded
  WoMap* headers;                // map<Text, Text>: names lowercased, values trimmed, last wins
  WoText* body;                  // exactly Content-Length bytes
  WoText* rest;                  // bytes read after this request (pipelining): the next carry
  int64_t keep_alive;            // Bool: llhttp_should_keep_alive
  WoText* error;                 // why, in a few words ("" when status is 0)
} WoRawRequest;

typedef struct WoRawResponse {   // net.read_response (the HTTP client's half; runtime/src/http/read_response.cpp)
  WoHeader h;
  int64_t status;                // 100..599: a whole response; 0: none, `error` says why
  WoText* reason;                // the reason phrase as sent
  WoMap* headers;                // map<Text, Text>: names lowercased, values trimmed, last wins
  WoText* body;                  // decoded (Content-Length, chunked or up to the close)
  WoText* rest;                  // bytes read after this response
  int64_t keep_alive;            // Bool: llhttp_should_keep_alive
  WoText* error;                 // why, in a few words ("" when status > 0)
} WoRawResponse;

// ---- type descriptors (json.encode / json.decode) ----------------------------
// Emitted by codegen as constants, one per type that reaches a json call.
// Where a value lives, and how wide it is:
//   INT        int64 (Int, Timestamp, Id)
//   FLOAT      double
//   BOOL       one byte 0/1 in a class field or value slot (the low byte of a
//              64-bit list/map slot, which holds 0/1)
//   TEXT, BYTES, JSON_VALUE, CLASS, LIST, MAP   a pointer (NULL = nil)
//   NULLABLE   a 64-bit word: the inner value, or its nil (WO_NIL_SCALAR for
//              Int/Bool, WO_NIL_FLOAT_BITS for Float, NULL for heap values)
// JSON_VALUE is a Text holding one raw JSON value (json.Value).
enum {
  WO_TY_INT = 0,
  WO_TY_FLOAT = 1,
  WO_TY_BOOL = 2,
  WO_TY_TEXT = 3,
  WO_TY_BYTES = 4,
  WO_TY_CLASS = 5,               // `cls` set
  WO_TY_LIST = 6,                // `elem` = element type
  WO_TY_MAP = 7,                 // `elem` = key type (INT or TEXT), `value` = value type
  WO_TY_NULLABLE = 8,            // `elem` = the non-nullable inner type
  WO_TY_JSON_VALUE = 9,
  WO_TY_UNION = 10,              // a payload union (a pointer): `variants[tag]` lays out each variant
  WO_TY_ACTOR = 11,              // an actor address: a pointer to a counted handle (wo_actor.h), NULL = nil
  // An interface value: a pointer to a box { WoHeader, obj, vtable } (NULL =
  // nil). Slot 0 of every vtable is the WoClassDesc of the boxed object's
  // dynamic class, so the box can be deep-copied without its static type
  // naming the class (the methods follow from slot 1).
  WO_TY_IFACE = 12
};

struct WoClassDesc;
typedef struct WoTypeDesc {
  int64_t kind;                  // WO_TY_*
  const struct WoTypeDesc* elem;
  const struct WoTypeDesc* value;
  // WO_TY_CLASS: the class. WO_TY_INT with `cls` set: a @table row, which
  // is its id everywhere but JSON (docs/decisions/0088): json.encode writes
  // the row's id as "id" (when the class's `size` is 1: no column has that
  // name) and its stored columns (each field's `offset` is its column
  // number, `nvariants` the table's class index); json.decode takes the id
  // of a row that exists.
  const struct WoClassDesc* cls;
  // WO_TY_UNION: one class descriptor per variant, indexed by the tag (the
  // int64 right after the header); a variant's fields carry their offsets
  // from the start of the object. Bare variants are immortal constants
  // (nfields 0). A bare-only union is a plain tag and described as WO_TY_INT.
  int64_t nvariants;
  const struct WoClassDesc* variants;
} WoTypeDesc;

typedef struct WoFieldDesc {
  const char* name;              // NUL-terminated, the JSON key
  const WoTypeDesc* type;
  int64_t offset;                // byte offset from the start of the object
} WoFieldDesc;

typedef struct WoClassDesc {
  const char* name;
  int64_t size;                  // whole object, header included (for wo_alloc)
  void (*destroy)(void* self);   // what wo_alloc is given for this class
  int64_t nfields;
  const WoFieldDesc* fields;     // declaration order
} WoClassDesc;

// ---- memory ---------------------------------------------------------------
// `size` counts the whole object, WoHeader included. Allocation failure
// raises the OOM trap (4) everywhere in the runtime.
void* wo_alloc(int64_t size, void (*destroy)(void*));  // rc = 1, zeroed payload
void wo_retain(void* obj);                             // NULL-safe
void wo_release(void* obj);                            // NULL-safe; destroys and frees at 0

// ---- the cycle collector (docs/decisions/0009-cycle-collector.md) ------------
// Objects of traced classes (those that can form reference cycles, language.md
// §15.6) are allocated with wo_alloc_traced and tracked; wo_gc_collect finds
// groups of them that only reference each other (trial deletion over the
// counts) and frees them. Generated code registers, for each of its destroy
// functions that can sit on a cycle, a trace function listing the object's
// heap slots; lists and maps are known to the runtime. A traced class's
// destroy function calls wo_gc_forget(self) first.
typedef void (*WoVisit)(void** slot, void* ctx);
typedef void (*WoTrace)(void* obj, WoVisit visit, void* ctx);
void wo_gc_register(void (*destroy)(void*), WoTrace trace);
void* wo_alloc_traced(int64_t size, void (*destroy)(void*));  // like wo_alloc, tracked
void wo_gc_forget(void* obj);
void wo_gc_collect(void);
int64_t wo_gc_tracked(void);  // live traced objects (for tests)

// ---- traps ----------------------------------------------------------------
// Raise trap `code` (traps.def) at `site` with the default message / a message.
[[noreturn]] void wo_trap(int64_t code, const WoSite* site);
[[noreturn]] void wo_trap_msg(int64_t code, const WoSite* site, const char* msg);
// How an uncaught trap's call chain is symbolized (runtime/src/core/backtrace.cpp):
// a symbolizer calls `frame` for each .wo frame at code address `pc`,
// innermost (inlined) first. Native programs read their own line tables;
// `woc run` installs one that reads the JIT's debug objects.
typedef void (*WoFrameFn)(void* ctx, const char* fn, const char* file, int64_t line);
typedef void (*WoSymbolizer)(uintptr_t pc, WoFrameFn frame, void* ctx);
void wo_set_symbolizer(WoSymbolizer symbolizer);
// Called from a landing pad of `try ... catch`: takes the in-flight exception
// object (first value of the landingpad), ends the catch, returns an owned Error.
// Exceptions that are not traps (std::bad_alloc) become OOM traps.
WoError* wo_catch(void* exception);

// ---- stack depth ------------------------------------------------------------
// Generated functions compare their frame address with the running fiber's
// WoFiberLocal.stack_limit (wo_actor.h) on entry and raise STACK (3) below
// it, so runaway recursion is a catchable trap, not a crash. The runtime sets
// it from the stack of `main`'s thread (with a margin that leaves room to
// unwind) and from each fiber's stack.

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
// `p0 .. p1 .. … .. pn-1` in one allocation (codegen flattens `..` chains).
WoText* wo_concat_n(WoText* const* parts, int64_t n);  // owned
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
// assert / assert_eq (runtime/src/builtins/assert.cpp): a failed check traps EXPLICIT (8).
void wo_assert(bool cond, WoText* msg, const WoSite* site);
void wo_assert_eq_bool(bool a, bool b, const WoSite* site);
void wo_assert_eq_int(int64_t a, int64_t b, const WoSite* site);
void wo_assert_eq_float(double a, double b, const WoSite* site);
void wo_assert_eq_text(WoText* a, WoText* b, const WoSite* site);
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
// ?Int: WO_NIL_SCALAR when there are no digits or the value overflows int64.
int64_t wo_parse_int(WoText* t);

// ---- lists ----------------------------------------------------------------
// push/set take ownership of `v` even when they trap (the list releases it).
WoList* wo_list_new(int64_t elem_kind, int64_t capacity);   // owned, empty
int64_t wo_list_len(WoList* xs);
void wo_list_push(WoList* xs, uint64_t v);                   // takes ownership of v
uint64_t wo_list_get(WoList* xs, int64_t i, const WoSite* site);   // borrowed
uint64_t wo_list_latest(WoList* xs, const WoSite* site);           // borrowed
uint64_t wo_list_pop(WoList* xs, const WoSite* site);              // owned
uint64_t wo_list_shift(WoList* xs, const WoSite* site);            // owned; O(1)
void wo_list_set(WoList* xs, int64_t i, uint64_t v, const WoSite* site);  // takes v, releases old
// A new list of elements [from, to), both clamped to [0, len] (to < from:
// empty). Text/Bytes elements are shared (immutable); WO_ELEM_HEAP lists
// trap BOUNDS `wrong container type`.
WoList* wo_list_slice(WoList* xs, int64_t from, int64_t to, const WoSite* site);
// In place, stable. SCALAR: signed int64; FLOAT: wo_float_cmp; TEXT/BYTES:
// bytes, shorter prefix first; WO_ELEM_HEAP traps BOUNDS `wrong container type`.
void wo_list_sort(WoList* xs, const WoSite* site);
void wo_list_reverse(WoList* xs);

// ---- maps -----------------------------------------------------------------
// Keys and values cross as 64-bit slots (Int as-is, Text as the pointer).
// A new Text key is retained by the map (the caller keeps its reference); a
// replaced entry keeps its original key object. `set` takes ownership of the
// value even when it traps; the replaced value is released. Reads lend.
// Order: insertion order of the live keys; a removed key that is set again
// goes to the end. A nil Text key is never present (lookups miss, `set`
// traps BOUNDS `null receiver`).
WoMap* wo_map_new(int64_t key_kind, int64_t val_kind);       // owned, empty
int64_t wo_map_len(WoMap* m);
bool wo_map_has(WoMap* m, uint64_t key);
uint64_t wo_map_get(WoMap* m, uint64_t key, const WoSite* site);  // borrowed; KEY 7 when absent
// `m[k]` (?V): the value (borrowed) or the nil of val_kind (NULL for heap
// kinds, WO_NIL_FLOAT_BITS for FLOAT, WO_NIL_SCALAR otherwise).
uint64_t wo_map_get_opt(WoMap* m, uint64_t key);
bool wo_map_find(WoMap* m, uint64_t key, uint64_t* out);  // found flag; *out borrowed
void wo_map_set(WoMap* m, uint64_t key, uint64_t val, const WoSite* site);
bool wo_map_remove(WoMap* m, uint64_t key);              // releases key and value
uint64_t wo_map_key_at(WoMap* m, int64_t i, const WoSite* site);  // borrowed; BOUNDS
uint64_t wo_map_val_at(WoMap* m, int64_t i, const WoSite* site);  // borrowed; BOUNDS
// Iteration (`for k, v in m`): the first live entry at a position >= pos, its
// key and value lent through *key / *val; returns its position, or -1 at the
// end. Loop: p = wo_map_iter(m, 0, &k, &v); while (p >= 0) { body;
// p = wo_map_iter(m, p + 1, &k, &v); }. Removing entries during the loop
// is memory-safe and keeps positions (the rest is visited in order); adding
// keys is memory-safe but may compact the entries, so the loop may then skip
// or revisit some. k/v are lent: replacing or removing the current entry
// releases them.
int64_t wo_map_iter(WoMap* m, int64_t pos, uint64_t* key, uint64_t* val);

// ---- Bytes, base64, digests (builtins.md §5) ---------------------------------
WoBytes* wo_bytes_new(const char* bytes, int64_t len);       // owned copy
WoBytes* wo_bytes_of_text(WoText* t);                        // owned (may share t)
WoText* wo_text_of_bytes(WoBytes* b);                        // owned (may share b)
int64_t wo_bytes_len(WoBytes* b);
int64_t wo_bytes_at(WoBytes* b, int64_t i, const WoSite* site);   // BOUNDS
WoBytes* wo_bytes_slice(WoBytes* b, int64_t start, int64_t n);    // clamped like substr
WoBytes* wo_bytes_concat(WoBytes* a, WoBytes* b);                 // > 4 GiB traps OOM
bool wo_bytes_eq(WoBytes* a, WoBytes* b);
WoText* wo_base64_encode(WoBytes* b);
WoBytes* wo_base64_decode(WoText* t);                        // NULL (nil) when malformed
WoBytes* wo_sha1(WoBytes* b);                                // 20 bytes
WoBytes* wo_sha256(WoBytes* b);                              // 32 bytes
WoBytes* wo_hmac_sha256(WoBytes* key, WoBytes* msg);         // 32 bytes

// ---- time, env (builtins.md §8) -----------------------------------------------
// time.now is wo_now.
int64_t wo_time_ticks(void);                                 // CLOCK_MONOTONIC, µs
void wo_time_sleep(int64_t ms, const WoSite* site);   // parks the fiber; DB trap inside a transaction
WoTimeParts* wo_time_local(int64_t ms, const WoSite* site); // BOUNDS if not representable
WoText* wo_time_iso(int64_t ms);                             // UTC `YYYY-MM-DDTHH:MM:SSZ`
WoText* wo_env_get(WoText* name);                            // NULL when unset
bool wo_env_stopping(void);

// ---- net (framework.md §1.2; runtime/src/net/) ----------------------------------
// Connections are plain fds. Blocking calls park the calling fiber on its
// shard's event loop; `_dl` variants take a deadline in ms (<= 0: none) and
// return nil / false when it passes. OS failures trap IO with the OS text;
// parking inside a transaction traps DB.
int64_t wo_net_listen(WoText* host, int64_t port, const WoSite* site);   // IPv4, SO_REUSEADDR, backlog 64
int64_t wo_net_listen_unix(WoText* path, const WoSite* site);           // unlinks a stale socket file first
int64_t wo_net_accept(int64_t fd, const WoSite* site);
int64_t wo_net_accept_dl(int64_t fd, int64_t ms, const WoSite* site);   // ?Int: WO_NIL_SCALAR at the deadline
WoText* wo_net_read(int64_t fd, int64_t max, const WoSite* site);       // "" at EOF
WoText* wo_net_read_dl(int64_t fd, int64_t max, int64_t ms, const WoSite* site);  // NULL at the deadline
void wo_net_write(int64_t fd, WoText* text, const WoSite* site);        // every byte
bool wo_net_write_dl(int64_t fd, WoText* text, int64_t ms, const WoSite* site);   // false: torn at the deadline
void wo_net_close(int64_t fd, const WoSite* site);
WoText* wo_net_peer(int64_t fd);                                         // "ip:port", "unix" or ""
// An outbound TCP connection to `host` (IPv4, IPv6 or a name resolved through
// c-ares) at `port` 1..65535, a non-blocking fd as net.accept's; refused,
// unreachable or unresolvable traps IO (docs/decisions/0085).
int64_t wo_net_connect(WoText* host, int64_t port, const WoSite* site);
int64_t wo_net_connect_dl(WoText* host, int64_t port, int64_t ms, const WoSite* site);  // ?Int: WO_NIL_SCALAR at the deadline
// TLS (docs/decisions/0086): a connection after a client handshake that
// checks the server's certificate against the system store (WO_CA_BUNDLE),
// a CA file, or (insecure) not at all; a server handshake on the next
// accepted connection or on one already accepted. The result is read,
// written and closed with the plain net builtins.
int64_t wo_net_connect_tls(WoText* host, int64_t port, const WoSite* site);
int64_t wo_net_connect_tls_dl(WoText* host, int64_t port, int64_t ms, const WoSite* site);
int64_t wo_net_connect_tls_ca_dl(WoText* host, int64_t port, WoText* ca_file, int64_t ms, const WoSite* site);
int64_t wo_net_connect_tls_insecure_dl(WoText* host, int64_t port, int64_t ms, const WoSite* site);
int64_t wo_net_accept_tls(int64_t listener, WoText* cert, WoText* key, const WoSite* site);
int64_t wo_net_accept_tls_dl(int64_t listener, WoText* cert, WoText* key, int64_t ms, const WoSite* site);
bool wo_net_tls_server(int64_t conn, WoText* cert, WoText* key, int64_t ms, const WoSite* site);  // false at the deadline
// HTTP/1.1 framing (runtime/src/http/README.md, docs/decisions/0023). `carry`:
// bytes already read on the connection; `first_ms` bounds the wait for the
// first byte, `read_ms` every later read (<= 0: none). Never NULL.
// One HTTP/1.1 response (llhttp): `carry` is what an earlier read left,
// `head_only` for the answer to HEAD, `max_body` bytes at most, the whole
// response within `ms` (<= 0: no deadline). Failures are records (status 0).
WoRawResponse* wo_net_read_response(int64_t fd, WoText* carry, bool head_only, int64_t max_body, int64_t ms,
                                    const WoSite* site);
WoRawRequest* wo_net_read_request(int64_t fd, WoText* carry, int64_t first_ms, int64_t read_ms,
                                  const WoSite* site);
// `headers` is a map<Text, Text> (sema enforces it). False when the deadline
// passed mid-write or the peer is gone; CR/LF in a header traps IO.
bool wo_net_write_response(int64_t fd, int64_t status, WoMap* headers, WoText* body, bool head_only,
                           bool keep_alive, int64_t ms, const WoSite* site);
// A connection set (runtime/src/http/conns.cpp, docs/decisions/0082): one
// fiber serves every connection of a listener, one request at a time.
// Handles are the set's epoll fd, valid on the opening thread only.
int64_t wo_net_conns_open(int64_t listener, int64_t first_ms, int64_t read_ms, const WoSite* site);
// The same with a TLS server handshake on every connection first (PEM
// certificate chain and key; files that cannot be used trap IO here).
int64_t wo_net_conns_open_tls(int64_t listener, int64_t first_ms, int64_t read_ms, WoText* cert, WoText* key,
                              const WoSite* site);
int64_t wo_net_conns_next(int64_t set, int64_t ms, const WoSite* site);      // ?Int conn: WO_NIL_SCALAR when none
WoRawRequest* wo_net_conns_take(int64_t set, int64_t conn, const WoSite* site);  // status -1: nothing to take
int64_t wo_net_conns_served(int64_t set, int64_t conn, const WoSite* site);   // answers so far (-1: unknown)
bool wo_net_conns_respond(int64_t set, int64_t conn, int64_t status, WoMap* headers, WoText* body, bool head_only,
                          bool keep_alive, const WoSite* site);              // false: the connection is gone
void wo_net_conns_release(int64_t set, int64_t conn, const WoSite* site);    // forgotten, not closed
void wo_net_conns_close(int64_t set, const WoSite* site);                    // every connection closed

// ---- fs, proc (builtins.md §9) --------------------------------------------------
// OS failures trap IO (9) with strerror(errno) as the message.
bool wo_fs_exists(WoText* path);
WoList* wo_fs_list(WoText* dir, const WoSite* site);          // names sorted bytewise
WoStat* wo_fs_stat(WoText* path);                            // NULL when stat fails
WoText* wo_fs_read_all(WoText* path, int64_t cap, const WoSite* site);
WoText* wo_fs_read_at(WoText* path, int64_t offset, int64_t n, const WoSite* site);
void wo_fs_append(WoText* path, WoText* t, const WoSite* site);
WoProc* wo_proc_run(WoText* cmd, WoList* args, const WoSite* site);
// Bounds <= 0 pick the defaults (30000 ms, 1 MiB, 64 KiB). Deadline expiry:
// NULL (nil) here, a trap in wo_proc_run.
WoProc* wo_proc_run_dl(WoText* cmd, WoList* args, int64_t deadline_ms, int64_t out_cap,
                       int64_t err_cap, const WoSite* site);

// ---- json (builtins.md §11, language.md §10.9) ----------------------------------
// `value` points at the value in its field representation (see WoTypeDesc).
// Traps STACK (3) past 1000 levels of nesting (a cyclic traced object).
WoText* wo_json_encode(const void* value, const WoTypeDesc* type, const WoSite* site);
// The owned `?T` word: the decoded value, or T's nil when the text is
// malformed or does not fit T. Never traps (except OOM).
uint64_t wo_json_decode(WoText* text, const WoTypeDesc* type);

#ifdef __cplusplus
}
#endif
#endif
