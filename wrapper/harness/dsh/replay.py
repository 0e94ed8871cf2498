"""Plays a dsh recording (or dsh's own session log) through a fresh engine, as if live: for `scan` and replay."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast, get_args

from engine.breaker import Verdict
from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.logs import iter_dsh_events
from wrapper.harness.dsh.monitor import BridgeMonitor
from wrapper.harness.dsh.normalize import parse_args, text_of
from wrapper.items import Answer, ApprovalItem, Item, OutputItem, Question, StatusItem, TripItem, VerdictItem
from wrapper.records.replay import Step, session_note, settings_for
from wrapper.records.sources import Loaded
from wrapper.settings import Settings

ANSWERS = frozenset(get_args(Answer))
PENDING_VERDICTS = 4096  # replayed verdicts kept until the live one recorded after them is compared


class Replayer:
    """Iterate `steps()`; `mismatches` lists live decisions the replay did not reproduce."""

    def __init__(self, loaded: Loaded, settings: Settings | None = None) -> None:
        self.loaded = loaded
        self.settings = settings_for(loaded, settings or Settings())
        self.monitor = BridgeMonitor(self.settings)
        self.monitor.info.dsh = True
        self.mismatches: list[str] = []
        self.bad_messages = (
            0  # recorded messages the replay could not read (the file's bad lines: `loaded`, after a pass)
        )
        self.record = 0  # 1-based position in `loaded.records` of the record being replayed (for errors)
        # replayed verdicts waiting for the live one recorded after them (bounded: an unanswered id is dropped)
        self._replayed: dict[str, Verdict] = {}
        self._questions: dict[str, tuple[P.ApprovalRequest, Question]] = {}  # approval id -> its question
        # verdict id -> (agent, call id) of an ask the replay gave: a hook session answers it under that id
        self._asks: dict[str, tuple[str, str]] = {}

    def steps(self) -> Iterator[Step]:
        """Every item the live session showed, re-derived, with its relative time."""
        if self.loaded.kind == "recording":
            yield from self._recording()
        else:
            yield from self._dsh_log()

    # -- breaker-tui recordings -----------------------------------------------------------------
    def _recording(self) -> Iterator[Step]:
        m = self.monitor
        t0: float | None = None
        self._replayed.clear()
        self._questions.clear()
        self._asks.clear()
        by_kind = {"child": _child_output, "note": self._note, "out": self._out, "in": self._inbound}
        for n, r in enumerate(self.loaded.records, 1):
            self.record = n
            at = r.get("at")
            if at is not None and t0 is None:
                t0 = float(at)
            t = max(0.0, float(at) - t0) if at is not None and t0 is not None else 0.0
            k = r.get("k")
            if k == "in" and r.get("t") == "event" and plain_event(r):
                # most records of a long session (every reasoning delta): the message as parsing would give it,
                # kept in the loop because it is the hot path of a scan
                reaction = m.handle_event(r.get("sessionId"), r["event"])
                for item in reaction.items:
                    yield Step(t, item)
                for trip in reaction.trips:
                    yield Step(t, TripItem(trip, describe_command(m.trip_command(trip))))
                continue
            handle = by_kind.get(k) if isinstance(k, str) else None
            if handle is not None:
                for item in handle(r):
                    yield Step(t, item)

    def _out(self, r: dict[str, Any]) -> list[Item]:
        """What the live session sent dsh: an approval answered is shown, a verdict is compared with the replay's."""
        if r.get("t") == "approval_response":
            return self._answered(r)
        if r.get("t") == "verdict":
            got = self._replayed.pop(str(r.get("id")), None)
            if got is not None:
                self._compare(str(r.get("id")), got, r)
        return []

    def _answered(self, r: dict[str, Any]) -> list[Item]:
        """The recorded answer to an ask, applied as the live session applied it (the next repeats depend on it)."""
        rid = str(r.get("id"))
        pair = self._questions.pop(rid, None) or self._hook_question(rid, r)
        if pair is None:
            return []
        answer = recorded_answer(r)
        if answer is None:  # the agent's own prompt asked the person: the live engine heard no answer either
            return []
        self.monitor.answer(pair[0], pair[1], answer)
        return [ApprovalItem(pair[1], answer, *recorded_by(r))]

    def _hook_question(self, vid: str, r: dict[str, Any]) -> tuple[P.ApprovalRequest, Question] | None:
        """The ask a hook session answered: it records the answer under the verdict's id, with no request between."""
        asked = self._asks.pop(vid, None)
        if asked is None or asked[1] != r.get("callId") or asked[1] not in self.monitor.asked:
            return None
        req = P.ApprovalRequest(t="approval_request", id=vid, sessionId=asked[0], callId=asked[1])
        return req, self.monitor.question(req)

    def _inbound(self, r: dict[str, Any]) -> list[Item]:
        """A message dsh sent, through the live session's dispatcher, decision for decision."""
        if r.get("t") == "hello":
            return []
        m = self.monitor
        try:
            msg = P.parse_inbound({key: v for key, v in r.items() if key not in ("at", "k")})
        except P.BadMessage as e:
            self.bad_messages += 1
            return [StatusItem("warning", f"unreadable recorded message: {e}")]
        reaction = m.handle(msg)
        if isinstance(msg, P.VerdictRequest):
            self._keep_replayed(msg.id, reaction.items)
        items: list[Item] = [*reaction.items]
        items += [TripItem(trip, describe_command(m.trip_command(trip))) for trip in reaction.trips]
        if reaction.approval is not None:
            q = m.question(reaction.approval)
            self._questions[reaction.approval.id] = (reaction.approval, q)
            items.append(ApprovalItem(q))
        return items

    def _keep_replayed(self, vid: str, items: list[Item]) -> None:
        """Hold the replay's verdict for `vid` until the live one recorded after it arrives."""
        for item in items:
            if isinstance(item, VerdictItem):
                self._replayed[vid] = item.verdict
                if len(self._replayed) > PENDING_VERDICTS:
                    del self._replayed[next(iter(self._replayed))]
                if item.verdict.kind == "ask":
                    self._asks[vid] = (item.agent, item.call_id)
                    if len(self._asks) > PENDING_VERDICTS:
                        del self._asks[next(iter(self._asks))]

    def _note(self, r: dict[str, Any]) -> list[Item]:
        common = session_note(r, self.monitor, "child")
        if common is not None:
            return common
        what = r.get("what")
        if what == "bridge-lost":
            return [StatusItem("notice", "the dsh bridge disconnected")]
        return [StatusItem(str(what or "note"), str(r.get("text", "")))] if r.get("text") else []

    def _compare(self, vid: str, got: Verdict, live: dict[str, Any] | None) -> None:
        if live is None:
            return
        if live.get("kind") != got.kind:
            self.mismatches.append(f"verdict {vid}: live {live.get('kind')}, replay {got.kind}")

    # -- dsh's own session logs -----------------------------------------------------------------
    def _dsh_log(self) -> Iterator[Step]:
        m = self.monitor
        t0: float | None = None
        n = 0
        for k, (agent, e) in enumerate(iter_dsh_events(self.loaded), 1):
            self.record = k
            ts = float(e.get("time") or e.get("time0") or 0) / 1000
            t0 = ts if t0 is None else t0
            t = max(0.0, ts - t0)
            kind = e.get("type")
            data = e.get("data") or {}
            if kind == "step/start":
                yield from (
                    Step(t, i)
                    for i in m.request_start(
                        P.RequestStart(
                            t="request_start",
                            sessionId=agent,
                            turn=int(data.get("turn") or 0),
                            step=int(data.get("step") or 0),
                        )
                    )
                )
            items, trips = m.event(agent, e)
            for item in items:
                yield Step(t, item)
            for trip in trips:
                yield Step(t, TripItem(trip, "replay: nothing sent"))
            if kind == "tool/call":
                n += 1
                req = P.VerdictRequest(
                    t="verdict_request",
                    id=f"log-{n}",
                    sessionId=agent,
                    callId=str(data.get("callId", "")),
                    name=str(data.get("name", "")),
                    args=parse_args(data.get("arguments")),
                )
                _, vitem = m.verdict(req)
                yield Step(t, vitem)
                if vitem.verdict.kind == "ask":  # nobody can answer in a log: fail closed, as headless does
                    q = m.question(
                        P.ApprovalRequest(
                            t="approval_request", id=req.id, sessionId=agent, callId=req.callId, toolName=req.name
                        )
                    )
                    m.answer(
                        P.ApprovalRequest(t="approval_request", id=req.id, sessionId=agent, callId=req.callId),
                        q,
                        "deny",
                    )
                    yield Step(t, ApprovalItem(q, "deny", "replay of a dsh log: nobody to ask"))
            elif kind == "tool/result":
                msg = data.get("message") or {}
                call_id = str((msg.get("source") or {}).get("callId", ""))
                name, args = m.breaker.call_of(agent, call_id)
                content = msg.get("content") or []
                is_error = any(isinstance(b, dict) and b.get("isError") for b in content)
                _, ritem = m.result(
                    P.ResultRequest(
                        t="result_request",
                        id=f"res-{call_id}",
                        sessionId=agent,
                        callId=call_id,
                        name=name,
                        args=args,
                        isError=is_error,
                        text=text_of(content),
                    )
                )
                yield Step(t, ritem)


