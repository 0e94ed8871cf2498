"""`AcpSession`: any ACP agent under the monitor, with the same interface as dsh's `Session`.

It owns the agent process (its own process group), speaks ACP to it, feeds every frame to an
`AcpMonitor` and carries out the reactions: answers permission requests, asks the person through the
approver, cancels the turn and sends the one follow-up prompt. Every frame in both directions is
recorded, so `replay` and `scan` re-derive the same decisions.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import tempfile
from dataclasses import replace
from typing import Any

from wrapper.harness.acp.asking import OpenAsks, key_of
from wrapper.harness.acp.attach import prompt_blocks
from wrapper.harness.acp.handshake import ACP, mode_for, open_acp_session
from wrapper.harness.acp.history import HistoryLog, is_state
from wrapper.harness.acp.install import check_pinned, pinned_copy
from wrapper.harness.acp.monitor import AcpMonitor, Reaction
from wrapper.harness.acp.presets import Preset, ask_env, own_settings
from wrapper.harness.acp.proposed import ProposedEdits
from wrapper.harness.acp.rpc import AgentGone, AgentProcess, RpcError
from wrapper.harness.acp.shown import SILENT_NOTICE
from wrapper.harness.acp.stream import ItemStream
from wrapper.harness.acp.view import set_request
from wrapper.harness.base import Approver, answered_by
from wrapper.items import ApprovalItem, StatusItem
from wrapper.monitor import NOT_MONITORED, Info, not_monitored_text
from wrapper.process.child import ExitInfo
from wrapper.process.childenv import scrub
from wrapper.records.recorder import Recorder, session_recording
from wrapper.safetext import inert
from wrapper.settings import Settings
from wrapper.weakening import record_note

# The requests of a start, each bounded by `startup_timeout_s`: initialize, session/new (or load), the mode,
# and the choices reapplied after a restart; a prompt sent meanwhile waits for no longer than all of them.
START_REQUESTS = 5


class AcpSession(ItemStream):
    """The object the UI and the headless mode drive for an ACP agent. Iterate it for `Item`s."""

    capabilities = ACP

    def __init__(
        self,
        argv: list[str],
        settings: Settings,
        approver: Approver,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        recorder: Recorder | None = None,
        preset: Preset | None = None,
        display_argv: list[str] | None = None,
        origin: str = "",
        resume: str | None = None,
    ) -> None:
        super().__init__()
        if not argv:
            raise ValueError("no command given: use `breaker-tui --acp -- COMMAND ARGS` or `breaker-tui -- opencode`")
        self.argv = list(argv)
        self.display_argv = display_argv or list(argv)
        self.settings = settings
        self.approver = approver
        self.cwd = cwd or os.getcwd()
        self.base_env = dict(os.environ if env is None else env)
        self.preset = preset
        self.origin = origin  # which copy of a known agent runs, and why (`resolve.py`)
        self.tmpdir: str | None = None  # the agent's private TMPDIR, removed at close
        name = preset.name if preset else os.path.basename(argv[0])
        self.acp = AcpMonitor(settings, Info(runner=True), name)
        self.acp.quotes_prompt = bool(preset and preset.drops_cancelled_prompt)
        self.monitor = self.acp.monitor
        self.breaker = self.monitor.breaker
        self.info = self.monitor.info
        self.info.provider = name
        self.recorder = recorder
        if recorder is None and settings.wrapper.record:
            meta = {
                "argv": self.display_argv,
                "cwd": self.cwd,
                "harness": "acp",
                "agent": name,
                "config": settings.engine.model_dump(mode="json"),
                "acp": settings.acp.model_dump(mode="json"),
                **record_note(settings),  # a loosened config is named in the recording too
            }
            self.recorder = session_recording(settings.wrapper, meta, self._recording_failed, name)
        self.proc: AgentProcess | None = None
        self.agent_caps: dict[str, Any] = {}
        self.generation = 0
        self._prompt_task: asyncio.Task[Any] | None = None
        self._followup: str | None = None
        self.asks = OpenAsks(
            self.acp,
            approver,
            self._emit,
            self._record,
            self._react,
            lambda: self.settings.wrapper.approval_timeout_s,
            answered_by(approver),
        )
        self._closing = False
        self._history = HistoryLog()  # what the agent replays after `session/load`: shown, never judged
        self.resume_id = resume  # `--resume ID`: the first launch loads this session
        self.chosen: dict[str, str] = {}  # the person's mode, re-applied after a restart or a resume
        self.proposed = ProposedEdits()  # edits asked about, which opencode proposes again as a write

    def _recording_failed(self, text: str) -> None:
        """A recording write failed: said at once, as for dsh (the file stays without its end marker)."""
        self._emit(StatusItem("error", f"{text}; the recording is incomplete", {"recording": "incomplete"}))

    # -- lifecycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        """Launch the agent, initialise ACP and open a session."""
        if self.recorder and self.recorder.error:
            self._emit(StatusItem("warning", self.recorder.error))
        await self._launch(resume=self.resume_id)

    async def _launch(self, resume: str | None) -> None:
        self.generation += 1
        gen = self.generation
        self.info.new_child()
        self._ready.clear()
        self._exited.clear()
        env = self._agent_env()
        if self.preset is not None and self.settings.acp.make_ask:
            # read before breaker-tui makes the agent ask: these are the answers it gives for the person
            self.acp.own = own_settings(self.preset, env, self.cwd, self.display_argv)
            env = ask_env(self.preset, env)
        if self.preset is not None and pinned_copy(self.preset, self.argv):
            changed = await asyncio.to_thread(check_pinned, self.preset)
            if changed:  # a changed install never runs: say so, then refuse the start
                self._record("note", {"what": "install-changed"})
                self._not_monitored(changed, ran=False)
                raise OSError(f"{NOT_MONITORED}: {changed}")
        self.proc = AgentProcess(
            self.argv,
            env,
            self.cwd,
            self._on_request,
            self._on_notify,
            self._on_frame,
            self._on_stderr,
            self.settings.wrapper.max_line_bytes,
        )
        self.proc.on_closed = lambda: self._channel_closed(gen)
        self._record("note", {"what": "launch", "argv": self.display_argv, "generation": gen})
        try:
            await self.proc.start()
        except OSError as e:
            self.info.child = "exited"
            self._emit(StatusItem("error", f"could not start {self.argv[0]}: {e}"))
            self._exited.set()
            raise
        self.info.child = "running"
        self.info.bridge = "waiting"
        # the command as the person gave it, and which copy runs it (the interpreter and script paths a known
        # agent resolves to fill several lines: `breaker-tui agents` prints them, `--json` carries them)
        shown = " ".join(self.display_argv) + (f" ({self.origin})" if self.origin else "")
        data = {"pid": self.proc.pid, "argv": list(self.argv)}
        self._emit(StatusItem("started", f"started {inert(shown, keep_newlines=False)}", data))
        self._spawn(self._watch_exit(self.proc, gen))
        self._spawn(self._handshake(resume, gen))

    async def _handshake(self, resume: str | None, gen: int) -> None:
        assert self.proc is not None
        proc = self.proc
        mode = mode_for(self.preset, self.settings.acp.make_ask)
        try:
            opened = await open_acp_session(
                proc, self.cwd, self.settings.acp.startup_timeout_s, resume, mode, self._set_loading
            )
        except (RpcError, TimeoutError) as e:
            if gen != self.generation or self.info.unmonitored:
                return  # a later launch's, or already said (the channel closed first)
            if isinstance(e, AgentGone) and proc.stopping:
                self._stopped_starting()  # a quit, kill or restart while it started: not the agent's doing
                return
            bound = self.settings.acp.startup_timeout_s
            what = (
                f"did not complete `initialize` and `session/new` within {bound:g} s (`startup_timeout_s` in [acp])"
                if isinstance(e, TimeoutError)
                else f"refused the ACP handshake ({inert(str(e), keep_newlines=False)[:200]})"
            )
            self._not_monitored(f"{self.acp.agent_name} {what}", ran=False)  # no session yet: nothing ran
            return
        if gen != self.generation:
            return
        self.agent_caps = opened.agent_caps
        self.info.provider = opened.provider or self.info.provider
        if opened.could_not_load:
            self._emit(
                StatusItem(
                    "warning",
                    f"{self.acp.agent_name} cannot load a session (it does not advertise loadSession): session"
                    f" {resume} was not resumed, a new one was started (the old turns are not in its context)",
                )
            )
        if opened.load_error:
            self._emit(
                StatusItem(
                    "warning",
                    f"{self.acp.agent_name} could not load session {resume} ({opened.load_error}): started a new"
                    " session (the old turns are not in its context)",
                )
            )
        if opened.resumed:
            await self._history_settles()
            self._show_history()
        self.info.bridge = "connected"
        self._emit_all(self.acp.session_started(opened.session_id, opened.model, opened.resumed))
        if self.recorder is not None:
            self.recorder.name_for(opened.session_id)  # as dsh's: the file says which session it holds
        self._emit_all(self.acp.shown.opened(opened.result, mode_for(self.preset, self.settings.acp.make_ask)))
        await self._reapply_chosen(gen)
        self._ready.set()

    async def _reapply_chosen(self, gen: int) -> None:
        """After a restart or a resume, the mode the person chose is chosen again (the preset's was sent first)."""
        for choice_id, value in list(self.chosen.items()):
            if gen != self.generation or self.acp.shown.find(choice_id) is None:
                return
            choice = self.acp.shown.find(choice_id)
            if choice is not None and choice.current != value:
                await self.set_choice(choice_id, value, again=True)

    def _agent_env(self) -> dict[str, str]:
        """The person's environment as it is (their PATH first: no Node put in front), plus a private TMPDIR.

        The TMPDIR is the agent's alone (0700) and removed at close, so what it and its commands leave
        in a temp folder (Claude's task folders) goes with the session.
        """
        scrubbed = scrub(self.base_env)  # no loader or multiplexer variable reaches the agent or its tools
        env = scrubbed.env
        if scrubbed.removed and self.generation == 1:
            self._record("note", {"what": "env-removed", "names": [n for n, _ in scrubbed.removed]})
            self._emit(StatusItem("warning", scrubbed.describe()))
        if self.tmpdir is None or not os.path.isdir(self.tmpdir):
            self.tmpdir = tempfile.mkdtemp(prefix="breaker-acp-")
        for k in ("TMPDIR", "TMP", "TEMP"):
            env[k] = self.tmpdir
        return env

    def _remove_tmpdir(self) -> None:
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None

    def _channel_closed(self, gen: int) -> None:
        """The agent closed its stdout but lives on: nothing it does is seen any more, so it is stopped."""
        if gen != self.generation:
            return
        self._record("note", {"what": "channel-closed"})
        self._not_monitored(
            f"{self.acp.agent_name} closed its output (the ACP channel) but kept running: its calls could no "
            "longer be checked",
            ran=self.info.bridge == "connected",  # once a session is open, its turns may have run calls unseen
        )

    def _stopped_starting(self) -> None:
        """The agent was ended as asked (quit, kill, restart, a signal) before its session opened: said as that."""
        self._record("note", {"what": "stopped-starting"})
        self._emit(StatusItem("notice", f"{self.acp.agent_name} was stopped before its ACP session opened, as asked"))

    def _not_monitored(self, why: str, ran: bool) -> None:
        """The ACP channel never opened or went away while the agent lives: stop it and say so everywhere.

        `ran`: whether calls may have run unvetted before the stop (then the run's end says NOT MONITORED
        even after a restart that was monitored).
        """
        if self.info.unmonitored:
            return
        self.info.lost(why, ran)
        self.info.bridge = "lost"
        self._record("note", {"what": "not-monitored", "why": why, "text": f"{NOT_MONITORED}: {why}"})
        self._emit(StatusItem("error", not_monitored_text(why), {"not_monitored": why}))
        self._spawn(self.kill())

    def _set_loading(self, on: bool) -> None:
        """History replay: from `session/load` until our next prompt, updates are history, never judged.

        Gemini answers `session/load` first and replays the old turns after it, so the end of the
        load request is not the end of the history; the next prompt (ours) is.
        """
        if on:
            self._loading = True
            self._history = HistoryLog()
        else:  # the load failed: no history comes
            self._loading = False

    async def _history_settles(self, quiet: float = 0.3, limit: float = 5.0) -> None:
        """Before taking prompts after a load, let the history replay finish (no update for `quiet` s)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit
        seen = -1
        while seen != self._history.updates and loop.time() < deadline:
            seen = self._history.updates
            await asyncio.sleep(quiet)

    def _show_history(self) -> None:
        """The replayed history so far, as `history` lines (the stream shows them; the engine never sees them)."""
        for line in self._history.take():
            self._emit(StatusItem("history", f"↺ {line}", {"history": True}))

    def _end_history(self) -> None:
        if self._loading:
            self._loading = False
            self._show_history()
            h = self._history
            if h.updates:
                more = f"; {h.dropped} more lines not shown" if h.dropped else ""
                self._emit(
                    StatusItem(
                        "notice",
                        f"{self.acp.agent_name} replayed {h.updates} updates of the resumed session's"
                        f" history (shown and recorded as history, not judged again{more})",
                    )
                )

    async def _watch_exit(self, proc: AgentProcess, gen: int) -> None:
        await proc.exited.wait()
        if gen != self.generation:
            return
        code = proc.returncode if proc.returncode is not None else -1
        sig = -code if code < 0 else None
        if self._closing:  # we ended it: the status is the last turn's
            info = ExitInfo(self.acp.exit_status(), None, None)
        else:
            info = ExitInfo(128 + sig if sig else code, sig, proc.sent_signal)
        self.exit = info
        self.info.child = "exited"
        self.info.exit = info
        self.info.busy = False
        self._record("note", {"what": "exit", "code": info.code, "signal": info.signal, "sent": info.sent})
        await self.asks.close_all(f"{self.acp.agent_name} exited", tell_agent=False)
        self._emit(StatusItem("exited", info.describe().replace("child", self.acp.agent_name, 1), {"code": info.code}))
        self._exited.set()

    # -- what the agent sends ----------------------------------------------------------------
    async def _on_notify(self, method: str, params: dict[str, Any]) -> None:
        if method != "session/update":
            return
        if self._loading and not is_state(params):
            self._history.feed(params)  # history: shown as such, never fed to the engine
            return
        self._react(self.acp.update(params))

    async def _on_request(self, method: str, params: dict[str, Any], rid: Any) -> None:
        assert self.proc is not None
        proc = self.proc
        if self._closing and method == "session/request_permission":
            # the agent is being stopped (an alarm, or the session ends): an agent that ran a refused
            # call runs the next one whatever it is told, so it gets no answer and waits for its end
            return
        if method != "session/request_permission":
            if (path := self.proposed.take(method, params)) is not None:
                self._record("note", {"what": "proposed-edit", "path": path, "text": "acknowledged, not written"})
                await proc.respond(rid, {})  # the agent writes the file itself (`wrapper.harness.acp.proposed`)
                return
            await proc.respond_error(
                rid, -32601, f"breaker-tui does not offer {method} (it advertised no such capability)"
            )
            return
        self.proposed.asked(params)
        r = self.acp.permission(params)
        if r.question is None:
            await proc.respond(rid, r.reply)
            self._react(r)
            return
        q = replace(r.question, id=f"acp-{self.generation}-{key_of(rid)}")  # what `ApprovalClosed` names
        self._emit_all([ApprovalItem(q) if isinstance(i, ApprovalItem) and i.answer is None else i for i in r.items])
        t = self.asks.add(proc, rid, params, q)
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)

    def _react(self, r: Reaction) -> None:
        if r.alarm is not None:  # a refused call ran: the agent is stopped (fail closed), as on the dsh path
            self._record("note", {"what": "alarm", "text": r.alarm})
            self._closing = True
            self._spawn(self.kill())
        self._emit_all(r.items)
        if r.followup is not None:
            self._followup = r.followup
        if r.cancel:
            self._spawn(self._cancel_for_trip())

    async def _cancel_for_trip(self) -> None:
        await self.cancel()
        task = self._prompt_task
        if task is None or task.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), self.settings.acp.cancel_timeout_s)
        except TimeoutError:
            if self._followup is not None:
                self._followup = None
                self._record("note", {"what": "followup-dropped"})
                self._emit_all(self.acp.end_turn())
                self._emit(StatusItem("warning", "the agent did not end the cancelled turn in time; no follow-up sent"))

    # -- actions -----------------------------------------------------------------------------
    async def prompt(self, text: str, timeout: float | None = None) -> bool:
        """Send a person's message: it starts a new turn.

        Sent while the agent still starts, it waits for the session as long as the start may take: the
        handshake has its own bound (`startup_timeout_s`) and ends the agent when it passes it, so a slow
        start is waited for and a failed one answers at once. `timeout` bounds the wait further.
        """
        if not text.strip():
            return False
        if timeout is None:  # a backstop past every request of the handshake, each bounded by the setting
            timeout = START_REQUESTS * self.settings.acp.startup_timeout_s
        if not await self.wait_ready(timeout):
            self._emit(StatusItem("error", "the agent is not ready for prompts (no ACP session)"))
            return False
        if self._prompt_task is not None and not self._prompt_task.done():
            self._emit(StatusItem("warning", "the agent is still working on a turn: cancel it first (esc)"))
            return False
        return await self._send_prompt(text, followup=False)

    async def _send_prompt(self, text: str, followup: bool) -> bool:
        assert self.proc is not None
        self._end_history()
        self._record("note", {"what": "prompt", "text": text, "followup": followup})
        if not followup and self.proc.descent is not None:
            self.proc.descent.mark_turn()
        self._emit_all(self.acp.prompt_sent(text, followup))
        attached = prompt_blocks(text, self.cwd, self.agent_caps.get("promptCapabilities"))
        for note in attached.notes:
            self._emit(StatusItem("warning", inert(note, keep_newlines=False)))
        if attached.files:
            names = ", ".join(inert(f, keep_newlines=False) for f in attached.files)
            self._emit(StatusItem("notice", f"attached {names}"))
        fut, write = self.proc.request_future(
            "session/prompt", {"sessionId": self.info.session_id, "prompt": attached.blocks}
        )
        if not await write:
            fut.cancel()
            self._emit_all(self.acp.prompt_done(None, "the agent is not running"))
            return False
        self._prompt_task = self._spawn(self._prompt_result(fut))
        return True

    async def _prompt_result(self, fut: asyncio.Future[Any]) -> None:
        try:
            result = await fut
            err = None
        except RpcError as e:
            result, err = None, str(e)
        self._record("note", {"what": "prompt-done", "result": result, "error": err})
        stop = result.get("stopReason") if isinstance(result, dict) else None
        if stop == "cancelled" and self.proc is not None and (n := self.proc.end_left_by_turn()):
            self._record("note", {"what": "ended-left-running", "count": n})
            self._emit(StatusItem("notice", f"ended {n} process(es) the cancelled turn left running"))
        self._emit_all(self.acp.prompt_done(result, err))
        text, self._followup = self._followup, None
        if text is not None and err is None and self.proc is not None and self.proc.running:
            await self._send_prompt(self.acp.followup_text(text), followup=True)
        elif self.acp.pending_followup:
            self._emit_all(self.acp.end_turn())

    async def set_choice(self, choice_id: str, value: str, again: bool = False) -> bool:
        """Switch one of the agent's settings (mode, model, effort, ...) with the request it offers.

        A mode that never asks is switched to as asked (the person chose it after a warning), and then
        said loudly: from now on a repeat of a call that does not ask can only be cancelled after it ran.
        A mode chosen here is kept: a restart or a resume chooses it again (`again`).
        """
        choice = self.acp.shown.find(choice_id)
        if self.proc is None or choice is None or not any(o.value == value for o in choice.options):
            self._emit(StatusItem("warning", f"the agent offers no setting {choice_id!r} = {value!r}"))
            return False
        method, params = set_request(self.info.session_id, choice, value)
        self._record("note", {"what": "choice", "configId": choice_id, "value": value})
        try:
            result = await self.proc.request(method, params, self.settings.acp.startup_timeout_s)
        except (RpcError, TimeoutError) as e:
            self._emit(
                StatusItem("warning", f"{self.acp.agent_name} refused {choice.name} = {value}: {inert(str(e))[:200]}")
            )
            return False
        switched = self.acp.shown.accepted(method, params, result)
        self._emit_all(switched)
        if choice.category == "mode":
            self.chosen[choice_id] = value
        name = next((o.name for o in choice.options if o.value == value), value)
        kept = " (kept from before the restart)" if again else ""
        if switched or again:  # else the agent's own update said it first (`current_mode_update`), once
            self._emit(
                StatusItem(
                    "notice", f"{self.acp.agent_name} {choice.name.lower()}: {inert(name, keep_newlines=False)}{kept}"
                )
            )
        if choice.category == "mode" and value in self.acp.shown.silent:
            self._emit(StatusItem("warning", SILENT_NOTICE.format(mode=inert(name, keep_newlines=False))))
        return True

    async def cancel(self) -> bool:
        """Cancel the current turn (`session/cancel`); pending permission requests are answered `cancelled`."""
        if self.proc is None or not self.info.session_id:
            return False
        if self.proc.descent is not None:
            # look once more while the turn's commands still run: an agent that ends a command on cancel
            # orphans what it started in a session of its own, and an orphan is no one's descendant any more
            self.proc.descent.sample()
        await self.asks.close_all("the turn was cancelled", tell_agent=True)
        return await self.proc.notify("session/cancel", {"sessionId": self.info.session_id})

    async def kill(self) -> ExitInfo | None:
        """Stop the agent's whole process group: SIGTERM, then SIGKILL after the grace period."""
        if self.proc is None:
            return None
        await self.proc.stop(self.settings.wrapper.kill_grace_s)
        return await self.wait_exit(10)

    async def resume(self, session_id: str) -> bool:
        """Stop the agent and start it again on a past session (`session/load`, when the agent offers it)."""
        return await self.restart(session_id)

    async def restart(self, session_id: str | None = None) -> bool:
        """Stop the agent and start it again: on the same session where it can load one, else a new one."""
        sid = session_id or self.info.session_id
        if self.proc is not None and self.proc.running:
            await self.kill()
        if self._prompt_task is not None and not self._prompt_task.done():
            self._prompt_task.cancel()
        self._followup = None
        self.acp.pending_followup = False
        # an alarm (or a stop) left the session closing, which leaves the agent's questions unanswered so a
        # stopped agent waits for its end: the new agent is watched, and each question gets its answer (after
        # an alarm, the refusal: `acp.alarm` keeps the distrust, as dsh's ledger does)
        self._closing = False
        can_load = bool(self.agent_caps.get("loadSession"))
        verb = "resuming session" if session_id else "restarting on session"
        self._emit(StatusItem("notice", f"{verb} {sid}" if sid and can_load else "restarting with a new session"))
        self.info.busy = False
        await self._launch(resume=sid or None)
        return True

    async def quit(self, code: int = 0) -> ExitInfo | None:
        """End the agent (ACP has no quit message: close its input, then end its process group)."""
        self._closing = True
        self._record("note", {"what": "quit"})
        return await self.kill()

    async def close(self) -> None:
        """Stop everything: the agent (if still running) and the recording."""
        self._closing = True
        if self.proc is not None:
            await self.proc.stop(min(self.settings.wrapper.kill_grace_s, 3.0))
            self.proc.cancel_tasks()
        for t in list(self._tasks):
            t.cancel()
        self._remove_tmpdir()
        if self.recorder is not None:
            self.recorder.close()
        self.queue.put_nowait(None)

    async def shutdown(self, sig: signal.Signals) -> None:
        """A signal ends the run: say so, record it, then close (the agent's process group ended)."""
        self._record("note", {"what": "signal", "signal": sig.name})
        self._emit(StatusItem("notice", f"{sig.name} received: stopping the agent and cleaning up"))
        await self.close()

    def shutdown_now(self) -> None:
        """No grace (a second signal): kill the agent's process group at once and end the recording."""
        self._closing = True
        if self.proc is not None:
            self.proc.stopping = True  # ended as asked: a start it cuts short is not the agent's refusal
            self.proc.signal_group(signal.SIGKILL)
        self._remove_tmpdir()
        if self.recorder is not None:
            self.recorder.close()
