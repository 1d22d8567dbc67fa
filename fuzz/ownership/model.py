"""A small subset of .wo as a Python AST: each node prints itself as .wo source
(emit) and runs itself in a reference model (ev / run).

The model is the oracle of the ownership fuzzer (README.md). Its rule is the
one language.md §15 promises for an accepted program: operands and arguments
are evaluated left to right, and a value read from a field, an element or a
map entry keeps the value it had when it was read until its last use,
whatever later calls and assignments in the same expression or statement do
to its owner. Python's references give exactly that: an object read earlier
stays alive and unchanged while its old slot is overwritten, popped or
removed, and changes made *inside* the object stay visible through every
path to it (a borrow is not a copy).

Other rules the model follows:
  * Text is an immutable value (a Python str of ASCII bytes).
  * A `mut` parameter that is assigned as a whole (`o = ...`) is rebound in
    the callee only (as `mut a: Int`, corpus run/own-alias-exempt).
  * A row of a @table class is a handle: reading a field gives a fresh copy
    of the stored value, assigning one writes it through at once,
    `transaction { }` left by a trap restores every table (and the ids).
  * An actor is run by `call` (its mailbox first, in order, then the call):
    the single-shard schedule of runtime.md §3.3 for one actor.
  * The BORROW guard (trap 2) is a node attribute: `guard=(i, j)` on a call
    traps when the two Int expressions are equal and the run's
    `guards` flag is on (cases that may or may not trap list both runs).
"""

import copy

# ---------------------------------------------------------------- runtime values


class Trap(Exception):
    def __init__(self, code, msg=""):
        super().__init__(f"trap {code} {msg}")
        self.code = code
        self.msg = msg


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class Obj:
    __slots__ = ("cls", "f")

    def __init__(self, cls, fields):
        self.cls = cls
        self.f = fields

    def __repr__(self):
        return f"{self.cls}{self.f}"


class VariantVal:
    __slots__ = ("tag", "vals")

    def __init__(self, tag, vals):
        self.tag = tag
        self.vals = vals


class Row:
    __slots__ = ("table", "id")

    def __init__(self, table, rid):
        self.table = table
        self.id = rid


class ActorRef:
    __slots__ = ("state", "queue")

    def __init__(self, state):
        self.state = state
        self.queue = []


def deep_copy_value(v):
    """A row's stored copy of a value (lists and maps copied, Text shared)."""
    if isinstance(v, list):
        return [deep_copy_value(x) for x in v]
    if isinstance(v, dict):
        return {k: deep_copy_value(x) for k, x in v.items()}
    return v


# ---------------------------------------------------------------- emission helpers

PREC = {"or": 2, "and": 3, "cmp": 4, "..": 5, "+": 6, "-": 6, "*": 7, "/": 7, "%": 7}


def wo_text_literal(s):
    out = []
    for ch in s:
        if ch in '"\\$':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


class Node:
    prec = 10  # postfix / primary

    def em(self, ctx_prec=0):
        s = self.emit()
        if self.prec < ctx_prec:
            return "(" + s + ")"
        return s


# ---------------------------------------------------------------- expressions


class Lit(Node):
    def __init__(self, v):
        self.v = v

    def emit(self):
        if isinstance(self.v, bool):
            return "true" if self.v else "false"
        if isinstance(self.v, int):
            return str(self.v) if self.v >= 0 else f"(0 - {-self.v})"
        return wo_text_literal(self.v)

    def ev(self, m, env):
        return self.v


class Fresh(Node):
    """A Text made at run time (`"tag" .. int_to_text(n)`), never a static literal."""

    prec = PREC[".."]

    def __init__(self, tag, n):
        self.tag = tag
        self.n = n

    def emit(self):
        return f"{wo_text_literal(self.tag)} .. int_to_text({self.n})"

    def ev(self, m, env):
        return f"{self.tag}{self.n}"


class Nil(Node):
    def emit(self):
        return "nil"

    def ev(self, m, env):
        return None


class Var(Node):
    def __init__(self, name):
        self.name = name

    def emit(self):
        return self.name

    def ev(self, m, env):
        return env.get(self.name)


