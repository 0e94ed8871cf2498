"""Which config values loosen enforcement: every enforcing key is classified here, once.

A tool that can write the config file can switch the next session's breaker off with keys nobody
thought of as switches (`[repeat] exclude = ["bash"]`, a smaller `window`, a host alias that makes
an attacker's host LOCAL, `[keys] approve.once = "d"`, `recordings_keep = 1`). So the check works
by allow-list: a key of an enforcing section that differs from its default is *loosened* unless its
rule below says the new value is at least as strict (a smaller cap, a larger window). Every field of
the enforcing models must have a rule or a reason to be neutral; a test enumerates the models so a
new field cannot be added without being classified.

A loosened config is still honoured, but it is named at every start (stderr, the TUI, the
recording) with file, key and value until the person accepts that exact file with
`breaker-tui config accept`, which records the file's sha256 in the state folder (a changed file
needs a new accept). Accepted or not, the status never claims full ENFORCING for it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from wrapper.paths import state_dir
from wrapper.process import proc
from wrapper.process.contain import LEAF_PREFIX, MARKER_ENV
from wrapper.settings import APPROVAL_KEY_IDS, Settings

Strict = Callable[[Any, Any], bool]
"""(value, default) -> whether the value enforces at least as much as the default."""


def _same(v: Any, d: Any) -> bool:
    return bool(v == d)


def _at_most(v: Any, d: Any) -> bool:
    return bool(v <= d)


def _at_least(v: Any, d: Any) -> bool:
    return bool(v >= d)


def _cap(v: Any, d: Any) -> bool:
    """A cap where 0 means none: a smaller non-zero cap is stricter; 0 is looser than any cap."""
    return bool(d == 0 or (v != 0 and v <= d))


def _keeps(v: Any, d: Any) -> bool:
    """A retention where 0 means keep everything: keeping more (or all) is stricter."""
    return bool(v == 0 or (d != 0 and v >= d))


def _only(*strict: Any) -> Strict:
    """Only the default or one of these values (the stricter side of a switch or a choice)."""
    return lambda v, d: v == d or v in strict


def _subset(v: Any, d: Any) -> bool:
    """Fewer exempted names than the default list (never counting a tool is looser)."""
    return set(v) <= set(d)


def _limit(v: Any, d: Any) -> bool:
    """A repeat cap (None = no cap): any cap is stricter than none, a smaller cap stricter than a larger."""
    return v is not None and (d is None or v <= d)


def _fewer_ignored(v: Any, d: Any) -> bool:
    """Ignoring fewer argument keys makes more calls count as different-or-same exactly as before."""
    return set(v) <= set(d or ())


@dataclass(frozen=True)
class PerEntry:
    """A table whose entries are judged one by one: `entry` for a value, `new_ok` for a key the default lacks."""

    entry: Strict
    new_ok: bool


# `section.key` -> the rule; a PerEntry names each loosened entry (`repeat.limits.cmd`).
RULES: dict[str, Strict | PerEntry] = {
    # [repeat]: a larger window remembers more calls; an exempted tool or an include list counts fewer;
    # host aliases can make an outside host LOCAL, so any change to them is named
    "repeat.window": _at_least,
    "repeat.local_hosts": _only("deny", "ask"),
    "repeat.exclude": _subset,
    "repeat.include": _same,
    "repeat.limits": PerEntry(_limit, new_ok=True),
    "repeat.ignore_args": PerEntry(_fewer_ignored, new_ok=True),
    "repeat.host_aliases": PerEntry(_same, new_ok=False),
    # [thinking]: the switches are on by default; thresholds trip sooner when smaller (or larger for a `_max`)
    "thinking.enabled": _only(True),
    "thinking.max_reasoning_chars": _cap,
    "thinking.retry_without_thinking": _only(False),
    "thinking.max_loop_retries_per_turn": _at_most,
    "thinking.max_tokens": _cap,
    "thinking.skip_aux_calls": _only(False),
    "thinking.post_trip_hint": _only(True),
    "thinking.tool_failure_guard": _only(True),
    "thinking.tool_failure_steer_after": _at_most,
    "thinking.tool_failure_deny_after": _at_most,
    "thinking.tool_failure_history": _at_least,
    "thinking.degeneracy_guard": _only(True),
    "thinking.degeneracy_on_answer": _only(True),
    "thinking.deg_evidence_min": _at_most,
    "thinking.deg_streak": _at_most,
    "thinking.deg_meaning_ratio_max": _at_least,
    "thinking.deg_noise_ratio_min": _at_most,
    "thinking.deg_variety_ratio_max": _at_least,
    "thinking.deg_run_len_min": _at_most,
    "thinking.deg_run_count_min": _at_most,
    "thinking.deg_emoji_min": _at_most,
    "thinking.deg_emoji_ratio_min": _at_most,
    "thinking.block_chars": _same,
    "thinking.history_blocks": _at_least,
    "thinking.min_repeat_gap": _at_most,
    "thinking.novelty_overlap": _at_most,
    "thinking.novelty_streak": _at_most,
    # [engine]: the seed rule set enforces less than the default one; a limit of 0 is off
    "engine.mode": _same,
    "engine.same_failure_limit": _cap,
    "engine.same_error_limit": _cap,
    "engine.tool_failure_limit": _cap,
    "engine.cycle_window": _at_least,
    "engine.cycle_repeats": _at_most,
    "engine.paging_limit": _cap,
    "engine.backstop_limit": _cap,
    "engine.backstop_window": _at_least,
    "engine.monologue_steps": _cap,
    "engine.verbatim_lens": _only(True),
    # [acp]: observing instead of refusing, or not making the agent ask, lets calls run unjudged
    "acp.deny": _same,
    "acp.unasked": _only("reprompt", "cancel"),
    "acp.reasoning": _only("reprompt", "cancel"),
    "acp.agent_asks": _same,
    "acp.make_ask": _only(True),
    "acp.startup_timeout_s": _at_most,
    "acp.cancel_timeout_s": _at_most,
    # [wrapper]: recording and its retention, headless answers, the bounds that fail closed
    "wrapper.record": _only(True),
    "wrapper.recordings_dir": _same,
    "wrapper.recordings_keep": _keeps,
    "wrapper.recordings_keep_days": _keeps,
    "wrapper.headless_approvals": _same,
    "wrapper.max_consecutive_denials": _cap,
    "wrapper.bridge_connect_timeout_s": _cap,  # 0 = never stop a child whose bridge is silent
    "wrapper.approval_timeout_s": _cap,
}

# fields of the enforcing models that decide nothing about what runs, and why
NEUTRAL: dict[str, str] = {
    "repeat.preview_chars": "how much of a fingerprint the denial text quotes",
    "repeat.result_preview_chars": "how much of the previous result the denial text quotes",
    "thinking.tool_failure_signatures": "kept for seed compatibility; signatures are the same either way",
    "wrapper.verdict_timeout_s": "a call waiting longer for its verdict is still denied when the wait ends",
    "wrapper.result_timeout_s": "a finished result is passed on unchanged either way; only the hint waits",
    "wrapper.kill_grace_s": "how long a stopped child gets before SIGKILL",
    "wrapper.max_line_bytes": "a longer line is dropped and counted either way",
    "wrapper.stall_warn_s": "a warning about a silent model, no verdict",
    "hooks.metrics": "where the hook server's counters are served; nothing is decided by them",
    "hooks.ask_wait_s": "a call nobody answers in `watch` is refused when the wait ends, whatever its length",
}

# the models whose every field is an enforcing key: `section` -> how to reach it from Settings
SECTIONS: dict[str, Callable[[Settings], BaseModel]] = {
    "repeat": lambda s: s.engine.repeat,
    "thinking": lambda s: s.engine.thinking,
    "engine": lambda s: s.engine.engine,
    "acp": lambda s: s.acp,
    "wrapper": lambda s: s.wrapper,
    "hooks": lambda s: s.hooks,
}


@dataclass(frozen=True)
class Loosened:
    """One value that enforces less than its default, and the file that set it."""

    where: str
    key: str
    value: Any
    default: Any

    def __str__(self) -> str:
        return f"{self.where}: {self.key} = {_shown(self.value)} (default {_shown(self.default)})"


class _Mark(str):
    """A placeholder shown as written (`(none)`, `(removed)`), never quoted."""

    def __repr__(self) -> str:
        return str(self)


NONE, REMOVED, BUILT_IN = _Mark("(none)"), _Mark("(removed)"), _Mark("(built in)")


def _shown(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():  # a cap is a float in the model, written as a whole number
        return str(int(v))
    return "off" if v is None else repr(v)


def loosened(s: Settings) -> list[Loosened]:
    """Every enforcing value of `s` that is looser than the default, in section order."""
    defaults = Settings()
    out: list[Loosened] = []
    for sec, get in SECTIONS.items():
        got, want = get(s), get(defaults)
        for name in type(got).model_fields:
            key = f"{sec}.{name}"
            rule = RULES.get(key)
            if rule is None:
                continue  # neutral (the test holds that every field is in RULES or NEUTRAL)
            where = s.origins.get(key, s.source)
            out += _judge(where, key, getattr(got, name), getattr(want, name), rule)
    out += _approval_keys(s)
    return out


def weakened(s: Settings) -> list[str]:
    """The loosened values as start-up lines: 'file: key = value (default …)'."""
    return [str(x) for x in loosened(s)]


def _judge(where: str, key: str, v: Any, d: Any, rule: Strict | PerEntry) -> Iterator[Loosened]:
    if isinstance(rule, PerEntry):
        for k in sorted(set(v) | set(d)):
            if k not in v:
                yield Loosened(where, f"{key}.{k}", REMOVED, d[k])
            elif k not in d:
                if not rule.new_ok or not rule.entry(v[k], None):
                    yield Loosened(where, f"{key}.{k}", v[k], NONE)
            elif v[k] != d[k] and not rule.entry(v[k], d[k]):
                yield Loosened(where, f"{key}.{k}", v[k], d[k])
        return
    if v != d and not rule(v, d):
        yield Loosened(where, key, v, d)


def _approval_keys(s: Settings) -> list[Loosened]:
    """A remapped approval key is named: the person's hands answer by the keys they know."""
    return [
        Loosened(s.origins.get(f"keys.{k}", s.source), f"keys.{k}", s.keys[k], BUILT_IN)
        for k in APPROVAL_KEY_IDS
        if k in s.keys
    ]


