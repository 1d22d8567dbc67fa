#!/usr/bin/env python3
"""Generator of small well-typed .wo programs that put a borrow-forming
construct before a destroying or mutating one (README.md), each with the
verdict the spec allows and the stdout the reference model (model.py) says
a correct woc prints.

A case is one combination
    root       how the owner is reached: a local, a `mut` parameter, `self`,
               an element (constant or run-time index), a field of a holder,
               a traced owner, a table row
    part       what is borrowed: a Text field, a nested Text field, an element,
               a map value, an object field, a list, a map, an interface
               value, a payload union, an Int
    construct  the borrow-forming use: `..`, `"${}"`, `==`/`<`, a user/builtin/
               interface call argument, a method or interface receiver,
               `let r = part`, `for`, a `switch` binding, a constructor /
               variant / `insert` / `spawn` field, a `send`, a query clause,
               an assignment target, a returned borrow
    destroyer  what runs after the borrow (a later operand, argument, the
               callee itself, the loop body): an assignment, push/pop/shift/
               sort/reverse/set/remove, a `mut` argument, a method writing
               self, an interface call, a `take` (move), `send`/`spawn`,
               `delete`, a `transaction { }` undone by a trap
and the result is a Case: declarations (every name carries the case's
prefix, so cases can be batched into one program), a `kN_main() -> Int`, the
verdict and the expected outputs.

  python3 gen.py --seed 7 --index 3          print one case (program + verdict + expected)
  python3 gen.py --list 20                   one line per case of the fixed set
"""

import argparse
import random
import sys

sys.dont_write_bytecode = True   # no __pycache__ in the source tree
import model as M  # noqa: E402
from model import (Assign, Bin, Break, Call, ClassDecl, Concat, EmptyMap, ExprStmt, Field, FnDecl,
                   For, Fresh, If, IfaceDecl, Index, Insert, Interp, Let, ListLit, Lit, MCall, New,
                   Param, Print, Query, Return, Send, Spawn, Switch, Transaction, TryExpr, TryLet,
                   UnionDecl, Var, Variant, While, ActorCall, Delete, Paren, AugAssign)

E30X = ("WO-E301", "WO-E302", "WO-E303", "WO-E304", "WO-E305")
ACCEPT, EITHER, REFUSE = "accept", "either", "refuse"


# ---------------------------------------------------------------- the world of one case


class World:
    """Names and declarations of one case (prefix kN / KN)."""

    def __init__(self, name, rng, traced=False):
        self.k = name            # functions: k17_pair
        self.T = name.upper()    # types: K17Ow
        self.rng = rng
        self.traced = traced
        self.serial = 0
        self.ow_fields = []      # owner fields in use, in order
        self.ow_methods = []
        self.in_methods = {}
        self.decls = []          # other declarations, in order
        self.declared = set()
        self.helpers = {}

    def t(self, base):
        return f"{self.T}{base}"

    def f(self, base):
        return f"{self.k}_{base}"

    def fresh(self, tag):
        self.serial += 1
        return Fresh(tag + "-", self.serial)

    def once(self, key, make):
        if key not in self.declared:
            self.declared.add(key)
            d = make()
            if d is not None:
                self.decls.append(d)
        return key

    # -- types
    def need_in(self):
        return self.t("In")

    def need_field(self, name):
        if name not in self.ow_fields:
            self.ow_fields.append(name)
        if name == "slot":
            self.need_slot()
        if name in ("shape", "shapes"):
            self.need_shape()
        if name == "rows":
            self.need_rw()

    def need_slot(self):
        def mk():
            return UnionDecl(self.t("Slot"), [(self.t("Empty"), None),
                                              (self.t("Full"), [("v", "Text")]),
                                              (self.t("Boxed"), [("i", self.t("In"))])])
        return self.once("slot", mk)

    def need_shape(self):
        def mk():
            self.decls.append(ClassDecl(self.t("Sq"), [("tag", "Text", None, None)], [
                FnDecl("label", [Param("t", "Text")], "Text",
                       [Return(Concat(Lit("sq:"), Field(Var("self"), "tag"), Lit("/"), Var("t")))]),
                FnDecl("relabel", [Param("t", "Text")], "Text",
                       [Assign(Field(Var("self"), "tag"), Var("t")), Return(Lit("rl"))]),
            ]))
            self.decls.append(ClassDecl(self.t("Circ"), [("tag", "Text", None, None), ("r", "Int", "0", lambda: 0)], [
                FnDecl("label", [Param("t", "Text")], "Text",
                       [Return(Concat(Lit("circ:"), Field(Var("self"), "tag"), Lit("/"), Var("t")))]),
                FnDecl("relabel", [Param("t", "Text")], "Text",
                       [Assign(Field(Var("self"), "tag"), Var("t")), Return(Lit("rl"))]),
            ]))
            return IfaceDecl(self.t("Shape"), ["fn label(t: Text) -> Text", "fn relabel(t: Text) -> Text"])
        return self.once("shape", mk)

    def need_rw(self):
        def mk():
            return ClassDecl(self.t("Rw"), [("name", "Text", None, None),
                                            ("words", "multi Text", "[]", lambda: [])],
                             table="durable: false")
        return self.once("rw", mk)

    def helper(self, key, make):
        """A function declared once per case; returns its name."""
        name = self.f(key)
        if name not in self.helpers:
            self.helpers[name] = True
            self.decls.append(make(name))
        return name

    # -- owner declaration
    FIELD_TYPES = {
        "name": "Text", "n": "Int", "inner": "In", "words": "multi Text", "kids": "multi In",
        "tags": "map<Text, Text>", "kmap": "map<Text, In>", "shape": "Shape", "slot": "Slot",
        "rows": "multi Rw", "data": "Bytes", "opt": "?In", "shapes": "multi Shape",
    }

    def field_type(self, name):
        ty = self.FIELD_TYPES[name]
        for base in ("In", "Shape", "Slot", "Rw", "Shape"):
            if ty.endswith(base) and not ty.endswith(self.T + base):
                ty = ty[: -len(base)] + self.t(base)
                break
        if ty == "map<Text, In>":
            ty = f"map<Text, {self.t('In')}>"
        return ty

    def owner_decls(self):
        fields = []
        for name in self.ow_fields:
            ty = self.field_type(name)
            if name == "tags" or name == "kmap":
                fields.append((name, ty, "{}", lambda: {}))
            elif name == "rows":
                fields.append((name, ty, "[]", lambda: []))
            else:
                fields.append((name, ty, None, None))
        if self.traced:
            fields.append(("nx", "?" + self.t("Ow"), None, None))
        ow = ClassDecl(self.t("Ow"), fields, self.ow_methods)
        in_fields = [("name", "Text", None, None), ("c", "Int", "0", lambda: 0)]
        if self.traced:
            in_fields.append(("nx", "?" + self.t("In"), None, None))
        in_methods = [
            FnDecl("greet", [Param("t", "Text")], "Text",
                   [Return(Concat(Field(Var("self"), "name"), Lit("+"), Var("t")))]),
            FnDecl("rename", [Param("t", "Text")], "Text",
                   [Assign(Field(Var("self"), "name"), Var("t")), Return(Lit("rn"))]),
        ] + list(self.in_methods.values())
        inn = ClassDecl(self.t("In"), in_fields, in_methods)
        return [ow, inn]

    def new_in(self, tag):
        return New(self.t("In"), [("name", self.fresh(tag))])

    def new_owner(self, tag="o"):
        """A constructor literal for the owner and the statements filling its maps/rows,
        as a function of the owner's access expression."""
        fields = []
        fills = []
        for name in self.ow_fields:
            if name == "name":
                fields.append(("name", self.fresh(f"{tag}name")))
            elif name == "n":
                fields.append(("n", Lit(7)))
            elif name == "shapes":
                fields.append(("shapes", ListLit([New(self.t("Sq"), [("tag", self.fresh(f"{tag}sh0"))]),
                                                  New(self.t("Circ"), [("tag", self.fresh(f"{tag}sh1"))])])))
            elif name == "opt":
                fields.append(("opt", self.new_in(f"{tag}opt")))
            elif name == "data":
                fields.append(("data", Call("bytes_of_text", [self.fresh(f"{tag}data")])))
            elif name == "inner":
                fields.append(("inner", self.new_in(f"{tag}inner")))
            elif name == "words":
                fields.append(("words", ListLit([self.fresh(f"{tag}w0"), self.fresh(f"{tag}w1"),
                                                 self.fresh(f"{tag}w2")])))
            elif name == "kids":
                fields.append(("kids", ListLit([self.new_in(f"{tag}kid0"), self.new_in(f"{tag}kid1"),
                                                self.new_in(f"{tag}kid2")])))
            elif name == "shape":
                cls = self.rng.choice(["Sq", "Circ"])
                fields.append(("shape", New(self.t(cls), [("tag", self.fresh(f"{tag}shape"))])))
            elif name == "slot":
                if self.rng.random() < 0.5:
                    fields.append(("slot", Variant(self.t("Full"), [self.fresh(f"{tag}slot")])))
                else:
                    fields.append(("slot", Variant(self.t("Boxed"), [self.new_in(f"{tag}boxed")])))
            elif name == "tags":
                va, vb = self.fresh(f"{tag}tag-a"), self.fresh(f"{tag}tag-b")
                fills.append(lambda R, va=va, vb=vb: [Assign(Index(Field(R, "tags"), Lit("a")), va),
                                                      Assign(Index(Field(R, "tags"), Lit("b")), vb)])
            elif name == "kmap":
                ia, ib = self.new_in(f"{tag}km-a"), self.new_in(f"{tag}km-b")
                fills.append(lambda R, ia=ia, ib=ib: [Assign(Index(Field(R, "kmap"), Lit("a")), ia),
                                                      Assign(Index(Field(R, "kmap"), Lit("b")), ib)])
            elif name == "rows":
                r1, r2 = self.fresh(f"{tag}row1"), self.fresh(f"{tag}row2")
                rw = self.t("Rw")
                fills.append(lambda R, r1=r1, r2=r2: [
                    ExprStmt(Call("push", [Field(R, "rows"), Insert(rw, [("name", r1)])])),
                    ExprStmt(Call("push", [Field(R, "rows"), Insert(rw, [("name", r2)])]))])
        ctor = New(self.t("Ow"), fields)

        def fill(R):
            out = []
            for fl in fills:
                out += fl(R)
            return out
        return ctor, fill

    # -- printing helpers (plain borrowed parameters)
    def scribble(self):
        """`let sc = kN_scribble()`: allocates Texts of many sizes and a few objects and
        frees them, so that memory freed too early is reused before a stale read
        (wrong values show even in a release build)."""
        inn = self.t("In")

        def mk(name):
            return FnDecl(name, [], "Int", [
                Let("xs", ListLit([]), "multi Text"),
                Let("ys", ListLit([]), f"multi {inn}"),
                Let("n", Lit(0)),
                While(Bin("<", Var("n"), Lit(12)), [
                    ExprStmt(Call("push", [Var("xs"), Concat(Call("substr", [Lit("scribble-scribble-scribble-scribble-"), Lit(0),
                                                                             Bin("*", Var("n"), Lit(3))]),
                                                              Call("int_to_text", [Var("n")]))])),
                    ExprStmt(Call("push", [Var("ys"), New(inn, [("name", Concat(Lit("scribbled-"), Call("int_to_text", [Var("n")])))])])),
                    Assign(Var("n"), Bin("+", Var("n"), Lit(1)))]),
                Return(Bin("+", Call("len", [Var("xs")]), Call("len", [Var("ys")])))])
        out = [Let("sc", Call(self.helper("scribble", mk), []))]
        if getattr(self, "dest_traps", False):
            def mkz(name):
                return FnDecl(name, [], "Int", [Return(Lit(0))])
            out.append(Let("q", Bin("/", Lit(10), Call(self.helper("zero", mkz), []))))
        return out

    def names_fn(self):
        def mk(name):
            return FnDecl(name, [Param("xs", f"multi {self.t('In')}")], "Text", [
                Let("out", Lit("")),
                For("x", Var("xs"), [Assign(Var("out"), Concat(Var("out"), Field(Var("x"), "name"), Lit(",")))]),
                Return(Var("out"))])
        return self.helper("names", mk)

    def mapstr_fn(self):
        def mk(name):
            return FnDecl(name, [Param("m", "map<Text, Text>")], "Text", [
                Let("out", Lit("")),
                For(["k", "v"], Var("m"), [Assign(Var("out"), Concat(Var("out"), Var("k"), Lit("="), Var("v"), Lit(",")))]),
                Return(Var("out"))])
        return self.helper("mapstr", mk)

    def omapstr_fn(self):
        def mk(name):
            return FnDecl(name, [Param("m", f"map<Text, {self.t('In')}>")], "Text", [
                Let("out", Lit("")),
                For(["k", "v"], Var("m"), [Assign(Var("out"), Concat(Var("out"), Var("k"), Lit("="),
                                                                     Field(Var("v"), "name"), Lit(",")))]),
                Return(Var("out"))])
        return self.helper("omapstr", mk)

    def slotstr_fn(self):
        self.need_slot()

        def mk(name):
            return FnDecl(name, [Param("s", self.t("Slot"))], "Text", [
                Return(Switch(Var("s"), [
                    (self.t("Empty"), None, [], Lit("empty")),
                    (self.t("Full"), ["v"], [], Concat(Lit("full:"), Var("v"))),
                    (self.t("Boxed"), ["i"], [], Concat(Lit("boxed:"), Field(Var("i"), "name")))]))])
        return self.helper("slotstr", mk)

    def rowsstr_fn(self):
        self.need_rw()

        def mk(name):
            return FnDecl(name, [Param("xs", f"multi {self.t('Rw')}")], "Text", [
                Let("out", Lit("")),
                For("x", Var("xs"), [Assign(Var("out"), Concat(Var("out"), Field(Var("x"), "name"), Lit(",")))]),
                Return(Var("out"))])
        return self.helper("rowsstr", mk)

    def as_text(self, kind, e):
        """A Text expression reading the borrowed value e of this kind (at its use)."""
        if kind == "text":
            return e
        if kind == "int":
            return Call("int_to_text", [e])
        if kind == "bytes":
            return Call("text_of_bytes", [e])
        if kind == "obj":
            return Field(e, "name")
        if kind == "tlist":
            return Call("join", [e, Lit(",")])
        if kind == "olist":
            return Call(self.names_fn(), [e])
        if kind == "tmap":
            return Call(self.mapstr_fn(), [e])
        if kind == "omap":
            return Call(self.omapstr_fn(), [e])
        if kind == "iface":
            return MCall(e, "label", [Lit(".")])
        if kind == "union":
            return Call(self.slotstr_fn(), [e])
        if kind == "rlist":
            return Call(self.rowsstr_fn(), [e])
        if kind == "nobj":
            def mk(name):
                return FnDecl(name, [Param("x", "?" + self.t("In"))], "Text", [
                    If(Bin("==", Var("x"), M.Nil()), [Return(Lit("nil"))]), Return(Field(Var("x"), "name"))])
            return Call(self.helper("optname", mk), [e])
        raise ValueError(kind)

    def kind_type(self, kind):
        return {"text": "Text", "int": "Int", "bytes": "Bytes", "obj": self.t("In"), "tlist": "multi Text",
                "olist": f"multi {self.t('In')}", "tmap": "map<Text, Text>",
                "omap": f"map<Text, {self.t('In')}>", "iface": self.t("Shape"),
                "union": self.t("Slot"), "rlist": f"multi {self.t('Rw')}", "nobj": "?" + self.t("In")}[kind]


