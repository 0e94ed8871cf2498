"""`@` in the prompt box: which files of the working directory complete the word being typed.

The word is the last one of the prompt when it starts with `@` (the cursor is at the end while one
types); what follows the `@` is matched against the paths under the working directory, relative to it
(substring, case-insensitive; those whose name starts with it first, then the shorter). The walk is
bounded (`MAX_WALK` entries, `MAX_DEPTH` folders deep) and skips what nobody attaches (`.git`,
`node_modules`, virtualenvs, caches), so a huge tree costs a keystroke nothing; a folder completes to
`@dir/` and the list goes on inside it. The agent gets the file as the ACP harness attaches it
(`wrapper.harness.acp.attach`); for dsh the path stays text.
"""

from __future__ import annotations

import os
import time

MAX_WALK = 5000
MAX_DEPTH = 6
MAX_HITS = 50
CACHE_S = 5.0  # the tree is walked again after this long (files come and go while the agent works)
SKIP = {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache",
        ".pytest_cache", ".tox", "dist", "build", ".cache"}  # fmt: skip


def mention_word(text: str) -> str | None:
    """What follows `@` when the prompt's last word is an `@path` being typed, else None."""
    if not text or text[-1].isspace():
        return None
    word = text.split()[-1] if text.split() else ""
    if not word.startswith("@") or "\n" in word:
        return None
    return word[1:]


def walk(root: str, limit: int = MAX_WALK) -> list[str]:
    """Paths under `root`, relative, folders ending in `/`, breadth first, at most `limit` of them."""
    out: list[str] = []
    todo: list[tuple[str, int]] = [("", 0)]
    while todo and len(out) < limit:
        rel, depth = todo.pop(0)
        try:
            with os.scandir(os.path.join(root, rel) if rel else root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name in SKIP:
                continue
            path = f"{rel}{e.name}"
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            out.append(path + "/" if is_dir else path)
            if is_dir and depth + 1 < MAX_DEPTH:
                todo.append((path + "/", depth + 1))
            if len(out) >= limit:
                break
    return out


def matching_paths(paths: list[str], typed: str) -> list[str]:
    """The paths containing `typed` (case-insensitive): those whose name starts with it first, then shorter."""
    t = typed.lower()

    def key(p: str) -> tuple[bool, bool, int, str]:
        name = p.rstrip("/").rsplit("/", 1)[-1].lower()
        return (not p.lower().startswith(t), not name.startswith(t.rsplit("/", 1)[-1]), len(p), p)

    hits = [p for p in paths if t in p.lower()]
    hits.sort(key=key)
    return hits[:MAX_HITS]


def replace_word(text: str, path: str) -> str:
    """The prompt with its last `@word` completed to `@path` (a file gets a space after it, a folder not)."""
    head = text[: len(text) - len(text.split()[-1])] if text.split() else text
    return f"{head}@{path}" + ("" if path.endswith("/") else " ")


class Tree:
    """The working directory's paths, walked at most every `CACHE_S` seconds."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._paths: list[str] = []
        self._at = -CACHE_S

    def paths(self) -> list[str]:
        """The paths (walked again when the last walk is older than `CACHE_S`)."""
        now = time.monotonic()
        if now - self._at >= CACHE_S:
            self._paths = walk(self.root)
            self._at = now
        return self._paths
