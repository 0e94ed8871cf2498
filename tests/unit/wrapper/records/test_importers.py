"""The SWE-agent importer: .traj steps become trace events; bad files are clear errors."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.trace import TraceError
from tests.conftest import ROOT
from tui.cli import main
from wrapper.records.importers import IMPORTERS, import_trace, importer
from wrapper.records.importers.swe_agent import _Viewer, map_action

DATA = ROOT / "tests" / "unit" / "data"
CYCLE = DATA / "swe-view-cycle.traj"
FIX = DATA / "swe-fix.traj"


def _converted(path: Path) -> list[dict[str, Any]]:
    return list(importer("swe-agent")(path, 1 << 20))


def test_the_registry_names_swe_agent() -> None:
    assert "swe-agent" in IMPORTERS
    with pytest.raises(
        TraceError,
        match="known: atif, claude-code, codex, gemini-cli, mini-swe-agent, openclaw, opencode, openhands, swe-agent",
    ):
        importer("nope")


def test_meta_first_then_the_task_then_think_and_call_per_step() -> None:
    objs = _converted(FIX)
    assert objs[0] == {
        "t": "meta",
        "name": "swe-fix",
        "notes": "imported from a SWE-agent trajectory; exit status submitted",
    }
    assert objs[1] == {"t": "user", "text": "Make add() handle None."}
    kinds = [o["t"] for o in objs[2:]]
    assert kinds == ["think", "call"] * 8


def test_demo_messages_are_not_the_task() -> None:
    objs = _converted(CYCLE)
    assert objs[1] == {"t": "user", "text": "Fix the widget count bug in src/widget.py."}


def test_editor_commands_map_to_read_edit_write() -> None:
    calls = [o for o in _converted(FIX) if o["t"] == "call"]
    assert calls[0]["tool"] == "read" and calls[0]["args"] == {"file_path": "/repo/calc.py", "offset": 1, "limit": 20}
    assert calls[1]["tool"] == "bash" and calls[1]["args"]["command"].startswith("python -c")
    assert calls[2]["tool"] == "edit"
    assert calls[2]["args"] == {
        "file_path": "/repo/calc.py",
        "old_string": "    return a + b",
        "new_string": "    return (a or 0) + (b or 0)",
    }
    assert calls[4]["tool"] == "write" and calls[4]["args"]["file_path"] == "/repo/test_calc.py"
    assert calls[5] | {"output": ""} == {
        "t": "call",
        "tool": "read",
        "args": {"file_path": "/repo/calc.py", "offset": 1},
        "output": "",
    }
    assert calls[6]["tool"] == "edit" and calls[6]["args"]["file_path"] == "/repo/calc.py"
    assert "end_of_edit" not in calls[6]["args"]["new_string"]
    assert calls[7]["args"] == {"command": "submit"}
    assert all("exit" not in c for c in calls), "SWE-agent records no exit status"


def test_the_file_viewer_becomes_reads_of_the_window_it_showed() -> None:
    reads = [o["args"] for o in _converted(CYCLE) if o.get("tool") == "read"]
    assert reads[0] == {"file_path": "/repo/src/widget.py", "offset": 1}
    assert reads[1] == {"file_path": "/repo/src/widget.py", "offset": 101}, "scroll_down read the next window"
    assert [r["offset"] for r in reads[2:6]] == [1, 101, 201, 1], "goto N reads the window its output shows"


def test_viewer_state_without_a_header() -> None:
    v = _Viewer()
    assert map_action("open a.py 40", "File a.py not found", v)["args"] == {"file_path": "a.py", "offset": 40}
    assert map_action("scroll_down", "[File: a.py (90 lines total)]\n(49 more lines above)", v)["args"] == {
        "file_path": "a.py",
        "offset": 50,
    }
    assert map_action("goto 500", "Error: <line> must be less than or equal to 90", v)["tool"] == "bash"
    assert map_action("goto 5", "", _Viewer())["tool"] == "bash", "no open file: left as a shell command"
    failed = map_action("edit 1:1\nx\nend_of_edit", "Your proposed edit has introduced new syntax error(s).", v)
    assert failed["tool"] == "edit" and failed["error"] is True
    broken = map_action("str_replace_editor view", "usage", v)
    assert broken["tool"] == "bash"
    quoted = map_action("str_replace_editor str_replace f.py --old_str 'a b", "", v)
    assert quoted["tool"] == "edit" and quoted["args"]["file_path"] == "f.py"


def test_imported_line_numbers_are_the_converted_traces(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["scan", "--from", "swe-agent", str(CYCLE), "--convert"]) == 0
    converted = tmp_path / "cycle.jsonl"
    converted.write_text(capsys.readouterr().out)
    direct = main(["scan", "--from", "swe-agent", str(CYCLE), "--json"])
    direct_out = capsys.readouterr().out
    via_file = main(["scan", str(converted), "--json"])
    assert direct == via_file and direct_out == capsys.readouterr().out


def test_a_view_cycle_with_identical_outputs_is_caught(capsys: pytest.CaptureFixture[str]) -> None:
    """Period-4 cycle through one file's windows (identical outputs, no edit), five passes: a loop."""
    assert main(["scan", "--from", "swe-agent", str(CYCLE), "--json"]) == 1
    found = [json.loads(ln) for ln in capsys.readouterr().out.splitlines()]
    assert any(f["action"] in ("deny", "abort", "cancel") for f in found)


