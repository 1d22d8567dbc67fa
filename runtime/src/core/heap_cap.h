// The VM heap's ceiling, WO_HEAP_MB (runtime.md §4.1, §5.6; docs/decisions/0081).
//
// What counts: the memory the program's values hold — the small heap's runs
// as they are handed to threads (64 KiB each, kept for reuse: what the small
// heap occupies), and every larger block of a value (a Text, Bytes or object
// above kSmallMax, a list's slots, a map's entries and index, a Text grown in
// place) by its malloc_usable_size, or a list's huge mapping by its whole
// 2 MiB pages. What does not: the table store (outside the VM heap, §4.1; it
// allocates with heap_malloc and its own arenas), fiber stacks, mailboxes,
// the runtime's own C++ containers and transient buffers.
//
// One process-wide count, for all shards (they share the small heap, and a
// block allocated on one thread is often freed on another). Each thread
// takes credit from it in chunks, so an allocation or a free touches the
// shared atomic only when its thread's credit runs out or piles up; small
// objects never touch it (only a new run does). A charge that would pass the
// cap fails, and the caller traps OOM (4) as when malloc fails.
#pragma once
#include <cstddef>
#include <cstdint>

namespace wo {

// Charges n bytes to the calling thread's share of the heap; false, with
// nothing charged, when that would take the process past the cap.
bool heap_charge(size_t n);
// Gives n charged bytes back.
void heap_credit(size_t n);

// malloc, realloc and free for the blocks of heap values whose size the
// owner does not keep (objects, Texts: heap_block/heap_free), counted by
// malloc_usable_size. NULL when the cap (or malloc) refuses; big_realloc
// leaves p untouched then. Never mix them with plain malloc/free, nor with
// the sized_ functions.
void* big_alloc(size_t n);
void* big_realloc(void* p, size_t n);
void big_free(void* p);

// The same for blocks whose owner knows their size (a list's slots, a map's
// entries and index), counted by the size asked for: no malloc_usable_size
// on a list's growth. sized_free and sized_realloc take the size the block
// was asked for last.
void* sized_alloc(size_t n);
void* sized_calloc(size_t count, size_t size);
void* sized_realloc(void* p, size_t old_n, size_t n);
void sized_free(void* p, size_t n);

// Reads WO_HEAP_MB (wo_start, before anything runs): an integer of MiB in
// 1..1048576, or unset/empty for the default. Any other value prints why on
// stderr and exits 2 (runtime.md §5.1 step 2).
void heap_cap_start();
// The cap in bytes (the default is worked out the first time it matters:
// half of the memory the process may use, cgroup memory.max or RAM, at
// least 64 MiB), and the bytes charged now less the calling thread's unused
// credit (tests, the OOM trap's detail).
int64_t heap_cap_bytes();
int64_t heap_used_bytes();
void heap_cap_set_for_tests(int64_t bytes);
// The default from a /proc/self/cgroup and a /sys/fs/cgroup of the test's.
int64_t heap_default_cap_for_tests(const char* self, const char* sys);
// Whether the last charge refused on this thread was refused by the cap
// (cleared by reading it): raise_oom names the cap in the trap's detail.
bool heap_cap_refused();

// While one lives on a thread, its charges ignore the cap: building the
// Error record of a trap that is being caught (a trap there would end the
// process, trap.cpp's error_from_current_exception).
struct HeapCapExempt {
  HeapCapExempt();
  ~HeapCapExempt();
  HeapCapExempt(const HeapCapExempt&) = delete;
  HeapCapExempt& operator=(const HeapCapExempt&) = delete;
};

}  // namespace wo
