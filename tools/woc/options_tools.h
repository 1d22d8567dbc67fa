// The command line of the tool verbs (fmt, test, explain): their flags,
// positional arguments and help texts, kept apart from options.cpp so each
// verb's surface lives in one place.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "tools/woc/options.h"

namespace wo::driver {

Verb tool_verb_named(std::string_view s);  // Verb::None if not a tool verb

// One flag of a tool verb at argv[i]: 1 consumed (i may advance), 0 not
// ours, -1 a usage error (in `error`).
int parse_tool_flag(std::string_view a, int argc, char** argv, int& i, Options& o, std::string& error);

// After the loop: for a tool verb, takes its positional arguments and checks
// its flags (returns true: `r` is final); for the other verbs, refuses tool
// flags (sets r.error and returns true) or returns false.
bool finish_tool_verb(ParseResult& r, const std::vector<std::string>& positional);

std::string tool_help(Verb verb);

}  // namespace wo::driver
