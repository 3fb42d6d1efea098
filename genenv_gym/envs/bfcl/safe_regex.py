"""A small regex engine with Python ``re``'s results and no catastrophic backtracking.

The official BFCL type converters use regular expressions that backtrack catastrophically on some inputs
(the JavaScript 2-D array pattern is exponential, the Java ``HashMap`` pattern is a high-degree polynomial).
:class:`SafeRegex` runs such patterns: a backtracking matcher with ``re``'s leftmost-first semantics that
memoizes failed (instruction, position) states, so it returns exactly what ``re`` returns but in time linear
in the input for a fixed pattern.

The subset: literals and escapes (``\\n``, ``\\.``...), ``.`` (``dotall`` as ``re.DOTALL``), character
classes with ranges and ``\\s \\S \\d \\D \\w \\W``, ``^``, ``$``, ``\\b``, capturing groups, ``(?:...)``,
lookaheads ``(?=...)``, alternation, and the greedy / lazy quantifiers ``* + ?`` (not ``{m,n}``; no
backreferences; a repeated sub-pattern must not match the empty string).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["SafeRegex"]

_LIT, _PRED, _SPLIT, _JMP, _SAVE, _ASSERT, _LOOK, _MATCH = range(8)


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


_CLASS_ESCAPES: dict[str, Callable[[str], bool]] = {
    "s": str.isspace,
    "S": lambda ch: not ch.isspace(),
    "d": str.isdecimal,
    "D": lambda ch: not ch.isdecimal(),
    "w": _is_word,
    "W": lambda ch: not _is_word(ch),
}
_CHAR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}


class _RegexParser:
    """Parses the regex subset used by the official converters into a small tree."""

    def __init__(self, pattern: str, dotall: bool) -> None:
        self.p = pattern
        self.i = 0
        self.dotall = dotall
        self.ngroups = 0

    def parse(self) -> tuple:
        node = self._alt()
        if self.i != len(self.p):
            raise ValueError(f"unbalanced ')' at {self.i} in {self.p!r}")
        return node

    def _peek(self) -> str:
        return self.p[self.i] if self.i < len(self.p) else ""

    def _alt(self) -> tuple:
        branches = [self._cat()]
        while self._peek() == "|":
            self.i += 1
            branches.append(self._cat())
        return ("alt", branches) if len(branches) > 1 else branches[0]

    def _cat(self) -> tuple:
        items = []
        while self.i < len(self.p) and self.p[self.i] not in "|)":
            items.append(self._repeat())
        return ("cat", items)

    def _repeat(self) -> tuple:
        node = self._atom()
        while self._peek() in ("*", "+", "?") and self._peek():
            quant = self.p[self.i]
            self.i += 1
            greedy = True
            if self._peek() == "?":
                greedy = False
                self.i += 1
            node = ("rep", node, quant, greedy)
        return node

    def _expect(self, ch: str) -> None:
        if self._peek() != ch:
            raise ValueError(f"expected {ch!r} at {self.i} in {self.p!r}")
        self.i += 1

    def _atom(self) -> tuple:
        c = self.p[self.i]
        self.i += 1
        if c == "(":
            if self.p.startswith("?:", self.i):
                self.i += 2
                node = self._alt()
                self._expect(")")
                return node
            if self.p.startswith("?=", self.i):
                self.i += 2
                node = self._alt()
                self._expect(")")
                return ("look", node)
            self.ngroups += 1
            index = self.ngroups
            node = self._alt()
            self._expect(")")
            return ("group", index, node)
        if c == "[":
            return self._class()
        if c == ".":
            return ("pred", (lambda ch: True) if self.dotall else (lambda ch: ch != "\n"))
        if c == "^":
            return ("assert", "bol")
        if c == "$":
            return ("assert", "eol")
        if c == "\\":
            e = self.p[self.i]
            self.i += 1
            if e == "b":
                return ("assert", "wordb")
            if e in _CLASS_ESCAPES:
                return ("pred", _CLASS_ESCAPES[e])
            return ("lit", _CHAR_ESCAPES.get(e, e))
        if c in "*+?{":
            raise ValueError(f"unsupported regex syntax {c!r} in {self.p!r}")
        return ("lit", c)

    def _class(self) -> tuple:
        negated = self._peek() == "^"
        if negated:
            self.i += 1
        chars: set[str] = set()
        ranges: list[tuple[str, str]] = []
        preds: list[Callable[[str], bool]] = []
        first = True
        while True:
            c = self.p[self.i]
            self.i += 1
            if c == "]" and not first:
                break
            first = False
            if c == "\\":
                e = self.p[self.i]
                self.i += 1
                if e in _CLASS_ESCAPES:
                    preds.append(_CLASS_ESCAPES[e])
                    continue
                c = _CHAR_ESCAPES.get(e, e)
            if self._peek() == "-" and self.i + 1 < len(self.p) and self.p[self.i + 1] != "]":
                hi = self.p[self.i + 1]
                self.i += 2
                if hi == "\\":
                    hi = self.p[self.i]
                    self.i += 1
                ranges.append((c, hi))
                continue
            chars.add(c)
        frozen = frozenset(chars)

        def pred(ch: str) -> bool:
            hit = ch in frozen or any(lo <= ch <= hi for lo, hi in ranges) or any(f(ch) for f in preds)
            return hit != negated

        return ("pred", pred)


def _nullable(node: tuple) -> bool:
    kind = node[0]
    if kind in ("lit", "pred"):
        return False
    if kind == "cat":
        return all(_nullable(n) for n in node[1])
    if kind == "alt":
        return any(_nullable(n) for n in node[1])
    if kind == "group":
        return _nullable(node[2])
    if kind == "rep":
        return node[2] in "*?" or _nullable(node[1])
    return True  # assertions and lookaheads


class SafeRegex:
    """``re``-compatible match / search / findall for a regex subset, linear in the input length.

    Backtracking in ``re``'s priority order, with failed (split instruction, position) states memoized;
    with no backreferences whether a state can still succeed does not depend on how it was reached, so the
    first match found, and its groups, are exactly ``re``'s.
    """

    def __init__(self, pattern: str, dotall: bool = False, _node: tuple | None = None) -> None:
        self.pattern = pattern
        if _node is None:
            parser = _RegexParser(pattern, dotall)
            _node = parser.parse()
            self.ngroups = parser.ngroups
        else:
            self.ngroups = 0
        self.prog: list[tuple[int, Any, Any]] = []
        self._emit(_node)
        self.prog.append((_MATCH, None, None))
        first = self.prog[0]
        self.first_char: str | None = first[1] if first[0] == _LIT else None

    # -- compiler --------------------------------------------------------------------------------------

    def _emit(self, node: tuple) -> None:
        prog = self.prog
        kind = node[0]
        if kind == "lit":
            prog.append((_LIT, node[1], None))
        elif kind == "pred":
            prog.append((_PRED, node[1], None))
        elif kind == "cat":
            for sub in node[1]:
                self._emit(sub)
        elif kind == "alt":
            jumps = []
            for branch in node[1][:-1]:
                split_at = len(prog)
                prog.append((_SPLIT, None, None))
                self._emit(branch)
                jumps.append(len(prog))
                prog.append((_JMP, None, None))
                prog[split_at] = (_SPLIT, split_at + 1, len(prog))
            self._emit(node[1][-1])
            for j in jumps:
                prog[j] = (_JMP, len(prog), None)
        elif kind == "group":
            prog.append((_SAVE, 2 * node[1], None))
            self._emit(node[2])
            prog.append((_SAVE, 2 * node[1] + 1, None))
        elif kind == "assert":
            prog.append((_ASSERT, node[1], None))
        elif kind == "look":
            prog.append((_LOOK, SafeRegex("", _node=node[1]), None))
        elif kind == "rep":
            _, body, quant, greedy = node
            if quant in "*+" and _nullable(body):
                raise ValueError("repeated sub-patterns that can match empty are not supported")
            if quant == "+":
                start = len(prog)
                self._emit(body)
                after = len(prog) + 1
                prog.append((_SPLIT, start, after) if greedy else (_SPLIT, after, start))
            else:
                split_at = len(prog)
                prog.append((_SPLIT, None, None))
                self._emit(body)
                if quant == "*":
                    prog.append((_JMP, split_at, None))
                after = len(prog)
                prog[split_at] = (_SPLIT, split_at + 1, after) if greedy else (_SPLIT, after, split_at + 1)
        else:  # pragma: no cover - the parser makes no other kinds
            raise ValueError(kind)

    # -- matcher ---------------------------------------------------------------------------------------

    def _run(self, s: str, start: int, caps: list[Any], ctx: dict[str, Any]) -> int:
        """End position of the first match anchored at ``start``, or -1."""
        prog = self.prog
        n = len(s)
        failed: set[int] = ctx["failed"]
        width = n + 1
        stack: list[list[int]] = []
        undo: list[tuple[int, Any]] = []
        pc = 0
        pos = start
        while True:
            ok = True
            while True:
                op, a, _ = prog[pc]
                if op == _LIT:
                    if pos < n and s[pos] == a:
                        pc += 1
                        pos += 1
                        continue
                    ok = False
                elif op == _PRED:
                    if pos < n and a(s[pos]):
                        pc += 1
                        pos += 1
                        continue
                    ok = False
                elif op == _SPLIT:
                    if pc * width + pos in failed:
                        ok = False
                    else:
                        stack.append([pc, pos, len(undo), 0])
                        pc = a
                        continue
                elif op == _JMP:
                    pc = a
                    continue
                elif op == _SAVE:
                    undo.append((a, caps[a]))
                    caps[a] = pos
                    pc += 1
                    continue
                elif op == _ASSERT:
                    if _assert(a, s, pos):
                        pc += 1
                        continue
                    ok = False
                elif op == _LOOK:
                    if a._lookahead(s, pos, ctx):
                        pc += 1
                        continue
                    ok = False
                else:  # _MATCH
                    return pos
                break
            assert not ok
            while stack:
                frame = stack[-1]
                if frame[3] == 0:
                    frame[3] = 1
                    while len(undo) > frame[2]:
                        k, old = undo.pop()
                        caps[k] = old
                    pc = prog[frame[0]][2]
                    pos = frame[1]
                    break
                stack.pop()
                failed.add(frame[0] * width + frame[1])
            else:
                while undo:
                    k, old = undo.pop()
                    caps[k] = old
                return -1

    def _lookahead(self, s: str, pos: int, ctx: dict[str, Any]) -> bool:
        sub = ctx["subs"].setdefault(id(self), {"failed": set(), "subs": ctx["subs"], "memo": {}})
        memo = sub["memo"]
        if pos not in memo:
            memo[pos] = self._run(s, pos, [None, None], sub) >= 0
        return memo[pos]

    def _new_ctx(self) -> dict[str, Any]:
        return {"failed": set(), "subs": {}}

    def _attempt(self, s: str, start: int, ctx: dict[str, Any]) -> list[Any] | None:
        caps: list[Any] = [None] * (2 * self.ngroups + 2)
        end = self._run(s, start, caps, ctx)
        if end < 0:
            return None
        caps[0] = start
        caps[1] = end
        return caps

    def _search_from(self, s: str, pos: int, ctx: dict[str, Any]) -> list[Any] | None:
        n = len(s)
        while pos <= n:
            if self.first_char is not None:
                pos = s.find(self.first_char, pos)
                if pos < 0:
                    return None
            caps = self._attempt(s, pos, ctx)
            if caps is not None:
                return caps
            pos += 1
        return None

    def match(self, s: str) -> _Match | None:
        """Like ``re.match``: a match starting at position 0."""
        caps = self._attempt(s, 0, self._new_ctx())
        return None if caps is None else _Match(s, caps)

    def search(self, s: str) -> _Match | None:
        """Like ``re.search``: the leftmost match."""
        caps = self._search_from(s, 0, self._new_ctx())
        return None if caps is None else _Match(s, caps)

    def findall(self, s: str) -> list[Any]:
        """Like ``re.findall`` (for patterns that never match the empty string)."""
        ctx = self._new_ctx()
        out: list[Any] = []
        pos = 0
        while pos <= len(s):
            caps = self._search_from(s, pos, ctx)
            if caps is None:
                break
            m = _Match(s, caps)
            if self.ngroups == 0:
                out.append(m.group(0))
            elif self.ngroups == 1:
                out.append(m.group(1) or "")
            else:
                out.append(tuple(m.group(k) or "" for k in range(1, self.ngroups + 1)))
            pos = caps[1] if caps[1] > caps[0] else caps[1] + 1
        return out


def _assert(kind: str, s: str, pos: int) -> bool:
    n = len(s)
    if kind == "bol":
        return pos == 0
    if kind == "eol":
        return pos == n or (pos == n - 1 and s[pos] == "\n")
    # word boundary
    if n == 0:
        return False
    before = pos > 0 and _is_word(s[pos - 1])
    after = pos < n and _is_word(s[pos])
    return before != after


class _Match:
    __slots__ = ("caps", "s")

    def __init__(self, s: str, caps: list[Any]) -> None:
        self.s = s
        self.caps = caps

    def group(self, k: int = 0) -> str | None:
        start, end = self.caps[2 * k], self.caps[2 * k + 1]
        if start is None or end is None:
            return None
        return self.s[start:end]
