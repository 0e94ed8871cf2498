"""`eval` on the red-team corpus (`tests/data/redteam/`) holds its figures.

The corpus is invented legitimate work that a naive breaker blocks and the loops real models fall
into (long view cycles, scrolling back and forth, cosmetic retries, monologues, unknown tools); the
default mode must block no legitimate case and every loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.breaker import Breaker
from engine.tools.cycles import WHOLE, page_span
from engine.tools.outcomes import command_of, targets
from engine.tools.progress import cd_dir, command_text, pure_wait
from wrapper.records.evaluate import evaluate

CORPUS = Path(__file__).resolve().parents[3] / "data" / "redteam"


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, int]]:
    return {m: r.table() for m, r in evaluate(CORPUS).items()}


@pytest.mark.slow
def test_corpus_shape(results: dict[str, dict[str, int]]) -> None:
    t = results["default"]
    assert t["cases"] >= 30
    assert (t["legit"], t["loops"]) == (41, 28)


@pytest.mark.slow
def test_default_mode_blocks_no_legitimate_work_and_the_loops(results: dict[str, dict[str, int]]) -> None:
    t = results["default"]
    assert t["legit_blocked"] == 0 and t["legit_steered"] == 0
    assert t["loops_blocked"] == 27  # the emoji flood in an answer is missed: see the README
    assert t["median_block_calls"] == 5  # the target: within 6 calls of the loop's start


@pytest.mark.slow
def test_seed_mode_figures(results: dict[str, dict[str, int]]) -> None:
    t = results["seed"]
    assert (t["legit_blocked"], t["loops_blocked"]) == (21, 11)  # as measured: the seed is what the rules fix


def test_what_the_new_rules_read() -> None:
    # the lines a read shows, the command and the target a cosmetic variant keeps
    assert page_span("str_replace_editor", {"command": "view", "path": "a.py", "view_range": [10, 19]}) == (10, 19)
    assert page_span("read", {"file_path": "a.py", "offset": 201}) == (201, 300)  # a viewer's window
    assert page_span("bash", {"command": "sed -n '100,110p' a.py"}) == (100, 110)
    assert page_span("shell", {"command": ["bash", "-lc", "nl -ba a.rs | sed -n '1,200p'"]}) == (1, 200)
    assert command_text({"command": ["bash", "-lc", "git commit -m x"]}) == "git commit -m x"
    assert page_span("read", {"file_path": "a.py"}) == (1, WHOLE)
    assert command_of("bash", {"command": "cd /r && python3 -m pytest -q x.py"}) == ("bash", "pytest")
    assert command_of("str_replace_editor", {"command": "str_replace", "path": "a"}) == (
        "str_replace_editor",
        "str_replace",
    )
    assert targets("bash", {"command": "pytest -q 'tests/x.py' 2>&1 | tail -20"}) == "tests/x.py"
    assert targets("bash", {"command": "cat a/Dockerfile"}) != targets("bash", {"command": "cat b/Dockerfile"})
    assert pure_wait("run_shell_command", {"command": "sleep 30"}) and not pure_wait(
        "bash", {"command": "sleep 3 && ls"}
    )
    assert cd_dir("bash", {"command": "cd packages/web && npm test"}) == "packages/web"


def test_a_local_address_answering_the_same_is_asked_not_denied() -> None:
    b = Breaker()
    body = '{"items": [], "total": 0, "message": "no items yet, the importer has not run, try again later"}'
    kinds = []
    for n in range(5):
        args = {"command": f"curl -s http://localhost:3000/api/items | head -{50 - n}"}
        v = b.check_tool("A", f"c{n}", "bash", args)
        kinds.append(v.kind)
        if v.kind == "allow":
            b.tool_result("A", f"c{n}", "bash", args, body, False, exit=0)
    assert kinds == ["allow", "allow", "allow", "allow", "ask"]


def test_same_error_is_a_failure_and_names_itself() -> None:
    b = Breaker()
    verdicts = []
    for n, cmd in enumerate(
        ["npm run build", "npm run build ", "cd /app && npm run build", "npm run-script build", "npm run build"]
    ):
        args = {"command": cmd}
        v = b.check_tool("A", f"c{n}", "bash", args)
        verdicts.append(v)
        if v.kind == "allow":
            b.tool_result("A", f"c{n}", "bash", args, "error during build:\nCould not resolve './Chart'", False, exit=1)
    assert [v.kind for v in verdicts][:4] == ["allow"] * 4
    last = verdicts[4]
    assert last.kind == "deny" and last.rule in ("same-error", "failure") and last.source == "failure"
