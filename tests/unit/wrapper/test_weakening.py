"""A config that enforces less than the defaults is named by allow-list, at every start, until accepted.

Every field of the enforcing models is enumerated here: a new field that nobody classified (a rule
in `wrapper.weakening.RULES`, or a reason in `NEUTRAL`) fails the first test, and every classified
rule is shown a looser value that it must name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tui.keys import validate_keymap
from wrapper.settings import Settings, from_mapping, load
from wrapper.weakening import (
    NEUTRAL,
    RULES,
    SECTIONS,
    accept,
    hold_back,
    loosened,
    record_note,
    report,
    status_word,
)

ALL_FIELDS = sorted(f"{sec}.{name}" for sec, get in SECTIONS.items() for name in type(get(Settings())).model_fields)

# per enforcing key: a looser value and the key it is named as ("" = the key itself); None where the
# default is already the looser side, so the value given is a tighter one, which must not be named
LOOSER: dict[str, tuple[Any, str | None]] = {
    "repeat.window": (6, "repeat.window"),
    "repeat.local_hosts": ("allow", "repeat.local_hosts"),
    "repeat.exclude": (["bash"], "repeat.exclude"),
    "repeat.include": (["read_*"], "repeat.include"),
    "repeat.limits": ({"cmd": "off"}, "repeat.limits.cmd"),
    "repeat.ignore_args": ({"bash": ["command"]}, "repeat.ignore_args.bash"),
    "repeat.host_aliases": ({"attacker.example": "127.0.0.1"}, "repeat.host_aliases.attacker.example"),
    "thinking.enabled": (False, ""),
    "thinking.max_reasoning_chars": (0, ""),
    "thinking.retry_without_thinking": (False, None),  # its default is the looser side: only tighter exists
    "thinking.max_loop_retries_per_turn": (5, ""),
    "thinking.max_tokens": (4000, None),
    "thinking.skip_aux_calls": (False, None),
    "thinking.post_trip_hint": (False, ""),
    "thinking.tool_failure_guard": (False, ""),
    "thinking.tool_failure_steer_after": (9, ""),
    "thinking.tool_failure_deny_after": (9, ""),
    "thinking.tool_failure_history": (8, ""),
    "thinking.degeneracy_guard": (False, ""),
    "thinking.degeneracy_on_answer": (True, None),
    "thinking.deg_evidence_min": (5, ""),
    "thinking.deg_streak": (9, ""),
    "thinking.deg_meaning_ratio_max": (0.01, ""),
    "thinking.deg_noise_ratio_min": (0.99, ""),
    "thinking.deg_variety_ratio_max": (0.01, ""),
    "thinking.deg_run_len_min": (400, ""),
    "thinking.deg_run_count_min": (90, ""),
    "thinking.deg_emoji_min": (900, ""),
    "thinking.deg_emoji_ratio_min": (0.99, ""),
    "thinking.block_chars": (4096, ""),
    "thinking.history_blocks": (2, ""),
    "thinking.min_repeat_gap": (30, ""),
    "thinking.novelty_overlap": (0.99, ""),
    "thinking.novelty_streak": (1000, ""),
    "engine.mode": ("seed", ""),
    "engine.same_failure_limit": (0, ""),
    "engine.same_error_limit": (40, ""),
    "engine.tool_failure_limit": (0, ""),
    "engine.cycle_window": (4, ""),
    "engine.cycle_repeats": (99, ""),
    "engine.paging_limit": (0, ""),
    "engine.backstop_limit": (99, ""),
    "engine.backstop_window": (2, ""),
    "engine.monologue_steps": (0, ""),
    "engine.verbatim_lens": (False, ""),
    "acp.deny": ("observe", ""),
    "acp.unasked": ("observe", ""),
    "acp.reasoning": ("observe", ""),
    "acp.agent_asks": ("allow", ""),
    "acp.make_ask": (False, ""),
    "acp.startup_timeout_s": (900.0, ""),
    "acp.cancel_timeout_s": (300.0, ""),
    "wrapper.record": (False, ""),
    "wrapper.recordings_dir": ("/tmp/elsewhere", ""),
    "wrapper.recordings_keep": (1, ""),
    "wrapper.recordings_keep_days": (1, ""),
    "wrapper.headless_approvals": ("allow", ""),
    "wrapper.max_consecutive_denials": (0, ""),
    "wrapper.bridge_connect_timeout_s": (500.0, ""),
    "wrapper.approval_timeout_s": (30.0, None),
}


def _config(key: str, value: Any) -> dict[str, Any]:
    sec, _, name = key.partition(".")
    return {sec: {name: value}}


def test_every_field_of_an_enforcing_section_is_classified_once() -> None:
    """A new field must be declared a rule or neutral (with its reason) before it ships."""
    unclassified = [k for k in ALL_FIELDS if k not in RULES and k not in NEUTRAL]
    assert unclassified == [], f"classify these in wrapper.weakening (RULES or NEUTRAL): {unclassified}"
    assert not set(RULES) & set(NEUTRAL), "a key is either a rule or neutral"
    assert set(RULES) | set(NEUTRAL) <= set(ALL_FIELDS), "a rule for a key that no longer exists"
    assert set(LOOSER) == set(RULES), "this test shows every rule a looser value"


@pytest.mark.parametrize("key", sorted(RULES))
def test_each_enforcing_key_loosened_is_named_and_held_back(key: str, tmp_path: Path) -> None:
    value, named = LOOSER[key]
    got = [str(x) for x in loosened(from_mapping(_config(key, value), "c.toml"))]
    if named is None:
        assert got == [], f"{key} = {value!r} is tighter than the default"
        return
    shown = named or key
    assert any(line.startswith(f"c.toml: {shown} = ") for line in got), got
    held = hold_back(from_mapping(_config(key, value), "c.toml"), tmp_path)
    assert loosened(held) == [] and any(h.startswith(f"c.toml: {shown} = ") for h in held.held_back), held.held_back


def test_the_report_s_doors_are_all_named() -> None:
    cfg = {
        "repeat": {
            "exclude": ["bash"],
            "window": 6,
            "host_aliases": {"attacker.example": "127.0.0.1"},
            "ignore_args": {"bash": ["command"]},
        },
        "wrapper": {"recordings_keep": 1},
        "keys": {"approve.once": "y"},
    }
    got = "\n".join(str(x) for x in loosened(from_mapping(cfg, "c.toml")))
    for part in (
        "repeat.exclude = ('bash',)",
        "repeat.window = 6 (default 12)",
        "repeat.host_aliases.attacker.example = '127.0.0.1' (default (none))",
        "repeat.ignore_args.bash = ['command']",
        "wrapper.recordings_keep = 1 (default 200)",
        "keys.approve.once = 'y' (default (built in))",
    ):
        assert f"c.toml: {part}" in got, got


@pytest.mark.parametrize(
    "cfg",
    [
        {"repeat": {"window": 40, "exclude": [], "limits": {"cmd": 3, "verb:rm": 2, "site": 9}}},
        {"repeat": {"local_hosts": "deny", "ignore_args": {"bash": ["description"]}}},
        {"thinking": {"max_reasoning_chars": 5000, "degeneracy_on_answer": True, "novelty_streak": 4}},
        {"engine": {"backstop_limit": 3, "cycle_window": 32, "paging_limit": 5}},
        {"acp": {"unasked": "cancel", "startup_timeout_s": 10}},
        {"wrapper": {"recordings_keep": 0, "recordings_keep_days": 365, "approval_timeout_s": 30}},
        {"wrapper": {"verdict_timeout_s": 60, "result_timeout_s": 9, "kill_grace_s": 1}},
        {"ui": {"theme": "breaker-light"}, "keys": {"kill": "ctrl+x"}},
    ],
)
def test_a_tighter_or_neutral_value_is_not_named(cfg: dict[str, Any]) -> None:
    assert loosened(from_mapping(cfg, "c.toml")) == []


def test_a_loosened_value_is_held_back_and_named_at_every_start_until_that_exact_file_is_accepted(
    tmp_path: Path,
) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('[repeat]\nexclude = ["bash"]\nwindow = 40\n')
    store = tmp_path / "state"
    for _ in range(3):  # not once: at every start
        held = hold_back(load(cfg), store)
        assert held.engine.repeat.exclude == ("todo_write",), "the default holds until the file is accepted"
        assert held.engine.repeat.window == 40, "a tighter value is applied at once"
        lines = report(held, store)
        assert any(f"NOT APPLIED (the default holds): {cfg}: repeat.exclude" in line for line in lines), lines
        assert any("config accept" in line for line in lines)
        assert status_word(held, store) == "", "the defaults hold: enforcement is not looser"
    accept(cfg, store)
    applied = hold_back(load(cfg), store)
    assert applied.engine.repeat.exclude == ("bash",) and not applied.held_back
    lines = report(applied, store)
    assert len(lines) == 1 and "accepted" in lines[0] and "loosens 1 key" in lines[0]
    assert status_word(applied, store) == "LOOSENED (accepted config)", "accepted is still not full ENFORCING"
    cfg.write_text('[repeat]\nexclude = ["bash", "read"]\n')  # a changed file needs a new accept
    held = hold_back(load(cfg), store)
    assert held.engine.repeat.exclude == ("todo_write",) and held.held_back
    assert status_word(load(cfg), store).startswith("OBSERVING"), "settings not held back are never ENFORCING"


def test_a_held_back_table_entry_keeps_the_tighter_entries_beside_it(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(
        '[repeat.limits]\ncmd = "off"\n"verb:rm" = 2\n[repeat.host_aliases]\n"attacker.example" = "127.0.0.1"\n'
    )
    held = hold_back(load(cfg), tmp_path)
    assert held.engine.repeat.limits["cmd"] == 5 and held.engine.repeat.limits["verb:rm"] == 2
    assert "attacker.example" not in held.engine.repeat.host_aliases
    assert loosened(held) == []


def test_held_back_approval_keys_are_dropped(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('[keys]\n"approve.once" = "y"\nkill = "ctrl+x"\n')
    held = hold_back(load(cfg), tmp_path)
    assert held.keys == {"kill": "ctrl+x"} and any("keys.approve.once" in h for h in held.held_back)


def test_the_recording_keeps_what_was_loosened(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text("[repeat]\nwindow = 5\n")
    assert record_note(hold_back(load(cfg), tmp_path), tmp_path) == {
        "held_back": [f"{cfg}: repeat.window = 5 (default 12)"]
    }
    accept(cfg, tmp_path)
    note = record_note(hold_back(load(cfg), tmp_path), tmp_path)
    assert note == {"loosened": [f"{cfg}: repeat.window = 5 (default 12)"], "loosened_accepted": True}
    assert record_note(Settings(), tmp_path) == {}


def test_a_looser_retention_is_not_applied_before_it_is_accepted(tmp_path: Path) -> None:
    """`recordings_keep = 1` written by a tool deleted the earlier recordings at the next start."""
    cfg = tmp_path / "config.toml"
    cfg.write_text("[wrapper]\nrecordings_keep = 1\nrecordings_keep_days = 2\n")
    held = hold_back(load(cfg), tmp_path)
    assert (held.wrapper.recordings_keep, held.wrapper.recordings_keep_days) == (200, 30)
    accept(cfg, tmp_path)
    applied = hold_back(load(cfg), tmp_path)
    assert (applied.wrapper.recordings_keep, applied.wrapper.recordings_keep_days) == (1, 2)


def test_an_approval_key_on_another_answer_s_key_is_refused_naming_both() -> None:
    (why,) = validate_keymap({"approve.once": "d"})
    assert "`approve.once`" in why and "`approve.deny`" in why and "`d`" in why
    assert any("`approve.deny`" in p and "`approve.once`" in p for p in validate_keymap({"approve.deny": "a"}))
    assert validate_keymap({"approve.once": "escape"}), "esc denies: it cannot allow"
    assert validate_keymap({"approve.once": "d", "approve.deny": "x"}), "the person's hands know d as deny"
    assert validate_keymap({"approve.deny": "x", "approve.escape": "d"}) == [], "two keys for one answer are fine"


def test_a_whole_number_cap_is_named_as_written_not_as_a_float(tmp_path: Path) -> None:
    """The start-up lines, the screen's notice and `config accept` write `exact = 50`, as the file did."""
    src = tmp_path / "loose.toml"
    src.write_text("[repeat]\nlimits = { exact = 50, net = 7.5 }\n")
    lines = " ".join(report(hold_back(load(src), store=tmp_path), store=tmp_path))
    assert "repeat.limits.exact = 50 (default 5)" in lines, lines
    assert "repeat.limits.net = 7.5 (default 5)" in lines, lines
