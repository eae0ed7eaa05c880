"""An expression parser over ``_extract_lex`` tokens, enough to read tool definitions.

Literals, object/array and Go composite literals, member access, calls and ``+`` are read
into nodes; everything else (function bodies, operators, types) is skipped by bracket
matching and becomes an opaque node, so no fetched code is run: the text is only read.

Nodes are tuples whose first item is the kind: ``("str", s)``, ``("num", n)``, ``("lit", v)``
(true/false/null), ``("undef",)``, ``("id", name)``, ``("obj", [(key, node) | ("...", node)])``,
``("arr", [node])``, ``("call", callee, [args])``, ``("member", obj, name)``,
``("index", obj, node)``, ``("tpl", [str | node])``, ``("tagged", tag, tpl)``,
``("add", left, right)``, ``("comp", type_node, [(key | None, node)])`` (Go), ``("regex", src)``,
``("arrow", params, body)`` (an arrow function whose body is one expression),
``("spread", node)``, ``("func",)`` and ``("opaque",)``.
"""

from __future__ import annotations

from typing import Any

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {")", "]", "}", ",", ";"}


class Parser:
    """Expressions from a token list; ``pos`` moves as they are read."""

    def __init__(self, toks: list[tuple], go: bool = False,
                 newlines: set[int] | frozenset[int] = frozenset()) -> None:
        self.t, self.pos, self.go, self.nl = toks, 0, go, newlines

    def peek(self, k: int = 0) -> tuple:
        j = self.pos + k
        return self.t[j] if j < len(self.t) else ("eof", None, -1)

    def at(self, val: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok[0] == "p" and tok[1] == val

    def take(self, val: str) -> None:
        if not self.at(val):
            raise SyntaxError(f"expected {val!r}, found {self.peek()[1]!r}")
        self.pos += 1

    def match(self, j: int) -> int:
        """Index of the bracket closing the one at token ``j``."""
        depth, k = 0, j
        while k < len(self.t):
            kind, val, _ = self.t[k]
            if kind == "p" and val in _OPEN:
                depth += 1
            elif kind == "p" and val in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    return k
            k += 1
        raise SyntaxError("unbalanced brackets")

    def skip_to_end(self, angle: bool = False) -> None:
        """Skip to the next ``,`` ``;`` or closing bracket at this depth (``<>`` in types)."""
        depth = 0
        while self.pos < len(self.t):
            kind, val, _ = self.t[self.pos]
            if kind == "p":
                if val in _OPEN:
                    self.pos = self.match(self.pos) + 1
                    continue
                if angle and val == "<":
                    depth += 1
                elif angle and val == ">" and depth:
                    depth -= 1
                elif val in _CLOSERS and depth == 0:
                    return
                elif val == "=>" and angle and depth == 0:
                    return
            self.pos += 1

    def skip_type(self) -> None:
        self.skip_to_end(angle=True)

    def skip_annotation(self) -> None:
        """After ``name:`` in a declaration, skip the type up to the ``=`` (or ``;``)."""
        angle = 0
        while self.peek()[0] != "eof" and not (angle == 0 and (self.at("=") or self.at(";"))):
            if self.peek()[0] == "p" and self.peek()[1] in ("(", "[", "{"):
                self.pos = self.match(self.pos)
            elif self.at("<"):
                angle += 1
            elif self.at(">") and angle:
                angle -= 1
            elif angle == 0 and self.pos in self.nl and self.peek()[0] == "id":
                return  # a field without an initializer ended on the line before
            self.pos += 1

    def expr(self) -> tuple:
        node = self.unary()
        while True:
            if self.at("+"):
                self.pos += 1
                node = ("add", node, self.unary())
            elif self.peek()[0] == "id" and self.peek()[1] in ("as", "satisfies") \
                    and not self.go:
                self.pos += 1
                if self.peek()[1] == "const":
                    self.pos += 1
                else:
                    self.skip_type()
            else:
                break
        tok = self.peek()
        if tok[0] == "eof" or (tok[0] == "p" and tok[1] in _CLOSERS):
            return node
        if self.go and tok[0] == "p" and tok[1] in (":", "..."):
            return node  # a composite literal's key, or f(xs...)
        if not self.go and self.pos in self.nl and tok[0] in ("id", "str", "num", "tpl"):
            return node  # a new line that cannot continue the expression ends it (ASI)
        self.skip_to_end()
        return ("opaque",)

    def unary(self) -> tuple:
        tok = self.peek()
        if tok[0] == "p" and tok[1] in ("!", "-", "~", "typeof", "void", "...", "&", "*"):
            self.pos += 1
            inner = self.unary()
            if tok[1] == "-" and inner[0] == "num" and inner[1] is not None:
                return ("num", -inner[1])
            if tok[1] == "&" and self.go:
                return inner
            return ("opaque",)
        if tok[0] == "id" and tok[1] in ("await", "typeof", "void", "new") and not self.go:
            self.pos += 1
            self.unary()
            return ("opaque",)
        return self.postfix(self.primary())

    def primary(self) -> tuple:
        kind, val, _ = self.peek()
        if kind == "str":
            self.pos += 1
            return ("str", val)
        if kind == "num":
            self.pos += 1
            return ("num", val)
        if kind == "regex":
            self.pos += 1
            return ("regex", val)
        if kind == "tpl":
            self.pos += 1
            return self.template(val)
        if kind == "id":
            return self.ident(val)
        if kind == "p" and val == "(":
            close = self.match(self.pos)
            nxt = self.t[close + 1] if close + 1 < len(self.t) else ("eof", None, -1)
            if not self.go and nxt[0] == "p" and nxt[1] in ("=>", ":"):
                if nxt[1] == "=>" or self._arrow_after_type(close + 1):
                    params = {t[1] for t in self.t[self.pos + 1:close] if t[0] == "id"}
                    return self.arrow_from(close + 1, params)
            self.pos += 1
            node = self.expr()
            self.take(")")
            return node
        if kind == "p" and val == "[":
            if self.go:  # a slice or map type: []T{...} / map[K]V{...}
                return self.go_type()
            return self.array()
        if kind == "p" and val == "{":
            return self.obj() if not self.go else self.go_composite(("opaque",))
        if kind == "p" and val == "<" and not self.go:  # <T>(x) => ... generic arrow
            self.skip_to_end()
            return ("func",)
        self.skip_to_end()
        return ("opaque",)

    def _arrow_after_type(self, colon: int) -> bool:
        save = self.pos
        self.pos = colon + 1
        self.skip_type()
        ok = self.at("=>")
        self.pos = save
        return ok

    def arrow_from(self, j: int, params: set[str] | None = None) -> tuple:
        """An arrow function: ``("arrow", params, body)`` when its body is one expression
        (or a block of one ``return``), else ``("func",)``. Never called, only read."""
        self.pos = j
        if self.at(":"):
            self.pos += 1
            self.skip_type()
        self.take("=>")
        names = frozenset(params or ())
        if self.at("{"):
            end = self.match(self.pos)
            if self.peek(1)[:2] == ("id", "return"):
                self.pos += 2
                body = self.expr()
                if self.at(";"):
                    self.pos += 1
                if self.pos == end:
                    self.pos = end + 1
                    return ("arrow", names, body)
            self.pos = end + 1
            return ("func",)
        return ("arrow", names, self.expr())

    def ident(self, val: str) -> tuple:
        if self.go and val == "map" and self.at("[", 1):
            return self.go_type()
        if self.go and val == "func":
            self.pos += 1
            if self.at("("):
                self.pos = self.match(self.pos) + 1
            while not self.at("{") and self.peek()[0] != "eof":
                if self.at("("):
                    self.pos = self.match(self.pos) + 1
                else:
                    self.pos += 1
            if self.at("{"):
                self.pos = self.match(self.pos) + 1
            return ("func",)
        self.pos += 1
        if not self.go:
            if val == "function" or (val == "async" and self.peek()[0] in ("id", "p")
                                     and (self.at("(") or self.peek()[0] == "id")):
                if val == "async" and self.peek()[0] == "id" and self.at("=>", 1):
                    self.pos += 1
                    self.arrow_from(self.pos)
                    return ("func",)  # an async function's value is a promise: not read
                if val == "async" and self.at("("):
                    close = self.match(self.pos)
                    self.arrow_from(close + 1)
                    return ("func",)
                while not self.at("(") and self.peek()[0] != "eof":
                    self.pos += 1
                self.pos = self.match(self.pos) + 1
                if self.at(":"):
                    self.pos += 1
                    while not self.at("{") and self.peek()[0] != "eof":
                        self.pos += 1
                self.pos = self.match(self.pos) + 1
                return ("func",)
            if self.at("=>"):
                return self.arrow_from(self.pos, {val})
            if val in ("true", "false", "null"):
                return ("lit", {"true": True, "false": False, "null": None}[val])
            if val == "undefined":
                return ("undef",)
            if val == "class":
                while not self.at("{") and self.peek()[0] != "eof":
                    self.pos += 1
                self.pos = self.match(self.pos) + 1
                return ("opaque",)
        else:
            if val in ("true", "false"):
                return ("lit", val == "true")
            if val == "nil":
                return ("lit", None)
        return ("id", val)

    def go_type(self) -> tuple:
        """A Go slice/map type, then the composite literal that usually follows it."""
        start = self.pos
        if self.peek()[1] == "map":
            self.pos += 1
        while self.at("["):
            self.pos = self.match(self.pos) + 1
        while self.peek()[0] == "id" or self.at("*") or self.at("."):
            if self.peek()[1] == "map" and self.at("[", 1):
                self.pos += 1
                self.pos = self.match(self.pos) + 1
                continue
            self.pos += 1
            if self.at("["):
                self.pos = self.match(self.pos) + 1
        type_node = ("type", " ".join(str(t[1]) for t in self.t[start:self.pos]))
        if self.at("{"):
            return self.go_composite(type_node)
        return type_node

    def go_composite(self, type_node: tuple) -> tuple:
        self.take("{")
        items: list[tuple[Any, tuple]] = []
        while not self.at("}"):
            if self.peek()[0] == "eof":
                raise SyntaxError("unterminated composite literal")
            first = self.expr() if not self.at("{") else self.go_composite(("opaque",))
            if self.at(":"):
                self.pos += 1
                val = self.expr() if not self.at("{") else self.go_composite(("opaque",))
                items.append((first, val))
            else:
                items.append((None, first))
            if self.at(","):
                self.pos += 1
            elif not self.at("}"):
                self._resync("}")
        self.take("}")
        return ("comp", type_node, items)

    def template(self, parts: list[Any]) -> tuple:
        out: list[Any] = []
        for part in parts:
            if isinstance(part, str):
                out.append(part)
            else:
                sub = Parser(part, self.go)
                node = sub.expr() if part else ("opaque",)
                out.append(node if sub.pos >= len(part) else ("opaque",))
        return ("tpl", out)

    def postfix(self, node: tuple) -> tuple:
        while True:
            tok = self.peek()
            if tok[0] == "p" and tok[1] in (".", "?.") and self.peek(1)[0] == "id":
                self.pos += 2
                node = ("member", node, self.peek(-1)[1])
            elif tok[0] == "p" and tok[1] == "?." and self.at("(", 1):
                self.pos += 1
            elif tok[0] == "p" and tok[1] == "(":
                node = ("call", node, self.args(")"))
            elif tok[0] == "p" and tok[1] == "[" and not self.go:
                self.pos += 1
                key = self.expr()
                self.take("]")
                node = ("index", node, key)
            elif tok[0] == "p" and tok[1] == "[" and self.go:
                self.pos = self.match(self.pos) + 1  # generic instantiation F[T]
                node = ("generic", node)
            elif tok[0] == "tpl" and not self.go:
                self.pos += 1
                node = ("tagged", node, self.template(tok[1]))
            elif tok[0] == "p" and tok[1] == "!" and not self.go and not self.at("=", 1):
                self.pos += 1
            elif tok[0] == "p" and tok[1] == "<" and not self.go and node[0] in ("id", "member"):
                # f<T>(...) : a call with type arguments, if a '(' follows the '>'.
                save, depth = self.pos, 0
                while self.pos < len(self.t):
                    if self.at("<"):
                        depth += 1
                    elif self.at(">"):
                        depth -= 1
                        if depth == 0:
                            break
                    elif self.peek()[0] == "p" and self.peek()[1] in (";", "{", "}"):
                        break
                    self.pos += 1
                if self.at(">") and self.at("(", 1):
                    self.pos += 1
                    continue
                self.pos = save
                return node
            elif tok[0] == "p" and tok[1] == "{" and self.go and node[0] in ("id", "member"):
                node = self.go_composite(node)
            else:
                return node

    def args(self, close: str) -> list[tuple]:
        self.pos += 1
        out = []
        while not self.at(close):
            if self.peek()[0] == "eof":
                raise SyntaxError("unterminated argument list")
            if self.at("..."):
                self.pos += 1
                out.append(("spread", self.expr()))
            else:
                out.append(self.expr())
                if self.go and self.at("..."):  # Go: f(xs...)
                    self.pos += 1
                    out[-1] = ("spread", out[-1])
            if self.at(","):
                self.pos += 1
            elif not self.at(close):
                self._resync(close)
        self.pos += 1
        return out

    def _resync(self, close: str) -> None:
        """After an element that did not end at ``,`` or ``close``: skip on, or give up."""
        self.skip_to_end()
        if self.at(",") or self.at(";"):
            self.pos += 1
        elif not self.at(close):
            raise SyntaxError(f"expected {close!r}, found {self.peek()[1]!r}")

    def array(self) -> tuple:
        return ("arr", self.args("]"))

    def obj(self) -> tuple:
        self.take("{")
        props: list[tuple[str, tuple]] = []
        while not self.at("}"):
            kind, val, _ = self.peek()
            if kind == "eof":
                raise SyntaxError("unterminated object literal")
            if self.at("..."):
                self.pos += 1
                props.append(("...", self.expr()))
            else:
                key: Any
                if kind in ("id", "str", "num"):
                    key = str(val)
                    self.pos += 1
                    if kind == "id" and val in ("get", "set", "async", "static") and \
                            self.peek()[0] in ("id", "str") and not self.at(":"):
                        key = str(self.peek()[1])
                        self.pos += 1
                elif self.at("["):
                    self.pos += 1
                    key = ("computed", self.expr())
                    self.take("]")
                elif self.at("*"):
                    self.pos += 1
                    continue
                else:
                    self.skip_to_end()
                    key = None
                if self.at("?"):
                    self.pos += 1
                if self.at(":"):
                    self.pos += 1
                    node = self.expr()
                elif self.at("(") or self.at("<"):
                    while not self.at("(") and self.peek()[0] != "eof":
                        self.pos += 1
                    self.pos = self.match(self.pos) + 1
                    if self.at(":"):
                        self.pos += 1
                        while not self.at("{") and self.peek()[0] != "eof":
                            self.pos += 1
                    self.pos = self.match(self.pos) + 1
                    node = ("func",)
                elif self.at("="):  # a default in a destructuring pattern
                    self.pos += 1
                    self.expr()
                    node = ("opaque",)
                else:
                    node = ("id", key) if isinstance(key, str) else ("opaque",)
                if key is not None:
                    props.append((key, node))
            if self.at(","):
                self.pos += 1
            elif not self.at("}"):
                self._resync("}")
        self.take("}")
        return ("obj", props)
