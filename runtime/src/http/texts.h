// Small Text helpers of the HTTP builtins.
#pragma once
#include <cstddef>

#include "wo_runtime.h"

namespace wo::http {

WoText* empty_text();  // an immortal "" (retain/release are no-ops on it)
WoText* text_of(const char* p, size_t n);           // a copy; "" is the immortal one
WoText* method_text_of(const char* p, size_t n);    // as text_of; common methods are immortal
WoText* lower_text_of(const char* p, size_t n);     // ASCII-lowercased copy; common header names are immortal
WoText* trimmed_text_of(const char* p, size_t n);   // SP / HT trimmed at both ends

// The three below are inline: request_parser.cpp uses them and links without
// the runtime's heap, which texts.cpp needs (fuzz_http, fuzz/CMakeLists.txt).
inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
// p[0..n) equals `lower` (a lowercase literal) ignoring ASCII case: header
// names and tokens.
inline bool equals_lower(const char* p, size_t n, const char* lower) {
  size_t i = 0;
  while (i < n && lower[i] != '\0' && ascii_lower(p[i]) == lower[i]) ++i;
  return i == n && lower[i] == '\0';
}
// Drops the optional whitespace (SP / HT) around a header value.
inline void trim_ows(const char** p, size_t* n) {
  while (*n > 0 && (**p == ' ' || **p == '\t')) ++*p, --*n;
  while (*n > 0 && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t')) --*n;
}

}  // namespace wo::http
