"""wrapper package."""
