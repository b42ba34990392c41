"""Graders: deterministic checks and the LLM judge. They read saved artifacts, never agents."""
