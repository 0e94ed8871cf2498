"""The agent's plan, slash commands and switchable settings, kept current from its frames (display only).

None of these reach the engine: they are what a person reads and picks from. They live apart from
`AcpMonitor`'s decisions so the monitor stays about tool calls and streams, and so the replay re-derives
them from the recorded frames exactly as the live session showed them.

A mode that never asks matters to the breaker: a call that does not ask can only be cancelled after it
ran, never refused before. Each agent's `Preset.silent_modes` names those modes, and `ChoicesItem.silent` carries
them so the screen can warn before switching and mark the status line after.
"""

from __future__ import annotations

from typing import Any

from wrapper.harness.acp.presets import PRESETS
from wrapper.harness.acp.view import choices_of, commands_of, plan_of
from wrapper.items import SILENT_NOTICE, Choice, ChoicesItem, CommandsItem, Item, PlanItem

__all__ = ["SILENT_NOTICE", "Shown", "silent_modes"]


def silent_modes(agent_name: str) -> tuple[str, ...]:
    """The modes of a known agent in which calls that ask under its preset's mode run unasked.

    opencode, Kilo Code and Codex take their asks from the config the preset injects, so their modes
    (build, plan) change nothing and they declare none.
    """
    p = PRESETS.get(agent_name)
    return p.silent_modes if p is not None else ()


class Shown:
    """The plan, the commands and the choices of one agent session, as the agent last said them."""

    def __init__(self, agent_name: str) -> None:
        self.agent_name = agent_name
        self.plan: PlanItem | None = None
        self.sent_plan = False  # the agent sends `plan` updates (then its todo-tool calls are not read)
        self.commands: tuple[Any, ...] = ()
        self.choices: list[Choice] = []

    @property
    def silent(self) -> tuple[str, ...]:
        """The modes of this agent that never ask."""
        return silent_modes(self.agent_name)

    def _choices_item(self) -> ChoicesItem:
        return ChoicesItem(tuple(self.choices), self.silent)

    def opened(self, result: Any, mode: str | None = None) -> list[Item]:
        """The session/new or session/load answer: the settings it offers.

        The handshake may have switched the mode since (`mode`, the preset's), and the agent may have said
        so in a `config_option_update` that arrived before this answer was handled: those values are newer.
        """
        newer = {c.id: c.current for c in self.choices}
        self.choices = [
            Choice(c.id, c.category, c.name, newer.get(c.id, c.current), c.options, c.via) for c in choices_of(result)
        ]
        if mode:
            self.mode_changed(mode)
        return [self._choices_item()] if self.choices else []

    def update(self, u: dict[str, Any], agent: str) -> list[Item]:
        """One `session/update` other than the streams and the tool calls."""
        kind = u.get("sessionUpdate")
        entries = plan_of(u)
        if entries is not None:
            self.sent_plan = True
            self.plan = PlanItem(agent, tuple(entries))
            return [self.plan]
        if kind == "available_commands_update":
            item = CommandsItem(tuple(commands_of(u)))
            self.commands = item.commands
            return [item]
        if kind == "config_option_update":
            fresh = choices_of(u)
            if fresh:  # the options it sends replace those of the same id; the legacy mode/model stay
                ids = {c.id for c in fresh}
                self.choices = [*fresh, *(c for c in self.choices if c.id not in ids and c.via != "config")]
                return [self._choices_item()]
        return []

    def todo_call(self, raw: dict[str, Any], status: str, agent: str) -> list[Item]:
        """A finished todo-tool call whose input is the list (opencode's `todowrite` sends no `plan` update).

        Only when the agent has sent no `plan` of its own this session: then its plan is the one shown.
        """
        todos = raw.get("todos")
        if status != "completed" or not isinstance(todos, list) or self.sent_plan:
            return []
        entries = plan_of({"sessionUpdate": "plan", "entries": todos})
        if not entries:
            return []
        self.plan = PlanItem(agent, tuple(entries))
        return [self.plan]

    def mode_changed(self, mode: str) -> list[Item]:
        """`current_mode_update`: the mode choice now has `mode` as its value."""
        out: list[Item] = []
        for c in list(self.choices):
            if c.category == "mode":
                out = self.set_current(c.id, mode) or out
        return out

    def set_current(self, choice_id: str, value: str) -> list[Item]:
        """Choice `choice_id` switched to `value` (the agent said so, or accepted our request)."""
        changed = False
        for i, c in enumerate(self.choices):
            if c.id == choice_id and c.current != value:
                self.choices[i] = Choice(c.id, c.category, c.name, value, c.options, c.via)
                changed = True
        return [self._choices_item()] if changed else []

    def accepted(self, method: str, params: dict[str, Any], result: Any) -> list[Item]:
        """The agent answered a set request (`view.set_request`) without an error: the choice has its new value."""
        if method == "session/set_config_option":
            if isinstance(result, dict) and isinstance(result.get("configOptions"), list):
                return self.update({"sessionUpdate": "config_option_update", **result}, "")
            return self.set_current(str(params.get("configId") or ""), str(params.get("value") or ""))
        if method == "session/set_mode":
            return self.set_current("mode", str(params.get("modeId") or ""))
        return self.set_current("model", str(params.get("modelId") or ""))

    def find(self, choice_id: str) -> Choice | None:
        """The choice with this id."""
        return next((c for c in self.choices if c.id == choice_id), None)
