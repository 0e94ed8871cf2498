"""What the approval modal shows of a call: all of it, in a form where nothing that runs can hide.

A separate module because showing a command is the security part of the modal, and it is tested
on its own: every string is passed through `reveal()` (long whitespace runs folded visibly, control,
bidi and zero-width characters as escapes), nothing is cut at a fixed length except a huge argument,
whose middle is replaced by a mark that says how much is missing (its head and tail always show),
and the parts that differ from the earlier repeat are highlighted when the question carries one.
"""

from __future__ import annotations

import json
from difflib import SequenceMatcher
from typing import Any

from rich.text import Text

from wrapper.safetext import reveal

MAX_SHOWN = 20_000  # characters shown of one call; longer, the middle is replaced by a mark
DIFF_STYLE = "bold reverse"
MAX_DIFF = 8_000  # longer calls are not compared (a character diff costs their product)


def call_text(args: Any) -> str:
    """The arguments as the person reads them: `key: value` lines, string values revealed as they are."""
    if args is None:
        return "(arguments not known)"
    if isinstance(args, dict):
        lines = []
        for key, value in args.items():
            shown = value if isinstance(value, str) else _dumps(value)
            lines.append(f"{reveal(str(key), keep_newlines=False)}: {reveal(shown)}")
        return "\n".join(lines) if lines else "(no arguments)"
    return reveal(args if isinstance(args, str) else _dumps(args))


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _bounded(text: str) -> str:
    if len(text) <= MAX_SHOWN:
        return text
    half = MAX_SHOWN // 2
    missing = len(text) - 2 * half
    return f"{text[:half]}\n⟨{missing:,} characters not shown: deny unless you can check them⟩\n{text[-half:]}"


def shown_whole(args: Any) -> bool:
    """Whether `call_view` shows every character of the call (a longer one has its middle replaced)."""
    return len(call_text(args)) <= MAX_SHOWN


def call_view(args: Any, earlier: tuple[Any, ...] = ()) -> tuple[Text, str]:
    """The call as a `Text` (differences from the newest earlier repeat highlighted) and a one-line note."""
    now = _bounded(call_text(args))
    out = Text(now)
    if not earlier:
        return out, ""
    before = _bounded(call_text(earlier[-1]))
    if before == now:
        return out, "identical to the previous repeat"
    if len(before) > MAX_DIFF or len(now) > MAX_DIFF:
        return out, "differs from the previous repeat (too long to highlight)"
    changed = 0
    for tag, _, _, j1, j2 in SequenceMatcher(None, before, now, autojunk=False).get_opcodes():
        if tag in ("replace", "insert") and j2 > j1:
            out.stylize(DIFF_STYLE, j1, j2)
            changed += 1
    what = f"{changed} part(s) highlighted" if changed else "only deletions"
    return out, f"differs from the previous repeat: {what}"
