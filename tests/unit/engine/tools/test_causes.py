"""The cause an error names, and numbers that are data (the tau-bench cases of `tests/data/real/`).

Each test drives the real `Breaker` in the default mode, call by call, as `eval` replays a trace: a
customer's message is a `UserMessage`, a tool's `Error: ...` result carries no status (the text says
it failed). The three sequences are the shapes of real-173/real-273 (a failing update re-sent each
time the customer asks again, the unavailable flight kept) and real-271 (a booking re-sent with a
recomputed amount: the fix), plus the legitimate neighbours that must stay clean.
"""

from __future__ import annotations

from typing import Any

from engine import events as ev
from engine.breaker import Breaker
from engine.tools.causes import call_values, named_cause
from engine.tools.sameresult import data_values

UNAVAILABLE = "Error: flight HAT030 not available on date 2024-05-13"


class Desk:
    """One agent answering a customer: `say` is the customer's message, `call` a tool call."""

    def __init__(self) -> None:
        self.b = Breaker()
        self.n = 0
        self.kinds: list[str] = []
        self.rules: list[str] = []
        self.messages: list[str] = []

    def say(self, text: str) -> None:
        self.b.feed(ev.UserMessage("A", text))

    def call(self, tool: str, args: dict[str, Any], out: str) -> str:
        self.n += 1
        cid = f"c{self.n}"
        v = self.b.check_tool("A", cid, tool, args)
        self.kinds.append(v.kind)
        self.rules.append(v.rule)
        self.messages.append(v.message)
        if v.kind == "allow":
            self.b.tool_result("A", cid, tool, args, out, False)
        else:
            self.b.tool_result("A", cid, tool, args, v.message, True, dispatched=False)
        return v.kind


def _update(*flights: str, payment: str = "gift_card_4643416") -> dict[str, Any]:
    dates = {"HAT030": "2024-05-13", "HAT223": "2024-05-14"}
    return {
        "reservation_id": "XEWRD9",
        "cabin": "economy",
        "flights": [{"flight_number": f, "date": dates.get(f, "2024-05-21")} for f in flights],
        "payment_id": payment,
    }


def test_a_retry_that_keeps_the_named_cause_is_stopped_across_turns() -> None:
    d = Desk()
    # real-273: each retry answers the customer asking again, and the rest of the call changes
    # (another flight for the last leg, HAT124 added or dropped); the error names HAT030 every time
    attempts = [
        _update("HAT030", "HAT223", "HAT252", "HAT124"),
        _update("HAT030", "HAT223", "HAT102", "HAT124"),
        _update("HAT030", "HAT223", "HAT102", "HAT124"),
        _update("HAT030", "HAT223", "HAT102"),
    ]
    for args in attempts:
        d.say("Please change my flight from Atlanta to Las Vegas.")
        d.call("search_direct_flight", {"origin": "ATL", "destination": "LAS", "date": "2024-05-21"}, "[]")
        d.call("update_reservation_flights", args, UNAVAILABLE)
    # before: all four ran (every retry in a new turn, and no two of them one call shape)
    assert d.kinds[1::2] == ["allow", "allow", "allow", "deny"] and d.rules[7] == "cause-failure"
    assert "`HAT030`" in d.messages[7] and "`2024-05-13`" in d.messages[7] and "3 times" in d.messages[7]
    # dropping the named flight is a new attempt, whatever turn it is in
    d.say("Can we just change the last leg?")
    assert d.call("update_reservation_flights", _update("HAT223", "HAT102"), "Error: flight HAT223 not available") == (
        "allow"
    )


def test_a_success_or_a_change_starts_the_cause_over() -> None:
    for between in (
        ("update_reservation_flights", _update("HAT052"), '{"reservation_id": "XEWRD9", "status": "updated"}'),
        ("edit", {"file_path": "flights.json", "old_string": "a", "new_string": "b"}, "edited"),
    ):
        d = Desk()
        for _ in range(3):
            d.say("again, please")
            d.call("update_reservation_flights", _update("HAT030", "HAT102"), UNAVAILABLE)
        d.call(*between)
        assert d.call("update_reservation_flights", _update("HAT030", "HAT102"), UNAVAILABLE) == "allow", between[0]


def test_the_operators_reset_forgets_the_causes() -> None:
    d = Desk()
    for _ in range(3):
        d.say("again, please")
        d.call("update_reservation_flights", _update("HAT030", "HAT102"), UNAVAILABLE)
    d.b.reset_windows("A")  # the reset key: the person fixed the cause outside the agent's sight
    assert d.call("update_reservation_flights", _update("HAT030", "HAT102"), UNAVAILABLE) == "allow"
    assert d.call("update_reservation_flights", _update("HAT030", "HAT102"), UNAVAILABLE) == "allow"


def test_an_error_that_names_nothing_of_the_call_is_not_a_cause() -> None:
    # real-163 / real-233: one card after another, each `gift card balance is not enough`: four cards in
    # one turn, then the same four across turns; before, the 4th card in a turn was denied (the folded
    # shape made `gift_card_6276644` and `gift_card_7091239` one call failing three times)
    cards = ("gift_card_7480005", "gift_card_6276644", "gift_card_7091239", "gift_card_1646646")
    short = "Error: gift card balance is not enough"
    d = Desk()
    d.say("Use my gift cards, smallest first.")
    for card in cards:
        d.call("update_reservation_flights", _update("HAT078", "HAT118", payment=card), short)
    for card in cards:
        d.say(f"Try {card}.")
        d.call("update_reservation_flights", _update("HAT078", "HAT118", payment=card), short)
    assert set(d.kinds) == {"allow"}


