"""The live stream: reasoning (dimmed, foldable), answers, tool calls with verdicts and results."""

from __future__ import annotations

import json
import time
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import RichLog, Static

from engine import events as ev
from engine.breaker import Verdict
from wrapper.items import ApprovalItem, ResultItem, StatusItem, TripItem, VerdictItem


def _short(value: Any, limit: int = 160) -> str:
    if isinstance(value, dict) and isinstance(value.get("command"), str):
        text = value["command"]
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def verdict_text(v: Verdict) -> Text:
    """`allowed` / `DENIED (hits)` / `asking` / `would deny (observing)`."""
    if v.would:
        return Text(
            f"  ◌ would {v.would} (observing only): " + ", ".join(f"{h.fp} {h.next}/{_cap(h.cap)}" for h in v.hits),
            "italic $warning",
        )
    if v.kind == "allow":
        return Text("  ✓ allowed", "green")
    hits = ", ".join(f"{h.fp} {h.next}/{_cap(h.cap)}" for h in v.hits)
    if v.kind == "ask":
        return Text(f"  ? asking the operator (local-only repeat): {hits}", "bold yellow")
    what = "repeat" if v.source == "repeat" else "keeps failing"
    return Text(f"  ⛔ DENIED ({what})" + (f": {hits}" if hits else ""), "bold red")


def _cap(c: float) -> str:
    return "∞" if c == float("inf") else (str(int(c)) if float(c).is_integer() else str(c))