# -- accepting a loosened config -------------------------------------------------------------------
ACCEPTED = "accepted-configs.json"


def file_digest(path: Path) -> str:
    """sha256 of the file's bytes ("absent" when it cannot be read)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "absent"


def _store(store: Path | None) -> Path:
    return (store or state_dir()) / ACCEPTED


def _accepted_table(store: Path | None) -> dict[str, str]:
    try:
        table = json.loads(_store(store).read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in table.items()} if isinstance(table, dict) else {}


def is_accepted(path: Path | None, store: Path | None = None) -> bool:
    """Whether the person accepted this exact file's contents (its digest is on record)."""
    if path is None:
        return False
    digest = file_digest(path)
    return digest != "absent" and _accepted_table(store).get(str(path.resolve())) == digest


def inside_a_session() -> str:
    """Why this process runs under a monitored session (its run marker, its cgroup leaf), or ""."""
    if os.environ.get(MARKER_ENV):
        return f"${MARKER_ENV} is set"
    return "it runs in a session's cgroup" if f"/{LEAF_PREFIX}" in proc.own("cgroup") else ""


def accept(path: Path, store: Path | None = None) -> str:
    """Record this file's digest as accepted; returns the digest. Raises OSError when it cannot be kept.

    Refused from inside a monitored session: a tool of the agent that wrote the loosened file could
    otherwise accept it with one command, and the next session would apply it.
    """
    why = inside_a_session()
    if why:
        raise OSError(
            f"refused: this runs inside a breaker-tui session ({why}), so the agent could be accepting"
            " its own config; run `breaker-tui config accept` yourself, outside the session"
        )
    digest = file_digest(path)
    if digest == "absent":
        raise OSError(f"{path}: cannot read it")
    table = _accepted_table(store)
    table[str(path.resolve())] = digest
    where = _store(store)
    where.parent.mkdir(parents=True, exist_ok=True)
    tmp = where.with_suffix(".tmp")
    tmp.write_text(json.dumps(table, indent=1))
    os.replace(tmp, where)
    return digest


