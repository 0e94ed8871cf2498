"""A result is the evidence: changing results are progress, identical results are a repeat.

Each test drives the real `Breaker` in the default mode, call by call, as the live monitor does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.breaker import Breaker
from engine.tools.errortext import cancelled, reads_as_error
from engine.tools.sameresult import shell_shape

NOTES = "The release is on Friday. Tests must pass first. Nothing else is planned this week."


class Run:
    """One agent's calls through a fresh engine; `kinds` are the verdicts in order."""

    def __init__(self) -> None:
        self.b = Breaker()
        self.kinds: list[str] = []
        self.rules: list[str] = []
        self.n = 0

    def call(self, tool: str, args: dict[str, Any], out: str, exit: int | None = 0, error: bool = False) -> str:
        self.n += 1
        cid = f"c{self.n}"
        v = self.b.check_tool("A", cid, tool, args)
        self.kinds.append(v.kind)
        self.rules.append(v.rule)
        if v.kind == "allow":
            failed = error or (exit not in (None, 0))
            self.b.tool_result("A", cid, tool, args, out, failed, exit=exit)
        else:
            self.b.tool_result("A", cid, tool, args, v.message, True, dispatched=False)
        return v.kind

    def first_block(self) -> int | None:
        return next((i + 1 for i, k in enumerate(self.kinds) if k != "allow"), None)


def test_reading_a_growing_log_is_never_refused() -> None:
    r = Run()
    for k in range(30):
        r.call("read", {"path": "/w/build.log"}, "\n".join(f"step {i} ok" for i in range(k + 1)), exit=None)
    assert r.first_block() is None  # before: the backstop refused the 10th read


def test_claude_code_bashoutput_polls_of_a_growing_pip_log_are_progress() -> None:
    r = Run()
    for k in range(25):
        log = "\n".join(f"Collecting package-{i}" for i in range(k + 1))
        r.call("bashoutput", {"bash_id": "bash_1"}, f"<status>running</status>\n<stdout>{log}</stdout>", exit=None)
    assert r.first_block() is None


def test_counter_varied_fetch_with_an_identical_body_is_stopped_at_the_fifth() -> None:
    r = Run()
    body = '{"rows": [], "note": "export not ready, the job has not been scheduled"}'
    for k in range(1, 9):
        r.call("bash", {"command": f"curl -s 'http://example.test/export?x={k}'"}, body)
    assert r.first_block() == 5 and r.rules[4] == "same-result"  # before: 8 of 8 ran


def test_echoed_counters_flags_and_comments_do_not_make_a_new_call() -> None:
    makers: list[Callable[[int], dict[str, str]]] = [
        lambda k: {"command": f"cat notes.txt; echo try {k}"},
        lambda k: {"command": f"./fetch-report --attempt {k} --out -"},
        lambda k: {"command": f"cat notes.txt  # look again, pass {k}"},
    ]
    for make in makers:
        r = Run()
        for k in range(1, 9):
            args = make(k)
            out = NOTES + (f"\ntry {k}" if "echo" in args["command"] else "")
            r.call("bash", args, out)
        assert r.first_block() == 5, make(1)


def test_any_tool_not_only_the_shell() -> None:
    r = Run()
    for k in range(1, 9):
        r.call("web_fetch", {"url": f"https://example.test/status?page={k}"}, "Service status: degraded. " * 4)
    assert r.first_block() == 5


def test_same_results_of_different_targets_or_messages_are_not_a_repeat() -> None:
    dockerfile = 'FROM python:3.12-slim\nWORKDIR /app\nCOPY . .\nCMD ["python", "-m", "app"]'
    r = Run()
    for svc in ("billing", "search", "notify", "auth", "gateway", "reports", "users"):
        r.call("bash", {"command": f"cat services/{svc}/Dockerfile"}, dockerfile)
    for k in range(8):
        r.call("message", {"action": "send", "text": f"line {k}"}, f'{{"ok": true, "runId": "run_{k}"}}', exit=None)
    for k in range(1, 8):
        r.call("bash", {"command": f"pytest tests/test_{k}.py -q"}, "1 passed in 0.01s")
    assert r.first_block() is None


def test_how_the_shape_is_decided() -> None:
    assert shell_shape("cat notes.txt; echo try 3") == shell_shape("cat notes.txt; echo try 4")
    assert shell_shape("./f --attempt 3") == shell_shape("./f --attempt 9")
    assert shell_shape("cat a/table10.xls") != shell_shape("cat a/table12.xls")
    assert shell_shape("./check 'the owl flies'") != shell_shape("./check the owl flies")


def test_errors_without_an_exit_status_are_failures() -> None:
    assert reads_as_error("edit", "Usage: edit <start_line>:<end_line>")
    assert reads_as_error("str_replace_editor", "No replacement was performed. Multiple occurrences")
    assert reads_as_error("bash", "bash: pytset: command not found")
    assert reads_as_error("read", "Error: file /w/missing.py does not exist")
    assert reads_as_error("bash", "Wrong flag!")
    assert not reads_as_error("bash", "Error: this line is in the log being read")  # a shell may print it
    assert not reads_as_error("read", "def f():\n    raise ValueError('Error: x')\n")
    r = Run()
    for _ in range(6):
        r.call("bash", {"command": "submit 'flag{not_it}'"}, "Wrong flag!", exit=None)
    assert r.first_block() == 4 and r.rules[3] == "failure"  # before: all 6 ran (no status, no failure)


def test_sibling_cancellations_are_not_the_models_failures() -> None:
    text = "<tool_use_error>Sibling tool call errored</tool_use_error>"
    assert cancelled(text)
    r = Run()
    r.call("read", {"file_path": "/w/missing.ex"}, "<tool_use_error>File does not exist.</tool_use_error>", error=True)
    for k in range(12):
        r.call("read", {"file_path": f"/w/lib/mod_{k}.ex"}, text, error=True)
    r.call("read", {"file_path": "/w/lib/mod_0.ex"}, "defmodule Mod0 do\nend", exit=None)
    assert r.first_block() is None  # before: same-error denied the 5th read


def test_waiting_longer_for_a_local_service_is_not_a_failure_loop() -> None:
    r = Run()
    refused = "curl: (7) Failed to connect to localhost port 3000: Connection refused"
    for k in range(1, 7):
        r.call("bash", {"command": f"sleep {k * 2} && curl -s http://localhost:3000/health"}, refused, exit=7)
    r.call("bash", {"command": "sleep 14 && curl -s http://localhost:3000/health"}, '{"status": "up"}')
    assert r.first_block() is None
    same = Run()
    for _ in range(6):
        same.call("bash", {"command": "sleep 2 && curl -s http://localhost:3000/health"}, refused, exit=7)
    assert "deny" not in same.kinds and "ask" in same.kinds  # the same wait again: the person is asked
