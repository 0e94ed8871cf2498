"""The live stream: reasoning (dimmed, foldable), answers, tool calls with verdicts and results.

Feeding is cheap: `delta()`/`line()` only buffer, `flush()` (called as items arrive) writes what
arrived since the last call in one go: finished lines are appended to the log, the line still
streaming is its last rows (`StreamLog` wraps only what changed; Textual draws at most once per
frame). Every buffer is bounded, so a flood costs a fixed amount of memory: a line longer than
`LONG_LINE` is cut into pieces, and a flood of more than `FLOOD_CHARS` between two writes keeps its
newest text (the older is skipped and counted). A frame that comes late loses nothing below that.
Every piece of agent text is passed through `inert()` before it becomes a `Text`.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Region

from themes import Palette
from tui.widgets.streamlog import StreamLog
from wrapper.safetext import inert

if TYPE_CHECKING:  # only for annotations: the first frame is drawn before these are imported
    from engine import events as ev
    from engine.breaker import Verdict
    from wrapper.items import ApprovalItem, CallItem, ResultItem, StatusItem, TripItem, VerdictItem

LONG_LINE = 4000
# The most text one write takes, however long since the last: a late frame (a loaded machine, a
# collection) writes all that waited; only a flood beyond this between two writes skips its oldest text.
FLOOD_CHARS = 262144
DEFAULT_PALETTE = Palette(
    "#5fafd7", "#d7af5f", "#ff5f5f", "#7f8793", "#5fafd7", "#87d787", "#d7af5f", "#ff5f5f", "#888"
)


def short_id(agent: str) -> str:
    """One way to show a session id everywhere: its last 8 characters."""
    return "…" + inert(agent, keep_newlines=False)[-8:] if agent else "—"


def clip(text: str, limit: int) -> str:
    """`text` on one line, cut at a word boundary with an ellipsis when longer than `limit`."""
    text = " ".join(inert(text, keep_newlines=False).split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit - 1)
    return text[: cut if cut > limit // 2 else limit - 1] + "…"


def prose(text: str, limit: int) -> str:
    """A sentence of several lines (a reason written for the agent) on one line, clipped: a line's list mark
    (`- `, `* `, `• `) is dropped, as the line it marked is no longer one (`…a repeat: - net:…` read as a stray
    dash).
    """
    lines = (line.strip() for line in text.splitlines())
    return clip(" ".join(line[2:] if line[:2] in ("- ", "* ", "• ") else line for line in lines), limit)


def short_args(value: Any, limit: int = 160) -> str:
    """A call's arguments on one line: a shell command as it is, anything else as compact JSON."""
    if isinstance(value, dict) and isinstance(value.get("command"), str):
        text = value["command"]
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = str(value)
    return clip(text, limit)


def _pieces(line: str) -> list[str]:
    """A line cut into pieces of at most `LONG_LINE` characters (wrapping a huge line costs too much)."""
    if len(line) <= LONG_LINE:
        return [line]
    return [line[i : i + LONG_LINE] for i in range(0, len(line), LONG_LINE)]


def cap_text(c: float) -> str:
    """A cap as the screen shows it: `5`, `2.5`, or `∞` for none."""
    return "∞" if c == float("inf") else (str(int(c)) if float(c).is_integer() else str(c))


def verdict_text(v: Verdict, p: Palette = DEFAULT_PALETTE) -> Text:
    """`allowed` / `DENIED (hits)` / `asking` / `would deny (observing)`."""
    hits = inert(", ".join(f"{h.fp} {h.next}/{cap_text(h.cap)}" for h in v.hits), keep_newlines=False)
    if v.would:
        return Text(f"  ◌ would {v.would} (observing only): {hits}", f"italic {p.warning}")
    if v.kind == "allow":
        return Text("  ✓ allowed", p.ok)
    if v.kind == "ask":
        return Text(f"  ? asking the operator (local-only repeat): {hits}", f"bold {p.warning}")
    what = "repeat" if v.source == "repeat" else "keeps failing"
    return Text(f"  ⛔ DENIED ({what})" + (f": {hits}" if hits else ""), f"bold {p.error}")


