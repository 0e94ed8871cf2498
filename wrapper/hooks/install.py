"""Merging breaker's hook entries into each agent's own config, and taking exactly them out again.

The person's config stays theirs: install adds breaker's entries beside their own hooks, uninstall
removes only breaker's entries from the file as it is at that moment (Gemini rewrites its own
settings file), and when nothing else changed the file comes back byte for byte (install keeps the
bytes it found in a private note, used only while the file is still exactly what install wrote). A
file install created is removed. Writes are atomic: a temp file beside the config, then `os.replace`,
the mode kept. A config that cannot be parsed is left untouched, with an error naming it.

Codex's `config.toml` is edited as text, between two marker lines, and checked with `tomllib`: a
TOML round-trip library would re-emit the person's file and could change its bytes (quoting,
spacing, comments in odd places), and the promise here is that outside breaker's block not a byte moves.
"""

from __future__ import annotations

import base64
import contextlib
import difflib
import hashlib
import json
import os
import shlex
import stat
import sys
import tempfile
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wrapper.hooks import jsonc
from wrapper.hooks.agents import AFTER, AGENTS, BEFORE, check_agent
from wrapper.paths import state_dir

HOOK_TIMEOUT_S = 30  # the agent's own timeout for one hook run; the hook answers well before it
BEGIN = "# >>> breaker-tui hooks: written by `breaker-tui hooks install codex`; `hooks uninstall codex` removes it"
END = "# <<< breaker-tui hooks"

Trust = Callable[[Path, list[str]], dict[str, str]]
"""Codex's own hashes of the listed hook keys of a config (`codex app-server` computes them)."""


class InstallError(Exception):
    """A config breaker cannot edit safely: the message names the file and what to do."""


@dataclass(frozen=True)
class Plan:
    """What install or uninstall would do to one file: its bytes before and after (None: absent)."""

    path: Path
    before: bytes | None
    after: bytes | None
    note: str = ""
    ours_before: bool = False  # `before` already held breaker's entries (install: a reinstall)

    @property
    def changes(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff of the change (empty when nothing changes)."""
        a = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        b = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        src = str(self.path) if self.before is not None else "/dev/null"
        dst = str(self.path) if self.after is not None else "/dev/null"
        return "".join(difflib.unified_diff(a, b, src, dst))


# -- where each agent keeps its config ------------------------------------------------------------------
def config_path(agent: str, project: Path | None = None, env: dict[str, str] | None = None) -> Path:
    """The config file install edits: the user's (respecting the agent's own env) or the project's."""
    check_agent(agent)
    e = os.environ if env is None else env
    home = Path(e.get("HOME") or Path.home())
    if agent == "claude":
        user = Path(e["CLAUDE_CONFIG_DIR"]) if e.get("CLAUDE_CONFIG_DIR") else home / ".claude"
        return (project / ".claude" if project else user) / "settings.json"
    if agent == "codex":
        user = Path(e["CODEX_HOME"]) if e.get("CODEX_HOME") else home / ".codex"
        return (project / ".codex" if project else user) / "config.toml"
    return (project or home) / ".gemini" / "settings.json"


CLIENT_TAIL = ("wrapper", "hooks", "client.py")


def launcher() -> list[str]:
    """How the agent starts the hook: this Python, isolated and without `site`, running the client's file.

    `breaker-tui hook` would pay for breaker-tui's own command line and `site` on every call; `-I` keeps
    the agent's project folder and PYTHON* variables out of the hook's imports.
    """
    client = os.path.join(os.path.dirname(os.path.abspath(__file__)), "client.py")
    return [os.path.abspath(sys.executable), "-I", "-S", client]


def hook_command(agent: str, start: list[str], fail_closed: bool) -> str:
    """The command line the agent runs for every tool call (`--fail-closed` is recorded in it)."""
    return shlex.join([*start, agent, *(["--fail-closed"] if fail_closed else [])])


