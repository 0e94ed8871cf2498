"""Expands the conformance "text value" generator forms into strings."""

from __future__ import annotations

import re
from typing import Any

_PH = re.compile(r"\{([^{}]*)\}")
_FORM = re.compile(r"i(?:\*(\d+))?(?:\+(\d+))?(?:%(\d+))?")


def _eval(form: str, i: int) -> int:
    m = _FORM.fullmatch(form)
    if not m:
        raise ValueError(f"bad placeholder form {form!r}")
    a, b, mod = m.groups()
    v = i * (int(a) if a else 1) + (int(b) if b else 0)
    return v % int(mod) if mod else v


def _subst(template: str, i: int, lists: dict[str, list[str]]) -> str:
    def rep(m: re.Match[str]) -> str:
        body = m.group(1)
        if body.startswith("cp:"):
            base, _, form = body[3:].partition("+")
            return chr(int(base) + _eval(form, i))
        if "[" in body:
            name, _, rest = body.partition("[")
            return lists[name][_eval(rest.rstrip("]"), i)]
        return str(_eval(body, i))

    return _PH.sub(rep, template)


def expand(value: Any) -> str:
    """Expand a text value: a string, or a `repeat` / `concat` / `seq` generator object."""
    if isinstance(value, str):
        return value
    gen = value.get("gen")
    if gen == "repeat":
        return expand(value["unit"]) * int(value["times"])
    if gen == "concat":
        return "".join(expand(p) for p in value["parts"])
    if gen == "seq":
        lists = value.get("lists") or {}
        items: list[str] = []
        for i in range(int(value["from"]), int(value["to"])):
            items.append(_subst(value["template"], i, lists))
            for ex in value.get("extras") or []:
                if i % int(ex["mod"]) == int(ex["eq"]):
                    items.append(_subst(ex["template"], i, lists))
        return str(value.get("sep", "")).join(items)
    raise ValueError(f"unknown text generator {gen!r}")
