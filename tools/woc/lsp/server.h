// woc lsp: a Language Server Protocol server over stdin/stdout (see
// README.md in this folder). One thread: a message is handled completely
// before the next is read, so every answer reflects every edit before it.
#pragma once
#include <cstdio>
#include <string>

namespace wo::lsp {

// Serves until `exit` (status 0 after `shutdown`, else 1) or the end of the
// input (same rule). Nothing but protocol messages is written to `out`.
int serve(std::FILE* in, std::FILE* out, const std::string& version);

// `woc lsp [--help]`: argv as main() got it, argv[1] == "lsp".
int lsp_main(int argc, char** argv, const std::string& version);

}  // namespace wo::lsp