# ---------------------------------------------------------------- parts


class Part:
    def __init__(self, key, kind, field, path, read, old=None):
        self.key = key
        self.kind = kind
        self.field = field
        self.path = path      # static path under the owner ('?k' = a run-time index)
        self.read = read      # R -> expression
        self.old = old        # for Text parts: a function giving a Fresh equal to the initial value
        self.setup = []       # statements the read needs in its scope (let k = ...)


PART_KEYS = ["shapes[0]", "shapes[k]", "opt", "kmap[a]?", "name-fn", "words-latest", "tags-val0", "tags-key0", "kids-latest", "name", "inner.name", "words[0]", "words[k]", "tags[a]", "n", "data", "kids[0].name", "kmap[a].name",
             "inner", "kids[0]", "kids[k]", "kmap[a]",
             "words", "kids", "tags", "kmap", "shape", "slot", "rows"]

PART_KIND = {"shapes[0]": "iface", "shapes[k]": "iface", "opt": "nobj", "kmap[a]?": "nobj", "name-fn": "text", "words-latest": "text", "tags-val0": "text", "tags-key0": "text",
             "kids-latest": "obj", "data": "bytes", "kids[0].name": "text", "kmap[a].name": "text", "name": "text", "inner.name": "text", "words[0]": "text", "words[k]": "text",
             "tags[a]": "text", "n": "int", "inner": "obj", "kids[0]": "obj", "kids[k]": "obj",
             "kmap[a]": "obj", "words": "tlist", "kids": "olist", "tags": "tmap", "kmap": "omap",
             "shape": "iface", "slot": "union", "rows": "rlist"}


def make_part(w, key):
    field = key.split("[")[0].split(".")[0].split("-")[0]
    field = field.rstrip("?")
    w.need_field(field)
    kind = PART_KIND[key]
    if key == "name":
        return Part(key, kind, field, ("name",), lambda R: Field(R, "name"))
    if key == "n":
        return Part(key, kind, field, ("n",), lambda R: Field(R, "n"))
    if key == "data":
        return Part(key, kind, field, ("data",), lambda R: Field(R, "data"))
    if key == "opt":
        return Part(key, kind, field, ("opt",), lambda R: Field(R, "opt"))
    if key == "kmap[a]?":
        return Part(key, kind, "kmap", ("kmap", "a"), lambda R: Index(Field(R, "kmap"), Lit("a")))
    if key == "name-fn":
        # a function's result is a fresh value (§15.7), whatever it read
        def mk(n):
            return FnDecl(n, [Param("o", w.t("Ow"))], "Text", [Return(Field(Var("o"), "name"))])
        g = w.helper("name_of", mk)
        p = Part(key, kind, field, ("name",), lambda R: Call(g, [R]))
        p.fresh = True
        return p
    if key == "words-latest":
        return Part(key, kind, field, ("words",), lambda R: Call("latest", [Field(R, "words")]))
    if key == "kids-latest":
        return Part(key, kind, field, ("kids",), lambda R: Call("latest", [Field(R, "kids")]))
    if key == "tags-val0":
        return Part(key, kind, field, ("tags",), lambda R: Call("val_at", [Field(R, "tags"), Lit(0)]))
    if key == "tags-key0":
        return Part(key, kind, field, ("tags",), lambda R: Call("key_at", [Field(R, "tags"), Lit(0)]))
    if key == "kids[0].name":
        return Part(key, kind, field, ("kids", 0, "name"), lambda R: Field(Index(Field(R, "kids"), Lit(0)), "name"))
    if key == "kmap[a].name":
        return Part(key, kind, field, ("kmap", "a", "name"), lambda R: Field(Call("get", [Field(R, "kmap"), Lit("a")]), "name"))
    if key == "inner.name":
        return Part(key, kind, field, ("inner", "name"), lambda R: Field(Field(R, "inner"), "name"))
    if key in ("words[0]", "kids[0]", "shapes[0]"):
        p = Part(key, kind, field, (field, 0), lambda R: Index(Field(R, field), Lit(0)))
        if w.rng.random() < 0.3:  # the BORROWED builtin form: get(xs, 0)
            p.read = lambda R: Call("get", [Field(R, field), Lit(0)])
            p.key += "/get"
        return p
    if key in ("words[k]", "kids[k]", "shapes[k]"):
        kv = w.rng.choice([0, 1, 2])
        p = Part(key, kind, field, (field, "?k"), lambda R: Index(Field(R, field), Var("k")))
        p.setup = [Let("k", Lit(kv))]
        return p
    if key in ("tags[a]", "kmap[a]"):
        return Part(key, kind, field, (field, "a"), lambda R: Call("get", [Field(R, field), Lit("a")]))
    return Part(key, kind, field, (field,), lambda R: Field(R, field))


def post_stmts(w, field, R):
    """Statements printing the owner's field after the construct."""
    if field == "name":
        return [Print(Field(R, "name"))]
    if field == "n":
        return [Print(Field(R, "n"), "print_int")]
    if field == "data":
        return [Print(Call("text_of_bytes", [Field(R, "data")]))]
    if field == "inner":
        return [Print(Field(Field(R, "inner"), "name"))]
    if field == "opt":
        return [Let("po", Field(R, "opt")), If(Bin("!=", Var("po"), M.Nil()), [Print(Field(Var("po"), "name"))],
                                               [Print(Lit("nil"))])]
    if field == "shapes":
        def mk(name):
            return FnDecl(name, [Param("xs", f"multi {w.t('Shape')}")], "Text", [
                Let("out", Lit("")),
                For("x", Var("xs"), [Assign(Var("out"), Concat(Var("out"), MCall(Var("x"), "label", [Lit(".")]), Lit(",")))]),
                Return(Var("out"))])
        return [Print(Call(w.helper("labels", mk), [Field(R, "shapes")]))]
    kind = {"words": "tlist", "kids": "olist", "tags": "tmap", "kmap": "omap", "shape": "iface",
            "slot": "union", "rows": "rlist"}[field]
    return [Print(w.as_text(kind, Field(R, field)))]


# ---------------------------------------------------------------- destroying operations


class Op:
    """A change to one field of the owner: stmts(F) where F is the field's place;
    expr(F), when set, is the same change as a Text-valued expression."""

    def __init__(self, key, field, stmts, path=None, expr=None, part_ok=True):
        self.key = key
        self.field = field
        self.stmts = stmts
        self.path = path or (field,)
        self.expr = expr
        self.part_ok = part_ok   # may run on the field passed alone as `mut`


def ops_for(w, field):
    """Every op on `field` (fresh values are made when the op is instantiated)."""
    T = w.t
    ops = []
    if field == "name":
        ops.append(Op("set", field, lambda F: [Assign(F, w.fresh("new"))]))
    elif field == "n":
        ops.append(Op("set", field, lambda F: [Assign(F, Lit(99))]))
    elif field == "shapes":
        mk = lambda: New(w.t(w.rng.choice(["Sq", "Circ"])), [("tag", w.fresh("newshape"))])
        ops.append(Op("set-elem0", field, lambda F: [Assign(Index(F, Lit(0)), mk())], path=(field, 0)))
        ops.append(Op("replace", field, lambda F: [Assign(F, ListLit([mk()]))]))
        ops.append(Op("drain", field, lambda F: [While(Bin(">", Call("len", [F]), Lit(0)), [ExprStmt(Call("pop", [F]))])]))
        ops.append(Op("relabel-elem0", field, lambda F: [ExprStmt(MCall(Index(F, Lit(0)), "relabel", [w.fresh("relabeled")]))],
                      path=(field, 0)))
        ops.append(Op("reverse", field, lambda F: [ExprStmt(Call("reverse", [F]))]))
    elif field == "opt":
        ops.append(Op("set-nil", field, lambda F: [Assign(F, M.Nil())]))
        ops.append(Op("replace", field, lambda F: [Assign(F, w.new_in("newopt"))]))
    elif field == "data":
        ops.append(Op("set", field, lambda F: [Assign(F, Call("bytes_of_text", [w.fresh("newdata")]))]))
    elif field == "inner":
        ops.append(Op("replace", field, lambda F: [Assign(F, w.new_in("new"))]))
        ops.append(Op("rename", field, lambda F: [Assign(Field(F, "name"), w.fresh("renamed"))],
                      path=("inner", "name")))
        ops.append(Op("rename-method", field, lambda F: [ExprStmt(MCall(F, "rename", [w.fresh("renamed")]))],
                      expr=lambda F: MCall(F, "rename", [w.fresh("renamed")])))
    elif field in ("words", "kids"):
        mk = (lambda: w.fresh("new")) if field == "words" else (lambda: w.new_in("new"))
        ops.append(Op("set-elem0", field, lambda F: [Assign(Index(F, Lit(0)), mk())], path=(field, 0)))
        ops.append(Op("replace", field, lambda F: [Assign(F, ListLit([mk()]))]))
        ops.append(Op("drain", field, lambda F: [While(Bin(">", Call("len", [F]), Lit(0)),
                                                        [ExprStmt(Call("pop", [F]))])]))
        ops.append(Op("pop", field, lambda F: [ExprStmt(Call("pop", [F]))],
                      expr=(lambda F: Call("pop", [F])) if field == "words" else None))
        ops.append(Op("shift", field, lambda F: [ExprStmt(Call("shift", [F]))],
                      expr=(lambda F: Call("shift", [F])) if field == "words" else None))
        ops.append(Op("push", field, lambda F: [ExprStmt(Call("push", [F, mk()])) for _ in range(5)]))
        ops.append(Op("reverse", field, lambda F: [ExprStmt(Call("reverse", [F]))]))
        if field == "words":
            ops.append(Op("sort", field, lambda F: [ExprStmt(Call("push", [F, Lit("A-first")])),
                                                    ExprStmt(Call("sort", [F]))]))
        else:
            ops.append(Op("elem-rename", field, lambda F: [Assign(Field(F, "name"), w.fresh("renamed"))]))
            ops.append(Op("elem-rebind", field, lambda F: [Assign(F, w.new_in("rebound"))]))
            ops.append(Op("rename-elem0", field, lambda F: [Assign(Field(Index(F, Lit(0)), "name"), w.fresh("renamed"))],
                          path=(field, 0, "name")))
    elif field in ("tags", "kmap"):
        mk = (lambda: w.fresh("new")) if field == "tags" else (lambda: w.new_in("new"))
        ops.append(Op("assign-a", field, lambda F: [Assign(Index(F, Lit("a")), mk())], path=(field, "a")))
        ops.append(Op("set-a", field, lambda F: [ExprStmt(Call("set", [F, Lit("a"), mk()]))], path=(field, "a")))
        ops.append(Op("remove-a", field, lambda F: [ExprStmt(Call("remove", [F, Lit("a")]))], path=(field, "a")))
        ops.append(Op("replace", field, lambda F: [Assign(F, EmptyMap())]))
    elif field == "shape":
        ops.append(Op("replace", field, lambda F: [Assign(F, New(w.t(w.rng.choice(["Sq", "Circ"])),
                                                                 [("tag", w.fresh("newshape"))]))]))
        ops.append(Op("relabel", field, lambda F: [ExprStmt(MCall(F, "relabel", [w.fresh("relabeled")]))],
                      expr=lambda F: MCall(F, "relabel", [w.fresh("relabeled")])))
    elif field == "slot":
        w.need_slot()
        ops.append(Op("empty", field, lambda F: [Assign(F, Variant(w.t("Empty")))]))
        ops.append(Op("full", field, lambda F: [Assign(F, Variant(w.t("Full"), [w.fresh("newslot")]))]))
        ops.append(Op("boxed", field, lambda F: [Assign(F, Variant(w.t("Boxed"), [w.new_in("newboxed")]))]))
    elif field == "rows":
        w.need_rw()
        ops.append(Op("replace", field, lambda F: [Assign(F, ListLit([Insert(w.t("Rw"), [("name", w.fresh("newrow"))])]))],
                      part_ok=False))
        ops.append(Op("drain", field, lambda F: [While(Bin(">", Call("len", [F]), Lit(0)),
                                                        [ExprStmt(Call("pop", [F]))])]))
        ops.append(Op("reverse", field, lambda F: [ExprStmt(Call("reverse", [F]))]))
    return ops


