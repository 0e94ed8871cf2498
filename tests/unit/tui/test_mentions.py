"""`@file`: what completes in the prompt box and what an ACP prompt carries for it."""

from __future__ import annotations

import os
from pathlib import Path

from tui.mentions import matching_paths, mention_word, replace_word, walk
from wrapper.harness.acp.attach import EMBED_MAX_BYTES, mentions, prompt_blocks


def _tree(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "notes.txt").write_text("The release is on Friday.\n")
    (root / "notes.txt").write_text("top\n")
    (root / "node_modules" / "x").mkdir(parents=True)
    (root / "node_modules" / "x" / "notes.txt").write_text("skip me\n")
    (root / "big.log").write_text("x" * (EMBED_MAX_BYTES + 1))
    (root / "blob.bin").write_bytes(b"\0\1\2")


def test_the_word_being_typed_and_its_completion() -> None:
    assert mention_word("look at @no") == "no"
    assert mention_word("@") == ""
    assert mention_word("look at @notes.txt ") is None, "a space ends the word"
    assert mention_word("mail me@home") is None
    assert mention_word("/compact") is None
    assert replace_word("look at @no", "notes.txt") == "look at @notes.txt "
    assert replace_word("@s", "src/") == "@src/", "a folder keeps the list open inside it"


def test_paths_complete_under_the_folder_without_the_noise(tmp_path: Path) -> None:
    _tree(tmp_path)
    paths = walk(str(tmp_path))
    assert "src/" in paths and "src/notes.txt" in paths and "notes.txt" in paths
    assert not any(p.startswith("node_modules") for p in paths), "node_modules is never walked"
    assert matching_paths(paths, "not")[:2] == ["notes.txt", "src/notes.txt"], "a name starting with it first"
    assert matching_paths(paths, "SRC/N") == ["src/notes.txt"], "case-insensitive"
    assert len(walk(str(tmp_path), limit=2)) == 2


def test_embedded_when_the_agent_takes_it_else_a_link(tmp_path: Path) -> None:
    _tree(tmp_path)
    text = "Summarise @src/notes.txt, please."
    embedded = prompt_blocks(text, str(tmp_path), {"embeddedContext": True})
    assert embedded.blocks[0] == {"type": "text", "text": text}, "the text stays as typed"
    res = embedded.blocks[1]
    assert res["type"] == "resource" and res["resource"]["text"] == "The release is on Friday.\n"
    assert res["resource"]["uri"] == (tmp_path / "src" / "notes.txt").resolve().as_uri()
    linked = prompt_blocks(text, str(tmp_path), {})
    assert linked.blocks[1] == {
        "type": "resource_link",
        "uri": (tmp_path / "src" / "notes.txt").resolve().as_uri(),
        "name": "notes.txt",
    }
    big = prompt_blocks("@big.log @blob.bin", str(tmp_path), {"embeddedContext": True})
    assert [b["type"] for b in big.blocks[1:]] == ["resource_link", "resource_link"], "too big or binary: a link"


def test_nothing_outside_the_folder_is_attached(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "secret.txt").write_text("s3cret\n")
    os.symlink(tmp_path / "secret.txt", ws / "link.txt")
    out = prompt_blocks("@../secret.txt @link.txt @/etc/passwd @someone", str(ws), {"embeddedContext": True})
    assert out.blocks == [{"type": "text", "text": "@../secret.txt @link.txt @/etc/passwd @someone"}]
    assert len(out.notes) == 3 and all("only files under the working directory" in n for n in out.notes)
    assert mentions("@a, @b. @a") == ["a", "b"]
