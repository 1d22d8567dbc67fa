#!/usr/bin/env python3
"""A scripted LSP client for `woc lsp` (make test: ctest -R lsp).

Spawns `woc lsp`, speaks the protocol over its stdin/stdout and checks every
answer against expectations written by hand from the program texts below
(lines and UTF-16 columns counted on the texts, not taken from woc). Every
wait is bounded; the first failed check stops the test with exit status 1.

usage: lsp-test.py WOC
"""
import json
import os
import queue
import random
import shutil
import subprocess
import sys
import tempfile
import threading

WOC = sys.argv[1]
TIMEOUT = 30  # seconds for any one answer (sanitizer builds are slow)

SHAPES = """class Point {
  x: Int
  y: Int

  fn sum() -> Int {
    return self.x + self.y
  }
}
"""

# Line 7 (0-based) reports `cuont`: `  print("é😀" .. ` is 20 bytes but
# 17 UTF-16 units (é is one unit in 2 bytes, 😀 two units in 4 bytes).
MAIN_BROKEN = """fn area(w: Int, h: Int) -> Int {
  return w * h
}

fn main() {
  let p = Point { x: 1, y: 2 }
  let s: Text = "${area(p.x, 3)}"
  print("é😀" .. cuont)
  print_int(p.sum())
}
"""
MAIN_FIXED = MAIN_BROKEN.replace("cuont", "s")


def fail(msg):
    print("lsp-test: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


class Client:
    def __init__(self):
        self.proc = subprocess.Popen([WOC, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.inbox = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.decode().partition(":")
                headers[k.strip().lower()] = v.strip()
            body = out.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body.decode("utf-8")))

    def raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def frame(self, body_bytes):
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body_bytes) + body_bytes)

    def send(self, msg):
        msg = dict(msg, jsonrpc="2.0")
        self.frame(json.dumps(msg, ensure_ascii=False).encode("utf-8"))

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def request(self, method, params=None, skip_others=False):
        rid = self.next_id
        self.next_id += 1
        msg = {"id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.response(rid, skip_others)

    def message(self, what):
        try:
            m = self.inbox.get(timeout=TIMEOUT)
        except queue.Empty:
            fail("no message within %ds while waiting for %s" % (TIMEOUT, what))
        if m is None:
            fail("woc lsp closed its output while waiting for %s (exit %s)" % (what, self.proc.poll()))
        return m

    def response(self, rid, skip_others=False):
        while True:
            m = self.message("the answer to request %r" % rid)
            if "method" in m:
                continue  # a notification (diagnostics) in between
            if skip_others and m.get("id") != rid:
                continue  # the answers to the fuzz frames sent before
            check(m.get("id") == rid, "expected the answer to %r, got %r" % (rid, m))
            return m

    def diagnostics(self, uri):
        while True:
            m = self.message("diagnostics of " + uri)
            check("id" not in m or m.get("id") is None or "method" in m, "unexpected response %r" % m)
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]["diagnostics"]


def pos(line, ch):
    return {"line": line, "character": ch}


def rng(l1, c1, l2, c2):
    return {"start": pos(l1, c1), "end": pos(l2, c2)}