OP_FIELDS = ["name", "n", "opt", "shapes", "data", "inner", "words", "kids", "tags", "kmap", "shape", "slot", "rows"]


# ---------------------------------------------------------------- roots


class Root:
    """How the construct reaches the owner.

    setup_main: statements of kN_main creating the owner; R: the owner inside the
    construct's scope; Rd: the owner as the destroyer reaches it; Rpost: in kN_main,
    after the construct; place/dplace: static places of R and Rd; wrap(stmts):
    the construct placed in its scope (kN_main, a helper, a method), returning
    the statements of kN_main that run it."""

    movable = False
    key = "?"


def make_root(w, key):
    r = Root()
    r.key = key
    ow = w.t("Ow")
    ctor, fill = None, None

    def local_setup():
        c, fl = w.new_owner()
        return [Let("o", c)] + fl(Var("o"))

    if key in ("local", "traced"):
        r.R = r.Rd = r.Rpost = Var("o")
        r.place = r.dplace = ("o",)
        r.movable = True
        r.setup_main = local_setup
        r.wrap = lambda stmts, ret=None: stmts + ([Print(ret)] if ret is not None else [])
    elif key == "mutparam":
        r.R = r.Rd = Var("o")
        r.Rpost = Var("o")
        r.place = r.dplace = ("o",)
        r.setup_main = local_setup

        def wrap(stmts, ret=None):
            h = w.f("probe")
            if ret is not None:
                w.decls.append(FnDecl(h, [Param("o", ow, "mut")], "Text", stmts + [Return(ret)]))
                return [Print(Call(h, [Var("o")]))]
            w.decls.append(FnDecl(h, [Param("o", ow, "mut")], "Int", stmts + [Return(Lit(0))]))
            return [ExprStmt(Call(h, [Var("o")]))]
        r.wrap = wrap
    elif key == "self":
        r.R = r.Rd = Var("self")
        r.Rpost = Var("o")
        r.place = r.dplace = ("self",)
        r.setup_main = local_setup

        def wrap(stmts, ret=None):
            if ret is not None:
                w.ow_methods.append(FnDecl("probe", [], "Text", stmts + [Return(ret)]))
                return [Print(MCall(Var("o"), "probe", []))]
            w.ow_methods.append(FnDecl("probe", [], "Int", stmts + [Return(Lit(0))]))
            return [ExprStmt(MCall(Var("o"), "probe", []))]
        r.wrap = wrap
    elif key == "iface-self":
        # the owner held as an interface value, the construct in a method reached by dispatch
        r.R = r.Rd = Var("self")
        r.Rpost = Var("self")
        r.place = r.dplace = ("self",)
        probe = w.t("Probe")

        def setup():
            c, fl = w.new_owner()
            return [Let("o0", c)] + fl(Var("o0")) + [Let("o", Var("o0"), probe)]
        r.setup_main = setup

        def wrap(stmts, ret=None):
            rty = "Text" if ret is not None else "Int"
            w.decls.append(IfaceDecl(probe, [f"fn probe() -> {rty}", "fn post() -> Int"]))
            other = w.t("Other")
            w.decls.append(ClassDecl(other, [("k", "Int", None, None)], [
                FnDecl("probe", [], rty, [Return(Lit("other") if ret is not None else Lit(1))]),
                FnDecl("post", [], "Int", [Return(Lit(1))])]))
            if ret is not None:
                w.ow_methods.append(FnDecl("probe", [], "Text", stmts + [Return(ret)]))
                return [Print(MCall(Var("o"), "probe", []))]
            w.ow_methods.append(FnDecl("probe", [], "Int", stmts + [Return(Lit(0))]))
            return [ExprStmt(MCall(Var("o"), "probe", []))]
        r.wrap = wrap

        def post_wrap(post):
            w.ow_methods.append(FnDecl("post", [], "Int", post + [Return(Lit(0))]))
            return [ExprStmt(MCall(Var("o"), "post", []))]
        r.post_wrap = post_wrap
    elif key in ("elem", "elem-rt"):
        def setup():
            c0, f0 = w.new_owner("e0")
            c1, f1 = w.new_owner("e1")
            out = [Let("os", ListLit([c0, c1]), f"multi {ow}")]
            out += f0(Index(Var("os"), Lit(0))) + f1(Index(Var("os"), Lit(1)))
            if key == "elem-rt":
                out += [Let("i", Lit(1)), Let("j", Lit(r.j))]
            return out
        r.setup_main = setup
        r.Rpost = Index(Var("os"), Lit(1))
        if key == "elem":
            r.R = r.Rd = Index(Var("os"), Lit(1))
            r.place = r.dplace = ("os", 1)
        else:
            r.j = w.rng.choice([0, 1, 1])
            r.R = Index(Var("os"), Var("i"))
            r.Rd = Index(Var("os"), Var("j"))
            r.place = ("os", "?i")
            r.dplace = ("os", "?j")
            r.guard = (Var("i"), Var("j"))
        r.wrap = lambda stmts, ret=None: stmts + ([Print(ret)] if ret is not None else [])
    elif key == "field":
        hold = w.t("Hold")

        def setup():
            w.once("hold", lambda: ClassDecl(hold, [("o", ow, None, None)]))
            c, fl = w.new_owner()
            return [Let("h", New(hold, [("o", c)]))] + fl(Field(Var("h"), "o"))
        r.setup_main = setup
        r.R = r.Rd = r.Rpost = Field(Var("h"), "o")
        r.place = r.dplace = ("h", "o")
        r.wrap = lambda stmts, ret=None: stmts + ([Print(ret)] if ret is not None else [])
    else:
        raise ValueError(key)
    if not hasattr(r, "post_wrap"):
        r.post_wrap = lambda post: post
    return r


ROOT_KEYS = ["local", "mutparam", "self", "iface-self", "elem", "elem-rt", "field", "traced"]


# ---------------------------------------------------------------- destroyers


class Destroyer:
    """expr: a Text-valued expression doing the change (None: statement only);
    stmts: the same as statements; place: the static place it gets exclusively
    (or takes); effect: 'mutate' or 'move'."""


DFORMS = ["fn", "fn-part", "method", "iface", "expr", "direct", "move", "container", "elem"]


def make_destroyer(w, root, form, op, ret):
    """ret: the Text the destroying function returns (an expression maker)."""
    d = Destroyer()
    d.form = form
    d.op = op
    d.effect = "mutate"
    ow = w.t("Ow")
    idx = len(w.decls) + len(w.ow_methods)
    if form == "fn":
        name = w.f(f"d{idx}")
        w.decls.append(FnDecl(name, [Param("o", ow, "mut")], "Text",
                              op.stmts(Field(Var("o"), op.field)) + w.scribble() + [Return(ret())]))
        d.expr = lambda: Call(name, [root.Rd], guard=getattr(root, "guard", None))
        d.place = root.dplace
    elif form == "fn-part":
        name = w.f(f"d{idx}")
        w.decls.append(FnDecl(name, [Param("x", w.field_type(op.field), "mut")], "Text",
                              op.stmts(Var("x")) + w.scribble() + [Return(ret())]))
        d.expr = lambda: Call(name, [Field(root.Rd, op.field)], guard=getattr(root, "guard", None))
        d.place = root.dplace + (op.field,)
    elif form == "method":
        name = f"d{idx}"
        w.ow_methods.append(FnDecl(name, [], "Text", op.stmts(Field(Var("self"), op.field)) + w.scribble() + [Return(ret())]))
        d.expr = lambda: MCall(root.Rd, name, [], guard=getattr(root, "guard", None))
        d.place = root.dplace
    elif form == "iface":
        sink, eater, idle = w.t("Sink"), w.t("Eater"), w.t("Idle")
        w.once("sink", lambda: IfaceDecl(sink, [f"fn eat(mut o: {ow}) -> Text"]))
        w.decls.append(ClassDecl(eater, [("k", "Int", None, None)], [
            FnDecl("eat", [Param("o", ow, "mut")], "Text", op.stmts(Field(Var("o"), op.field)) + w.scribble() + [Return(ret())])]))
        w.decls.append(ClassDecl(idle, [("k", "Int", None, None)], [
            FnDecl("eat", [Param("o", ow, "mut")], "Text", [Return(Lit("idle"))])]))
        d.setup = [Let("sink", New(eater, [("k", Lit(1))]), sink)]
        d.expr = lambda: MCall(Var("sink"), "eat", [root.Rd], guard=getattr(root, "guard", None))
        d.place = root.dplace
    elif form == "elem":
        # one element of the owner's list as `mut` (`ren(o.kids[J])`)
        name = w.f(f"d{idx}")
        w.decls.append(FnDecl(name, [Param("x", w.t("In"), "mut")], "Text", op.stmts(Var("x")) + w.scribble() + [Return(ret())]))
        jv = w.rng.choice([0, 1, 2, "var"])
        if jv == "var":
            J = Var("j2")
            d.setup = [Let("j2", Lit(w.rng.choice([0, 1, 2])))]
            jp = "?j2"
        else:
            J = Lit(jv)
            jp = jv
        d.J = J
        d.expr = lambda: Call(name, [Index(Field(root.Rd, "kids"), J)], guard=getattr(d, "guard", None))
        d.place = root.dplace + ("kids", jp)
        d.op_key = f"{op.key}[{jp}]"
    elif form == "expr":
        d.expr = lambda: op.expr(Field(root.Rd, op.field))
        d.place = root.dplace + (op.field,)
    elif form == "direct":
        d.expr = None
        d.place = root.dplace + op.path if op.field != "*" else root.dplace
    elif form == "move":
        name = w.f(f"consume{idx}")
        w.decls.append(FnDecl(name, [Param("o", ow, "take")], "Text",
                              op.stmts(Field(Var("o"), op.field)) + w.scribble() + [Return(ret())]))
        d.expr = lambda: Call(name, [root.Rd])
        d.place = root.dplace
        d.effect = "move"
    elif form == "container":
        # the list or holder the owner lives in
        name = w.f(f"d{idx}")
        if root.key in ("elem", "elem-rt"):
            c, fl = w.new_owner("renew")
            which = w.rng.choice(["pop", "renew"])
            if which == "pop":
                body = [ExprStmt(Call("pop", [Var("os")]))]
            else:
                body = [Assign(Index(Var("os"), Lit(1)), c)] + fl(Index(Var("os"), Lit(1)))
            d.op_key = which
            w.decls.append(FnDecl(name, [Param("os", f"multi {ow}", "mut")], "Text", body + w.scribble() + [Return(ret())]))
            d.expr = lambda: Call(name, [Var("os")])
            d.place = ("os",)
        else:  # field root: replace the holder's owner
            c, fl = w.new_owner("renew")
            d.op_key = "renew"
            w.decls.append(FnDecl(name, [Param("h", w.t("Hold"), "mut")], "Text",
                                  [Assign(Field(Var("h"), "o"), c)] + fl(Field(Var("h"), "o")) + w.scribble() + [Return(ret())]))
            d.expr = lambda: Call(name, [Var("h")])
            d.place = ("h",)
    else:
        raise ValueError(form)
    if not hasattr(d, "setup"):
        d.setup = []
    if form == "direct":
        d.stmts = (lambda: op.stmts(Field(root.Rd, op.field))) if op.field != "*" else (lambda: op.stmts(root.Rd))
    else:
        d.stmts = lambda: [ExprStmt(d.expr())]
    return d