def source_path(s: Settings) -> Path | None:
    """The config file the settings came from (None: the defaults, or a mapping that is no file)."""
    p = Path(s.source)
    return p if s.source != "defaults" and p.is_file() else None


def accepted(s: Settings, store: Path | None = None) -> bool:
    """Whether the file these settings came from is accepted as it is now."""
    return is_accepted(source_path(s), store)


def status_word(s: Settings, store: Path | None = None) -> str:
    """How the status line qualifies enforcement under this config ("" when nothing loosened is applied).

    A loosened value is applied only once its file was accepted (`hold_back`); accepted, it is still
    never full ENFORCING: accepting stops the naming at each start, it does not make
    `exclude = ["bash"]` count bash calls. (Settings made in code, never held back: OBSERVING.)
    """
    if not loosened(s):
        return ""
    return "LOOSENED (accepted config)" if accepted(s, store) else "OBSERVING (config loosened)"


def record_note(s: Settings, store: Path | None = None) -> dict[str, Any]:
    """What a recording's meta keeps of the config's loosening (nothing when there is none)."""
    found = loosened(s)
    note: dict[str, Any] = {"held_back": list(s.held_back)} if s.held_back else {}
    if found:
        note.update(loosened=[str(x) for x in found], loosened_accepted=accepted(s, store))
    return note


