"""`--no-tui`: the whole loop without a screen, for scripts and CI.

What goes where: the agent's answer on stdout (a plain command's output, as it printed it); one
line per turn outcome and every decision on stderr (`--json`: everything as JSON lines on stdout,
the shape `scan --json` prints). The exit status comes from the last turn of an interactive
profile (0 completed, 1 error or aborted), from the child for anything else, 3 when nothing could
be started, 2 when an interactive profile gets no prompt. A closed stdout or stderr (`| head -1`)
stops the printing, never the run, and never changes the status. All text is made inert first.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable
from typing import Any, TextIO

from engine import events as ev
from wrapper import signals
from wrapper.exits import Exit
from wrapper.harness.base import allow_all, deny_all, recording_line
from wrapper.items import (
    ApprovalItem,
    EngineItem,
    Item,
    OutputItem,
    ResultItem,
    StatusItem,
    TripItem,
    VerdictItem,
)
from wrapper.records.replay import finding
from wrapper.safetext import inert, reveal
from wrapper.settings import Settings

EXIT_TURN_FAILED, EXIT_USAGE = Exit.FAILED, Exit.USAGE
EXIT_CANNOT_START, EXIT_INTERNAL = Exit.CANNOT_START, Exit.INTERNAL
NO_PROMPT = (
    "this dsh profile is interactive and waits for prompts: give --prompt TEXT (repeatable), "
    "or --prompt - to read one from stdin"
)


class Out:
    """A stream that stops writing once its reader has gone (a closed pipe), without raising."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.closed = False

    def write(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, ValueError, OSError):
            self._gone()

    def _gone(self) -> None:
        self.closed = True
        # point the descriptor at /dev/null, so the interpreter's last flush cannot fail (status 120)
        with contextlib.suppress(OSError, ValueError, AttributeError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self.stream.fileno())
            os.close(null)

    def write_raw(self, text: str) -> None:
        """Write text as the child printed it: undecodable bytes (kept as surrogates) go back out as bytes."""
        if self.closed:
            return
        buffer = getattr(self.stream, "buffer", None)
        if buffer is None:
            self.write(text.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
            return
        try:
            self.stream.flush()
            buffer.write(text.encode("utf-8", "surrogateescape"))
            buffer.flush()
        except (BrokenPipeError, ValueError, OSError):
            self._gone()


def human(item: Item) -> str | None:
    """One stderr line for a decision worth a person's attention (None for routine items); inert."""
    line = _human(item)
    # a decision names a call a person may act on: invisible and bidi characters escaped, blank runs folded
    return None if line is None else reveal(line, keep_newlines=False)


def _human(item: Item) -> str | None:
    if isinstance(item, VerdictItem) and (item.verdict.kind != "allow" or item.verdict.would):
        v = item.verdict
        hits = ", ".join(f"{h.fp} {h.next}/{int(h.cap) if h.cap.is_integer() else h.cap}" for h in v.hits)
        what = v.would.upper() + " (observed only)" if v.would else v.kind.upper()
        if item.ran and v.kind == "deny":
            what = "RAN without asking, then tripped:"  # nothing was refused: it had run (an ACP agent's read)
        return f"breaker: {what} {item.tool} {item.call_id} [{v.source}] {hits}".rstrip()
    if isinstance(item, TripItem):
        t = item.trip
        return f"breaker: TRIP {t.stream} {t.rule} ({t.evidence()}) -> {item.sent}"
    if isinstance(item, ResultItem) and item.rewrite is not None:
        rw = item.rewrite
        if rw.reason == "steer":
            return (
                f"breaker: STEER {item.tool} {item.call_id}: failed {rw.failures} times, result replaced with guidance"
            )
        return f"breaker: HINT prepended to the result of {item.tool} {item.call_id}"
    if isinstance(item, ApprovalItem) and item.answer is not None:
        return f"breaker: APPROVAL {item.question.tool} {item.question.call_id}: {item.answer} ({item.who})"
    if isinstance(item, StatusItem) and item.kind in ("warning", "error", "exited", "ready", "bridge"):
        return f"breaker: {item.kind}: {item.text}"
    return None


def as_json(item: Item) -> dict[str, Any] | None:
    """One JSON object per decision, turn outcome or status change."""
    f = finding(item)
    if f is not None:
        return f
    if isinstance(item, ResultItem) and item.rewrite is not None:
        return {"kind": item.rewrite.reason, "agent": item.agent, "callId": item.call_id, "tool": item.tool}
    if isinstance(item, EngineItem) and isinstance(item.event, ev.TurnEnd):
        e = item.event
        return {"kind": "turn", "agent": e.agent, "turn": e.turn, "outcome": e.reason}
    if isinstance(item, StatusItem) and item.kind not in ("agent-status",):
        return {"kind": "status", "status": item.kind, "text": item.text, **item.data}
    return None


class Printer:
    """Routes items to stdout and stderr as the module docstring says."""

    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        as_json_lines: bool,
        runner: bool,
        main_agent: Any,
        acp: bool = False,
        quiet: bool = False,
    ) -> None:
        self.out, self.err = Out(out), Out(err)
        self.acp = acp  # an ACP agent's output is its stderr (its stdout is the protocol)
        self.json = as_json_lines
        self.quiet = quiet  # the child's terminal output goes nowhere (it never goes to stdout)
        self.runner = runner
        self.main_agent = main_agent  # a callable: the main session id once known
        self.answer: list[str] = []
        self.outcomes: list[str] = []
        self.loops = 0

    def show(self, item: Item) -> None:
        if isinstance(item, TripItem) or (isinstance(item, VerdictItem) and item.verdict.kind != "allow"):
            self.loops += 1
        if isinstance(item, OutputItem):
            self._output(item)
            return
        if isinstance(item, EngineItem):
            self._engine(item)
        if self.json:
            obj = as_json(item)
            if obj is not None:
                # ASCII-escaped JSON: valid, and no control character can reach the terminal
                self.out.write(json.dumps(obj, default=str) + "\n")
            return
        line = human(item)
        if line:
            self.err.write(line + "\n")

    def _output(self, item: OutputItem) -> None:
        """A plain command's stdout is the answer, byte for byte; its stderr stays stderr; a terminal's output
        (dsh's screen under its pty, an ACP agent's stderr) is talk, never the answer: stderr, LF only, inert.
        """
        if self.json:
            self.out.write(json.dumps({"kind": "output", "stream": item.stream, "text": item.text}) + "\n")
            return
        if item.stream == "stdout":
            self.out.write_raw(item.text)
        elif item.stream == "stderr":
            self.err.write_raw(item.text)
        elif not self.quiet:
            self.err.write(inert(item.text.replace("\r\n", "\n").replace("\r", "\n")))

    def _engine(self, item: EngineItem) -> None:
        e = item.event
        main = self.main_agent()
        if isinstance(e, ev.AnswerDelta) and e.agent in (main, ""):
            self.answer.append(e.text)
            if not self.json:
                self.out.write(inert(e.text))
        elif isinstance(e, ev.UserMessage) and e.source == "plugin" and e.agent in (main, "") and not self.json:
            # the follow-up after a cancelled part of a turn: what the agent said before it ends its line,
            # so the answer to the follow-up starts on its own (`--json` keeps the turn's text as it came)
            if self.answer and not "".join(self.answer).endswith("\n"):
                self.out.write("\n")
                self.answer.append("\n")
        elif isinstance(e, ev.TurnEnd) and e.agent in (main, ""):
            self.outcomes.append(e.reason)
            if self.json:
                self.out.write(
                    json.dumps({"kind": "answer", "turn": e.turn, "text": inert("".join(self.answer))}) + "\n"
                )
            else:
                if self.answer and not "".join(self.answer).endswith("\n"):
                    self.out.write("\n")
                self.err.write(inert(f"breaker: turn {e.turn}: {e.reason}", keep_newlines=False) + "\n")
            self.answer.clear()