# ---------------------------------------------------------------- static overlap and verdicts


def overlap(a, b):
    """'yes' (one place contains the other), 'no' (provably disjoint) or 'rt'
    (run-time indices decide)."""
    rt = False
    for x, y in zip(a, b):
        if x == y:
            continue
        xs, ys = isinstance(x, str) and x.startswith("?"), isinstance(y, str) and y.startswith("?")
        if xs or ys:
            rt = True
            continue
        return "no"
    return "rt" if rt else "yes"


# ---------------------------------------------------------------- constructs


class Built:
    """What a construct made: statements in the owner's scope, how the borrow and
    the destroyer meet ('nested': the destroyer is a later operand or argument;
    'same': the owner is a `mut` argument or receiver of the very call that gets
    the borrow; 'stmt': a later statement), and special verdict notes."""

    def __init__(self, stmts, site, note=None, flags_alt=None, extra_refuse=None):
        self.stmts = stmts
        self.site = site
        self.note = note
        self.flags_alt = flags_alt
        self.extra_refuse = extra_refuse


def build_construct(w, cons, part, root, dest, ret_old):
    """Statements for construct `cons`; dest.expr() is Text-valued."""
    P = part.read(root.R)
    kind = part.kind
    T = w.t
    setup = list(part.setup) + list(dest.setup)

    wrap = getattr(dest, "wrap", None)

    def D():
        e = dest.expr()
        return wrap(e) if wrap else e

    if cons == "concat":
        return Built(setup + [Print(Concat(P, D()))], "nested")
    if cons == "concat-twice":   # the part, the destroyer, the part again (the new value)
        return Built(setup + [Print(Concat(P, Lit("|"), D(), Lit("|"), part.read(root.R)))], "nested")
    if cons == "call-msg":
        act, msg = T("Act"), T("Msg")
        w.decls.append(ClassDecl(msg, [("t", "Text", None, None), ("u", "Text", None, None)]))
        w.decls.append(ClassDecl(act, [("seen", "Int", None, None)], [
            FnDecl("receive", [Param("m", msg)], "Int",
                   [Print(Concat(Lit("got "), Field(Var("m"), "t"), Lit("|"), Field(Var("m"), "u"))),
                    Return(Call("len", [Field(Var("m"), "t")]))])]))
        return Built(setup + [Let("ac", Spawn(act, [("seen", Lit(0))])),
                              Print(ActorCall(Var("ac"), New(msg, [("t", P), ("u", D())])), "print_int")], "nested")
    if cons == "concat-after":   # the destroyer first, the part read after (no borrow yet)
        return Built(setup + [Print(Concat(D(), P))], "after")
    if cons == "interp":
        return Built(setup + [Print(Interp("<", P, "|", D(), ">"))], "nested")
    if cons in ("cmp-eq", "cmp-lt"):
        op = "==" if cons == "cmp-eq" else "<"
        return Built(setup + [If(Bin(op, P, D()), [Print(Lit("yes"))], [Print(Lit("no"))])], "nested")
    if cons == "call-user":
        ty = w.kind_type(kind)
        name = w.helper(f"pair_{kind}", lambda n: FnDecl(n, [Param("a", ty), Param("b", "Text")], "Text",
                                                           [Return(Concat(w.as_text(kind, Var("a")), Lit("|"), Var("b")))]))
        return Built(setup + [Print(Call(name, [P, D()]))], "nested")
    if cons == "builtin":
        if kind == "text":
            which = w.rng.choice(["index_of", "starts_with", "substr", "ends_with"])
            if which == "index_of":
                return Built(setup + [Print(Call("index_of", [P, D()]), "print_int")], "nested")
            if which == "substr":
                return Built(setup + [Print(Call("substr", [P, Lit(0), Bin("+", Call("len", [D()]), Lit(2))]))], "nested")
            return Built(setup + [If(Call(which, [P, D()]), [Print(Lit("yes"))], [Print(Lit("no"))])], "nested")
        if kind == "tlist":
            return Built(setup + [Print(Call("join", [P, D()]))], "nested")
        if kind == "bytes":
            which = w.rng.choice(["concat", "eq"])
            if which == "concat":
                return Built(setup + [Print(Call("text_of_bytes", [Call("bytes_concat", [P, Call("bytes_of_text", [D()])])]))],
                             "nested")
            return Built(setup + [If(Call("bytes_eq", [P, Call("bytes_of_text", [D()])]), [Print(Lit("yes"))],
                                     [Print(Lit("no"))])], "nested")
        if kind in ("olist",):
            return Built(setup + [Print(Field(Call("get", [P, Bin("-", Call("len", [D()]), Call("len", [D()]))]), "name"))],
                         "nested")
        if kind == "tmap":
            return Built(setup + [If(Call("has", [P, Concat(Lit("a"), Call("substr", [D(), Lit(0), Lit(0)]))]),
                                     [Print(Lit("has a"))], [Print(Lit("no a"))])], "nested")
        if kind == "omap":
            return Built(setup + [Print(Field(Call("get", [P, Concat(Lit("a"), Call("substr", [D(), Lit(0), Lit(0)]))]),
                                              "name"))], "nested")
        raise ValueError(kind)
    if cons == "iface-arg":
        fmt, joiner = T("Fmt"), T("Joiner")
        ty = w.kind_type(kind)
        w.once("fmt", lambda: IfaceDecl(fmt, [f"fn pair(a: {ty}, b: Text) -> Text"]))
        w.decls.append(ClassDecl(joiner, [("sep", "Text", None, None)], [
            FnDecl("pair", [Param("a", ty), Param("b", "Text")], "Text",
                   [Return(Concat(w.as_text(kind, Var("a")), Field(Var("self"), "sep"), Var("b")))])]))
        return Built(setup + [Let("fm", New(joiner, [("sep", Lit("|"))]), fmt),
                              Print(MCall(Var("fm"), "pair", [P, D()]))], "nested")
    if cons == "receiver":
        if kind == "obj":
            return Built(setup + [Print(MCall(P, "greet", [D()]))], "nested")
        if kind == "iface":
            return Built(setup + [Print(MCall(P, "label", [D()]))], "nested")
        raise ValueError(kind)
    if cons == "let":
        return Built(setup + [Let("r", P)] + dest.stmts() + [Print(w.as_text(kind, Var("r")))], "stmt")
    if cons == "for":
        if kind in ("tlist", "olist", "rlist"):
            it = Var("it")
            show = w.as_text({"tlist": "text", "olist": "obj", "rlist": "obj"}[kind], it)
            return Built(setup + [For("it", P, [Print(Concat(Lit("it "), show))] + dest.stmts()
                                      + [Print(Concat(Lit("it "), show)), Break()])], "stmt")
        if kind in ("tmap", "omap"):
            show = Var("v") if kind == "tmap" else Field(Var("v"), "name")
            return Built(setup + [For(["kk", "v"], P, [Print(Concat(Var("kk"), Lit("="), show))] + dest.stmts()
                                      + [Print(Concat(Var("kk"), Lit("="), show)), Break()])], "stmt")
        raise ValueError(kind)
    if cons in ("switch", "switch-after"):
        # kind == union: the binding is used before or after the destroyer
        arms = []
        for tag, binds, use in ((T("Empty"), None, None), (T("Full"), ["v"], Var("v")),
                                (T("Boxed"), ["bi"], Field(Var("bi"), "name"))):
            if use is None:
                arms.append((tag, None, [], Concat(Lit("empty|"), D())))
            elif cons == "switch":
                arms.append((tag, binds, [], Concat(use, Lit("|"), D())))
            else:
                arms.append((tag, binds, [ExprStmt(D())], Concat(Lit("after|"), use)))
        return Built(setup + [Print(Switch(P, arms))], "nested" if cons == "switch" else "stmt")
    if cons == "ctor":
        pair = T("Pair")
        ty = w.kind_type(kind)
        w.decls.append(ClassDecl(pair, [("a", ty, None, None), ("b", "Text", None, None)]))
        return Built(setup + [Let("pr", New(pair, [("a", P), ("b", D())])),
                              Print(Concat(w.as_text(kind, Field(Var("pr"), "a")), Lit("|"), Field(Var("pr"), "b")))],
                     "nested", note="ctor")
    if cons == "variant":
        duo, two, none = T("Duo"), T("Two"), T("Nothing")
        ty = w.kind_type(kind)
        w.decls.append(UnionDecl(duo, [(none, None), (two, [("a", ty), ("b", "Text")])]))
        return Built(setup + [Let("dv", Variant(two, [P, D()])),
                              Print(Switch(Var("dv"), [(two, ["a", "b"], [], Concat(w.as_text(kind, Var("a")), Lit("|"), Var("b"))),
                                                       (none, None, [], Lit("none"))]))], "nested", note="ctor")
    if cons == "insert":
        pr = T("Pr")
        w.decls.append(ClassDecl(pr, [("a", "Text", None, None), ("b", "Text", None, None)], table="durable: false"))
        return Built(setup + [Let("row", Insert(pr, [("a", P), ("b", D())])),
                              Print(Concat(Field(Var("row"), "a"), Lit("|"), Field(Var("row"), "b")))], "nested")
    if cons == "spawn":
        act, ping = T("Act"), T("Ping")
        w.decls.append(ClassDecl(ping, [("n", "Int", None, None)]))
        w.decls.append(ClassDecl(act, [("a", "Text", None, None), ("b", "Text", None, None)], [
            FnDecl("receive", [Param("m", ping)], "Int",
                   [Print(Concat(Lit("actor "), Field(Var("self"), "a"), Lit("|"), Field(Var("self"), "b"))),
                    Return(Field(Var("m"), "n"))])]))
        return Built(setup + [Let("ac", Spawn(act, [("a", P), ("b", D())])),
                              Print(ActorCall(Var("ac"), New(ping, [("n", Lit(5))])), "print_int")], "nested")
    if cons == "send":
        act, msg = T("Act"), T("Msg")
        w.decls.append(ClassDecl(msg, [("t", "Text", None, None), ("u", "Text", None, None)]))
        w.decls.append(ClassDecl(act, [("seen", "Int", None, None)], [
            FnDecl("receive", [Param("m", msg)], "Int",
                   [Print(Concat(Lit("got "), Field(Var("m"), "t"), Lit("|"), Field(Var("m"), "u"))),
                    Assign(Field(Var("self"), "seen"), Bin("+", Field(Var("self"), "seen"), Lit(1))),
                    Return(Field(Var("self"), "seen"))])]))
        return Built(setup + [Let("ac", Spawn(act, [("seen", Lit(0))])),
                              Send(Var("ac"), New(msg, [("t", P), ("u", D())])),
                              Print(ActorCall(Var("ac"), New(msg, [("t", Lit("end")), ("u", Lit("."))])), "print_int")],
                     "nested")
    if cons == "query":
        tg = T("Tg")
        w.decls.append(ClassDecl(tg, [("tag", "Text", None, None)], table="durable: false"))
        old = part.old_value_expr()
        rows = [Insert(tg, [("tag", Concat(old, ret_old()))]), Insert(tg, [("tag", Lit("zz"))]),
                Insert(tg, [("tag", Concat(old, ret_old()))])]
        q = Query("x", tg, where=Bin("==", Field(Var("x"), "tag"), Concat(P, D())), select=Field(Var("x"), "tag"))
        q.hoist = True
        return Built(setup + [ExprStmt(r) for r in rows] + [Let("q", q), Print(Call("join", [Var("q"), Lit(",")])),
                                                            Print(Call("len", [Var("q")]), "print_int")], "nested",
                     flags_alt=[(), ("query-once",)])
    if cons == "query-source":   # rlist: the query walks the owner's list while the clause destroys it
        q = Query("x", P, where=Bin("!=", Field(Var("x"), "name"), D()), select=Field(Var("x"), "name"))
        q.hoist = True
        return Built(setup + [Let("q", q), Print(Call("join", [Var("q"), Lit(",")]))], "nested",
                     flags_alt=[(), ("query-once",), ("query-live",), ("query-live", "query-once")])
    if cons == "assign-target":
        if kind == "obj":
            return Built(setup + [Assign(Field(P, "name"), D())], "nested", flags_alt=[(), ("rewalk",)])
        if kind == "tlist":
            return Built(setup + [Assign(Index(P, Lit(0)), D())], "nested", flags_alt=[(), ("rewalk",)])
        if kind == "tmap":
            return Built(setup + [Assign(Index(P, Lit("a")), D())], "nested", flags_alt=[(), ("rewalk",)])
        raise ValueError(kind)
    if cons == "index-arg":
        # the container is read, then the index runs the destroyer
        idx = Bin("-", Call("len", [D()]), Call("len", [D()]))
        if kind == "tlist":
            return Built(setup + [Print(Index(P, idx))], "nested")
        if kind == "olist":
            return Built(setup + [Print(Field(Index(P, idx), "name"))], "nested")
        raise ValueError(kind)
    if cons == "compound":
        # `P.c += len(D)`: the target's operands, the read, then the value
        if isinstance(P, Call):
            raise ValueError("not a place")
        return Built(setup + [AugAssign(Field(P, "c"), "+", Call("len", [D()])),
                              Print(Interp("c=", Field(P, "c")))], "nested")
    if cons == "ctor-list-move":
        # a Text of the owner read, then the owner moved into a list in the same literal
        hv = T("Hv")
        w.decls.append(ClassDecl(hv, [("t", "Text", None, None), ("os", f"multi {w.t('Ow')}", None, None)]))
        return Built(setup + [Let("hv", New(hv, [("t", P), ("os", ListLit([root.Rd]))])),
                              Print(Concat(Field(Var("hv"), "t"), Lit("|"), Call("int_to_text", [Call("len", [Field(Var("hv"), "os")])])))],
                     "nested", note="list-move")
    if cons == "self-append":
        # `place = place .. D`: the place's owner found first (decision 0015), its old
        # value read, the destroyer run, then the store
        key = part.key.split("/")[0]
        R = root.R
        target = {"name": lambda: Field(R, "name"),
                  "inner.name": lambda: Field(Field(R, "inner"), "name"),
                  "words[0]": lambda: Index(Field(R, "words"), Lit(0)),
                  "words[k]": lambda: Index(Field(R, "words"), Var("k")),
                  "tags[a]": lambda: Index(Field(R, "tags"), Lit("a")),
                  "kids[0].name": lambda: Field(Index(Field(R, "kids"), Lit(0)), "name")}.get(key)
        if target is None:
            raise ValueError(key)
        return Built(setup + [Assign(target(), Concat(P, Lit("+"), D()))], "nested", flags_alt=[(), ("rewalk",)])
    if cons == "push-into":
        # the container is read first, the destroyer runs, then the write
        if kind == "tlist":
            return Built(setup + [ExprStmt(Call("push", [P, D()]))], "nested", flags_alt=[(), ("rewalk",)])
        if kind == "tmap":
            return Built(setup + [ExprStmt(Call("set", [P, Lit("c"), D()]))], "nested", flags_alt=[(), ("rewalk",)])
        raise ValueError(kind)
    if cons == "return":
        # the construct is the helper's or method's result (`return self.name .. self.rename()`)
        b = Built(setup, "nested")
        b.ret_expr = Concat(P, D()) if kind == "text" else Concat(w.as_text(kind, P), D())
        return b
    if cons == "same-call":
        # the owner itself goes to a `mut` parameter of the call that gets the part
        ty = w.kind_type(kind)
        name = w.f(f"both{len(w.decls)}")
        w.decls.append(FnDecl(name, [Param("a", ty), Param("o", w.t("Ow"), "mut")], "Text",
                              dest.op.stmts(Field(Var("o"), dest.op.field)) + w.scribble() +
                              [Return(Concat(w.as_text(kind, Var("a")), Lit("|"), Lit("both")))]))
        return Built(setup + [Print(Call(name, [P, root.Rd], guard=getattr(root, "guard", None)))], "same")
    if cons == "same-receiver":
        # part.absorb(owner): the receiver is the part, the owner a `mut` argument
        mname = f"absorb{len(w.decls)}"
        w.in_methods[mname] = FnDecl(mname, [Param("o", w.t("Ow"), "mut")], "Text",
                                     dest.op.stmts(Field(Var("o"), dest.op.field)) + w.scribble() +
                                     [Return(Concat(Field(Var("self"), "name"), Lit("|absorbed")))])
        return Built(setup + [Print(MCall(P, mname, [root.Rd], guard=getattr(root, "guard", None)))], "same")
    if cons == "same-container":
        # f(mut xs, xs-element): the container as `mut` beside its own element
        ty = w.kind_type(kind)
        name = w.f(f"beside{len(w.decls)}")
        w.decls.append(FnDecl(name, [Param("x", w.field_type(part.field), "mut"), Param("a", ty)], "Text",
                              dest.op.stmts(Var("x")) + w.scribble() + [Return(Concat(Lit("beside|"), w.as_text(kind, Var("a"))))]))
        return Built(setup + [Print(Call(name, [Field(root.Rd, part.field), P], guard=getattr(root, "guard", None)))],
                     "same")
    if cons == "take-part":
        ty = w.kind_type(kind)
        name = w.f(f"keep{len(w.decls)}")
        w.decls.append(FnDecl(name, [Param("a", ty, "take")], "Text",
                              [Return(Concat(Lit("kept|"), w.as_text(kind, Var("a"))))]))
        return Built(setup + [Print(Concat(Call(name, [P]), D()))], "nested", note="partial-move")
    raise ValueError(cons)


