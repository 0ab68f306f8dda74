"""``autobench instrumentation doctor``: what native instrumentation this environment offers.

One Rich table per known integration (the built-in ones and those plugins add):
whether its distribution is installed and in which version, the SDKs it
instruments and their installed versions, the supported range, the
compatibility state and its reason, the abstraction layer, the capture
mechanism, sync/async/streaming support, span kinds, semantic families and the
capture defaults of its settings. It reads package metadata and each installed
integration's ``package`` module only: it never imports a missing SDK, and it
works with no SDK installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from rich.table import Table
from rich.text import Text

from autobench.cli._console import stdout_console
from autobench.cli._plugins import command_plugins

if TYPE_CHECKING:
    from autobench.core.native import IntegrationStatus

# The plugins and the integrations' statuses are imported when `doctor` runs: `--help` needs
# neither.

_STATE_STYLE = {
    "compatible": "green",
    "degraded": "yellow",
    "unavailable": "dim",
    "unsupported": "red",
    "conflicting": "red",
}
"""The style of each :class:`~autobench.abp.CompatibilityState` (a ``StrEnum``: its value)."""


@click.command("doctor")
def doctor_command() -> None:
    """Show every native integration: installed or missing, versions and supported ranges,
    compatibility, layer, mechanism, capabilities, span kinds, semantic families and
    capture defaults. Imports no missing SDK."""
    from autobench.core.plugins import instrumentor_statuses

    console = stdout_console()
    statuses = instrumentor_statuses(command_plugins().integrations)
    for status in statuses:
        console.print(_table(status))
    usable = [s.name for s in statuses if s.compatibility.installable]
    console.print(
        f"{len(usable)} of {len(statuses)} integrations can be installed here"
        + (f": {', '.join(usable)}" if usable else "")
    )


def _table(status: IntegrationStatus) -> Table:
    entry, info, compatibility = status.entry, status.info, status.compatibility
    table = Table(title=f"{entry.id}", title_justify="left", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    installed = status.installed
    table.add_row(
        "distribution",
        Text(f"{entry.distribution} {installed}", style="green")
        if installed
        else Text(f"{entry.distribution}: missing ({entry.install_hint()})", style="dim"),
    )
    for target, version in status.targets.items():
        table.add_row(f"target {target}", version or Text("not installed", style="dim"))
    state = Text(str(compatibility.state), style=_STATE_STYLE[compatibility.state])
    if compatibility.reason:
        state.append(f": {compatibility.reason}", style="default")
    table.add_row("compatibility", state)
    if info is not None:
        table.add_row("supported", status.supported or "-")
        table.add_row("layer", str(info.layer))
        table.add_row("mechanism", str(info.mechanism))
        table.add_row("capabilities", ", ".join(info.capabilities) or "-")
        table.add_row("span kinds", ", ".join(info.span_kinds) or "-")
        table.add_row("semantic families", ", ".join(info.semantic_families) or "-")
    if entry.settings is not None:
        table.add_row("capture defaults", _defaults(entry.settings().model_dump()))
    return table


def _defaults(values: dict[str, Any], prefix: str = "") -> str:
    parts: list[str] = []
    for key, value in values.items():
        if isinstance(value, dict):
            parts.append(_defaults(value, f"{prefix}{key}."))
        else:
            shown = ", ".join(value) if isinstance(value, list | tuple) else value
            parts.append(f"{prefix}{key}={shown if shown != '' else '-'}")
    return "; ".join(part for part in parts if part) or "-"
