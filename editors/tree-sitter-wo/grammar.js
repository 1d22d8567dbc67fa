// A tree-sitter grammar for .wo, written from woc's front end
// (frontend/parser.yy, frontend/lexer.re and the token rewriter in
// frontend/parser.cpp) and language.md §3-§4. See README.md here.
//
// Where it differs from woc, on purpose:
//  * Line feeds are whitespace. woc's NEWLINE tokens end statements; here a
//    statement ends where the next one can start (optional `;`). Every
//    program woc parses parses here; a few that woc rejects (`let x = (a +`
//    / `b)`) parse too. An editor wants a tree for broken text anyway.
//  * Conditions and loop heads (`if`, `while`, `for … in`, `switch`, a
//    query's source and clauses) use the "no-brace" expression forms of
//    language.md §4.10, so `if x {` opens a block instead of a constructor;
//    both forms build the same node types.
//  * Words that are keywords only in context (`static`, `transaction`,
//    `from`/`where`/`select`/…, `delete`, `insert`, `ref`/`multi`/…) are
//    tokens where the grammar expects them and identifiers elsewhere
//    (keyword extraction through `word`).
//  * Legacy forms woc only parses to refuse (SELECT …, `service`/`policy`
//    lines, `extends`) are not covered.

const PREC = {
  query: -1,
  or: 1,
  and: 2,
  compare: 3,
  concat: 4,
  add: 5,
  mul: 6,
  unary: 7,
  as: 8,
  postfix: 9,
};

// A type's name: an identifier shown as type_identifier.
const typeId = ($) => alias($.identifier, $.type_identifier);

const commaSep1 = (rule) => seq(rule, repeat(seq(',', rule)));
const commaSep = (rule) => optional(seq(commaSep1(rule), optional(',')));

// The expression rules of one mode: '' (brace mode, where `Name {` is a
// constructor) or '_nb' (no-brace mode, §4.10). The _nb rules are aliased to
// the brace-mode names, so trees do not show the difference.
function expressionRules(m) {
  const nb = m === '_nb';
  const name = (n) => n + m;
  const node = ($, n) => (nb ? alias($[name(n)], $[n]) : $[n]);
  const rules = {};

  rules[name('_expression')] = ($) => choice($[name('_binary_level')], node($, 'try_expression'));

  rules[name('_binary_level')] = ($) =>
    choice(
      $[name('_unary_level')],
      node($, 'binary_expression'),
      node($, 'delete_expression'),
      node($, 'query_expression'),
    );

  rules[name('binary_expression')] = ($) => {
    const B = $[name('_binary_level')];
    const table = [
      [PREC.or, 'or'],
      [PREC.and, 'and'],
      [PREC.compare, choice('==', '!=', '<', '<=', '>', '>=')],
      [PREC.concat, '..'],
      [PREC.add, choice('+', '-', '|', '^')],
      [PREC.mul, choice('*', '/', '%', '&', '<<', '>>')],
    ];
    return choice(...table.map(([p, op]) => prec.left(p, seq(B, op, B))));
  };

  rules[name('delete_expression')] = ($) => prec.right(PREC.query, seq('delete', $[name('_binary_level')]));

  rules[name('query_expression')] = ($) =>
    prec.right(
      PREC.query,
      seq('from', $.identifier, 'in', $._binary_level_nb, repeat($.query_clause), 'select', $[name('_binary_level')]),
    );

  rules[name('try_expression')] = ($) =>
    seq('try', $[name('_binary_level')], 'catch', '(', $.identifier, ')',
        choice(prec(1, $.block), $[name('_expression')]));

  rules[name('_unary_level')] = ($) => choice(node($, 'unary_expression'), $[name('_as_level')]);

  rules[name('unary_expression')] = ($) => prec(PREC.unary, seq(choice('-', 'not'), $[name('_unary_level')]));

  rules[name('_as_level')] = ($) => choice($[name('_postfix_level')], node($, 'as_expression'));

  rules[name('as_expression')] = ($) => prec.left(PREC.as, seq($[name('_as_level')], 'as', $.type));

  rules[name('_postfix_level')] = ($) =>
    choice(
      $[name('_primary')],
      node($, 'member_expression'),
      node($, 'call_expression'),
      node($, 'index_expression'),
      ...(nb ? [] : [$.qualified_constructor]),
    );

  rules[name('member_expression')] = ($) =>
    prec(PREC.postfix, seq($[name('_postfix_level')], '.', $._member_name));

  rules[name('call_expression')] = ($) => prec(PREC.postfix, seq($[name('_postfix_level')], $.arguments));

  rules[name('index_expression')] = ($) =>
    prec(PREC.postfix, seq($[name('_postfix_level')], '[', $._expression, ']'));

  rules[name('_primary')] = ($) =>
    choice(
      $.identifier,
      $.integer,
      $.float,
      $.string,
      $.raw_string,
      $.true,
      $.false,
      $.nil,
      $.parenthesized_expression,
      $.list,
      $.spawn_expression,
      $.insert_expression,
      $.switch_expression,
      ...(nb ? [] : [$.constructor, $.empty_map]),
    );

  return rules;
}

