"""The default mode's tool rules: progress-aware failures, result-aware repeats, cycles, paging, backstop."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from engine.breaker import Breaker, Verdict
from engine.config import BreakerConfig
from engine.tools.progress import failed, fold, mutates, result_key
from tests.conftest import ROOT

SEED = BreakerConfig.from_mapping({"engine": {"mode": "seed"}})


class Session:
    """Drives one agent's calls through a Breaker the way the monitor does (denied calls never run)."""

    def __init__(self, b: Breaker | None = None) -> None:
        self.b = b or Breaker()
        self.n = 0
        self.verdicts: list[Verdict] = []
        self.steers = 0

    def call(self, tool: str, args: dict[str, Any], output: str = "ok", exit: int | None = None) -> Verdict:
        self.n += 1
        cid = f"c{self.n}"
        v = self.b.check_tool("A", cid, tool, args)
        self.verdicts.append(v)
        if v.kind != "allow":
            self.b.tool_result("A", cid, tool, args, v.message, True, dispatched=False)
            return v
        text = output if exit in (None, 0) else f"{output}\n[exit code: {exit}]"
        rw = self.b.tool_result("A", cid, tool, args, text, False, exit=exit)
        if rw is not None and rw.reason == "steer":
            self.steers += 1
        return v

    def blocked(self) -> list[int]:
        return [i + 1 for i, v in enumerate(self.verdicts) if v.kind != "allow"]


def bash(command: str) -> dict[str, Any]:
    return {"command": command}


def test_fold_keeps_test_ids_and_drops_volatile_parts() -> None:
    a = fold("FAILED test_case_1 in 0.12s at 12:00:01 pid 4242 /tmp/tmpab12 localhost:3000 deadbeef1234")
    b = fold("FAILED test_case_1 in 3.50s at 13:10:09 pid 977 /tmp/tmpzz99 localhost:3001 cafebabe9876")
    assert a == b
    assert fold("FAILED test_case_1") != fold("FAILED test_case_2")


def test_fold_drops_the_process_group_id_qwen_code_appends_to_every_shell_result() -> None:
    # Qwen Code (and older Gemini CLI) end each run_shell_command result with the command's process
    # group; unfolded, every identical `cat` looked like a new answer and a loop of them was forgiven.
    tail = "Output: The release is on Friday.\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: "
    assert fold(tail + "7025") == fold(tail + "7038")
    assert fold("pgid=12 ok") == fold("pgid=99 ok")


def test_a_result_that_restates_its_command_is_compared_without_it() -> None:
    # Qwen Code's shell result begins `Command: <the command>`: cosmetic variants of one command
    # (`cat  notes.txt`) gave different texts for the same answer, so the loop counted as progress.
    def shell(cmd: str, out: str) -> int:
        return result_key(f"Command: {cmd}\nOutput: {out}\nExit Code: 0", "bash", bash(cmd))

    assert shell("cat notes.txt", "Friday") == shell("cat  notes.txt", "Friday")
    assert shell("cat notes.txt", "Friday") != shell("cat  notes.txt", "Monday")


def test_search_with_no_match_is_not_a_failure() -> None:
    for cmd in ("grep -rn E1001 src", "rg E1001", "git grep E1001", "ag E1001"):
        assert not failed("bash", bash(cmd), "[exit code: 1]", True, None)
    assert failed("bash", bash("grep -rn x src"), "grep: src: No such file\n[exit code: 2]", False, None)
    assert failed("bash", bash("pytest"), "1 failed\n[exit code: 1]", False, None)
    assert not failed("bash", bash("grep -c E1001 a.py b.py"), "a.py:0\nb.py:0", False, 1)
    assert not failed("bash", bash("diff old.txt new.txt"), "1c1\n< a\n---\n> b", False, 1)
    assert failed("bash", bash("diff old.txt new.txt"), "diff: old.txt: No such file or directory", False, 2)


