"""`python -m tui` is `breaker-tui`."""

from tui.cli import main

raise SystemExit(main())
