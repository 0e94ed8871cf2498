"""Adding an ACP agent is one declaration: a `Preset` alone is listed, resolved, started, asked, judged and ended.

The dummy agent is a real ACP agent process (`acp_model_agent.py`, run with the project's Python) behind a
launcher on a private PATH: it asks the mock model on 127.0.0.1 what to do at each step, as the six real
agents do, and runs the tool calls it gets. Nothing but `PRESETS` learns about it: its mock environment,
the mode that makes it ask and its own settings come from the one `Preset`, and the world it runs in is
the one every ACP agent's test gets (`make_acp_world`, by way of `acp_run`).
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
from tests.integration.acp_helpers import acp_run, group_gone
from wrapper.harness import registry
from wrapper.harness.acp.cli import setup
from wrapper.harness.acp.install import agent_checks
from wrapper.harness.acp.own import OwnReader, OwnSettings
from wrapper.harness.acp.presets import PRESETS, Preset, mock_env
from wrapper.harness.acp.session import AcpSession
from wrapper.harness.acp.shown import silent_modes
from wrapper.items import StatusItem
from wrapper.settings import Settings, WrapperSettings

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
AGENT = Path(__file__).with_name("acp_model_agent.py")


def _ask(env: dict[str, str]) -> dict[str, str]:
    return {**env, "DUMMY_ASKS": "1"}


def _home(base_url: str, home: Path, model: str) -> dict[str, str]:
    return {"DUMMY_MODEL_URL": f"{base_url}/v1", "DUMMY_MODEL": model}


DUMMY = Preset(
    name="dummy",
    package="dummy-acp",
    version="0.0.1",
    size_mb=1,
    bin="bin/dummy-acp",
    asks="`DUMMY_ASKS` in its environment",
    cannot="nothing: it is a test double",
    args=("--acp",),
    on_path=("dummy-acp",),
    aliases=("dummy-agent",),
    silent_modes=("yolo",),
    ask_setup=_ask,
    mock_setup=_home,
)


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The declaration in `PRESETS` and its launcher on a PATH of its own (the PATH is yielded)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = bin_dir / "dummy-acp"
    launcher.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} "$@"\n')
    launcher.chmod(0o755)
    monkeypatch.setitem(PRESETS, DUMMY.name, DUMMY)
    yield f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"


def test_the_declaration_alone_lists_it(
    on_path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", on_path)
    assert setup(["--list"]) == 0
    assert "dummy" in capsys.readouterr().out.split()
    assert any(c.name == "agent dummy" for c in agent_checks())
    assert silent_modes("dummy") == ("yolo",)
    assert registry.is_acp(["dummy-agent"]) and registry.is_acp(["dummy-acp"])
    assert mock_env(DUMMY, "http://127.0.0.1:9", tmp_path / "home")["DUMMY_MODEL_URL"] == "http://127.0.0.1:9/v1"


def _own_allow(env: dict[str, str], cwd: str, argv: list[str]) -> OwnSettings:
    return OwnSettings("dummy", "allow", source="the dummy's own settings")


@pytest.mark.parametrize("own", [None, _own_allow], ids=["person-asked", "own-settings-answer"])
async def test_the_declaration_alone_runs_the_agent_against_the_mock_and_its_loop_is_refused(
    on_path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own: OwnReader | None
) -> None:
    preset = dataclasses.replace(DUMMY, own=own)
    monkeypatch.setitem(PRESETS, preset.name, preset)
    settings = Settings(wrapper=WrapperSettings(kill_grace_s=1))
    async with acp_run(
        "dummy", "tool-loop", tmp_path, settings=settings, command=["dummy-agent"], env={"PATH": on_path}
    ) as run:
        session = run.session
        assert isinstance(session, AcpSession) and session.preset is preset
        assert session.argv[-1] == "--acp" and session.argv[0].endswith("dummy-acp")
        # the stream names the agent as the person gave it and which copy runs, not the resolved paths
        started = [i.text for i in run.of(StatusItem) if i.kind == "started"]
        assert (
            started
            and started[0].startswith("started dummy-agent (")
            and str(on_path.split(os.pathsep)[0]) not in started[0]
        ), started
        await run.turn("Read notes.txt.")
        kinds = [v.verdict.kind for v in run.verdicts()]
        # the same read re-run with cosmetic changes: four run, the 5th is refused by the monitor
        assert kinds[:5] == ["allow"] * 4 + ["deny"], kinds
        denied = [v for v in run.verdicts() if v.verdict.kind == "deny"]
        assert "REPEAT_TOOL_BLOCKED" in denied[0].verdict.message
        # the engine allowed four: the person's own settings (when declared) answer them, else the person;
        # the refused ones are answered without asking anyone
        assert len(run.questions) == (4 if own is None else 0)
        assert (run.world.workspace / "calls.log").read_text().splitlines() == ["ran"] * kinds.count("allow")
        assert run.events(ev.TurnEnd)[-1].reason == "end_turn"
        assert "Done reading notes.txt." in run.answer_text()
        # every step of the turn went to the mock model, with the dummy's own tool
        steps = run.world.mock.main_requests()
        assert len(steps) == len(kinds) + 1
        assert all(r["body"]["tools"][0]["function"]["name"] == "bash" for r in steps)
        pgid = session.proc.pgid if session.proc else None
    assert pgid is not None and group_gone(pgid)


@pytest.mark.parametrize("args", [[], ["kilo", "--all"]])
def test_setup_agent_wants_one_name_or_all(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        setup(args)
    assert e.value.code == 2 and "or give --all" in capsys.readouterr().err