def _old_value_expr(self):
    return self.old_fresh


Part.old_value_expr = _old_value_expr


# Which constructs take which part kinds.
CONSTRUCT_KINDS = {
    "concat": {"text"},
    "interp": {"text", "int"},
    "cmp-eq": {"text"},
    "cmp-lt": {"text"},
    "call-user": {"nobj", "text", "int", "bytes", "obj", "tlist", "olist", "tmap", "omap", "iface", "union"},
    "builtin": {"text", "bytes", "tlist", "olist", "tmap", "omap"},
    "iface-arg": {"text", "obj"},
    "receiver": {"obj", "iface"},
    "let": {"nobj", "text", "int", "bytes", "obj", "tlist", "olist", "tmap", "omap", "iface", "union"},
    "for": {"tlist", "olist", "tmap", "omap", "rlist"},
    "switch": {"union"},
    "switch-after": {"union"},
    "ctor": {"text", "int", "bytes", "obj"},
    "variant": {"text", "obj"},
    "insert": {"text"},
    "spawn": {"text"},
    "send": {"text"},
    "query": {"text"},
    "query-source": {"rlist"},
    "assign-target": {"obj", "tlist", "tmap"},
    "same-call": {"nobj", "text", "int", "bytes", "obj", "tlist", "olist", "tmap", "iface", "union"},
    "same-receiver": {"obj"},
    "same-container": {"text", "obj"},
    "take-part": {"obj", "tlist", "iface"},
    "concat-after": {"text"},
    "concat-twice": {"text"},
    "call-msg": {"text"},
    "push-into": {"tlist", "tmap"},
    "index-arg": {"tlist", "olist"},
    "self-append": {"text"},
    "compound": {"obj"},
    "ctor-list-move": {"text"},
    "return": {"text"},
}

STMT_CONSTRUCTS = {"let", "for"}
SAME_CONSTRUCTS = {"same-call", "same-receiver", "same-container"}


def verdict(w, cons, part, root, dest, built):
    """(verdict, allowed codes, model flag sets)."""
    flagsets = built.flags_alt or [()]
    guards = [False]
    kind = part.kind
    bplace = root.place + part.path
    if cons == "same-container":
        dplace = root.dplace + (part.field,)
    else:
        dplace = dest.place
    ov = overlap(bplace, dplace)
    traced = w.traced
    texty = kind in ("text", "int", "bytes")

    if dest.effect == "move" and not traced and cons in ("query", "query-source"):
        return REFUSE, {"WO-E301", "WO-E302"}, flagsets, guards, "a move in a query clause (runs per row, decision 0078)"
    if cons == "take-part":
        # moving a field or element out of an owner that stays (§15.2, E305)
        if traced and kind == "obj":
            return ACCEPT, set(), flagsets, guards, "traced part moved: shared"
        return REFUSE, {"WO-E305", "WO-E302", "WO-E303", "WO-E304"}, flagsets, guards, "partial move"
    if built.note == "ctor" and kind == "obj":
        # a class part stored into a second owner: demand promotion (decision 0078),
        # the class becomes traced and both names hold the same object
        if dest.effect == "move" and not traced:
            return EITHER, {"WO-E301", "WO-E302"}, flagsets, guards, "class part stored (promoted), owner moved"
        return ACCEPT, set(), flagsets, guards, "class part stored: demand promotion (decision 0078)"
    if built.note == "list-move":
        if traced:
            return ACCEPT, set(), flagsets, guards, "traced owner moved into a list: shared"
        return EITHER, {"WO-E301", "WO-E302"}, flagsets, guards, "Text read, then the owner moved into a list"
    if cons == "concat-twice" and dest.effect == "move" and not traced:
        return REFUSE, {"WO-E301", "WO-E302"}, flagsets, guards, "read after move"
    if cons == "concat-after":
        if dest.effect == "move" and not traced:
            return REFUSE, {"WO-E301"}, flagsets, guards, "read after move"
        return ACCEPT, set(), flagsets, guards, "destroyer before the read"
    if ov == "no":
        return ACCEPT, set(), flagsets, guards, "disjoint places"
    if getattr(part, "fresh", False) and cons != "concat-twice":
        return ACCEPT, set(), flagsets, guards, "a call's result is a fresh value (§15.7)"
    if traced:
        if kind in ("text", "int", "obj", "bytes") and (dest.form in ("fn", "method", "iface", "move", "container")
                                               or dest.op.field in ("name", "n", "inner")):
            return ACCEPT, set(), flagsets, guards, "traced owner (exempt, §15.6)"
        return EITHER, {"WO-E302", "WO-E303"}, flagsets, [False], "traced owner, untraced container destroyed"
    if kind == "int":
        return ACCEPT, set(), flagsets, guards, "copy type"
    if cons == "let" and kind in ("text", "bytes"):
        return ACCEPT, set(), flagsets, guards, "let of a Text/Bytes copies (§15.3)"
    if dest.effect == "move":
        if kind in ("text", "bytes"):
            return EITHER, {"WO-E301", "WO-E302"}, flagsets, guards, "Text view, owner moved"
        return REFUSE, {"WO-E302", "WO-E301"}, flagsets, guards, "move while borrowed (§15.3)"
    if built.site == "same":
        if ov == "yes":
            if texty:
                return EITHER, {"WO-E303", "WO-E302"}, flagsets, guards, "mut owner beside its Text part"
            return REFUSE, {"WO-E303"}, flagsets, guards, "same place mut and shared in one call (§15.3)"
        # run-time indices: the BORROW guard decides
        if texty:
            return ACCEPT, set(), flagsets, [True, False], "run-time indices, Text part: guard or keep-alive"
        return ACCEPT, set(), flagsets, [True], "run-time indices: BORROW guard (trap 2 when equal)"
    if ov == "rt":
        return EITHER, {"WO-E302", "WO-E303"}, flagsets, [False, True], "run-time indices, nested destroyer"
    return EITHER, {"WO-E302", "WO-E303"}, flagsets, [False], "borrow then destroy in one expression/statement"