class Field(Node):
    def __init__(self, obj, name):
        self.obj = obj
        self.name = name

    def emit(self):
        return f"{self.obj.em(10)}.{self.name}"

    def ev(self, m, env):
        o = self.obj.ev(m, env)
        return m.read_field(o, self.name)


class Index(Node):
    def __init__(self, xs, i):
        self.xs = xs
        self.i = i

    def emit(self):
        return f"{self.xs.em(10)}[{self.i.emit()}]"

    def ev(self, m, env):
        xs = self.xs.ev(m, env)
        i = self.i.ev(m, env)
        if isinstance(xs, dict):  # m[k]: ?V
            return xs.get(i)
        if not (0 <= i < len(xs)):
            raise Trap(6, "multi index out of range")
        return xs[i]


class Bin(Node):
    """Binary operators: `..`, comparisons, Int arithmetic, and/or."""

    def __init__(self, op, a, b):
        self.op = op
        self.a = a
        self.b = b
        if op in ("==", "!=", "<", "<=", ">", ">="):
            self.prec = PREC["cmp"]
        else:
            self.prec = PREC[op]

    def emit(self):
        # left-associative: the right operand needs parens at equal precedence
        return f"{self.a.em(self.prec)} {self.op} {self.b.em(self.prec + 1)}"

    def ev(self, m, env):
        if self.op == "and":
            return self.a.ev(m, env) and self.b.ev(m, env)
        if self.op == "or":
            return self.a.ev(m, env) or self.b.ev(m, env)
        a = self.a.ev(m, env)
        b = self.b.ev(m, env)
        op = self.op
        if op == "..":
            return a + b
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op in ("/", "%"):
            if b == 0:
                raise Trap(1, "division by zero")
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            return q if op == "/" else a - q * b
        if op == "==":
            return a == b
        if op == "!=":
            return a != b
        if op == "<":
            return a.encode() < b.encode() if isinstance(a, str) else a < b
        if op == "<=":
            return a.encode() <= b.encode() if isinstance(a, str) else a <= b
        if op == ">":
            return a.encode() > b.encode() if isinstance(a, str) else a > b
        if op == ">=":
            return a.encode() >= b.encode() if isinstance(a, str) else a >= b
        raise ValueError(op)


def Concat(*xs):
    e = xs[0]
    for x in xs[1:]:
        e = Bin("..", e, x)
    return e


class Interp(Node):
    """`"lit${e}lit${e}"`: parts are str (literal text) or Int/Text expressions."""

    def __init__(self, *parts):
        self.parts = parts

    def emit(self):
        out = ['"']
        for p in self.parts:
            if isinstance(p, str):
                out.append(wo_text_literal(p)[1:-1])
            else:
                out.append("${" + p.emit() + "}")
        out.append('"')
        return "".join(out)

    def ev(self, m, env):
        out = []
        for p in self.parts:
            if isinstance(p, str):
                out.append(p)
            else:
                v = p.ev(m, env)
                out.append(str(v) if not isinstance(v, bool) else ("true" if v else "false"))
        return "".join(out)


class Not(Node):
    prec = 8

    def __init__(self, a):
        self.a = a

    def emit(self):
        return f"not {self.a.em(9)}"

    def ev(self, m, env):
        return not self.a.ev(m, env)


class Call(Node):
    """A call of a user function or a builtin; `guard=(i, j)`: the BORROW guard."""

    def __init__(self, fn, args, guard=None):
        self.fn = fn
        self.args = list(args)
        self.guard = guard

    def emit(self):
        return f"{self.fn}({', '.join(a.emit() for a in self.args)})"

    def ev(self, m, env):
        if "rewalk" in m.flags and self.fn in ("push", "set"):
            # the other reading: the container is found after the other arguments ran
            rest = [a.ev(m, env) for a in self.args[1:]]
            vals = [self.args[0].ev(m, env)] + rest
        else:
            vals = [a.ev(m, env) for a in self.args]
        m.check_guard(self.guard, env)
        if self.fn in m.fns:
            return m.call_fn(m.fns[self.fn], None, vals)
        return m.builtin(self.fn, vals, self.args)


