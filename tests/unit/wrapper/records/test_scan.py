"""`breaker-tui scan` and `breaker-tui eval` in-process: exit codes, the JSON shape, bad input of every kind."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import SHARED
from tui.cli import COMMANDS, main

WORK = SHARED / "detection" / "work"
SAMPLES = SHARED / "samples" / "dsh"


def _trace(tmp_path: Path, events: list[dict[str, Any]], name: str = "t.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("".join(json.dumps(e) + "\n" for e in events))
    return p


def _same_call(n: int, **extra: Any) -> list[dict[str, Any]]:
    call = {"t": "call", "tool": "bash", "args": {"command": "cat notes.txt", "description": "read"}, "output": "x"}
    return [{**call, **extra} for _ in range(n)]


def _scan(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["scan", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_scan_and_eval_are_subcommands() -> None:
    assert "scan" in COMMANDS and "eval" in COMMANDS


def test_clean_trace_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _scan(capsys, str(_trace(tmp_path, [{"t": "user", "text": "hi"}, *_same_call(2)])))
    assert code == 0 and out == "" and "0 intervention(s)" in err


def test_a_loop_exits_1_and_json_has_one_object_per_intervention(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _trace(tmp_path, [{"t": "meta", "name": "six"}, *_same_call(6)])
    code, out, err = _scan(capsys, str(path), "--json")
    assert code == 1
    found = [json.loads(ln) for ln in out.splitlines()]
    assert found and all({"line", "index", "action", "rule", "agent", "message"} <= f.keys() for f in found)
    assert all(f["action"] in ("deny", "ask", "steer", "abort", "cancel") for f in found)
    first = found[0]
    assert first["action"] == "deny" and first["agent"] == "main"
    assert first["line"] == first["index"] + 2, "line is the file's 1-based line (meta is line 1)"
    assert json.loads(path.read_text().splitlines()[first["line"] - 1])["t"] == "call"
    assert err.startswith("# trace:"), "the summary goes to stderr, marked as a comment"
    code, text, _ = _scan(capsys, str(path))
    assert code == 1 and f"line {first['line']:>5}  DENY" in text


def test_approvals_decide_what_happens_to_an_ask(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cmds = [
        f"curl -s --max-time {i} http://127.0.0.1:3000/health" if i % 2 else "wget -qO- http://127.0.0.1:3000/health"
        for i in range(6)
    ]
    path = _trace(tmp_path, [{"t": "call", "tool": "bash", "args": {"command": c}, "output": "ok"} for c in cmds])
    _, denied, _ = _scan(capsys, str(path), "--json")
    _, allowed, _ = _scan(capsys, str(path), "--json", "--approvals", "allow")
    deny_actions = [json.loads(ln)["action"] for ln in denied.splitlines()]
    allow_actions = [json.loads(ln)["action"] for ln in allowed.splitlines()]
    assert "ask" in deny_actions and "ask" in allow_actions
    assert deny_actions != allow_actions, "a refused ask did not run; an allowed one did"


def test_meta_config_is_applied(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    off = {"t": "meta", "config": {"repeat": {"limits": {"exact": "off", "cmd": "off"}}}}
    code, _, _ = _scan(capsys, str(_trace(tmp_path, [off, *_same_call(6)])))
    assert code == 0
    bad = {"t": "meta", "config": {"repeat": {"window": 2}}}
    code, out, err = _scan(capsys, str(_trace(tmp_path, [bad, *_same_call(1)])))
    assert code == 2 and out == "" and ":1: " in err and "window" in err


@pytest.mark.parametrize(
    ("content", "where", "what"),
    [
        (b'{"t":"user","text":"a"}\n{oops\n', ":2:", "not valid JSON"),
        (b'{"t":"call","tool":"bash","exit":"1"}\n', ":1:", "`exit` must be an integer"),
        (b'{"t":"user","text":"a"}\n{"t":"meta"}\n', ":2:", "meta"),
        (b"", "", "empty file"),
        (b'{"t":"user","text":"a"}\n' + b'{"t":"think","text":"' + b"x" * 100_000 + b'"}\n', ":2:", "longer than"),
    ],
)
def test_bad_traces_exit_2_with_file_line_and_what(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, where: str, what: str, monkeypatch: Any
) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text("[wrapper]\nmax_line_bytes = 65536\n")
    p = tmp_path / "bad.jsonl"
    p.write_bytes(content)
    code, out, err = _scan(capsys, str(p), "--config", str(cfg))
    assert code == 2 and out == ""
    assert err.startswith(f"{p}{where}") and what in err, err
    assert "Traceback" not in err


@pytest.mark.timeout(10)
def test_non_regular_files_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os

    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)
    for target in (fifo, tmp_path, tmp_path / "missing.jsonl"):
        code, _, err = _scan(capsys, str(target))
        assert code == 2 and str(target) in err


def test_output_from_the_file_is_inert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    evil = "\x1b]0;TITLE\x07\x1b[2J\x9b31m[/]\ud800"
    events = [{"t": "call", "tool": "bash" + evil, "agent": evil, "args": {"command": evil}, "output": evil}] * 6
    path = tmp_path / "evil.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    for args in ((), ("--json",)):
        code, out, err = _scan(capsys, str(path), *args)
        assert code == 1
        for stream in (out, err):
            assert "\x1b" not in stream and "\x9b" not in stream and "\x07" not in stream
            stream.encode("utf-8")  # no lone surrogate reached the terminal


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (
            '{"k":"meta","format":"breaker-tui-recording"}\n{"k":"in","t":"event","sessionId":"a","event":5}\n',
            "record 1",
        ),
        ('{"k":"meta","format":"breaker-tui-recording"}\n{"k":"in","t":"hello"}\nnot json\n', ":3: not JSON"),
        ('{"type":"session","id":"s"}\n{"type":"tool/call","seq":1,"time":5,"data":"zzz"}\n', ":2: `data`"),
        ('{"type":"session","id":"s"}\n{"type":"tool/call","seq":1,"time":"x","data":{}}\n', ":2: "),
        ('{"nothing":"known"}\n', "neither a breaker-tui recording nor a dsh session log"),
        (  # cut off mid-record (a full disk): never reported clean
            '{"k":"meta","format":"breaker-tui-recording","version":2}\n{"k":"note","what":"launch"}\n{"k":"in","t":"ev',
            ":3: ",
        ),
    ],
)
def test_malformed_recordings_and_dsh_logs_exit_2_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, what: str
) -> None:
    p = tmp_path / "session.jsonl"
    p.write_text(content)
    code, _, err = _scan(capsys, str(p))
    assert code == 2 and what in err and "Traceback" not in err, err


def test_the_sample_dsh_logs_still_scan(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _scan(capsys, str(SAMPLES / "session.raw.jsonl"))
    assert code == 0 and "ALLOW bash" in out
    code, out, _ = _scan(capsys, str(SAMPLES / "bridge-events.loop-reminders.jsonl"), "--json")
    assert code == 1 and any(json.loads(ln).get("verdict") == "deny" for ln in out.splitlines())


def test_eval_prints_both_modes_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(WORK)]) == 0
    out = capsys.readouterr().out
    assert "mode default" in out and "mode seed" in out
    assert "loops 11" in out and "legitimate 10" in out
    assert main(["eval", str(WORK), "--json", "--mode", "seed"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == ["seed"]
    table = doc["seed"]["table"]
    assert table["cases"] == 21 and table["loops"] == 11
    assert all({"file", "expected", "blocked", "first_rule"} <= c.keys() for c in doc["seed"]["cases"])


def test_eval_of_a_folder_without_traces_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(tmp_path)]) == 2
    assert "no *.jsonl traces" in capsys.readouterr().err


_event = st.fixed_dictionaries(
    {"t": st.sampled_from(["user", "request", "think", "answer", "call"])},
    optional={
        "tool": st.sampled_from(["bash", "read", "edit", "write", "grep", "x" * 300]),
        "args": st.dictionaries(
            st.sampled_from(["command", "file_path", "offset", "old_string", "url"]),
            st.one_of(st.text(max_size=40), st.integers(), st.none(), st.lists(st.text(max_size=5), max_size=3)),
            max_size=3,
        ),
        "text": st.text(max_size=300),
        "output": st.text(max_size=80),
        "exit": st.integers(min_value=-300, max_value=300),
        "error": st.booleans(),
        "agent": st.sampled_from(["main", "sub-1", ""]),
    },
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=st.lists(_event, max_size=30), approvals=st.sampled_from(["deny", "allow"]))
def test_fuzz_scan_never_crashes_on_valid_shaped_traces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], events: list[dict[str, Any]], approvals: str
) -> None:
    for e in events:
        if e["t"] == "call":
            e.setdefault("tool", "bash")
    path = _trace(tmp_path, [{"t": "meta", "name": "fuzz"}, *events], "fuzz.jsonl")
    code, _, err = _scan(capsys, str(path), "--json", "--approvals", approvals)
    assert code in (0, 1, 2), err
    assert code != 2 or err.startswith(str(path)), err


def test_an_internal_error_exits_70_not_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from wrapper.records import importers

    def broken(path: Path, max_bytes: int) -> Any:
        raise ZeroDivisionError("a bug")

    monkeypatch.setitem(importers.IMPORTERS, "swe-agent", (broken, "broken"))
    monkeypatch.delenv("BREAKER_TUI_DEBUG", raising=False)
    code, out, err = _scan(capsys, "--from", "swe-agent", str(_trace(tmp_path, [])))
    assert code == 70 and out == "" and "internal error" in err and "ZeroDivisionError" in err


def test_config_file_mode_reaches_the_trace_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A TDD cycle (a different failure after each edit) is clean by default; the seed rules block it."""
    tdd = str(next(WORK.glob("work-000-*.jsonl")))
    seed = tmp_path / "seed.toml"
    seed.write_text('[engine]\nmode = "seed"\n')
    assert _scan(capsys, tdd)[0] == 0
    assert _scan(capsys, tdd, "--config", str(seed))[0] == 1
