"""`python -m wrapper.bench`: the verdict round trip."""

from wrapper.bench.roundtrip import main

raise SystemExit(main())
