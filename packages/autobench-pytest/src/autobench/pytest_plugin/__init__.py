"""Autobench benchmarks as pytest tests (the autobench-pytest distribution)."""
