"""The history an agent replays after `session/load`, as lines a person reads, never as events the engine judges.

ACP has the agent replay the loaded session as ordinary `session/update` notifications (the old
prompts as `user_message_chunk`, the answers, the thoughts, every old tool call). Fed to the engine
they would be judged again: old calls would fill the window and a long resumed session would trip on
its own past. So from `session/load` until the next prompt of ours the session hands them here
instead, and this turns them into a bounded list of plain lines (`you: …`, `agent: …`, `tool: …`);
the session shows them as history and records the frames marked as loading. The few updates that are
state, not history (the commands, the mode, the config options), still go to the monitor.
"""

from __future__ import annotations

from typing import Any

STATE_UPDATES = ("available_commands_update", "current_mode_update", "config_option_update")
MAX_LINES = 200  # history lines shown; the rest are counted
LINE_CHARS = 300
_SPEAKER = {"user_message_chunk": "you", "agent_message_chunk": "agent", "agent_thought_chunk": "thought"}


def is_state(params: dict[str, Any]) -> bool:
    """Whether a replayed update is the session's state (commands, mode, options) rather than its history."""
    u = params.get("update")
    return isinstance(u, dict) and u.get("sessionUpdate") in STATE_UPDATES


class HistoryLog:
    """Replayed updates in, readable lines out: chunks of one speaker joined, each tool call once."""

    def __init__(self) -> None:
        self.updates = 0
        self.dropped = 0
        self.shown = 0
        self._lines: list[str] = []
        self._speaker = ""
        self._text: list[str] = []
        self._calls: set[str] = set()

    def feed(self, params: dict[str, Any]) -> None:
        """One replayed `session/update`."""
        self.updates += 1
        u = params.get("update")
        if not isinstance(u, dict):
            return
        kind = u.get("sessionUpdate")
        if kind in _SPEAKER:
            c = u.get("content")
            text = c.get("text") if isinstance(c, dict) else None
            if not isinstance(text, str) or not text:
                return
            who = _SPEAKER[str(kind)]
            if who != self._speaker:
                self._close()
                self._speaker = who
            if sum(map(len, self._text)) < LINE_CHARS:
                self._text.append(text)
        elif kind == "tool_call":
            cid = u.get("toolCallId")
            if not isinstance(cid, str) or cid in self._calls:
                return
            self._calls.add(cid)
            self._close()
            title = u.get("title") if isinstance(u.get("title"), str) else ""
            self._add(f"tool: {title or u.get('kind') or 'call'}")

    def _close(self) -> None:
        if self._speaker and self._text and self._speaker != "thought":  # old thoughts are not worth a line
            self._add(f"{self._speaker}: {''.join(self._text)}")
        self._speaker = ""
        self._text = []

    def _add(self, line: str) -> None:
        flat = " ".join(line.split())
        if self.shown >= MAX_LINES:
            self.dropped += 1
            return
        self.shown += 1
        self._lines.append(flat if len(flat) <= LINE_CHARS else flat[: LINE_CHARS - 1] + "…")

    def take(self) -> list[str]:
        """The lines finished so far (the open one closed), each once."""
        self._close()
        out, self._lines = self._lines, []
        return out