def report(s: Settings, store: Path | None = None) -> list[str]:
    """The start-up lines: each loosened value held back until the file is accepted; once accepted, one line."""
    path = source_path(s)
    found = loosened(s)
    lines = []
    if found and is_accepted(path, store):
        lines.append(f"the accepted config {path} loosens {len(found)} key(s) (`breaker-tui config show` lists them)")
    elif found:  # made in code, not held back: applied, and named
        lines += [f"the config loosens the breaker: {x}" for x in found]
    if s.held_back:
        lines += [f"the config loosens the breaker, NOT APPLIED (the default holds): {x}" for x in s.held_back]
        lines.append(
            "a loosened value takes effect only once you accept this exact file:"
            f" `breaker-tui config accept{'' if path is None else f' --config {path}'}`"
        )
    return lines


def hold_back(s: Settings, store: Path | None = None) -> Settings:
    """The settings a session runs with: every loosened value keeps its default until the file is accepted.

    A tool that can write the config file must not decide for the person; the values it could have
    written are named (`held_back`, the start-up lines, the recording) and take no effect.
    """
    found = loosened(s)
    if not found or accepted(s, store):
        return s
    sections: dict[str, dict[str, Any]] = {}
    keys = dict(s.keys)
    for x in found:
        sec, _, rest = x.key.partition(".")
        if sec == "keys":
            keys.pop(rest, None)
            continue
        name, _, entry = rest.partition(".")
        _restore(sections.setdefault(sec, {}), SECTIONS[sec], s, name, entry)
    engine = s.engine.model_copy(
        update={sec: getattr(s.engine, sec).model_copy(update=sections[sec]) for sec in _ENGINE if sec in sections}
    )
    update: dict[str, Any] = {"engine": engine, "keys": keys, "held_back": tuple(str(x) for x in found)}
    for sec in ("acp", "wrapper"):
        if sec in sections:
            update[sec] = getattr(s, sec).model_copy(update=sections[sec])
    return s.model_copy(update=update)


_ENGINE = ("repeat", "thinking", "engine")


def _restore(changes: dict[str, Any], get: Callable[[Settings], BaseModel], s: Settings, name: str, entry: str) -> None:
    """Put the default back for one field, or for one entry of a table field (its other entries stay)."""
    default = getattr(get(Settings()), name)
    if not entry:
        changes[name] = default
        return
    table = dict(changes.get(name, getattr(get(s), name)))
    if entry in default:
        table[entry] = default[entry]
    else:
        table.pop(entry, None)
    changes[name] = table
