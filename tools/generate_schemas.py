"""Write the JSON schemas of the record files into ``schemas/`` at the repository root.

Run ``uv run python tools/generate_schemas.py`` after changing a record model;
``tests/records/test_schemas.py`` fails while the committed files are stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from autobench.records import record_schemas
from autobench.records._schemas import schema_text

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


def main() -> int:
    SCHEMA_DIR.mkdir(exist_ok=True)
    for record_type, schema in record_schemas().items():
        target = SCHEMA_DIR / f"{record_type}.schema.json"
        target.write_text(schema_text(schema), encoding="utf-8")
        print(f"wrote {target.relative_to(SCHEMA_DIR.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