def test_legitimate_fix_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--from", "swe-agent", str(FIX)]) == 0


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b"not json", "not valid JSON"),
        (b"[1, 2]", "not a SWE-agent trajectory"),
        (b'{"history": []}', "not a SWE-agent trajectory"),
        (b'{"trajectory": [5]}', "trajectory step 1 is not an object"),
        (b"\xff\xfe", "not UTF-8"),
        (b'{"trajectory": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "nested too deeply"),
    ],
)
def test_bad_traj_files_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, what: str) -> None:
    p = tmp_path / "x.traj"
    p.write_bytes(content)
    assert main(["scan", "--from", "swe-agent", str(p)]) == 2
    err = capsys.readouterr().err
    assert what in err and "Traceback" not in err


def test_too_large_and_non_regular_traj_files_are_refused(tmp_path: Path) -> None:
    p = tmp_path / "big.traj"
    p.write_text(json.dumps({"trajectory": [], "pad": "x" * 2000}))
    with pytest.raises(TraceError, match="larger than 1,000 bytes"):
        import_trace("swe-agent", p, max_bytes=1000)
    fifo = tmp_path / "f.traj"
    os.mkfifo(fifo)
    with pytest.raises(TraceError, match="FIFO"):
        import_trace("swe-agent", fifo)


def test_convert_recognises_the_format_and_refuses_a_trace(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["scan", str(FIX), "--convert"]) == 0  # a .traj is recognised: no --from needed
    assert json.loads(capsys.readouterr().out.splitlines()[0])["t"] == "meta"
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"t": "user", "text": "hi"}\n')
    assert main(["scan", str(trace), "--convert"]) == 2
    assert "already a trace; give --from NAME" in capsys.readouterr().err


CLAUDE = DATA / "claude-retry-loop.jsonl"


def test_claude_code_transcripts_pair_calls_with_their_results() -> None:
    objs = list(importer("claude-code")(CLAUDE, 1 << 20))
    assert objs[0]["t"] == "meta" and objs[1] == {"t": "user", "text": "Make npm test pass.", "agent": "main"}
    calls = [o for o in objs if o["t"] == "call"]
    assert len(calls) == 7
    assert calls[0]["tool"] == "bash" and calls[0]["args"] == {"command": "npm test", "description": "Run tests"}
    assert calls[0]["exit"] == 1 and calls[0]["error"] is True and "FAIL src/app.test.js" in calls[0]["output"]
    assert calls[-1] == {
        "t": "call",
        "tool": "read",
        "args": {"file_path": "/p/src/app.js"},
        "agent": "main",
        "output": "1→export const two = 3",
    }
    assert objs[-1] == {"t": "answer", "text": "The test keeps failing.", "agent": "main"}
    assert not any("local-command" in str(o) for o in objs), "isMeta records are skipped"


