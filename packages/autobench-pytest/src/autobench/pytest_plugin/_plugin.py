"""The ``pytest11`` entry point of autobench-pytest: options, the ``autobench`` marker and
fixture, and the collection of spec files. Until ``--autobench`` or the ini option
``autobench_glob`` turns it on, the plugin collects nothing and imports no part of
Autobench beyond this module (pytest loads it in every session of the environment)."""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from autobench.pytest_plugin._settings import Settings, add_options

if TYPE_CHECKING:
    from autobench.pytest_plugin._fixture import AutobenchFixture

_SETTINGS = pytest.StashKey[Settings]()


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "autobench(fail_on=...): --fail-on conditions the autobench fixture checks for this test",
    )
    if not config.pluginmanager.hasplugin("xdist"):
        # The items carry xdist_group marks; without pytest-xdist the name is still known.
        config.addinivalue_line("markers", "xdist_group(name): pytest-xdist's scheduling group")
    settings = Settings.of(config)
    config.stash[_SETTINGS] = settings
    if settings.enabled and getattr(config.option, "dist", None) == "load":
        # pytest-xdist: keep each benchmark's items on one worker, so its experiment runs
        # once; loadgroup schedules every other test exactly as load does.
        config.option.dist = "loadgroup"
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and workerinput.get(_LOADGROUP):
        # A worker reads loadgroup from its own command line, which says -n N (load): the
        # controller's choice comes through the worker's input instead.
        config.option.loadgroup = True


_LOADGROUP = "autobench_loadgroup"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist, on the controller, for each worker: pass on the loadgroup choice."""
    node.workerinput[_LOADGROUP] = node.config.option.dist == "loadgroup"


def _settings(config: pytest.Config) -> Settings:
    from autobench.pytest_plugin._items import SETTINGS

    settings = config.stash[_SETTINGS]
    config.stash[SETTINGS] = settings
    return settings


def matches(path: Path, rootdir: Path, patterns: tuple[str, ...]) -> bool:
    """Whether ``path`` matches a pattern: one without ``/`` against its name, one with
    ``/`` against its path from ``rootdir`` (``**/`` also matching no directory)."""
    try:
        relative = path.relative_to(rootdir).as_posix()
    except ValueError:
        relative = path.as_posix()
    for pattern in patterns:
        if "/" not in pattern:
            if fnmatch.fnmatchcase(path.name, pattern):
                return True
        elif fnmatch.fnmatchcase(relative, pattern) or (
            pattern.startswith("**/") and fnmatch.fnmatchcase(relative, pattern[3:])
        ):
            return True
    return False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    settings = parent.config.stash[_SETTINGS]
    if not settings.enabled or file_path.suffix not in (".yaml", ".yml"):
        return None
    if not matches(file_path, parent.config.rootpath, settings.patterns):
        return None
    _settings(parent.config)
    from autobench.pytest_plugin._items import SpecFile

    return SpecFile.from_parent(parent, path=file_path)


@pytest.fixture
def autobench(request: pytest.FixtureRequest) -> AutobenchFixture:
    """Run a benchmark built in Python inside a test: ``autobench.run(builder)``
    (see :class:`~autobench.pytest_plugin._fixture.AutobenchFixture`)."""
    _settings(request.config)
    from autobench.pytest_plugin._fixture import AutobenchFixture

    return AutobenchFixture(request)
