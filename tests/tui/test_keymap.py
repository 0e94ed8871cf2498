"""`[keys]` remapping reaches every place a key is named: the modal, the palette; bad key strings are refused."""

from __future__ import annotations

from textual import events
from textual._xterm_parser import XTermParser
from textual.binding import Binding
from textual.keys import _normalize_key_list
from textual.widgets import Button, TextArea

from tests.conftest import wait_until
from tests.tui.conftest import settle
from tests.tui.test_approval import asked, modal, poll, polls
from tests.tui.test_modes import _make
from tui import keys
from tui.keys import validate_keymap
from tui.widgets.composer import NEWLINE_KEYS
from wrapper.settings import Settings


def test_the_approval_ids_are_known_and_a_key_without_a_key_is_refused() -> None:
    assert validate_keymap({"approve.once": "y", "approve.arm": "f2", "kill": "ctrl+x"}) == []
    assert any("no key after" in p for p in validate_keymap({"kill": "ctrl+"}))
    assert any("not a modifier" in p for p in validate_keymap({"kill": "crtl+x"}))
    assert any("unknown binding id" in p for p in validate_keymap({"approve.onc": "y"}))


async def test_the_modal_keys_follow_the_keymap() -> None:
    settings = Settings(keys={"approve.arm": "f2", "approve.once": "y"})
    app, src = _make(settings=settings, msgs=[*polls(), *asked(4, {"command": poll(4)})])
    async with app.run_test(size=(100, 30)) as pilot:
        m = await modal(app)
        await pilot.press("f2")
        await wait_until(lambda: m.armed, 5, "f2 arms the modal")
        await pilot.press("y")
        await wait_until(lambda: src.answers == ["allow-once"], 5, "y allows once")


async def test_the_palette_names_the_remapped_key() -> None:
    app, src = _make(settings=Settings(keys={"kill": "ctrl+x"}))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, src, pilot)
        kill = next(c for c in app.get_system_commands(app.screen) if c.title.startswith("Kill the child"))
        assert kill.help == "key: ctrl+x"


async def test_the_key_labelled_deny_denies_under_a_remapped_config() -> None:
    """The buttons were labelled `d · deny` whatever `[keys]` said: a remap made the label lie."""
    settings = Settings(keys={"approve.deny": "x", "approve.once": "y"})
    app, src = _make(settings=settings, msgs=[*polls(), *asked(4, {"command": poll(4)})])
    async with app.run_test(size=(100, 30)) as pilot:
        m = await modal(app)
        deny_label = str(m.query_one("#deny", Button).label)
        once_label = str(m.query_one("#allow-once", Button).label)
        assert deny_label.startswith("x · deny") and once_label.startswith("y · allow"), (deny_label, once_label)
        await pilot.press("tab")
        await wait_until(lambda: m.armed, 5, "tab arms the modal")
        await pilot.press(deny_label.split(" · ", 1)[0])
        await wait_until(lambda: src.answers == ["deny"], 5, "the key labelled deny denies")


# The live actions that weaken protection and must never fire while someone edits a message. Pause
# (toggle_enforcing, ctrl+e) weakens it too and stays on the box's end-of-line key on purpose: it is seen
# at once (a warning toast, OBSERVING ONLY on the status line), undone by the same key, and the detector
# keeps counting while it observes, so nothing is forgotten; the reset forgets the windows for good.
WEAKENING = {"reset_windows"}
# What terminals send for editing keys whose bytes Textual reads as another key (the legacy encoding of
# xterm, VTE and tmux; ^W is Windows Terminal's ctrl+backspace)
SENT = {"alt+backspace": ("\x1b\x7f",), "ctrl+backspace": ("\x08", "\x17"), "ctrl+h": ("\x08",)}


def read_as(data: str) -> list[str]:
    """The keys Textual's own parser reads `data` (bytes from a terminal) as."""
    return [e.key for e in XTermParser().feed(data) if isinstance(e, events.Key)]


def test_no_key_that_weakens_protection_is_a_key_the_prompt_box_edits_with() -> None:
    editing = {p.strip() for b in TextArea.BINDINGS if isinstance(b, Binding) for p in b.key.split(",")}
    editing |= {"enter", *NEWLINE_KEYS}
    editing |= {name for key, sent in SENT.items() if key in editing for data in sent for name in read_as(data)}
    assert "ctrl+w" in editing, "alt+backspace arrives as ctrl+w"
    weakening = [k for k in keys.KEYS if keys.LIVE in k.modes and k.action in WEAKENING]
    assert {k.action for k in weakening} == WEAKENING
    for k in weakening:
        taken = set(_normalize_key_list(k.key).split(",")) & editing
        assert not taken, f"{k.action} on {taken}: it would fire while someone edits a message"
        assert k.off_editing, f"a `[keys]` remap of {k.id} onto an editing key must be refused too"
    assert editing <= keys.editing_keys(), "the config check knows every editing key and what terminals send"


def test_a_remap_of_the_reset_onto_an_editing_key_or_its_alias_is_refused() -> None:
    for spec in ("ctrl+w", "alt+backspace", "ctrl+backspace", "backspace", "end,f9"):
        (why,) = validate_keymap({"reset": spec})
        assert "`reset`" in why and "edits with" in why, why
    assert validate_keymap({"reset": "f9"}) == [], "still remappable"