class MCall(Node):
    """`recv.name(args)`: a method, dispatched on the receiver's class (interfaces too)."""

    def __init__(self, recv, name, args, guard=None):
        self.recv = recv
        self.name = name
        self.args = list(args)
        self.guard = guard

    def emit(self):
        return f"{self.recv.em(10)}.{self.name}({', '.join(a.emit() for a in self.args)})"

    def ev(self, m, env):
        r = self.recv.ev(m, env)
        vals = [a.ev(m, env) for a in self.args]
        m.check_guard(self.guard, env)
        if r is None:
            raise Trap(6, "null receiver")
        cls = m.classes[r.cls]
        return m.call_fn(cls.method(self.name), r, vals)


class New(Node):
    """`C { f: e, ... }`, fields evaluated in source order; omitted ones take defaults."""

    def __init__(self, cls, fields):
        self.cls = cls
        self.fields = list(fields)

    def emit(self):
        if not self.fields:
            return f"{self.cls} {{}}"
        return f"{self.cls} {{ " + ", ".join(f"{k}: {e.emit()}" for k, e in self.fields) + " }"

    def ev(self, m, env):
        vals = {}
        for k, e in self.fields:
            v = e.ev(m, env)
            vals[k] = v
        return m.construct(self.cls, vals)


class Insert(New):
    def emit(self):
        return "insert " + super().emit()

    def ev(self, m, env):
        vals = {}
        for k, e in self.fields:
            vals[k] = e.ev(m, env)
        return m.insert(self.cls, vals)


class Spawn(New):
    def emit(self):
        return "spawn " + super().emit()

    def ev(self, m, env):
        return ActorRef(New.ev(self, m, env))


class Variant(Node):
    """A union value: `Name` (bare) or `Name(a, b)`."""

    def __init__(self, tag, args=None):
        self.tag = tag
        self.args = args

    def emit(self):
        if self.args is None:
            return self.tag
        return f"{self.tag}({', '.join(a.emit() for a in self.args)})"

    def ev(self, m, env):
        if self.args is None:
            return VariantVal(self.tag, [])
        return VariantVal(self.tag, [a.ev(m, env) for a in self.args])


class ListLit(Node):
    def __init__(self, items):
        self.items = list(items)

    def emit(self):
        return "[" + ", ".join(e.emit() for e in self.items) + "]"

    def ev(self, m, env):
        return [e.ev(m, env) for e in self.items]


class EmptyMap(Node):
    def emit(self):
        return "{}"

    def ev(self, m, env):
        return {}


class Switch(Node):
    """`switch s { case V(a, b): stmts; value ... default: value }` as an expression.

    arms: list of (tag or None for default, bindings list or None, stmts, value expr).
    """

    prec = 1

    def __init__(self, subject, arms):
        self.subject = subject
        self.arms = arms

    def emit(self):
        parts = []
        for tag, binds, stmts, value in self.arms:
            head = "default" if tag is None else (tag if binds is None else f"{tag}({', '.join(binds)})")
            body = "; ".join([s.emit_inline() for s in stmts] + [value.emit()])
            parts.append(f"case {head}: {body}" if tag is not None else f"default: {body}")
        return f"switch {self.subject.emit()} {{ " + "; ".join(parts) + " }"

    def ev(self, m, env):
        s = self.subject.ev(m, env)
        for tag, binds, stmts, value in self.arms:
            if tag is None:
                continue
            if isinstance(s, VariantVal) and s.tag == tag or (not isinstance(s, VariantVal) and s == tag):
                return self._arm(m, env, s, binds, stmts, value)
        for tag, binds, stmts, value in self.arms:
            if tag is None:
                return self._arm(m, env, s, None, stmts, value)
        raise Trap(6, "no arm")

    def _arm(self, m, env, s, binds, stmts, value):
        inner = env.child()
        if binds:
            for b, v in zip(binds, s.vals):
                inner.define(b, v)
        for st in stmts:
            st.run(m, inner)
        return value.ev(m, inner)


