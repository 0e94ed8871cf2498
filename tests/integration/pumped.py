"""The earlier name of the integration tests' one `Run` (`tests.integration.runs`), for the tests that import it.

`Pumped` is `runs.Run` and `started` is `runs.started`: a started session and the items it emitted.
"""

from __future__ import annotations

from tests.integration.runs import Run as Pumped
from tests.integration.runs import started

__all__ = ["Pumped", "started"]
