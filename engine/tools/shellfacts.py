"""What the fingerprints need from one shell command, with a fast path for plain (quote-free ASCII) text.

Most commands an agent runs have no quotes, no backslashes and no non-ASCII text. For those the
shell tokenizers reduce to `str.split` plus operator splitting inside the few words that hold an
operator character, so the analysis is done on one word list with string methods instead of
regular-expression scans. `analyze_general` is the reference; a property test holds the two equal.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from engine.tools import shell
from engine.tools.shell import HTTP_VERBS, OPERATORS, WRAPPERS, has_operator, is_plain, words_to_tokens

_NAV = frozenset({"cd", "pushd", "export"})
_OP_START = frozenset("|&;<>")
_OPERATOR_SET = frozenset(OPERATORS)


class ShellFacts(NamedTuple):
    """Verb, `cmd:` body, sink and raw URLs of one command.

    `bounded` is the `cmd:` body with word boundaries kept (`bounded` in `shell`): the seed's body
    joins tokens bare, so `submit 'a b'` and `submit a b` share one; the default rules tell them apart.
    """

    verb: str
    stripped: str
    sink: str | None
    urls: tuple[str, ...]
    bounded: str


def _nav_start(words: list[str]) -> int:
    """The index of the first word after leading `cd X &&`-style segments, or -1 when unsure."""
    k = 0
    n = len(words)
    while k < n and words[k] in _NAV:
        if n - k < 3:  # an operator inside the next word could still make a segment
            return -1 if any(has_operator(w) for w in words[k + 1 :]) else k
        b = words[k + 1]
        if has_operator(b):
            return -1
        sep = words[k + 2]
        if sep != "&&" and sep != ";":
            return k if sep[0] not in _OP_START or sep in _OPERATOR_SET else -1
        if n - k == 3:
            return k
        if words[k] == "export" and not shell._NAME_ASSIGN.match(b):
            return k
        k += 3
    return k


def _verb(toks: list[str]) -> str:
    t = toks[0]
    if "=" in t or t == "timeout" or t in WRAPPERS:
        return shell.verb_of_tokens(toks)
    return t[t.rfind("/") + 1 :].lower()


def _stripped(toks: list[str], verb: str) -> str:
    t = toks[0]
    if verb in HTTP_VERBS or "=" in t or t == "timeout":
        return shell._strip(toks, verb)
    return " ".join(toks)  # plain words hold no whitespace: nothing to strip


def _sink_words(toks: list[str]) -> str | None:
    """The sink scan for operator-free words: only output options and `tee` can name one."""
    n = len(toks)
    for i, w in enumerate(toks):
        if w[0] != "-" and w != "tee":
            continue
        nxt = toks[i + 1] if i + 1 < n else None
        if w == "-o" or w == "--output" or w == "--output-document":
            if nxt is not None and nxt[0] != "-":
                return shell._clean_sink(nxt)
        elif w == "-O":
            if nxt is not None and nxt[0] != "-" and not shell._URLISH.match(nxt):
                return shell._clean_sink(nxt)
        elif w.startswith("--output="):
            return shell._clean_sink(w[9:])
        elif w.startswith("--output-document="):
            return shell._clean_sink(w[18:])
        elif w == "tee":
            rest = [t for t in toks[i + 1 :] if t[0] != "-"]
            if rest:
                return shell._clean_sink(rest[-1])
    return None


def plain_facts(command: str) -> ShellFacts | None:
    """The facts of a plain command (see `is_plain`), or None when the general path must decide."""
    words = command.split()
    ops = has_operator(command)
    if ops and words and words[0] in _NAV:  # navigation is only dropped before an operator
        k = _nav_start(words)
        if k < 0:
            return None
        if k:
            words = words[k:]
    if not words:
        return ShellFacts("", "", None, (), "")
    verb = _verb(words)
    stripped = _stripped(words, verb) if verb else ""
    sink = None
    if ">" in command or "-o" in command or "-O" in command or "tee" in command:
        sink = shell.sink_of_tokens(words_to_tokens(words)) if ops else _sink_words(words)
    urls = tuple(shell.extract_urls(command)) if "://" in command else ()
    return ShellFacts(verb, stripped, sink, urls, stripped)  # plain words hold no whitespace


def analyze_general(command: str) -> ShellFacts:
    """The reference analysis through the general tokenizers."""
    nav = shell.drop_navigation(command)
    if shell.is_quoted(nav):  # one pass gives both token lists
        optoks, tokens = shell.scan(nav)
        sink = shell.sink_of_tokens(optoks) if shell.may_sink(nav) else None
    else:
        tokens = shell.tokenize(nav)
        sink = shell._sink(nav)
    verb = shell.verb_of_tokens(tokens)
    words = shell.cmd_words(tokens, verb) if verb else []
    stripped = " ".join(words).strip(shell._SPACES)
    split = any(shell.bounded(t) is not t for t in words)  # a word that is empty or holds whitespace
    kept = shell.bounded_body(words) if split else stripped
    return ShellFacts(verb, stripped, sink, tuple(shell.extract_urls(command)), kept)


@lru_cache(maxsize=2048)
def analyze(command: str) -> ShellFacts:
    """Verb, `cmd:` body, sink and raw URLs of a command (cached: loops repeat commands)."""
    if is_plain(command):
        facts = plain_facts(command)
        if facts is not None:
            return facts
    return analyze_general(command)