module.exports = grammar({
  name: 'wo',

  word: ($) => $.identifier,

  extras: ($) => [/\s/, $.comment, $.directive],

  conflicts: ($) => [
    [$.block, $.empty_map],
  ],

  rules: {
    source_file: ($) => repeat($._top_item),

    _top_item: ($) =>
      choice(
        $.use_declaration,
        $.const_declaration,
        $.union_declaration,
        $.class_declaration,
        $.record_declaration,
        $.interface_declaration,
        $.function_declaration,
        ';',
      ),

    // ------------------------------------------------------------ declarations
    use_declaration: ($) => seq(choice('use', 'using'), $.identifier, repeat(seq('/', $.identifier))),

    const_declaration: ($) =>
      seq(optional('static'), 'const', $.identifier, '=',
          choice($.integer, seq('-', $.integer), $.string, $.raw_string, $.true, $.false)),

    annotation: ($) => seq('@', $.identifier, optional($.annotation_arguments)),

    annotation_arguments: ($) => seq('(', commaSep($._annotation_argument), ')'),

    _annotation_argument: ($) => choice($.named_argument, $._expression),

    named_argument: ($) => seq($.identifier, ':', $._expression),

    // Line feeds are whitespace here, so `| Variant` lines need nothing more
    // than the optional `|` before the first variant (decision 0090).
    union_declaration: ($) =>
      seq(optional('pub'), 'type', $.identifier, '=', optional('|'), $.variant, repeat(seq('|', $.variant))),

    variant: ($) => seq($.identifier, optional(seq('(', commaSep($.payload_field), ')'))),

    payload_field: ($) => seq($.identifier, ':', $.type),

    class_declaration: ($) =>
      seq(repeat($.annotation), optional('pub'), choice('class', 'type'), $.identifier, $.class_body),

    class_body: ($) => seq('{', repeat($._class_item), '}'),

    _class_item: ($) => choice($.field_declaration, $.method_declaration, $.const_declaration, ';'),

    field_declaration: ($) =>
      seq(optional(seq('pub', '(', $.identifier, ')')), $.identifier, ':', $.type, repeat($._field_suffix)),

    _field_suffix: ($) => choice($.annotation, $.default_value),

    default_value: ($) => seq('=', $._expression),

    method_declaration: ($) => seq(optional(choice('static', 'pub')), $._function),

    record_declaration: ($) =>
      seq(optional('pub'), 'typedef', $.identifier, '=', '{', repeat(seq($.record_field, optional(','))), '}'),

    record_field: ($) => seq(optional('?'), $._member_name, ':', $.type, repeat($._field_suffix)),

    interface_declaration: ($) =>
      seq(optional('pub'), 'interface', $.identifier, '{', repeat(choice($.function_signature, ';')), '}'),

    function_declaration: ($) => seq(optional('pub'), $._function),

    _function: ($) => seq($.function_signature, $.block),

    function_signature: ($) => seq('fn', $.identifier, $.parameters, optional($.return_type)),

    parameters: ($) => seq('(', commaSep($.parameter), ')'),

    parameter: ($) => seq(optional(choice('mut', 'take')), $.identifier, ':', $.type),

    return_type: ($) => choice(seq(optional('?'), '->', $.type), '?'),

    // ------------------------------------------------------------ types (§4.3)
    type: ($) => seq(optional('?'), $._base_type),

    _base_type: ($) =>
      choice(
        typeId($),
        $.qualified_type,
        seq('ref', typeId($)),
        seq('multi', typeId($)),
        seq('backlink', typeId($), '.', $.identifier),
        seq('actor', typeId($)),
        seq('map', '<', typeId($), ',', typeId($), '>'),
      ),

    qualified_type: ($) => seq($.identifier, '.', typeId($)),

    // ------------------------------------------------------------ statements (§4.7, §4.9)
    block: ($) => seq('{', repeat($._statement), '}'),

    _statement: ($) =>
      choice(
        $.let_statement,
        $.assignment_statement,
        $.expression_statement,
        $.return_statement,
        $.break_statement,
        $.continue_statement,
        $.do_while_statement,
        $.if_statement,
        $.while_statement,
        $.for_statement,
        $.transaction_statement,
        ';',
      ),

    let_statement: ($) => seq('let', $.identifier, optional(seq(':', $.type)), '=', $._expression),

    assignment_statement: ($) =>
      seq($._expression, choice('=', '+=', '-=', '*=', '/=', '%='), $._expression),

    expression_statement: ($) => $._expression,

    return_statement: ($) => prec.right(seq('return', optional($._expression))),

    break_statement: ($) => 'break',

    continue_statement: ($) => 'continue',

    do_while_statement: ($) => seq('do', $.block, 'while', $._expression),

    if_statement: ($) =>
      seq('if', $._expression_nb, $.block, optional(seq('else', choice($.block, $.if_statement)))),

    while_statement: ($) => seq('while', $._expression_nb, $.block),

    for_statement: ($) =>
      seq('for', $.identifier, optional(seq(',', $.identifier)), 'in', $._expression_nb, $.block),

    transaction_statement: ($) => seq('transaction', $.block),

    // ------------------------------------------------------------ expressions (§4.8)
    ...expressionRules(''),
    ...expressionRules('_nb'),

    query_clause: ($) =>
      choice(
        seq('where', $._binary_level_nb),
        seq('group', $._binary_level_nb, 'by', $._binary_level_nb, 'into', $.identifier),
        // `order by a desc, b`: one or more keys (docs/decisions/0089)
        prec.right(
          seq('order', 'by', $._binary_level_nb, optional('desc'), repeat(seq(',', $._binary_level_nb, optional('desc')))),
        ),
        seq('take', $._binary_level_nb),
      ),

    _member_name: ($) => choice($.identifier, alias('type', $.identifier)),

    arguments: ($) => seq('(', commaSep($._expression), ')'),

    parenthesized_expression: ($) => seq('(', $._expression, ')'),

    // `[a, b]`, `[a b]` (juxtaposed items) and one item per line.
    list: ($) => seq('[', repeat(seq($._expression, optional(','))), ']'),

    constructor: ($) => prec(1, seq(typeId($), $.constructor_body)),

    qualified_constructor: ($) =>
      prec(PREC.postfix + 1, seq($._postfix_level, '.', typeId($), $.constructor_body)),

    constructor_body: ($) => seq('{', commaSep($.field_initializer), '}'),

    field_initializer: ($) => seq($._member_name, ':', $._expression),

    empty_map: ($) => seq('{', '}'),

    spawn_expression: ($) =>
      seq('spawn', choice($.constructor, seq($.identifier, '.', typeId($), $.constructor_body))),

    insert_expression: ($) => seq('insert', $.constructor),

    switch_expression: ($) => seq('switch', $._expression_nb, '{', repeat($.switch_arm), '}'),

    switch_arm: ($) =>
      prec.right(seq(choice(seq('case', commaSep1($._expression), ':'), seq('default', ':')), repeat($._statement))),

    // ------------------------------------------------------------ lexical (§3)
    identifier: ($) => /[A-Za-z_][A-Za-z0-9_-]*/,

    integer: ($) => token(choice(/[0-9](_?[0-9])*/, /0[xX][0-9a-fA-F](_?[0-9a-fA-F])*/, /0[bB][01](_?[01])*/)),

    float: ($) => token(choice(/[0-9](_?[0-9])*\.[0-9]+([eE][+-]?[0-9]+)?/, /[0-9](_?[0-9])*[eE][+-]?[0-9]+/)),

    true: ($) => 'true',
    false: ($) => 'false',
    nil: ($) => 'nil',

    string: ($) =>
      choice(
        seq('"', repeat(choice($._dq_content, $.escape_sequence, $.interpolation)), '"'),
        seq("'", repeat(choice($._sq_content, $.escape_sequence, $.interpolation)), "'"),
      ),

    _dq_content: ($) => choice(token.immediate(prec(1, /[^"\\$\n]+/)), token.immediate('$')),
    _sq_content: ($) => choice(token.immediate(prec(1, /[^'\\$\n]+/)), token.immediate('$')),

    escape_sequence: ($) => token.immediate(/\\(.|\n)/),

    interpolation: ($) => seq(token.immediate('${'), $._expression, '}'),

    raw_string: ($) =>
      seq('`', repeat(choice($._raw_content, $.interpolation, $.escaped_interpolation)), '`'),

    _raw_content: ($) => choice(token.immediate(prec(1, /[^`${]+/)), token.immediate('$'), token.immediate('{')),

    escaped_interpolation: ($) => seq(token.immediate('{{'), $._expression, '}}'),

    // `--` to the end of the line; `count--x` is an identifier (longest match).
    comment: ($) => token(seq('--', /[^\n]*/)),

    // #if FLAG / #else / #end lines (§3.10): kept out of the tree's structure.
    directive: ($) => token(seq('#', /[A-Za-z_]+/, /[^\n]*/)),
  },
});
