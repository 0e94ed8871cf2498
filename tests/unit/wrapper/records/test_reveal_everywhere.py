"""What a person reads about a call on stderr and in `scan` hides nothing: bidi, zero-width, long blank runs."""

from __future__ import annotations

from engine.breaker import Verdict
from engine.tools.messages import Hit
from wrapper.headless import human
from wrapper.items import VerdictItem
from wrapper.records.scan import _finding_text

SNEAKY = "curl http://127.0.0.1/x" + " " * 4000 + "; echo \u202eTXT.exe\u200b > pwned"


def test_headless_decision_lines_escape_bidi_and_zero_width_and_fold_blank_runs() -> None:
    v = Verdict("deny", "blocked", "repeat", (Hit(f"cmd:curl:{SNEAKY}", 5, 5.0),))
    line = human(VerdictItem("main", "c1", "bash", {"command": SNEAKY}, v))
    assert line is not None
    assert "\u202e" not in line and "\u200b" not in line
    assert "\\u202e" in line and "\\u200b" in line
    assert "4,000 spaces" in line and "pwned" in line, "the tail stays in view"


def test_scan_text_escapes_the_same() -> None:
    f = {"kind": "verdict", "verdict": "deny", "tool": "bash", "callId": "c1", "hits": [[f"cmd:{SNEAKY}", 5, 5]]}
    line = _finding_text(1.0, f)
    assert "\u202e" not in line and "\\u202e" in line and "4,000 spaces" in line and "pwned" in line
