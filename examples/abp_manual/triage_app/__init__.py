"""A small support-ticket triage service: the application code the benchmark measures."""
