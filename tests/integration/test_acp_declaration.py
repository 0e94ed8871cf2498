"""Adding an ACP agent is one declaration: a `Preset` alone is listed, resolved, started, asked, judged and ended.

The dummy agent is the ACP stub (`acp_stub_agent.py`, run with the project's Python) behind a launcher on a
private PATH; nothing but `PRESETS` learns about it.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine import events as ev
from tests.integration.acp_helpers import group_gone
from tests.integration.pumped import started
from wrapper.harness import registry
from wrapper.harness.acp.cli import setup
from wrapper.harness.acp.install import agent_checks
from wrapper.harness.acp.own import OwnReader, OwnSettings
from wrapper.harness.acp.presets import PRESETS, Preset, mock_env
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.acp.shown import silent_modes
from wrapper.items import Answer, EngineItem, Item, Question, VerdictItem
from wrapper.settings import Settings, WrapperSettings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]
STUB = Path(__file__).with_name("acp_stub_agent.py")


def _ask(env: dict[str, str]) -> dict[str, str]:
    return {**env, "STUB_ASKS": "declared"}


def _home(base_url: str, home: Path, model: str) -> dict[str, str]:
    return {"STUB_MODEL_URL": f"{base_url}/v1", "STUB_MODEL": model}


DUMMY = Preset(
    name="dummy",
    package="dummy-acp",
    version="0.0.1",
    size_mb=1,
    bin="bin/dummy-acp",
    asks="`STUB_ASKS` in its environment",
    cannot="nothing: it is a test double",
    args=("--acp",),
    on_path=("dummy-acp",),
    aliases=("dummy-agent",),
    silent_modes=("yolo",),
    ask_setup=_ask,
    mock_setup=_home,
)


@pytest.fixture
def declared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The declaration in `PRESETS`, its launcher on a PATH of its own, and its mock environment."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "dummy-acp"
    launcher.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(STUB))} "$@"\n')
    launcher.chmod(0o755)
    monkeypatch.setitem(PRESETS, DUMMY.name, DUMMY)
    env = {**os.environ, **mock_env(DUMMY, "http://127.0.0.1:9", tmp_path / "home")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    yield env


def test_the_declaration_alone_lists_it(declared: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert setup(["--list"]) == 0
    assert "dummy" in capsys.readouterr().out.split()
    assert any(c.name == "agent dummy" for c in agent_checks())
    assert silent_modes("dummy") == ("yolo",)
    assert declared["STUB_MODEL_URL"] == "http://127.0.0.1:9/v1"


def _own_allow(env: dict[str, str], cwd: str, argv: list[str]) -> OwnSettings:
    return OwnSettings("dummy", "allow", source="the dummy's own settings")


@pytest.mark.parametrize("own", [None, _own_allow], ids=["person-asked", "own-settings-answer"])
async def test_the_declaration_alone_runs_the_agent_end_to_end(
    declared: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own: OwnReader | None
) -> None:
    preset = dataclasses.replace(DUMMY, own=own)
    monkeypatch.setitem(PRESETS, preset.name, preset)
    asked: list[Question] = []

    async def allow(q: Question) -> Answer:
        asked.append(q)
        return "allow-once"

    settings = Settings(wrapper=WrapperSettings(record=False, kill_grace_s=1))
    assert registry.is_acp(["dummy-agent"])
    session = registry.open_session(["dummy-agent"], settings, allow, str(tmp_path), declared)
    assert isinstance(session, AcpSession) and session.preset is preset
    assert session.argv[-1] == "--acp" and session.argv[0].endswith("dummy-acp")
    run = await started(session, 60)
    try:
        assert await session.prompt("ask")
        assert await session.wait_turn_end(0, 60)
        items: list[Item] = run.items
        verdicts = [i for i in items if isinstance(i, VerdictItem)]
        assert [(v.call_id, v.verdict.kind, v.ran) for v in verdicts][:1] == [("call-1", "allow", False)]
        # the engine allowed the call: the person's own settings (when declared) answer it, else the person
        assert len(asked) == (1 if own is None else 0)
        said = "".join(i.event.text for i in items if isinstance(i, EngineItem) and isinstance(i.event, ev.AnswerDelta))
        assert "answer allow asks declared" in said, said
        pgid = session.proc.pgid if session.proc else None
    finally:
        await run.close()
    assert pgid is not None and group_gone(pgid)


@pytest.mark.parametrize("args", [[], ["kilo", "--all"]])
def test_setup_agent_wants_one_name_or_all(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        setup(args)
    assert e.value.code == 2 and "or give --all" in capsys.readouterr().err
