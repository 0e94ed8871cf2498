"""The mock model: an OpenAI/DeepSeek-compatible streaming server on 127.0.0.1 that plays scripted scenarios.

`server` is the model (and the Anthropic Messages, OpenAI Responses and Gemini APIs in their own modules),
`scenarios` the scripted behaviours, `tools` fits a scenario's calls to the tools an agent declares, `world`
the offline world a harness lays out around it. `demo` and the tests use it; nothing else depends on it.
"""