def test_claude_code_retry_loop_is_steered_then_denied(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", "--from", "claude-code", str(CLAUDE), "--json"]) == 1
    actions = [json.loads(ln)["action"] for ln in capsys.readouterr().out.splitlines()]
    assert "steer" in actions and "deny" in actions


def test_claude_code_bad_input(tmp_path: Path) -> None:
    p = tmp_path / "x.jsonl"
    p.write_text('{"type":"summary"}\n')
    with pytest.raises(TraceError, match="not a Claude Code transcript"):
        list(import_trace("claude-code", p).events)
    p.write_text('{"type":"user"}\n[1]\n')
    with pytest.raises(TraceError, match="transcript line 2"):
        list(import_trace("claude-code", p).events)


_leaf = st.none() | st.booleans() | st.integers() | st.text(max_size=30)
_value = st.recursive(
    _leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
)
_actions = st.sampled_from(
    [
        "open a.py",
        "open a.py 7",
        "goto 3",
        "scroll_down",
        "scroll_up",
        "edit 1:2\nx\nend_of_edit",
        "create b.py",
        "str_replace_editor view a.py --view_range 1 x",
        "str_replace_editor str_replace a.py --old_str 'x",
        "str_replace_editor insert a.py --insert_line 3 --new_str y",
        "str_replace_editor undo_edit a.py",
        "submit",
        "",
        "ls -la",
        "'unbalanced",
    ]
)
_obs = st.sampled_from(
    ["", "[File: /r/a.py (9 lines total)]\n(3 more lines above)\n4:x", "[File: x (1 lines total)]", "Error: "]
)
_step = st.fixed_dictionaries(
    {},
    optional={
        "action": st.one_of(_actions, _value),
        "observation": st.one_of(_obs, _value),
        "thought": _value,
        "response": _value,
        "state": _value,
    },
)
_doc = st.one_of(
    _value,
    st.fixed_dictionaries(
        {"trajectory": st.lists(st.one_of(_step, _value), max_size=6)}, optional={"history": _value, "info": _value}
    ),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=_doc)
def test_fuzz_the_swe_agent_importer_raises_only_trace_errors(tmp_path: Path, doc: Any) -> None:
    p = tmp_path / "f.traj"
    p.write_text(json.dumps(doc))
    try:
        trace = import_trace("swe-agent", p)
        for e in trace.events:
            assert e.kind in ("user", "think", "answer", "call", "request")
    except TraceError as e:
        assert e.args[0]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    records=st.lists(
        st.one_of(
            _value,
            st.fixed_dictionaries(
                {"type": st.sampled_from(["user", "assistant", "summary"])},
                optional={
                    "message": st.one_of(
                        _value,
                        st.fixed_dictionaries(
                            {},
                            optional={
                                "content": st.one_of(
                                    _value,
                                    st.lists(
                                        st.fixed_dictionaries(
                                            {"type": st.sampled_from(["text", "thinking", "tool_use", "tool_result"])},
                                            optional={
                                                "text": _value,
                                                "thinking": _value,
                                                "id": _value,
                                                "name": _value,
                                                "input": _value,
                                                "tool_use_id": _value,
                                                "content": _value,
                                                "is_error": _value,
                                            },
                                        ),
                                        max_size=3,
                                    ),
                                )
                            },
                        ),
                    ),
                    "isSidechain": _value,
                    "isMeta": _value,
                },
            ),
        ),
        max_size=6,
    )
)
def test_fuzz_the_claude_code_importer_raises_only_trace_errors(tmp_path: Path, records: list[Any]) -> None:
    p = tmp_path / "f.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in records))
    try:
        for e in import_trace("claude-code", p).events:
            assert e.kind in ("user", "think", "answer", "call", "request")
    except TraceError as e:
        assert e.args[0]


