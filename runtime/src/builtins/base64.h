// Base64 (RFC 4648, standard alphabet, `=` padding, no line breaks), shared by
// the Bytes builtins and json (Bytes fields are base64 strings). OpenSSL's
// block functions do the work (runtime/src/builtins/bytes.cpp); the strict rules below
// are ours, checked before it is called.
#pragma once
#include <cstddef>
#include <string>

namespace wo {

// Appends the encoding of data[0..n) to `out`.
void base64_encode_to(const char* data, size_t n, std::string& out);
// Appends the decoding of data[0..n) to `out`; false (out partly written) when
// malformed: a length that is not a multiple of 4, a character outside the
// alphabet, or `=` anywhere but as the final one or two characters.
bool base64_decode_to(const char* data, size_t n, std::string& out);

}  // namespace wo