def test_mutation_verbs() -> None:
    assert mutates("edit", {"file_path": "a.py"}) and mutates("write", {"path": "a"})
    assert mutates("str_replace_editor", {"command": "str_replace"})
    assert not mutates("str_replace_editor", {"command": "view"}) and not mutates("read", {"path": "a"})
    for cmd in ("git commit -m x", "sed -i s/a/b/ f.py", "echo x > out.txt", "pip install requests", "mv a b"):
        assert mutates("bash", bash(cmd)), cmd
    for cmd in ("git status", "pytest -q", "cat a.py", "kubectl get pods", "echo hi"):
        assert not mutates("bash", bash(cmd)), cmd


def test_same_failing_check_steered_from_2nd_and_denied_by_4th() -> None:
    s = Session()
    for _ in range(6):
        s.call("bash", bash("python3 check.py"), "AssertionError: total is 5, expected 4", exit=1)
    assert s.steers >= 1 and s.blocked()[0] == 4
    assert s.verdicts[3].rule == "failure"


def test_edit_run_cycle_failing_differently_is_never_steered_or_denied() -> None:
    s = Session()
    s.call("read", {"file_path": "calc.py"}, "def add(a, b): return a - b")
    for k in range(12):
        s.call("edit", {"file_path": "calc.py", "old_string": f"rev {k}", "new_string": f"rev {k + 1}"}, "edited")
        s.call("bash", bash("python3 check.py"), f"FAIL: case {k} expected {k} got {k + 1}", exit=1)
    s.call("edit", {"file_path": "calc.py", "old_string": "rev 12", "new_string": "fixed"}, "edited")
    s.call("bash", bash("python3 check.py"), "PASS")
    s.call("bash", bash("python3 check.py"), "PASS")
    assert s.blocked() == [] and s.steers == 0


def test_tests_fixed_one_by_one_by_node_id_are_different_calls() -> None:
    s = Session()
    for k in range(1, 6):
        for _ in range(2):
            s.call("bash", bash(f"pytest tests/test_x.py::test_case_{k}"), f"FAILED test_case_{k}", exit=1)
        s.call("edit", {"file_path": "x.py", "old_string": f"b{k}", "new_string": f"f{k}"}, "edited")
        s.call("bash", bash(f"pytest tests/test_x.py::test_case_{k}"), "1 passed")
    assert s.blocked() == []


def test_calls_differing_only_in_numbers_that_fail_identically_are_one_failing_action() -> None:
    s = Session()
    for n in range(1, 6):
        s.call("bash", bash(f"python3 -c 'print({n}/0)'"), "ZeroDivisionError: division by zero", exit=1)
    assert s.steers >= 1 and s.blocked()[0] == 4


def test_same_failure_after_every_cosmetic_edit_is_denied_at_the_5th_run() -> None:
    s = Session()
    for k in range(6):
        s.call("edit", {"file_path": "app.py", "old_string": f"x = {k}", "new_string": f"x = {k + 1}"}, "edited")
        s.call("bash", bash("pytest tests/test_app.py -q"), "FAILED test_main - expected 'ok', got None", exit=1)
    assert s.verdicts[9].kind == "deny" and s.verdicts[9].rule == "same-failure"


def test_polling_whose_answer_changes_is_progress_but_stuck_polling_is_not() -> None:
    s = Session()
    for k in range(8):
        s.call("bash", bash(f"sleep {5 * (k + 1)}"), "")
        s.call("bash", bash("gh run view 42 --json status"), f'{{"status":"in_progress","step":{k}}}')
    assert s.blocked() == []
    stuck = Session()
    for _ in range(8):
        stuck.call("bash", bash("kubectl get pods"), "api-7d9f 0/1 Pending 0 15s")
    assert stuck.blocked() and stuck.blocked()[0] <= 5


def test_git_status_between_commits_is_progress() -> None:
    s = Session()
    for k in range(8):
        s.call("bash", bash("git status --short"), f" M file{k}.py")
        s.call("bash", bash(f"git commit -am 'step {k}'"), f"[main {k:07x}] step {k}")
    assert s.blocked() == []


def test_cosmetic_spellings_of_one_failing_fetch_are_one_loop() -> None:
    s = Session()
    flags = ["-s", "-sS", "-sL", "--silent", "-s -m 10", "-sS --retry 0", "-s -H 'A: b'"]
    for k, f in enumerate(flags):
        s.call("bash", bash(f"curl {f} https://example.com/api"), f"curl: (7) Failed to connect (attempt {k})", exit=7)
    assert s.blocked() and s.blocked()[0] == 5


