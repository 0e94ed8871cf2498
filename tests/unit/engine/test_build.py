"""Which engine build runs, and how the wheel's build hook falls back to plain Python.

The development install always runs the engine's sources; a wheel holds the hot modules compiled by
mypyc when the machine can compile them, else it is plain Python and says so once. `make test` runs
this file against the compiled wheel too, with `BREAKER_TUI_EXPECT_BUILD` naming the build it built.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
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


def no_toolchain() -> str | None:
    """Why this machine cannot compile with the build hook, or None."""
    try:
        import hatch_build
    except ImportError:  # the compiled wheel's own test run has no checkout on its path
        return "the build hook is not importable here"
    return hatch_build.missing_toolchain()


needs_toolchain = pytest.mark.skipif(no_toolchain() is not None, reason=f"cannot compile here: {no_toolchain()}")

# A project of one compiled module, built by this hook: a build takes seconds instead of the engine's minute.
TINY_PYPROJECT = """
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "tiny"
version = "0.1"

[tool.hatch.build.targets.wheel]
packages = ["tiny"]

[tool.hatch.build.targets.wheel.hooks.custom]
path = "hatch_build.py"
include = ["/tiny/fast.py"]
"""

# The C compiler mypyc's setup.py calls, in the middle of the build: it notes what the checkout holds at
# that moment, then compiles (or fails, as a machine whose compiler breaks would).
SPY_CC = """#!/bin/sh
{{ test -f "$TINY/pyproject.toml" && echo pyproject-present || echo pyproject-missing; }} >> "$SPY_LOG"
find "$TINY" -name '*.so' >> "$SPY_LOG"
{then}
"""


def tiny_project(tmp_path: Path) -> Path:
    project = tmp_path / "tiny-project"
    (project / "tiny").mkdir(parents=True)
    (project / "tiny" / "__init__.py").write_text("")
    (project / "tiny" / "fast.py").write_text("def double(n: int) -> int:\n    return 2 * n\n")
    (project / "pyproject.toml").write_text(TINY_PYPROJECT)
    shutil.copy(ROOT / "hatch_build.py", project)
    return project


def build(project: Path, tmp_path: Path, compiler_works: bool) -> subprocess.CompletedProcess[str]:
    """`python -m build --wheel` of `project` in place, its compiler spied on; TMPDIR is tmp_path/tmp."""
    cc = shutil.which(str(sysconfig.get_config_var("CC") or "cc").split()[0]) or "cc"
    spy = tmp_path / "cc"
    spy.write_text(SPY_CC.format(then=f'exec {cc} "$@"' if compiler_works else "exit 1"))
    spy.chmod(0o755)
    (tmp_path / "tmp").mkdir()
    env = {
        **os.environ,
        "CC": str(spy),
        "TINY": str(project),
        "SPY_LOG": str(tmp_path / "spy.log"),
        "TMPDIR": str(tmp_path / "tmp"),
        "BREAKER_TUI_BUILD": "auto",
    }
    out = tmp_path / "dist"
    args = [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(project)]
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=600, check=False)


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def wheel_names(tmp_path: Path) -> list[str]:
    with zipfile.ZipFile(next((tmp_path / "dist").glob("tiny-*.whl"))) as wheel:
        return wheel.namelist()


@pytest.mark.slow
@needs_toolchain
def test_a_compiled_build_leaves_the_checkout_as_it_was_even_mid_build(tmp_path: Path) -> None:
    project = tiny_project(tmp_path)
    before = tree(project)
    built = build(project, tmp_path, compiler_works=True)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    spied = (tmp_path / "spy.log").read_text().splitlines()
    assert spied and set(spied) == {"pyproject-present"}, f"while compiling, the checkout had: {spied}"
    assert tree(project) == before, "the build changed the checkout"
    names = wheel_names(tmp_path)
    assert any(n.startswith("tiny/fast.") and n.endswith(".so") for n in names), names
    assert list((tmp_path / "tmp").iterdir()) == [], "the build left its copy behind"


@pytest.mark.slow
@needs_toolchain
def test_a_compile_that_fails_falls_back_to_plain_and_leaves_nothing_behind(tmp_path: Path) -> None:
    project = tiny_project(tmp_path)
    before = tree(project)
    built = build(project, tmp_path, compiler_works=False)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert "building a plain-Python wheel: mypyc failed" in built.stdout + built.stderr
    assert set((tmp_path / "spy.log").read_text().splitlines()) == {"pyproject-present"}
    assert tree(project) == before, "the failed build changed the checkout"
    assert not [n for n in wheel_names(tmp_path) if n.endswith(".so")]
    assert list((tmp_path / "tmp").iterdir()) == [], "the failed build left its copy behind"


# Engine modules the tool check imports that stay Python on purpose: pydantic models (mypyc cannot
# compile them) and what only reading a configuration runs.
PYTHON_ONLY = {"engine.config", "engine.repeat_config", "engine.errors", "engine.keynames"}


def test_every_module_the_tool_check_runs_is_compiled() -> None:
    import tomllib

    hook = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    compiled = {p.strip("/").removesuffix(".py").replace("/", ".") for p in hook["hooks"]["custom"]["include"]}
    code = "import sys, engine.breaker; print(' '.join(m for m in sys.modules if m.startswith('engine.')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    modules = {m for m in loaded.stdout.split() if (ROOT / (m.replace(".", "/") + ".py")).is_file()}
    assert modules - compiled - PYTHON_ONLY == set(), "add these to the mypyc include list in pyproject.toml"
