/* Parses .wo files with the generated parser (linked with tree-sitter's C
 * runtime) for the tests of editors/tree-sitter-wo:
 *   ts-check check FILE...   every file must parse without an ERROR or
 *                            MISSING node; each one that does not is named
 *                            with the first such node's position; exit 1.
 *   ts-check sexp FILE       prints the tree as an S-expression.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree_sitter/runtime.h"

const TSLanguage *tree_sitter_wo(void);

static char *slurp(const char *path, uint32_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  *len = (uint32_t)n;
  return buf;
}

/* The first ERROR or MISSING node under `n` (depth first), or a null node. */
static int first_problem(TSNode n, TSNode *out) {
  if (!ts_node_has_error(n)) return 0;
  if (ts_node_is_missing(n) || strcmp(ts_node_type(n), "ERROR") == 0) {
    *out = n;
    return 1;
  }
  uint32_t count = ts_node_child_count(n);
  for (uint32_t i = 0; i < count; i++)
    if (first_problem(ts_node_child(n, i), out)) return 1;
  *out = n;  /* has_error without a child to blame */
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3 || (strcmp(argv[1], "check") != 0 && strcmp(argv[1], "sexp") != 0)) {
    fprintf(stderr, "usage: ts-check check FILE... | ts-check sexp FILE\n");
    return 2;
  }
  TSParser *parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_wo());
  int bad = 0;
  for (int i = 2; i < argc; i++) {
    uint32_t len = 0;
    char *text = slurp(argv[i], &len);
    if (!text) {
      fprintf(stderr, "ts-check: cannot read %s\n", argv[i]);
      return 2;
    }
    TSTree *tree = ts_parser_parse_string(parser, NULL, text, len);
    TSNode root = ts_tree_root_node(tree);
    if (strcmp(argv[1], "sexp") == 0) {
      char *s = ts_node_string(root);
      printf("%s\n", s);
      free(s);
    } else {
      TSNode p;
      if (first_problem(root, &p)) {
        TSPoint at = ts_node_start_point(p);
        printf("%s:%u:%u: %s node\n", argv[i], at.row + 1, at.column + 1,
               ts_node_is_missing(p) ? "MISSING" : ts_node_type(p));
        bad++;
      }
    }
    ts_tree_delete(tree);
    free(text);
  }
  ts_parser_delete(parser);
  if (strcmp(argv[1], "check") == 0) printf("ts-check: %d of %d files with errors\n", bad, argc - 2);
  return bad ? 1 : 0;
}
