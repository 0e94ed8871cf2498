"""The plain harness: any other command, on a pty, watched by its output (no bridge, no asks)."""
