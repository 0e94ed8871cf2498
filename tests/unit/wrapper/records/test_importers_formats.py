"""The importers of other agents' logs: mini-swe-agent, Harbor ATIF, OpenClaw, Codex, Gemini CLI, opencode.

Each is read from a small hand-written file (`tests/unit/data/formats/`) or from an original in
`tests/data/real/formats/`; `scan FILE` recognises every format without `--from`, and a bad file is
`FILE:LINE: what is wrong` with exit 2, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.trace import TraceError
from tests.conftest import ROOT
from tui.cli import main
from wrapper.records.importers import IMPORTERS, importer
from wrapper.records.importers.detect import UnknownFormat, recognise

HAND = ROOT / "tests" / "unit" / "data" / "formats"
REAL = ROOT / "tests" / "data" / "real" / "formats"
MINI_RETRY = HAND / "mini-text-retry.traj.json"
ATIF = HAND / "atif-claude.trajectory.json"
BRANCHED = HAND / "openclaw-branched.jsonl"


def _objs(name: str, path: Path) -> list[dict[str, Any]]:
    return list(importer(name)(path, 1 << 22))


def _calls(name: str, path: Path) -> list[dict[str, Any]]:
    return [o for o in _objs(name, path) if o["t"] == "call"]


def test_mini_swe_agent_text_variant() -> None:
    objs = _objs("mini-swe-agent", MINI_RETRY)
    assert objs[0]["t"] == "meta" and objs[1] == {
        "t": "user",
        "text": "<pr_description>Make repro.py pass.</pr_description>",
    }
    calls = [o for o in objs if o["t"] == "call"]
    assert calls[0] == {"t": "call", "tool": "bash", "args": {"command": "ls"}, "output": "repro.py\nlib.py", "exit": 0}
    # a reply with two bash blocks is a format error: an answer, and the harness's reply to it is no result
    assert {"t": "answer", "text": "I will run two commands.\n```bash\nls\n```\n```bash\npwd\n```"} in objs
    assert not any("EXACTLY ONE action" in str(o.get("output", "")) for o in calls)
    assert calls[1]["args"] == {"command": "python repro.py --slow"} and calls[1]["error"] is True  # timed out
    assert [c.get("exit") for c in calls[2:]] == [1] * 6
    assert all(c["output"].endswith("No module named 'lib2'") for c in calls[2:])


def test_mini_swe_agent_tool_call_variant_from_a_real_file() -> None:
    calls = _calls("mini-swe-agent", REAL / "mini-swe-agent.django__django-11119.traj.json")
    assert len(calls) == 9
    assert calls[0]["args"] == {"command": "ls -la"} and calls[0]["exit"] == 0
    assert calls[0]["output"].startswith("total 172")
    assert "<returncode>" not in calls[0]["output"]


def test_the_retry_loop_is_stopped_and_the_format_recognised(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(MINI_RETRY), "--json"]) == 1  # no --from: recognised as mini-swe-agent
    found = [json.loads(ln) for ln in capsys.readouterr().out.splitlines()]
    assert [f["action"] for f in found][:3] == ["steer", "steer", "deny"]


def test_atif_steps_calls_and_results_by_id() -> None:
    objs = _objs("atif", ATIF)
    assert objs[0]["notes"].endswith("(claude-code / claude-sonnet-4-5)")
    assert objs[1] == {"t": "user", "text": "Build the site."}  # the system step is the harness's
    calls = [o for o in objs if o["t"] == "call"]
    assert [c["tool"] for c in calls] == ["bash", "bash", "read"]  # Claude Code's names, as claude-code imports them
    # no status field: `command not found` reads as an error (engine.tools.errortext), a printed exit code is one
    assert calls[0]["error"] is True and "exit" not in calls[0]
    assert calls[1]["args"] == {"command": "make site"} and calls[1]["exit"] == 2  # arguments as a JSON string
    assert "error" not in calls[2] and "exit" not in calls[2]
    assert objs[-1] == {"t": "answer", "text": "The target is `all`: run `make all`."}


def test_openclaw_follows_the_active_branch() -> None:
    objs = _objs("openclaw", BRANCHED)
    users = [o["text"] for o in objs if o["t"] == "user"]
    assert users == ["list the files", "instead, show b.txt", "(the person ran) touch b.txt"]
    calls = [o for o in objs if o["t"] == "call"]
    assert [c["args"] for c in calls] == [{"command": "ls"}, {"path": "b.txt"}, {"command": "cat b.txt"}]
    assert "rm a.txt" not in json.dumps(objs), "the abandoned branch did not happen in this session"
    assert calls[1]["error"] is True  # a read answering `Error: ENOENT` with isError false: judged by its text
    assert calls[2]["exit"] == 1 and calls[2]["error"] is True


def test_openclaw_real_branched_session_keeps_only_its_last_branch() -> None:
    """pi's own fixture: a haiku, then a second haiku; the person went back and asked for a limerick instead."""
    objs = _objs("openclaw", REAL / "pi-openclaw.session.branched.jsonl")
    users = [o["text"] for o in objs if o["t"] == "user"]
    assert users == [
        "write a haiku about coding to haiku1.txt",
        "instead write a limerick to limerick.txt",
        "(the person ran) rm -f haiku1.txt haiku2.txt limerick.txt",
    ]
    assert [c["args"]["path"] for c in objs if c["t"] == "call"] == ["haiku1.txt", "limerick.txt"]
    crud = _objs("openclaw", REAL / "pi-openclaw.session.crud.jsonl")
    assert [c["tool"] for c in crud if c["t"] == "call"] == ["write", "read", "edit", "bash"]


