"""widgets of the breaker-tui app."""