# ---------------------------------------------------------------- families outside the grid


def family_promote(w, rng):
    """Returning a borrowed class value (demand promotion, §15.3/§15.6): accepted."""
    inn, ow = w.t("In"), w.t("Ow")
    shape = rng.choice(["field-of-param", "self-field", "elem-of-param", "param-itself", "field-of-mut-param",
                        "self-itself"])
    w.need_field("name")
    w.need_field("inner")
    if shape == "elem-of-param":
        w.need_field("kids")
    g = w.f("get")
    if shape == "field-of-param":
        w.decls.append(FnDecl(g, [Param("o", ow)], inn, [Return(Field(Var("o"), "inner"))]))
        get = Call(g, [Var("o")])
    elif shape == "field-of-mut-param":
        w.decls.append(FnDecl(g, [Param("o", ow, "mut")], inn, [Return(Field(Var("o"), "inner"))]))
        get = Call(g, [Var("o")])
    elif shape == "self-field":
        w.ow_methods.append(FnDecl("inner_of", [], inn, [Return(Field(Var("self"), "inner"))]))
        get = MCall(Var("o"), "inner_of", [])
    elif shape == "elem-of-param":
        w.decls.append(FnDecl(g, [Param("o", ow)], inn, [Return(Index(Field(Var("o"), "kids"), Lit(0)))]))
        get = Call(g, [Var("o")])
    elif shape == "self-itself":
        w.ow_methods.append(FnDecl("me", [], ow, [Return(Var("self"))]))
        get = MCall(Var("o"), "me", [])
    else:
        w.decls.append(FnDecl(g, [Param("o", ow)], ow, [Return(Var("o"))]))
        get = Call(g, [Var("o")])
    c, fl = w.new_owner()
    body = [Let("o", c)] + fl(Var("o")) + [Let("e", get)]
    after = rng.choice(["replace", "rename", "nothing", "set-name"])
    if shape == "elem-of-param":
        target = Index(Field(Var("o"), "kids"), Lit(0))
    else:
        target = Field(Var("o"), "inner")
    if after == "replace":
        body.append(Assign(target, w.new_in("new")))
    elif after == "rename":
        body.append(Assign(Field(target, "name"), w.fresh("renamed")))
    elif after == "set-name":
        body.append(Assign(Field(Var("o"), "name"), w.fresh("newname")))
    body.append(Print(Field(Var("e"), "name")))
    body.append(Print(Field(target, "name")))
    body.append(Print(Field(Var("o"), "name")))
    if shape not in ("param-itself", "self-itself"):
        body.append(Assign(Field(Var("e"), "name"), w.fresh("via-e")))
        body.append(Print(Field(target, "name")))
    return body, (ACCEPT, set(), [()], [True], "demand promotion"), {"family": "promote", "shape": shape, "after": after}


def family_after_move(w, rng):
    """A move then a use of the moved owner (E301), traced owners exempt."""
    ow = w.t("Ow")
    w.need_field("name")
    how = rng.choice(["take", "let", "push", "ctor", "send", "take-in-loop"])
    c, fl = w.new_owner()
    body = [Let("o", c)] + fl(Var("o"))
    note = how
    if how == "take":
        k = w.f("consume")
        w.decls.append(FnDecl(k, [Param("o", ow, "take")], "Text",
                              [Assign(Field(Var("o"), "name"), w.fresh("consumed")), Return(Lit("C"))]))
        body += [Print(Call(k, [Var("o")])), Print(Field(Var("o"), "name"))]
    elif how == "let":
        body += [Let("o2", Var("o")), Assign(Field(Var("o2"), "name"), w.fresh("via-o2")), Print(Field(Var("o"), "name"))]
    elif how == "push":
        body += [Let("xs", ListLit([]), f"multi {ow}"), ExprStmt(Call("push", [Var("xs"), Var("o")])),
                 Assign(Field(Index(Var("xs"), Lit(0)), "name"), w.fresh("in-list")), Print(Field(Var("o"), "name"))]
    elif how == "ctor":
        hold = w.t("Hold")
        w.once("hold", lambda: ClassDecl(hold, [("o", ow, None, None)]))
        body += [Let("h", New(hold, [("o", Var("o"))])), Assign(Field(Field(Var("h"), "o"), "name"), w.fresh("in-hold")),
                 Print(Field(Var("o"), "name"))]
    elif how == "send":
        act, msg = w.t("Act"), w.t("Msg")
        w.decls.append(ClassDecl(msg, [("o", ow, None, None)]))
        w.decls.append(ClassDecl(act, [("seen", "Int", None, None)], [
            FnDecl("receive", [Param("m", msg)], "Int", [Print(Concat(Lit("got "), Field(Field(Var("m"), "o"), "name"))),
                                                        Return(Lit(1))])]))
        body += [Let("ac", Spawn(act, [("seen", Lit(0))])), Send(Var("ac"), New(msg, [("o", Var("o"))])),
                 Print(Field(Var("o"), "name"))]
        if w.traced:
            return None
    else:
        k = w.f("consume")
        w.decls.append(FnDecl(k, [Param("o", ow, "take")], "Text", [Return(Lit("C"))]))
        body += [Let("n", Lit(0)), While(Bin("<", Var("n"), Lit(2)), [Print(Call(k, [Var("o")])),
                                                                      Assign(Var("n"), Bin("+", Var("n"), Lit(1)))])]
    if w.traced:
        return body, (ACCEPT, set(), [()], [True], "traced: moves share"), {"family": "after-move", "how": how}
    return body, (REFUSE, {"WO-E301", "WO-E302"}, [()], [True], "use after move"), {"family": "after-move", "how": how}


def family_rows(w, rng):
    """Rows are handles: a field read is a fresh value, writes go through, delete,
    a transaction undone by a trap."""
    rw = w.t("Rw")
    w.need_rw()
    part = rng.choice(["name", "words[0]", "words"])
    dkind = rng.choice(["rename", "set-words", "delete", "tx-undo", "tx-commit"])
    cons = rng.choice(["concat", "interp", "call-user", "let", "cmp-eq", "for", "join", "query-loop"])
    if part == "words" and cons not in ("for", "join", "let", "call-user"):
        cons = rng.choice(["for", "join"])
    if part != "words" and cons in ("for", "join"):
        cons = "concat"
    dname = w.f("dr")
    new1, new2 = w.fresh("rnew"), w.fresh("rnew")
    if dkind == "rename":
        dbody = [Assign(Field(Var("r"), "name"), new1), Return(Lit("R"))]
    elif dkind == "set-words":
        dbody = [Assign(Field(Var("r"), "words"), ListLit([new1])), Return(Lit("W"))]
    elif dkind == "delete":
        dbody = [ExprStmt(Delete(Var("r"))), Return(Lit("X"))]
    else:
        tx = w.f("tx")
        zero = w.f("zero")
        w.decls.append(FnDecl(zero, [], "Int", [Return(Lit(0))]))
        tbody = [Assign(Field(Var("r"), "name"), new1), Assign(Field(Var("r"), "words"), ListLit([new2]))]
        if dkind == "tx-undo":
            tbody.append(Let("q", Bin("/", Lit(10), Call(zero, []))))
        w.decls.append(FnDecl(tx, [Param("r", rw)], "Int", [Transaction(tbody), Return(Lit(1))]))
        dbody = [Let("z", TryExpr(Call(tx, [Var("r")]), Lit(-1))), Return(Concat(Lit("T"), Call("int_to_text", [Var("z")])))]
    w.decls.append(FnDecl(dname, [Param("r", rw)], "Text", dbody))
    init = [Let("r", Insert(rw, [("name", w.fresh("rname")), ("words", ListLit([w.fresh("rw0"), w.fresh("rw1")]))]))]
    if part == "name":
        P = lambda R: Field(R, "name")
    elif part == "words[0]":
        P = lambda R: Index(Field(R, "words"), Lit(0))
    else:
        P = lambda R: Field(R, "words")
    D = lambda R: Call(dname, [R])
    R = Var("r")
    body = list(init)
    if cons == "concat":
        body.append(Print(Concat(P(R), D(R))))
    elif cons == "interp":
        body.append(Print(Interp("<", P(R), "|", D(R), ">")))
    elif cons == "call-user":
        ty = "multi Text" if part == "words" else "Text"
        kind = "tlist" if part == "words" else "text"
        pr = w.f("pair")
        w.decls.append(FnDecl(pr, [Param("a", ty), Param("b", "Text")], "Text",
                              [Return(Concat(w.as_text(kind, Var("a")), Lit("|"), Var("b")))]))
        body.append(Print(Call(pr, [P(R), D(R)])))
    elif cons == "let":
        kind = "tlist" if part == "words" else "text"
        body += [Let("t", P(R)), ExprStmt(D(R)), Print(w.as_text(kind, Var("t")))]
    elif cons == "cmp-eq":
        body.append(If(Bin("==", P(R), D(R)), [Print(Lit("yes"))], [Print(Lit("no"))]))
    elif cons == "for":
        body.append(For("it", P(R), [Print(Var("it")), ExprStmt(D(R)), Print(Var("it"))]))
    elif cons == "join":
        body.append(Print(Call("join", [P(R), D(R)])))
    elif cons == "query-loop":
        body += [ExprStmt(Insert(rw, [("name", w.fresh("rother"))]))]
        body.append(For("x", Query("y", rw, order=Field(Var("y"), "name"), select=Var("y")),
                        [Print(Concat(P(Var("x")) if part != "words" else Call("join", [P(Var("x")), Lit(",")]), Lit("|"), D(Var("x"))))]))
        body.append(Print(Call("count", [Query("y", rw, select=Var("y"))]), "print_int"))
    body.append(Print(Call("count", [Query("y", rw, select=Var("y"))]), "print_int"))
    body.append(Print(Field(R, "name")))
    body.append(Print(Call("join", [Field(R, "words"), Lit(",")])))
    return body, (ACCEPT, set(), [()], [True], "rows are handles"), {"family": "rows", "part": part, "destroyer": dkind,
                                                                    "construct": cons}


def family_spawn_move(w, rng):
    """spawn/send moving the owner after a part of it was read or borrowed."""
    ow = w.t("Ow")
    w.need_field("name")
    w.need_field("inner")
    act, ping = w.t("Act"), w.t("Ping")
    w.decls.append(ClassDecl(ping, [("n", "Int", None, None)]))
    w.decls.append(ClassDecl(act, [("label", "Text", None, None), ("st", ow, None, None)], [
        FnDecl("receive", [Param("m", ping)], "Int",
               [Print(Concat(Lit("actor "), Field(Var("self"), "label"), Lit("|"), Field(Field(Var("self"), "st"), "name"),
                             Lit("|"), Field(Field(Field(Var("self"), "st"), "inner"), "name"))),
                Return(Field(Var("m"), "n"))])]))
    c, fl = w.new_owner()
    body = [Let("o", c)] + fl(Var("o"))
    shape = rng.choice(["ctor-text-then-move", "let-text-then-spawn", "let-obj-then-spawn", "ctor-move-then-text"])
    if shape == "ctor-text-then-move":
        body += [Let("ac", Spawn(act, [("label", Field(Var("o"), "name")), ("st", Var("o"))])),
                 Print(ActorCall(Var("ac"), New(ping, [("n", Lit(3))])), "print_int")]
        v = (EITHER, {"WO-E302", "WO-E301"}, [()], [True], "Text field read, then the owner moved in one constructor")
    elif shape == "ctor-move-then-text":
        body += [Let("ac", Spawn(act, [("st", Var("o")), ("label", Field(Var("o"), "name"))])),
                 Print(ActorCall(Var("ac"), New(ping, [("n", Lit(3))])), "print_int")]
        v = (EITHER, {"WO-E302", "WO-E301"}, [()], [True], "owner moved, then its Text read in one constructor")
    elif shape == "let-text-then-spawn":
        body += [Let("t", Field(Var("o"), "name")), Let("ac", Spawn(act, [("label", Lit("L")), ("st", Var("o"))])),
                 Print(Var("t")), Print(ActorCall(Var("ac"), New(ping, [("n", Lit(3))])), "print_int")]
        v = (ACCEPT, set(), [()], [True], "a Text let is a copy")
    else:
        body += [Let("r", Field(Var("o"), "inner")), Let("ac", Spawn(act, [("label", Lit("L")), ("st", Var("o"))])),
                 Print(Field(Var("r"), "name")), Print(ActorCall(Var("ac"), New(ping, [("n", Lit(3))])), "print_int")]
        v = (REFUSE, {"WO-E302"}, [()], [True], "owner moved while a part is borrowed")
    return body, v, {"family": "spawn-move", "shape": shape}


