"""What the dsh session's helpers (`Approvals`, `Guards`) need of the session that owns them.

They are parts of `Session` kept in their own modules; typing them against this interface, not the
class, keeps the session and its parts from importing each other.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol

from wrapper.harness.base import Approver
from wrapper.harness.dsh import protocol as P
from wrapper.harness.dsh.monitor import BridgeMonitor
from wrapper.items import Item
from wrapper.monitor import Info
from wrapper.process.child import Child
from wrapper.process.contain import Containment
from wrapper.settings import Settings


class ApprovalsPart(Protocol):
    """The part of `Approvals` the guards use."""

    def close(self, approval_id: str, reason: str, by: str = "engine") -> None:
        """The bridge gave up on an approval (`by`: timeout, or engine when the agent went away)."""
        ...


class BridgeOwner(Protocol):
    """The session, as its parts see it."""

    settings: Settings
    info: Info
    monitor: BridgeMonitor
    approver: Approver
    child: Child | None
    contain: Containment | None

    @property
    def approvals(self) -> ApprovalsPart:
        """The approvals in flight."""
        ...

    def _emit(self, item: Item) -> None: ...

    def _record(self, kind: str, body: dict[str, Any]) -> None: ...

    def _spawn(self, coro: Awaitable[Any]) -> None: ...

    async def _send(self, out: P.Out, extra: dict[str, Any] | None = None) -> bool: ...

    async def cancel(self) -> bool:
        """Cancel the current turn."""
        ...
