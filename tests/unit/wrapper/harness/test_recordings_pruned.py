"""Every harness keeps `[wrapper] recordings_keep` and `recordings_keep_days`, in any recordings folder.

Before, only the pty harnesses (dsh, a plain command) pruned: an ACP session named its own file in a
custom `recordings_dir` (`session-PID-N.jsonl`, a name the pruner does not own) and never pruned,
in that folder or the default one, so an ACP user's recordings grew for good.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from wrapper.harness.acp.session import AcpSession
from wrapper.harness.base import deny_all
from wrapper.harness.plain.session import PlainSession
from wrapper.settings import Settings, WrapperSettings


def _old_recordings(folder: Path, n: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    now = time.time()
    out = []
    for i in range(n):
        p = folder / f"2026010{i + 1}-120000-agent.jsonl"
        p.write_text("{}\n")
        os.utime(p, (now - (n - i) * 3600, now - (n - i) * 3600))  # the last one the newest
        out.append(p)
    return out


@pytest.mark.parametrize("harness", ["acp", "plain"])
@pytest.mark.parametrize("where", ["custom", "default"])
def test_a_new_session_prunes_its_recordings_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, harness: str, where: str
) -> None:
    monkeypatch.setenv("BREAKER_TUI_STATE_DIR", str(tmp_path / "state"))
    folder = tmp_path / "mine" if where == "custom" else tmp_path / "state" / "recordings"
    old = _old_recordings(folder, 4)
    (folder / "notes.jsonl").write_text("the person's own file\n")
    w = WrapperSettings(recordings_keep=3, recordings_dir=str(folder) if where == "custom" else "")
    s = Settings(wrapper=w)
    session = (
        AcpSession(["true"], s, deny_all, str(tmp_path))
        if harness == "acp"
        else PlainSession(["true"], s, cwd=str(tmp_path))
    )
    rec = session.recorder
    assert rec is not None
    try:
        assert rec.path.parent == folder, "the recording is where the config says"
        left = sorted(p.name for p in folder.iterdir())
        assert left == sorted([old[-2].name, old[-1].name, rec.path.name, "notes.jsonl"]), left
    finally:
        rec.close()
