r"""Agent text is data: the one place that makes untrusted text safe to show.

Everything a monitored agent, a recording, a config file or a command line can put in front of the
person passes through here before it reaches the screen, stderr or `scan` output. Two dangers:

* terminal control: an ESC (or any C0/C1 control) written raw lets tool output retitle the terminal,
  clear the screen or move the cursor under the TUI. `inert()` removes escape sequences and shows
  every other control character as a visible `\xNN` escape, so nothing is lost and nothing acts.
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
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]|[\ud800-\udfff]")


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


def markup_safe(text: str, *, keep_newlines: bool = True) -> str:
    """`inert(text)` with Rich markup escaped, for APIs that parse their string argument as markup."""
    from rich.markup import escape

    return escape(inert(text, keep_newlines=keep_newlines))
