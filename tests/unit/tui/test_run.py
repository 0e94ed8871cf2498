"""The screen's first frame needs only Textual, the settings and the screen's own modules.

The harnesses, and the engine behind every item the screen shows, take most of the start-up's CPU;
`tui.run` opens the session after the first frame (`LiveSource(opened=False)`), so importing what
draws that frame must not import them.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

LATER = (
    "engine.events",  # the widgets read events as they come: after the first frame
    "engine.scores",
    "engine.breaker",
    "engine.tools",
    "engine.lenses",
    "wrapper.items",
    "wrapper.monitor",
    "wrapper.harness.registry",
)


def test_what_draws_the_first_frame_imports_no_harness_and_no_detector() -> None:
    probe = (
        "import sys, json\n"
        "import tui.run, tui.app, tui.screens.main\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({LATER!r}))))\n"
    )
    p = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
    loaded = json.loads(p.stdout.splitlines()[-1])
    assert loaded == [], f"the first frame waits for {loaded}"
