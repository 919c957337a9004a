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


OWN_HEAVY = (
    "polars_rankmetrics.metrics",
    "polars_rankmetrics.measures",
    "polars_rankmetrics.engine",
    "polars_rankmetrics.multi",
    "polars_rankmetrics.evaluation",
    "polars_rankmetrics.fusion",
    "polars_rankmetrics.comparisons",
    "polars_rankmetrics.meta_evaluation",
    "polars_rankmetrics.trec",
    "polars_rankmetrics.parquet",
)
"""The package's own modules that ``import polars_rankmetrics`` leaves for first use (issue 31:
the metric families, the measure registry and its name grammar cost 60-70 ms to import)."""


def _fresh(script: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_import_loads_none_of_the_packages_own_heavy_modules() -> None:
    script = f"""
import sys
import polars as pl
import polars_rankmetrics
assert isinstance(pl.Expr.__dict__["rank"], object) and hasattr(pl.Expr.__dict__["rank"], "builtin")
print(",".join(m for m in {OWN_HEAVY!r} if m in sys.modules))
"""
    assert _fresh(script) == ""


def test_the_own_module_check_can_fail() -> None:
    """The first public name used imports its module (so the test above can fail)."""
    script = f"""
import sys
import polars_rankmetrics as rm
rm.ndcg_at_k
print(",".join(m for m in {OWN_HEAVY!r} if m in sys.modules))
"""
    assert "polars_rankmetrics.metrics" in _fresh(script).split(",")


def test_every_public_name_resolves_after_a_lazy_import() -> None:
    """Each name of ``__all__`` is the object its module defines, and ``metrics`` stays the
    function after the subpackage of the same name is imported."""
    script = """
import importlib, inspect
import polars as pl
import polars_rankmetrics as rm
import polars_rankmetrics.metrics.dcg  # binds the subpackage `metrics` on first import
from polars_rankmetrics.multi import metrics
assert rm.metrics is metrics, rm.metrics
from polars_rankmetrics import metrics as imported
assert imported is metrics
for name in rm.__all__:
    if name in ("spark", "recsys", "online", "counterfactual"):
        assert inspect.ismodule(getattr(rm, name)), name
        continue
    value = getattr(rm, name)
    module = importlib.import_module(value.__module__)
    assert getattr(module, value.__name__) is value, name
frame = pl.DataFrame({"r": [1, 0, 1], "s": [0.3, 0.2, 0.1]})
out = frame.select(
    a=pl.col("r").rank.ndcg_at_k(2, by="s"), b=rm.ndcg_at_k("r", 2, by="s"), c=pl.col("s").rank()
)
assert out["a"].to_list() == out["b"].to_list(), out
print(sorted(name for name in dir(rm) if not name.startswith("_")) == sorted(rm.__all__))
"""
    assert _fresh(script) == "True"


def test_the_accessor_works_before_any_metric_is_imported() -> None:
    """``.rank`` on a fresh import: polars' own rank, and the metrics (imported on first use)."""
    script = """
import polars as pl
import polars_rankmetrics
frame = pl.DataFrame({"r": [1, 0, 1], "s": [0.3, 0.2, 0.1]})
print(frame.select(pl.col("s").rank("dense"))["s"].to_list())
print(round(frame.select(pl.col("r").rank.ap_at_k(3, by="s")).item(), 6))
"""
    assert _fresh(script).splitlines() == ["[3, 2, 1]", str(round((1 + 2 / 3) / 2, 6))]
