r"""Agent text is data: the one place that makes untrusted text safe to show.

Everything a monitored agent, a recording, a config file or a command line can put in front of the
person passes through here before it reaches the screen, stderr or `scan` output. Two dangers:

* terminal control: an ESC (or any C0/C1 control) written raw lets tool output retitle the terminal,
  clear the screen or move the cursor under the TUI. `inert()` removes escape sequences and shows
  every other control character as a visible `\xNN` escape, so nothing is lost and nothing acts.
* order: bidi controls (U+202E and kin) make a bidi-capable terminal show characters in an order that
  is not the order that runs. `inert()` shows them as `\u202e` escapes, like other controls.
* what will run: `reveal()` is for a command or request the person is asked to approve (the modal,
  stderr decision lines, `scan`). On top of `inert()` it shows zero-width and look-alike space
  characters as escapes and folds long whitespace runs visibly (`⟨4,000 spaces⟩`), so nothing that
  runs can hide in a gap or in a character that draws nothing.
* markup: Rich/Textual parse `[...]` in plain strings given to `notify()`, `Static` and tables.
  `markup_safe()` escapes it, for the few widget APIs that only take markup strings; prefer handing
  widgets a `rich.text.Text` built from `inert()` text.

Lone surrogates (from JSON `\ud800` escapes) cannot be encoded to the terminal; they become U+FFFD.
"""

from __future__ import annotations

import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), DCS/SOS/PM/APC strings (ESC P/X/^/_ ... ST),
# two-character escapes (ESC + one byte), and the 8-bit C1 forms of CSI/OSC/DCS.
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
)
# Every remaining control character except newline and tab, DEL, C1 controls, and lone surrogates.
# Bidi controls (embeddings, overrides, isolates, marks) reorder what a terminal shows: escaped too.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(rf"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]|[\ud800-\udfff]")
# Characters that draw nothing or look like a plain space: zero-width ones, fillers, tags, and the
# non-ASCII spaces. In text to approve each is shown as an escape.
_INVISIBLE = re.compile(
    "[\u00a0\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u2000-\u200d\u202f\u205f-\u2064"
    "\u206a-\u206f\u3000\u3164\ufeff\uffa0\U000e0000-\U000e007f]"
)
FOLD_RUN = 8  # whitespace runs at least this long are folded in `reveal()`
_RUN = re.compile(rf"[ \t\n]{{{FOLD_RUN},}}")
_RUN_NAMES = {" ": "spaces", "\t": "tabs", "\n": "newlines"}


def _show(m: re.Match[str]) -> str:
    ch = m.group(0)
    if "\ud800" <= ch <= "\udfff":
        return "\ufffd"
    if ch == "\r":
        return ""
    return f"\\x{ord(ch):02x}" if ord(ch) <= 0xFF else f"\\u{ord(ch):04x}"


def inert(text: str, *, keep_newlines: bool = True) -> str:
    r"""`text` with escape sequences removed and other controls shown as `\xNN`; never raises.

    With `keep_newlines=False`, newlines and tabs become spaces too (one-line contexts: status lines,
    notifications, table cells, stderr decision lines).
    """
    if not isinstance(text, str):
        text = str(text)
    out = _SEQUENCE.sub("", text)
    out = _CONTROL.sub(_show, out)
    if not keep_newlines:
        out = out.replace("\n", " ").replace("\t", " ")
    return out


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    return f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}"


def _fold(m: re.Match[str]) -> str:
    run = m.group(0)
    name = _RUN_NAMES[run[0]] if len(set(run)) == 1 else "blanks"
    return f"⟨{len(run):,} {name}⟩"


def reveal(text: str, *, keep_newlines: bool = True) -> str:
    r"""`inert(text)` for text a person approves: nothing that runs can be hidden.

    Zero-width, filler and non-ASCII space characters become `\uXXXX` escapes; runs of
    `FOLD_RUN` or more spaces, tabs or newlines become one visible mark (`⟨4,000 spaces⟩`), so the
    tail of a command is never pushed out of view. Never raises.
    """
    out = inert(text)
    out = _INVISIBLE.sub(_escape, out)
    out = _RUN.sub(_fold, out)
    if not keep_newlines:
        out = out.replace("\n", " ").replace("\t", " ")
    return out


def markup_safe(text: str, *, keep_newlines: bool = True) -> str:
    """`inert(text)` with Rich markup escaped, for APIs that parse their string argument as markup."""
    from rich.markup import escape

    return escape(inert(text, keep_newlines=keep_newlines))
