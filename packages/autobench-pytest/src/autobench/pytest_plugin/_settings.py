"""The plugin's command-line and ini options, and the settings read from them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

DEFAULT_GLOB = ("autobench.yaml",)
"""Spec files collected by ``--autobench`` when the ini option ``autobench_glob`` is not set."""

CASSETTE_MODES = ("record", "replay", "replay-or-record")


def add_options(parser: pytest.Parser) -> None:
    """Register ``--autobench*`` and the ``autobench_*`` ini options."""
    group = parser.getgroup("autobench", "Autobench benchmarks as tests")
    group.addoption(
        "--autobench",
        action="store_true",
        help="Collect Autobench spec files (the ini option autobench_glob, default "
        "autobench.yaml) as test items.",
    )
    group.addoption(
        "--autobench-record-dir",
        metavar="DIR",
        help="Record each experiment in DIR/<benchmark> (default: a directory under "
        "pytest's temporary directory). An existing record is never overwritten.",
    )
    group.addoption(
        "--autobench-baseline",
        metavar="DIR",
        help="Compare each experiment against its record DIR/<benchmark> (or DIR itself) and "
        "fail on a statistically supported regression.",
    )
    group.addoption(
        "--autobench-cassette",
        choices=CASSETTE_MODES,
        help="record: store each run's HTTPX exchanges in its record; replay: answer every "
        "request from the cassettes of --autobench-cassette-from (default: the baseline).",
    )
    group.addoption(
        "--autobench-cassette-from",
        metavar="DIR",
        help="Records whose cassettes --autobench-cassette replay answers from "
        "(DIR/<benchmark>, or DIR itself).",
    )
    group.addoption(
        "--autobench-repeat",
        type=int,
        metavar="K",
        help="Run every case x variant K times instead of the spec's repeat.",
    )
    group.addoption(
        "--autobench-fail-on",
        metavar="CONDITIONS",
        help="Comma-separated conditions, each its own test item, as autobench run "
        "--fail-on takes them: failed, errored, skipped, missing, regressed, 'pass^k<0.9', ...",
    )
    group.addoption(
        "--autobench-concurrency",
        type=int,
        default=1,
        metavar="N",
        help="Runs active at once within one experiment (default 1).",
    )
    parser.addini(
        "autobench_glob",
        type="args",
        help="Patterns of the Autobench spec files to collect; setting it turns collection on. "
        "A pattern without '/' matches the file name, one with '/' the path from the rootdir.",
    )
    parser.addini(
        "autobench_fail_on",
        help="Default of --autobench-fail-on.",
    )


@dataclass(frozen=True)
class Settings:
    """What the options say, once per session (paths absolute)."""

    enabled: bool
    patterns: tuple[str, ...]
    record_dir: Path | None
    baseline: Path | None
    cassette: str | None
    cassette_from: Path | None
    repeat: int | None
    fail_on: tuple[tuple[str, str], ...]
    """Each ``--autobench-fail-on`` condition as written (the item's name) and as
    ``autobench run --fail-on`` reads it."""
    concurrency: int

    @classmethod
    def of(cls, config: pytest.Config) -> Settings:
        """Read and check the options; a bad value is a :class:`pytest.UsageError`."""
        patterns = tuple(config.getini("autobench_glob") or ())
        enabled = bool(config.getoption("autobench")) or bool(patterns)
        repeat = config.getoption("autobench_repeat")
        if repeat is not None and repeat < 1:
            raise pytest.UsageError("--autobench-repeat must be at least 1")
        concurrency = config.getoption("autobench_concurrency")
        if concurrency < 1:
            raise pytest.UsageError("--autobench-concurrency must be at least 1")
        fail_on = config.getoption("autobench_fail_on") or config.getini("autobench_fail_on")
        fail_on = fail_on if enabled else ""
        cassette = config.getoption("autobench_cassette")
        settings = cls(
            enabled=enabled,
            patterns=patterns or DEFAULT_GLOB,
            record_dir=_path(config, "autobench_record_dir"),
            baseline=_path(config, "autobench_baseline"),
            cassette=cassette,
            cassette_from=_path(config, "autobench_cassette_from"),
            repeat=repeat,
            fail_on=_conditions(fail_on or ""),
            concurrency=concurrency,
        )
        if cassette in ("replay", "replay-or-record") and settings.replay_root is None:
            raise pytest.UsageError(
                f"--autobench-cassette {cassette} needs records to replay: "
                "--autobench-cassette-from DIR or --autobench-baseline DIR"
            )
        if settings.cassette_from is not None and cassette not in ("replay", "replay-or-record"):
            raise pytest.UsageError("--autobench-cassette-from only applies to replay")
        return settings

    @property
    def replay_root(self) -> Path | None:
        """Where replayed cassettes come from: ``cassette_from``, else the baseline."""
        return self.cassette_from or self.baseline


def _path(config: pytest.Config, name: str) -> Path | None:
    value = config.getoption(name)
    return None if value is None else Path(config.invocation_params.dir, value).resolve()


def _conditions(text: str) -> tuple[tuple[str, str], ...]:
    """``"failed, pass^k<.9"`` -> ``(("failed", "failed"), ("pass^k<.9", "pass^k<0.9"))``:
    each condition as written and as ``autobench run --fail-on`` reads it
    (:class:`pytest.UsageError` for one it does not know)."""
    if not text.strip():
        return ()
    # Imported here, not at the top: pytest loads this plugin in every session of an
    # environment that has it, and a session without --autobench must not pay for click.
    import click

    from autobench.cli._gate import parse_fail_on

    conditions: dict[str, str] = {}
    for name in (part.strip() for part in text.split(",")):
        if not name:
            continue
        try:
            (parsed,) = parse_fail_on(
                click.Context(click.Command("pytest")), click.Option(["--x"]), name
            )
        except click.BadParameter as error:
            raise pytest.UsageError(f"--autobench-fail-on {name!r}: {error.message}") from None
        conditions[name] = parsed
    return tuple(conditions.items())