def test_a_legacy_reproduce_fix_cycle_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    """create/edit/run reproduce.py, open + edit the module three times, each run printing something new."""
    assert main(["scan", "--from", "swe-agent", str(DATA / "swe-legacy-fix.traj")]) == 0


def test_scrolling_back_and_forth_without_an_edit_is_caught(capsys: pytest.CaptureFixture[str]) -> None:
    """45 scrolls of 10 lines up and down one file, nothing edited: the model is lost in the file."""
    assert main(["scan", "--from", "swe-agent", str(DATA / "swe-scroll-loop.traj"), "--json"]) == 1
    found = [json.loads(ln) for ln in capsys.readouterr().out.splitlines()]
    assert found and found[0]["action"] == "deny"


OPENHANDS = DATA / "openhands-retry.json"


def test_openhands_events_become_calls_with_their_observations() -> None:
    objs = list(importer("openhands")(OPENHANDS, 1 << 20))
    assert objs[1] == {"t": "user", "text": "Fix the failing test in tests/test_api.py."}
    calls = [o for o in objs if o["t"] == "call"]
    assert calls[0]["tool"] == "read" and calls[0]["args"] == {
        "file_path": "/ws/tests/test_api.py",
        "offset": 1,
        "limit": 40,
    }
    assert calls[1]["args"] == {"command": "pytest tests/test_api.py -q"} and calls[1]["exit"] == 1
    assert calls[7] | {"output": ""} == {
        "t": "call",
        "tool": "edit",
        "args": {"file_path": "/ws/api.py", "old_string": "return 500", "new_string": "return 200"},
        "output": "",
    }
    assert calls[8]["args"]["command"].startswith("python3 - <<'EOF'\nprint(1 + 1)")
    assert objs[-1] == {"t": "answer", "text": "I could not fix it."}
    assert not any(o.get("tool") in ("system", "recall", "finish") for o in objs)


