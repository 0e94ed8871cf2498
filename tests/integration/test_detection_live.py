"""Detection judged live: a real dsh against the mock model, on the cases real sessions go wrong on.

* headless profile: dsh's session-title request runs while the first turn's main request streams;
  a looping reasoning stream and a ✦✧ flood in that first turn must still trip, and the step must
  be retried with thinking disabled on the wire (the side request must not blind the lenses);
* an edit -> check cycle that fails differently after each edit is legitimate work: every run of
  the check happens, the last prints PASS, nothing is denied or steered;
* the same failing check re-run verbatim with nothing changed is a loop: steered from its 2nd
  failure, denied by its 4th attempt;
* the same `read` of a log that a background writer keeps growing, 12 times: every result differs,
  so it is progress and never refused (the 11th was, before results were the evidence);
* a command retried 8 times with only a counter changed (`--attempt N`) and the identical answer:
  every spelling is a new fingerprint, but the same result is a repeat, stopped by the 6th;
* one export fetched in cosmetic spellings (tracking parameters, host case, `www.`, curl <-> wget),
  each failure naming the host as spelled: the echo is not a new answer, the 5th is refused.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from wrapper.items import ResultItem, VerdictItem
from wrapper.mock.scenarios import COSMETIC_FETCHES, COUNTER_RETRIES, GROWING_READS, RUN_CHECK
from wrapper.mock.server import TITLE_PREFIX

pytestmark = pytest.mark.integration


def _headless(world: Any, tmp_path: Path, task: str) -> subprocess.CompletedProcess[str]:
    env = {**world.env, "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "tui", "--no-tui", "--", "dsh", "--profile", "headless", task]
    return subprocess.run(argv, cwd=world.workspace, env=env, capture_output=True, text=True, timeout=150)


def _is_title(request: dict[str, Any]) -> bool:
    body = request["body"]
    return not body.get("tools") and any(TITLE_PREFIX in str(m.get("content")) for m in body["messages"])


@pytest.mark.parametrize(
    ("scenario", "answer"),
    [("reasoning-loop-es", "Respondo directamente"), ("sparkle-flood", "Answering without the sparkles")],
)
def test_first_turn_in_headless_trips_despite_the_title_request(
    scenario: str, answer: str, world_factory: Any, tmp_path: Path
) -> None:
    w = world_factory(scenario)
    w.mock.side_delay_ms = 400  # the title answer stays open ~1.6 s, across the main stream whichever starts first
    p = _headless(w, tmp_path, "Check the adapter")
    requests = list(w.mock.requests)
    main = [r for r in requests if r["body"].get("tools")]
    titles = [r for r in requests if _is_title(r)]
    assert titles, "headless sent no session-title request: this test would not exercise a side request"
    assert main and abs(main[0]["ts"] - titles[0]["ts"]) < 1.0, "the title request must overlap the first stream"
    trips = [ln for ln in p.stderr.splitlines() if ln.startswith("breaker: TRIP reasoning")]
    assert len(trips) == 1, f"the first turn's stream did not trip exactly once:\n{p.stderr}"
    assert "abort, then retry with thinking off" in trips[0]
    thinking = [r["body"].get("thinking", {}).get("type") for r in main]
    assert thinking == ["enabled", "disabled"], "the retried step must go out with thinking disabled"
    assert p.returncode == 0, p.stderr
    assert answer in p.stdout, "the retried step's answer is the run's result"


def _check_runs(run: Any) -> tuple[list[VerdictItem], list[ResultItem]]:
    verdicts = [v for v in run.verdicts() if v.tool == "bash" and v.args.get("command") == RUN_CHECK.args["command"]]
    ids = {v.call_id for v in verdicts}
    results = [r for r in run.of(ResultItem) if r.call_id in ids]
    return verdicts, results


async def test_edit_check_cycle_runs_every_check_and_ends_in_pass(run_factory: Any) -> None:
    run = await run_factory("edit-check-cycle")
    await run.turn("Fix calc.py", timeout=90)
    assert [v.verdict.kind for v in run.verdicts()] == ["allow"] * len(run.verdicts()), "nothing may be denied"
    verdicts, results = _check_runs(run)
    assert len(verdicts) == 5, "four failing runs, each after a different fix, then the passing run"
    assert [r.rewrite for r in results] == [None] * 5, "no run of the check may be steered"
    outputs = [r.text for r in results]
    assert [o.split(":")[0] for o in outputs[:4]] == ["FAIL add", "FAIL sub", "FAIL mul", "FAIL div"]
    assert "PASS" in outputs[-1], outputs[-1]
    done = subprocess.run(["python3", "check.py"], cwd=run.world.workspace, capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "PASS", "the edits really fixed calc.py"


async def test_same_failing_check_verbatim_is_steered_then_denied(run_factory: Any) -> None:
    run = await run_factory("same-check-six")
    await run.turn("Make the check pass", timeout=90)
    verdicts, results = _check_runs(run)
    kinds = [v.verdict.kind for v in verdicts]
    assert len(kinds) == 6, kinds
    first_deny = kinds.index("deny") if "deny" in kinds else len(kinds)
    assert first_deny <= 3, f"the 4th attempt at the latest must be denied: {kinds}"
    assert kinds[first_deny:] == ["deny"] * (len(kinds) - first_deny), f"once denied, always denied: {kinds}"
    allowed = {v.call_id for v in verdicts if v.verdict.kind == "allow"}
    ran = [r for r in results if r.call_id in allowed]
    steered = [i for i, r in enumerate(ran) if r.rewrite is not None and r.rewrite.reason == "steer"]
    assert ran[0].rewrite is None, "the first failure is shown as it is"
    assert steered and steered[0] == 1, f"the 2nd failure must be steered: {[r.rewrite for r in ran]}"


def test_scan_of_the_recording_reproduces_the_live_decisions(world_factory: Any, tmp_path: Path) -> None:
    """The same failing check six times, headless; `scan` of its recording finds the same denials."""
    w = world_factory("same-check-six")
    env = {**w.env, "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": str(ROOT)}
    cli = [sys.executable, "-m", "tui"]
    live = subprocess.run(
        [*cli, "--no-tui", "--prompt", "Make the check pass", "--", "dsh", "--profile", "dev"],
        cwd=w.workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
    )
    assert live.returncode == 0, live.stderr
    live_denies = [ln for ln in live.stderr.splitlines() if ln.startswith("breaker: DENY bash")]
    assert live_denies, live.stderr
    rec = next((tmp_path / "state" / "recordings").glob("*.jsonl"))
    s = subprocess.run([*cli, "scan", str(rec), "--json"], env=env, capture_output=True, text=True, timeout=60)
    assert s.returncode == 1, s.stderr
    found = [json.loads(ln) for ln in s.stdout.splitlines()]
    denied = [f for f in found if f["kind"] == "verdict" and f["verdict"] == "deny"]
    assert len(denied) == len(live_denies)
    assert "not reproduced" not in s.stderr, s.stderr


@pytest.mark.parametrize("profile", ["headless", "dev"])
def test_code_mode_does_not_blind_the_breaker(profile: str, world_factory: Any, tmp_path: Path) -> None:
    # DSH_TOOLS_MODE=code: the model gets only `run_code` and calls the tools from inside a program;
    # each inner call still passes the bridge's gate, so the 5th identical read is refused live,
    # in dsh's headless profile and in the dev profile breaker-tui writes
    w = world_factory("code-mode-loop")
    assert w.env["DSH_TOOLS_MODE"] == "code"  # the scenario's world asks dsh for Code Mode
    if profile == "headless":
        p = _headless(w, tmp_path, "Read notes.txt")
    else:
        env = {**w.env, "BREAKER_TUI_STATE_DIR": str(tmp_path / "state"), "PYTHONPATH": str(ROOT)}
        argv = [sys.executable, "-m", "tui", "--no-tui", "--prompt", "Read notes.txt", "--", "dsh", "--profile", "dev"]
        p = subprocess.run(argv, cwd=w.workspace, env=env, capture_output=True, text=True, timeout=150)
    main = [r for r in w.mock.requests if r["body"].get("tools")]
    assert [t["function"]["name"] for t in main[0]["body"]["tools"]] == ["run_code"], "not in Code Mode"
    program_output = next(m["content"] for m in main[-1]["body"]["messages"] if m.get("role") == "tool")
    assert program_output.split("\n")[:4] == ["ran"] * 4, program_output
    assert program_output.count("refused: REPEAT_TOOL_BLOCKED") == 2, program_output
    denials = [ln for ln in p.stderr.splitlines() if ln.startswith("breaker: DENY bash")]
    assert len(denials) == 2 and all("exact:bash" in d for d in denials), p.stderr
    assert "Some of the reads were refused." in p.stdout and p.returncode == 0
    assert "bridge disconnected" not in p.stderr, "a bridge that closes with its child is a normal end"


def _stop_writer(workspace: Path) -> None:
    """End the background log writer (it also stops by itself): no process may outlive the test."""
    (workspace / "stop").touch()
    pid_file = workspace / "writer.pid"
    if pid_file.exists() and pid_file.read_text().strip().isdigit():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid_file.read_text()), signal.SIGTERM)


async def test_reading_a_growing_log_twelve_times_is_never_refused(run_factory: Any) -> None:
    run = await run_factory("growing-log-read")
    try:
        await run.turn("Watch the build", timeout=120)
    finally:
        _stop_writer(run.world.workspace)
    reads = [v for v in run.verdicts() if v.tool == "read"]
    assert len(reads) == GROWING_READS, [v.tool for v in run.verdicts()]
    assert [v.verdict.kind for v in reads] == ["allow"] * GROWING_READS, [
        v.verdict for v in reads if v.verdict.kind != "allow"
    ]
    ids = [v.call_id for v in reads]
    by_id = {r.call_id: r.text for r in run.of(ResultItem)}
    texts = [by_id.get(i, "") for i in ids]
    assert all("build step" in t for t in texts), texts[:2]
    # the premise: the writer really grew the log between every two reads (else this proves nothing)
    assert all(a != b for a, b in itertools.pairwise(texts)), "two reads saw the same log"
    assert [r for r in run.of(ResultItem) if r.call_id in ids and r.rewrite is not None] == []


async def test_a_retry_with_only_a_counter_changed_is_stopped_by_the_sixth(run_factory: Any) -> None:
    run = await run_factory("counter-retry")
    await run.turn("Fetch the export", timeout=120)
    tries = [v for v in run.verdicts() if v.tool == "bash" and "fetch.py --attempt" in str(v.args.get("command"))]
    assert len(tries) == COUNTER_RETRIES, [v.args for v in tries]
    assert len({v.args["command"] for v in tries}) == COUNTER_RETRIES, "every attempt is spelled differently"
    kinds = [v.verdict.kind for v in tries]
    first_deny = kinds.index("deny") if "deny" in kinds else len(kinds)
    assert first_deny <= 5, f"the 6th attempt at the latest must be refused: {kinds}"
    assert tries[first_deny].verdict.rule == "same-result", tries[first_deny].verdict
    by_id = {r.call_id: r.text for r in run.of(ResultItem)}
    answers = {by_id[v.call_id] for v in tries[:first_deny]}
    assert len(answers) == 1 and '"status": "pending"' in answers.pop(), "the runs before it gave one identical answer"


async def test_a_cosmetic_fetch_whose_error_echoes_its_spelling_is_refused_at_the_fifth(run_factory: Any) -> None:
    # tracking parameters, host case, `www.`, a fragment, curl <-> wget and flags: one fetch; each error names
    # the host as that call spelled it, which is the call's own echo, not a new answer
    run = await run_factory("cosmetic-fetch")
    await run.turn("Fetch the weekly export", timeout=120)
    fetches = [v for v in run.verdicts() if v.tool == "bash" and v.args.get("command") in COSMETIC_FETCHES]
    assert len(fetches) == len(COSMETIC_FETCHES), [v.args for v in run.verdicts()]
    kinds = [v.verdict.kind for v in fetches]
    assert kinds[:4] == ["allow"] * 4 and kinds[4] == "deny", kinds
    by_id = {r.call_id: r.text for r in run.of(ResultItem)}
    ran = [by_id.get(v.call_id, "") for v in fetches[:4]]
    # the premise: the failures differ as spelled (else this proves nothing about the echo)
    assert len(set(ran)) > 1 and all("resolve host" in t for t in ran), ran
