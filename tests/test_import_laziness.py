"""``import polars_rankmetrics`` loads none of the optional or heavy packages (no timing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
from pathlib import Path
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
from pathlib import Path
import polars_rankmetrics as rm
rm.spark
print(",".join(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert "pyarrow" in done.stdout


TREC_EVAL_PATH_REFUSED = (
    *HEAVY,
    "sklearn",
    "statsmodels",
    "mkdocs",
    "markdown",
    "polars_rankmetrics.comparisons.plot",
    "polars_rankmetrics.comparisons.significance",
)
"""What ``rankmetrics trec-eval`` must not import: the heavy packages, the docs tooling,
the charts and the statistics (issue 31: only what the subcommand needs)."""


def test_the_trec_eval_command_imports_only_what_it_needs(tmp_path: Path) -> None:
    """Evaluate real files through the CLI entry point, then list what got imported."""
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 2\n")
    run.write_text("1 Q0 a 1 0.9 r\n1 Q0 b 2 0.5 r\n2 Q0 c 1 0.3 r\n")
    script = f"""
import sys, io, contextlib
from polars_rankmetrics.cli import main
for argv in (["-m", "all_trec", "-q"], []):
    code = main(["trec-eval", *argv, {str(qrels)!r}, {str(run)!r}])
    assert code == 0, code
refused = {TREC_EVAL_PATH_REFUSED!r}
print("imported:" + ",".join(sorted(m for m in refused if m in sys.modules)))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert "map" in done.stdout  # the measures were printed: the command ran
    assert done.stdout.strip().splitlines()[-1] == "imported:"