def hook_words(command: Any) -> tuple[list[str], list[str]] | None:
    """A breaker hook command split into how it starts and its own words (AGENT [--fail-closed]); None if not one.

    Both forms count, whatever their paths: the installed `PYTHON [-FLAGS] …/wrapper/hooks/client.py`
    (or `-m wrapper.hooks.client`) and the older `…/breaker-tui hook`, so a reinstall replaces either.
    """
    if not isinstance(command, str):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if len(words) >= 2 and os.path.basename(words[0]) == "breaker-tui" and words[1] == "hook":
        return words[:2], words[2:]
    for i, w in enumerate(words[1:], 1):
        if tuple(w.replace(os.sep, "/").split("/")[-3:]) == CLIENT_TAIL:
            return words[: i + 1], words[i + 1 :]
        if w == "-m":
            ok = words[i + 1 : i + 2] == ["wrapper.hooks.client"]
            return (words[: i + 2], words[i + 2 :]) if ok else None
        if not w.startswith("-"):
            return None
    return None


def is_ours(command: Any, agent: str) -> bool:
    """Whether a hook command is breaker's hook for `agent` (either form, whatever its paths)."""
    split = hook_words(command)
    return split is not None and split[1][:1] == [agent] and set(split[1][1:]) <= {"--fail-closed"}


# -- JSON settings (Claude, Gemini) ---------------------------------------------------------------------
def _events(agent: str) -> tuple[str, ...]:
    return BEFORE[agent] + AFTER[agent]


def _json_entry(agent: str, command: str, fail_closed: bool) -> dict[str, Any]:
    if agent == "gemini":  # Gemini's timeout is in milliseconds; its entries have names
        return {"name": "breaker-tui", "type": "command", "command": command, "timeout": HOOK_TIMEOUT_S * 1000}
    h: dict[str, Any] = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}
    if fail_closed:
        h["onFailure"] = "block"  # a hook that errors or times out refuses the call instead of letting it run
    return h


