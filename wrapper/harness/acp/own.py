"""What the person's own agent settings say about a permission: breaker-tui answers for them with it.

breaker-tui makes every agent it knows ask before commands and edits (so it can refuse a repeat
before it runs), which is more than the person's own settings may ask. So it reads those settings
once at launch, and answers each ask the engine has no objection to the way the person's own agent
would have decided it: "allow" runs without a question, "deny" is refused, and only "ask" reaches the
person (or the `--approvals` policy). Answers made so are recorded as `policy (your … settings)`.

- opencode: `permission` (a string for all tools, or per tool `bash` / `edit` / `webfetch`, a string or
  `{pattern: action}` with the last matching pattern winning), from `OPENCODE_CONFIG_CONTENT`,
  `$OPENCODE_CONFIG`, `~/.config/opencode/opencode.json[c]` and the project's `opencode.json[c]`;
  opencode's own default is to allow.
- Claude Code: `permissions.defaultMode` and the `allow` / `ask` / `deny` rules of
  `$CLAUDE_CONFIG_DIR/settings.json` (or `~/.claude/`) and the project's `.claude/settings[.local].json`;
  `bypassPermissions` (and the adapter's default, which does not ask) allow, `acceptEdits` allows
  edits, `default` / `plan` ask.
- Codex: `approval_policy` from `-c approval_policy=…` on the command line or `$CODEX_HOME/config.toml`:
  `never`, `on-request` and `on-failure` allow (its sandbox still applies), `untrusted` asks.
- Gemini CLI: the approval mode, as Gemini picks it: `--approval-mode X` or `--yolo` / `-y` on the command line,
  else `general.defaultApprovalMode` (system settings, then the project's `.gemini/settings.json`, then
  `~/.gemini/settings.json`, then the system defaults; `yolo` there is ignored, as Gemini ignores it):
  `yolo` allows, `auto_edit` allows edits, `default` asks, `plan` (read-only) refuses edits and asks the rest.
- Qwen Code: the approval mode, as Qwen picks it: `--approval-mode X`, `--yolo`, else `tools.approvalMode`
  (system settings, the project's `.qwen/settings.json`, `$QWEN_HOME` or `~/.qwen/settings.json`, the
  system defaults), else `auto`, whose model classifier breaker-tui cannot repeat (so the person is asked).
- Kilo: opencode's `permission` table (a rule list where the last match wins), read after Kilo's own
  defaults, which ask before a shell command that is not on its read-only list; from
  `~/.config/kilo/{config,kilo,opencode}.json[c]`, `$KILO_CONFIG`, `~/.kilo[code]/`, the project's
  `kilo.json[c]` / `opencode.json[c]` and `.kilo[code]/`, `KILO_CONFIG_CONTENT`, then `/etc/kilo/`.

Each agent's `Preset.own` names its reader here (an `OwnReader`); an agent without one sends every ask to
the person. A reader returns an `OwnSettings` whose `decide` reads its agent's own kind of setting.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Own = Literal["allow", "ask", "deny"]
_ACTIONS = ("allow", "ask", "deny")


@dataclass(frozen=True)
class OwnSettings:
    """The person's own decision per kind of call, and where it was read."""

    agent: str
    default: Own | None = None  # None: not known, ask the person
    per_tool: dict[str, Any] = field(default_factory=dict)  # opencode's `permission` table
    rules: dict[str, tuple[str, ...]] = field(default_factory=dict)  # Claude's allow / ask / deny rules
    source: str = ""

    def decide(self, kind: str, name: str, command: str) -> Own | None:
        """What the person's settings say about one call (`kind` is ACP's: execute, edit, fetch, ...)."""
        return self.default


class _ModeSettings(OwnSettings):
    """Gemini CLI's and Qwen Code's approval mode: `auto_edit` allows edits, `plan` refuses them."""

    def decide(self, kind: str, name: str, command: str) -> Own | None:
        mode = self.per_tool.get("mode")
        edit = kind in ("edit", "delete", "move")
        if mode == "auto_edit" and edit:
            return "allow"
        if mode == "plan" and edit:
            return "deny"  # read-only: the agent itself would not have written
        return self.default


