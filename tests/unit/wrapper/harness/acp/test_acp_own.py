"""The person's own agent settings (`wrapper.harness.acp.own`) and the answers breaker-tui gives with them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.unit.wrapper.harness.acp.test_acp_monitor import OPTIONS, asked_call, finish, fresh
from wrapper.harness.acp.agent_homes import kilo_defaults, kilo_home, qwen_defaults, qwen_home
from wrapper.harness.acp.own import (
    claude_settings,
    codex_settings,
    gemini_settings,
    kilo_settings,
    opencode_settings,
    qwen_settings,
    wildcard,
)
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


def test_opencodes_wildcard_as_kilo_matches_it() -> None:
    assert wildcard("ls", "ls *") and wildcard("ls -la", "ls *"), "a trailing ` *` also matches the bare command"
    assert not wildcard("lsof", "ls *")
    assert wildcard("git log\n--oneline", "git *"), "`*` runs over newlines"
    assert wildcard("a[1].txt", "a[1].*") and not wildcard("a1.txt", "a[1].*"), "brackets are literal"
    assert wildcard("webfetch", "*") and wildcard("", "*") and wildcard("x.y", "x?y")


def test_kilo_defaults_ask_before_shell_but_its_read_only_list(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "KILO_TEST_MANAGED_CONFIG_DIR": str(tmp_path / "managed")}
    own = kilo_settings(env, str(tmp_path / "ws"))
    assert own.decide("execute", "", "curl -s http://127.0.0.1:8000/health") == "ask"
    assert own.decide("execute", "", "cat notes.txt") == "allow"
    assert own.decide("execute", "", "ls") == "allow"
    assert own.decide("edit", "", "") == own.decide("fetch", "", "https://x") == "allow"
    assert own.decide("other", "doom_loop", "") is None, "its loop guard's ask is the person's"
    assert "Kilo's defaults" in own.source


def test_kilo_permission_layers_merge_and_the_last_matching_rule_wins(tmp_path: Path) -> None:
    home, ws, managed = tmp_path / "home", tmp_path / "ws", tmp_path / "managed"
    env = {"HOME": str(home), "KILO_TEST_MANAGED_CONFIG_DIR": str(managed)}
    (home / ".config" / "kilo").mkdir(parents=True)
    (home / ".config" / "kilo" / "kilo.jsonc").write_text(
        '// mine\n{"permission": {"bash": {"*": "allow", "rm *": "deny"},}}\n'
    )
    (ws / ".kilo").mkdir(parents=True)
    (ws / ".kilo" / "kilo.json").write_text(json.dumps({"permission": {"bash": {"git push *": "ask"}}}))
    own = kilo_settings(env, str(ws))
    assert own.decide("execute", "", "curl x") == "allow"
    assert own.decide("execute", "", "rm -rf build") == "deny"
    assert own.decide("execute", "", "git push origin") == "ask", "the project's table adds to the global one"
    env["KILO_CONFIG_CONTENT"] = json.dumps({"permission": {"edit": "deny"}})
    assert kilo_settings(env, str(ws)).decide("edit", "", "") == "deny"
    managed.mkdir()
    (managed / "kilo.json").write_text(json.dumps({"permission": "ask"}))
    assert kilo_settings(env, str(ws)).decide("execute", "", "curl x") == "ask", "the managed folder wins"
    env["KILO_DISABLE_PROJECT_CONFIG"] = "1"
    (managed / "kilo.json").unlink()
    assert kilo_settings(env, str(ws)).decide("execute", "", "git push origin") == "allow"


def test_kilo_homes_a_careful_person_in_the_tests_and_a_shell_that_runs_unasked_in_the_demo(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "KILO_TEST_MANAGED_CONFIG_DIR": str(tmp_path / "managed")}
    kilo_home("http://127.0.0.1:1", tmp_path, "m")
    own = kilo_settings(env, str(tmp_path / "ws"))
    assert {own.decide(k, "", "cat x") for k in ("execute", "edit", "fetch")} == {"ask"}
    kilo_defaults(tmp_path)
    own = kilo_settings(env, str(tmp_path / "ws"))
    assert {own.decide(k, "", "curl x") for k in ("execute", "edit", "fetch")} == {"allow"}


def test_qwen_approval_mode_from_its_flags_else_its_settings_else_auto(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    env = {"HOME": str(home), "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(tmp_path / "none.json")}
    own = qwen_settings(env, str(ws), ["qwen"])
    assert own.decide("execute", "", "make") is None, "auto: Qwen's classifier decides, which breaker-tui cannot"
    assert "= auto" in own.source
    assert qwen_settings(env, str(ws), ["qwen", "--yolo"]).decide("execute", "", "make") == "allow"
    own = qwen_settings(env, str(ws), ["qwen", "--approval-mode", "auto_edit"])
    assert (own.decide("edit", "", ""), own.decide("execute", "", "make")) == ("allow", "ask")
    (home / ".qwen").mkdir(parents=True)
    (home / ".qwen" / "settings.json").write_text(json.dumps({"tools": {"approvalMode": "plan"}}))
    own = qwen_settings(env, str(ws), ["qwen"])
    assert (own.decide("edit", "", ""), own.decide("execute", "", "make")) == ("deny", "ask")
    (ws / ".qwen").mkdir(parents=True)
    (ws / ".qwen" / "settings.json").write_text(json.dumps({"tools": {"approvalMode": "yolo"}}))
    assert qwen_settings(env, str(ws), ["qwen"]).decide("edit", "", "") == "allow", "the project's wins"
    assert qwen_settings({**env, "QWEN_HOME": str(tmp_path / "q")}, str(tmp_path), ["qwen"]).default is None


def test_qwens_demo_home_runs_unattended_and_its_test_home_asks_the_person(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(tmp_path / "none.json")}
    qwen_home("http://127.0.0.1:1", tmp_path, "m")
    assert qwen_settings(env, str(tmp_path / "ws"), ["qwen"]).decide("execute", "", "curl x") is None
    qwen_defaults(tmp_path)
    own = qwen_settings(env, str(tmp_path / "ws"), ["qwen"])
    assert own.decide("execute", "", "curl x") == own.decide("edit", "", "") == "allow"
