// The process's store (backend.h).
#include "backend.h"

namespace wo::store {
namespace {
Backend* g_current = nullptr;  // written only while no statement runs (open, close)
}  // namespace

Backend* current() { return g_current; }
void set_current(Backend* b) { g_current = b; }

}  // namespace wo::store
