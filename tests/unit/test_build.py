"""Which engine build runs, and how the wheel's build hook falls back to plain Python.

The development install always runs the engine's sources; a wheel holds the hot modules compiled by
mypyc when the machine can compile them, else it is plain Python and says so once. `make test` runs
this file against the compiled wheel too, with `BREAKER_TUI_EXPECT_BUILD` naming the build it built.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

import engine.breaker
from tests.conftest import ROOT


def test_build_info_names_the_running_build() -> None:
    compiled = not engine.breaker.__file__.endswith(".py")
    assert engine.build_info() == (engine.COMPILED if compiled else engine.PLAIN)
    expected = os.environ.get("BREAKER_TUI_EXPECT_BUILD")
    if expected:  # set by `make test` when it runs the unit tests against the compiled wheel
        assert engine.build_info() == expected


def test_the_checkout_holds_no_compiled_module_that_would_shadow_its_sources() -> None:
    strays = sorted(str(p.relative_to(ROOT)) for p in [*ROOT.glob("engine/**/*.so"), *ROOT.glob("*__mypyc*.so")])
    assert strays == [], "compiled modules in the checkout shadow the sources: remove them (git clean -X engine)"


class Messages:
    """hatchling's Application as far as the hook uses it: the lines it would print."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def display_warning(self, message: str = "", **_: Any) -> None:
        self.lines.append(message)

    display_info = display_warning


def run_hook(
    monkeypatch: pytest.MonkeyPatch, version: str = "standard", **env: str
) -> tuple[dict[str, Any], list[str]]:
    hatch_build = pytest.importorskip("hatch_build")
    for name in ("CC", "BREAKER_TUI_BUILD"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    app = Messages()
    hook = hatch_build.CompiledEngineHook(str(ROOT), {}, None, None, str(ROOT / "dist"), "wheel", app)
    build_data: dict[str, Any] = {"artifacts": [], "force_include": {}}
    hook.initialize(version, build_data)
    return build_data, app.lines


def test_without_a_compiler_the_wheel_is_plain_and_one_line_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    build_data, lines = run_hook(monkeypatch, CC="/nonexistent/cc")
    assert build_data == {"artifacts": [], "force_include": {}}  # nothing compiled, the wheel stays pure
    assert len(lines) == 1
    assert "plain-Python wheel" in lines[0] and "no C compiler" in lines[0] and "/nonexistent/cc" in lines[0]


def test_compiled_mode_fails_without_a_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(RuntimeError, match=r"cannot compile the engine: no C compiler"):
        run_hook(monkeypatch, CC="/nonexistent/cc", BREAKER_TUI_BUILD="compiled")


def test_pure_mode_never_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    build_data, lines = run_hook(monkeypatch, BREAKER_TUI_BUILD="pure")
    assert build_data == {"artifacts": [], "force_include": {}}
    assert len(lines) == 1 and "BREAKER_TUI_BUILD=pure" in lines[0]


def test_an_unknown_mode_is_an_error_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match=r"BREAKER_TUI_BUILD='fast' is not one of auto, compiled, pure"):
        run_hook(monkeypatch, BREAKER_TUI_BUILD="fast")


def test_the_editable_install_is_never_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    build_data, lines = run_hook(monkeypatch, version="editable", BREAKER_TUI_BUILD="compiled")
    assert build_data == {"artifacts": [], "force_include": {}} and lines == []
