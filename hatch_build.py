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
"""

from __future__ import annotations

import os
import shlex
import shutil
import sysconfig
import tempfile
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

    @property
    def config_mypy_args(self) -> list[str]:
        """hatch-mypyc's `mypy-args`, plus the project's mypy settings."""
        args: list[str] = list(super().config_mypy_args)
        return [*args, "--config-file", self.mypy_config] if self.mypy_config else args

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
            with tempfile.TemporaryDirectory(prefix="breaker-mypyc-") as tmp:
                # hatch-mypyc hides pyproject.toml from setuptools while compiling; mypy reads its
                # [tool.mypy] section (the pydantic plugin, the strict engine) from a copy instead.
                self.mypy_config = str(shutil.copy(Path(self.root) / "pyproject.toml", Path(tmp) / "mypy.toml"))
                super().initialize(version, build_data)
        except Exception as e:
            if mode == "compiled":
                raise
            self.clean([version])
            lines = [line for line in str(e).splitlines() if line.strip()]
            self.plain(f"mypyc failed: {lines[-1] if lines else type(e).__name__}")
            return
        self.app.display_info(f"breaker-tui: engine compiled with mypyc ({len(self.included_files)} modules)")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the compiled files from the source tree once they are in the wheel.

        mypyc builds them in place; left there, they would shadow the sources of an editable install.
        """
        if version != "editable":
            self.clean([version])

    def plain(self, why: str) -> None:
        """The one line a plain-Python wheel prints."""
        self.app.display_warning(
            f"breaker-tui: building a plain-Python wheel: {why}; the engine decides the same, tool checks run slower"
        )


def get_build_hook() -> type[MypycBuildHook]:
    """The hook class hatchling loads from this file (it also sees the imported base class)."""
    return CompiledEngineHook