class Query(Node):
    """`from x in SRC where W order by K select S` (one optional clause of each)."""

    def __init__(self, var, source, where=None, order=None, desc=False, take=None, select=None):
        self.var = var
        self.source = source  # a table class name (str) or an expression
        self.where = where
        self.order = order
        self.desc = desc
        self.take = take
        self.select = select

    def emit(self):
        src = self.source if isinstance(self.source, str) else self.source.emit()
        s = f"from {self.var} in {src}"
        if self.where is not None:
            s += f" where {self.where.emit()}"
        if self.order is not None:
            s += f" order by {self.order.emit()}" + (" desc" if self.desc else "")
        if self.take is not None:
            s += f" take {self.take.emit()}"
        s += f" select {self.select.emit()}"
        return s

    def ev(self, m, env):
        if isinstance(self.source, str):
            rows = [Row(self.source, rid) for rid in sorted(m.tables[self.source]["rows"])]
        else:
            rows = list(self.source.ev(m, env))
        kept = []
        where = self.where
        if "query-once" in m.flags and getattr(self, "hoist", False) and rows:
            # the other reading: a `x.f == value` clause computes its value once
            e = env.child()
            val = where.b.ev(m, e)
            where = Bin(where.op, where.a, Raw("<hoisted>", lambda m_, env_, val=val: val))
        live = None
        if "query-live" in m.flags and not isinstance(self.source, str):
            # the other reading: the source list is walked in place (a change to
            # it in a clause shows in the rest of the walk)
            live = self.source.ev(m, env)
        i = 0
        while i < (len(live) if live is not None else len(rows)):
            r = live[i] if live is not None else rows[i]
            i += 1
            e = env.child()
            e.define(self.var, r)
            if where is None or where.ev(m, e):
                kept.append(r)
        if self.order is not None:
            keyed = []
            for r in kept:
                e = env.child()
                e.define(self.var, r)
                k = self.order.ev(m, e)
                keyed.append((k.encode() if isinstance(k, str) else k, r))
            keyed.sort(key=lambda kr: kr[0], reverse=self.desc)
            kept = [r for _, r in keyed]
        if self.take is not None:
            kept = kept[: self.take.ev(m, env)]
        out = []
        for r in kept:
            e = env.child()
            e.define(self.var, r)
            out.append(self.select.ev(m, e))
        return out


class ActorCall(Node):
    """`call(a, msg)`: the reply of `receive`, after the mailbox drained."""

    def __init__(self, addr, msg):
        self.addr = addr
        self.msg = msg

    def emit(self):
        return f"call({self.addr.emit()}, {self.msg.emit()})"

    def ev(self, m, env):
        a = self.addr.ev(m, env)
        msg = self.msg.ev(m, env)
        m.drain(a)
        return m.receive(a, msg)


class Delete(Node):
    prec = 1

    def __init__(self, row):
        self.row = row

    def emit(self):
        return f"delete {self.row.em(10)}"

    def ev(self, m, env):
        r = self.row.ev(m, env)
        m.delete(r)
        return True


class TryExpr(Node):
    """`try E catch (e) H` (H does not use e)."""

    prec = 1

    def __init__(self, expr, handler):
        self.expr = expr
        self.handler = handler

    def emit(self):
        return f"try {self.expr.emit()} catch (e) {self.handler.emit()}"

    def ev(self, m, env):
        try:
            return self.expr.ev(m, env)
        except Trap:
            return self.handler.ev(m, env)


class Paren(Node):
    def __init__(self, e):
        self.e = e

    def emit(self):
        return "(" + self.e.emit() + ")"

    def ev(self, m, env):
        return self.e.ev(m, env)


class Raw(Node):
    """Source text with a Python evaluator (for the odd form the AST lacks)."""

    def __init__(self, text, fn):
        self.text = text
        self.fn = fn

    def emit(self):
        return self.text

    def ev(self, m, env):
        return self.fn(m, env)


# ---------------------------------------------------------------- statements


class Stmt:
    def emit_lines(self, ind):
        return [" " * ind + self.emit_inline()]

    def emit_inline(self):
        raise NotImplementedError


class Let(Stmt):
    def __init__(self, name, expr, ty=None):
        self.name = name
        self.expr = expr
        self.ty = ty

    def emit_inline(self):
        t = f": {self.ty}" if self.ty else ""
        return f"let {self.name}{t} = {self.expr.emit()}"

    def run(self, m, env):
        env.define(self.name, self.expr.ev(m, env))


