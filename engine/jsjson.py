"""JavaScript `JSON.stringify` semantics for the `exact:` fingerprints and failure signatures."""

from __future__ import annotations

import json
import math
from typing import Any

from engine.units import escape_lone_surrogates, from_units, sort_key

_encode_str = json.encoder.encode_basestring  # the C quoting function, without the encoder object around it
MAX_SAFE = 2**53


def js_number(x: float | int) -> str:
    """Format a number as JavaScript's `Number.prototype.toString` does (NaN/inf -> null)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        if -MAX_SAFE <= x <= MAX_SAFE:
            return str(x)
        try:
            x = float(x)
        except OverflowError:
            return "null"
    if math.isnan(x) or math.isinf(x):
        return "null"
    if x == 0:
        return "0"
    r = repr(x)
    sign = ""
    if r[0] == "-":
        sign, r = "-", r[1:]
    mant, _, exp_s = r.partition("e")
    exp = int(exp_s) if exp_s else 0
    int_part, _, frac = mant.partition(".")
    if frac == "0":
        frac = ""
    digits = (int_part + frac).lstrip("0")
    # decimal exponent n such that value = 0.digits * 10^n
    lead_zeros = len(int_part + frac) - len((int_part + frac).lstrip("0"))
    n = len(int_part) + exp - lead_zeros
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        es = ("+" if e >= 0 else "-") + str(abs(e))
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + es
    return sign + out


def js_string(s: str) -> str:
    """JSON-quote a string the way `JSON.stringify` does (non-ASCII raw, lone surrogates escaped)."""
    return escape_lone_surrogates(_encode_str(s))


_C_MAKE = getattr(json.encoder, "c_make_encoder", None)
# One C encoder made once (JSONEncoder.encode builds a new one per call). No cycle markers: it only
# ever sees flat objects of strings, booleans, null and safe integers.
_c_encode = _C_MAKE(None, None, _encode_str, None, ":", ",", True, False, True) if _C_MAKE is not None else None
_py_dumps = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode


def _dumps(value: Any) -> str:
    if _c_encode is not None:
        return "".join(_c_encode(value, 0))
    return _py_dumps(value)  # pragma: no cover - a Python without the C accelerator


_PLAIN = (str, bool, type(None))


def _flat_plain(value: Any) -> bool:
    """A flat object of strings, booleans, nulls and safe integers, with no astral key."""
    if type(value) is not dict:
        return False
    for k, v in value.items():
        if type(k) is not str or (not k.isascii() and max(k) > "\uffff"):
            return False
        t = type(v)
        if t is int:
            if not -MAX_SAFE <= v <= MAX_SAFE:
                return False
        elif t not in _PLAIN:
            return False
    return True


def stringify(value: Any) -> str:
    """`JSON.stringify(canonical(value))`: keys sorted by UTF-16 units, cycles become "[cycle]"."""
    if _flat_plain(value):  # the C encoder agrees with JavaScript on these
        return from_units(escape_lone_surrogates(_dumps(value)))
    out: list[str] = []
    _write(value, out, set())
    return from_units("".join(out))


def _write(v: Any, out: list[str], path: set[int]) -> None:
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, str):
        out.append(js_string(v))
    elif isinstance(v, (int, float)):
        out.append(js_number(v))
    elif isinstance(v, dict):
        if id(v) in path:
            out.append('"[cycle]"')
            return
        path.add(id(v))
        out.append("{")
        first = True
        for k in sorted((str(k) for k in v), key=sort_key):
            if not first:
                out.append(",")
            first = False
            out.append(js_string(k))
            out.append(":")
            _write(v.get(k, None), out, path)
        out.append("}")
        path.discard(id(v))
    elif isinstance(v, (list, tuple)):
        if id(v) in path:
            out.append('"[cycle]"')
            return
        path.add(id(v))
        out.append("[")
        for i, item in enumerate(v):
            if i:
                out.append(",")
            _write(item, out, path)
        out.append("]")
        path.discard(id(v))
    else:
        out.append(js_string(str(v)))
