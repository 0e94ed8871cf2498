"""What an ACP agent sends for a person to read, parsed from its frames: output, diffs, plans, commands, choices.

Each agent puts a call's output somewhere else (opencode: `content` text and `rawOutput.output`;
Claude Code: a ```` ```console ```` fence in `content` and a `rawOutput` string; Codex: only a
`rawOutput` object with `formatted_output` and `exit_code`; Gemini: often nothing), and an edit as
`{"type":"diff"}` content in the update or only in the permission request. These functions turn all
of them into plain values the monitor hands on as items; nothing here does I/O or trusts a type.
The text stays as the agent sent it: the TUI passes it through `inert()` before showing it.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable
from typing import Any

from wrapper.items import Choice, ChoiceOption, FileDiff, PlanEntry, SlashCommand

OUTPUT_MAX_CHARS = 1_000_000  # a call's output kept (its end: where the failure usually is)
DIFF_MAX_LINES = 4000  # per side; a larger file is summarised, not diffed (difflib is quadratic)
MAX_ENTRIES = 200  # plan entries, commands, options: more is a flood, not a list a person reads
_FENCE = re.compile(r"\A```[A-Za-z0-9_-]*\n(.*?)\n?```\Z", re.S)


def _obj(d: Any, key: str) -> dict[str, Any]:
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, dict) else {}


def _str(v: Any, limit: int = 500) -> str:
    return v[:limit] if isinstance(v, str) else ""


# -- command output ------------------------------------------------------------------------------
def output_of(u: dict[str, Any]) -> tuple[str, int | None] | None:
    """(the whole output, the exit code if said) of one update, or None when it carries none.

    The richest place wins: a `rawOutput` object's `formatted_output` > `aggregated_output` > `output`
    > `stdout` + `stderr` (Codex, opencode), Claude Code's `_meta.claudeCode.toolResponse`, the
    `content` text (a console fence unwrapped), then a `rawOutput` string.
    """
    text = next((t for read in _OUTPUT_PLACES if (t := read(u)) is not None), None)
    if text is None:
        return None
    raw = u.get("rawOutput")
    return text[-OUTPUT_MAX_CHARS:], _exit_code(raw) if isinstance(raw, dict) else None


def _raw_field(u: dict[str, Any]) -> str | None:
    raw = _obj(u, "rawOutput")
    return next(
        (raw[k] for k in ("formatted_output", "aggregated_output", "output") if isinstance(raw.get(k), str)), None
    )


def _streams(d: dict[str, Any]) -> str | None:
    """`stdout` + `stderr` when either is there."""
    if not (isinstance(d.get("stdout"), str) or isinstance(d.get("stderr"), str)):
        return None
    return _str(d.get("stdout"), OUTPUT_MAX_CHARS * 2) + _str(d.get("stderr"), OUTPUT_MAX_CHARS * 2)


def _content_text(u: dict[str, Any]) -> str | None:
    content = u.get("content")
    parts = []
    for c in content if isinstance(content, list) else []:
        inner = _obj(c, "content")
        if isinstance(c, dict) and c.get("type") == "content" and isinstance(inner.get("text"), str):
            body = inner["text"]
            m = _FENCE.match(body.strip())
            parts.append(m.group(1) if m else body)
    return "\n".join(parts) if parts else None


def _exit_code(raw: dict[str, Any]) -> int | None:
    for ec in (raw.get("exit_code"), raw.get("exitCode"), _obj(raw, "metadata").get("exit")):
        if isinstance(ec, int) and not isinstance(ec, bool):
            return ec
    return None


# where each agent puts a call's output, richest first
_OUTPUT_PLACES: tuple[Callable[[dict[str, Any]], str | None], ...] = (
    _raw_field,
    lambda u: _streams(_obj(u, "rawOutput")),
    lambda u: _streams(_obj(_obj(_obj(u, "_meta"), "claudeCode"), "toolResponse")),
    _content_text,
    lambda u: u["rawOutput"] if isinstance(u.get("rawOutput"), str) else None,
)


# -- diffs ---------------------------------------------------------------------------------------
def make_diff(path: str, old: str | None, new: str) -> FileDiff:
    """A unified diff of one file (`old` None: a new file), with its +/- line counts."""
    a = old.splitlines() if old else []
    b = new.splitlines()
    if len(a) > DIFF_MAX_LINES or len(b) > DIFF_MAX_LINES:
        text = f"(too large to diff here: {len(a):,} → {len(b):,} lines)"
        return FileDiff(path, old is None, len(b), len(a), text)
    name = os.path.basename(path) or path
    lines = list(difflib.unified_diff(a, b, "/dev/null" if old is None else f"a/{name}", f"b/{name}", lineterm=""))
    added = sum(1 for ln in lines if ln.startswith("+") and not ln.startswith("+++"))
    removed = sum(1 for ln in lines if ln.startswith("-") and not ln.startswith("---"))
    return FileDiff(path, old is None, added, removed, "\n".join(lines))


def diff_contents(u: dict[str, Any]) -> list[tuple[str, str | None, str]]:
    """Every `{"type":"diff","path","oldText","newText"}` of a tool call, an update or a permission `toolCall`,
    as (its path, bounded; its old text, None for a new file; its new text).
    """
    out = []
    content = u.get("content")
    for c in content if isinstance(content, list) else []:
        if isinstance(c, dict) and c.get("type") == "diff" and isinstance(c.get("newText"), str):
            old = c.get("oldText")
            out.append((_str(c.get("path"), 1000) or "?", old if isinstance(old, str) else None, c["newText"]))
    return out


def diffs_of(u: dict[str, Any]) -> list[FileDiff]:
    """The diffs of `diff_contents`, as shown."""
    return [make_diff(path, old, new) for path, old, new in diff_contents(u)[:MAX_ENTRIES]]


# -- plan ----------------------------------------------------------------------------------------
def plan_of(u: dict[str, Any]) -> list[PlanEntry] | None:
    """The entries of a `plan` update (v1), or of `plan_update` (the v2 draft); None for any other update."""
    kind = u.get("sessionUpdate")
    if kind == "plan":
        raw = u.get("entries")
    elif kind == "plan_update":
        raw = _obj(u, "plan").get("entries")
    else:
        return None
    out = []
    for e in raw if isinstance(raw, list) else []:
        if isinstance(e, dict) and isinstance(e.get("content"), str):
            out.append(
                PlanEntry(e["content"][:500], _str(e.get("status"), 20) or "pending", _str(e.get("priority"), 20))
            )
    return out[:MAX_ENTRIES]


# -- slash commands ------------------------------------------------------------------------------
def commands_of(u: dict[str, Any]) -> list[SlashCommand]:
    """The commands of an `available_commands_update` (sent to the agent as the prompt text `/name args`)."""
    out = []
    raw = u.get("availableCommands")
    for c in raw if isinstance(raw, list) else []:
        if isinstance(c, dict) and isinstance(c.get("name"), str) and c["name"].strip():
            hint = _obj(c, "input").get("hint")
            out.append(SlashCommand(c["name"].strip()[:80], _str(c.get("description"), 300), _str(hint, 200)))
    return out[:MAX_ENTRIES]


# -- modes, models and other options -------------------------------------------------------------
def _options(raw: Any, key: str) -> tuple[ChoiceOption, ...]:
    out = []
    for v in raw if isinstance(raw, list) else []:
        if isinstance(v, dict) and isinstance(v.get(key), str):
            out.append(ChoiceOption(v[key][:200], _str(v.get("name"), 200) or v[key][:200], _str(v.get("description"))))
    return tuple(out[:MAX_ENTRIES])


def choices_of(result: Any) -> list[Choice]:
    """From a session/new|load answer or a `config_option_update`: `configOptions` first (the spec prefers
    them), then the older `modes` and `models` for what the options do not cover.
    """
    out: list[Choice] = []
    opts = result.get("configOptions") if isinstance(result, dict) else None
    for o in opts if isinstance(opts, list) else []:
        if isinstance(o, dict) and o.get("type", "select") == "select" and isinstance(o.get("id"), str):
            options = _options(o.get("options"), "value")
            if options:
                out.append(
                    Choice(
                        o["id"][:100],
                        _str(o.get("category"), 40) or "other",
                        _str(o.get("name"), 100) or o["id"],
                        _str(o.get("currentValue"), 200),
                        options,
                        "config",
                    )
                )
    have = {c.category for c in out}
    modes = _obj(result, "modes")
    if modes and "mode" not in have:
        options = _options(modes.get("availableModes"), "id")
        if options:
            out.append(Choice("mode", "mode", "Mode", _str(modes.get("currentModeId"), 200), options, "mode"))
    models = _obj(result, "models")
    if models and "model" not in have:
        options = _options(models.get("availableModels"), "modelId")
        if options:
            out.append(Choice("model", "model", "Model", _str(models.get("currentModelId"), 200), options, "model"))
    return out


def set_request(session_id: str, choice: Choice, value: str) -> tuple[str, dict[str, Any]]:
    """The request that switches `choice` to `value`: `set_config_option`, else `set_mode` / `set_model`."""
    if choice.via == "config":
        return "session/set_config_option", {"sessionId": session_id, "configId": choice.id, "value": value}
    if choice.via == "mode":
        return "session/set_mode", {"sessionId": session_id, "modeId": value}
    return "session/set_model", {"sessionId": session_id, "modelId": value}
