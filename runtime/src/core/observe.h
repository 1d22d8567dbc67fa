// What the running code may have learned from outside itself since a
// moment: a count per thread, bumped at every fiber switch, every message
// taken from a mailbox, every read from a socket, file or child process,
// and every statement of either store. The PostgreSQL store serves a field
// read from the rows it fetched last only while this count has not moved
// since the fetch (docs/decisions/0068-postgresql-row-reads.md): a read
// then returns what it would have returned at the fetch, and nothing the
// program saw in between could tell it otherwise.
#pragma once
#include <cstdint>

namespace wo {

inline thread_local uint64_t t_observed = 0;

inline void observed_outside() { ++t_observed; }

}  // namespace wo
