// Loading an optional shared library on first use (libcrypto: decision 0063;
// c-ares: 0085; libssl: 0086): dlopen with RTLD_LOCAL, each function resolved
// into a table typed from the library's own headers, and why it failed in
// the loader's words. The callers keep the table in a function-local static
// whose initialiser traps IO on failure (so the next call tries again).
#pragma once
#include <dlfcn.h>

#include <string>

namespace wo::dynlib {

// dlopen(soname), or NULL with *why set.
inline void* open(const char* soname, std::string* why) {
  void* h = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);  // RTLD_LOCAL: nothing else binds to it by accident
  if (!h) {
    const char* e = ::dlerror();
    *why = e ? e : "dlopen failed";
  }
  return h;
}

// One function of `h` into `out` (typed by the caller); false when missing.
template <class F>
bool sym(void* h, const char* name, F& out) {
  out = reinterpret_cast<F>(::dlsym(h, name));
  return out != nullptr;
}

// After a failed sym: why, and the handle closed.
inline std::string missing(void* h) {
  const char* e = ::dlerror();
  std::string why = e ? e : "a symbol is missing";
  ::dlclose(h);
  return why;
}

}  // namespace wo::dynlib