_HEAD = {"type": "session", "id": "s"}


def _msg(id_: str, parent: str) -> dict[str, Any]:
    return {"type": "message", "id": id_, "parentId": parent}


@pytest.mark.parametrize(
    ("records", "what"),
    [
        ([{"type": "model_change", "id": "a"}], "not an OpenClaw session"),
        ([_HEAD, _msg("m", "gone")], ":2: `parentId` 'gone' names no record"),
        ([_HEAD, _msg("a", "b"), _msg("b", "a")], "chain loops back"),
        ([_HEAD, 7], ":2: not an OpenClaw session record"),
    ],
)
def test_openclaw_bad_trees_are_clear(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], records: list[Any], what: str
) -> None:
    p = tmp_path / "s.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["scan", "--from", "openclaw", str(p)]) == 2
    err = capsys.readouterr().err
    assert what in err and "Traceback" not in err


def test_codex_shells_are_bash_calls_with_their_exit_status() -> None:
    objs = _objs("codex", REAL / "codex.rollout.crud.jsonl")
    users = [o["text"] for o in objs if o["t"] == "user"]
    assert len(users) == 1 and users[0].startswith("create a file `JOKE.md`")  # AGENTS.md, environment: not the person
    calls = [o for o in objs if o["t"] == "call"]
    assert [c["tool"] for c in calls] == ["bash", "bash", "apply_patch", "bash"]
    assert calls[1]["args"] == {"command": "cat /Users/philipp/dev/agentlogs/fixtures/JOKE.md"}
    assert calls[1]["exit"] == 0 and calls[1]["output"].startswith("# The Late Comedian")  # after `Output:`
    assert calls[2]["exit"] == 0 and calls[2]["output"].startswith("Success. Updated")  # the JSON form
    assert any(o["t"] == "think" and "Planning file operations" in o["text"] for o in objs)


def test_gemini_cli_results_status_and_shell_noise() -> None:
    calls = _calls("gemini-cli", REAL / "gemini-cli.chat.fragment.json")
    assert calls[0]["tool"] == "read_file" and calls[0]["output"].startswith("# OpenPowerlifting")
    shell = calls[1]
    assert shell["exit"] == 0 and shell["output"].startswith("Package     Version")
    # the process group and pids change on every run: dropped, so two identical runs read the same
    assert "PGID" not in shell["output"] and "Background PIDs" not in shell["output"]


