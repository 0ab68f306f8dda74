"""A support reply generator backed by an offline, deterministic stand-in for an LLM."""
