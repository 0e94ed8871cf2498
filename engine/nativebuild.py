"""`python -m engine.nativebuild [--if-stale | status]`: compile the hot engine modules with mypyc."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from engine.native import GROUP, MODULES, SOURCE_DIR, digest, native_dir, recorded_digest


def is_current() -> bool:
    """Whether the compiled build matches the current sources."""
    return recorded_digest() == digest()


def build() -> int:
    """Compile `MODULES` with mypyc into `native_dir()`; report, and exit non-zero, on failure."""
    try:
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as e:
        print(f"engine.native: cannot build ({e}); install the dev extras: pip install -e '.[dev]'")
        return 1
    out = native_dir()
    built_from = digest()  # taken before compiling: an edit made meanwhile makes the build stale
    try:
        (out / "DIGEST").unlink(missing_ok=True)  # nothing loads a half-replaced build
        return _compile(mypycify, setup, out, built_from)
    except OSError as e:
        print(f"engine.native: cannot write the build into {out} ({e}); the engine runs as plain Python")
        return 1


def _compile(mypycify: Any, setup: Any, out: Path, built_from: str) -> int:
    root = SOURCE_DIR.parent
    with tempfile.TemporaryDirectory(prefix="breaker-native-") as tmp:
        os.chdir(root)  # mypy resolves `engine` (and reads pyproject.toml) from the project root
        paths = [f"engine/{m}.py" for m in MODULES]
        try:
            exts = mypycify(paths, opt_level="3", group_name=GROUP, target_dir=f"{tmp}/c")
            setup(
                name="breaker-engine-native",
                py_modules=[],
                packages=[],
                ext_modules=exts,
                script_args=["-q", "build_ext", "--build-lib", f"{tmp}/lib", "--build-temp", f"{tmp}/o"],
            )
        except (Exception, SystemExit) as e:
            print(f"engine.native: the build failed ({e}); the engine runs as plain Python")
            return 1
        (out / "engine").mkdir(parents=True, exist_ok=True)
        for old in out.rglob("*.so"):
            old.unlink()
        for so in Path(f"{tmp}/lib").rglob("*.so"):
            so.replace(out / so.relative_to(f"{tmp}/lib"))
    (out / "DIGEST").write_text(built_from + "\n")
    print(f"engine.native: compiled {len(MODULES)} modules into {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Compile (`--if-stale`: only when the sources changed), or with `status` say which build runs."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--if-stale"]:
        if is_current():
            print(f"engine.native: the compiled build in {native_dir()} is current")
            return 0
        return build()
    if args[:1] != ["status"]:
        return build()
    import engine

    print(f"engine: {engine.BUILD}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
