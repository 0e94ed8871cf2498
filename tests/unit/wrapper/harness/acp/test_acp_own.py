"""The person's own agent settings (`wrapper.harness.acp.own`) and the answers breaker-tui gives with them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.wrapper.harness.acp.test_acp_monitor import OPTIONS, asked_call, finish, fresh
from wrapper.harness.acp.own import claude_settings, codex_settings, gemini_settings, opencode_settings
from wrapper.harness.acp.presets import PRESETS
from wrapper.items import ApprovalItem


def test_opencode_permission_layers_and_patterns(tmp_path: Path) -> None:
    cfg = tmp_path / ".config" / "opencode"
    cfg.mkdir(parents=True)
    (cfg / "opencode.json").write_text(json.dumps({"permission": {"bash": {"*": "ask", "git *": "allow"}}}))
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "opencode.jsonc").write_text('// mine\n{"permission": {"edit": "deny",}}\n')
    own = opencode_settings({"HOME": str(tmp_path)}, str(tmp_path / "ws"))
    assert own.decide("execute", "bash", "git status") == "allow"
    assert own.decide("execute", "bash", "rm -rf build") == "ask"
    assert own.decide("edit", "edit", "") == "deny"
    assert own.decide("fetch", "webfetch", "") == "allow", "opencode's own default is allow"
    assert opencode_settings({"HOME": str(tmp_path / "none")}, str(tmp_path)).decide("execute", "", "x") == "allow"


def test_claude_mode_and_rules(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    perms = {"defaultMode": "acceptEdits", "allow": ["Bash(npm test:*)"], "deny": ["Bash(rm:*)"]}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"permissions": perms}))
    own = claude_settings({"HOME": str(tmp_path)}, str(tmp_path))
    assert own.decide("execute", "Bash", "npm test -- -x") == "allow"
    assert own.decide("execute", "Bash", "rm -rf /") == "deny"
    assert own.decide("execute", "Bash", "make") == "ask"
    assert own.decide("edit", "Edit", "") == "allow", "acceptEdits allows edits"
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"defaultMode": "bypassPermissions"}})
    )
    assert claude_settings({"HOME": str(tmp_path)}, str(tmp_path)).decide("execute", "Bash", "make") == "allow"


def test_codex_approval_policy_from_the_command_line_or_config(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('approval_policy = "untrusted"\n')
    assert codex_settings({"CODEX_HOME": str(tmp_path)}, ["codex-acp"]).decide("execute", "", "ls") == "ask"
    argv = ["codex-acp", "-c", 'approval_policy="never"']
    assert codex_settings({"CODEX_HOME": str(tmp_path)}, argv).decide("execute", "", "ls") == "allow"


def test_the_persons_allow_answers_without_a_question_and_the_repeat_is_still_refused(tmp_path: Path) -> None:
    m = fresh()
    m.own = opencode_settings({"HOME": str(tmp_path)}, str(tmp_path))  # no config: opencode allows
    for n in range(4):
        cid, r = asked_call(m, n, "cat notes.txt; echo ran >> calls.log")
        assert r.question is None and r.reply == {"outcome": {"outcome": "selected", "optionId": "once"}}
        answered = [i for i in r.items if isinstance(i, ApprovalItem) and i.answer]
        assert answered and answered[0].by == "policy" and answered[0].why.startswith("your test settings"), answered
        finish(m, cid)
    _, r = asked_call(m, 4, "cat notes.txt; echo ran >> calls.log")
    assert r.reply == {"outcome": {"outcome": "selected", "optionId": "reject"}}


def test_policy_answers_are_labelled_policy_not_operator() -> None:
    m = fresh()
    _, r = asked_call(m, 0, "make test")
    assert r.question is not None
    done = m.answered({"options": OPTIONS}, r.question, "deny", "policy")
    assert [i.by for i in done.items if isinstance(i, ApprovalItem)] == ["policy"]
    assert m.answered({"options": OPTIONS}, r.question, "deny").items[-1].by == "person"  # type: ignore[union-attr]


def test_gemini_approval_mode_from_its_flags_else_its_settings_layers(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    env = {"HOME": str(home), "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(tmp_path / "none.json")}
    # nothing set: Gemini's default mode asks, so the person is asked
    assert gemini_settings(env, str(ws), ["gemini"]).decide("execute", "", "make") == "ask"
    assert gemini_settings(env, str(ws), ["gemini", "--yolo"]).decide("execute", "", "make") == "allow"
    assert gemini_settings(env, str(ws), ["gemini", "--approval-mode=yolo"]).decide("edit", "", "") == "allow"
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps({"general": {"defaultApprovalMode": "auto_edit"}}))
    own = gemini_settings(env, str(ws), ["gemini"])
    assert (own.decide("edit", "", ""), own.decide("execute", "", "make")) == ("allow", "ask"), own
    assert "auto_edit" in own.source
    # the project's settings win over the user's; yolo there is ignored, as Gemini ignores it
    (ws / ".gemini").mkdir(parents=True)
    (ws / ".gemini" / "settings.json").write_text(json.dumps({"general": {"defaultApprovalMode": "plan"}}))
    own = gemini_settings(env, str(ws), ["gemini"])
    assert (own.decide("edit", "", ""), own.decide("execute", "", "ls")) == ("deny", "ask")
    (ws / ".gemini" / "settings.json").write_text(json.dumps({"general": {"defaultApprovalMode": "yolo"}}))
    assert gemini_settings(env, str(ws), ["gemini"]).decide("edit", "", "") == "allow"  # the user's auto_edit
    assert gemini_settings(env, str(ws), ["gemini", "--approval-mode", "bogus"]).decide("edit", "", "") is None


def test_gemini_is_made_to_ask_by_its_mode_and_its_yolo_answers_for_the_person(tmp_path: Path) -> None:
    assert PRESETS["gemini"].mode == "default"  # a person's --yolo would never ask: the refusal needs the ask
    m = fresh()
    m.agent_name = "gemini"
    m.own = gemini_settings({"HOME": str(tmp_path)}, str(tmp_path), ["gemini", "--yolo"])
    for n in range(4):
        cid, r = asked_call(m, n, "cat notes.txt; echo ran >> calls.log")
        answered = [i for i in r.items if isinstance(i, ApprovalItem) and i.answer]
        assert r.question is None and answered and answered[0].by == "policy", r.items
        assert "your --yolo = yolo" in answered[0].why
        finish(m, cid)
    _, r = asked_call(m, 4, "cat notes.txt; echo ran >> calls.log")
    assert r.reply == {"outcome": {"outcome": "selected", "optionId": "reject"}}