def end_line(session: Any, text: str) -> dict[str, Any]:
    """`--json`'s last line: the recording's path and final digest (None when nothing was kept) and the
    end-of-run line the screen and plain `--no-tui` print.
    """
    rec = session.recorder
    kept = rec is not None and rec.lines > 0 and not rec.tampered
    return {
        "kind": "end",
        "recording": str(rec.path) if kept else None,
        "digest": rec.digest if kept else None,
        "text": inert(text, keep_newlines=False),
    }


def read_prompts(prompts: list[str], stdin: TextIO) -> list[str]:
    """`-` stands for the whole of stdin, as one prompt."""
    return [stdin.read().strip() if p == "-" else p for p in prompts]


async def run(
    argv: list[str],
    settings: Settings,
    prompts: list[str],
    as_json_lines: bool = False,
    err: TextIO = sys.stderr,
    out: TextIO = sys.stdout,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    acp: bool = False,
    quiet: bool = False,
    resume: str | None = None,
) -> int:
    """Run the command under the monitor; return the exit status to use (`resume`: `--resume ID`)."""
    # a policy, never a person: its answers are recorded and printed as "(policy)"
    policy = allow_all if settings.wrapper.headless_approvals == "allow" else deny_all

    from wrapper.harness.registry import open_session

    try:
        session = open_session(argv, settings, policy, env=env, cwd=cwd, acp=acp, pipes=True, resume=resume)
    except FileNotFoundError as e:
        err.write(inert(f"breaker-tui: {e}") + "\n")
        return EXIT_CANNOT_START
    # an ACP agent's own stdout is the protocol: its stderr goes to stderr, its answer to stdout
    is_acp = session.capabilities.name == "acp"
    printer = Printer(out, err, as_json_lines, session.info.runner, lambda: session.info.session_id, is_acp, quiet)
    if session.info.runner and not prompts:
        printer.err.write(f"breaker-tui: {NO_PROMPT}\n")
        _discard_recording(session)
        return EXIT_USAGE
    # SIGINT, SIGTERM and SIGHUP stop the child's group and clean up alike (wrapper.signals); then
    # the run stops waiting for its turns and exits 128 + the signal's number
    main = asyncio.current_task()
    stopped: list[int] = []

    def after(sig: signal.Signals) -> None:
        stopped.append(signals.exit_code(sig))
        if main is not None:
            main.cancel()

    uninstall = signals.install(session, after=after)
    if (why := await _start(session, printer, argv[0])) is not None:
        return why
    info = await _drive(session, printer, prompts, stopped, uninstall)
    _end_lines(session, printer, as_json_lines)
    return stopped[0] if stopped else _exit_status(session, printer, info)


