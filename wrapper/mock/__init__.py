"""The mock model's other APIs (Anthropic Messages) and scripted tool calls fitted to declared tools."""
