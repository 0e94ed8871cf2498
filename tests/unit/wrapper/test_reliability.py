"""The reliability pieces that need no child: run dirs, the recorder, the readers, the config, the guards."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
import zstandard

from engine.errors import ConfigError
from wrapper.harness.dsh.launch import BridgeSettings, overlay_text
from wrapper.process.rundir import OWNER_FILE, RunDir, clean_stale
from wrapper.records import sources
from wrapper.records.recorder import Recorder, prune
from wrapper.records.sources import SourceError
from wrapper.records.sources import load as load_source
from wrapper.settings import WrapperSettings, load
from wrapper.watch import DenialStreak, StallWatch

# -- run directories -------------------------------------------------------------------------------


def _dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def test_stale_run_dirs_of_dead_monitors_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    dead = tmp_path / "breaker-tui-dead"
    (dead / "tmp").mkdir(parents=True)
    (dead / OWNER_FILE).write_text(f"{_dead_pid()}\n")
    (dead / "bridge.sock").write_text("")
    live = RunDir(tmp_path)
    old_unowned = tmp_path / "breaker-tui-old"
    old_unowned.mkdir()
    os.utime(old_unowned, (time.time() - 7200, time.time() - 7200))
    young_unowned = tmp_path / "breaker-tui-young"
    young_unowned.mkdir()
    other = tmp_path / "not-ours"
    other.mkdir()
    removed = clean_stale(tmp_path)
    assert sorted(p.name for p in removed) == ["breaker-tui-dead", "breaker-tui-old"]
    assert live.path.is_dir() and young_unowned.is_dir() and other.is_dir()
    live.remove()
    assert not live.path.exists()


def test_the_run_dir_is_private_and_its_tmp_starts_empty(tmp_path: Path) -> None:
    d = RunDir(tmp_path)
    assert d.path.stat().st_mode & 0o777 == 0o700 and d.tmp.stat().st_mode & 0o777 == 0o700
    (d.tmp / "dsh-spill-1").mkdir()
    assert list(d.fresh_tmp().iterdir()) == []
    d.remove()


def test_the_overlay_carries_every_timeout_and_only_a_descriptor_number() -> None:
    w = WrapperSettings(verdict_timeout_s=0.01, approval_timeout_s=0, result_timeout_s=2.5, max_line_bytes=70000)
    overlay = overlay_text(BridgeSettings.of(w, True, 0, 9))
    cfg = json.loads(overlay.split("\n", 1)[1])[0]["insert"][0]["config"]
    assert cfg["verdictTimeoutMs"] == 10 and cfg["approvalTimeoutMs"] == 0 and cfg["resultTimeoutMs"] == 2500
    assert cfg["maxLineBytes"] == 70000, "not clamped"
    assert cfg["fd"] == 9 and "sock" not in overlay and "token" not in overlay


# -- config ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"[wrapper]\nverdict_timeout_s = 0.0005\n", "verdict_timeout_s"),
        (b"[wrapper]\napproval_timeout_s = 0.001\n", "approval_timeout_s"),
        (b"[wrapper]\nresult_timeout_s = 0\n", "result_timeout_s"),
        (b"[wrapper]\nmax_line_bytes = 1024\n", "max_line_bytes"),
        (b"[wrapper]\nmax_line_bytes = 4294967296\n", "max_line_bytes"),
        (b"[wrapper]\nmax_consecutive_denials = -1\n", "max_consecutive_denials"),
        (b"[wrapper]\nstall_warn_s = 'soon'\n", "stall_warn_s"),
        (b"[wrapper]\nrecordings_keep = 1.5\n", "recordings_keep"),
        (b"\xff\xfe[wrapper]\n", "not UTF-8"),
        (b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested too deeply"),
        (b"wrapper = 3\n", "must be a table"),
        (b"[repeat]\nlimits = 5\n", "limits"),
        (b"[repeat]\nlimits = { exact = [1] }\n", 'limit "exact"'),
        (b"[repeat]\nignore_args = { bash = 3 }\n", 'ignore_args "bash" must be an array of strings'),
        (b"[repeat]\nhost_aliases = { a = 1 }\n", 'host_aliases "a" must be a host name string'),
        (b"[repeat]\nignoreArgs = { bash = 3 }\n", 'ignoreArgs "bash" must be an array of strings'),
        (b"[repeat]\nhostAliases = { a = 1 }\n", "`hostAliases` is the seed name of `host_aliases`"),
        (b"[thinking]\nnoveltyStreak = 3\nnovelty_streak = 3\n", "both `novelty_streak` and `noveltyStreak`"),
    ],
)
def test_bad_config_files_are_clear_errors(tmp_path: Path, content: bytes, expected: str) -> None:
    f = tmp_path / "c.toml"
    f.write_bytes(content)
    with pytest.raises(ConfigError) as e:
        load(f)
    assert expected in str(e.value) and str(f) in str(e.value)


def test_a_config_path_that_is_not_a_file_is_refused_without_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "c.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="not a regular file"):
        load(fifo)


def test_timeouts_at_the_floor_are_accepted() -> None:
    w = WrapperSettings(verdict_timeout_s=0.01, approval_timeout_s=0.01, result_timeout_s=0.01)
    assert w.verdict_timeout_s == 0.01


# -- recorder --------------------------------------------------------------------------------------


def test_a_recording_is_named_by_date_and_label_then_session(tmp_path: Path) -> None:
    r = Recorder(None, {}, label="dev", directory=tmp_path)
    assert r.path.name.endswith("-dev.jsonl") and r.path.name[:8].isdigit()
    r.name_for("session-1234abcd")
    assert r.path.name.endswith("-dev-session-1234abcd.jsonl") and r.path.exists()
    r.write("out", {"t": "verdict", "kind": "allow"})
    r.write("out", {"t": "verdict", "kind": "deny"})
    r.write("out", {"t": "verdict", "kind": "deny", "timeout": True})
    r.write("out", {"t": "trip"})
    r.close()
    assert r.summary() == "2 tool calls, 2 denied, 1 trip"
    assert load_source(r.path).incomplete is None


def test_old_and_surplus_recordings_are_pruned_and_nothing_else(tmp_path: Path) -> None:
    now = time.time()
    names = [f"2026010{i}-120000-dev.jsonl" for i in range(1, 7)]
    for i, n in enumerate(names):
        (tmp_path / n).write_text("{}\n")
        age = (10 - i) * 86400
        os.utime(tmp_path / n, (now - age, now - age))
    (tmp_path / "notes.jsonl").write_text("mine\n")
    current = tmp_path / "20260110-120000-dev.jsonl"
    current.write_text("{}\n")
    removed = prune(tmp_path, keep_days=8, keep=3, now=now, spare=current)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [
        "20260105-120000-dev.jsonl",
        "20260106-120000-dev.jsonl",
        "20260110-120000-dev.jsonl",
        "notes.jsonl",
    ]
    assert len(removed) == 4


def test_an_injected_write_error_is_reported_once_and_leaves_no_end_marker(tmp_path: Path) -> None:
    errors: list[str] = []
    r = Recorder(tmp_path / "r.jsonl", {}, on_error=errors.append)
    r.write("in", {"t": "event"})
    assert r._fd is not None
    os.close(r._fd)
    r._fd = os.open("/dev/full", os.O_WRONLY)
    r.write("in", {"t": "event"})
    r.write("in", {"t": "event"})
    r.close()
    assert len(errors) == 1 and "No space left on device" in errors[0] and "line 3" in errors[0]
    loaded = load_source(r.path)
    assert loaded.incomplete is not None and "no end marker" in loaded.incomplete


# -- readers ---------------------------------------------------------------------------------------


def test_non_regular_files_are_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero"), tmp_path):
        with pytest.raises(SourceError, match=r"regular file|directory"):
            load_source(path)


def test_a_zstd_bomb_is_stopped_at_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sources, "MAX_TOTAL_BYTES", 8 << 20)  # the same code path, a budget a test can afford
    line = b'{"type":"turn/start","seq":1,"data":{"turn":1}}\n'
    cctx = zstandard.ZstdCompressor(level=3)
    bomb = tmp_path / "session.jsonl.zstd"
    with bomb.open("wb") as f, cctx.stream_writer(f) as w:
        block = line * ((1 << 20) // len(line))
        for _ in range(64):
            w.write(block)
    assert bomb.stat().st_size < 1 << 20, "a small file that expands 64-fold"
    loaded = load_source(bomb)  # read as a stream: the pass stops at the limit, and says so
    read = sum(1 for _ in loaded.records)
    assert 0 < read <= (8 << 20) // len(line)
    assert any("more than 8 MiB" in p for p in loaded.problems)


def test_a_recording_cut_mid_line_is_incomplete_with_its_line(tmp_path: Path) -> None:
    r = Recorder(tmp_path / "r.jsonl", {})
    r.write("in", {"t": "event"})
    assert r._fd is not None
    os.close(r._fd)  # the writer dies here, mid-record, as a killed monitor or a full disk leaves it
    r._fd = None
    with (tmp_path / "r.jsonl").open("a") as f:
        f.write('{"at": 1, "k": "in", "t": "ev')
    loaded = load_source(tmp_path / "r.jsonl")
    assert loaded.incomplete == (
        "line 3: the recording is cut off mid-record and has no end marker "
        "(the disk filled up or the monitor was killed)"
    )


def test_deep_and_odd_lines_are_counted_not_raised(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    deep = "[" * 5000 + "]" * 5000
    f.write_text('{"type":"session","id":"s1"}\n' + deep + '\n"str"\n{"t":"hello","plugin":"x"}\n\xff\n')
    loaded = load_source(f)
    assert loaded.kind == "dsh" and loaded.bad_lines == 3


# -- guards ----------------------------------------------------------------------------------------


def test_the_denial_streak_fires_once_at_the_limit_and_resets() -> None:
    d = DenialStreak(3)
    assert [d.verdict("a", k) for k in ("deny", "ask", "deny")] == [None, None, None]
    assert d.verdict("a", "deny") == 3 and d.streak("a") == 0
    d.verdict("a", "deny")
    d.verdict("a", "allow")
    assert d.streak("a") == 0
    d.verdict("a", "deny")
    d.turn_start("a")
    assert d.streak("a") == 0
    assert DenialStreak(0).verdict("a", "deny") is None


def test_the_stall_watch_warns_once_per_silence() -> None:
    w = StallWatch(5)
    w.open("a", 0)
    assert w.due(4) == [] and w.due(6) == [("a", 6)] and w.due(9) == []
    w.activity("a", 10)
    assert w.due(16) == [("a", 6)]
    w.close("a")
    assert w.due(100) == [] and not w.busy