class Assign(Stmt):
    """`target = value`: the target's operands first, then the value (decision 0015)."""

    def __init__(self, target, expr):
        self.target = target
        self.expr = expr

    def emit_inline(self):
        return f"{self.target.emit()} = {self.expr.emit()}"

    def run(self, m, env):
        t = self.target
        if "rewalk" in m.flags and not isinstance(t, Var):
            # the other reading: the value first, then the target's operands
            v = self.expr.ev(m, env)
            if isinstance(t, Field):
                m.write_field(t.obj.ev(m, env), t.name, v)
            else:
                xs = t.xs.ev(m, env)
                i = t.i.ev(m, env)
                if isinstance(xs, dict):
                    xs[i] = v
                elif not (0 <= i < len(xs)):
                    raise Trap(6, "multi index out of range")
                else:
                    xs[i] = v
            return
        if isinstance(t, Var):
            v = self.expr.ev(m, env)
            env.set(t.name, v)
        elif isinstance(t, Field):
            o = t.obj.ev(m, env)
            v = self.expr.ev(m, env)
            m.write_field(o, t.name, v)
        elif isinstance(t, Index):
            xs = t.xs.ev(m, env)
            i = t.i.ev(m, env)
            v = self.expr.ev(m, env)
            if isinstance(xs, dict):
                xs[i] = v
            else:
                if not (0 <= i < len(xs)):
                    raise Trap(6, "multi index out of range")
                xs[i] = v
        else:
            raise ValueError("bad assignment target")


class AugAssign(Stmt):
    """`target op= value` (Int): the target's operands, the read, then the value
    (corpus/README.md item 4)."""

    def __init__(self, target, op, expr):
        self.target = target
        self.op = op
        self.expr = expr

    def emit_inline(self):
        return f"{self.target.emit()} {self.op}= {self.expr.emit()}"

    def run(self, m, env):
        t = self.target
        if isinstance(t, Field):
            o = t.obj.ev(m, env)
            old = m.read_field(o, t.name)
            v = self.expr.ev(m, env)
            m.write_field(o, t.name, old + v if self.op == "+" else old - v)
        elif isinstance(t, Var):
            old = env.get(t.name)
            v = self.expr.ev(m, env)
            env.set(t.name, old + v if self.op == "+" else old - v)
        else:
            raise ValueError("compound target")


class ExprStmt(Stmt):
    def __init__(self, expr):
        self.expr = expr

    def emit_inline(self):
        return self.expr.emit()

    def run(self, m, env):
        self.expr.ev(m, env)


class Print(Stmt):
    def __init__(self, expr, kind="print"):
        self.expr = expr
        self.kind = kind

    def emit_inline(self):
        return f"{self.kind}({self.expr.emit()})"

    def run(self, m, env):
        v = self.expr.ev(m, env)
        if isinstance(v, bool):
            v = 1 if v else 0
        m.out.append(str(v))


class If(Stmt):
    def __init__(self, cond, then, els=None):
        self.cond = cond
        self.then = then
        self.els = els

    def emit_lines(self, ind):
        pad = " " * ind
        lines = [f"{pad}if {self.cond.emit()} {{"]
        for s in self.then:
            lines += s.emit_lines(ind + 2)
        if self.els:
            lines.append(f"{pad}}} else {{")
            for s in self.els:
                lines += s.emit_lines(ind + 2)
        lines.append(f"{pad}}}")
        return lines

    def emit_inline(self):
        raise ValueError("block statement inline")

    def run(self, m, env):
        if self.cond.ev(m, env):
            run_block(m, env, self.then)
        elif self.els:
            run_block(m, env, self.els)


class While(Stmt):
    def __init__(self, cond, body):
        self.cond = cond
        self.body = body

    def emit_lines(self, ind):
        pad = " " * ind
        lines = [f"{pad}while {self.cond.emit()} {{"]
        for s in self.body:
            lines += s.emit_lines(ind + 2)
        lines.append(f"{pad}}}")
        return lines

    def run(self, m, env):
        n = 0
        while self.cond.ev(m, env):
            n += 1
            if n > 10000:
                raise RuntimeError("model: loop runs away")
            try:
                run_block(m, env, self.body)
            except _Break:
                break
            except _Continue:
                continue