# an ACP tool kind -> the `permission` key opencode (and Kilo, its fork) files it under
_OPENCODE_TOOLS = {"execute": "bash", "edit": "edit", "delete": "edit", "move": "edit", "fetch": "webfetch"}


class _OpencodeSettings(OwnSettings):
    """opencode's `permission`: per tool, a string or patterns (the last matching one wins)."""

    def decide(self, kind: str, name: str, command: str) -> Own | None:
        tool = _OPENCODE_TOOLS.get(kind)
        v = self.per_tool.get(tool) if tool else None
        if isinstance(v, str) and v in _ACTIONS:
            return v  # type: ignore[return-value]
        if isinstance(v, dict):
            found: Own | None = None
            for pattern, action in v.items():  # the last matching pattern wins, as in opencode
                if action in _ACTIONS and fnmatch.fnmatchcase(command, str(pattern)):
                    found = action
            return found if found is not None else self.default
        return self.default


class _ClaudeSettings(OwnSettings):
    """Claude Code's rules (deny, then ask, then allow), then its permission mode."""

    def decide(self, kind: str, name: str, command: str) -> Own | None:
        tool = name or {"execute": "Bash", "edit": "Edit", "read": "Read", "fetch": "WebFetch"}.get(kind, "")
        for action in ("deny", "ask", "allow"):  # Claude Code: deny rules first, then ask, then allow
            for rule in self.rules.get(action, ()):
                if _claude_rule(rule, tool, command):
                    return action
        if self.default == "allow":
            return "allow"
        if self.per_tool.get("mode") == "acceptEdits" and kind in ("edit", "delete", "move"):
            return "allow"
        return self.default


def _claude_rule(rule: str, tool: str, command: str) -> bool:
    m = re.fullmatch(r"\s*([A-Za-z_]+)\s*(?:\((.*)\))?\s*", rule)
    if m is None or m.group(1) != tool:
        return False
    spec = m.group(2)
    if spec is None or spec in ("", "*"):
        return True
    if spec.endswith(":*"):
        return command.startswith(spec[:-2])
    return fnmatch.fnmatchcase(command, spec)


def _jsonc(path: Path) -> dict[str, Any]:
    """A JSON(C) settings file as a dict ({} when missing or unreadable: the person is then asked)."""
    try:
        text = path.read_text()
    except OSError:
        return {}
    try:
        v = json.loads(text)
    except ValueError:
        stripped = re.sub(r"(?m)^\s*//[^\n]*$|/\*.*?\*/", "", text, flags=re.S)
        stripped = re.sub(r",(\s*[}\]])", r"\1", stripped)
        try:
            v = json.loads(stripped)
        except ValueError:
            return {}
    return v if isinstance(v, dict) else {}


def _inline_config(env: dict[str, str], name: str) -> dict[str, Any]:
    """A config given inline in an environment variable (`OPENCODE_CONFIG_CONTENT`): {} when unset or not an object."""
    try:
        v = json.loads(env.get(name) or "{}")
    except ValueError:
        return {}
    return v if isinstance(v, dict) else {}


def _home(env: dict[str, str]) -> Path:
    return Path(env.get("HOME") or os.path.expanduser("~"))


def opencode_settings(env: dict[str, str], cwd: str) -> OwnSettings:
    """opencode's `permission`, merged the way opencode merges its config layers (later wins)."""
    xdg = Path(env.get("XDG_CONFIG_HOME") or _home(env) / ".config")
    layers: list[tuple[str, dict[str, Any]]] = []
    for p in (xdg / "opencode" / "opencode.json", xdg / "opencode" / "opencode.jsonc"):
        layers.append((str(p), _jsonc(p)))
    if env.get("OPENCODE_CONFIG"):
        layers.append((env["OPENCODE_CONFIG"], _jsonc(Path(env["OPENCODE_CONFIG"]))))
    for p in (Path(cwd) / "opencode.json", Path(cwd) / "opencode.jsonc"):
        layers.append((str(p), _jsonc(p)))
    layers.append(("OPENCODE_CONFIG_CONTENT", _inline_config(env, "OPENCODE_CONFIG_CONTENT")))
    default: Own | None = "allow"  # opencode's own default: tools run without asking
    per_tool: dict[str, Any] = {}
    source = "opencode's default (allow)"
    for where, cfg in layers:
        perm = cfg.get("permission")
        if isinstance(perm, str) and perm in _ACTIONS:
            default, per_tool, source = perm, {}, f"{where}: permission"  # type: ignore[assignment]
        elif isinstance(perm, dict):
            per_tool = {**per_tool, **perm}
            star = perm.get("*")
            if isinstance(star, str) and star in _ACTIONS:
                default = star  # type: ignore[assignment]
            source = f"{where}: permission"
    return _OpencodeSettings("opencode", default, per_tool, {}, source)


