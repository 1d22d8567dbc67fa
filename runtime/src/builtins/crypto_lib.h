// OpenSSL's libcrypto, loaded the first time a digest, HMAC or base64 needs
// it (docs/decisions/0063). Linked as a dependency it cost every woc-built
// executable ~1 ms of start-up (the loader mapping and relocating a 4 MiB
// library, 3,400 relocations) whether or not the program hashed anything.
#pragma once
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace wo::crypto {

// The functions the runtime calls, resolved from the loaded library; the
// types are the headers' own, so a changed signature fails to compile.
struct Lib {
  decltype(&::EVP_Digest) digest;
  decltype(&::EVP_sha1) sha1;
  decltype(&::EVP_sha256) sha256;
  decltype(&::EVP_EncodeBlock) encode_block;
  decltype(&::EVP_DecodeBlock) decode_block;
  decltype(&::HMAC) hmac;
};

// libcrypto, loaded once per process (thread-safe). When it cannot be loaded
// (not installed, or a symbol missing) this traps IO with a message naming
// the library, `what` (the builtin that needed it) and the loader's reason;
// the next call tries again.
const Lib& lib(const char* what);

}  // namespace wo::crypto