def unreported(call: CallItem, failed: bool) -> str:
    """A relayed call whose result came without text: what the agent did say of it, and that no text came."""
    title = clip(inert(call.title, keep_newlines=False), 120)
    if call.diffs and not failed:  # an edit: its change is what it did (Claude Code sends no text for one)
        names = ", ".join(f"{os.path.basename(d.path) or d.path} +{d.added} −{d.removed}" for d in call.diffs[:3])
        return clip(inert(f"changed {names}", keep_newlines=False), 160)
    if call.kind == "read":
        what, noun = (f"read {title}" if title else "read"), "content"
    else:
        what, noun = ("failed" if failed or call.status == "failed" else "done"), "output"
    code = f" · exit {call.exit_code}" if call.exit_code is not None else ""
    return f"{what}{code} · the agent sent no {noun}"


class StreamView(Vertical):
    """A bounded log of committed lines whose last rows are the text still streaming."""

    DEFAULT_CSS = """
    StreamView { height: 1fr; }
    StreamView > StreamLog { height: 1fr; }
    """

    def __init__(self, max_lines: int = 4000, show_reasoning: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.max_lines = max_lines
        self.show_reasoning = show_reasoning
        self.palette = DEFAULT_PALETTE
        self._kind: str | None = None  # "reasoning" | "answer" | None
        self._agent = ""
        self._buf: list[str] = []
        self._buf_chars = 0
        self._block_chars = 0
        self._calls: dict[str, None] = {}  # call ids whose header is shown (bounded)
        self._queued: list[str] = []  # messages sent while the agent worked, not yet in a turn
        self._open_changed = False
        # entries are (kind, line): "" always shown, "r" a reasoning line, "m" the marker of a folded block
        self._pending: list[tuple[str, Text]] = []
        self._history: deque[tuple[str, Text]] = deque(maxlen=max_lines)  # to fold and unfold
        self.skipped = 0  # lines dropped in a flood and not yet reported in the log
        self.skipped_total = 0  # every line ever dropped in a flood
        # (arrival time, stream position after it) of text not yet written: each is timed to the
        # frame that draws the line its text ends in (the lag benchmark)
        self.arrivals: list[tuple[float, int]] = []
        self._fed = 0  # characters of streamed text so far (`_buf` holds the last `_buf_chars` of them)
        self._ends: dict[int, int] = {}  # id of a committed line not yet written -> stream position of its end
        self.lines_written = 0
        self.frames_asked = 0  # batches that asked for a frame (`frame_due`)
        self.writes = 0  # flushes that wrote to the log (once a frame at most, when frames write)
        self._log = StreamLog(max_lines, id="log")

    def compose(self) -> ComposeResult:
        yield self._log

    @property
    def lags(self) -> list[float]:
        """Seconds from each delta's arrival to the frame that drew it (the log times them)."""
        return self._log.lags

    @property
    def waiting(self) -> int:
        """Deltas that arrived but no frame has drawn yet."""
        return len(self.arrivals) + self._log.waiting

    # -- feeding (cheap: buffers only; `flush` writes) -----------------------------------------
    def delta(self, kind: str, agent: str, text: str, arrived: float | None = None) -> None:
        """Streamed reasoning or answer text."""
        if kind != self._kind or agent != self._agent:
            self._close_block()
            self._kind, self._agent = kind, agent
            label = "thinking" if kind == "reasoning" else "answer"
            self._add(Text(f"┌ {label} · {short_id(agent)}", self.palette.muted))
        if not self._block_chars:
            # a section break before a block's first words (Codex starts each part of its reasoning so) would
            # draw blank rows under the block's header
            text = text.lstrip("\r\n")
            if not text:
                return
        text = inert(text)
        self._buf.append(text)
        self._buf_chars += len(text)
        self._fed += len(text)
        self._block_chars += len(text)
        self._open_changed = True
        if self._buf_chars > LONG_LINE:
            self._commit_text(final=False, force=True)
        self.arrivals.append((arrived if arrived is not None else time.perf_counter(), self._fed))
        if len(self.arrivals) > 100_000:  # nobody flushes (no screen): keep the timing buffer bounded
            del self.arrivals[:-50_000]

    def line(self, text: Text | str, style: str = "") -> None:
        """A whole line (tool call, verdict, status); plain strings are made inert here."""
        self._close_block()
        self._add(text if isinstance(text, Text) else Text(inert(text), style))

    def _add(self, text: Text, kind: str = "") -> None:
        self._pending.append((kind, text))
        if len(self._pending) > self.max_lines:
            drop = len(self._pending) - self.max_lines
            del self._pending[:drop]
            self._skip(drop)

    def _skip(self, lines: int) -> None:
        self.skipped += lines
        self.skipped_total += lines

    def _close_block(self) -> None:
        if self._kind is None:
            return
        self._commit_text(final=True)
        if self._kind == "reasoning" and self._block_chars:
            marker = f"│ ▸ {self._block_chars:,} chars of reasoning (ctrl+t shows them)"
            self._add(Text(marker, f"italic {self.palette.muted}"), "m")
        self._kind = None
        self._block_chars = 0
        self._open_changed = True

    def _visible(self, kind: str) -> bool:
        return not kind or (kind == "r") == self.show_reasoning

    def set_reasoning(self, show: bool) -> None:
        """Show or fold every reasoning block, those already shown included."""
        self.flush()
        self.show_reasoning = show
        self._log.replace([t for k, t in self._history if self._visible(k)], self._open_line())

    def _commit_text(self, final: bool, force: bool = False) -> None:
        text = "".join(self._buf)
        if not text:
            return
        if final or force:
            done, rest = text, ""
        else:
            cut = text.rfind("\n")
            if cut < 0:
                return
            done, rest = text[:cut], text[cut + 1 :]
        self._buf = [rest] if rest else []
        self._buf_chars = len(rest)
        self._open_changed = True
        style = f"italic {self.palette.reasoning}" if self._kind == "reasoning" else ""
        lines: list[tuple[str, int]] = []  # (piece, stream position of its end, its newline included)
        pos = self._fed - len(text)
        split = done.split("\n")
        for n, ln in enumerate(split):
            end = pos
            for piece in _pieces(ln):
                end += len(piece)
                lines.append((piece, end))
            if lines and (n < len(split) - 1 or not (final or force)):  # a newline follows this line
                lines[-1] = (lines[-1][0], lines[-1][1] + 1)
            pos += len(ln) + 1
        if len(lines) > self.max_lines:
            self._skip(len(lines) - self.max_lines)
            lines = lines[-self.max_lines :]
        kind = "r" if self._kind == "reasoning" else ""
        for ln, end in lines:
            line = Text("│ " + ln, style)
            self._ends[id(line)] = end
            self._add(line, kind)

    def _open_line(self) -> Text | None:
        """The line still streaming, as the log's last rows (folded reasoning: how much of it)."""
        if self._kind is None:
            return None
        if self._kind == "reasoning" and not self.show_reasoning:
            return Text(f"│ ▸ thinking… {self._block_chars:,} chars", f"italic {self.palette.muted}")
        tail = "".join(self._buf)
        if not tail:
            return None
        return Text("│ " + tail, f"italic {self.palette.reasoning}" if self._kind == "reasoning" else "")

    def frame_due(self) -> None:
        """Something arrived: ask for a frame, which writes it (`flush`) just before it is drawn."""
        if self._pending or self._open_changed or self.arrivals or self.skipped:
            self.frames_asked += 1
            self._log.refresh(Region(0, 0, 1, 1))  # any dirty row brings a frame

    def flush(self) -> None:
        """Write what arrived since the last call: the committed lines in one go, then the open line.

        Called as items arrive. Writing costs what arrived; the screen draws at most once per frame.
        A flood writes its newest `FLOOD_CHARS`: the older text is skipped and counted.
        """
        if self._kind is not None:
            self._commit_text(final=False)
        budget = FLOOD_CHARS
        keep = len(self._pending)
        while keep > 0 and budget > 0:  # a flood writes only its newest text: the rest is counted
            keep -= 1
            budget -= len(self._pending[keep][1])
        if keep:
            self._skip(keep)
            del self._pending[:keep]
        if self.skipped:
            skipped = Text(f"… {self.skipped:,} lines skipped (the stream outran the screen)", "italic")
            self._pending.insert(0, ("", skipped))
            self.skipped = 0
        written: list[Text] = []
        if self._pending or self._open_changed:
            self.writes += 1
        if self._pending:
            self._history.extend(self._pending)
            written = [t for k, t in self._pending if self._visible(k)]
            self._log.write(written)
            self.lines_written += len(self._pending)
            self._pending.clear()
        if self._open_changed:
            self._open_changed = False
            self._log.set_open(self._open_line())
        if self.arrivals:
            self._track(written)
        self._ends.clear()

    def _track(self, written: list[Text]) -> None:
        """Hand the arrivals to the log, each with the line its text ends in (the newest row if none)."""
        ends = [(n, self._ends[id(t)]) for n, t in enumerate(written) if id(t) in self._ends]
        k, line = 0, None
        batch: list[float] = []
        for arrived, pos in self.arrivals:
            while k < len(ends) and ends[k][1] < pos:
                k += 1
            at = len(written) - ends[k][0] if k < len(ends) else None  # committed lines from the end
            if at != line and batch:
                self._log.track(batch, line)
                batch = []
            line = at
            batch.append(arrived)
        if batch:
            self._log.track(batch, line)
        self.arrivals = []

    # -- items ---------------------------------------------------------------------------------
    def event(self, e: ev.Event, arrived: float | None = None) -> None:
        """Show an engine event."""
        from engine import events as ev  # loaded once events come, after the first frame

        p = self.palette
        if isinstance(e, ev.ReasoningDelta):
            self.delta("reasoning", e.agent, e.text, arrived)
        elif isinstance(e, ev.AnswerDelta):
            self.delta("answer", e.agent, e.text, arrived)
        elif isinstance(e, ev.UserMessage) and e.source == "user":
            if e.text in self._queued:  # the queued message went in: the turn it starts says so
                self._queued.remove(e.text)
            self.line(Text("▶ you: " + inert(e.text[:2000]), "bold"))
        elif isinstance(e, ev.UserMessage) and e.source == "plugin" and "repeat-tool-reminder" in e.text[:200]:
            self.line(Text("· dsh reminder: " + clip(e.text, 200), p.muted))
        elif isinstance(e, ev.ToolCall):
            self._call_header(e.call_id, e.tool, e.args)
        elif isinstance(e, ev.TurnEnd):
            style = p.muted if e.reason in ("completed", "end_turn") else p.error  # dsh's and ACP's normal ends
            self.line(Text(f"└ turn {e.turn} ended: {clip(e.reason, 60)}", style))
            if e.reason == "aborted":
                self._dropped()
        elif isinstance(e, ev.RequestStart):
            self._close_block()

    def queued(self, text: str) -> None:
        """A message sent while the agent works: the agent takes it when the turn ends, not before."""
        self._queued.append(text)
        self.line(Text("▶ you (queued for the next turn): " + inert(text[:2000]), "bold"))

    def _dropped(self) -> None:
        """A cancelled turn: the agent drops the messages queued for the next one (dsh discards its queue)."""
        for text in self._queued:
            what = clip(inert(text, keep_newlines=False), 60)
            self.line(Text(f"· not sent: the cancel dropped the queued {what!r}; ↑ in the box brings it back", "bold"))
        self._queued.clear()

    def _call_header(self, call_id: str, tool: str, args: Any, note: str = "") -> None:
        """`⚙ tool  arguments`, once per call."""
        if call_id:
            if call_id in self._calls:
                return
            if len(self._calls) >= 256:
                self._calls.pop(next(iter(self._calls)))
            self._calls[call_id] = None
        self.line(Text(f"⚙ {clip(tool, 40)}  {short_args(args)}{note}", f"bold {self.palette.tool}"))

    def verdict(self, item: VerdictItem) -> None:
        """The verdict under its call (a call that ran without asking could not be stopped: say so).

        A call judged before any event announced it (one a Code Mode program makes: dsh reports only
        the program's own call) gets its header here.
        """
        note = "  · from a program" if ":code:" in item.call_id else ""
        self._call_header(item.call_id, item.tool, item.args, note)
        v = item.verdict
        if item.ran and v.kind == "deny":
            hits = inert(", ".join(f"{h.fp} {h.next}/{cap_text(h.cap)}" for h in v.hits), keep_newlines=False)
            self.line(Text(f"  ⚠ RAN without asking, then tripped: {hits}", f"bold {self.palette.warning}"))
            return
        self.line(verdict_text(v, self.palette))

    def result(self, item: ResultItem, relayed: CallItem | None = None) -> None:
        """The first line of a result, and what the breaker did to it.

        `relayed`: the call as the agent described it, when the agent runs its calls itself and relays their
        results (ACP). Such an agent may send no text for a call that had some (Gemini CLI sends none for a
        read, nor for a command's output unless told to): "(no output)" would then say the call produced
        nothing, so the line says what is known instead (the file read, the exit code) and that no text came.
        Only a result the monitor saw whole (dsh's, a command's) and found empty reads "(no output)".
        """
        p = self.palette
        body = item.text.strip("\n")
        if body.strip():
            first = body.strip().split("\n", 1)[0]
            n = body.count("\n") + 1  # a trailing newline ends the last line, it starts none
            more = f"  (+{n - 1} line{'s' if n > 2 else ''})" if n > 1 else ""
        else:
            first, more = ("(no output)" if relayed is None else unreported(relayed, item.is_error)), ""
        self.line(Text(f"  → {clip(first, 200)}{more}", p.error if item.is_error else p.ok))
        if item.rewrite is not None:
            what = (
                "result replaced with guidance (call keeps failing)"
                if item.rewrite.reason == "steer"
                else "post-trip hint added"
            )
            self.line(Text(f"  ↺ {what}", p.warning))

    def trip(self, item: TripItem) -> None:
        """A stream trip, in the stream where it happened."""
        t = item.trip
        self.line(
            Text(
                f"⚡ TRIP {clip(t.rule, 40)} on the {t.stream} stream · {clip(t.evidence(), 200)}"
                f" → {clip(item.sent, 80)}",
                f"bold {self.palette.error}",
            )
        )

    def approval(self, item: ApprovalItem) -> None:
        """An approval asked or answered."""
        q = item.question
        p = self.palette
        if item.answer is None:
            why = prose(q.reason, 160) if q.reason.strip() else "dsh asks"  # the whole sentence, not its first row
            self.line(Text(f"  ? approval needed for {clip(q.tool, 40)} ({why})", p.warning))
        else:  # a recorded answer is agent-controlled text in a replay: clipped and inert like the rest
            self.line(Text(f"  ✔ approval: {clip(str(item.answer), 40)} ({clip(item.by, 60)})", p.warning))

    def status(self, item: StatusItem) -> None:
        """Lifecycle lines."""
        if item.kind in ("agent-status",):
            return
        p = self.palette
        style = {"error": f"bold {p.error}", "warning": p.warning, "exited": "bold"}.get(item.kind, p.muted)
        self.line(Text(f"· {inert(item.text)}", style))

    def clear(self) -> None:
        """Forget everything shown (a replay going back starts the screen over)."""
        self._history.clear()
        self._buf.clear()
        self._buf_chars = 0
        self._pending.clear()
        self._ends.clear()
        self._kind = None
        self._block_chars = 0
        self._open_changed = False
        self._log.clear()
