"""`[keys]` remapping reaches every place a key is named: the modal, the palette; bad key strings are refused."""

from __future__ import annotations

from textual.widgets import Button

from tests.conftest import wait_until
from tests.tui.conftest import settle
from tests.tui.test_approval import asked, modal, poll, polls
from tests.tui.test_modes import _make
from tui.keys import validate_keymap
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
