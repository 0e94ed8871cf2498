"""Fingerprints of one tool call: what makes two calls "the same action" for the repeat breaker."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from engine.jsjson import stringify
from engine.repeat_config import RepeatConfig
from engine.tools.novelty import spaced
from engine.tools.progress import name_matches
from engine.tools.shell import HTTP_VERBS, is_generic_sink, is_plain
from engine.tools.shellfacts import analyze
from engine.tools.urls import is_local_host, norm_url, seed_local_host

# The repeat breaker fingerprints a command (`cmd:`, `verb:`, `sink:`) only for the seed's three shell tool
# names, so its fingerprints match the seed's; `engine.tools.progress.SHELL_TOOLS` is the wider set the default
# rules use.
SHELL_TOOLS = frozenset({"bash", "pwsh", "shell"})
_URL_TOOL = re.compile(r"fetch|search|browse|web_", re.I)
RELAXABLE = frozenset({"net", "site", "sink", "family", "verb"})
_URL_TOOLS: dict[str, bool] = {}  # tool name -> whether it names a URL tool (names repeat)


class CallPrint(NamedTuple):
    """A call's de-duplicated fingerprints in emission order and whether it only touches local hosts."""

    fingerprints: tuple[str, ...]
    local: bool


@lru_cache(maxsize=512)
def _pattern(glob: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in glob), re.S)


def is_tracked(name: Any, cfg: RepeatConfig) -> bool:
    """Whether a tool name is in scope under `include` / `exclude` (anchored, case-sensitive wildcards)."""
    if not isinstance(name, str) or not name:
        return False
    if cfg.include and not any(_pattern(p).fullmatch(name) for p in cfg.include):
        return False
    return not any(_pattern(p).fullmatch(name) for p in cfg.exclude)


def _ignored(ignore: Any) -> list[str]:
    if isinstance(ignore, str):
        return [ignore]
    if isinstance(ignore, (list, tuple)):
        return [str(k) for k in ignore]
    return []


_IGNORED: dict[tuple[int, str], tuple[Mapping[str, Any], frozenset[str]]] = {}


def ignored_keys(name: str, ignore_args: Mapping[str, Any]) -> frozenset[str]:
    """The argument keys dropped for a tool (memoised per table; the entry keeps the table alive)."""
    key = (id(ignore_args), name)
    hit = _IGNORED.get(key)
    if hit is not None and hit[0] is ignore_args:
        return hit[1]
    keys = frozenset(_ignored(ignore_args.get("*")) + (_ignored(ignore_args.get(name)) if name in ignore_args else []))
    if len(_IGNORED) > 4096:
        _IGNORED.clear()
    _IGNORED[key] = (ignore_args, keys)
    return keys


def omit_ignored(name: str, args: Any, ignore_args: Mapping[str, Any]) -> dict[str, Any]:
    """Shallow-copy the arguments as an object and drop the ignored top-level keys."""
    drop = ignored_keys(name, ignore_args)
    if isinstance(args, dict):
        return {k: v for k, v in args.items() if k not in drop}
    out = {} if args is None else {"value": args}
    return {k: v for k, v in out.items() if k not in drop}


def exact_body(name: str, args: Any, ignore_args: Mapping[str, Any]) -> str:
    """Canonical JSON of the arguments without their decoy keys."""
    return stringify(omit_ignored(name, args, ignore_args))


def fingerprints(
    name: Any, args: Any, cfg: RepeatConfig, body: str | None = None, bounds: bool = False, seed_hosts: bool = False
) -> CallPrint:
    """Every fingerprint of one call, and its local flag, as the seed computes them, with seven fixes.

    Bracketed IPv6 loopback, unique-local and link-local hosts count as local; a backslash-dot in a URL
    in shell text is a dot; non-default ports stay in `net:`; volatile flags are dropped only for HTTP
    clients; leading `cd`/`pushd`/`export` segments are ignored; sinks come from operator-aware tokens;
    URL schemes match in any case.

    `body` is `exact_body(name, args, cfg.ignore_args)` when the caller already has it. With `bounds`
    (the default rules) a shell command's `cmd:` body keeps its word boundaries: quoting that joins
    words into one argument is a different command, not a cosmetic variant; and its operators are
    spaced first (`novelty.spaced`), so `a&&b` is `a && b`.

    The local flag comes from `is_local_host` (the parsed address); `seed_hosts` uses the seed's prefix
    rule instead (`mode = "seed"` and the conformance vectors only).
    """
    local_host = seed_local_host if seed_hosts else is_local_host
    tool = name if isinstance(name, str) else ""
    if body is None:
        body = exact_body(tool, args, cfg.ignore_args)
    fps: dict[str, None] = {f"exact:{tool}:{body}": None}
    if tool in SHELL_TOOLS:
        return _shell_prints(fps, args, cfg, bounds, local_host)
    if _is_url_tool(tool):
        found = _url_prints(fps, args, cfg, local_host)
        if found is not None:
            return found
    return CallPrint(tuple(fps), False)


