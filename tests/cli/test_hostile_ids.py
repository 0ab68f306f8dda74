"""Hostile case, variant and artifact ids through a real ``autobench run`` (subprocess):
distinct safe paths inside the record directory, original ids kept in the records."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from autobench.records import replay_experiment

AUTOBENCH = str(Path(sys.executable).parent / "autobench")
CASE_IDS = [
    "../../etc/passwd",
    "/abs/path",
    "a/b",
    "A/b",
    "a_b",
    "a\\b",
    "..",
    ".",
    ".hidden",
    "...",
    "CON",
    "con",
    "nul.txt",
    "COM1",
    "LPT9.log",
    "ünï cödé",
    "中文",
    "🙂",
    "x" * 300,
    "é" * 300,
    "Case",
    "case",
    "CASE",
    "tab\there",
    "new\nline",
    "trailing.",
    "trailing ",
    "-dash",
    'a:b*c?d"e<f>g|h',
]
VARIANT_IDS = ["v", "V", "../v", "PRN", ".v", "ü" * 200]
TASK = """
def run(ctx, case):
    ctx.artifact(case.id, {"case": case.id})
    ctx.artifact(ctx.variant.id, "variant text", media_type="text/plain")
    ctx.artifact("../../../escape", b"binary", media_type="application/octet-stream")
    ctx.artifact("../../../escape", b"again", media_type="application/octet-stream")
    return {"case": case.id, "variant": ctx.variant.id}
"""


def test_hostile_ids_map_to_distinct_safe_paths_and_keep_their_text(tmp_path: Path) -> None:
    (tmp_path / "hostile_task.py").write_text(TASK)
    spec = {
        "benchmark": {
            "hostile": {
                "cases": [{"id": case, "input": {"id": case}} for case in CASE_IDS],
                "run": {"python": "hostile_task:run"},
                "variants": {variant: {} for variant in VARIANT_IDS},
            }
        }
    }
    # JSON is YAML (keys under 1024 characters: non-ASCII is kept, not escaped).
    (tmp_path / "autobench.yaml").write_text(json.dumps(spec, ensure_ascii=False))
    done = subprocess.run(
        [AUTOBENCH, "run", "autobench.yaml", "--record", "rec", "--no-progress"],
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    root = tmp_path / "rec"
    resolved = root.resolve()
    files = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert {path.name for path in files if not path.resolve().is_relative_to(resolved)} == {
        "hostile_task.py",
        "autobench.yaml",
    }
    for path in root.rglob("*"):
        for part in path.relative_to(root).parts:
            assert len(part) <= 120 and not part.startswith(".") and part.isascii(), part

    result = replay_experiment(root)
    assert result.missing_runs == ()
    assert len(result.runs) == len(CASE_IDS) * len(VARIANT_IDS)
    assert {(run.case_id, run.variant_id) for run in result.runs} == {
        (case, variant) for case in CASE_IDS for variant in VARIANT_IDS
    }
    run_files = {planned.path.lower() for planned in result.experiment.plan}
    assert len(run_files) == len(result.runs)  # distinct even on a case-insensitive disk
    artifact_paths: set[str] = set()
    for run in result.runs:
        assert run.output == {"case": run.case_id, "variant": run.variant_id}
        assert run.case.input == {"id": run.case_id}
        assert [ref.name for ref in run.artifacts] == [
            run.case_id,
            run.variant_id,
            "../../../escape",
            "../../../escape",
        ]
        for ref in run.artifacts:
            assert ref.path is not None
            assert (root / ref.path).resolve().is_relative_to(resolved)
            data = (root / ref.path).read_bytes()
            assert hashlib.sha256(data).hexdigest() == ref.sha256
            artifact_paths.add(ref.path.lower())
        escapes = [(root / ref.path).read_bytes() for ref in run.artifacts[2:] if ref.path]
        assert escapes == [b"binary", b"again"]
    assert len(artifact_paths) == 4 * len(result.runs)