def family_shared_write(w, rng):
    """A write through a plain (shared) parameter is WO-E303 (§15.4, decision 0078),
    however it is reached; traced classes are exempt."""
    ow, inn = w.t("Ow"), w.t("In")
    w.need_field("name")
    w.need_field("inner")
    w.need_field("words")
    w.need_field("kids")
    how = rng.choice(["assign", "push", "method", "let-part", "loop-var", "mut-arg", "nested-assign"])
    f = w.f("touch")
    P = Var("o")
    if how == "assign":
        body = [Assign(Field(P, "name"), w.fresh("new"))]
    elif how == "push":
        body = [ExprStmt(Call("push", [Field(P, "words"), w.fresh("new")]))]
    elif how == "method":
        body = [ExprStmt(MCall(Field(P, "inner"), "rename", [w.fresh("new")]))]
    elif how == "let-part":
        body = [Let("r", Field(P, "inner")), Assign(Field(Var("r"), "name"), w.fresh("new"))]
    elif how == "loop-var":
        body = [For("it", Field(P, "kids"), [Assign(Field(Var("it"), "name"), w.fresh("new"))])]
    elif how == "mut-arg":
        g = w.f("setname")
        w.decls.append(FnDecl(g, [Param("x", inn, "mut")], None, [Assign(Field(Var("x"), "name"), w.fresh("new"))]))
        body = [ExprStmt(Call(g, [Field(P, "inner")]))]
    else:
        body = [Assign(Field(Field(P, "inner"), "name"), w.fresh("new"))]
    w.decls.append(FnDecl(f, [Param("o", ow)], None, body))
    c, fl = w.new_owner()
    main = [Let("o", c)] + fl(Var("o")) + [ExprStmt(Call(f, [Var("o")])), Print(Field(Var("o"), "name")),
                                          Print(Field(Field(Var("o"), "inner"), "name")),
                                          Print(Call("join", [Field(Var("o"), "words"), Lit(",")])),
                                          Print(w.as_text("olist", Field(Var("o"), "kids")))]
    shape = {"family": "shared-write", "how": how}
    if w.traced:
        if how in ("push",):
            return main, (EITHER, {"WO-E303"}, [()], [False], "traced owner, its list written through a shared parameter"), shape
        return main, (ACCEPT, set(), [()], [False], "traced classes are exempt (§15.6)"), shape
    return main, (REFUSE, {"WO-E303"}, [()], [False], "write through a shared parameter (§15.4, decision 0078)"), shape


def family_escape(w, rng):
    """Borrows that outlive their call: a class part returned or stored is promoted
    (accepted, shared); a list part returned or stored is WO-E304 (decision 0078)."""
    ow, inn = w.t("Ow"), w.t("In")
    w.need_field("name")
    w.need_field("inner")
    w.need_field("words")
    w.need_field("kids")
    how = rng.choice(["return-let-class-part", "return-list-part", "store-let-list-part", "push-loop-var",
                      "push-class-part", "return-elem-via-get", "store-param-in-holder"])
    c, fl = w.new_owner()
    main = [Let("o", c)] + fl(Var("o"))
    shape = {"family": "escape", "how": how}
    g = w.f("esc")
    accept = (ACCEPT, set(), [()], [False], "demand promotion (decision 0078)")
    refuse = (REFUSE, {"WO-E304"}, [()], [False], "a list part outlives its borrow (decision 0078)")
    if how == "return-let-class-part":
        w.decls.append(FnDecl(g, [Param("o", ow)], inn, [Let("r", Field(Var("o"), "inner")), Return(Var("r"))]))
        main += [Let("e", Call(g, [Var("o")])), Assign(Field(Var("e"), "name"), w.fresh("via-e")),
                 Print(Field(Field(Var("o"), "inner"), "name"))]
        v = accept
    elif how == "return-elem-via-get":
        w.decls.append(FnDecl(g, [Param("o", ow)], inn, [Return(Call("get", [Field(Var("o"), "kids"), Lit(1)]))]))
        main += [Let("e", Call(g, [Var("o")])), Assign(Field(Var("e"), "name"), w.fresh("via-e")),
                 Print(w.as_text("olist", Field(Var("o"), "kids")))]
        v = accept
    elif how == "return-list-part":
        w.decls.append(FnDecl(g, [Param("o", ow)], "multi Text", [Return(Field(Var("o"), "words"))]))
        main += [Let("e", Call(g, [Var("o")])), Print(Call("join", [Var("e"), Lit(",")]))]
        v = refuse
    elif how == "store-let-list-part":
        hw = w.t("Hw")
        w.decls.append(ClassDecl(hw, [("ws", "multi Text", None, None)]))
        main += [Let("r", Field(Var("o"), "words")), Let("h", New(hw, [("ws", Var("r"))])),
                 Print(Call("join", [Field(Var("h"), "ws"), Lit(",")]))]
        v = refuse
    elif how == "push-loop-var":
        main += [Let("out", ListLit([]), f"multi {inn}"),
                 For("it", Field(Var("o"), "kids"), [ExprStmt(Call("push", [Var("out"), Var("it")]))]),
                 Assign(Field(Index(Var("out"), Lit(0)), "name"), w.fresh("via-out")),
                 Print(w.as_text("olist", Field(Var("o"), "kids"))), Print(w.as_text("olist", Var("out")))]
        v = accept
    elif how == "push-class-part":
        main += [Let("out", ListLit([]), f"multi {inn}"), ExprStmt(Call("push", [Var("out"), Field(Var("o"), "inner")])),
                 Assign(Field(Var("o"), "inner"), w.new_in("new")),
                 Print(w.as_text("olist", Var("out"))), Print(Field(Field(Var("o"), "inner"), "name"))]
        v = accept
    else:
        hold = w.t("Hold")
        w.decls.append(ClassDecl(hold, [("o", ow, None, None)]))
        w.decls.append(FnDecl(g, [Param("o", ow)], hold, [Return(New(hold, [("o", Var("o"))]))]))
        main += [Let("h", Call(g, [Var("o")])), Assign(Field(Field(Var("h"), "o"), "name"), w.fresh("via-h")),
                 Print(Field(Var("o"), "name"))]
        v = accept
    return main, v, shape


def family_append_alias(w, rng):
    """Text appended in place must not change a copy made earlier (`let t = s`,
    a field, an element, a map value, a pushed copy): Text is copied when stored."""
    ow = w.t("Ow")
    w.need_field("name")
    w.need_field("words")
    w.need_field("tags")
    how = rng.choice(["local", "field", "elem", "map", "pushed", "param"])
    c, fl = w.new_owner()
    main = [Let("o", c)] + fl(Var("o"))
    shape = {"family": "append-alias", "how": how}
    add = w.f("add")
    w.decls.append(FnDecl(add, [Param("o", ow, "mut")], "Text",
                          [Assign(Field(Var("o"), "name"), Concat(Field(Var("o"), "name"), Lit("!"))), Return(Lit("A"))]))
    tail = rng.choice([lambda: Lit("x"), lambda: Call(add, [Var("o")]), lambda: w.fresh("tail")])
    if how == "local":
        main += [Let("s", w.fresh("s")), Let("t", Var("s")), Assign(Var("s"), Concat(Var("s"), tail())),
                 Assign(Var("s"), Concat(Var("s"), tail())), Print(Var("t")), Print(Var("s"))]
    elif how == "field":
        main += [Let("t", Field(Var("o"), "name")), Assign(Field(Var("o"), "name"), Concat(Field(Var("o"), "name"), tail())),
                 Print(Var("t")), Print(Field(Var("o"), "name"))]
    elif how == "elem":
        e = lambda: Index(Field(Var("o"), "words"), Lit(0))
        main += [Let("t", e()), Assign(e(), Concat(e(), tail())), Print(Var("t")),
                 Print(Call("join", [Field(Var("o"), "words"), Lit(",")]))]
    elif how == "map":
        main += [Let("t", Call("get", [Field(Var("o"), "tags"), Lit("a")])),
                 Assign(Index(Field(Var("o"), "tags"), Lit("a")), Concat(Call("get", [Field(Var("o"), "tags"), Lit("a")]), tail())),
                 Print(Var("t")), Print(w.as_text("tmap", Field(Var("o"), "tags")))]
    elif how == "pushed":
        main += [Let("s", w.fresh("s")), ExprStmt(Call("push", [Field(Var("o"), "words"), Var("s")])),
                 Assign(Var("s"), Concat(Var("s"), tail())), Print(Call("join", [Field(Var("o"), "words"), Lit(",")])),
                 Print(Var("s"))]
    else:
        g = w.f("grow")
        w.decls.append(FnDecl(g, [Param("t", "Text", "mut")], "Text",
                              [Assign(Var("t"), Concat(Var("t"), Lit("-grown"))), Return(Var("t"))]))
        main += [Print(Call(g, [Field(Var("o"), "name")])), Print(Field(Var("o"), "name")),
                 Let("s", w.fresh("s")), Print(Call(g, [Var("s")])), Print(Var("s"))]
    return main, (ACCEPT, set(), [()], [False], "Text is a value: an append changes no copy"), shape


FAMILIES = {"append-alias": family_append_alias, "shared-write": family_shared_write, "escape": family_escape, "promote": family_promote, "after-move": family_after_move, "rows": family_rows,
            "spawn-move": family_spawn_move}


# ---------------------------------------------------------------- cases


class Case:
    def __init__(self, name, decls, body, verdict, codes, flagsets, guards, why, shape):
        self.name = name
        self.decls = decls
        self.body = body
        self.verdict = verdict
        self.codes = set(codes)
        self.flagsets = flagsets
        self.guards = guards
        self.why = why
        self.shape = shape
        self._expected = None

    @property
    def main_fn(self):
        return f"{self.name}_main"

    def all_decls(self):
        return self.decls + [FnDecl(self.main_fn, [], "Int", self.body)]

    def wrapper(self):
        return [Print(Lit(f"== {self.name}")), TryLet(f"r_{self.name}", Call(self.main_fn, []), Lit(0))]

    def pruned_decls(self):
        if getattr(self, "_pruned", None) is None:
            self._pruned = prune(self.all_decls(), keep={self.main_fn})
        return self._pruned

    def program(self):
        return emit_header(self) + M.emit_program(self.pruned_decls(), self.wrapper())

    def primary_code(self):
        order = ["WO-E305", "WO-E302", "WO-E303", "WO-E301", "WO-E304"] if "partial" in self.why else \
                ["WO-E302", "WO-E303", "WO-E301", "WO-E305", "WO-E304"]
        for c in order:
            if c in self.codes:
                return c
        return sorted(self.codes)[0] if self.codes else ""

    def expected(self):
        """Every stdout a correct woc may print for this case (wrapper included)."""
        if self._expected is None:
            outs = []
            for flags in self.flagsets:
                for g in self.guards:
                    out, trap = M.run_program(self.all_decls(), self.wrapper(), guards=g, flags=flags)
                    assert trap is None
                    if out not in outs:
                        outs.append(out)
            self._expected = outs
        return self._expected

    def describe(self):
        return " ".join(f"{k}={v}" for k, v in self.shape.items())


def _decl_text(d):
    return "\n".join(d.emit_lines(0))


def _names(d):
    if isinstance(d, M.UnionDecl):
        return [d.name] + [t for t, _ in d.variants]
    return [d.name]


def prune(decls, keep):
    """Drops declarations and class methods nothing else names (smaller programs
    and fixtures; the model runs the full list, which prints the same)."""
    import re
    decls = list(decls)
    changed = True
    while changed:
        changed = False
        texts = [_decl_text(d) for d in decls]
        iface_methods = set()
        for d in decls:
            if isinstance(d, M.IfaceDecl):
                for sig in d.sigs:
                    iface_methods.add(sig.split("(")[0].split()[-1])
        for i, d in enumerate(decls):
            if d.name in keep:
                continue
            rest = "\n".join(t for j, t in enumerate(texts) if j != i)
            if not any(re.search(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])", rest) for n in _names(d)):
                del decls[i]
                changed = True
                break
            if isinstance(d, M.ClassDecl):
                allt = "\n".join(texts)
                kept = [m for m in d.methods
                        if m.name in iface_methods or m.name == "receive" or
                        len(re.findall(r"\." + re.escape(m.name) + r"\(", allt)) >
                        len(re.findall(r"\." + re.escape(m.name) + r"\(", _decl_text(FnDecl(m.name, m.params, m.ret, m.body))))]
                if len(kept) != len(d.methods):
                    decls[i] = M.ClassDecl(d.name, d.fields, kept, d.table)
                    changed = True
                    break
    return decls


