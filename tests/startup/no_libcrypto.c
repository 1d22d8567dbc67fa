/* LD_PRELOAD shim for tests/startup/startup-test.sh: dlopen of any
   libcrypto fails as it does on a machine without OpenSSL installed, so the
   runtime's "cannot load libcrypto" trap can be checked (decision 0063).
   Every other dlopen goes to the C library's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

static const char* failed;

void* dlopen(const char* file, int mode) {
  static void* (*real)(const char*, int);
  if (file && strstr(file, "libcrypto")) {
    failed = "libcrypto.so: cannot open shared object file: No such file or directory (test shim)";
    return NULL;
  }
  if (!real) real = (void* (*)(const char*, int))dlsym(RTLD_NEXT, "dlopen");
  return real(file, mode);
}

char* dlerror(void) {
  static char* (*real)(void);
  if (failed) {
    const char* f = failed;
    failed = NULL;
    return (char*)f;
  }
  if (!real) real = (char* (*)(void))dlsym(RTLD_NEXT, "dlerror");
  return real();
}
