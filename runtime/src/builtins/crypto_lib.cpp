// libcrypto loaded on first use (crypto_lib.h, docs/decisions/0063).
#include "crypto_lib.h"


#include <openssl/opensslv.h>

#include <string>

#include "common/traps.h"
#include "../core/dynlib.h"
#include "../core/trap.h"

namespace wo::crypto {
namespace {

#define WO_STR2(x) #x
#define WO_STR(x) WO_STR2(x)
// The soname of the OpenSSL the runtime was compiled against
// (libcrypto.so.3 for OpenSSL 3.x): the ABI the headers describe.
constexpr const char* kSoname = "libcrypto.so." WO_STR(OPENSSL_SHLIB_VERSION);

using dynlib::sym;

// Loads the library, or returns why it could not.
std::string load(Lib& lib) {
  std::string why;
  void* h = dynlib::open(kSoname, &why);
  if (!h) return why;
  if (sym(h, "EVP_Digest", lib.digest) && sym(h, "EVP_sha1", lib.sha1) && sym(h, "EVP_sha256", lib.sha256) &&
      sym(h, "EVP_EncodeBlock", lib.encode_block) && sym(h, "EVP_DecodeBlock", lib.decode_block) &&
      sym(h, "HMAC", lib.hmac))
    return "";
  return dynlib::missing(h);
}

}  // namespace

const Lib& lib(const char* what) {
  // A function-local static: initialised once, by one thread; an exception
  // out of the initialiser leaves it uninitialised, so a later call retries.
  static const Lib loaded = [what] {
    Lib l{};
    if (std::string why = load(l); !why.empty()) {
      std::string msg = std::string("cannot load ") + kSoname + " (OpenSSL's libcrypto), which " + what +
                        " needs: " + why;
      wo::raise(static_cast<int64_t>(TrapCode::IO), nullptr, msg.c_str());
    }
    return l;
  }();
  return loaded;
}

}  // namespace wo::crypto
