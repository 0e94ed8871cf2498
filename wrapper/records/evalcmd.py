"""`breaker-tui eval DIR [--json] [--mode default|seed|both]`: the command-line face of `wrapper.records.evaluate`.

`wrapper.records.evaluate` owns the measurement (replay every labelled trace in each engine mode, the
confusion table, the first rule that fired); this module only gives it the user-facing options:
`--mode both` (the default) runs both modes, `--mode default` or `--mode seed` one of them.
"""

from __future__ import annotations

import argparse

MODES = ("default", "seed", "both")


def parser() -> argparse.ArgumentParser:
    """The `eval` command line."""
    p = argparse.ArgumentParser(
        prog="breaker-tui eval",
        description="Replay every labelled trace (meta `expected`) in a folder and print, per engine mode, "
        "the confusion table (loops blocked / only steered / missed, legitimate work blocked / steered / clean) "
        "and which rule fired first on each case. A corpus with a `traces/` folder (e.g. ../shared/detection/"
        "real-public) is read from there; traces labelled `skip` are read and counted, not scored. "
        "Exit 0 when done, 2 on bad input.",
    )
    p.add_argument("dir", help="a folder of labelled *.jsonl traces (or a corpus folder holding them in traces/)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    p.add_argument("--mode", choices=MODES, default="both", help="which engine mode(s) to run (default: both)")
    return p


def main(argv: list[str]) -> int:
    """Run `eval`; returns the exit status."""
    from wrapper.records import evaluate

    a = parser().parse_args(argv)
    forwarded = [a.dir, *(["--json"] if a.json else []), *(["--mode", a.mode] if a.mode != "both" else [])]
    return evaluate.main(forwarded)
