"""`python -m engine.bench`."""

from engine.bench.core import main

raise SystemExit(main())
