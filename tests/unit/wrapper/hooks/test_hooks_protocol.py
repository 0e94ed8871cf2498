"""Each agent's payloads (captured from the real CLIs) read into the engine's terms, and the answers written back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wrapper.hooks.agents import BadPayload, answer
from wrapper.hooks.payloads import parse

SAMPLES = Path(__file__).resolve().parents[3] / "data" / "hooks"


def raw(agent: str, name: str) -> bytes:
    path = SAMPLES / agent / name
    if not path.exists():
        pytest.skip(f"the captured hook payloads are not here ({path})")
    return path.read_bytes()


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_a_shell_call_is_the_engines_bash_call_without_the_models_description(agent: str) -> None:
    c = parse(agent, raw(agent, "pre-1.stdin.json"))
    assert c.phase == "before" and c.tool == "bash"
    assert c.args == {"command": "echo ran >> calls.log; echo same-call-output"}
    assert c.session and (c.call_id or agent == "gemini")


@pytest.mark.parametrize(("agent", "code", "text"), [("claude", 3, "out-line"), ("gemini", 3, "Exit Code: 3")])
def test_the_exit_code_is_read_the_agents_way(agent: str, code: int, text: str) -> None:
    c = parse(agent, raw(agent, "post-failed-command.stdin.json"))
    assert c.phase == "after" and c.exit == code and text in c.text


def test_codex_gives_one_output_string_and_no_exit_code() -> None:
    c = parse("codex", raw("codex", "post-failed-command.stdin.json"))
    assert c.exit is None and c.text == "out-line\nerr-line\n"


def test_a_successful_claude_result_is_exit_0_and_its_stdout() -> None:
    c = parse("claude", raw("claude", "post-1.stdin.json"))
    assert c.exit == 0 and c.text == "same-call-output"


@pytest.mark.parametrize(
    ("payload", "says"),
    [
        (b"{", "not JSON"),
        (b"[]", "not an object"),
        (b'{"hook_event_name": "Stop"}', "not one breaker handles"),
        (b'{"hook_event_name": "PreToolUse"}', "no tool_name"),
    ],
)
def test_a_bad_payload_names_what_is_wrong(payload: bytes, says: str) -> None:
    with pytest.raises(BadPayload, match=says):
        parse("claude", payload)


def test_an_unknown_agent_is_named() -> None:
    with pytest.raises(BadPayload, match="unknown agent 'cursor'"):
        parse("cursor", b"{}")


def test_allow_is_silent_for_every_agent() -> None:
    assert {answer(a, "allow", "") for a in ("claude", "codex", "gemini")} == {("", 0)}


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_claude_and_codex_refuse_in_the_captured_format(agent: str) -> None:
    out, code = answer(agent, "deny", "because")
    want = json.loads(raw(agent, "pre-5.stdout.txt").splitlines()[0])
    got = json.loads(out)
    assert (
        code == 0
        and got.keys() == want.keys()
        and got["hookSpecificOutput"].keys() == want["hookSpecificOutput"].keys()
    )
    assert got["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_gemini_is_never_answered_ask_it_would_hang() -> None:
    got = json.loads(answer("gemini", "ask", "a local repeat")[0])
    assert got["decision"] == "deny" and "cannot ask" in got["reason"]


def test_codex_cannot_ask_so_an_ask_is_a_refusal_and_claude_gets_its_own_prompt() -> None:
    assert json.loads(answer("codex", "ask", "r")[0])["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert json.loads(answer("claude", "ask", "r")[0])["hookSpecificOutput"]["permissionDecision"] == "ask"


@pytest.mark.parametrize(
    "reason",
    [
        "breaker-tui refused this call (rule repeat:cmd): REPEAT_TOOL_BLOCKED: …\nmore",  # the engine's refusal
        "breaker-tui could not check this call (no server) and its hooks were installed fail-closed",
        "a reason of another wording",
    ],
)
def test_what_gemini_shows_the_person_names_breaker_tui_once(reason: str) -> None:
    shown = json.loads(answer("gemini", "deny", reason)[0])["systemMessage"]
    assert shown.count("breaker-tui") == 1 and shown.startswith("breaker-tui") and "\n" not in shown
