// Runs tree-sitter's table generator (the C++ compiler of tree-sitter-cli
// 0.13, built from its npm sources by setup-tree-sitter.sh) on a grammar
// JSON (grammar-json.js) and writes the parser's C source.
//
// usage: ts-generate GRAMMAR.json OUT_PARSER.c
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tree_sitter/compiler.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: ts-generate GRAMMAR.json OUT_PARSER.c\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "ts-generate: cannot read %s\n", argv[1]);
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  TSCompileResult r = ts_compile_grammar(text.str().c_str(), nullptr);
  if (r.error_type != TSCompileErrorTypeNone) {
    std::fprintf(stderr, "ts-generate: %s\n", r.error_message ? r.error_message : "the grammar was refused");
    return 1;
  }
  std::ofstream out(argv[2]);
  out << r.code;
  return out.good() ? 0 : 2;
}