def _load_json(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        doc = jsonc.loads(raw.decode("utf-8")) if raw.strip() else {}  # Gemini reads comments: so does breaker
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise InstallError(f"{path} is not valid JSON ({e}): fix it first; breaker left it untouched") from None
    if not isinstance(doc, dict):
        raise InstallError(f"{path} holds a JSON {type(doc).__name__}, not an object: breaker left it untouched")
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
        raise InstallError(
            f"{path}: `hooks` must be an object of lists (one per event): fix it first; breaker left it untouched"
        )
    return doc


def _ours_group(group: Any, agent: str) -> bool:
    if not isinstance(group, dict):
        return False
    hs = group.get("hooks")
    return isinstance(hs, list) and len(hs) == 1 and isinstance(hs[0], dict) and is_ours(hs[0].get("command"), agent)


def strip_json(doc: dict[str, Any], agent: str, existed: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The document without breaker's hook groups; an event list only they filled goes too (unless it `existed`)."""
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return doc
    kept_hooks: dict[str, Any] = {}
    for ev, groups in hooks.items():
        kept = [g for g in groups if not _ours_group(g, agent)] if ev in _events(agent) else groups
        if kept or len(kept) == len(groups) or ev in existed:
            kept_hooks[ev] = kept
    return {**doc, "hooks": kept_hooks}


def _merge_json(doc: dict[str, Any], agent: str, command: str, fail_closed: bool) -> dict[str, Any]:
    out = strip_json(doc, agent)
    hooks = dict(out["hooks"]) if "hooks" in out else {}
    matcher = "*" if agent == "claude" else ".*"
    for ev in _events(agent):
        group = {"matcher": matcher, "hooks": [_json_entry(agent, command, fail_closed)]}
        hooks[ev] = [*hooks.get(ev, []), group]  # after the person's own: theirs run as before
    return {**out, "hooks": hooks}


def _write_json(path: Path, agent: str, before: bytes | None, doc: dict[str, Any]) -> bytes:
    """`doc` as the file's new bytes: the file's own text edited where breaker's entries go (its comments and
    layout kept), else written afresh; a file with comments that cannot be edited so is refused.
    """
    text = (before or b"").decode("utf-8")
    if not text.strip():
        return _dump_json(doc)
    done = jsonc.splice(text, doc, lambda group: _ours_group(group, agent))
    if done is not None:
        return done.encode("utf-8")
    if jsonc.blank_comments(text) != text:
        raise InstallError(
            f"{path}: breaker cannot change its hooks without losing the file's comments: move breaker's "
            "entries by hand, or take the comments out; the file is untouched"
        )
    return _dump_json(doc)


def _dump_json(doc: dict[str, Any]) -> bytes:
    return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# -- TOML (Codex) -----------------------------------------------------------------------------------------
def _load_toml(path: Path, raw: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise InstallError(f"{path} is not valid TOML ({e}): fix it first; breaker left it untouched") from None


def _toml_str(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a JSON string is a TOML basic string (same escapes)


def strip_toml(text: str, path: Path | None = None) -> str:
    """The text without breaker's block (the block owns the newline before its first marker).

    What others wrote between the markers stays, after the text before the block: Codex edits its config
    with toml_edit, which puts a new table (`[tui]`, `[projects."…"]`, a trust it gave) before the file's
    closing comment, and that comment is breaker's end marker. A trust entry is breaker's when it is for
    one of this file's (at `path`) hooks.
    """
    return _strip_block(text, BEGIN, END, path)


def _strip_block(text: str, begin: str, end_line: str, path: Path | None) -> str:
    start = text.find("\n" + begin + "\n")
    end = text.find("\n" + end_line + "\n", start) if start >= 0 else -1
    if end < 0:
        return text
    theirs = _not_ours(text[start + len(begin) + 2 : end + 1], path)
    base = text[:start]
    if theirs and base and not base.endswith("\n"):
        base += "\n"  # the block's newline ended the person's last line: theirs starts on a line of its own
    return base + theirs + text[end + len(end_line) + 2 :]


def trust_markers(project_config: Path) -> tuple[str, str]:
    """The lines around the trust of one project's breaker hooks in the person's own Codex config."""
    name = _toml_str(os.path.abspath(project_config))
    return (
        f"# >>> breaker-tui hooks trust for {name}: Codex takes a project's hook trust only from here",
        f"# <<< breaker-tui hooks trust for {name}",
    )


def trust_plan(user: Path, project_config: Path, trusted: dict[str, str] | None) -> Plan:
    """The person's own Codex config (`user`) holding the trust of the project's breaker hooks (None: without it).

    Codex ignores trust entries in a project's `.codex/config.toml` (a project could trust its own hooks):
    they go into the person's config, between two markers naming the project's file.
    """
    before = _read(user)
    begin, end = trust_markers(project_config)
    text = _strip_block(_decode(user, before or b""), begin, end, project_config)
    if trusted:
        lines = ["", begin]
        for key, digest in trusted.items():
            lines += [f"[hooks.state.{_toml_str(key)}]", f"trusted_hash = {_toml_str(digest)}"]
        text += "\n".join([*lines, end]) + "\n"
        _load_toml(user, text.encode("utf-8"))
    if before is None and not trusted:
        return Plan(user, None, None)
    return Plan(user, before, text.encode("utf-8"))


def project_trusted(user: Path, project_config: Path) -> bool:
    """Whether the person's Codex config holds breaker's trust entries for both hooks of the project's config."""
    raw = _read(user)
    begin, end = trust_markers(project_config)
    text = (raw or b"").decode("utf-8", "replace")
    start = text.find("\n" + begin + "\n")
    return start >= 0 and text.count("trusted_hash", start, text.find("\n" + end, start)) >= 2


_OURS_TABLES = frozenset(
    f"[[hooks.{ev}{sub}]]" for ev in ("PreToolUse", "PostToolUse") for sub in ("", ".hooks")
)  # the tables `toml_block` writes, besides its trust entries


def _ours_header(line: str, path: Path | None) -> bool:
    """Whether a table header is one `toml_block` writes (its hooks, or the trust of one of them)."""
    if line in _OURS_TABLES:
        return True
    key = line.removeprefix("[hooks.state.").removesuffix("]")
    if key == line or not key.startswith('"'):
        return False
    try:
        name = json.loads(key)
    except ValueError:
        return False
    if not isinstance(name, str) or name.rsplit(":", 3)[1:2] not in (["pre_tool_use"], ["post_tool_use"]):
        return False
    return path is None or name.rsplit(":", 3)[0] == os.path.abspath(path)


def _not_ours(body: str, path: Path | None) -> str:
    """The lines between the markers that belong to tables breaker did not write (with their comments)."""
    kept: list[str] = []
    waiting: list[str] = []  # blank and comment lines: they go with the table that follows them
    ours = True  # the block starts with breaker's own tables
    for line in body.splitlines(keepends=True):
        bare = line.strip()
        if not bare or bare.startswith("#"):
            waiting.append(line)
            continue
        if bare.startswith("["):
            ours = _ours_header(bare.split("#", 1)[0].strip(), path)
        if not ours:
            kept += waiting
            kept.append(line)
        waiting = []
    if not ours:
        kept += waiting
    return "".join(kept)


def trust_keys(path: Path, doc: dict[str, Any]) -> list[str]:
    """Codex's trust keys of breaker's two hooks: its groups come after the person's own."""
    hooks = doc.get("hooks")
    keys = []
    for ev, snake in (("PreToolUse", "pre_tool_use"), ("PostToolUse", "post_tool_use")):
        groups = hooks.get(ev) if isinstance(hooks, dict) else None
        keys.append(f"{path}:{snake}:{len(groups) if isinstance(groups, list) else 0}:0")
    return keys


def codex_keys(path: Path) -> list[str]:
    """The trust keys of breaker's hooks in the Codex config at `path` as it is now."""
    raw = _read(path) or b""
    base = strip_toml(_decode(path, raw), path)
    return trust_keys(Path(os.path.abspath(path)), _load_toml(path, base.encode("utf-8")))


def toml_block(command: str, trusted: dict[str, str]) -> str:
    """Breaker's tables for Codex between the two markers, led by a newline (ends the person's last line)."""
    lines = ["", BEGIN]
    for ev in ("PreToolUse", "PostToolUse"):
        lines += [f"[[hooks.{ev}]]", 'matcher = ".*"', f"[[hooks.{ev}.hooks]]", 'type = "command"']
        lines += [f"command = {_toml_str(command)}", f"timeout = {HOOK_TIMEOUT_S}"]
    for key, digest in trusted.items():
        lines += [f"[hooks.state.{_toml_str(key)}]", f"trusted_hash = {_toml_str(digest)}"]
    lines.append(END)
    return "\n".join(lines) + "\n"


def _kept_trust(text: str, command: str) -> dict[str, str]:
    """The trust entries of breaker's current block, while its command is unchanged (Codex's hash holds)."""
    start = text.find("\n" + BEGIN + "\n")
    end = text.find("\n" + END + "\n", start) if start >= 0 else -1
    if end < 0:
        return {}
    try:
        block = tomllib.loads(text[start:end])
        same = block["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == command
        state = block["hooks"].get("state", {}) if same else {}
        return {str(k): str(v["trusted_hash"]) for k, v in state.items()}
    except (tomllib.TOMLDecodeError, KeyError, IndexError, TypeError, AttributeError):
        return {}


def _merge_toml(path: Path, raw: bytes, command: str, trusted: dict[str, str] | None) -> bytes:
    text = _decode(path, raw)
    base = strip_toml(text, path)
    doc = _load_toml(path, base.encode("utf-8"))
    if trusted is None:  # a re-install keeps Codex's trust while the hook is the same (same keys, same command)
        keys = set(trust_keys(Path(os.path.abspath(path)), doc))
        trusted = {k: v for k, v in _kept_trust(text, command).items() if k in keys}
    text = base + toml_block(command, trusted)
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InstallError(
            f"{path}: breaker's [[hooks.PreToolUse]] tables cannot be added to this file ({e}): it may define "
            "`hooks` inline; move its hooks into [[hooks.PreToolUse]] tables and install again. The file is untouched"
        ) from None
    return text.encode("utf-8")


def _decode(path: Path, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InstallError(f"{path} is not UTF-8 text ({e}): breaker left it untouched") from None


# -- plans ------------------------------------------------------------------------------------------------
def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise InstallError(f"cannot read {path}: {e.strerror or e}") from None


def install_plan(
    agent: str, path: Path, start: list[str], fail_closed: bool = False, trusted: dict[str, str] | None = None
) -> Plan:
    """What `hooks install AGENT` writes into `path`, the hook started by `start` (the file is not touched)."""
    check_agent(agent)
    before = _read(path)
    command = hook_command(agent, start, fail_closed)
    if agent == "codex":
        ours = before is not None and "\n" + BEGIN + "\n" in _decode(path, before)
        return Plan(path, before, _merge_toml(path, before or b"", command, trusted), ours_before=ours)
    doc = _load_json(path, before or b"")
    after = _write_json(path, agent, before, _merge_json(doc, agent, command, fail_closed))
    if before is not None and doc == _load_json(path, after):  # (`doc` is `before` read)
        after = before  # already installed as asked: not a byte changes
    return Plan(path, before, after, ours_before=strip_json(doc, agent) != doc)


def uninstall_plan(agent: str, path: Path) -> Plan:
    """What `hooks uninstall AGENT` leaves at `path`: the file as it is now, without breaker's entries."""
    check_agent(agent)
    before = _read(path)
    if before is None:
        return Plan(path, None, None, "nothing to remove: the file does not exist")
    note = _Note.load(path)
    if note is not None and note.installed == _sha(before):
        return Plan(path, before, note.original, "restored byte for byte")
    if agent == "codex":
        after_text = strip_toml(_decode(path, before), path)
        after: bytes | None = after_text.encode("utf-8")
        if note is not None and note.original is None and not after_text.strip():
            after = None
        return Plan(path, before, after)
    doc = _load_json(path, before)
    first = _first_json(path, note)  # what install found, to tell the person's empty lists from ours
    existed = frozenset(first.get("hooks", {})) if first is not None else frozenset()
    stripped = strip_json(doc, agent, existed)
    if stripped == doc:
        return Plan(path, before, before, "no breaker entries found")
    if (first is None or "hooks" not in first) and not stripped.get("hooks"):
        stripped.pop("hooks", None)
    if note is not None and note.original is None and not stripped:
        return Plan(path, before, None)
    return Plan(path, before, _write_json(path, agent, before, stripped))


def _first_json(path: Path, note: _Note | None) -> dict[str, Any] | None:
    if note is None or note.original is None:
        return {} if note is not None else None
    try:
        return _load_json(path, note.original)
    except InstallError:
        return None


def installed(agent: str, path: Path) -> bool:
    """Whether breaker's entries are in the agent's config (an unreadable config counts as not)."""
    try:
        raw = _read(path)
        if raw is None:
            return False
        if agent == "codex":
            return "\n" + BEGIN + "\n" in _decode(path, raw)
        doc = _load_json(path, raw)
    except InstallError:
        return False
    return strip_json(doc, agent) != doc


def hook_commands(agent: str, path: Path) -> list[str]:
    """Breaker's hook command lines in the agent's config, each once, in file order (unreadable: none)."""
    try:
        raw = _read(path)
        if raw is None:
            return []
        doc = _load_toml(path, raw) if agent == "codex" else _load_json(path, raw)
    except InstallError:
        return []
    hooks = doc.get("hooks")
    found: list[str] = []
    for ev, groups in hooks.items() if isinstance(hooks, dict) else []:
        if ev not in _events(agent) or not isinstance(groups, list):
            continue
        for g in groups:
            for h in g.get("hooks", []) if isinstance(g, dict) and isinstance(g.get("hooks"), list) else []:
                c = h.get("command") if isinstance(h, dict) else None
                if isinstance(c, str) and is_ours(c, agent) and c not in found:
                    found.append(c)
    return found


def codex_trusted(path: Path) -> bool:
    """Whether breaker's Codex block carries trust entries for both of its hooks."""
    raw = _read(path)
    if raw is None:
        return False
    text = raw.decode("utf-8", "replace")
    start = text.find("\n" + BEGIN + "\n")
    return start >= 0 and text.count("trusted_hash", start) >= 2


# -- writing ----------------------------------------------------------------------------------------------
def apply(plan: Plan, installing: bool, note: bool = True) -> None:
    """Make the plan true on disk, atomically; a file install created and uninstall emptied is removed.

    `note`: keep the person's bytes for a byte-for-byte uninstall (not for a project's trust in the person's
    Codex config: that file's note belongs to breaker's own block there).
    """
    if not plan.changes:
        return
    target = plan.path.resolve() if plan.path.is_symlink() else plan.path  # a dotfile link stays a link
    made = str(target.parent) if installing and not target.parent.exists() else ""
    if plan.after is None:
        with contextlib.suppress(FileNotFoundError):
            target.unlink()
        was = _Note.load(plan.path) if note else None
        if was is not None and was.made == str(target.parent):
            with contextlib.suppress(OSError):  # not empty: the person's, or another tool's, things are in it
                target.parent.rmdir()
    else:
        atomic_write(target, plan.after)
    if note:
        _Note.record(plan, installing, made)


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temp file in the same folder and `os.replace`, keeping its mode."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = 0o600
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".breaker-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class _Note:
    """What install found at a path (None: no file) and the digest of what it wrote, kept in the state dir."""

    original: bytes | None
    installed: str
    made: str = ""  # the folder install created for the file ("": it was there), removed with it if left empty

    @staticmethod
    def where(path: Path) -> Path:
        return state_dir() / "hooks" / "installed" / (_sha(str(path.absolute()).encode())[:24] + ".json")

    @classmethod
    def load(cls, path: Path) -> _Note | None:
        try:
            d = json.loads(cls.where(path).read_text())
            orig = d["original"]
            return cls(None if orig is None else base64.b64decode(orig), str(d["installed"]), str(d.get("made", "")))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    @classmethod
    def record(cls, plan: Plan, installing: bool, made: str = "") -> None:
        """After install keep the person's bytes (the first install's, while its output is untouched).

        After uninstall forget them, and after a reinstall over a file changed since (by the person or the
        agent): its bytes hold breaker's older entries, so no bytes are kept and uninstall takes them out.
        """
        where = cls.where(plan.path)
        old = cls.load(plan.path)
        if old is not None and plan.before is not None and old.installed == _sha(plan.before):
            original, made = old.original, old.made  # a second install: the person's file is still the first one's
        elif plan.ours_before:
            installing = False
        else:
            original = plan.before
        if plan.after is None or not installing:
            with contextlib.suppress(OSError):
                where.unlink()
            return
        kept = None if original is None else base64.b64encode(original).decode()
        body = {"original": kept, "installed": _sha(plan.after), "made": made}
        where.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write(where, json.dumps(body).encode())


__all__ = ["AGENTS", "InstallError", "Plan", "Trust", "apply", "config_path", "install_plan", "uninstall_plan"]
