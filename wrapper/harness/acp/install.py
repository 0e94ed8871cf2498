"""`breaker-tui setup-agent NAME`: install a pinned ACP agent with the project's Node 24, beside dsh."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from wrapper.harness.acp.presets import PRESETS, Preset
from wrapper.process import manifest
from wrapper.toolchain import Check, ProvisionError, Say, child_env, node, npm_cli, run_tool


def package_json(p: Preset) -> str:
    """The one-dependency manifest that pins the agent's version."""
    return (
        json.dumps(
            {"name": f"breaker-agent-{p.name}", "private": True, "dependencies": {p.package: p.version}}, indent=2
        )
        + "\n"
    )


def version_of(p: Preset, timeout: float = 60) -> str | None:
    """The installed package's version, read from its manifest (None when missing)."""
    manifest = p.install_dir() / "node_modules" / p.package / "package.json"
    try:
        v = json.loads(manifest.read_text()).get("version")
    except (OSError, ValueError):
        return None
    return str(v) if v and p.launcher().exists() else None


def setup_agent(name: str, say: Say = print, force: bool = False) -> Preset:
    """Install the pinned agent into the data directory (idempotent)."""
    p = PRESETS.get(name)
    if p is None:
        raise ProvisionError(f"unknown agent {name!r}: choose one of {', '.join(PRESETS)} (`breaker-tui agents`)")
    say(f"[1/3] Node: {node()}")
    if not node().exists():
        raise ProvisionError("the Node 24 wheel is missing: reinstall breaker-tui (pip install breaker-tui)")
    d = p.install_dir()
    d.mkdir(parents=True, exist_ok=True)
    wanted = package_json(p)
    current = (d / "package.json").read_text() if (d / "package.json").exists() else ""
    if force or wanted != current or version_of(p) != p.version:
        say(f"[2/3] installing {p.package}@{p.version} into {d} (about {p.size_mb} MB) ...")
        (d / "package.json").write_text(wanted)
        t0 = time.monotonic()
        run_tool(
            [str(node()), str(npm_cli()), "install", "--no-audit", "--no-fund", "--omit=dev", "--loglevel=error"],
            d,
            1200,
            f"installing {p.package}",
        )
        say(f"      done in {time.monotonic() - t0:.0f} s")
    else:
        say(f"[2/3] {p.name} {p.version} already installed")
    got = version_of(p)
    if got != p.version:
        raise ProvisionError(f"{p.name} did not install (found {got!r}); try `breaker-tui setup-agent {name} --force`")
    if not p.node_script:  # a node script is checked by its manifest; binaries must also start
        argv = [str(p.launcher()), "--version"]
        try:
            subprocess.run(
                argv, env=child_env(), capture_output=True, timeout=60, start_new_session=True, stdin=subprocess.DEVNULL
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            raise ProvisionError(f"{p.name} is installed but does not start ({e}); try `--force`") from e
    if isinstance(manifest.load(d), str):  # what each launch (sizes, mtimes) and `doctor` (contents) check
        manifest.write(d)
    bad = manifest.full(d)
    if bad:
        raise ProvisionError(install_refusal(p, bad))
    say(f"[3/3] {p.name} {got} installed: {p.launcher()} (every file matches {d / manifest.NAME})")
    return p


def install_refusal(p: Preset, problems: list[str]) -> str:
    """Why the pinned copy of `p` is not launched: the files, and the command that reinstalls it."""
    return manifest.describe(problems, f"the pinned {p.name} install", f"breaker-tui setup-agent {p.name} --force")


def pinned_copy(p: Preset | None, argv: list[str]) -> bool:
    """Whether `argv` runs the copy `setup-agent` installed for `p` (its launcher, or node running it)."""
    if p is None:
        return False
    home = p.install_dir().resolve()
    return any(os.path.isabs(a) and Path(a).resolve().is_relative_to(home) for a in argv[:2])


def check_pinned(p: Preset) -> str:
    """Why the pinned copy may not run ("" when every file matches by size and mtime, or it has no manifest yet)."""
    d = p.install_dir()
    if not (d / manifest.NAME).exists():
        return ""  # installed before the manifest existed: `doctor` says so, `setup-agent` writes one
    bad = manifest.quick(d)
    return install_refusal(p, bad) if bad else ""


def agent_checks() -> list[Check]:
    """`doctor` lines: one per known agent (missing agents are optional, so they do not fail)."""
    from wrapper.harness.acp.resolve import resolve

    out = []
    for p in PRESETS.values():
        v = version_of(p)
        pinned = f"pinned copy {v}" if v else "no pinned copy"
        try:
            r = resolve([p.name], None, node())
            detail = f"runs {r.launcher}: {r.why}; {pinned}" if r is not None else pinned
        except FileNotFoundError:
            detail = f"not found (optional): not on PATH, {pinned}"
        out.append(Check(f"agent {p.name}", True, detail, f"`breaker-tui setup-agent {p.name}` installs a pinned copy"))
        if v:
            bad = manifest.full(p.install_dir())
            text = "every file matches the manifest setup-agent wrote" if not bad else install_refusal(p, bad)
            fix = f"run `breaker-tui setup-agent {p.name} --force` to reinstall"
            out.append(Check(f"agent {p.name} install", not bad, text, fix))
    return out
