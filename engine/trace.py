"""The neutral trace format and its live-like replay through the engine.

A trace is one JSON object per line (the caller reads the file; this module does no I/O): an
optional `meta` line, then `user`, `request`, `think`, `answer` and `call` events. `simulate`
feeds them to a fresh `Breaker` as if the session ran live, so detection can be measured on any
agent's session without a child process: a call the engine denies (or an ask refused under
`approvals="deny"`) did not run, so its recorded output is ignored; a stream trip drops the rest
of that request's text; a turn that ran out of retries ends there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from engine import events as ev
from engine.breaker import Breaker, Verdict
from engine.config import BreakerConfig, EngineConfig, ThinkingConfig
from engine.errors import ConfigError
from engine.keynames import canonical
from engine.repeat_config import RepeatConfig
from engine.tools.fingerprints import kind_of

MAIN = "main"
KINDS = ("user", "request", "think", "answer", "call")
Expected = Literal["loop", "no_loop"]
Action = Literal["deny", "ask", "steer", "abort", "cancel"]
CANCEL_RULES = frozenset({"monologue", "restated-plan"})  # trips that end the turn, not retry the step


class TraceError(ValueError):
    """A trace line that cannot be used; the message names what is wrong, `line` where (1-based)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line

    def __str__(self) -> str:
        base = super().__str__()
        return f"line {self.line}: {base}" if self.line is not None else base


@dataclass(frozen=True, slots=True)
class TraceMeta:
    """The optional first line: a label for evaluation and per-trace engine settings."""

    name: str = ""
    expected: Expected | None = None
    notes: str = ""
    config: dict[str, Any] | None = None
    judge_from: int = 0


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One event of a trace; `index` counts events (meta not counted), `line` is the file line."""

    index: int
    line: int
    kind: Literal["user", "request", "think", "answer", "call"]
    agent: str = MAIN
    text: str = ""
    tool: str = ""
    args: Any = None
    output: str = ""
    exit: int | None = None
    error: bool | None = None


@dataclass(frozen=True, slots=True)
class Intervention:
    """Something the engine did on a trace event: deny/ask a call, steer its result, abort a stream, cancel a turn."""

    line: int
    index: int
    action: Action
    rule: str
    agent: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (`scan --json`)."""
        return {
            "line": self.line,
            "index": self.index,
            "action": self.action,
            "rule": self.rule,
            "agent": self.agent,
            "message": self.message,
        }


def _str(obj: Mapping[str, Any], key: str, line: int, default: str = "") -> str:
    v = obj.get(key, default)
    if v is None:
        return default
    if not isinstance(v, str):
        raise TraceError(f"`{key}` must be a string (got {type(v).__name__})", line)
    return v


def _parse_meta(obj: Mapping[str, Any], line: int, index: int) -> TraceMeta:
    if index != 0:
        raise TraceError("a `meta` event may only be the first line of a trace", line)
    expected = obj.get("expected")
    if expected not in (None, "loop", "no_loop"):
        raise TraceError(f'`expected` must be "loop" or "no_loop" (got {expected!r})', line)
    config = obj.get("config")
    if config is not None and not isinstance(config, dict):
        raise TraceError("`config` must be an object with `repeat` / `thinking` / `engine` tables", line)
    judge = obj.get("judge_from", 0)
    if judge is None:
        judge = 0
    if not isinstance(judge, int) or isinstance(judge, bool) or judge < 0:
        raise TraceError(f"`judge_from` must be an integer >= 0 (got {judge!r})", line)
    return TraceMeta(_str(obj, "name", line), expected, _str(obj, "notes", line), config, judge)


def parse_line(obj: object, line: int, index: int) -> TraceMeta | TraceEvent:
    """Validate one decoded JSON line; `index` is the number of events before it (meta not counted)."""
    if not isinstance(obj, dict):
        raise TraceError(f"each line must be a JSON object (got {type(obj).__name__})", line)
    t = obj.get("t")
    if t == "meta":
        return _parse_meta(obj, line, index)
    if t not in KINDS:
        raise TraceError(f"`t` must be one of meta, {', '.join(KINDS)} (got {t!r})", line)
    agent = _str(obj, "agent", line, MAIN) or MAIN
    if t in ("user", "think", "answer"):
        return TraceEvent(index, line, t, agent, text=_str(obj, "text", line))
    if t == "request":
        return TraceEvent(index, line, "request", agent)
    tool = obj.get("tool")
    if not isinstance(tool, str) or not tool:
        raise TraceError("a `call` needs `tool`, a non-empty string", line)
    args = obj.get("args", {})
    if args is None:
        args = {}
    exit_ = obj.get("exit")
    if exit_ is not None and (not isinstance(exit_, int) or isinstance(exit_, bool)):
        raise TraceError(f"`exit` must be an integer (got {exit_!r})", line)
    error = obj.get("error")
    if error is not None and not isinstance(error, bool):
        raise TraceError(f"`error` must be true or false (got {error!r})", line)
    output = obj.get("output", "")
    if output is None:
        output = ""
    if not isinstance(output, str):
        raise TraceError(f"`output` must be a string (got {type(output).__name__})", line)
    return TraceEvent(index, line, "call", agent, tool=tool, args=args, output=output, exit=exit_, error=error)


_MODELS: dict[str, type[BaseModel]] = {"repeat": RepeatConfig, "thinking": ThinkingConfig, "engine": EngineConfig}


