"""Autobench reports: builders, Rich rendering and exporters over recorded evidence."""
