"""Fetch the plotly.js bundle the HTML report embeds, unedited, from its published npm package.

    uv run python tools/update_plotly_bundle.py            # the version in _plotly_bundle.py
    uv run python tools/update_plotly_bundle.py 4.2.0      # another version (then update
                                                           # PLOTLY_VERSION and PLOTLY_SHA256)

The report draws scatter and bar traces only, which plotly's own "basic" partial bundle
(``plotly.js-basic-dist-min``: bar, pie, scatter) covers at a quarter of the full bundle's
size. The script runs ``npm pack`` (npm checks the tarball against the registry's integrity
hash), copies ``plotly-basic.min.js`` and its ``LICENSE`` as they are into
``packages/autobench-report/src/autobench/report/static/`` and prints the file's SHA-256, which
``tests/report/test_html_export.py`` compares with ``PLOTLY_SHA256``.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packages" / "autobench-report" / "src"))

from autobench.report._plotly_bundle import (  # noqa: E402
    PLOTLY_FILE,
    PLOTLY_PACKAGE,
    PLOTLY_VERSION,
    STATIC,
)


def main() -> None:
    version = sys.argv[1] if len(sys.argv) > 1 else PLOTLY_VERSION
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("needs npm (apt-get install npm)")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        packed = subprocess.run(
            [npm, "pack", f"{PLOTLY_PACKAGE}@{version}", "--pack-destination", str(tmp)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()[-1]
        with tarfile.open(tmp / packed) as archive:
            archive.extractall(tmp, filter="data")
        for name in (PLOTLY_FILE, "LICENSE"):
            target = STATIC / (name if name == PLOTLY_FILE else "plotly-LICENSE")
            shutil.copyfile(tmp / "package" / name, target)
    digest = hashlib.sha256((STATIC / PLOTLY_FILE).read_bytes()).hexdigest()
    print(f"{PLOTLY_PACKAGE}@{version}: {STATIC / PLOTLY_FILE}\nPLOTLY_SHA256 = {digest!r}")


if __name__ == "__main__":
    main()
