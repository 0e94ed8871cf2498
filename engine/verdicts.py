"""What the engine answers: tool-call verdicts, stream trips and result rewrites (plain data)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from engine.tools.messages import Hit


class Verdict(NamedTuple):
    """The answer to a tool check: allow, deny (with the text the model gets) or ask (with the reason)."""

    kind: Literal["allow", "deny", "ask"]
    message: str = ""
    source: Literal["", "repeat", "failure", "observe"] = ""
    hits: tuple[Hit, ...] = ()
    note: str | None = None
    fingerprints: tuple[str, ...] = ()
    local: bool = False
    would: Literal["", "deny", "ask"] = ""  # what enforcement would have done while paused
    rule: str = ""  # which rule decided: failure, repeat:<kind>, cycle, paging, backstop, ...

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (recordings, `scan --json`)."""
        return {
            "kind": self.kind,
            "source": self.source,
            "hits": [h.as_list() for h in self.hits],
            "note": self.note,
            "would": self.would,
            "rule": self.rule,
            "message": self.message,
        }


ALLOW = Verdict("allow")


@dataclass(frozen=True, slots=True)
class StreamTrip:
    """A reasoning/answer/output stream tripped a lens; `action` is the recovery the seeds define."""

    agent: str
    stream: Literal["reasoning", "answer", "output"]
    rule: str
    descriptor: dict[str, Any]
    action: Literal["abort_retry", "abort", "observe"]
    reasoning_chars: int
    turn: int

    @property
    def failure_message(self) -> str:
        """The `failure.message` of the terminal `aborted` chunk."""
        return (
            f"thinking-breaker aborted a runaway {self.stream} stream "
            f"({self.rule}, {self.reasoning_chars} reasoning chars)"
        )

    def evidence(self) -> str:
        """One line of evidence for banners and logs."""
        d = self.descriptor
        if "evidence" in d:
            st = d.get("stats", {})
            return (
                f"evidence={'+'.join(d['evidence'])} block={d['block']} meaning={st.get('meaningRatio')} "
                f"noise={st.get('noiseRatio')} variety={st.get('variety')} maxRun={st.get('maxRun')} "
                f"runs={st.get('runCount')} emoji={st.get('emoji')}"
            )
        if d.get("rule") == "low-novelty":
            return f"block={d['block']} overlap={d['overlap']} streak={d['streak']}"
        if d.get("rule") == "verbatim-loop":
            return f"a {d['unit']}-char unit written {d['copies']} times"
        if d.get("rule") in ("monologue", "restated-plan"):
            return f"the same {'answer' if d['rule'] == 'monologue' else 'plan'} in {d['steps']} steps"
        if d.get("rule") == "max-reasoning-chars":
            return f"reasoning chars {d['offset']} over the cap"
        return f"block={d.get('block')} (exact repeat of an earlier block)"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return {
            "agent": self.agent,
            "stream": self.stream,
            "rule": self.rule,
            "action": self.action,
            "turn": self.turn,
            "reasoning_chars": self.reasoning_chars,
            "descriptor": self.descriptor,
        }


@dataclass(frozen=True, slots=True)
class ResultRewrite:
    """What to do to a finished tool result: replace its text, or prepend a hint."""

    mode: Literal["replace", "prepend"]
    text: str
    reason: Literal["steer", "hint"]
    failures: int = 0