def claude_settings(env: dict[str, str], cwd: str) -> OwnSettings:
    """Claude Code's permission mode and rules (user, then project, then local; later modes win)."""
    cdir = Path(env.get("CLAUDE_CONFIG_DIR") or _home(env) / ".claude")
    files = [cdir / "settings.json", Path(cwd) / ".claude" / "settings.json"]
    files.append(Path(cwd) / ".claude" / "settings.local.json")
    mode = ""
    rules: dict[str, list[str]] = {"allow": [], "ask": [], "deny": []}
    source = "the adapter's default mode (it does not ask)"
    for f in files:
        perms = _jsonc(f).get("permissions")
        if not isinstance(perms, dict):
            continue
        source = f"{f}: permissions"
        if isinstance(perms.get("defaultMode"), str):
            mode = perms["defaultMode"]
        for action in rules:
            got = perms.get(action)
            if isinstance(got, list):
                rules[action].extend(str(r) for r in got if isinstance(r, str))
    default: Own | None = "ask"
    if mode in ("", "bypassPermissions", "auto", "dontAsk"):
        default = "allow"
    return _ClaudeSettings(
        "claude", default, {"mode": mode}, {k: tuple(v) for k, v in rules.items()}, source + f" (mode {mode or 'auto'})"
    )


def codex_settings(env: dict[str, str], argv: list[str]) -> OwnSettings:
    """Codex's approval policy: the person's `-c approval_policy=…`, else `$CODEX_HOME/config.toml`."""
    policy, source = "", ""
    for i, a in enumerate(argv[:-1]):
        if a == "-c" and argv[i + 1].startswith("approval_policy="):
            policy, source = argv[i + 1].split("=", 1)[1].strip("\"'"), "your -c approval_policy"
    if not policy:
        home = Path(env.get("CODEX_HOME") or _home(env) / ".codex")
        try:
            cfg = tomllib.loads((home / "config.toml").read_text())
        except (OSError, tomllib.TOMLDecodeError):
            cfg = {}
        v = cfg.get("approval_policy")
        policy, source = (v, f"{home / 'config.toml'}: approval_policy") if isinstance(v, str) else ("", "")
    if not policy:
        policy, source = "on-request", "Codex's default approval policy (on-request)"
    default: Own = "ask" if policy == "untrusted" else "allow"
    return OwnSettings("codex", default, {}, {}, f"{source} = {policy}")


