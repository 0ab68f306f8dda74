"""Autobench core: spec, planning, runtime, scoring and plugins.

The public API is re-exported lazily from :mod:`autobench`.
"""