class For(Stmt):
    """`for x in xs` (live length, the list read once) or `for k, v in m`."""

    def __init__(self, names, expr, body):
        self.names = names if isinstance(names, list) else [names]
        self.expr = expr
        self.body = body

    def emit_lines(self, ind):
        pad = " " * ind
        lines = [f"{pad}for {', '.join(self.names)} in {self.expr.emit()} {{"]
        for s in self.body:
            lines += s.emit_lines(ind + 2)
        lines.append(f"{pad}}}")
        return lines

    def run(self, m, env):
        xs = self.expr.ev(m, env)
        if isinstance(xs, dict):
            items = list(xs.items())
        else:
            items = xs
        i = 0
        while i < len(items):
            e = env.child()
            if isinstance(xs, dict):
                e.define(self.names[0], items[i][0])
                e.define(self.names[1], items[i][1])
            else:
                e.define(self.names[0], items[i])
            i += 1
            try:
                for s in self.body:
                    s.run(m, e)
            except _Break:
                break
            except _Continue:
                continue


class Break(Stmt):
    def emit_inline(self):
        return "break"

    def run(self, m, env):
        raise _Break()


class Return(Stmt):
    def __init__(self, expr=None):
        self.expr = expr

    def emit_inline(self):
        return "return" if self.expr is None else f"return {self.expr.emit()}"

    def run(self, m, env):
        raise _Return(None if self.expr is None else self.expr.ev(m, env))


class Transaction(Stmt):
    def __init__(self, body):
        self.body = body

    def emit_lines(self, ind):
        pad = " " * ind
        lines = [f"{pad}transaction {{"]
        for s in self.body:
            lines += s.emit_lines(ind + 2)
        lines.append(f"{pad}}}")
        return lines

    def run(self, m, env):
        snap = copy.deepcopy(m.tables)
        try:
            run_block(m, env, self.body)
        except Trap:
            m.tables = snap
            raise


class TryLet(Stmt):
    """`let name = try CALL catch (e) { print("trap ${e.code}"); DEFAULT }`."""

    def __init__(self, name, expr, default, say="trap"):
        self.name = name
        self.expr = expr
        self.default = default
        self.say = say

    def emit_inline(self):
        return (f"let {self.name} = try {self.expr.emit()} catch (e) "
                f"{{ print(\"{self.say} ${{e.code}}\"); {self.default.emit()} }}")

    def run(self, m, env):
        try:
            v = self.expr.ev(m, env)
        except Trap as t:
            m.out.append(f"{self.say} {t.code}")
            v = self.default.ev(m, env)
        env.define(self.name, v)


class Send(Stmt):
    def __init__(self, addr, msg):
        self.addr = addr
        self.msg = msg

    def emit_inline(self):
        return f"send({self.addr.emit()}, {self.msg.emit()})"

    def run(self, m, env):
        a = self.addr.ev(m, env)
        msg = self.msg.ev(m, env)
        a.queue.append(msg)


def run_block(m, env, stmts):
    e = env.child()
    for s in stmts:
        s.run(m, e)


# ---------------------------------------------------------------- declarations


class Param:
    def __init__(self, name, ty, conv=""):
        self.name = name
        self.ty = ty
        self.conv = conv  # "", "mut", "take"

    def emit(self):
        return (self.conv + " " if self.conv else "") + f"{self.name}: {self.ty}"


class FnDecl:
    def __init__(self, name, params, ret, body, static=False):
        self.name = name
        self.params = params
        self.ret = ret
        self.body = body
        self.static = static

    def emit_lines(self, ind=0):
        pad = " " * ind
        r = f" -> {self.ret}" if self.ret else ""
        st = "static " if self.static else ""
        lines = [f"{pad}{st}fn {self.name}({', '.join(p.emit() for p in self.params)}){r} {{"]
        for s in self.body:
            lines += s.emit_lines(ind + 2)
        lines.append(f"{pad}}}")
        return lines