def gemini_settings(env: dict[str, str], cwd: str, argv: list[str]) -> OwnSettings:
    """Gemini CLI's approval mode, from its command line, else its settings layers (the highest that sets it)."""
    mode, source = "", ""
    for i, a in enumerate(argv):
        if a in ("--yolo", "-y"):
            mode, source = "yolo", f"your {a}"
        elif a == "--approval-mode" and i + 1 < len(argv):
            mode, source = argv[i + 1], "your --approval-mode"
        elif a.startswith("--approval-mode="):
            mode, source = a.split("=", 1)[1], "your --approval-mode"
    if not mode:
        system = Path(env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json")
        defaults = Path(env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or system.parent / "system-defaults.json")
        user = _home(env) / ".gemini" / "settings.json"
        for f in (system, Path(cwd) / ".gemini" / "settings.json", user, defaults):
            general = _jsonc(f).get("general")
            v = general.get("defaultApprovalMode") if isinstance(general, dict) else None
            if isinstance(v, str) and v and v != "yolo":  # Gemini ignores yolo here: only the flag sets it
                mode, source = v, f"{f}: general.defaultApprovalMode"
                break
    if not mode:
        mode, source = "default", "Gemini's default approval mode"
    default: Own | None = "allow" if mode == "yolo" else "ask"
    if mode not in ("yolo", "auto_edit", "plan", "default"):
        default = None  # not a mode Gemini knows: the person decides
    return _ModeSettings("gemini", default, {"mode": mode}, {}, f"{source} = {mode}")


# Kilo's defaults for the code agent (`@kilocode/cli` 7.7.7), as its rules list holds them: opencode's base
# (everything allowed; its loop guard and paths outside the project ask), then Kilo's shell table (ask, but
# for read-only and file-handling commands). The person's `permission` comes after them and so wins.
_KILO_SAFE_SHELL = (
    *("cat", "head", "tail", "less", "ls", "tree", "pwd", "echo", "wc", "which", "type", "file", "diff", "du"),
    *("df", "date", "uname", "whoami", "printenv", "man", "grep", "rg", "ag", "sort", "uniq", "cut", "tr", "jq"),
    *("touch", "mkdir", "cp", "mv", "tsc", "tsgo", "tar", "unzip", "gzip", "gunzip"),
)
KILO_DEFAULTS: dict[str, Any] = {
    "*": "allow",
    "doom_loop": "ask",
    "external_directory": {"*": "ask"},
    "bash": {"*": "ask", **{f"{c} *": "allow" for c in _KILO_SAFE_SHELL}},
}
_KILO_FILES = ("config.json", "kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc")


def wildcard(text: str, pattern: str) -> bool:
    """opencode's and Kilo's `Wildcard.match`: `*` any run (newlines too), `?` one character, everything else
    literal, and a pattern ending in ` *` also matches the bare command (`ls *` matches `ls`).
    """
    tail = pattern.endswith(" *")
    body = pattern[:-2] if tail else pattern
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in body.replace("\\", "/"))
    return re.fullmatch(rx + ("( .*)?" if tail else ""), text.replace("\\", "/"), flags=re.S) is not None


def _deep_merge(low: dict[str, Any], high: dict[str, Any]) -> dict[str, Any]:
    """Kilo's config merge (later wins, tables merged key by key; a key keeps its first place)."""
    out = dict(low)
    for k, v in high.items():
        out[k] = _deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _rules(permission: Any) -> list[tuple[str, str, str]]:
    """A `permission` value as Kilo's rules list: (tool pattern, input pattern, action), in order."""
    if isinstance(permission, str):
        permission = {"*": permission}
    if not isinstance(permission, dict):
        return []
    out: list[tuple[str, str, str]] = []
    for tool, v in permission.items():
        if isinstance(v, str):
            out.append((str(tool), "*", v))
        elif isinstance(v, dict):  # a null removes an inherited entry
            out.extend((str(tool), str(p), a) for p, a in v.items() if isinstance(a, str))
    return [r for r in out if r[2] in _ACTIONS]


class _KiloSettings(OwnSettings):
    """Kilo's rules: the last one whose tool and input patterns both match decides (none: Kilo asks)."""

    def decide(self, kind: str, name: str, command: str) -> Own | None:
        tool = _OPENCODE_TOOLS.get(kind)
        if tool is None:
            return None  # its loop guard, a path outside the project, ...: Kilo's own default for those asks
        rules: list[tuple[str, str, str]] = self.per_tool.get("rules", [])
        found = next((a for t, p, a in reversed(rules) if wildcard(tool, t) and wildcard(command, p)), "ask")
        return found  # type: ignore[return-value]


def _kilo_layers(env: dict[str, str], cwd: str) -> list[Path]:
    """Kilo's config files, lowest first: global, `$KILO_CONFIG`, the home and project folders (unless
    `KILO_DISABLE_PROJECT_CONFIG`); `KILO_CONFIG_CONTENT` and the managed folder come after them.
    """
    home = _home(env)
    xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    files = [xdg / "kilo" / f for f in _KILO_FILES]
    if env.get("KILO_CONFIG"):
        files.append(Path(env["KILO_CONFIG"]))
    for d in (home / ".kilocode", home / ".kilo"):  # `.kilo` wins over the legacy `.kilocode`
        files += [d / f for f in _KILO_FILES[1:]]
    if not env.get("KILO_DISABLE_PROJECT_CONFIG"):
        ws = Path(cwd)
        files += [ws / f for f in ("opencode.json", "opencode.jsonc", "kilo.json", "kilo.jsonc")]
        for d in (ws / ".kilocode", ws / ".kilo"):
            files += [d / f for f in _KILO_FILES[1:]]
    return files