def emit_header(case):
    return (f"-- ownership fuzzer case {case.name}: {case.describe()}\n"
            f"-- verdict: {case.verdict}" + (f" {' '.join(sorted(case.codes))}" if case.codes else "") +
            f" ({case.why})\n")


def grid_combos():
    """Every (construct, part, root, destroyer form) the grid can build."""
    out = []
    for cons, kinds in CONSTRUCT_KINDS.items():
        for part in PART_KEYS:
            if PART_KIND[part] not in kinds:
                continue
            if cons == "query" and part in ("tags[a]",):
                continue
            for root in ROOT_KEYS:
                if root == "traced" and part not in ("name", "inner.name", "n", "inner", "kids[0]", "words[0]"):
                    continue
                for form in DFORMS:
                    if form == "direct" and cons not in STMT_CONSTRUCTS and cons != "switch-after":
                        continue
                    if form == "direct" and cons == "switch-after":
                        continue
                    if cons in SAME_CONSTRUCTS and form not in ("fn",):
                        continue
                    if form == "move" and root not in ("local", "traced"):
                        continue
                    if form == "container" and root not in ("elem", "elem-rt", "field"):
                        continue
                    if form == "elem" and (not part.startswith("kids") or root == "elem-rt"):
                        continue
                    if cons == "ctor-list-move" and (root not in ("local", "traced") or form != "move"):
                        continue
                    if cons == "same-container" and part not in ("words[0]", "words[k]", "kids[0]", "kids[k]",
                                                                 "tags[a]", "kmap[a]"):
                        continue
                    if cons == "take-part" and root in ("traced",) and PART_KIND[part] != "obj":
                        continue
                    out.append((cons, part, root, form))
    return out


def pick_op(w, rng, part, form, cons):
    """An op for the destroyer: usually on the part's own field, sometimes elsewhere."""
    if form == "container":
        return Op("container", part.field, lambda F: [])
    if form == "elem":
        ops = [o for o in ops_for(w, "kids") if o.key.startswith("elem-")]
        w.need_field("kids")
        return rng.choice(ops)
    if form == "direct" and root_key_of(w) in ("local", "elem", "field", "mutparam", "traced") and rng.random() < 0.25:
        c, fl = w.new_owner("renew")
        return Op("renew-owner", "*", lambda R: [Assign(R, c)] + fl(R), path=())
    same_field = rng.random() < 0.8 or cons == "same-container"
    fields = [part.field] if same_field else [f for f in OP_FIELDS if f != part.field and f != "rows"]
    rng.shuffle(fields)
    for field in fields:
        ops = ops_for(w, field)
        ops = [o for o in ops if not o.key.startswith("elem-")]
        if form == "fn-part":
            ops = [o for o in ops if o.part_ok]
        if form == "expr":
            ops = [o for o in ops if o.expr is not None]
        if cons == "same-container":
            ops = [o for o in ops if o.part_ok]
        if ops:
            w.need_field(field)
            return rng.choice(ops)
    return None


def root_key_of(w):
    return w.root_key


WRAPS = ["none", "none", "none", "prefix", "interp", "substr", "fn"]


def make_wrap(w, rng):
    which = rng.choice(WRAPS)
    if which == "prefix":
        return which, lambda e: Concat(Lit("<"), e)
    if which == "interp":
        return which, lambda e: Interp("(", e, ")")
    if which == "substr":
        return which, lambda e: Call("substr", [e, Lit(0), Lit(40)])
    if which == "fn":
        def mk(name):
            return FnDecl(name, [Param("t", "Text")], "Text", [Return(Concat(Lit("["), Var("t"), Lit("]")))])
        name = w.helper("wrapt", mk)
        return which, lambda e: Call(name, [e])
    return which, None


def make_grid_case(name, rng, combo):
    cons, part_key, root_key, form = combo
    w = World(name, rng, traced=(root_key == "traced"))
    w.root_key = root_key
    w.dest_traps = form in ("fn", "method", "iface", "fn-part", "container") and rng.random() < 0.12
    part = make_part(w, part_key)
    root = make_root(w, root_key)
    op = pick_op(w, rng, part, form, cons)
    if op is None:
        return None
    # what the destroyer returns
    ret_choice = rng.choice(["marker", "marker", "old"]) if cons in ("cmp-eq", "cmp-lt", "builtin", "query") else "marker"
    holder = {}

    def ret():
        if ret_choice == "old" and "old" in holder:
            return holder["old"]()
        return Lit("D")

    def ret_old():
        return ret() if form not in ("expr",) else Lit("")
    dest = make_destroyer(w, root, form, op, ret)
    if form == "elem":
        pidx = {"kids[0]": Lit(0), "kids[0].name": Lit(0), "kids[k]": Var("k")}.get(part.key.split("/")[0])
        if pidx is not None:
            dest.guard = (pidx, dest.J)
    wrap_key, dest.wrap = make_wrap(w, rng) if cons not in STMT_CONSTRUCTS else ("none", None)
    if w.dest_traps and cons not in STMT_CONSTRUCTS and rng.random() < 0.6:
        wrap_key, dest.wrap = "try", (lambda e: Paren(TryExpr(e, Lit("caught"))))
    # the owner, built now so that its initial values are known
    setup_main = root.setup_main()
    if part.kind == "text":
        init = find_initial_text(setup_main, part, root)
        if init is not None:
            holder["old"] = lambda init=init: Fresh(init.tag, init.n)
    part.old_fresh = holder.get("old", lambda: Lit("zz"))() if part.kind == "text" else None
    if cons == "query" and part.old_fresh is None:
        return None
    try:
        built = build_construct(w, cons, part, root, dest, ret_old)
    except ValueError:
        return None
    v, codes, flagsets, guards, why = verdict(w, cons, part, root, dest, built)
    tx = None
    if root_key in ("local", "elem", "field", "traced") and cons not in ("spawn", "send", "call-msg", "return") \
            and rng.random() < 0.08:
        tx = rng.choice(["commit", "trap"])
        # a program without a table traps 5 at `transaction` ("database engine not
        # initialized"): every case that opens one has a table of its own
        txt = w.t("Tx")
        w.decls.append(ClassDecl(txt, [("n", "Int", None, None)], table="durable: false"))
        inner = [ExprStmt(Insert(txt, [("n", Lit(1))]))] + list(built.stmts)
        if tx == "trap":
            def mkz(name):
                return FnDecl(name, [], "Int", [Return(Lit(0))])
            inner.append(Let("q", Bin("/", Lit(1), Call(w.helper("zero", mkz), []))))
        built.stmts = [Transaction(inner)]
    scoped = root.wrap(built.stmts, getattr(built, "ret_expr", None))
    post = [] if (dest.effect == "move" and not w.traced) else post_stmts(w, part.field, root.Rpost)
    if op.field not in (part.field, "*") and not (dest.effect == "move" and not w.traced) and form != "container":
        post += post_stmts(w, op.field, root.Rpost)
    post = root.post_wrap(post) if post else []
    body = setup_main + scoped + post + [Return(Lit(0))]
    decls = w.owner_decls() + w.decls
    shape = {"construct": cons, "part": part.key, "root": root_key,
             "destroyer": f"{form}:{op.field}.{getattr(dest, 'op_key', op.key)}"}
    if wrap_key != "none":
        shape["wrap"] = wrap_key
    if w.dest_traps:
        shape["traps"] = "yes"
    if tx:
        shape["transaction"] = tx
    return Case(name, decls, body, v, codes, flagsets, guards, why, shape)


def find_initial_text(stmts, part, root):
    """The Fresh node that initialised the part (for Text parts), or None."""
    from model import Fresh as F
    path = part.key.split("/")[0]

    def fields_of(new):
        return dict(new.fields)

    owner_ctor = None
    for s in stmts:
        if isinstance(s, Let) and s.name in ("o", "o0") and isinstance(s.expr, New):
            owner_ctor = s.expr
        if isinstance(s, Let) and s.name == "h":
            owner_ctor = dict(s.expr.fields)["o"]
        if isinstance(s, Let) and s.name == "os":
            owner_ctor = s.expr.items[1]
    if owner_ctor is None:
        return None
    f = fields_of(owner_ctor)
    if path == "name":
        return f.get("name")
    if path == "inner.name":
        return dict(f["inner"].fields)["name"]
    if path == "words[0]":
        return f["words"].items[0]
    if path == "words[k]":
        k = part.setup[0].expr.v
        return f["words"].items[k]
    if path == "words-latest":
        return f["words"].items[-1]
    if path == "kids[0].name":
        return dict(f["kids"].items[0].fields)["name"]
    if path == "tags[a]":
        # filled by statements: o.tags["a"] = v (the root's owner is filled last)
        last = None
        for s in stmts:
            if isinstance(s, Assign) and isinstance(s.target, Index) and isinstance(s.target.i, Lit) \
                    and s.target.i.v == "a" and isinstance(s.target.xs, Field) and s.target.xs.name == "tags":
                last = s.expr
        return last
    return None


def make_family_case(name, rng, fam, traced=False):
    w = World(name, rng, traced=traced)
    res = FAMILIES[fam](w, rng)
    if res is None:
        return None
    body, (v, codes, flagsets, guards, why), shape = res
    if traced:
        shape["root"] = "traced"
    body = body + [Return(Lit(0))]
    decls = w.owner_decls() + w.decls
    return Case(name, decls, body, v, codes, flagsets, guards, why, shape)


FAMILY_SHARE = 0.15


def case_stream(seed, start=0):
    """Endless deterministic stream of cases for a seed: the grid in an order that
    spreads constructs and destroyer forms, interleaved with the other families."""
    combos = grid_combos()
    order_rng = random.Random(seed * 7919 + 1)

    def round_robin(groups):
        out = []
        depth = 0
        while True:
            added = False
            for g in groups:
                if depth < len(g):
                    out.append(g[depth])
                    added = True
            if not added:
                return out
            depth += 1

    # every construct gets an equal share; inside one, its (destroyer form, part
    # kind) buckets take turns, each bucket in a shuffled order
    per_cons = {}
    for c in combos:
        per_cons.setdefault(c[0], {}).setdefault((c[3], PART_KIND[c[1]]), []).append(c)
    seqs = []
    for cons in sorted(per_cons):
        buckets = [per_cons[cons][k] for k in sorted(per_cons[cons])]
        for b in buckets:
            order_rng.shuffle(b)
        order_rng.shuffle(buckets)
        seqs.append(round_robin(buckets))
    order_rng.shuffle(seqs)
    seq = round_robin(seqs)
    fams = sorted(FAMILIES)
    i = start
    while True:
        rng = random.Random(seed * 1000003 + i)
        name = f"k{i}"
        if rng.random() < FAMILY_SHARE:
            fam = fams[i % len(fams)]
            case = make_family_case(name, rng, fam,
                                    traced=(fam in ("after-move", "promote", "shared-write") and rng.random() < 0.3))
        else:
            combo = seq[i % len(seq)]
            case = make_grid_case(name, rng, combo)
        if case is not None:
            case.seed = seed
            case.index = i
            yield case
        i += 1


def cases(seed, n, start=0):
    out = []
    for c in case_stream(seed, start):
        out.append(c)
        if len(out) >= n:
            break
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--index", type=int, default=None, help="print the case with this index")
    ap.add_argument("--list", type=int, default=0, help="list the first N cases")
    ap.add_argument("--combos", action="store_true", help="count the grid's combinations")
    a = ap.parse_args()
    if a.combos:
        print(len(grid_combos()))
        return
    if a.index is not None:
        for c in case_stream(a.seed, a.index):
            if c.index != a.index:
                print(f"(index {a.index} builds no case; next is {c.index})", file=sys.stderr)
            sys.stdout.write(c.program())
            print("-- expected:")
            for alt in c.expected():
                print("-- ---")
                for line in alt.splitlines():
                    print("-- " + line)
            break
        return
    for c in cases(a.seed, a.list):
        print(f"{c.name}\t{c.verdict}\t{','.join(sorted(c.codes))}\t{c.describe()}")


if __name__ == "__main__":
    main()