class ClassDecl:
    """fields: list of (name, type, default-source-or-None, default-value-maker-or-None)."""

    def __init__(self, name, fields, methods=(), table=None):
        self.name = name
        self.fields = list(fields)
        self.methods = list(methods)
        self.table = table  # None, or the @table(...) argument text ("" for plain @table)

    def method(self, name):
        for f in self.methods:
            if f.name == name:
                return f
        raise KeyError(f"{self.name}.{name}")

    def emit_lines(self, ind=0):
        lines = []
        if self.table is not None:
            lines.append("@table" + (f"({self.table})" if self.table else ""))
        lines.append(f"class {self.name} {{")
        for name, ty, dsrc, _ in self.fields:
            lines.append(f"  {name}: {ty}" + (f" = {dsrc}" if dsrc is not None else ""))
        for f in self.methods:
            lines.append("")
            lines += f.emit_lines(2)
        lines.append("}")
        return lines


class IfaceDecl:
    def __init__(self, name, sigs):
        self.name = name
        self.sigs = sigs  # list of source lines "fn f(x: Int) -> Text"

    def emit_lines(self, ind=0):
        return [f"interface {self.name} {{"] + [f"  {s}" for s in self.sigs] + ["}"]


class UnionDecl:
    def __init__(self, name, variants):
        self.name = name
        self.variants = variants  # list of (tag, [(field, type)] or None)

    def emit_lines(self, ind=0):
        vs = []
        for tag, fields in self.variants:
            if fields is None:
                vs.append(tag)
            else:
                vs.append(f"{tag}({', '.join(f'{n}: {t}' for n, t in fields)})")
        return [f"type {self.name} = " + " | ".join(vs)]


# ---------------------------------------------------------------- the machine


class Env:
    __slots__ = ("vars", "parent")

    def __init__(self, parent=None):
        self.vars = {}
        self.parent = parent

    def child(self):
        return Env(self)

    def define(self, name, v):
        self.vars[name] = v

    def _find(self, name):
        e = self
        while e is not None:
            if name in e.vars:
                return e
            e = e.parent
        raise KeyError(f"model: unknown name {name}")

    def get(self, name):
        return self._find(name).vars[name]

    def set(self, name, v):
        self._find(name).vars[name] = v


