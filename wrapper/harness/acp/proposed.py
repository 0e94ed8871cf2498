"""An edit the agent asked permission for, then proposed again through a file system it was told it lacks.

breaker-tui advertises no `fs` capability, so an agent writes its files itself. opencode, after an edit
it was allowed, still sends the edit's new content as `fs/write_text_file` (as Zed would show it in a
buffer) without awaiting the answer, and then writes the file with its own tool. Refused, that write
left an unhandled rejection on opencode's stderr: a stack trace in the child-output pane after every
edit, for a write that was never needed. Such a proposal is acknowledged (nothing is written; the agent
writes the file itself); every other use of the file system is refused as before.
"""

from __future__ import annotations

from typing import Any

WRITE = "fs/write_text_file"
PATH_KEYS = ("filepath", "filePath", "file_path", "path")
KEEP = 32  # edits asked about and not yet proposed: a few at a time, bounded against a flood


def _edited_path(params: dict[str, Any]) -> str | None:
    call = params.get("toolCall")
    if not isinstance(call, dict) or call.get("kind") != "edit":
        return None
    raw = call.get("rawInput")
    if isinstance(raw, dict):
        for k in PATH_KEYS:
            if isinstance(raw.get(k), str) and raw[k]:
                return str(raw[k])
    return None


class ProposedEdits:
    """The paths of edits the agent asked permission for; a write to one of them is its proposal."""

    def __init__(self) -> None:
        self._paths: list[str] = []

    def asked(self, params: dict[str, Any]) -> None:
        """A `session/request_permission`: remember the path of an edit."""
        path = _edited_path(params)
        if path is not None:
            self._paths = [*self._paths, path][-KEEP:]

    def take(self, method: str, params: dict[str, Any]) -> str | None:
        """The path, when this request proposes an edit asked about before (once each); else None."""
        path = params.get("path") if method == WRITE and isinstance(params, dict) else None
        if not isinstance(path, str) or path not in self._paths:
            return None
        self._paths.remove(path)
        return path
