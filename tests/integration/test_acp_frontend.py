"""Real opencode and Claude Code against the mock model: the plan, the diff, the whole output, commands, modes,
`@file`.

The `plan-and-edit` scenario makes the model call the agent's todo tool, edit notes.txt and run a
command that prints 13 lines; each agent reports them its own way (Claude Code a `plan` update and a
`diff`, opencode a `todowrite` call and the diff only in its permission request) and the monitor must
turn both into the same items.

`@notes.txt` in a prompt: the `session/prompt` request carries the file as an embedded resource (both agents
advertise `embeddedContext`) and the model is sent its text. It is the turn of the commands test's session (the
same scenario) rather than a session of its own: opencode takes about 5 s of CPU to start.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.acp_helpers import AGENTS, acp_run, frames
from wrapper.items import SILENT_NOTICE, CallItem, ChoicesItem, CommandsItem, PlanItem, ResultItem

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


@pytest.mark.parametrize("agent", AGENTS)
async def test_plan_diff_and_whole_output(agent: str, tmp_path: Path) -> None:
    async with acp_run(agent, "plan-and-edit", tmp_path) as run:
        await run.turn("Move the release to Monday.", 180)
        plans = [i for i in run.items if isinstance(i, PlanItem)]
        assert plans, f"{agent} sent no plan"
        assert plans[0].entries[0].content == "Read notes.txt"
        assert all(e.status == "completed" for e in plans[-1].entries), plans[-1]
        calls = [i for i in run.items if isinstance(i, CallItem)]
        edits = [c for c in calls if c.diffs]
        assert edits, f"{agent} showed no diff"
        d = edits[-1].diffs[0]
        assert d.path.endswith("notes.txt") and (d.added, d.removed) == (1, 1)
        # Claude Code diffs the file; opencode's permission request carries the edit's own strings
        assert any(ln.startswith("-") and "on Friday" in ln for ln in d.text.splitlines()), d.text
        assert any(ln.startswith("+") and "on Monday" in ln for ln in d.text.splitlines()), d.text
        runs = [c for c in calls if c.kind == "execute" and "checklist item 12: ok" in c.output]
        assert runs, [c.output[:100] for c in calls if c.kind == "execute"]
        assert runs[-1].output.count("checklist item") == 12, "the whole output, not its first line"
        results = [i for i in run.items if isinstance(i, ResultItem) and i.call_id == runs[-1].call_id]
        assert results and "checklist item 12: ok" in results[-1].text, "the engine got the whole output too"
        assert "Monday" in (run.world.workspace / "notes.txt").read_text()


@pytest.mark.parametrize("agent", AGENTS)
async def test_commands_listed_a_mode_switched_and_an_at_file_prompt(agent: str, tmp_path: Path) -> None:
    async with acp_run(agent, "normal", tmp_path) as run:
        await run.until(lambda: any(isinstance(i, CommandsItem) for i in run.items), 60, "the commands")
        await run.until(lambda: any(isinstance(i, ChoicesItem) for i in run.items), 60, "the choices")
        last = [i for i in run.items if isinstance(i, ChoicesItem)][-1]
        mode = next(c for c in last.choices if c.category == "mode")
        other = next(o.value for o in mode.options if o.value != mode.current and o.value not in last.silent)
        assert await run.session.set_choice(mode.id, other)

        def mode_now() -> str:
            last = [i for i in run.items if isinstance(i, ChoicesItem)][-1]
            return next(c for c in last.choices if c.category == "mode").current

        await run.until(lambda: mode_now() == other, 30, f"the mode {other} reported back")
        # said once, by its name, whether the agent reports the switch itself or only answers the request
        name = next(o.name for o in mode.options if o.value == other)
        switched = [s.text for s in run.status("notice") if "mode:" in s.text]
        assert len(switched) == 1 and switched[0].endswith(f"mode: {name}"), switched
        silent = [o.value for o in mode.options if o.value in last.silent]
        if silent:  # Claude Code: auto, bypassPermissions, ... never ask
            assert await run.session.set_choice(mode.id, silent[0])
            tail = SILENT_NOTICE.split("{mode}")[1][:40]
            await run.until(lambda: any(tail in s.text for s in run.status("warning")), 30, "the warning")
        assert not await run.session.set_choice(mode.id, "no-such-mode")
        # a turn after the switches, with a file attached by `@`
        assert run.session.agent_caps.get("promptCapabilities", {}).get("embeddedContext") is True
        await run.turn("Summarise @notes.txt please.", 180)
        sent = [f for f in frames(run.recording) if f.get("method") == "session/prompt"]
        blocks = sent[-1]["params"]["prompt"]
        assert blocks[0] == {"type": "text", "text": "Summarise @notes.txt please."}
        res = blocks[1]
        assert res["type"] == "resource", blocks
        assert res["resource"]["uri"] == (run.world.workspace / "notes.txt").resolve().as_uri()
        assert res["resource"]["text"].startswith("The release is on Friday.")
        log = (tmp_path / "model-requests.jsonl").read_text()
        assert "The release is on Friday" in log, "the agent passed the file's text on to the model"
        assert any("attached notes.txt" in s.text for s in run.status("notice"))
