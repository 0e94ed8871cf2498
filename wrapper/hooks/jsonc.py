"""Editing a JSON settings file by splicing its text, so the person's comments, order and layout stay.

Gemini CLI reads its `settings.json` as JSON with comments (and keeps them when it writes it); Claude
Code's is plain JSON, laid out by the person or by Claude. Writing the whole document back with
`json.dumps` drops every comment (such a file had to be refused) and re-indents every line. Breaker's
changes are few and local: its hook groups appended to an event's list or taken out of it, an event's
list or the `hooks` object added or removed. They are made here as text edits, and the result is checked
to read as exactly the document meant; when it does not, `splice` gives None and the caller decides.

No maintained Python library edits JSON with comments in place (json5 and commentjson parse only).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_DECODER = json.JSONDecoder()
_SPACE = " \t\r\n"


def blank_comments(text: str) -> str:
    """`text` with its `//` and `/* */` comments turned to spaces (newlines kept): plain JSON, same offsets."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
        else:
            i += 1
            continue
        for k in range(i, end):
            if out[k] != "\n":
                out[k] = " "
        i = end
    return "".join(out)


def loads(text: str) -> Any:
    """The document of a JSON text that may hold comments (ValueError as `json.loads` raises it)."""
    return json.loads(blank_comments(text))


@dataclass
class Node:
    """Where a value sits in the text: [start, end), an object's members (key, where it starts, value), an array's
    items.
    """

    start: int
    end: int = 0
    members: list[tuple[str, int, Node]] = field(default_factory=list)
    items: list[Node] = field(default_factory=list)

    def member(self, key: str) -> Node | None:
        return next((v for k, _, v in self.members if k == key), None)

    def spans(self) -> list[tuple[int, int]]:
        """Each member's or item's [start, end): a member starts at its key."""
        return [(at, v.end) for _, at, v in self.members] or [(v.start, v.end) for v in self.items]


def _ws(s: str, i: int) -> int:
    while i < len(s) and s[i] in _SPACE:
        i += 1
    return i


def scan(s: str, i: int = 0) -> Node:
    """The value starting at (or after whitespace from) `i` of comment-free JSON `s`; ValueError if malformed."""
    i = _ws(s, i)
    if i >= len(s):
        raise ValueError("the text ends where a value should start")
    if s[i] not in "{[":
        _, end = _DECODER.raw_decode(s, i)
        return Node(i, end)
    node, close = Node(i), "}" if s[i] == "{" else "]"
    j = _ws(s, i + 1)
    while j < len(s) and s[j] != close:
        if close == "}":
            key, k = _DECODER.raw_decode(s, j)
            k = _ws(s, k)
            if s[k : k + 1] != ":":
                raise ValueError(f"no ':' after the key at {j}")
            value = scan(s, k + 1)
            node.members.append((str(key), j, value))
        else:
            value = scan(s, j)
            node.items.append(value)
        j = _ws(s, value.end)
        if s[j : j + 1] == ",":
            j = _ws(s, j + 1)
        elif s[j : j + 1] != close:
            raise ValueError(f"no ',' or {close!r} at {j}")
    if j >= len(s):
        raise ValueError(f"no {close!r} closes the value at {i}")
    node.end = j + 1
    return node