def _discard_recording(session: Any) -> None:
    """A run that never started keeps no recording."""
    if session.recorder is not None:
        session.recorder.close()
        with contextlib.suppress(OSError):
            session.recorder.path.unlink()


async def _start(session: Any, printer: Printer, exe: str) -> int | None:
    """Start the session; the exit status when it cannot start (nothing left behind), else None."""
    try:
        await session.start()
    except FileNotFoundError as e:
        printer.err.write(inert(f"breaker-tui: {e}") + "\n")
    except OSError as e:
        printer.err.write(inert(f"breaker-tui: could not start {exe}: {e}") + "\n")
    else:
        return None
    await session.close()  # the run directory and the recording's end: nothing left behind
    return EXIT_CANNOT_START


async def _drive(
    session: Any, printer: Printer, prompts: list[str], stopped: list[int], uninstall: Callable[[], None]
) -> Any:
    """Send the prompts turn by turn (to a runner), wait for the child's end and close the session.

    Returns how the child ended, or None when a signal stopped the run.
    """

    async def pump() -> None:
        async for item in session:
            printer.show(item)

    pump_task = asyncio.create_task(pump())
    try:
        if session.info.runner:
            for text in prompts:
                before = session.turns_done
                if not await session.prompt(text):
                    break
                await session.wait_turn_end(before)
            await session.quit(0)
        return await session.wait_exit()
    except asyncio.CancelledError:
        if not stopped:
            raise
        return None
    finally:
        await session.close()
        await asyncio.wait_for(pump_task, 10)
        uninstall()


def _end_lines(session: Any, printer: Printer, as_json_lines: bool) -> None:
    """Where the record is and its digest: `--json`'s last line (what a script keeps), else a line on stderr."""
    line = recording_line(session)
    if as_json_lines:
        printer.out.write(json.dumps(end_line(session, line)) + "\n")
    elif line:
        printer.err.write(inert(f"breaker-tui: {line}", keep_newlines=False) + "\n")


def _exit_status(session: Any, printer: Printer, info: Any) -> int:
    """The exit status of a run no signal stopped: the child's, or how its turns ended for a runner."""
    if session.info.run_unmonitored:
        return EXIT_CANNOT_START  # the monitored session could not be held: NOT MONITORED, the child was stopped
    if info is None:
        return EXIT_INTERNAL
    if session.info.runner:
        if not printer.outcomes:
            return EXIT_TURN_FAILED  # no turn ended: the model or dsh failed before answering
        # dsh ends a good turn "completed", an ACP agent "end_turn"
        return 0 if printer.outcomes[-1] in ("completed", "end_turn") else EXIT_TURN_FAILED
    return int(info.code)
