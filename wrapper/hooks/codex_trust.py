"""Codex's trust for breaker's hooks, read from Codex itself: it skips an untrusted hook without a word.

The hash is Codex's own (of the hook's content), so it is asked, never computed: `codex app-server`
answers `hooks/list` with each hook's `key`, `currentHash` and `trustStatus`.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

from wrapper.hooks.install import InstallError

LIST_TIMEOUT_S = 30.0


def codex_hashes(path: Path, keys: list[str], codex: str | None = None, cwd: Path | None = None) -> dict[str, str]:
    """Codex's current hash of each of `keys`; InstallError says why they could not be read."""
    exe = codex or shutil.which("codex")
    if exe is None:
        raise InstallError(
            "codex is not on PATH, so breaker could not ask it to trust the hooks: Codex skips untrusted hooks "
            "without a word. Run `breaker-tui hooks install codex` again where `codex` runs"
        )
    hooks = _list_hooks(exe, cwd or Path.cwd())
    found = {str(h.get("key")): str(h.get("currentHash")) for h in hooks if h.get("currentHash")}
    missing = [k for k in keys if k not in found]
    if missing and cwd is not None:  # Codex reads a project's .codex/config.toml only in a folder it trusts
        raise InstallError(
            f"codex does not list breaker's hook {missing[0]!r}: Codex reads {path} only in a folder it trusts. "
            f"Trust {cwd} in Codex (start `codex` there and answer its question), then install again"
        )
    if missing:
        raise InstallError(f"codex does not list breaker's hook {missing[0]!r} from {path}; its hooks stay untrusted")
    return {k: found[k] for k in keys}


def codex_says(keys: list[str], cwd: Path | None = None) -> str | None:
    """What Codex itself reports for breaker's hooks ("trusted", "untrusted", "not listed"), or None without codex."""
    exe = shutil.which("codex")
    if exe is None:
        return None
    try:
        hooks = {str(h.get("key")): str(h.get("trustStatus")) for h in _list_hooks(exe, cwd or Path.cwd())}
    except InstallError:
        return None
    states = {hooks.get(k, "not listed") for k in keys}
    return states.pop() if len(states) == 1 else ", ".join(sorted(states))


def _list_hooks(exe: str, cwd: Path) -> list[dict[str, Any]]:
    try:
        p = subprocess.Popen(
            [exe, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
    except OSError as e:
        raise InstallError(f"cannot run {exe} app-server: {e.strerror or e}") from None
    timer = threading.Timer(LIST_TIMEOUT_S, p.kill)  # a codex that never answers must not hang install
    timer.start()
    try:
        assert p.stdin is not None and p.stdout is not None
        for msg in (
            {"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "breaker-tui", "version": "1"}}},
            {"method": "initialized"},
            {"id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
        ):
            p.stdin.write(json.dumps(msg) + "\n")
        p.stdin.flush()
        for line in p.stdout:
            with contextlib.suppress(ValueError):
                m = json.loads(line)
                if isinstance(m, dict) and m.get("id") == 2:
                    data = (m.get("result") or {}).get("data") or []
                    return [h for d in data for h in (d.get("hooks") or []) if isinstance(h, dict)]
        raise InstallError(f"{exe} app-server ended without listing its hooks")
    finally:
        timer.cancel()
        with contextlib.suppress(OSError):
            p.kill()
        p.wait()
