"""The pytest11 entry point."""