def test_gemini_cli_error_status(tmp_path: Path) -> None:
    tc = {"id": "1", "name": "replace", "args": {"file_path": "a.py"}, "status": "error",
          "result": [{"functionResponse": {"response": {"error": "Failed to edit, 0 occurrences found"}}}]}  # fmt: skip
    p = tmp_path / "session-1.json"
    p.write_text(
        json.dumps(
            {
                "sessionId": "s",
                "messages": [{"type": "user", "content": "fix"}, {"type": "gemini", "content": "", "toolCalls": [tc]}],
            }
        )
    )
    assert recognise(p) == "gemini-cli"
    (call,) = _calls("gemini-cli", p)
    assert call["error"] is True and call["output"] == "Failed to edit, 0 occurrences found"


def test_opencode_parts_become_events() -> None:
    objs = _objs("opencode", REAL / "opencode.export.crud.json")
    assert objs[1]["t"] == "user" and objs[1]["text"].startswith("create a file JOKE.md")
    calls = [o for o in objs if o["t"] == "call"]
    assert [c["tool"] for c in calls] == ["write", "read", "edit", "bash"]
    assert calls[2]["args"]["oldString"] == "Just a random footer line."
    assert sum(o["t"] == "request" for o in objs) == 5  # one per step-start


def test_opencode_error_and_unfinished_tools(tmp_path: Path) -> None:
    parts = [
        {"type": "step-start"},
        {
            "type": "tool",
            "tool": "edit",
            "state": {"status": "error", "input": {"filePath": "a"}, "error": "oldString not found"},
        },
        {"type": "tool", "tool": "bash", "state": {"status": "running", "input": {"command": "sleep 100"}}},
    ]
    p = tmp_path / "export.json"
    p.write_text(json.dumps({"info": {"id": "ses_1"}, "messages": [{"info": {"role": "assistant"}, "parts": parts}]}))
    assert recognise(p) == "opencode"
    calls = _calls("opencode", p)
    assert calls[0] == {
        "t": "call",
        "tool": "edit",
        "args": {"filePath": "a"},
        "output": "oldString not found",
        "error": True,
    }
    assert calls[1] == {"t": "call", "tool": "bash", "args": {"command": "sleep 100"}}  # no result: none invented


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        (MINI_RETRY, "mini-swe-agent"),
        (REAL / "mini-swe-agent.django__django-11119.traj.json", "mini-swe-agent"),
        (ATIF, "atif"),
        (BRANCHED, "openclaw"),
        (REAL / "pi-openclaw.session.crud.jsonl", "openclaw"),
        (REAL / "codex.rollout.crud.jsonl", "codex"),
        (REAL / "gemini-cli.chat.fragment.json", "gemini-cli"),
        (REAL / "opencode.export.crud.json", "opencode"),
        (ROOT / "tests" / "unit" / "data" / "swe-fix.traj", "swe-agent"),
        (ROOT / "tests" / "unit" / "data" / "openhands-retry.json", "openhands"),
        (ROOT / "tests" / "unit" / "data" / "claude-retry-loop.jsonl", "claude-code"),
        (ROOT / "tests" / "data" / "real" / "real-098-sweagent-ctf-crypto-eps.jsonl", "trace"),
    ],
)
def test_every_format_is_recognised(path: Path, kind: str) -> None:
    assert recognise(path) == kind


def test_dsh_logs_and_recordings_are_left_to_the_replayer(tmp_path: Path) -> None:
    dsh = tmp_path / "session.jsonl"
    dsh.write_text(
        '{"type":"session","version":0,"id":"session-1","createdAt":1,"cwd":"/w"}\n'
        '{"type":"turn/start","seq":0,"time":1,"data":{}}\n'
    )
    assert recognise(dsh) == ""  # `type: session` as OpenClaw's header, but its records carry `seq`
    rec = tmp_path / "rec.jsonl"
    rec.write_text('{"k": "meta", "format": "breaker-tui-recording", "version": 2}\n')
    assert recognise(rec) == ""
    unknown = tmp_path / "config.json"
    unknown.write_text('{\n  "model": "x"\n}\n')
    with pytest.raises(UnknownFormat, match="no format scan knows"):
        recognise(unknown)


_MINI = b'{"trajectory_format": "mini-swe-agent-1.1", "messages": '
_ROLLOUT = b'{"type": "session_meta", "payload": {}}\n{"type": "response_item", "payload": {}}\n'


