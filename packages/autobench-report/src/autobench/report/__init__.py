"""Autobench reports over recorded evidence: terminal rendering (Rich) and, later, exporters."""

from autobench.report._terminal import render_experiment_overview, render_plan, render_status_table

__all__ = ["render_experiment_overview", "render_plan", "render_status_table"]