class Text:
    """The text being edited and its comment-free twin (same offsets), re-read after every edit."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.blank = blank_comments(text)
        self.unit = _indent_unit(self.text, scan(self.blank))

    def root(self) -> Node:
        return scan(self.blank)

    def cut(self, start: int, end: int) -> None:
        self.text = self.text[:start] + self.text[end:]
        self.blank = self.blank[:start] + self.blank[end:]

    def put(self, at: int, new: str) -> None:
        self.text = self.text[:at] + new + self.text[at:]
        self.blank = self.blank[:at] + new + self.blank[at:]

    def plain(self, start: int, end: int) -> bool:
        """Whether [start, end) holds no comment."""
        return self.text[start:end] == self.blank[start:end]

    def remove(self, parent: Node, index: int) -> None:
        """Take out a member or item with the comma that joins it; a comment beside it stays."""
        spans = parent.spans()
        start, end = spans[index]
        if len(spans) == 1:
            a, b = parent.start + 1, parent.end - 1
            self.cut(*((a, b) if self.plain(a, b) else (start, end)))  # nothing else inside: the brackets close up
        elif index > 0:
            comma = self.blank.index(",", spans[index - 1][1])
            if self.plain(comma, start):
                self.cut(comma, end)
            else:  # the later cut first: the earlier offsets still hold
                self.cut(start, end)
                self.cut(comma, comma + 1)
        else:
            comma, nxt = self.blank.index(",", end), spans[1][0]
            if self.plain(end, nxt):
                self.cut(start, nxt)
            else:
                self.cut(comma, comma + 1)
                self.cut(start, end)

    def add(self, parent: Node, depth: int, new: str) -> None:
        """Put a member (`"key": value`) or item last in `parent`, on a line of its own at `depth`'s indent."""
        inner = "\n" + self.unit * (depth + 1)
        new = new.replace("\n", inner)
        spans = parent.spans()
        if spans:
            self.put(spans[-1][1], "," + inner + new)
            return
        a, b = parent.start + 1, parent.end - 1
        if self.blank[a:b].strip(_SPACE):
            raise ValueError("an empty value holds something")
        if self.text[a:b] == self.blank[a:b]:  # only whitespace inside: laid out afresh
            self.cut(a, b)
            self.put(a, inner + new + "\n" + self.unit * depth)
        else:  # a comment inside: kept after the new value
            self.put(a, inner + new)

    def dump(self, value: Any) -> str:
        return json.dumps(value, indent=len(self.unit.expandtabs(1)) or 2, ensure_ascii=False)


def _indent_unit(text: str, root: Node) -> str:
    """The file's indent step: the whitespace before the first member on its line, else two spaces."""
    spans = root.spans()
    if spans:
        line = text.rfind("\n", 0, spans[0][0])
        lead = text[line + 1 : spans[0][0]]
        if line >= 0 and lead and not lead.strip(" \t"):
            return lead
    return "  "


def splice(text: str, target: dict[str, Any], ours: Callable[[Any], bool]) -> str | None:
    """`text` edited into `target`: breaker's hook groups (`ours`) taken out, then the `hooks` object, event
    lists and groups of `target` it lacks added last. None when the edit cannot give exactly `target`.
    """
    try:
        t = Text(text)
        _take_out(t, target, ours)
        _put_in(t, target)
        done = loads(t.text)
    except (ValueError, IndexError):
        return None
    return t.text if done == target else None


def _take_out(t: Text, target: dict[str, Any], ours: Callable[[Any], bool]) -> None:
    while True:  # one edit at a time, each on the text as it is then
        root = t.root()
        hooks = root.member("hooks")
        if hooks is None:
            return
        if "hooks" not in target:
            t.remove(root, [k for k, _, _ in root.members].index("hooks"))
            continue
        cut = _next_cut(t, hooks, target["hooks"], ours)
        if cut is None:
            return
        t.remove(*cut)


def _next_cut(t: Text, hooks: Node, wanted: dict[str, Any], ours: Callable[[Any], bool]) -> tuple[Node, int] | None:
    """The next thing to take out: an event list `wanted` lacks, else one of breaker's groups."""
    for index, (ev, _, groups) in enumerate(hooks.members):
        if ev not in wanted:
            return hooks, index
        for k, group in enumerate(groups.items):
            if ours(json.loads(t.blank[group.start : group.end])):
                return groups, k
    return None


def _put_in(t: Text, target: dict[str, Any]) -> None:
    if "hooks" not in target:
        return
    if t.root().member("hooks") is None:
        t.add(t.root(), 0, '"hooks": ' + t.dump(target["hooks"]))
        return
    for ev, groups in target["hooks"].items():
        if _at(t).member(ev) is None:
            t.add(_at(t), 1, json.dumps(ev) + ": " + t.dump(groups))
            continue
        for group in groups[len(_at(t, ev).items) :]:
            t.add(_at(t, ev), 2, t.dump(group))


def _at(t: Text, event: str | None = None) -> Node:
    """The `hooks` object, or its `event` list, in the text as it is now (ValueError when absent)."""
    hooks = t.root().member("hooks")
    node = hooks.member(event) if hooks is not None and event is not None else hooks
    if node is None:
        raise ValueError(f"no {event or 'hooks'} in the text")
    return node
