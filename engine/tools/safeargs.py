"""Tool arguments the engine can always fingerprint: huge ones by a bounded prefix, deep ones clamped.

The bridge replaces arguments over its size limit by a marker (`__breaker_truncated__`, byte count,
sha256, the first 4,096 characters). A hash differs for every cosmetic variant, so such calls were
never seen as repeats; the engine fingerprints the marker's prefix instead. Arguments nested deeper
than Python's recursion limit would raise `RecursionError` in the canonical JSON writer; callers retry
with `clamp()`, which cuts every container deeper than `DEPTH` to a `"[deep]"` string without recursing.
"""

from __future__ import annotations

from typing import Any

DEPTH = 64
MARKER = "__breaker_truncated__"


def bounded_args(args: Any) -> Any:
    """The arguments as fingerprinted: a truncation marker becomes its prefix."""
    if isinstance(args, dict) and args.get(MARKER) is True:
        prefix = args.get("preview")
        return {"__prefix__": prefix if isinstance(prefix, str) else ""}
    return args


def clamp(args: Any, depth: int = DEPTH) -> Any:
    """A copy of the arguments with containers below `depth` levels replaced by `"[deep]"` (iterative)."""
    if not isinstance(args, (dict, list, tuple)):
        return args
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, int]] = [(args, root, 0, 0)]
    while stack:
        value, parent, slot, level = stack.pop()
        if isinstance(value, (dict, list, tuple)):
            if level >= depth:
                parent[slot] = "[deep]"
                continue
            if isinstance(value, dict):
                copy: Any = {}
                parent[slot] = copy
                for k, v in value.items():
                    stack.append((v, copy, str(k), level + 1))
            else:
                copy = [None] * len(value)
                parent[slot] = copy
                for i, v in enumerate(value):
                    stack.append((v, copy, i, level + 1))
        else:
            parent[slot] = value
    return root[0]