def main():
    work = tempfile.mkdtemp(prefix="lsp-test-")
    try:
        exchange(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("lsp-test: ok")


def command_line():
    r = subprocess.run([WOC, "lsp", "--help"], capture_output=True, text=True, timeout=TIMEOUT)
    check(r.returncode == 0 and "Language Server Protocol" in r.stdout, "woc lsp --help: %r" % (r,))
    r = subprocess.run([WOC, "lsp", "--bogus"], capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    check(r.returncode == 2 and "--bogus" in r.stderr and r.stdout == "", "an unknown option is refused: %r" % (r,))


def exchange(work):
    command_line()
    shapes_path = os.path.join(work, "shapes.wo")
    main_path = os.path.join(work, "main.wo")
    with open(shapes_path, "w") as f:
        f.write(SHAPES)  # a sibling file read from disk, not opened at first
    with open(main_path, "w") as f:
        f.write("fn main() {\n}\n")  # what is on disk differs from the buffer
    main_uri = "file://" + main_path
    shapes_uri = "file://" + shapes_path

    c = Client()
    r = c.request("textDocument/hover", {"textDocument": {"uri": main_uri}, "position": pos(0, 0)})
    check(r.get("error", {}).get("code") == -32002, "a request before initialize: ServerNotInitialized, got %r" % r)

    r = c.request("initialize", {"processId": None, "rootUri": "file://" + work, "capabilities": {}})
    caps = r["result"]["capabilities"]
    check(caps["textDocumentSync"]["change"] == 1, "full text sync")
    check(caps["hoverProvider"] and caps["definitionProvider"] and caps["documentSymbolProvider"], "providers %r" % caps)
    check(caps["completionProvider"]["triggerCharacters"] == ["."], "completion on `.`")
    check(caps.get("documentFormattingProvider") is True, "formatting provider")
    c.notify("initialized", {})

    # --- diagnostics as you type
    c.notify("textDocument/didOpen", {"textDocument": {"uri": main_uri, "languageId": "wo", "version": 1, "text": MAIN_BROKEN}})
    d = c.diagnostics(main_uri)
    check(len(d) == 1, "one diagnostic for the broken program, got %r" % d)
    check(d[0]["range"] == rng(7, 17, 7, 22), "range of `cuont` in UTF-16 units, got %r" % d[0]["range"])
    check(d[0]["code"] == "WO-E403" and d[0]["severity"] == 1 and "cuont" in d[0]["message"], "diagnostic %r" % d[0])

    # A ranged edit (we ask for full sync; ranges are applied all the same):
    # `cuont` -> `s`, UTF-16 columns 17..22 of line 7.
    c.notify("textDocument/didChange", {"textDocument": {"uri": main_uri, "version": 2},
                                        "contentChanges": [{"range": rng(7, 17, 7, 22), "text": "s"}]})
    check(c.diagnostics(main_uri) == [], "the fix clears the diagnostics")
    c.notify("textDocument/didChange", {"textDocument": {"uri": main_uri, "version": 3}, "contentChanges": [{"text": MAIN_FIXED}]})
    check(c.diagnostics(main_uri) == [], "the whole fixed text: still no diagnostics")

    td = {"uri": main_uri}
    # --- hover: a local, a field through a receiver, a function, a parameter
    r = c.request("textDocument/hover", {"textDocument": td, "position": pos(6, 24)})  # the `p` of area(p.x, 3)
    check(r["result"]["contents"]["value"] == "```wo\nlet p: Point\n```", "hover on p: %r" % r)
    check(r["result"]["range"] == rng(6, 24, 6, 25), "hover range on p: %r" % r["result"]["range"])
    r = c.request("textDocument/hover", {"textDocument": td, "position": pos(6, 26)})  # the `x` of p.x
    check("Point.x: Int" in r["result"]["contents"]["value"], "hover on x: %r" % r)
    r = c.request("textDocument/hover", {"textDocument": td, "position": pos(6, 20)})  # area
    check("fn area(w: Int, h: Int) -> Int" in r["result"]["contents"]["value"], "hover on area: %r" % r)
    r = c.request("textDocument/hover", {"textDocument": td, "position": pos(1, 9)})  # the `w` of w * h
    check("w: Int" in r["result"]["contents"]["value"], "hover on parameter w: %r" % r)
    r = c.request("textDocument/hover", {"textDocument": td, "position": pos(3, 0)})  # an empty line
    check(r["result"] is None, "hover on nothing is null: %r" % r)

    # --- go to definition: a class and a method in the sibling file, a function, a local, a parameter
    def definition(line, ch):
        return c.request("textDocument/definition", {"textDocument": td, "position": pos(line, ch)})["result"]

    check(definition(5, 11) == {"uri": shapes_uri, "range": rng(0, 6, 0, 11)}, "Point -> shapes.wo:1")
    check(definition(8, 15) == {"uri": shapes_uri, "range": rng(4, 5, 4, 8)}, "p.sum -> fn sum: %r" % definition(8, 15))
    check(definition(6, 21) == {"uri": main_uri, "range": rng(0, 3, 0, 7)}, "area -> fn area")
    check(definition(8, 12) == {"uri": main_uri, "range": rng(5, 6, 5, 7)}, "p -> let p")
    check(definition(1, 13) == {"uri": main_uri, "range": rng(0, 16, 0, 17)}, "h -> parameter h")
    check(definition(6, 26) == {"uri": shapes_uri, "range": rng(1, 2, 1, 3)}, "p.x -> field x")

    # --- a sibling file changed on disk: the open document is checked against it
    with open(shapes_path, "w") as f:
        f.write(SHAPES.replace("  y: Int\n", ""))
    c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": shapes_uri, "type": 2}]})
    d = c.diagnostics(main_uri)
    check(len(d) == 1 and d[0]["range"] == rng(5, 24, 5, 25), "Point has no field y any more: %r" % d)
    with open(shapes_path, "w") as f:
        f.write(SHAPES)
    c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": shapes_uri, "type": 2}]})
    check(c.diagnostics(main_uri) == [], "restored on disk")
    r = c.request("initialize", {"capabilities": {}})
    check(r.get("error", {}).get("code") == -32600, "a second initialize is refused: %r" % r)

    # --- a file the program leaves out (the loader skips dot-directories)
    # is checked on its own: `nope` on line 1, columns 9..13
    drafts = os.path.join(work, ".drafts")
    os.mkdir(drafts)
    draft_uri = "file://" + os.path.join(drafts, "draft.wo")
    c.notify("textDocument/didOpen", {"textDocument": {"uri": draft_uri, "version": 1,
                                                       "text": "fn helper() -> Int {\n  return nope\n}\n"}})
    d = c.diagnostics(draft_uri)
    check(any(x["range"] == rng(1, 9, 1, 13) and "nope" in x["message"] for x in d), "the draft's own error: %r" % d)
    c.notify("textDocument/didClose", {"textDocument": {"uri": draft_uri}})
    check(c.diagnostics(draft_uri) == [], "closing clears the draft's diagnostics")

    # --- a *_test.wo file is checked with the program it tests (`area` is main.wo's)
    test_path = os.path.join(work, "geo_test.wo")
    test_text = "fn test_area() {\n  let a = area(2, 3)\n  print_int(a)\n}\n"
    with open(test_path, "w") as f:
        f.write(test_text)
    c.notify("textDocument/didOpen", {"textDocument": {"uri": "file://" + test_path, "version": 1, "text": test_text}})
    check(c.diagnostics("file://" + test_path) == [], "the test file sees area()")
    c.notify("textDocument/didClose", {"textDocument": {"uri": "file://" + test_path}})
    c.diagnostics("file://" + test_path)
    os.unlink(test_path)

    # --- a second document: symbols of the class file
    c.notify("textDocument/didOpen", {"textDocument": {"uri": shapes_uri, "languageId": "wo", "version": 1, "text": SHAPES}})
    check(c.diagnostics(shapes_uri) == [], "shapes.wo is clean")
    r = c.request("textDocument/documentSymbol", {"textDocument": {"uri": shapes_uri}})["result"]
    check([s["name"] for s in r] == ["Point"] and r[0]["kind"] == 5, "one class: %r" % r)
    check([(k["name"], k["kind"]) for k in r[0]["children"]] == [("x", 8), ("y", 8), ("sum", 6)], "members: %r" % r)
    check(r[0]["selectionRange"] == rng(0, 6, 0, 11), "class name range")
    r = c.request("textDocument/documentSymbol", {"textDocument": td})["result"]
    check([(s["name"], s["kind"]) for s in r] == [("area", 12), ("main", 12)], "main.wo functions: %r" % r)

    # --- completion after `.`: the receiver's fields and methods, a namespace's members
    typing = MAIN_FIXED.replace("  print_int(p.sum())\n", "  print_int(p.sum())\n  p.\n")
    c.notify("textDocument/didChange", {"textDocument": {"uri": main_uri, "version": 3}, "contentChanges": [{"text": typing}]})
    check(len(c.diagnostics(main_uri)) >= 1, "`p.` does not parse")
    r = c.request("textDocument/completion", {"textDocument": td, "position": pos(9, 4)})["result"]
    labels = sorted(i["label"] for i in r["items"])
    check(labels == ["sum", "x", "y"], "members of Point: %r" % labels)
    typing2 = "use time\n" + MAIN_FIXED.replace("  print_int(p.sum())\n", "  print_int(p.sum())\n  let t = time.no\n")
    c.notify("textDocument/didChange", {"textDocument": {"uri": main_uri, "version": 4}, "contentChanges": [{"text": typing2}]})
    c.diagnostics(main_uri)
    r = c.request("textDocument/completion", {"textDocument": td, "position": pos(10, 17)})["result"]
    labels = [i["label"] for i in r["items"]]
    check("now" in labels and all(l.startswith("no") for l in labels), "time.no -> now: %r" % labels)
    r = c.request("textDocument/completion", {"textDocument": td, "position": pos(9, 4)})["result"]  # `  pr|int_int(`: a bare prefix
    labels = [i["label"] for i in r["items"]]
    check("print" in labels and "print_int" in labels, "builtins by prefix: %r" % labels)

    # --- formatting through the formatter library
    messy = "fn main()   {\n      print(\"hi\")\n}\n"
    c.notify("textDocument/didChange", {"textDocument": {"uri": main_uri, "version": 5}, "contentChanges": [{"text": messy}]})
    c.diagnostics(main_uri)
    r = c.request("textDocument/formatting", {"textDocument": td, "options": {"tabSize": 2, "insertSpaces": True}})["result"]
    check(isinstance(r, list) and len(r) == 1 and r[0]["newText"] == "fn main() {\n  print(\"hi\")\n}\n",
          "one whole-document edit to the canonical layout: %r" % r)
    check(r[0]["range"] == rng(0, 0, 3, 0), "the edit covers the whole text: %r" % r[0]["range"])
    c.notify("textDocument/didChange", {"textDocument": {"uri": main_uri, "version": 6}, "contentChanges": [{"text": r[0]["newText"]}]})
    c.diagnostics(main_uri)
    r = c.request("textDocument/formatting", {"textDocument": td, "options": {"tabSize": 2, "insertSpaces": True}})["result"]
    check(r == [], "formatting a formatted text changes nothing: %r" % r)
    c.notify("textDocument/didChange", {"textDocument": {"uri": main_uri, "version": 7}, "contentChanges": [{"text": "fn main() {\n  let = \n}\n"}]})
    c.diagnostics(main_uri)
    r = c.request("textDocument/formatting", {"textDocument": td, "options": {"tabSize": 2, "insertSpaces": True}})
    check(r.get("error", {}).get("code") == -32803, "a syntax error: the request fails: %r" % r)

    # --- protocol errors: the server answers and keeps going
    r = c.request("textDocument/noSuchThing", {})
    check(r["error"]["code"] == -32601, "unknown request -> MethodNotFound: %r" % r)
    c.notify("$/noSuchNotification", {})  # ignored: no answer
    c.frame(b"{ this is not json")
    m = c.message("the parse error")
    check(m.get("id") is None and m["error"]["code"] == -32700, "malformed JSON -> ParseError: %r" % m)
    r = c.request("textDocument/hover", {"textDocument": td, "position": "nowhere"})
    check(r["error"]["code"] == -32602, "bad params -> InvalidParams: %r" % r)
    r = c.request("textDocument/hover", {"textDocument": {"uri": "file:///not/open.wo"}, "position": pos(0, 0)})
    check("error" in r, "a document that is not open: %r" % r)

    # --- fuzz-ish: garbage frames and bodies never stop the server
    rnd = random.Random(11)
    c.raw(b"Content-Length: banana\r\n\r\n")
    c.raw(b"X-Nonsense\r\n\r\n")
    c.raw(b"Content-Length: 99999999999\r\n\r\n")  # too large: read and dropped... until the next test frame
    # the oversized frame swallowed what follows up to end of input, so start a fresh server for the rest
    c.proc.stdin.close()
    c.proc.wait(timeout=TIMEOUT)
    check(c.proc.returncode == 1, "end of input without shutdown exits 1, got %r" % c.proc.returncode)

    c = Client()
    c.request("initialize", {"capabilities": {}})
    c.notify("textDocument/didOpen", {"textDocument": {"uri": main_uri, "version": 1, "text": MAIN_FIXED}})
    c.diagnostics(main_uri)
    c.raw(b"Content-Length: banana\r\n\r\n")
    c.raw(b"X-Nonsense\r\n\r\n")
    errors = 0
    for _ in range(300):
        kind = rnd.randrange(5)
        if kind == 0:
            body = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 64)))
        elif kind == 1:
            body = json.dumps(rnd.choice([[], 3, "x", None, {"id": [1]}, {"method": 5}, {"id": 1.5, "method": "x"}])).encode()
        elif kind == 2:
            body = json.dumps({"jsonrpc": "2.0", "id": "s", "method": rnd.choice(
                ["textDocument/hover", "textDocument/definition", "textDocument/completion", "textDocument/documentSymbol",
                 "textDocument/formatting"]),
                "params": {"textDocument": td, "position": pos(rnd.randrange(-3, 40), rnd.randrange(-3, 2 ** 33))}}).encode()
        elif kind == 3:
            text = "".join(rnd.choice("fn main(){}\n.\"é😀 let p = Point{x:1} p.x ${}") for _ in range(rnd.randrange(80)))
            body = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didChange",
                               "params": {"textDocument": td, "contentChanges": [{"text": text}]}}).encode()
        else:
            body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "textDocument/completion",
                               "params": {"textDocument": td, "position": {"line": "a"}}}).encode()
        c.frame(body)
    r = c.request("shutdown", skip_others=True)
    check(r.get("result", "missing") is None, "shutdown -> null: %r" % r)
    c.notify("exit", None)
    try:
        c.proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        c.proc.kill()
        fail("woc lsp did not exit after `exit`")
    check(c.proc.returncode == 0, "shutdown then exit -> status 0, got %r" % c.proc.returncode)


main()