@pytest.mark.parametrize(
    ("name", "content", "where"),
    [
        ("mini.traj.json", b'{\n "messages": [\n  {"role": "user",,}\n ]\n}', ":3: not valid JSON"),
        ("mini.traj.json", _MINI + b"3}", "not a mini-swe-agent trajectory"),
        ("mini.traj.json", _MINI + b'[{"role": "user"}, 4]}', "messages[1] is not an object"),
        ("trajectory.json", b'{"schema_version": "ATIF-v1.4", "steps": {}}', "not an ATIF trajectory"),
        ("rollout.jsonl", _ROLLOUT + b"{oops\n", ":3: not valid JSON"),
        ("session-1.json", b'{"sessionId": "s", "messages": ["x"]}', "messages[0] is not an object"),
        ("export.json", b'{"info": {}, "messages": [{"info": {}, "parts": []}, 1]}', "messages[1] is not an object"),
    ],
)
def test_bad_files_are_file_line_what_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes, where: str
) -> None:
    p = tmp_path / name
    p.write_bytes(content)
    assert main(["scan", str(p)]) == 2
    err = capsys.readouterr().err
    assert f"{p}" in err and where in err and "Traceback" not in err


def test_from_still_forces_a_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--from", "opencode", str(MINI_RETRY)]) == 2  # a mini-swe-agent file read as opencode
    assert "messages[0] has no `parts`: not an opencode export" in capsys.readouterr().err
    assert main(["scan", "--from", "atif", str(MINI_RETRY)]) == 2
    assert "not an ATIF trajectory (no `steps` list)" in capsys.readouterr().err


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(
        ["messages", "steps", "role", "content", "type", "payload", "tool_calls", "function", "source", "message",
         "observation", "results", "parts", "info", "state", "id", "parentId", "toolCalls", "result", "status"]
    ), inner, max_size=5),
    max_leaves=20,
)  # fmt: skip
_NEW = ("mini-swe-agent", "atif", "openclaw", "codex", "gemini-cli", "opencode")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_json, lines=st.lists(_json, max_size=5))
def test_fuzz_the_new_importers_raise_only_trace_errors(tmp_path: Path, doc: Any, lines: list[Any]) -> None:
    whole, jsonl = tmp_path / "f.json", tmp_path / "f.jsonl"
    whole.write_text(json.dumps(doc))
    jsonl.write_text("".join(json.dumps(x) + "\n" for x in [{"type": "session", "id": "s"}, *lines]))
    for name in _NEW:
        assert name in IMPORTERS
        for p in (whole, jsonl):
            try:
                for o in importer(name)(p, 1 << 20):
                    assert isinstance(o, dict) and o["t"] in ("meta", "user", "request", "think", "answer", "call")
            except TraceError:
                pass


@pytest.mark.parametrize(
    ("original", "trace"),
    [
        ("mini-swe-agent.django__django-11119.traj.json", "real-054-liveswe-gpt5mini-django__django-11119.jsonl"),
        ("codex.rollout.crud.jsonl", "real-150-agentlogs-codex-crud.jsonl"),
        ("opencode.export.crud.json", "real-153-agentlogs-opencode-crud.jsonl"),
        ("pi-openclaw.session.branched.jsonl", "real-154-agentlogs-pi-branched.jsonl"),
        ("pi-openclaw.session.crud.jsonl", "real-155-agentlogs-pi-crud.jsonl"),
        ("gemini-cli.chat.fragment.json", "real-159-geminicli-skillsbench-powerlifting-coef-calc-fragment.jsonl"),
    ],
)
def test_the_real_corpus_is_what_the_importers_read(original: str, trace: str) -> None:
    """The corpus traces of these formats are the importers' reading of the originals (trimmed as the
    corpus README says), not the throwaway converter's: `tools/reimport.py` re-made them.
    """
    import importlib.util

    spec = importlib.util.spec_from_file_location("convert", ROOT / "tests" / "data" / "real" / "tools" / "convert.py")
    assert spec is not None and spec.loader is not None
    convert = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(convert)
    path = REAL / original
    events = convert.finish([o for o in _objs(recognise(path), path) if o["t"] != "meta"])
    lines = (ROOT / "tests" / "data" / "real" / trace).read_text().splitlines()
    assert events == [json.loads(ln) for ln in lines[1:]]