class Machine:
    def __init__(self, decls, guards=True, flags=()):
        self.flags = set(flags)
        self.fns = {}
        self.classes = {}
        self.tables = {}
        self.guards = guards
        self.out = []
        for d in decls:
            if isinstance(d, FnDecl):
                self.fns[d.name] = d
            elif isinstance(d, ClassDecl):
                self.classes[d.name] = d
                if d.table is not None:
                    self.tables[d.name] = {"rows": {}, "next": 1}

    # -- objects
    def construct(self, cls, vals):
        c = self.classes[cls]
        f = {}
        for name, _ty, _dsrc, dmake in c.fields:
            if name in vals:
                f[name] = vals[name]
            elif dmake is not None:
                f[name] = dmake()
            else:
                f[name] = None
        return Obj(cls, f)

    def read_field(self, o, name):
        if isinstance(o, Row):
            rows = self.tables[o.table]["rows"]
            if o.id not in rows:
                raise Trap(5, "no such row")
            return deep_copy_value(rows[o.id][name])
        if o is None:
            raise Trap(6, "null receiver")
        return o.f[name]

    def write_field(self, o, name, v):
        if isinstance(o, Row):
            rows = self.tables[o.table]["rows"]
            if o.id not in rows:
                raise Trap(5, "no such row")
            rows[o.id][name] = deep_copy_value(v)
            return
        o.f[name] = v

    # -- tables
    def insert(self, cls, vals):
        t = self.tables.setdefault(cls, {"rows": {}, "next": 1})
        o = self.construct(cls, vals)
        rid = t["next"]
        t["next"] += 1
        t["rows"][rid] = {k: deep_copy_value(v) for k, v in o.f.items()}
        return Row(cls, rid)

    def delete(self, r):
        rows = self.tables[r.table]["rows"]
        if r.id not in rows:
            raise Trap(5, "no such row")
        del rows[r.id]

    # -- actors
    def drain(self, a):
        while a.queue:
            msg = a.queue.pop(0)
            self.receive(a, msg)

    def receive(self, a, msg):
        cls = self.classes[a.state.cls]
        return self.call_fn(cls.method("receive"), a.state, [msg])

    # -- calls
    def check_guard(self, guard, env):
        if guard is None or not self.guards:
            return
        a, b = guard
        if a.ev(self, env) == b.ev(self, env):
            raise Trap(2, "borrow conflict")

    def call_fn(self, fn, self_obj, vals):
        env = Env()
        if self_obj is not None:
            env.define("self", self_obj)
        for p, v in zip(fn.params, vals):
            env.define(p.name, v)
        try:
            for s in fn.body:
                s.run(self, env)
        except _Return as r:
            return r.value
        return None

    def builtin(self, name, vals, arg_nodes):
        if name == "len":
            x = vals[0]
            return len(x.encode()) if isinstance(x, str) else len(x)
        if name == "join":
            return vals[1].join(vals[0])
        if name == "index_of":
            return vals[0].find(vals[1])
        if name == "starts_with":
            return vals[0].startswith(vals[1])
        if name == "ends_with":
            return vals[0].endswith(vals[1])
        if name == "substr":
            s, start, n = vals
            if start < 0:
                start = 0
            if n < 0:
                n = 0
            return s[start:start + n]
        if name == "int_to_text":
            return str(vals[0])
        if name in ("bytes_of_text", "text_of_bytes"):
            return vals[0]
        if name == "bytes_len":
            return len(vals[0])
        if name == "bytes_eq":
            return vals[0] == vals[1]
        if name == "bytes_concat":
            return vals[0] + vals[1]
        if name == "to_lower":
            return vals[0].lower()
        if name == "trim":
            return vals[0].strip(" \t\r\n")
        if name == "push":
            vals[0].append(vals[1])
            return None
        if name == "pop":
            if not vals[0]:
                raise Trap(6, "pop of an empty multi")
            return vals[0].pop()
        if name == "shift":
            if not vals[0]:
                raise Trap(6, "shift of an empty multi")
            return vals[0].pop(0)
        if name == "sort":
            vals[0].sort(key=lambda x: x.encode() if isinstance(x, str) else x)
            return None
        if name == "reverse":
            vals[0].reverse()
            return None
        if name == "get":
            c, k = vals
            if isinstance(c, dict):
                if k not in c:
                    raise Trap(7, "key")
                return c[k]
            if not (0 <= k < len(c)):
                raise Trap(6, "multi index out of range")
            return c[k]
        if name == "to_upper":
            return vals[0].upper()
        if name == "latest":
            if not vals[0]:
                raise Trap(6, "latest of an empty multi")
            return vals[0][-1]
        if name == "set":
            vals[0][vals[1]] = vals[2]
            return None
        if name == "remove":
            if vals[1] in vals[0]:
                del vals[0][vals[1]]
                return True
            return False
        if name == "has":
            return vals[1] in vals[0]
        if name == "key_at":
            ks = list(vals[0].keys())
            if not (0 <= vals[1] < len(ks)):
                raise Trap(6, "index")
            return ks[vals[1]]
        if name == "val_at":
            vs = list(vals[0].values())
            if not (0 <= vals[1] < len(vs)):
                raise Trap(6, "index")
            return vs[vals[1]]
        if name == "count":
            return len(vals[0])
        raise KeyError(f"model: builtin {name}")


def emit_program(decls, main_body):
    lines = []
    for d in decls:
        lines += d.emit_lines(0)
        lines.append("")
    lines.append("fn main() {")
    for s in main_body:
        lines += s.emit_lines(2)
    lines.append("}")
    return "\n".join(lines) + "\n"


def run_program(decls, main_body, guards=True, flags=()):
    """stdout of the program in the model, and the code of a trap that left main."""
    m = Machine(decls, guards=guards, flags=flags)
    env = Env()
    try:
        for s in main_body:
            s.run(m, env)
    except Trap as t:
        return "\n".join(m.out) + ("\n" if m.out else ""), t.code
    return "\n".join(m.out) + ("\n" if m.out else ""), None