def config_for(meta: TraceMeta | None, base: BreakerConfig | None = None) -> BreakerConfig:
    """`base` (or the defaults) with the trace's own `config` tables laid over it key by key."""
    base = base or BreakerConfig()
    if meta is None or not meta.config:
        return base
    merged: dict[str, Any] = {}
    for section in ("repeat", "thinking", "engine"):
        own = meta.config.get(section)
        if own is None:
            continue
        if not isinstance(own, dict):
            raise TraceError(f"meta `config.{section}` must be an object", 1)
        current = getattr(base, section).model_dump(mode="json")
        # the dump is snake_case; a trace (an older recording, a seed-style config) may use the camelCase names
        try:
            current.update(canonical(own, _MODELS[section], section))
        except ConfigError as e:
            raise TraceError(f"meta `config.{section}`: {e}", 1) from None
        merged[section] = current
    for section in meta.config:
        if section not in ("repeat", "thinking", "engine"):
            raise TraceError(f"meta `config` has an unknown table `{section}` (known: repeat, thinking, engine)", 1)
    for section in ("repeat", "thinking", "engine"):
        if section not in merged and hasattr(base, section):
            merged[section] = getattr(base, section).model_dump(mode="json")
    try:
        return BreakerConfig.from_mapping(merged, "trace meta config")
    except ConfigError as e:
        raise TraceError(str(e), 1) from None


def _rule(v: Verdict) -> str:
    if v.rule:
        return v.rule
    if v.source == "failure":
        return "failure"
    if v.hits:
        return f"repeat:{kind_of(v.hits[0].fp)}"
    return v.source or "repeat"


@dataclass(slots=True)
class _State:
    turn: int = 0
    requested: bool = False  # a request is open (explicit, or implied by the first event)
    after_call: bool = False  # the last event was a call: the next think/answer/call opens a request
    dead: bool = False  # the stream tripped: drop text until the next request
    ended: bool = False  # the turn ran out of retries: drop events until the next user message


def simulate(
    meta: TraceMeta | None,
    events: Iterable[TraceEvent],
    approvals: Literal["deny", "allow"] = "deny",
    base: BreakerConfig | None = None,
) -> list[Intervention]:
    """Replay a trace through a fresh `Breaker` as if live; return every intervention in order."""
    breaker = Breaker(config_for(meta, base))
    states: dict[str, _State] = {}
    out: list[Intervention] = []
    calls = 0
    for e in events:
        st = states.get(e.agent)
        if st is None:
            st = states[e.agent] = _State()
            breaker.feed(ev.TurnStart(e.agent, st.turn))
        if e.kind == "user":
            st.turn += 1
            st.requested = st.after_call = st.dead = st.ended = False
            breaker.feed(ev.UserMessage(e.agent, e.text, "user"))
            breaker.feed(ev.TurnStart(e.agent, st.turn))
            continue
        if st.ended:
            continue
        if e.kind == "request" or not st.requested or st.after_call:
            _request(breaker, st, e, out)
            if e.kind == "request":
                continue
        if e.kind in ("think", "answer"):
            st.after_call = False
            if st.dead or not e.text:
                continue
            delta: ev.Event = (
                ev.ReasoningDelta(e.agent, e.text) if e.kind == "think" else ev.AnswerDelta(e.agent, e.text)
            )
            trip = breaker.feed(delta)
            if trip is not None and trip.action != "observe":
                st.dead = True
                action: Action = "cancel" if trip.rule in CANCEL_RULES else "abort"
                out.append(Intervention(e.line, e.index, action, trip.rule, e.agent, trip.evidence()))
                if trip.action == "abort_retry":
                    breaker.request_error(e.agent, trip.failure_message, "ABORTED")
                else:
                    st.ended = True
            continue
        st.after_call = True
        calls += 1
        _call(breaker, e, f"c{calls}", approvals, out)
    return out


def _request(breaker: Breaker, st: _State, e: TraceEvent, out: list[Intervention]) -> None:
    st.requested = True
    st.after_call = False
    st.dead = False
    breaker.request_start(e.agent, st.turn)
    why = breaker.pending_cancel(e.agent)
    if why is not None:
        out.append(Intervention(e.line, e.index, "cancel", why[0], e.agent, why[1]))
        st.ended = True


def _call(breaker: Breaker, e: TraceEvent, call_id: str, approvals: str, out: list[Intervention]) -> None:
    v = breaker.check_tool(e.agent, call_id, e.tool, e.args)
    ran = True
    if v.kind == "ask":
        out.append(Intervention(e.line, e.index, "ask", _rule(v), e.agent, v.message))
        v = breaker.resolve_ask(e.agent, call_id, approvals == "allow")
        ran = v.kind != "deny"
        if not ran and approvals == "allow":
            out.append(Intervention(e.line, e.index, "deny", _rule(v), e.agent, v.message))
    elif v.kind == "deny":
        out.append(Intervention(e.line, e.index, "deny", _rule(v), e.agent, v.message))
        ran = False
    if not ran:
        breaker.tool_result(e.agent, call_id, e.tool, e.args, v.message, True, dispatched=False)
        return
    failed = bool(e.error) or (e.exit is not None and e.exit != 0)
    text = e.output
    if e.exit not in (None, 0):
        text = f"{text}\n[exit code: {e.exit}]" if text else f"[exit code: {e.exit}]"
    rw = breaker.tool_result(e.agent, call_id, e.tool, e.args, text, failed, exit=e.exit)
    if rw is not None and rw.reason == "steer":
        out.append(Intervention(e.line, e.index, "steer", "failure", e.agent, rw.text))
