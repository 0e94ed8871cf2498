"""The whole install is the manifest: any file added, changed or removed, anywhere, is named."""

from __future__ import annotations

import os
from pathlib import Path

from wrapper.process import manifest


def _install(root: Path) -> Path:
    for rel, text in {
        "package.json": "{}",
        "node_modules/@deepseek-ai/dsh/lib/bin.js": "// dsh\n",
        "node_modules/commander/index.js": "module.exports = {};\n",
        "node_modules/commander/package.json": '{"name": "commander"}',
    }.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (root / "node_modules/.bin").mkdir()
    os.symlink("../@deepseek-ai/dsh/lib/bin.js", root / "node_modules/.bin/dsh")
    return root


def test_a_fresh_manifest_matches_and_covers_every_package(tmp_path: Path) -> None:
    root = _install(tmp_path)
    assert manifest.quick(root)[0].startswith("no manifest")
    assert manifest.write(root) == 5
    assert manifest.quick(root) == [] and manifest.full(root) == []


def test_a_file_outside_the_dsh_scope_is_named_by_the_launch_check(tmp_path: Path) -> None:
    root = _install(tmp_path)
    manifest.write(root)
    target = root / "node_modules/commander/index.js"
    target.write_text("process.argv.splice(2, 2);\n" + target.read_text())
    assert manifest.quick(root) == ["changed: node_modules/commander/index.js"]
    assert manifest.full(root) == ["changed: node_modules/commander/index.js"]


def test_a_same_size_edit_with_its_mtime_put_back_is_caught_by_the_full_hash(tmp_path: Path) -> None:
    root = _install(tmp_path)
    manifest.write(root)
    target = root / "node_modules/commander/index.js"
    st = target.stat()
    target.write_text(target.read_text().replace("{}", "[]"))
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert manifest.quick(root) == []  # the cheap index cannot see it
    assert manifest.full(root) == ["changed: node_modules/commander/index.js"]


def test_added_missing_and_relinked_files_are_named(tmp_path: Path) -> None:
    root = _install(tmp_path)
    manifest.write(root)
    (root / "node_modules/commander/preload.js").write_text("x")
    (root / "node_modules/commander/package.json").unlink()
    (root / "node_modules/.bin/dsh").unlink()
    os.symlink("/tmp/elsewhere", root / "node_modules/.bin/dsh")
    got = manifest.full(root)
    assert "added: node_modules/commander/preload.js" in got
    assert "missing: node_modules/commander/package.json" in got
    assert "changed: node_modules/.bin/dsh" in got


def test_an_older_manifest_is_not_trusted(tmp_path: Path) -> None:
    root = _install(tmp_path)
    (root / manifest.NAME).write_text('{"files": {"package.json": "abc"}}')
    assert "older format" in manifest.quick(root)[0]


def test_the_refusal_names_the_file_and_the_command(tmp_path: Path) -> None:
    text = manifest.describe([f"changed: f{i}" for i in range(7)], "the pinned dsh install", "breaker-tui setup-dsh")
    assert "changed: f0" in text and "and 2 more" in text and "`breaker-tui setup-dsh`" in text