class StreamView(Vertical):
    """A bounded log of committed lines plus a live tail for the text still streaming."""

    DEFAULT_CSS = """
    StreamView { height: 1fr; }
    StreamView > RichLog { height: 1fr; background: $surface; }
    StreamView > #tail { height: auto; max-height: 6; padding: 0 1; background: $surface; }
    """

    def __init__(self, max_lines: int = 4000, show_reasoning: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.max_lines = max_lines
        self.show_reasoning = show_reasoning
        self._kind: str | None = None  # "reasoning" | "answer" | None
        self._agent = ""
        self._buf: list[str] = []
        self._block_chars = 0
        self._pending: list[Text] = []
        self.arrivals: list[float] = []  # arrival times of text not yet displayed (for the lag benchmark)
        self.lags: list[float] = []
        self.lines_written = 0

    def compose(self) -> ComposeResult:
        self._log = RichLog(max_lines=self.max_lines, wrap=True, markup=False, min_width=20, id="log")
        self._tail = Static("", id="tail")
        yield self._log
        yield self._tail

    # -- feeding (cheap: buffers only; `flush` paints) ----------------------------------------
    def delta(self, kind: str, agent: str, text: str, arrived: float | None = None) -> None:
        """Streamed reasoning or answer text."""
        if kind != self._kind or agent != self._agent:
            self._close_block()
            self._kind, self._agent = kind, agent
            label = "thinking" if kind == "reasoning" else "answer"
            self._pending.append(Text(f"┌ {label}" + (f" · {agent[:16]}" if agent else ""), "dim"))
        self._buf.append(text)
        self._block_chars += len(text)
        self.arrivals.append(arrived if arrived is not None else time.perf_counter())

    def line(self, text: Text | str, style: str = "") -> None:
        """A whole line (tool call, verdict, status)."""
        self._close_block()
        self._pending.append(text if isinstance(text, Text) else Text(text, style))

    def _close_block(self) -> None:
        if self._kind is None:
            return
        self._commit_text(final=True)
        if self._kind == "reasoning" and not self.show_reasoning:
            self._pending.append(
                Text(f"│ ▸ {self._block_chars:,} chars of reasoning (ctrl+t shows them)", "dim italic")
            )
        self._kind = None
        self._block_chars = 0

    def _commit_text(self, final: bool) -> None:
        text = "".join(self._buf)
        if not text:
            return
        if final:
            done, rest = text, ""
        else:
            cut = text.rfind("\n")
            if cut < 0:
                return
            done, rest = text[:cut], text[cut + 1 :]
        self._buf = [rest] if rest else []
        if self._kind == "reasoning" and not self.show_reasoning:
            return
        style = "italic #8a919c" if self._kind == "reasoning" else ""
        for ln in done.split("\n"):
            self._pending.append(Text("│ " + ln, style))

    def flush(self) -> None:
        """Paint what arrived since the last frame (called at the refresh rate)."""
        if self._kind is not None:
            self._commit_text(final=False)
        if self._pending:
            log = self._log
            for t in self._pending:
                log.write(t)
            self.lines_written += len(self._pending)
            self._pending.clear()
        tail = "".join(self._buf)
        if self._kind == "reasoning" and not self.show_reasoning:
            tail = f"thinking… {self._block_chars:,} chars"
        self._tail.update(Text(tail[-600:], "italic #8a919c" if self._kind == "reasoning" else ""))
        if self.arrivals:
            now = time.perf_counter()
            self.lags.extend(now - a for a in self.arrivals)
            del self.lags[:-20000]
            self.arrivals.clear()

    # -- items ---------------------------------------------------------------------------------
    def event(self, e: ev.Event, arrived: float | None = None) -> None:
        """Show an engine event."""
        if isinstance(e, ev.ReasoningDelta):
            self.delta("reasoning", e.agent, e.text, arrived)
        elif isinstance(e, ev.AnswerDelta):
            self.delta("answer", e.agent, e.text, arrived)
        elif isinstance(e, ev.UserMessage) and e.source == "user":
            self.line(Text("▶ you: " + e.text[:2000], "bold"))
        elif isinstance(e, ev.UserMessage) and e.source == "plugin" and "repeat-tool-reminder" in e.text[:200]:
            self.line(Text("· dsh reminder: " + e.text[:200], "dim"))
        elif isinstance(e, ev.ToolCall):
            self.line(Text(f"⚙ {e.tool}  {_short(e.args)}", "bold cyan"))
        elif isinstance(e, ev.TurnEnd):
            self.line(Text(f"└ turn {e.turn} ended: {e.reason}", "dim"))
        elif isinstance(e, ev.RequestStart):
            self._close_block()

    def verdict(self, item: VerdictItem) -> None:
        """The verdict under its call."""
        self.line(verdict_text(item.verdict))

    def result(self, item: ResultItem) -> None:
        """The first line of a result, and what the breaker did to it."""
        first = item.text.strip().split("\n", 1)[0] if item.text.strip() else "(no output)"
        n = item.text.count("\n") + 1 if item.text else 0
        style = "red" if item.is_error else "green"
        self.line(Text(f"  → {first[:200]}" + (f"  (+{n - 1} lines)" if n > 1 else ""), style))
        if item.rewrite is not None:
            what = (
                "result replaced with guidance (call keeps failing)"
                if item.rewrite.reason == "steer"
                else "post-trip hint added"
            )
            self.line(Text(f"  ↺ {what}", "yellow"))

    def trip(self, item: TripItem) -> None:
        """A stream trip, in the stream where it happened."""
        t = item.trip
        self.line(Text(f"⚡ TRIP {t.rule} on the {t.stream} stream · {t.evidence()} → {item.sent}", "bold red"))

    def approval(self, item: ApprovalItem) -> None:
        """An approval asked or answered."""
        q = item.question
        if item.answer is None:
            self.line(
                Text(
                    f"  ? approval needed for {q.tool} ({q.reason.splitlines()[0][:120] if q.reason else 'dsh asks'})",
                    "yellow",
                )
            )
        else:
            self.line(Text(f"  ✔ approval: {item.answer} ({item.by})", "yellow"))

    def status(self, item: StatusItem) -> None:
        """Lifecycle lines."""
        if item.kind in ("agent-status",):
            return
        style = {"error": "bold red", "warning": "yellow", "exited": "bold"}.get(item.kind, "dim")
        self.line(Text(f"· {item.text}", style))

    def clear(self) -> None:
        """Forget everything shown."""
        self._log.clear()
        self._buf.clear()
        self._pending.clear()
        self._kind = None
