"""``import polars_rankmetrics`` loads none of the optional or heavy packages (no timing)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("pyarrow", "numpy", "altair", "scipy", "rich", "pyspark", "pandas", "ranx", "numba")
"""Imported on first use only: by ``spark``, the charts, the significance tests, the peers."""


@pytest.mark.parametrize(
    "statement",
    [
        "import polars_rankmetrics",
        "import polars_rankmetrics.trec.cli",
        "import polars_rankmetrics.parquet",
    ],
)
def test_import_loads_no_heavy_package(statement: str) -> None:
    script = f"""
import sys
{statement}
import polars_rankmetrics as rm
assert rm.metrics and rm.evaluate and rm.evaluate_parquet
print(",".join(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == ""


def test_the_check_sees_a_heavy_import() -> None:
    """The same script reports a package that is imported (so the test above can fail)."""
    script = f"""
import sys
import polars_rankmetrics as rm
rm.spark
print(",".join(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert "pyarrow" in done.stdout