def test_identical_call_backstop_when_only_ids_change() -> None:
    # a per-call id is not a new result: the identical poll is stopped at the 5th by its exact cap
    s = Session()
    for k in range(20):
        s.call("process", {"action": "poll", "id": "job-1"}, f"request-id {k * 7919}: still running, please wait")
    assert s.blocked()[0] == 5 and s.verdicts[4].rule.startswith("repeat:exact")


def test_local_address_repeats_keep_the_ask() -> None:
    s = Session()
    kinds = [s.call("bash", bash(f"curl -s -w 'c{k}' http://127.0.0.1:3000/p"), "same").kind for k in range(5)]
    assert kinds[-1] == "ask"


def test_period_7_view_cycle_is_denied_within_15_calls_and_named() -> None:
    s = Session()
    ranges = [[k * 40 + 1, k * 40 + 40] for k in range(7)]
    for _ in range(6):
        for r in ranges:
            s.call("str_replace_editor", {"command": "view", "path": "/repo/a.py", "view_range": r}, f"lines {r}")
    first = s.blocked()[0]
    assert 7 < first <= 7 + 15
    v = s.verdicts[first - 1]
    assert v.rule == "cycle" and "(×" in v.message and "view_range" in v.message
    scores = s.b.snapshot().get("A")
    assert scores is not None and scores.cycle_rule == "cycle" and scores.cycle


def test_resetting_the_windows_forgets_the_cycle() -> None:
    s = Session()
    ranges = [[k * 40 + 1, k * 40 + 40] for k in range(5)]
    for _ in range(5):
        for r in ranges:
            s.call("str_replace_editor", {"command": "view", "path": "/repo/a.py", "view_range": r}, f"lines {r}")
    assert s.blocked()
    s.b.reset_windows("A")
    v = s.call("str_replace_editor", {"command": "view", "path": "/repo/a.py", "view_range": ranges[0]}, "x")
    assert v.kind == "allow"
    scores = s.b.snapshot().get("A")
    assert scores is not None and scores.cycle == ()


def test_scrolling_one_file_for_45_calls_is_caught_but_8_pages_are_not() -> None:
    s = Session()
    for k in range(45):
        s.call(
            "str_replace_editor", {"command": "view", "path": "/repo/big.py", "view_range": [k * 10 + 1, k * 10 + 10]}
        )
    assert s.blocked() and s.blocked()[0] <= 21 and s.verdicts[s.blocked()[0] - 1].rule == "paging"
    ok = Session()
    for k in range(8):
        ok.call("read", {"file_path": "big.py", "offset": k * 200 + 1, "limit": 200}, f"lines {k}")
    assert ok.blocked() == []


def test_scroll_down_is_progress_while_it_shows_new_lines_and_a_loop_at_the_end() -> None:
    # a result is the evidence: every window differs, so 45 scrolls are reading, not looping
    s = Session()
    for k in range(45):
        s.call("bash", bash("scroll_down"), f"[File: big.py] lines {k * 100}-{k * 100 + 100}")
    assert s.blocked() == []
    end = Session()
    for _ in range(12):
        end.call("bash", bash("scroll_down"), "[File: big.py (4500 lines total)] lines 4400-4500 (end of file)")
    assert end.blocked() and end.blocked()[0] <= 10


def test_edit_run_cycles_with_identical_runs_after_real_edits_are_not_cycles() -> None:
    s = Session()
    for k in range(20):
        s.call("edit", {"file_path": "a.py", "old_string": f"v{k}", "new_string": f"v{k + 1}"}, "edited")
        s.call("bash", bash("python3 -m pytest -q"), f"{k} passed")
        s.call("bash", bash("git diff --stat"), f"a.py | {k + 1} +")
    assert s.blocked() == []


def test_seed_mode_keeps_the_seed_blocks() -> None:
    s = Session(Breaker(SEED))
    for k in range(6):
        s.call("edit", {"file_path": "calc.py", "old_string": f"{k}", "new_string": f"{k + 1}"}, "edited")
        s.call("bash", bash("python3 check.py"), f"FAIL case {k}", exit=1)
    assert s.blocked()  # the seed counts every failure of the check, whatever changed


