"""Which keys exist in which mode: the one table the bindings, the footer, the palette and the help read.

The monitor has two modes. **live**: a harness runs under the monitor (dsh, an ACP agent or a plain
command); what it offers depends on the source's `Capabilities` (a plain command has no turns to
cancel, no prompts). **replay**: a recording plays through the same screen; nothing can be sent to a
child, and the player keys exist instead.

Emergency keys (cancel, kill, restart, pause, reset) are *priority* bindings: they fire while the
person types in the prompt box, whose own editing keys (ctrl+k, ctrl+e) would otherwise take them.
Printable keys (`?`, the replay letters) are not: typing them in the prompt types them.
Every binding has an id, so `[keys]` in the config file can remap it (`kill = "ctrl+x"`).

A key that weakens protection without showing it (`Key.off_editing`: the windows' reset forgets what
the detector had counted) never sits on a key the prompt box edits with, nor on a key a terminal sends
for one (`editing_keys`): alt+backspace arrives as ctrl+w, and a reset on ctrl+w gave a loop about to be
denied fresh calls whenever someone deleted a word. `validate_keymap` refuses such a remap too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache

from textual.binding import ActiveBinding, Binding
from textual.keys import KEY_ALIASES, _normalize_key_list

from wrapper.harness.capabilities import Capabilities
from wrapper.settings import APPROVAL_KEY_IDS

LIVE, REPLAY = "live", "replay"


@dataclass(frozen=True, slots=True)
class Key:
    """One action: its binding id, default key, footer label, help text and when it exists."""

    id: str
    key: str
    action: str
    label: str
    help: str
    modes: tuple[str, ...] = (LIVE,)
    needs: str = ""  # a `Capabilities` flag that must be true, or "" for none
    footer: bool = False
    priority: bool = True
    # weakens protection in a way the person may not see or cannot take back: never on an editing key
    off_editing: bool = False


KEYS: tuple[Key, ...] = (
    Key("cancel", "escape", "cancel_turn", "cancel", "cancel the agent's current turn (it keeps running)",
        needs="cancel_turn", footer=True),
    Key("kill", "ctrl+k", "kill", "kill", "kill the child (SIGINT, then SIGKILL after kill_grace_s)",
        needs="kill", footer=True),
    Key("restart", "ctrl+r", "restart", "restart", "restart the child on the same session",
        needs="restart", footer=True),
    # Pause weakens protection too, and ctrl+e is the prompt box's end of line; it stays there on purpose:
    # it is the documented key for a breaker that blocks wrongly, a press is seen at once (a warning toast,
    # OBSERVING ONLY on the status line, the footer offers resume) and undone by the same key with nothing
    # lost (observing, the detector keeps counting, so resuming denies what it would have denied). `end`
    # still moves to the end of the line.
    Key("enforce", "ctrl+e", "toggle_enforcing", "pause", "pause / resume enforcement (observe only)",
        footer=True),
    # The reset forgets what the detector counted (a loop about to be denied gets fresh calls), silently
    # and for good: a function key no text box edits with, F5 as in "start over"
    Key("reset", "f5", "reset_windows", "reset", "reset the sliding windows and the failure causes",
        off_editing=True),
    Key("reasoning", "ctrl+t", "toggle_reasoning", "reasoning", "show / fold reasoning (also what is shown)",
        modes=(LIVE, REPLAY)),
    Key("agent", "ctrl+n", "next_agent", "agent", "switch agent (scores and window of the next one)",
        modes=(LIVE, REPLAY)),
    Key("output", "ctrl+o", "toggle_output", "output", "show / hide the child's raw output",
        modes=(LIVE, REPLAY)),
    Key("panels", "ctrl+b", "toggle_panels", "panels",
        "show / hide the scores and window panel (narrow: instead of the stream)", modes=(LIVE, REPLAY)),
    Key("call", "ctrl+d", "open_call", "open call",
        "open the newest tool call: its diff and its whole output", modes=(LIVE, REPLAY)),
    Key("steps", "ctrl+g", "show_steps", "steps", "the tool calls, one row each (enter opens one)",
        modes=(LIVE, REPLAY)),
    Key("sessions", "ctrl+l", "show_sessions", "sessions",
        "the past sessions of this agent in this folder (enter resumes one)", needs="restart"),
    Key("mode", "shift+tab", "cycle_mode", "mode",
        "the agent's next mode (those that ask; the palette has the others)", needs="prompt"),
    Key("theme", "ctrl+y", "cycle_theme", "theme", "next bundled theme", modes=(LIVE, REPLAY)),
    Key("replay.pause", "space", "replay_pause", "play", "play / pause", modes=(REPLAY,), footer=True),
    Key("replay.step", "right,full_stop", "replay_step(1)", "step", "one step forward", modes=(REPLAY,),
        footer=True),
    Key("replay.back", "left,comma", "replay_step(-1)", "back", "one step back", modes=(REPLAY,), footer=True),
    Key("replay.next", "n", "replay_trip(1)", "next trip", "run to the next trip or denial", modes=(REPLAY,),
        footer=True),
    Key("replay.prev", "p", "replay_trip(-1)", "prev trip", "back to the previous trip or denial",
        modes=(REPLAY,)),
    Key("replay.start", "home", "replay_seek(0)", "start", "back to the start", modes=(REPLAY,)),
    Key("replay.end", "end", "replay_seek(-1)", "end", "to the end", modes=(REPLAY,)),
    Key("replay.faster", "plus", "replay_speed(2)", "faster", "double the speed", modes=(REPLAY,)),
    Key("replay.slower", "minus", "replay_speed(0.5)", "slower", "halve the speed", modes=(REPLAY,)),
    Key("help", "f1", "help", "help", "this help (also ? when the prompt box is not focused)",
        modes=(LIVE, REPLAY), footer=True),
    Key("help.char", "question_mark", "help", "help", "this help", modes=(LIVE, REPLAY), priority=False),
    Key("quit", "ctrl+q", "quit", "quit", "quit (stops the child; the recording is kept)", modes=(LIVE, REPLAY),
        footer=True),
)  # fmt: skip

BY_ACTION = {k.action.split("(", 1)[0]: k for k in KEYS}
PROMPT_KEYS = (
    ("enter", "send the prompt box to the agent (every line of it)"),
    ("ctrl+j", "a new line in the prompt box (shift+enter too, where the terminal tells it from enter)"),
    ("up / down", "the previous / next prompt (on the box's first / last row)"),
    ("pgup / pgdn", "scroll the stream while typing (the mouse wheel scrolls what it is over)"),
)
# A plain command's input box (`Capabilities.input`): what is typed goes to the command, a line at a time
INPUT_KEYS = (
    ("enter", "send the line to the command's input (an empty line too: a `read` waits for it)"),
    ("up / down", "the previous / next line sent"),
    ("pgup / pgdn", "scroll the stream while typing"),
)

# The prompt box's own keys, besides Textual's TextArea editing bindings (`tui.widgets.composer`).
PROMPT_OWN_KEYS = ("enter", "ctrl+j", "shift+enter", "alt+enter")
# What a terminal sends for a key, where that is another key's name: Textual's parser reads ESC DEL (alt+
# backspace in most terminals) as ctrl+w and ^H (ctrl+backspace in xterm and VTE, ctrl+h) as backspace;
# Windows Terminal sends ^W for ctrl+backspace.
TERMINAL_SENDS: dict[str, tuple[str, ...]] = {
    "alt+backspace": ("ctrl+w",),
    "ctrl+backspace": ("backspace", "ctrl+h", "ctrl+w"),
    "ctrl+h": ("backspace",),
}


@cache
def editing_keys() -> frozenset[str]:
    """Every key the prompt box edits with (Textual's `TextArea.BINDINGS` and the box's own keys), with the
    keys a terminal may send for them and Textual's aliases: what a key that must not fire while someone
    edits a message may not use.
    """
    from textual.widgets import TextArea  # the composer imports it anyway; not needed for the first frame

    out = {p.strip() for b in TextArea.BINDINGS if isinstance(b, Binding) for p in b.key.split(",")}
    out.update(PROMPT_OWN_KEYS)
    for key in list(out):
        out.update(TERMINAL_SENDS.get(key, ()))
    for key, aliases in KEY_ALIASES.items():  # tab is ctrl+i, enter ctrl+m, escape ctrl+[ (both ways)
        if key in out or out.intersection(aliases):
            out.update((key, *aliases))
    return frozenset(out)


def editing_clashes(keymap: dict[str, str]) -> list[str]:
    """A key that must stay off the prompt box's editing keys (`Key.off_editing`) on one of them, as
    built in or under `keymap`: the reset on ctrl+w wiped the detector's memory on every deleted word.
    """
    out: list[str] = []
    for k in KEYS:
        spec = keymap.get(k.id, k.key)
        hit = [p for p in _normalize_key_list(str(spec)).split(",") if p in editing_keys()] if k.off_editing else []
        if hit:
            out.append(
                f'`{k.id}` = "{spec}" takes `{hit[0]}`, a key the prompt box edits with (or one a terminal sends'
                f" for such a key): {k.help} would happen while someone edits a message; pick a function key"
            )
    return out


def bindings() -> list[Binding | tuple[str, str] | tuple[str, str, str]]:
    """The main screen's bindings, every mode's (`available` decides which are active).

    Quit comes first: the footer shows the bindings in this order and cuts what does not fit, and on a
    small terminal the way out is the one key that must stay on it.
    """
    return [
        Binding(k.key, "app." + k.action, k.label, show=k.footer, priority=k.priority, id=k.id, tooltip=k.help)
        for k in sorted(KEYS, key=lambda k: k.id != "quit")
    ]


# The emergency keys that act over every screen the app pushes (the approval modal, the help, a call, the
# palette): Textual dispatches a screen's keys only while it is on top, so these are the app's own bindings
# as well. Not cancel: its esc belongs to the screen on top (it closes it; the approval modal takes it as
# deny once armed, and nothing before, so typing never answers), and `c` there denies and cancels the turn.
EVERY_SCREEN = ("kill", "restart", "enforce", "reset")


def every_screen_bindings(shown: tuple[str, ...] = ()) -> list[Binding]:
    """The emergency keys of `EVERY_SCREEN` as bindings a screen over the main one (or the app) can hold;
    those in `shown` are on that screen's footer. They act through the app (its `check_action` decides).
    """
    by_id = {k.id: k for k in KEYS}
    return [
        Binding(by_id[i].key, "app." + by_id[i].action, by_id[i].label, show=i in shown, priority=True, id=i,
                tooltip=by_id[i].help)
        for i in EVERY_SCREEN
    ]  # fmt: skip


def labelled_now(active: dict[str, ActiveBinding], label_now: Callable[[str | None, str], str] | None) -> None:
    """Each of a screen's `active` bindings labelled as the app's state has it now (`label_now`: the pause key
    says resume while observing), in place; as they are without `label_now`.
    """
    if label_now is None:
        return
    for key, a in active.items():
        label = label_now(a.binding.id, a.binding.description)
        if label != a.binding.description:
            active[key] = a._replace(binding=replace(a.binding, description=label))


def available(key: Key, mode: str, caps: Capabilities) -> bool:
    """Whether `key` is offered in `mode` with a source that can do `caps`."""
    return mode in key.modes and (not key.needs or bool(getattr(caps, key.needs)))


def action_allowed(action: str, mode: str, caps: Capabilities) -> bool | None:
    """`check_action` for the main screen: True to offer it, False to hide it; None for unknown actions."""
    key = BY_ACTION.get(action)
    return None if key is None else available(key, mode, caps)


def shown_key(key: Key, keymap: dict[str, str]) -> str:
    """The key a person presses, as the help shows it (after `[keys]` remapping)."""
    raw = keymap.get(key.id, key.key)
    names = {"full_stop": ".", "comma": ",", "question_mark": "?", "plus": "+", "minus": "-", "escape": "esc"}
    return " / ".join(names.get(part.strip(), part.strip()) for part in raw.split(","))


def help_rows(
    mode: str, caps: Capabilities, keymap: dict[str, str], offered: Callable[[Key], bool] = lambda k: True
) -> list[tuple[str, str]]:
    """(key, what it does) for every key of the current mode, in table order.

    `offered` is the app's own last word on which keys exist (shift+tab only with an agent that has
    modes), so the help lists what the palette lists; the footer shows, of these, what can act now.
    """
    rows: list[tuple[str, str]] = []
    if mode == LIVE and caps.prompt:
        rows += list(PROMPT_KEYS)
    elif mode == LIVE and caps.input:
        rows += list(INPUT_KEYS)
    for k in KEYS:
        if k.id == "help.char" or not available(k, mode, caps) or not offered(k):
            continue
        rows.append((shown_key(k, keymap), k.help))
    rows.append(("ctrl+p", "command palette: every action by name"))
    return rows


# The approval modal's bindings (tui.screens.approval): remappable by the same `[keys]` table, and its
# buttons are labelled with the keys these bindings have live, so a label never names another answer's key.
# the approval binding ids are declared once, beside the `[keys]` checks of the config (the wrapper cannot see
# this module); here each gets its key, action and labels, and the modal's buttons name them by these constants
ARM, ONCE, TURN, DENY, CANCEL, ESCAPE = APPROVAL_KEY_IDS
APPROVAL_KEYS: tuple[Key, ...] = (
    Key(ARM, "tab", "arm", "answer…", "arm the modal (the focus goes to deny)", footer=True),
    Key(ONCE, "a", "answer('allow-once')", "this call", "allow this call only", footer=True),
    Key(TURN, "t", "answer('allow-turn')", "turn", "allow these local repeats this turn", footer=True),
    Key(DENY, "d", "answer('deny')", "deny", "deny this call", footer=True),
    Key(CANCEL, "c", "answer('cancel-turn')", "cancel turn", "deny and cancel the turn", footer=True),
    Key(ESCAPE, "escape", "answer('deny')", "deny", "deny this call"),
)
MODIFIERS = {"ctrl", "shift", "alt", "meta", "super", "hyper"}


def key_problem(spec: str) -> str:
    """Why `spec` (`ctrl+x`, several comma-separated) is not a key, or "" when it is one."""
    for part in spec.split(","):
        *mods, key = part.strip().split("+")
        if not key.strip():
            return f"`{spec}` has no key after its modifiers"
        bad = [m for m in mods if m.strip() not in MODIFIERS]
        if bad:
            return f"`{spec}`: `{bad[0]}` is not a modifier (one of {', '.join(sorted(MODIFIERS))})"
    return ""


def validate_keymap(keymap: dict[str, str]) -> list[str]:
    """Problems with a `[keys]` table: unknown binding ids (each named, with the known ids), bad key strings,
    an approval key that another answer also uses, and a key that must stay off the prompt box's editing keys
    on one of them.
    """
    known = {k.id for k in KEYS} | set(APPROVAL_KEY_IDS)
    out = [f"unknown binding id `{name}` (known: {', '.join(sorted(known))})" for name in keymap if name not in known]
    for name, spec in keymap.items():
        if name in known and (why := key_problem(str(spec))):
            out.append(f"{name}: {why}")
    return out or [*approval_clashes(keymap), *editing_clashes(keymap)]


def approval_keys(keymap: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """Each approval binding id -> the keys it answers to under `keymap` (Textual's long key names)."""
    return {k.id: tuple(_normalize_key_list(keymap.get(k.id, k.key)).split(",")) for k in APPROVAL_KEYS}


def approval_clashes(keymap: dict[str, str]) -> list[str]:
    """An approval key that another answer has, live or by default: Textual would keep one of two
    bindings on a key, and the button labelled with it would answer the other (`approve.once = "d"`
    ran the call on the key labelled deny); and a person's hands know the built-in keys, so a remap
    onto another answer's built-in key is refused as well. Each clash names both bindings.
    """
    by_id = {k.id: k for k in APPROVAL_KEYS}
    built_in = approval_keys({})
    live = approval_keys(keymap)
    out: list[str] = []
    for bid, keys_ in live.items():
        if bid not in keymap:
            continue
        for key in keys_:
            for other, theirs in (*live.items(), *built_in.items()):
                if other == bid or by_id[other].action == by_id[bid].action or key not in theirs:
                    continue
                out.append(
                    f'`{bid}` = "{keymap[bid]}" takes `{key}`, a key of `{other}` ({by_id[other].help}):'
                    " one key for two answers makes a button's label lie; pick a key no other answer uses"
                )
                break
    return out
