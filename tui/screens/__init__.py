"""screens of the breaker-tui app."""
