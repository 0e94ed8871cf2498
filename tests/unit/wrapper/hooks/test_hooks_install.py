"""`hooks install` / `hooks uninstall`: breaker's entries merged into each agent's own config, and out again."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wrapper.hooks import install as I
from wrapper.hooks import jsonc

EXE = ["/opt/bin/python3", "-I", "-S", "/opt/lib/wrapper/hooks/client.py"]
START = " ".join(EXE)
PERSON_HOOK = {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh", "timeout": 5}]}
CODEX_PERSON = """model = "gpt-x"   # the person's own comment
approval_policy = "never"

[[hooks.PreToolUse]]
matcher = "Bash"
[[hooks.PreToolUse.hooks]]
type = "command"
command = "~/bin/audit.sh"

[hooks.state."/home/p/.codex/config.toml:pre_tool_use:0:0"]
trusted_hash = "sha256:abc"
"""


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BREAKER_TUI_STATE_DIR", str(tmp_path / "state"))


def install(agent: str, path: Path, fail_closed: bool = False) -> I.Plan:
    plan = I.install_plan(agent, path, EXE, fail_closed)
    I.apply(plan, installing=True)
    return plan


def uninstall(agent: str, path: Path) -> I.Plan:
    plan = I.uninstall_plan(agent, path)
    I.apply(plan, installing=False)
    return plan


def name(agent: str) -> str:
    return "config.toml" if agent == "codex" else "settings.json"


def person_bytes(agent: str) -> bytes:
    if agent == "codex":
        return CODEX_PERSON.encode()
    ev = "PreToolUse" if agent == "claude" else "BeforeTool"
    return json.dumps({"theme": "dark", "hooks": {ev: [PERSON_HOOK]}}, indent=4).encode()


def hooks_of(agent: str, path: Path) -> dict[str, Any]:
    raw = path.read_bytes()
    doc = tomllib.loads(raw.decode()) if agent == "codex" else json.loads(raw)
    hooks: dict[str, Any] = doc["hooks"]
    return hooks


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_install_keeps_the_persons_hook_first_and_uninstall_gives_the_file_back_byte_for_byte(
    tmp_path: Path, agent: str
) -> None:
    path = tmp_path / name(agent)
    path.write_bytes(person_bytes(agent))
    install(agent, path)
    before = "PreToolUse" if agent != "gemini" else "BeforeTool"
    groups = hooks_of(agent, path)[before]
    assert groups[0]["hooks"][0]["command"] == "~/bin/audit.sh"  # theirs first, still there
    assert groups[-1]["hooks"][0]["command"] == f"{START} {agent}"
    uninstall(agent, path)
    assert path.read_bytes() == person_bytes(agent)


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_each_event_the_agent_reports_gets_breakers_entry(tmp_path: Path, agent: str) -> None:
    path = tmp_path / name(agent)
    install(agent, path)
    want = {"claude": {"PreToolUse", "PostToolUse", "PostToolUseFailure"}, "codex": {"PreToolUse", "PostToolUse"}}
    assert set(hooks_of(agent, path)) >= want.get(agent, {"BeforeTool", "AfterTool"})


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_a_file_install_created_is_removed_by_uninstall_and_so_is_the_folder_it_made(
    tmp_path: Path, agent: str
) -> None:
    path = tmp_path / "proj" / f".{agent}" / name(agent)  # `--project` in a folder without the agent's own
    install(agent, path)
    install(agent, path)  # a second install changes nothing, nor what the first one made
    assert path.exists()
    uninstall(agent, path)
    assert not path.exists() and not path.parent.exists() and path.parent.parent.exists()
    kept = tmp_path / "home" / f".{agent}"
    kept.mkdir(parents=True)  # the person's folder, empty: it stays
    install(agent, kept / name(agent))
    uninstall(agent, kept / name(agent))
    assert kept.exists() and not list(kept.iterdir())


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_two_installs_in_a_row_change_nothing_the_second_time(tmp_path: Path, agent: str) -> None:
    path = tmp_path / name(agent)
    path.write_bytes(person_bytes(agent))
    install(agent, path)
    once = path.read_bytes()
    assert not install(agent, path).changes
    assert path.read_bytes() == once
    uninstall(agent, path)
    assert path.read_bytes() == person_bytes(agent)


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_an_unparsable_config_gets_a_clear_error_and_is_left_untouched(tmp_path: Path, agent: str) -> None:
    path = tmp_path / name(agent)
    path.write_bytes(b'{"hooks": [' if agent != "codex" else b"model = = 3\n")
    with pytest.raises(I.InstallError, match=r"not valid (JSON|TOML).*untouched"):
        I.install_plan(agent, path, EXE)
    assert path.read_bytes() == (b'{"hooks": [' if agent != "codex" else b"model = = 3\n")


def test_a_config_whose_hooks_are_not_lists_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"hooks": {"PreToolUse": "x"}}')
    with pytest.raises(I.InstallError, match="object of lists"):
        I.install_plan("claude", path, EXE)


def test_codex_inline_hooks_cannot_take_breakers_tables_and_the_file_is_untouched(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    text = "hooks = { PreToolUse = [] }\n"
    path.write_text(text)
    with pytest.raises(I.InstallError, match="inline"):
        I.install_plan("codex", path, EXE)
    assert path.read_text() == text


def test_gemini_rewrote_the_file_uninstall_keeps_its_changes_and_drops_only_breakers(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(person_bytes("gemini"))
    install("gemini", path)
    doc = json.loads(path.read_bytes())
    doc["general"] = {"enableAutoUpdate": False}  # Gemini migrates a key and re-indents its file
    path.write_text(json.dumps(doc, indent=2))
    uninstall("gemini", path)
    left = json.loads(path.read_bytes())
    assert left == {**json.loads(person_bytes("gemini")), "general": {"enableAutoUpdate": False}}


def test_codex_block_edited_around_uninstall_removes_only_the_block(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CODEX_PERSON)
    install("codex", path)
    path.write_text(path.read_text() + '\n[profiles.fast]\nmodel = "m"\n')  # the person adds a table after ours
    uninstall("codex", path)
    assert path.read_text() == CODEX_PERSON + '\n[profiles.fast]\nmodel = "m"\n'


CODEX_WRITES = [
    "\n[tui]\nscreen_reader_detection_done = true\n",  # the first start of Codex's own UI
    '[projects."/home/p/work"]\ntrust_level = "trusted"\n',  # the person trusts a folder in Codex
    '\n# a note\n[hooks.state."/home/p/x.toml:pre_tool_use:0:0"]\ntrusted_hash = "sha256:x"\n',  # a trust given
]


@pytest.mark.parametrize("written", CODEX_WRITES)
def test_what_codex_writes_after_install_survives_uninstall_and_reinstall(tmp_path: Path, written: str) -> None:
    """Codex edits its config with toml_edit, which puts a new table before the file's closing comment: that
    comment is breaker's end marker, so what Codex writes lands inside breaker's block. It is the person's.
    """
    path = tmp_path / "config.toml"
    path.write_text(CODEX_PERSON)
    hashes = {k: "sha256:t" for k in I.codex_keys(path)}
    I.apply(I.install_plan("codex", path, EXE, trusted=hashes), installing=True)
    text = path.read_text()
    path.write_text(text.replace(I.END + "\n", written + I.END + "\n"))
    I.apply(I.install_plan("codex", path, EXE, fail_closed=True), installing=True)  # a reinstall keeps it
    assert _holds(tomllib.loads(path.read_text()), tomllib.loads(written))
    assert "--fail-closed" in path.read_text()
    uninstall("codex", path)
    assert path.read_text() == CODEX_PERSON + written


@pytest.mark.parametrize("agent", ["claude", "gemini"])
def test_a_reinstall_after_the_agent_rewrote_its_file_is_taken_out_whole_by_uninstall(
    tmp_path: Path, agent: str
) -> None:
    """Claude and Gemini rewrite their own settings: a reinstall then finds breaker's older entries in the file,
    and those bytes are not the person's to give back.
    """
    path = tmp_path / "settings.json"
    path.write_bytes(person_bytes(agent))
    install(agent, path)
    doc = json.loads(path.read_bytes())
    path.write_text(json.dumps({**doc, "skipDangerousModePermissionPrompt": True}, indent=4))  # the agent's write
    install(agent, path, fail_closed=True)
    uninstall(agent, path)
    assert json.loads(path.read_bytes()) == {
        **json.loads(person_bytes(agent)),
        "skipDangerousModePermissionPrompt": True,
    }


def _holds(doc: Any, part: Any) -> bool:
    """Whether every key of `part` is in `doc` with the same value (tables compared key by key)."""
    if isinstance(part, dict):
        return isinstance(doc, dict) and all(k in doc and _holds(doc[k], v) for k, v in part.items())
    return bool(doc == part)


def test_codex_trust_keys_count_the_persons_groups_and_the_entries_parse(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CODEX_PERSON)
    keys = I.codex_keys(path)
    assert keys == [f"{path}:pre_tool_use:1:0", f"{path}:post_tool_use:0:0"]  # after theirs: their keys keep
    hashes = {k: f"sha256:{n}" for n, k in enumerate(keys)}
    I.apply(I.install_plan("codex", path, EXE, trusted=hashes), installing=True)
    state = tomllib.loads(path.read_text())["hooks"]["state"]
    assert state[keys[0]] == {"trusted_hash": "sha256:0"} and state[keys[1]] == {"trusted_hash": "sha256:1"}
    assert state["/home/p/.codex/config.toml:pre_tool_use:0:0"] == {"trusted_hash": "sha256:abc"}
    assert I.codex_trusted(path)
    uninstall("codex", path)
    assert path.read_text() == CODEX_PERSON


def test_fail_closed_is_in_the_command_line_and_claude_blocks_on_failure(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    install("claude", path, fail_closed=True)
    entry = hooks_of("claude", path)["PreToolUse"][0]["hooks"][0]
    assert entry["command"] == f"{START} claude --fail-closed" and entry["onFailure"] == "block"
    install("claude", path)  # switching back replaces breaker's entries, never adds a second set
    groups = hooks_of("claude", path)["PreToolUse"]
    assert len(groups) == 1 and "onFailure" not in groups[0]["hooks"][0]


def test_writes_are_atomic_keep_the_mode_leave_no_temp_file_and_follow_a_dotfile_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_bytes(person_bytes("claude"))
    os.chmod(real, 0o640)
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    install("claude", link)
    assert link.is_symlink() and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in real.parent.iterdir()) == ["settings.json"]
    uninstall("claude", link)
    assert link.is_symlink() and real.read_bytes() == person_bytes("claude")


def test_config_paths_follow_each_agents_own_environment(tmp_path: Path) -> None:
    env = {"HOME": "/h", "CLAUDE_CONFIG_DIR": "/c", "CODEX_HOME": "/x"}
    assert I.config_path("claude", env=env) == Path("/c/settings.json")
    assert I.config_path("codex", env=env) == Path("/x/config.toml")
    assert I.config_path("gemini", env=env) == Path("/h/.gemini/settings.json")
    assert I.config_path("claude", env={"HOME": "/h"}) == Path("/h/.claude/settings.json")
    assert I.config_path("codex", project=Path("/p"), env=env) == Path("/p/.codex/config.toml")


def test_the_cli_dry_run_prints_a_diff_and_writes_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "BREAKER_TUI_STATE_DIR": str(tmp_path / "state")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    exe = str(Path(sys.executable).parent / "breaker-tui")
    p = subprocess.run([exe, "hooks", "install", "claude", "--dry-run"], capture_output=True, env=env, check=False)
    assert p.returncode == 0, p.stderr
    assert b"+++ " in p.stdout and b"client.py claude" in p.stdout
    assert not (tmp_path / ".claude").exists()
    p = subprocess.run([exe, "hooks", "install", "gemini"], capture_output=True, env=env, check=False)
    assert p.returncode == 0 and (tmp_path / ".gemini" / "settings.json").exists()
    s = subprocess.run([exe, "hooks", "status"], capture_output=True, env=env, check=False)
    assert b"gemini: installed" in s.stdout and b"claude: not installed" in s.stdout
    p = subprocess.run([exe, "hooks", "uninstall", "gemini"], capture_output=True, env=env, check=False)
    assert p.returncode == 0 and not (tmp_path / ".gemini" / "settings.json").exists()


# -- property tests ---------------------------------------------------------------------------------------
KEYS = st.text(st.characters(codec="utf-8"), min_size=1, max_size=8)
SCALARS = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=12)
JSONV = st.recursive(SCALARS, lambda c: st.lists(c, max_size=3) | st.dictionaries(KEYS, c, max_size=3), max_leaves=8)
GROUP = st.fixed_dictionaries(
    {"matcher": st.sampled_from(["*", ".*", "Bash"]), "hooks": st.just([{"type": "command", "command": "mine.sh"}])}
)


@st.composite
def person_json(draw: st.DrawFn, agent: str) -> bytes:
    doc = draw(st.dictionaries(KEYS.filter(lambda k: k != "hooks"), JSONV, max_size=4))
    events = ["PreToolUse", "PostToolUse", "Stop"] if agent == "claude" else ["BeforeTool", "AfterTool", "Other"]
    if draw(st.booleans()):
        doc["hooks"] = draw(st.dictionaries(st.sampled_from(events), st.lists(GROUP, max_size=2), max_size=3))
    indent = draw(st.sampled_from([None, 2, 4, "\t"]))
    tail = draw(st.sampled_from(["", "\n", "\n\n"]))
    return (json.dumps(doc, indent=indent, ensure_ascii=draw(st.booleans())) + tail).encode()


TOML_LINES = st.lists(
    st.sampled_from(
        [
            'model = "m"',
            "# a comment",
            "",
            "[analytics]\nenabled = false",
            '[[hooks.PreToolUse]]\nmatcher = "x"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "a"',
            '[hooks.state."k:pre_tool_use:0:0"]\ntrusted_hash = "h"',
        ]
    ),
    max_size=6,
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.parametrize("agent", ["claude", "gemini"])
def test_install_then_uninstall_is_the_identity_on_json_configs(
    tmp_path: Path, agent: str, data: st.DataObject
) -> None:
    original = data.draw(person_json(agent))
    path = tmp_path / f"{agent}-settings.json"
    path.write_bytes(original)
    install(agent, path)
    assert not install(agent, path).changes
    uninstall(agent, path)
    assert path.read_bytes() == original
    # the agent rewrote the file meanwhile: uninstall still leaves the person's data exactly
    install(agent, path)
    path.write_text(json.dumps(json.loads(path.read_bytes()), indent=3))
    uninstall(agent, path)
    assert json.loads(path.read_bytes()) == json.loads(original)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=TOML_LINES, tail=st.sampled_from(["", "\n", "\n\n"]))
def test_install_then_uninstall_is_the_identity_on_codex_configs(tmp_path: Path, lines: list[str], tail: str) -> None:
    text = "\n".join(lines) + tail
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return  # a table drawn twice: not a config Codex would read either
    path = tmp_path / "config.toml"
    path.write_text(text)
    install("codex", path)
    assert not install("codex", path).changes
    uninstall("codex", path)
    assert path.read_text() == text


def test_a_codex_reinstall_keeps_its_trust_while_the_hook_is_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CODEX_PERSON)
    hashes = {k: "sha256:t" for k in I.codex_keys(path)}
    I.apply(I.install_plan("codex", path, EXE, trusted=hashes), installing=True)
    assert not I.install_plan("codex", path, EXE).changes  # Codex absent this time: its trust is kept
    switched = I.install_plan("codex", path, EXE, fail_closed=True)  # another command: Codex's hash no longer holds
    assert b"trusted_hash" not in (switched.after or b"").split(I.BEGIN.encode())[1]


def test_the_cli_project_scope_writes_the_folders_own_config_and_uninstall_dry_run_writes_nothing(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "HOME": str(tmp_path / "home"), "BREAKER_TUI_STATE_DIR": str(tmp_path / "state")}
    env.pop("CODEX_HOME", None)
    exe = str(Path(sys.executable).parent / "breaker-tui")
    proj = tmp_path / "proj"
    proj.mkdir()
    p = subprocess.run(
        [exe, "hooks", "install", "codex", "--project"], cwd=proj, capture_output=True, env=env, check=False
    )
    assert (proj / ".codex" / "config.toml").exists() and not (tmp_path / "home" / ".codex").exists()
    assert b"NOT trusted" in p.stderr or b"trusted" in p.stdout  # without codex here it says it could not ask
    written = (proj / ".codex" / "config.toml").read_bytes()
    d = subprocess.run(
        [exe, "hooks", "uninstall", "codex", "--project", "--dry-run"],
        cwd=proj,
        capture_output=True,
        env=env,
        check=False,
    )
    assert d.returncode == 0 and b"--- " in d.stdout and (proj / ".codex" / "config.toml").read_bytes() == written
    s = subprocess.run(
        [exe, "hooks", "status", "codex", "--project"], cwd=proj, capture_output=True, env=env, check=False
    )
    assert b"codex: installed" in s.stdout, s.stdout + s.stderr


def test_a_projects_trust_lives_in_the_persons_codex_config_beside_breakers_own_block(tmp_path: Path) -> None:
    """Codex takes hook trust only from the person's own config: a project's goes there, and out with it."""
    user, project = tmp_path / "home" / "config.toml", tmp_path / "proj" / ".codex" / "config.toml"
    user.parent.mkdir()
    user.write_text(CODEX_PERSON)
    install("codex", user)
    own = user.read_text()
    keys = [f"{project}:pre_tool_use:0:0", f"{project}:post_tool_use:0:0"]
    I.apply(I.trust_plan(user, project, dict.fromkeys(keys, "sha256:p")), installing=True, note=False)
    state = tomllib.loads(user.read_text())["hooks"]["state"]
    assert {k: state[k] for k in keys} == {k: {"trusted_hash": "sha256:p"} for k in keys}
    assert I.project_trusted(user, project) and not I.project_trusted(user, tmp_path / "other.toml")
    assert not I.trust_plan(user, project, dict.fromkeys(keys, "sha256:p")).changes  # the same trust again
    I.apply(I.trust_plan(user, project, None), installing=False, note=False)
    assert user.read_text() == own  # breaker's own block and the person's file as they were
    uninstall("codex", user)
    assert user.read_text() == CODEX_PERSON


GEMINI_COMMENTED = """{
  // the person's own settings (Gemini reads comments and keeps them when it writes)
  "general": {"enableAutoUpdate": false},
  /* hooks I wrote */
  "hooks": {
    "BeforeTool": [{"matcher": ".*", "hooks": [{"name": "mine", "type": "command", "command": "a // b"}]}]
  }
}
"""


def person_edit(text: str) -> str:
    """The person (or the agent) adds a key at the top of the file, by hand."""
    at = jsonc_start(text)
    empty = not json.loads(jsonc.blank_comments(text))
    return text[:at] + ' "zz_person_edit": 1' + ("" if empty else ",") + text[at:]


def jsonc_start(text: str) -> int:
    return jsonc.blank_comments(text).index("{") + 1


@pytest.mark.parametrize("agent", ["gemini", "claude"])
def test_install_and_uninstall_leave_every_comment_and_line_of_the_persons_json_where_it_was(
    tmp_path: Path, agent: str
) -> None:
    """Only breaker's entries change: install adds lines inside `hooks`, and uninstall after someone else's edit
    gives back the person's text with that edit, byte for byte (no note of the bytes install found is used).
    """
    text = GEMINI_COMMENTED.replace("BeforeTool", "PreToolUse") if agent == "claude" else GEMINI_COMMENTED
    path = tmp_path / "settings.json"
    path.write_text(text)
    install(agent, path)
    after = path.read_text()
    kept = [line for line in text.splitlines() if not any(w in line for w in ("BeforeTool", "PreToolUse"))]
    assert all(line in after.splitlines() for line in kept)  # only the line of the list breaker joins changes
    assert "// the person's own settings" in after and "/* hooks I wrote */" in after
    assert I.hook_commands(agent, path) == [I.hook_command(agent, EXE, False)]
    path.write_text(person_edit(after))
    install(agent, path, fail_closed=True)  # a reinstall over the edit: the same lines change
    uninstall(agent, path)
    assert path.read_text() == person_edit(text)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
@pytest.mark.parametrize("agent", ["claude", "gemini"])
def test_uninstall_after_an_edit_gives_back_the_persons_text_with_the_edit(
    tmp_path: Path, data: st.DataObject, agent: str
) -> None:
    text = data.draw(person_json(agent)).decode()
    if agent == "gemini" and data.draw(st.booleans()):
        text = "// mine\n" + text[: jsonc_start(text)] + " /* c */" + text[jsonc_start(text) :]
    path = tmp_path / "settings.json"
    path.write_text(text)
    install(agent, path)
    path.write_text(person_edit(path.read_text()))
    uninstall(agent, path)
    assert jsonc.loads(path.read_text()) == jsonc.loads(person_edit(text))
    assert squeezed(path.read_text()) == squeezed(person_edit(text))  # comments and order kept, not every space


def squeezed(text: str) -> str:
    return "".join(text.split())
