"""The engine imports without Textual, asyncio, the wrapper or the TUI (checked in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

PROBE = """
import sys, pkgutil, importlib, engine
for m in pkgutil.iter_modules(engine.__path__):
    if m.name not in ("bench", "conformance"):
        importlib.import_module("engine." + m.name)
bad = sorted(n for n in sys.modules if n.split(".")[0] in {"textual", "asyncio", "wrapper", "tui", "pexpect"})
print(",".join(bad))
"""


def test_engine_imports_nothing_from_ui_io_or_async() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"engine pulled in: {out.stdout.strip()}"


def test_engine_sources_never_mention_forbidden_imports() -> None:
    for path in (ROOT / "engine").glob("*.py"):
        text = path.read_text()
        for name in ("import textual", "from textual", "import asyncio", "from wrapper", "from tui"):
            assert name not in text, f"{path.name} contains {name!r}"


def test_every_package_directory_has_an_init() -> None:
    # import-linter and mypy skip a directory without __init__.py, so its imports would go unchecked
    missing = [
        str(d.relative_to(ROOT))
        for top in ("engine", "wrapper", "tui", "themes")
        for d in [ROOT / top, *(ROOT / top).rglob("*")]
        if d.is_dir() and any(d.glob("*.py")) and not (d / "__init__.py").is_file()
    ]
    assert missing == [], f"add an __init__.py to {', '.join(missing)}"
