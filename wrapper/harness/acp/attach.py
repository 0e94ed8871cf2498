"""`@path` in a prompt: the file goes to an ACP agent as a resource, as its `promptCapabilities` allow.

ACP prompts are lists of content blocks. Every agent must take a `resource_link` (a `file://` URI and a
name: the agent reads the file itself); one that advertises `promptCapabilities.embeddedContext` also
takes a `resource` with the file's text embedded, which is what Toad and Zed send, so the model sees the
file even when the agent would not read it. The text block stays as typed (`@notes.txt` included), so
the engine, the recording and the person see the same prompt.

Only files under the working directory are attached: a path that leaves it (`..`, an absolute path, a
symlink pointing out) stays text and the reason is said, so completion and attachment agree on what
`@` reaches. An embedded file is at most `EMBED_MAX_BYTES` and must be UTF-8 text; a larger or binary
one goes as a link instead. At most `MAX_FILES` files are attached per prompt.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EMBED_MAX_BYTES = 256 * 1024
MAX_FILES = 20
_MENTION = re.compile(r"(?:(?<=\s)|\A)@(\S+)")


@dataclass
class Attached:
    """The prompt's content blocks, and what was noticed on the way (a path left as text, and why)."""

    blocks: list[dict[str, Any]]
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def mentions(text: str) -> list[str]:
    """The `@path` words of a prompt, in order, each once (a trailing `,.;:)` is punctuation, not path)."""
    out: list[str] = []
    for m in _MENTION.finditer(text):
        p = m.group(1).rstrip(",.;:!?)\"'")
        if p and p not in out:
            out.append(p)
    return out


def inside(cwd: str, rel: str) -> Path | None:
    """The file `rel` names under `cwd` (symlinks resolved), or None when it is not a file there."""
    if os.path.isabs(rel):
        return None
    root = Path(os.path.realpath(cwd))
    target = Path(os.path.realpath(root / rel))
    if target != root and root not in target.parents:
        return None
    return target if target.is_file() else None


def _embedded(path: Path) -> str | None:
    try:
        if path.stat().st_size > EMBED_MAX_BYTES:
            return None
        with path.open("rb") as fh:
            data = fh.read(EMBED_MAX_BYTES + 1)
        if len(data) > EMBED_MAX_BYTES or b"\0" in data:  # it grew since the stat, or it is binary
            return None
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def prompt_blocks(text: str, cwd: str, prompt_caps: Any) -> Attached:
    """The `session/prompt` content for `text`: the text, then one block per `@file` under `cwd`."""
    embed = isinstance(prompt_caps, dict) and prompt_caps.get("embeddedContext") is True
    out = Attached([{"type": "text", "text": text}])
    for rel in mentions(text):
        path = inside(cwd, rel)
        if path is None:
            if os.path.isabs(rel) or ".." in Path(rel).parts or os.path.lexists(os.path.join(cwd, rel)):
                out.notes.append(f"@{rel} was not attached: only files under the working directory are")
            continue  # a word that is no file (`@someone`) is just text
        if len(out.files) >= MAX_FILES:
            out.notes.append(f"@{rel} was not attached: at most {MAX_FILES} files per prompt")
            continue
        uri = path.as_uri()
        body = _embedded(path) if embed else None
        if body is not None:
            out.blocks.append({"type": "resource", "resource": {"uri": uri, "mimeType": "text/plain", "text": body}})
        else:
            out.blocks.append({"type": "resource_link", "uri": uri, "name": path.name})
        out.files.append(rel)
    return out
