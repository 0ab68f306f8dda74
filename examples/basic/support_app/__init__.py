"""A small support-ticket router: the application this example benchmarks."""
