"""How a command line becomes a monitored dsh launch: launcher flags, profile, resume, the overlay."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from wrapper.harness.dsh.launch import (
    BridgeSettings,
    build_argv,
    is_dsh,
    launcher_end,
    overlay_arg,
    overlay_text,
    profile_of,
    sealed_overlay,
    wants_runner,
    with_resume,
)
from wrapper.paths import bridge_file


def test_dsh_is_recognised_by_name_or_configured_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BREAKER_TUI_DSH", raising=False)
    assert is_dsh(["dsh", "--profile", "dev"]) and is_dsh(["/usr/local/bin/dsh"])
    assert not is_dsh(["python", "agent.py"]) and not is_dsh([]) and not is_dsh(["dshx"])
    monkeypatch.setenv("BREAKER_TUI_DSH", "/opt/tools/launcher")
    assert is_dsh(["/opt/tools/launcher", "task"])


@pytest.mark.parametrize(
    ("argv", "end", "profile"),
    [
        (["dsh"], 1, None),
        (["dsh", "--profile", "dev", "task"], 3, "dev"),
        (["dsh", "--profile=headless", "--dump-config", "task"], 3, "headless"),
        (["dsh", "--patch", "a.yml", "--profile", "web", "--resume", "s1"], 5, "web"),
        (["dsh", "task", "--profile", "late"], 1, None),  # a flag after the app's arguments is the app's
        (["dsh", "--profile"], 2, None),  # a dangling flag: no profile, nothing past the end
    ],
)
def test_launcher_flags_end_where_the_app_arguments_begin(argv: list[str], end: int, profile: str | None) -> None:
    assert launcher_end(argv) == end
    assert profile_of(argv) == profile


def test_resume_replaces_an_earlier_resume_after_the_launcher_flags() -> None:
    argv = ["dsh", "--profile", "dev", "--resume", "old", "--verbose"]
    assert with_resume(argv, "new") == ["dsh", "--profile", "dev", "--verbose", "--resume", "new"]
    assert with_resume(["dsh"], "s") == ["dsh", "--resume", "s"]


def test_the_runner_drives_every_profile_without_its_own_app(tmp_path: Path) -> None:
    home = tmp_path / "dsh-home"
    assert wants_runner(["dsh", "--profile", "dev"], home)  # no package.json: ours to drive
    assert not wants_runner(["dsh", "--profile", "headless", "task"], home)
    assert not wants_runner(["dsh", "--profile=web"], home)
    one_shot = home / "profiles" / "ci" / "package.json"
    one_shot.parent.mkdir(parents=True)
    one_shot.write_text(json.dumps({"dsh": {"profile": {"bundles": ["@deepseek-ai/dsh-headless"]}}}))
    assert not wants_runner(["dsh", "--profile", "ci"], home)
    broken = home / "profiles" / "odd" / "package.json"
    broken.parent.mkdir(parents=True)
    broken.write_text("{not json")
    assert wants_runner(["dsh", "--profile", "odd"], home)  # an unreadable profile is not a one-shot app


def test_the_overlay_mounts_the_bridge_with_its_settings_and_is_sealed() -> None:
    settings = BridgeSettings(
        runner=True,
        verdict_timeout_ms=1234,
        approval_timeout_ms=0,
        result_timeout_ms=5000,
        max_line_bytes=4096,
        max_tokens=7,
    )
    fd = sealed_overlay(overlay_text(settings))
    try:
        text = os.pread(fd, 1 << 16, 0).decode()
        with pytest.raises(PermissionError):
            os.pwrite(fd, b"tampered", 0)  # sealed: not even its owner can change it
        assert overlay_arg(fd) == f"/proc/self/fd/{fd}"
    finally:
        os.close(fd)
    assert text.startswith("#")
    rows = json.loads(text.split("\n", 1)[1])  # JSON after the comment line: valid YAML for dsh
    (row,) = rows[0]["insert"]
    assert row["id"] == "breaker-bridge" and row["name"] == str(bridge_file())
    assert row["config"] == {
        "runner": True,
        "verdictTimeoutMs": 1234,
        "approvalTimeoutMs": 0,
        "resultTimeoutMs": 5000,
        "maxLineBytes": 4096,
        "maxTokens": 7,
        "fd": None,
    }
    assert bridge_file().is_file()


def test_the_patch_goes_after_the_launcher_flags_and_dsh_is_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BREAKER_TUI_DSH", "/opt/dsh/bin/dsh")
    overlay = str(tmp_path / "o.yml")
    argv = ["dsh", "--profile", "dev", "--resume", "s1"]
    assert build_argv(argv, overlay) == [
        "/opt/dsh/bin/dsh",
        "--profile",
        "dev",
        "--patch",
        str(overlay),
        "--resume",
        "s1",
    ]
    explicit = ["/usr/bin/dsh", "task"]  # a path is used as given
    assert build_argv(explicit, overlay) == ["/usr/bin/dsh", "--patch", str(overlay), "task"]


def test_a_missing_dsh_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BREAKER_TUI_DSH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("BREAKER_TUI_DATA_DIR", str(tmp_path / "data"))
    with pytest.raises(FileNotFoundError, match="setup-dsh"):
        build_argv(["dsh"], str(tmp_path / "o.yml"))