def _booking(amount: int) -> dict[str, Any]:
    return {
        "user_id": "ivan_muller_7015",
        "flights": [{"flight_number": f, "date": "2024-05-17"} for f in ("HAT097", "HAT251")],
        "payment_methods": [{"payment_id": "certificate_8998287", "amount": amount}],
        "insurance": "no",
    }


def _paid(amount: int) -> str:
    return f"Error: payment amount does not add up, total price is 375, but paid {amount}"


def test_a_recomputed_amount_is_a_new_attempt_and_the_fix_runs() -> None:
    d = Desk()
    d.say("Please proceed with the booking.")
    for _ in range(3):
        d.call("book_reservation", _booking(299), _paid(299))
    d.call("calculate", {"expression": "158 + 141 + 75"}, "374.0")
    d.call("book_reservation", _booking(374), _paid(374))
    d.call("calculate", {"expression": "158 + 141 + 76"}, "375.0")
    d.call("book_reservation", _booking(375), '{"reservation_id": "HATHAT", "status": "booked", "amount": 375}')
    # real-271: before, the failure arm (numbers folded) denied 374, and the same-result rule (the
    # result's echo of the call's own amount folded) would have denied 375, the fix
    assert set(d.kinds) == {"allow"}
    # the identical booking a 4th time is still the failure arm's
    d2 = Desk()
    d2.say("Please proceed with the booking.")
    for _ in range(4):
        d2.call("book_reservation", _booking(299), _paid(299))
    assert d2.kinds == ["allow", "allow", "allow", "deny"] and d2.rules[3] == "failure"


def test_a_changed_number_folds_only_once_variants_failed_alike() -> None:
    # the seed's "numbers aside" still stops `print(N/0)` with N changing at the 4th ...
    d = Desk()
    for n in range(1, 5):
        d.call("bash", {"command": f"python3 -c 'print({n}/0)'"}, "ZeroDivisionError: division by zero\n[exit code: 1]")
    assert d.kinds == ["allow", "allow", "allow", "deny"]
    # ... but after three identical runs a changed number is a new attempt, until it too fails alike
    d = Desk()
    for n in (1, 1, 1, 2, 3):
        d.call("bash", {"command": f"python3 -c 'print({n}/0)'"}, "ZeroDivisionError: division by zero\n[exit code: 1]")
    assert d.kinds == ["allow", "allow", "allow", "allow", "deny"]


def test_what_a_cause_is() -> None:
    values = call_values("update_reservation_flights", _update("HAT030", "HAT102"))
    assert {"HAT030", "2024-05-13", "XEWRD9", "economy"} <= values
    assert named_cause(values, UNAVAILABLE) == {"HAT030", "2024-05-13"}
    assert named_cause(values, "Error: flight HAT0301 not available") == frozenset()  # whole tokens only
    assert named_cause(call_values("book_reservation", _booking(299)), _paid(299)) == {"299"}
    # a command line's plain words are not values an error quotes; its paths and files are
    shell = call_values("bash", {"command": "npm run build -- --config vite.config.ts"})
    assert "build" not in shell and "vite.config.ts" in shell
    assert named_cause(shell, "error during build: cannot read vite.config.ts") == {"vite.config.ts"}
    assert call_values("t", {"dry_run": True, "n": 7}) == frozenset()  # booleans, and values too short
    # numbers and identifiers that are whole values are data; digits inside a string are not
    assert data_values(_booking(374)) != data_values(_booking(375))
    assert data_values({"url": "https://x.test/export?page=3"}) == data_values({"url": "https://x.test/export?page=4"})


def test_a_local_address_is_asked_not_denied() -> None:
    # a dev server the person may be starting: the failure rules ask for local-only calls, this one too
    d = Desk()
    url = "http://localhost:3000/api/health"
    for _ in range(4):
        d.say("is it up now?")
        d.call("bash", {"command": f"curl -sf {url}"}, f"curl: (7) Failed to connect to {url}\n[exit code: 7]")
    assert d.kinds == ["allow", "allow", "allow", "ask"] and d.rules[3] == "cause-failure"


def test_a_harness_echo_of_the_call_names_no_cause() -> None:
    # a retry re-spelled (`cd DIR &&`, a quoted word) whose result restates it (`$ CMD`) above the same error:
    # the restatement quotes every value of the call, the error only the missing file
    d = Desk()
    missing = "/bin/bash: line 1: /app/venv/bin/activate: No such file or directory\n[exit code: 1]"
    spellings = (
        ". /app/venv/bin/activate && python3 /app/similarity.py",
        "cd /testbed && . /app/venv/bin/activate && python3 /app/similarity.py",
        ". /app/venv/bin/activate && 'python3' /app/similarity.py",
        ". /app/venv/bin/activate && python3 /app/similarity.py",
    )
    for k, command in enumerate(spellings):
        d.say("please run it")  # a new turn each time: only the cause, counted across turns, can stop it
        d.call("bash", {"command": command}, f"$ {command}\n{missing}" if k else missing)
    assert d.kinds == ["allow", "allow", "allow", "deny"] and d.rules[3] == "cause-failure"
