"""The engine's hot modules compiled with mypyc, used only when built from exactly the sources beside them.

`python -m engine.nativebuild` compiles `MODULES` (typed, mypy-strict Python; no C is written by
hand) into `<venv>/breaker-native/`; `make setup` runs it. At import, `engine/__init__.py` calls
`activate`, which puts that directory first on the package path when its recorded digest matches the
current sources and interpreter. Anything else (no build, a stale build, no compiler, or
`BREAKER_TUI_PURE=1`) runs the same modules as plain Python, with the same results.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from pathlib import Path

# The tool-check and stream paths. Modules holding pydantic models (config, repeat_config) stay Python.
MODULES = (
    "units",
    "jsjson",
    "messages",
    "shell",
    "shellfacts",
    "urls",
    "fingerprints",
    "repeat",
    "failures",
    "scores",
    "events",
    "blocks",
    "repetition",
    "degeneracy",
    "verdicts",
    "breaker",
)
GROUP = "breaker_engine_native"  # mypyc's shared library is the top-level module `GROUP__mypyc`
PURE_ENV = "BREAKER_TUI_PURE"
SOURCE_DIR = Path(__file__).resolve().parent


def native_dir() -> Path:
    """Where the compiled modules live: inside the interpreter environment they were built for."""
    return Path(sys.prefix) / "breaker-native"


def digest(src: Path = SOURCE_DIR) -> str:
    """A digest of the compiled modules' sources and the interpreter's ABI."""
    h = hashlib.sha256(sys.implementation.cache_tag.encode() + sys.version.encode())
    for name in MODULES:
        h.update(name.encode() + b"\0")
        h.update((src / f"{name}.py").read_bytes())
    return h.hexdigest()


def recorded_digest() -> str | None:
    """The digest the compiled build was made from, or None when there is no build."""
    try:
        return (native_dir() / "DIGEST").read_text().strip()
    except OSError:
        return None


def activate(package_path: list[str]) -> str:
    """Put the compiled modules first on `package_path` if they match; return which build runs and why."""
    if os.environ.get(PURE_ENV):
        return f"python ({PURE_ENV} is set)"
    out = native_dir()
    recorded = recorded_digest()
    if recorded is None:
        return "python (no compiled build: run `make setup` or `python -m engine.nativebuild`)"
    try:
        if recorded != digest():
            return "python (the compiled build is stale: run `python -m engine.nativebuild`)"
        suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
        missing = [m for m in MODULES if not (out / "engine" / f"{m}{suffix}").is_file()]
        if missing:
            return f"python (the compiled build lacks {', '.join(missing)}: run `python -m engine.nativebuild`)"
        name = f"{GROUP}__mypyc"
        lib = out / f"{name}{suffix}"
        spec = importlib.util.spec_from_file_location(name, lib)
        if spec is None or spec.loader is None:
            return f"python (cannot load {lib})"
        if name not in sys.modules:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules[name] = module
    except (OSError, ImportError) as e:
        return f"python (the compiled build does not load: {e})"
    package_path.insert(0, str(out / "engine"))
    return "compiled (mypyc)"
