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

}  // namespace wo::http