def test_openhands_retry_loop_is_caught_and_bad_input_is_clear(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scan", "--from", "openhands", str(OPENHANDS)]) == 1
    capsys.readouterr()
    p = tmp_path / "v1.json"
    p.write_text(json.dumps([{"kind": "ActionEvent", "id": "a"}]))
    assert main(["scan", "--from", "openhands", str(p)]) == 2
    assert "V1 SDK" in capsys.readouterr().err
    p.write_text(json.dumps({"nothing": 1}))
    assert main(["scan", "--from", "openhands", str(p)]) == 2
    assert "not an OpenHands event list" in capsys.readouterr().err


_oh_event = st.one_of(
    _value,
    st.fixed_dictionaries(
        {"id": st.integers(0, 5)},
        optional={
            "action": st.sampled_from(
                ["run", "run_ipython", "read", "edit", "write", "message", "think", "browse", "x"]
            ),
            "observation": st.sampled_from(["run", "error", "read"]),
            "cause": st.integers(0, 5),
            "source": st.sampled_from(["user", "agent"]),
            "args": st.one_of(
                _value,
                st.dictionaries(
                    st.sampled_from(
                        ["command", "path", "view_range", "start", "end", "thought", "content", "code", "old_str"]
                    ),
                    _value,
                    max_size=4,
                ),
            ),
            "content": _value,
            "extras": _value,
        },
    ),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    doc=st.one_of(
        _value, st.lists(_oh_event, max_size=8), st.fixed_dictionaries({"history": st.lists(_oh_event, max_size=8)})
    )
)
def test_fuzz_the_openhands_importer_raises_only_trace_errors(tmp_path: Path, doc: Any) -> None:
    p = tmp_path / "f.json"
    p.write_text(json.dumps(doc))
    try:
        for e in import_trace("openhands", p).events:
            assert e.kind in ("user", "think", "answer", "call", "request")
    except TraceError as e:
        assert e.args[0]


def test_a_traj_with_only_a_history_is_read_from_its_actions(tmp_path: Path) -> None:
    history = [
        {"role": "system", "content": "SETTING: ..."},
        {"role": "user", "content": "Fix the missing colon."},
        {"role": "assistant", "content": "", "thought": "Find it.", "action": "find_file missing_colon.py"},
        {"role": "tool", "content": "Found 1 matches for missing_colon.py: tests/missing_colon.py"},
        {"role": "assistant", "content": "", "thought": "Open it.", "action": "open tests/missing_colon.py"},
        {"role": "tool", "content": "[File: tests/missing_colon.py (10 lines total)]\n1:def f(a)\n"},
        {"role": "assistant", "content": "Done."},
    ]
    p = tmp_path / "h.traj"
    p.write_text(json.dumps({"history": history}))
    objs = list(importer("swe-agent")(p, 1 << 20))
    calls = [o for o in objs if o["t"] == "call"]
    assert [c["tool"] for c in calls] == ["bash", "read"]
    assert calls[0]["args"] == {"command": "find_file missing_colon.py"} and "Found 1 matches" in calls[0]["output"]
    assert calls[1]["args"]["file_path"] == "tests/missing_colon.py"
    assert [o["text"] for o in objs if o["t"] == "think"] == ["Find it.", "Open it."]


def test_openhands_pairs_and_editor_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # an older evaluation record: [action, observation] pairs; the editor reports errors as text
    pairs = [[{"id": 0, "source": "user", "action": "message", "args": {"content": "fix it"}}, {"observation": "null"}]]
    for k in range(6):
        act = {
            "id": 2 * k + 1,
            "source": "agent",
            "action": "edit",
            "args": {"command": "str_replace", "path": "/w/a.c"},
        }
        obs = {
            "id": 2 * k + 2,
            "cause": 2 * k + 1,
            "observation": "edit",
            "content": "ERROR:\nParameter `old_str` is required",
        }
        pairs.append([act, obs])
    p = tmp_path / "old.json"
    p.write_text(json.dumps({"history": pairs}))
    objs = list(importer("openhands")(p, 1 << 20))
    calls = [o for o in objs if o["t"] == "call"]
    assert objs[1] == {"t": "user", "text": "fix it"} and len(calls) == 6
    assert all(c.get("error") for c in calls)
    assert main(["scan", "--from", "openhands", str(p)]) == 1  # the same broken edit six times is a loop
    assert "DENY" in capsys.readouterr().out


def test_claude_code_stream_json_subagent_records_belong_to_the_sidechain(tmp_path: Path) -> None:
    use = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}
    res = {"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}
    lines = [
        {"type": "system", "subtype": "init"},
        {"type": "assistant", "parent_tool_use_id": "task1", "message": {"role": "assistant", "content": [use]}},
        {"type": "user", "parent_tool_use_id": "task1", "message": {"role": "user", "content": [res]}},
        {"type": "result", "subtype": "success"},
    ]
    p = tmp_path / "run.jsonl"
    p.write_text("".join(json.dumps(x) + "\n" for x in lines))
    calls = [o for o in importer("claude-code")(p, 1 << 20) if o["t"] == "call"]
    assert [(c["agent"], c["args"], c["output"]) for c in calls] == [("sidechain", {"command": "ls"}, "a.txt")]


def test_an_imported_result_is_read_with_its_call_as_the_live_engine_reads_it() -> None:
    # a harness's `$ CMD` restatement above `Wrong flag!` is the call's echo, not the start of the message
    from engine.tools.errortext import reads_as_error
    from wrapper.records.importers.common import settle

    args = {"command": "submit flag{x}"}
    output = "$ submit flag{x}\nWrong flag!"
    assert reads_as_error("bash", output, args)
    assert settle({"tool": "bash", "args": args}, output).get("error") is True