def _shell_prints(
    fps: dict[str, None], args: Any, cfg: RepeatConfig, bounds: bool, local_host: Callable[[str], bool]
) -> CallPrint:
    """A shell call's fingerprints after its `exact:` one: verb, family, `cmd:`, URLs and sink."""
    allow = cfg.local_hosts == "allow"
    command = args.get("command") if isinstance(args, dict) else None
    if not isinstance(command, str):
        command = ""
    facts = analyze(bounds_form(command) if bounds else command)  # `a&&b` is `a && b` (the default rules)
    urls = [u for u in [norm_url(r, cfg.host_aliases) for r in facts.urls] if u]
    local = bool(urls) and all(local_host(u.host) for u in urls)
    relax = local and allow
    verb = facts.verb
    if verb and not relax:
        fps[f"verb:{verb}"] = None
        if verb in HTTP_VERBS:
            fps["family:http-fetch"] = None
    cmd = facts.bounded if bounds else facts.stripped
    if verb and cmd:
        fps[f"cmd:{verb}:{cmd}"] = None
    if not relax:
        for u in urls:
            fps[f"net:{u.href}"] = None
            fps[f"site:{u.site}"] = None
        if not is_generic_sink(facts.sink):
            fps[f"sink:{facts.sink}"] = None
    return CallPrint(tuple(fps), local and not allow)


@lru_cache(maxsize=2048)
def bounds_form(command: str) -> str:
    """The command the default rules' fingerprints analyse: operators spaced (`novelty.spaced`), or the command
    as given when that only widens the spaces around operators that already stand alone (`a && b`): plain
    text with the same words has the same facts, and `mutates` has analysed the command as given already
    (cached: loops repeat commands, and comparing the words costs more than the spacing).
    """
    form = spaced(command)
    if form != command and is_plain(command) and form.split() == command.split():
        return command
    return form


def _is_url_tool(tool: str) -> bool:
    """Whether the tool's name says it fetches a URL (cached: names repeat)."""
    return name_matches(_URL_TOOLS, _URL_TOOL, tool)


def _url_prints(
    fps: dict[str, None], args: Any, cfg: RepeatConfig, local_host: Callable[[str], bool]
) -> CallPrint | None:
    """A URL tool's fingerprints after its `exact:` one (None when its URL argument does not parse)."""
    raw: Any = None
    if isinstance(args, dict):
        for key in ("url", "href", "uri"):
            if args.get(key) is not None:
                raw = args[key]
                break
    nu = norm_url(raw, cfg.host_aliases) if isinstance(raw, str) else None
    if nu is None:
        return None
    allow = cfg.local_hosts == "allow"
    local = local_host(nu.host)
    if not (local and allow):
        fps[f"net:{nu.href}"] = None
        fps[f"site:{nu.site}"] = None
        fps["family:http-fetch"] = None
    return CallPrint(tuple(fps), local and not allow)


def limit_for(fp: str, limits: Mapping[str, float | None]) -> float:
    """The cap of a fingerprint: its whole key first, then its kind; absent or null means none."""
    if fp in limits and limits[fp] is not None:
        return float(limits[fp])  # type: ignore[arg-type]
    if fp in limits:
        return math.inf
    kind = fp.split(":", 1)[0]
    v = limits.get(kind)
    return math.inf if v is None else float(v)


def kind_of(fp: str) -> str:
    """The fingerprint kind: the text before the first colon."""
    return fp.split(":", 1)[0]


def all_relaxable(hits: Sequence[str], local: bool) -> bool:
    """True when a local call's hits are all of kinds the local-address policy may relax."""
    return local and bool(hits) and all(kind_of(h) in RELAXABLE for h in hits)
