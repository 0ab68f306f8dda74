"""Record-layer test setup: the schema cache lives in a temporary AUTOBENCH_HOME."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True, scope="session")
def _autobench_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("autobench-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOBENCH_HOME", str(home))
        yield home
