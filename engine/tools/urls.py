"""WHATWG URL normalisation (via ada, Node's own parser) and the local-address tests.

"Local" decides whether a repeat is put to the person instead of being blocked, so a remote host
that passes for local turns a block into a question the person is told is harmless. The default
rule (`is_local_host`) therefore decides on the parsed address, never on how a name is spelled:
an IP literal is local when it falls in a loopback, private, link-local, unique-local or
unspecified range (IPv4-mapped IPv6 judged as the IPv4 address it carries), a name only when it
is `localhost` or ends in `.localhost` (RFC 6761 keeps those on the loopback). Any other name is
remote: names are never resolved (a DNS answer is the attacker's to give, and may change between
the check and the call). The seeds' prefix rule (`seed_local_host`) stays for `mode = "seed"`,
where the conformance vectors pin it.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any, NamedTuple, cast

import ada_url

from engine.units import JS_SPACE, sort_key, usv

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")
_TRACKING = re.compile(r"(?:utm_[A-Za-z0-9_]+|fbclid|gclid|msclkid|mc_eid|_ga|ref_src|igshid)", re.I)
_QUAD = re.compile(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}")
_LOCAL_V4 = re.compile(r"(?:127\.|10\.|192\.168\.|172\.(?:1[6-9]|2[0-9]|3[01])\.|169\.254\.)")
_LOCAL_V6 = re.compile(r"(?:f[cd][0-9a-f]{2}:|fe80:)", re.I)
_TRACKING_NAMES = frozenset({"fbclid", "gclid", "msclkid", "mc_eid", "_ga", "ref_src", "igshid"})
_WORD = "abcdefghijklmnopqrstuvwxyz0123456789_"


def is_tracking(name: str) -> bool:
    """`_TRACKING.fullmatch` without the regex for ASCII names (Unicode case folding needs the regex)."""
    if not name.isascii():
        return _TRACKING.fullmatch(name) is not None
    low = name.lower()
    if low.startswith("utm_"):
        return len(low) > 4 and not low[4:].strip(_WORD)
    return low in _TRACKING_NAMES


_TRIM = "".join(JS_SPACE)
_ATTRS = ("hostname", "port", "pathname", "search")
_PCT = re.compile(rb"%[0-9A-Fa-f]{2}")


class NormUrl(NamedTuple):
    """A normalised URL: host (no port), path, site (last two labels) and the `net:` body."""

    host: str
    path: str
    site: str
    href: str


def _pct(text: str) -> str:
    if "%" not in text and "+" not in text and text.isascii():
        return text
    raw = text.replace("+", " ").encode("utf-8", "surrogatepass")
    if b"%" in raw:
        raw = _PCT.sub(lambda m: bytes([int(m.group()[1:], 16)]), raw)
    return raw.decode("utf-8", "replace")


def form_decode(search: str) -> list[tuple[str, str]]:
    """`application/x-www-form-urlencoded` parsing, as `URLSearchParams` does."""
    out = []
    for part in search.lstrip("?").split("&"):
        if not part:
            continue
        name, _, value = part.partition("=")
        out.append((_pct(name), _pct(value)))
    return out


try:  # ada's C API through its cffi binding: one parse, offsets into the href (half the cost of parse_url)
    from ada_url.ada_adapter import ffi as _ffi  # type: ignore[attr-defined]
    from ada_url.ada_adapter import lib as _lib  # type: ignore[attr-defined]

    _OMITTED = 0xFFFFFFFF
except ImportError:  # pragma: no cover - a binding without the raw C API
    _lib = None


def _parse(text: str) -> tuple[str, str, str, str] | None:
    """(hostname, port, pathname, search) of a WHATWG-parsed URL, or None when it does not parse."""
    if _lib is None:  # pragma: no cover
        try:
            u = ada_url.parse_url(text, attributes=_ATTRS)
        except ValueError:
            return None
        return str(u["hostname"]), str(u["port"]), str(u["pathname"]), str(u["search"])
    raw = text.encode("utf-8", "surrogatepass")
    obj = _lib.ada_parse(raw, len(raw))
    try:
        if not _lib.ada_is_valid(obj):
            return None
        c = _lib.ada_get_components(obj)  # points into `obj`: read it before the free
        host_start, host_end, port_n = c.host_start, c.host_end, c.port
        path_start, search_start, hash_start = c.pathname_start, c.search_start, c.hash_start
        h = _lib.ada_get_href(obj)
        href = _ffi.unpack(h.data, h.length).decode("ascii", "replace")  # WHATWG serialises to ASCII
    finally:
        _lib.ada_free(obj)
    if hash_start == _OMITTED:
        hash_start = len(href)
    if search_start == _OMITTED:
        search_start = hash_start
    if href[host_start : host_start + 1] == "@":
        host_start += 1
    port = "" if port_n == _OMITTED else str(port_n)
    return href[host_start:host_end], port, href[path_start:search_start], href[search_start:hash_start]


_BASES: dict[str, tuple[str, str, str, str] | None] = {}
_C0_OR_SPACE = "".join(map(chr, range(0x21)))  # what the URL parser trims from both ends of its input


def parse_apart(text: str) -> tuple[str, str, str, str] | None:
    """`_parse`, with the part before the query parsed once per distinct text (loops vary the query).

    Validity, host, port and path are all decided before the first `?`, and the parser only
    percent-encodes a query, so the search comes back as written (minus what the parser drops:
    tabs and newlines, and the input's trailing controls); `form_decode` reads both forms alike.
    """
    q = text.find("?")
    if q <= 0 or text[q - 1] <= " " or "#" in text[:q]:  # no query, or the base would lose a trailing char
        return _parse(text)
    base = text[:q]
    parts = _BASES.get(base)
    if parts is None:
        if base in _BASES:
            return None
        if len(_BASES) >= _CACHE_MAX:
            _BASES.clear()
        parts = _BASES[base] = _parse(base)
        if parts is None:
            return None
    h = text.find("#", q)
    search = text[q:h] if h >= 0 else text[q:].rstrip(_C0_OR_SPACE)
    if "\t" in search or "\n" in search or "\r" in search:
        search = search.replace("\t", "").replace("\n", "").replace("\r", "")
    return parts[0], parts[1], parts[2], search


def site_of(host: str) -> str:
    """The seed's `siteOf`: IP literals whole, otherwise the last two labels."""
    if ":" in host or ("0" <= host[-1:] <= "9" and _QUAD.fullmatch(host)):
        return host
    if ".." not in host and host[:1] != "." and host[-1:] != ".":  # no empty labels: the common case
        last = host.rsplit(".", 2)
        return host if len(last) <= 2 else last[1] + "." + last[2]
    labels = [p for p in host.split(".") if p]
    if len(labels) <= 2:
        return host
    return ".".join(labels[-2:])


_CACHE: dict[tuple[str, tuple[Any, ...]], NormUrl | None] = {}
_CACHE_MAX = 4096


def norm_url(raw: Any, aliases: Mapping[str, Any]) -> NormUrl | None:
    """Normalise one URL as the seed's `normUrl`, keeping non-default ports in `href`.

    Results are memoised per alias table (agents repeat URLs; that is why we are here).
    """
    if not isinstance(raw, str):
        return None
    key = (raw, tuple(aliases.items()))
    try:
        if key in _CACHE:
            return _CACHE[key]
    except TypeError:  # an unhashable alias value: compute without the memo
        return _norm(raw, aliases)
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    out = _CACHE[key] = _norm(raw, aliases)
    return out


# The parts of a URL that no alias table changes (host before aliasing, port, path, query), per raw text:
# the default rules normalise one URL under two tables (the fingerprints' and the compared form's, none).
_UNALIASED: dict[str, tuple[str, str, str, str] | None] = {}


def _unaliased(raw: str) -> tuple[str, str, str, str] | None:
    """`_base` of a URL, memoised per raw text (`_UNALIASED`)."""
    base = _UNALIASED.get(raw, _UNALIASED)  # the table itself: not there yet
    if base is _UNALIASED:
        if len(_UNALIASED) >= _CACHE_MAX:
            _UNALIASED.clear()
        parsed = _UNALIASED[raw] = _base(raw)
        return parsed
    return cast("tuple[str, str, str, str] | None", base)


def _href(host: str, port: str, path: str, query: str) -> str:
    """A URL's `net:` form: host and port, path, and the kept query."""
    return (f"{host}:{port}" if port else host) + path + ("?" + query if query else "")


def plain_href(raw: str) -> str | None:
    """`norm_url(raw, {}).href` (None where that is None): a URL's `net:` form under no alias table, without
    the rest of a `NormUrl` (the default rules' compared form of a call asks only this).
    """
    base = _unaliased(raw)
    return _href(*base) if base is not None else None


def _norm(raw: str, aliases: Mapping[str, Any]) -> NormUrl | None:
    base = _unaliased(raw)
    if base is None:
        return None
    host, port, path, query = base
    alias = aliases.get(host) if host in aliases else None
    if isinstance(alias, str) and alias:
        host = alias.lower()
    return NormUrl(host, path, site_of(host), _href(host, port, path, query))


def _base(raw: str) -> tuple[str, str, str, str] | None:
    """Host (lower case, no trailing dot or `www.`), port, path and query of a URL, before any alias."""
    s = raw.strip(_TRIM)
    if not s:
        return None
    if not (s.startswith("https://") or s.startswith("http://") or _SCHEME.match(s)):
        s = "https://" + s
    parts = parse_apart(usv(s))
    if parts is None:
        return None
    host, port, path, search = parts
    host = host.lower()
    if host.endswith("."):
        host = host[:-1]
    if host.startswith("www."):
        host = host[4:]
    if not host:
        return None
    if len(path) > 1:
        path = path.rstrip("/")
    if not path:
        path = "/"
    query = ""
    if search:
        pairs = [f"{k}={v}" for k, v in form_decode(search) if not is_tracking(k)]
        if all(p.isascii() for p in pairs):
            pairs.sort()  # code-point order is UTF-16 order for ASCII
        else:
            pairs.sort(key=sort_key)
        query = "&".join(pairs)
    return host, port, path, query


def _local_v6(h: str) -> bool:
    return ":" in h and (h in ("::1", "0:0:0:0:0:0:0:1") or _LOCAL_V6.match(h) is not None)


def seed_local_host(host: Any) -> bool:
    """The seed's `isLocalHost`, plus bracketed IPv6 loopback/ULA/link-local literals as local (D1).

    A prefix match on the text (`10.attacker.example` passes): only `mode = "seed"` uses it.
    """
    if not isinstance(host, str) or not host:
        return False
    h = host
    if len(h) > 2 and h[0] == "[" and h[-1] == "]":
        return _local_v6(h[1:-1])
    if h == "localhost" or h.endswith(".localhost"):
        return True
    if _local_v6(h):
        return True
    return "0" <= h[0] <= "9" and (h == "0.0.0.0" or _LOCAL_V4.match(h) is not None)


# The ranges a call can reach without leaving this machine or its private network.
_LOCAL_NETS_V4 = tuple(
    ipaddress.IPv4Network(n)
    for n in ("127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "0.0.0.0/32")
)
_LOCAL_NETS_V6 = tuple(ipaddress.IPv6Network(n) for n in ("::1/128", "::/128", "fc00::/7", "fe80::/10"))
_HOSTS: dict[str, bool] = {}


def _local_address(text: str) -> bool:
    """Whether `text` is an IP literal in a local range (False for anything that is not a literal)."""
    try:
        addr = ipaddress.ip_address(text)
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address):
        mapped = addr.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1 on a dual-stack socket
        if mapped is not None:
            return any(mapped in n for n in _LOCAL_NETS_V4)
        if addr.scope_id is not None:
            return False  # a zone id (`fe80::1%eth0`) is not a URL host; be strict
        return any(addr in n for n in _LOCAL_NETS_V6)
    return any(addr in n for n in _LOCAL_NETS_V4)


def _judge(host: str) -> bool:
    h = host.lower()
    if h.endswith(".") and not h.endswith(".."):
        h = h[:-1]  # the root label: `localhost.` is `localhost`
    if len(h) > 2 and h[0] == "[" and h[-1] == "]":
        inner = h[1:-1]
        return ":" in inner and _local_address(inner)  # brackets hold IPv6 only (WHATWG)
    if h == "localhost" or (h.endswith(".localhost") and len(h) > len(".localhost")):
        return True
    if not h or not ("0" <= h[0] <= "9" or h[0] == ":"):
        return False  # a name: never local by how it begins, never resolved
    return _local_address(h)


def is_local_host(host: Any) -> bool:
    """Whether a URL host is local, decided on the parsed address (the default mode's rule; see the module).

    `host` is a WHATWG host as `norm_url` gives it (IPv4 canonical, IPv6 bracketed); bare IPv6 and a
    trailing dot are accepted too. `10.attacker.example`, `127.0.0.1.evil.example` and every other
    name but `localhost` and `*.localhost` are not local; DNS is never consulted.
    """
    if not isinstance(host, str) or not host:
        return False
    hit = _HOSTS.get(host)
    if hit is None:
        if len(_HOSTS) >= _CACHE_MAX:
            _HOSTS.clear()
        hit = _HOSTS[host] = _judge(host)
    return hit
