"""A record directory names nothing of the machine that wrote it: copied elsewhere, no file
mentions the writer's home or temporary directory, and it still replays."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from click.testing import CliRunner

from autobench.cli import cli
from autobench.records import replay_experiment


def test_a_copied_record_directory_names_no_path_of_the_writer(
    runner: CliRunner, spec_dir: Path
) -> None:
    record = spec_dir / "records"
    args = ["run", str(spec_dir / "autobench.yaml"), "--record", str(record), "--no-progress"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    elsewhere = Path(tempfile.mkdtemp(prefix="copied-")) / "experiment"
    try:
        shutil.copytree(record, elsewhere)
        files = [path for path in elsewhere.rglob("*") if path.is_file()]
        names = {path.name for path in files}
        assert {"experiment.yaml", "summary.yaml", "run.yaml"} <= names
        writer_paths = {
            str(Path.home()),
            str(spec_dir),
            str(spec_dir.resolve()),
            tempfile.gettempdir(),
        }
        for path in files:
            text = path.read_text(encoding="utf-8", errors="replace")
            if path.suffix == ".yaml":
                assert text.startswith("# yaml-language-server: $schema=urn:autobench:"), path
            found = [name for name in writer_paths if name in text]
            assert found == [], f"{path.relative_to(elsewhere)} names {found}"
            assert "file://" not in text, path
        replayed = replay_experiment(elsewhere)
        assert len(replayed.runs) == 4
    finally:
        shutil.rmtree(elsewhere.parent)