def test_deeply_nested_and_truncated_arguments_never_raise() -> None:
    deep: dict[str, Any] = {}
    cur = deep
    for _ in range(1500):
        cur["a"] = {}
        cur = cur["a"]
    s = Session()
    for _ in range(6):
        s.call("read", deep, "x")
    assert s.blocked()
    big = Session()
    for k in range(6):
        marker = {"__breaker_truncated__": True, "bytes": 600_000, "sha256": f"{k:064x}", "preview": "x" * 4096}
        big.call("write", marker, "ok")
    assert big.blocked()[0] == 5  # cosmetic repeats of a huge call share their prefix


# Run in a fresh interpreter: tracemalloc counts only what it saw allocated, so a module cache that
# earlier tests in the same worker filled (untraced) and this session refills would read as growth.
FLAT_SESSION = """
import tracemalloc
from tests.unit.engine.tools.test_default_rules import Session, bash

s = Session()
tracemalloc.start()
for k in range(3100):
    s.call("bash", bash(f"cat file{k}.py"), f"content {k}" * 20)
    s.verdicts.clear()
early = tracemalloc.get_traced_memory()[0]
for k in range(3100, 4100):
    s.call("bash", bash(f"cat file{k}.py"), f"content {k}" * 20)
    s.verdicts.clear()
print(early, tracemalloc.get_traced_memory()[0])
"""


@pytest.mark.slow
def test_memory_stays_flat_over_a_1000_call_session() -> None:
    # every per-turn table is capped, and so are the shared parse caches (2,048 commands): once they
    # are full, another 1,000 distinct calls add nothing that stays
    done = subprocess.run([sys.executable, "-c", FLAT_SESSION], capture_output=True, text=True, check=True, cwd=ROOT)
    early, late = map(int, done.stdout.split())
    assert late - early < 64_000, (early, late)


def test_a_429_retried_with_growing_backoff_is_not_blocked_but_a_constant_wait_is() -> None:
    fetch = bash("curl -sf https://api.example.com/v1/items")
    s = Session()
    for w in (2, 4, 8):
        s.call("bash", fetch, "curl: (22) The requested URL returned error: 429", exit=22)
        s.call("bash", bash(f"sleep {w}"), "")
    s.call("bash", fetch, '{"items": []}')
    assert s.blocked() == [] and s.steers == 0
    stuck = Session()
    for _ in range(6):
        stuck.call("bash", fetch, "curl: (22) The requested URL returned error: 429", exit=22)
        stuck.call("bash", bash("sleep 5"), "")
    assert stuck.blocked() and stuck.blocked()[0] <= 9


def test_engine_section_is_validated_with_clear_errors() -> None:
    from engine.config import BreakerConfig
    from engine.errors import ConfigError

    assert BreakerConfig.from_mapping({"engine": {"mode": "seed"}}).engine.seed
    for bad, needle in (
        ({"mode": "fast"}, "engine.mode"),
        ({"cycleWindw": 3}, "did you mean `cycleWindow`"),
        ({"cycle_windw": 3}, "did you mean `cycle_window`"),
    ):
        try:
            BreakerConfig.from_mapping({"engine": bad})
        except ConfigError as e:
            assert needle in str(e)
        else:
            raise AssertionError(f"{bad} was accepted")


def test_a_call_still_running_keeps_what_its_check_computed_however_many_calls_pass() -> None:
    """A long call (a build, a slow fetch) is answered after many quick ones: its result is still judged
    against what its check compared. Only calls never answered are dropped, beyond a cap.
    """
    b = Breaker()
    b.check_tool("A", "long", "bash", bash("make build"))
    for i in range(100):
        b.check_tool("A", f"c{i}", "bash", bash(f"cat part{i}.txt"))
        b.tool_result("A", f"c{i}", "bash", bash(f"cat part{i}.txt"), f"part {i}", False)
    assert b.rules is not None and b.rules.body("A", "long") == '{"command":"make build"}'
    for i in range(100):  # never answered: the oldest go
        b.check_tool("A", f"lost{i}", "bash", bash(f"sleep {i}"))
    assert b.rules.body("A", "long") is None and b.rules.body("A", "lost99") is not None
