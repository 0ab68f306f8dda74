"""The text of a record directory's files, for the tests that look for what must never be
written (a secret, an API key): a file's bytes as UTF-8 (undecodable bytes replaced), and a
Parquet table of the columnar index, compressed on disk, as its rows."""

from __future__ import annotations

from pathlib import Path


def file_text(path: Path) -> str:
    """The text of the file at ``path`` (see the module docstring)."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        with pq.ParquetFile(path) as file:
            return str(file.read().to_pylist())
    return path.read_bytes().decode("utf-8", "replace")
