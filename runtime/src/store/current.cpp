// The process's store (backend.h).
#include "backend.h"

namespace wo::store {

namespace detail {
Backend* g_current = nullptr;  // written only while no statement runs (open, close)
}  // namespace detail

void set_current(Backend* b) { detail::g_current = b; }

}  // namespace wo::store
