"""errortext: the short-result exit of `reads_as_error` stays below what any of its patterns can match."""

from __future__ import annotations

import importlib
import re

from engine.tools import errortext

_parser = importlib.import_module("re._parser")  # the regex parser, for a pattern's shortest match


def _shortest_match(rx: re.Pattern[str]) -> int:
    return int(_parser.parse(rx.pattern, rx.flags).getwidth()[0])


def test_no_error_pattern_matches_a_result_shorter_than_the_short_result_exit() -> None:
    # `reads_as_error` answers False for a shorter result without reading it: a pattern that could match
    # fewer characters would make that exit change a verdict
    patterns = (errortext._TOOL_ERROR, errortext._ANY, errortext._REJECTION, errortext._TRACEBACK)
    assert min(_shortest_match(rx) for rx in patterns) >= errortext._SHORTEST


def test_short_results_read_as_no_error_and_the_shortest_rejection_still_does() -> None:
    assert not any(errortext.reads_as_error(tool, t) for tool in ("bash", "read") for t in ("", "ok", "done", "[]"))
    assert errortext.reads_as_error("bash", "Wrong")