def kilo_settings(env: dict[str, str], cwd: str) -> OwnSettings:
    """Kilo's `permission`, merged the way Kilo merges its config layers, after its own defaults.

    Kilo is an opencode fork with the same `permission` table, but its defaults differ: a shell command asks
    unless it is on its read-only list, so with no settings a `curl` asks the person.
    """
    merged: dict[str, Any] = {}
    sources: list[str] = []

    def add(where: str, cfg: dict[str, Any]) -> None:
        nonlocal merged
        perm = cfg.get("permission")
        if isinstance(perm, str):
            perm = {"*": perm}
        if isinstance(perm, dict):
            merged = _deep_merge(merged, {"permission": perm})
            sources.append(where)

    for f in _kilo_layers(env, cwd):
        add(str(f), _jsonc(f))
    add("KILO_CONFIG_CONTENT", _inline_config(env, "KILO_CONFIG_CONTENT"))
    managed = Path(env.get("KILO_TEST_MANAGED_CONFIG_DIR") or "/etc/kilo")
    for name in _KILO_FILES[1:]:
        add(str(managed / name), _jsonc(managed / name))
    rules = _rules(KILO_DEFAULTS) + _rules(merged.get("permission"))
    source = (
        f"{', '.join(sources)}: permission" if sources else "Kilo's defaults (shell asks but for read-only commands)"
    )
    return _KiloSettings("kilo", None, {"rules": rules}, {}, source)


_QWEN_MODES = ("plan", "default", "auto-edit", "auto", "yolo")


def qwen_settings(env: dict[str, str], cwd: str, argv: list[str]) -> OwnSettings:
    """Qwen Code's approval mode, as Qwen picks it: `--approval-mode X`, `--yolo`, else `tools.approvalMode`
    (system settings, then the project's `.qwen/settings.json`, then `$QWEN_HOME` or `~/.qwen`, then the
    system defaults), else `auto`.

    `auto` has a model classifier approve or refuse each call, which breaker-tui cannot repeat, so under it
    every ask goes to the person; `yolo` allows, `auto-edit` allows edits, `default` asks, `plan` refuses edits.
    """
    mode, source = "", ""
    for i, a in enumerate(argv):
        if a == "--approval-mode" and i + 1 < len(argv):
            mode, source = argv[i + 1], "your --approval-mode"
        elif a.startswith("--approval-mode="):
            mode, source = a.split("=", 1)[1], "your --approval-mode"
        elif a in ("--yolo", "-y") and not mode:
            mode, source = "yolo", f"your {a}"
    if not mode:
        system = Path(env.get("QWEN_CODE_SYSTEM_SETTINGS_PATH") or "/etc/qwen-code/settings.json")
        defaults = Path(env.get("QWEN_CODE_SYSTEM_DEFAULTS_PATH") or system.parent / "system-defaults.json")
        user = Path(env["QWEN_HOME"]) if env.get("QWEN_HOME") else _home(env) / ".qwen"
        for f in (system, Path(cwd) / ".qwen" / "settings.json", user / "settings.json", defaults):
            tools = _jsonc(f).get("tools")
            v = tools.get("approvalMode") if isinstance(tools, dict) else None
            if isinstance(v, str) and v.strip():
                mode, source = v, f"{f}: tools.approvalMode"
                break
    mode = mode.strip().lower().replace("_", "-")
    mode = "auto-edit" if mode == "autoedit" else mode
    if not mode:
        mode, source = "auto", "Qwen's default approval mode"
    modes: dict[str, Own] = {"yolo": "allow", "default": "ask", "auto-edit": "ask", "plan": "ask"}
    default = modes.get(mode)  # None: `auto`'s classifier, or a mode Qwen does not know; the person decides
    return _ModeSettings(
        "qwen", default, {"mode": {"auto-edit": "auto_edit"}.get(mode, mode)}, {}, f"{source} = {mode}"
    )


OwnReader = Callable[[dict[str, str], str, list[str]], OwnSettings]  # (agent's env, cwd, argv) -> its settings
