"""The question an agent's own permission request puts to the person (`wrapper.harness.acp.permissions`)."""

from __future__ import annotations

from tests.unit.wrapper.harness.acp.test_acp_monitor import OPTIONS, asked_call, finish, fresh


def test_the_agents_own_ask_says_it_is_its_own_and_that_the_check_found_no_repeat() -> None:
    m = fresh()
    _, r = asked_call(m, 0, "make test")
    assert r.question is not None and not r.question.from_breaker
    assert r.question.reason.startswith(
        "test asks permission for: make test (its own ask: breaker-tui's check found no repeat; its options: "
    )


def test_a_repeat_left_to_the_person_by_deny_observe_says_what_the_check_found() -> None:
    m = fresh(deny="observe")
    for n in range(4):
        cid, r = asked_call(m, n, "cat notes.txt; echo ran >> calls.log")
        assert r.question is not None and "found no repeat" in r.question.reason
        m.answered({"options": OPTIONS}, r.question, "allow-once")
        finish(m, cid)
    _, r = asked_call(m, 4, "cat notes.txt; echo ran >> calls.log")
    assert r.question is not None
    assert "its own ask; breaker-tui's check found a repeat (" in r.question.reason, r.question.reason
    assert "left to you by [acp] deny = observe" in r.question.reason
