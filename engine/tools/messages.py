"""The texts the breakers hand to the model and to the operator."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from engine.units import from_units, to_units


class Hit(NamedTuple):
    """A fingerprint that would reach its cap: `next` is the occurrence this call would be."""

    fp: str
    next: int
    cap: float

    def as_list(self) -> list[object]:
        """The `[fingerprint, next, cap]` triple of the conformance vectors."""
        cap: object = self.cap if not self.cap.is_integer() else int(self.cap)
        return [self.fp, self.next, cap]


def preview(text: str, cap: int) -> str:
    """The first `cap` UTF-16 units of `text`, with a count of what was cut."""
    units = to_units(text)
    if len(units) <= cap:
        return text
    return from_units(units[:cap]) + f"… (+{len(units) - cap} more chars)"


def _cap(c: float) -> str:
    if math.isinf(c):
        return "∞"
    return str(int(c)) if c.is_integer() else repr(c)


def hit_line(h: Hit, preview_chars: int) -> str:
    """One `- fingerprint next/cap` line."""
    return f"- {preview(h.fp, preview_chars)} {h.next}/{_cap(h.cap)}"


def deny_message(
    tool: str,
    hits: Sequence[Hit],
    note: str | None,
    local_policy: str,
    last_result: str,
    preview_chars: int,
    result_chars: int,
) -> str:
    """The denial the model receives instead of the tool result (starts `REPEAT_TOOL_BLOCKED:`)."""
    lines = [
        f"REPEAT_TOOL_BLOCKED: {tool or 'tool call'} repeats an action already taken in this window "
        "(semantic match), so it was stopped before it ran.",
        "",
        "Fingerprints that reached their cap:",
        *[hit_line(h, preview_chars) for h in hits],
        "",
        "Cosmetic changes do not make a new action: a different description, timeoutMs or",
        "--max-time, reordered flags, or another spelling of the same host all count as the same call.",
    ]
    if note == "refused":
        lines += [
            "",
            "Every hit above is a LOCAL address (localhost / private network). The operator did not",
            "exempt local traffic for this turn (declined, or nobody could answer), so local repeats",
            "stay blocked until the next human message.",
        ]
    elif note == "policy":
        lines += [
            "",
            "Every hit above is a LOCAL address (localhost / private network). This profile blocks",
            f"them anyway (`localHosts: {local_policy}`). If this is a development loop rather than a",
            "crawl, set `localHosts: ask` (asked once per turn) or `localHosts: allow` (local traffic",
            "is never counted) in the breaker config.",
        ]
    lines.append("")
    if last_result:
        lines += ["Previous tool result:", preview(last_result, result_chars)]
    else:
        lines.append("The result of the previous identical call is already in the conversation above.")
    lines += [
        "",
        "Do not repeat this call with cosmetic changes. Use the result you already have, take a",
        "genuinely different next step, or answer the user with what you know now.",
    ]
    return "\n".join(lines)


def ask_message(hits: Sequence[Hit], preview_chars: int) -> str:
    """Why the operator is asked before a local-only repeat is blocked."""
    return "\n".join(
        [
            "breaker: a call to a LOCAL address (localhost / private network) is about to",
            "be blocked as a repeat:",
            *["  " + hit_line(h, preview_chars) for h in hits],
            "",
            "Allow once runs this call only: the next repeat asks again. Allow for the turn also lets",
            "these same local fingerprints repeat until your next message; any other hit, another URL,",
            "a remote call or a sandbox escalation still asks. Decline and local repeats stay blocked",
            "until your next message.",
        ]
    )


def post_trip_hint(trips: int) -> str:
    """Prepended to the next tool result after a reasoning stream was aborted."""
    return "\n".join(
        [
            "[thinking-breaker] Your previous reasoning in this turn was aborted: it kept repeating itself",
            f"without making progress ({trips} trip(s) in this turn). That reasoning is still visible in the",
            "transcript, but it is not a usable basis for the next step.",
            "",
            "Do this instead:",
            "  1. Do not resume or restate that line of reasoning. Treat it as already proven to be a dead end.",
            "  2. If the same question still needs an answer, answer it directly and briefly from what you "
            "already know.",
            "  3. If you genuinely lack information, say what is missing and stop — instead of re-deriving it.",
        ]
    )


def failure_guidance(tool: str, count: int, original: str) -> str:
    """Replaces a failing result once the same kind of call has failed `steerAfter` times."""
    body = original.strip() or "(no error text provided by the tool)"
    return "\n".join(
        [
            f'[thinking-breaker] The tool "{tool}" has now failed {count} time(s) in this turn '
            "with the same kind of input.",
            "Do NOT retry it unchanged — the same call will produce the same failure.",
            "",
            "Change the approach before calling any tool again:",
            "  1. Read the error below and identify the exact bad input (escaping, quoting, path, type, encoding).",
            "  2. Fix that input, or narrow the work into a smaller step you can verify.",
            "  3. If the same fix has already failed, switch tools or stop and report the blocker instead of looping.",
            "",
            "Original error:",
            body,
        ]
    )


def failure_denial(tool: str, count: int, already: bool) -> str:
    """Returned instead of dispatching a call that keeps failing the same way."""
    if already:
        lead = f'Blocked by thinking-breaker: "{tool}" is already blocked for this turn.'
    else:
        lead = (
            f'Blocked by thinking-breaker: this kind of call to "{tool}" already failed {count} time(s) '
            "in this turn with the same arguments (numbers aside)."
        )
    return (
        lead + " Retrying it will fail the same way, so it was not dispatched. Change the approach "
        "instead: fix the input, split the work into a smaller verifiable step, use a different "
        "tool, or stop and report the blocker."
    )


def cause_message(tool: str, cause: Sequence[str], count: int) -> str:
    """The denial of a call that still carries what its error named (`engine.tools.causes`)."""
    named = ", ".join(f"`{preview(c, 80)}`" for c in cause)
    return (
        f'Blocked by breaker: "{tool}" failed {count} times with the same error about {named}, in this turn '
        "or earlier ones, with nothing changed in between, and this call still carries it, so it was not "
        f"dispatched. Asking again does not change what the error named: change or drop {named}, try "
        "something else, or stop and report the blocker."
    )