_EVENT_KEYS = frozenset({"at", "k", "t", "sessionId", "event", "ts"})
_INT64 = 1 << 63


def plain_event(r: dict[str, Any]) -> bool:
    """Whether a recorded `in` record of type `event` is a message `parse_inbound` takes as it stands.

    That is: no field but the message's own (`t`, `sessionId`, `event`, `ts`; the recorder's `at` and `k`
    are not the message's), `sessionId` absent or a string, `event` an object, `ts` absent or a number
    (not a bool). Such a record becomes an `EventMsg` of the same `sessionId` and `event` without its
    model being built; any other record, however nearly it fits, goes through `parse_inbound`, which
    says what is wrong with it.
    """
    if not _EVENT_KEYS.issuperset(r):
        return False
    sid, ts = r.get("sessionId"), r.get("ts")
    if sid is not None and type(sid) is not str:
        return False
    if ts is not None and type(ts) is not float and not (type(ts) is int and -_INT64 < ts < _INT64):
        return False
    return type(r.get("event")) is dict


def describe_command(cmd: P.Abort | None) -> str:
    """How a trip's command reads in logs and banners."""
    if cmd is None:
        return "nothing (enforcement paused)"
    return "abort, then retry with thinking off" if cmd.retry else "abort (terminal)"


def recorded_by(r: dict[str, Any]) -> tuple[str, str]:
    """`(by, why)` of a recorded answer; a recording from before answers said who gave them says so."""
    by, why = r.get("by"), r.get("why")
    if not isinstance(by, str) or not by:
        return "unknown", "recorded before answers named who gave them"
    return by, why if isinstance(why, str) else ""


def recorded_answer(r: dict[str, Any]) -> Answer | None:
    """The answer a recorded `approval_response` gave, as the live session applied it to the engine.

    A person's answer is applied as given; no one answering (`none`, or a recording from before answers were
    written) refused the call; None when the agent's own prompt asked instead (a hook session of Claude's), whose
    answer the live engine never heard.
    """
    answer = r.get("answer")
    if answer in ANSWERS:
        return cast(Answer, answer)
    return None if r.get("outcome") == "asked-agent" else "deny"


def _child_output(r: dict[str, Any]) -> list[Item]:
    return [OutputItem(str(r.get("text", "")))]
