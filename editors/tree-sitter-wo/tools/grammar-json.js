// Evaluates ../grammar.js with the grammar DSL of tree-sitter-cli 0.13
// (lib/api/dsl.js of the npm package) and prints the grammar as JSON, the
// input of tree-sitter's table generator (ts-generate.cc).
//
// The DSL asks a native addon for its `$` rule builder; that addon is not
// built (only the generator is), so the builder is supplied here: `$.name`
// is a symbol, or — for a name that is not a rule — the ReferenceError the
// DSL expects (an alias may still name a node that way).
//
// usage: node grammar-json.js TREE_SITTER_CLI_DIR GRAMMAR_JS
'use strict';

const fs = require('fs');
const Module = require('module');
const path = require('path');

const [cliDir, grammarPath] = process.argv.slice(2);
if (!cliDir || !grammarPath) {
  console.error('usage: node grammar-json.js TREE_SITTER_CLI_DIR GRAMMAR_JS');
  process.exit(2);
}

function RuleBuilder(rules) {
  return new Proxy({}, {
    get(_, name) {
      if (typeof name !== 'string') return undefined;
      const symbol = { type: 'SYMBOL', name };
      if (rules && !rules[name]) {
        const e = new ReferenceError('Undefined symbol `' + name + '`');
        e.symbol = symbol;
        return e;
      }
      return symbol;
    },
  });
}

// Node records a module's filename with symbolic links resolved, so both
// sides are canonical paths: a build directory reached through a link (or
// a CLI_DIR given through one) must still match.
const dslPath = fs.realpathSync(path.resolve(cliDir, 'lib', 'api', 'dsl.js'));
const originalLoad = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === './binding' && parent && parent.filename && fs.realpathSync(parent.filename) === dslPath)
    return { RuleBuilder };
  return originalLoad.apply(this, arguments);
};
const dsl = require(dslPath);
Object.assign(global, dsl);
const grammar = require(path.resolve(grammarPath));
process.stdout.write(JSON.stringify(grammar, null, 2) + '\n');
