"""The wheel's build hook: the engine's hot modules compiled with mypyc, or a plain wheel that says why.

Compiled code belongs in the wheel, built once when the wheel is built (as black does), not in a
loader that compiles and checks digests at run time. hatchling runs this hook for `pip install .`,
`python -m build` and `pip wheel .`; the modules it compiles and mypyc's options are listed once, in
`[tool.hatch.build.targets.wheel.hooks.custom]` of pyproject.toml, and the build pins its mypy there.

`hatch-mypyc` alone fails the whole install when there is no C compiler. Here the compiler and the
Python headers are looked for first; without them, or when mypyc fails, the wheel is built as plain
Python (the engine decides exactly the same, only slower) and one line says so. The development
install (`pip install -e .`) is never compiled, so an edited source is always the code that runs.

`BREAKER_TUI_BUILD` chooses: `auto` (the default: compiled when possible), `compiled` (fail when it
cannot compile: for CI and release builds) or `pure` (never compile).

The build never touches the checkout. hatch-mypyc compiles in place and hides `pyproject.toml` from
setuptools by renaming it for the length of the compile, so an interrupted `pip install .` would leave a
checkout without its `pyproject.toml` and with compiled modules that shadow its sources. Here mypyc runs
in a temporary copy of the wheel's files that holds no `pyproject.toml` at all (nothing to hide), and the
compiled modules go into the wheel from that copy, which is removed once the wheel is written.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shlex
import shutil
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hatch_mypyc.plugin import MypycBuildHook

MODE_ENV = "BREAKER_TUI_BUILD"
MODES = ("auto", "compiled", "pure")


def missing_toolchain() -> str | None:
    """What the compile step lacks on this machine (a C compiler, the Python headers), or None."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(cc)
    if not words or shutil.which(words[0]) is None:
        return f"no C compiler (`{cc}` is not on PATH)"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.is_file():
        return f"no Python headers ({headers} is missing; install python3-dev or its equivalent)"
    return None


class CompiledEngineHook(MypycBuildHook):  # type: ignore[misc]  # hatch-mypyc ships no type information
    """hatch-mypyc with a plain-Python fallback, skipped for editable installs."""

    PLUGIN_NAME = "custom"
    mypy_config: str | None = None
    compile_dir: Path | None = None  # the temporary copy of the wheel's files that mypyc compiles in, while it exists

    @property
    def root(self) -> str:
        """The copy while compiling (hatch-mypyc finds, builds and cleans its files under `root`), else the project."""
        return str(self.compile_dir) if self.compile_dir is not None else str(super().root)

    @property
    def config_mypy_args(self) -> list[str]:
        """hatch-mypyc's `mypy-args`, plus the project's mypy settings."""
        args: list[str] = list(super().config_mypy_args)
        return [*args, "--config-file", self.mypy_config] if self.mypy_config else args

    @contextlib.contextmanager
    def hide_project_file(self) -> Iterator[None]:
        """Nothing to hide: the copy mypyc compiles in has no `pyproject.toml` for setuptools to read."""
        yield

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        """Compile into `build_data` when this build should and can; otherwise leave the wheel plain."""
        mode = os.environ.get(MODE_ENV, "auto").strip().lower() or "auto"
        if mode not in MODES:
            raise ValueError(f"{MODE_ENV}={mode!r} is not one of {', '.join(MODES)}; unset it or pick one")
        if version == "editable":
            return
        if mode == "pure":
            self.plain(f"{MODE_ENV}=pure")
            return
        missing = missing_toolchain()
        if missing is not None:
            if mode == "compiled":
                raise RuntimeError(f"breaker-tui: cannot compile the engine: {missing} ({MODE_ENV}=compiled)")
            self.plain(missing)
            return
        try:
            self.compile_in_copy(version, build_data)
        except Exception as e:
            self.drop_copy()
            if mode == "compiled":
                raise
            lines = [line for line in str(e).splitlines() if line.strip()]
            self.plain(f"mypyc failed: {lines[-1] if lines else type(e).__name__}")
            return
        except BaseException:  # an interrupted build leaves no copy behind either
            self.drop_copy()
            raise
        self.app.display_info(f"breaker-tui: engine compiled with mypyc ({len(self.included_files)} modules)")

    def compile_in_copy(self, version: str, build_data: dict[str, Any]) -> None:
        """Copy the wheel's files to a temporary folder, compile there, and put the compiled modules in the wheel.

        mypy reads the project's [tool.mypy] section (the pydantic plugin, the strict engine) from a copy of
        `pyproject.toml` under another name, so setuptools, which mypyc runs in the same folder, finds none.
        """
        project = Path(super().root)
        self.compile_dir = Path(tempfile.mkdtemp(prefix="breaker-mypyc-"))
        for f in self.build_config.builder.recurse_included_files():
            if f.relative_path:
                target = self.compile_dir / f.relative_path
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(f.path, target)
        self.mypy_config = str(shutil.copy(project / "pyproject.toml", self.compile_dir / "mypy.toml"))
        here = Path.cwd()
        os.chdir(self.compile_dir)  # mypyc's setup.py compiles the paths it is given relative to the working folder
        try:
            super().initialize(version, build_data)
        finally:
            os.chdir(here)
        # hatch-mypyc names its modules as artifacts under the project root; they were built in the copy
        theirs = set(self.artifact_patterns)
        build_data["artifacts"][:] = [a for a in build_data["artifacts"] if a not in theirs]
        for pattern in self.artifact_globs:
            for built in glob.glob(str(self.compile_dir / pattern)):
                build_data["force_include"][built] = os.path.relpath(built, self.compile_dir)

    def drop_copy(self) -> None:
        """Remove the temporary copy (and the compiled modules in it)."""
        if self.compile_dir is not None:
            shutil.rmtree(self.compile_dir, ignore_errors=True)
            self.compile_dir = None

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the copy once the wheel holds its compiled modules."""
        self.drop_copy()

    def plain(self, why: str) -> None:
        """The one line a plain-Python wheel prints."""
        self.app.display_warning(
            f"breaker-tui: building a plain-Python wheel: {why}; the engine decides the same, tool checks run slower"
        )


def get_build_hook() -> type[MypycBuildHook]:
    """The hook class hatchling loads from this file (it also sees the imported base class)."""
    return CompiledEngineHook
