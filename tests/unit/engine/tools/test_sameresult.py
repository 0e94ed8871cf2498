"""The same result however the call was spelled (`engine.tools.sameresult`): the per-call id pass.

The ids pass is gated by cheap scans for speed; it must fold exactly as the one alternation does.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tools.sameresult import _IDS, fold_ids

_PIECES = (
    "id", "ID", "Id", "iD", '"id": "', '"ID": "', "x", "_", "-", "1", "23", "ab", "abcd", "abcde", "=", ":", "#",
    " ", '"', ".", "é", "run_", "om-", "\n", "request-id ", "trace_id=", "valid ", "did ", "_id ", "xid=", "٣",
)  # fmt: skip


@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=14))
@settings(max_examples=3000, deadline=None)
def test_fold_ids_folds_as_the_one_alternation(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert fold_ids(text) == _IDS.sub("#", text)


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("started run_3 and om-12", "started # and #"),
        ('{"messageId": "x9", "ok": true}', '{"messageId": "#", "ok": true}'),
        ("request-id 7919 done", "request-id # done"),
        ("trace_id=ab12 x", "trace_id=# x"),
        ("a valid answer with no ids", "a valid answer with no ids"),
    ],
)
def test_fold_ids_examples(text: str, folded: str) -> None:
    assert fold_ids(text) == folded
