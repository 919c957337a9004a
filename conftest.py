"""Spark set-up for the whole test run (doctests included).

- The Spark workers must run this interpreter, the virtual environment's, which
  has polars and this package: set ``PYSPARK_PYTHON`` before any session starts.
- Skip the doctests of polars_rankmetrics.spark when pyspark or Java is missing.
  CI installs both (``.ci/run``); a checkout without them still passes.
- Doctests see ``pl`` (polars) and ``rm`` (polars_rankmetrics), as polars' own
  docstring examples see ``pl``, so that examples need no import lines.
- numba, which compiles ranx (an oracle of many tests) on its first use in a fresh
  environment, compiles it at optimisation level 1 (``NUMBA_OPT=1``, not 3) into
  this checkout's ``.numba_cache/``: about a fifth less compile time for the same
  semantics (no fast-math at any level), and a cache of its own, so that the less
  optimised code never lands in the environment's ranx cache that benchmarks read.
  (Level 0 leaves globals in ranx's code that numba then refuses to cache.) Set
  ``NUMBA_OPT`` to choose otherwise.
- Under pytest-xdist (``-n 2`` in pyproject's ``addopts``), each worker compiles into a
  folder of its own, ``$NUMBA_CACHE_DIR/<worker id>``: numba's cache is not safe for two
  processes writing one function's index at once (numba issue 4807: a signature may then
  load another's code). The tests that call ranx run in one worker (the ``ranx`` group,
  ``--dist loadgroup``), so that ranx is compiled once, not once per worker; the Spark
  ones in one other group, so that one JVM starts. A test left out of a group still runs
  and passes, only slower.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

if "NUMBA_OPT" not in os.environ:
    os.environ["NUMBA_OPT"] = "1"
    os.environ.setdefault("NUMBA_CACHE_DIR", str(Path(__file__).parent / ".numba_cache"))
if "PYTEST_XDIST_WORKER" in os.environ and "NUMBA_CACHE_DIR" in os.environ:  # a folder each
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(
        os.environ["NUMBA_CACHE_DIR"], os.environ["PYTEST_XDIST_WORKER"]
    )
if "numba" in sys.modules:  # a plugin imported it first: read the environment again
    from numba.core import config as _numba_config

    _numba_config.reload_config()

import polars
import pytest

import polars_rankmetrics
from polars_rankmetrics.spark import spark_unavailable

os.environ["PYSPARK_PYTHON"] = sys.executable
os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable


# The tests that call ranx (numba compiles it on first use) and those that start Spark's
# JVM, by file (the part of a node id before "::") or by a part of the node id.
RANX_FILES = (
    "tests/test_benchmarks.py",
    "tests/test_fusion.py",
    "tests/test_fusion_optimize.py",
    "tests/test_fusion_trained.py",
    "tests/test_inputs.py",
    "tests/test_many_systems_cli.py",
    "tests/test_many_systems_reports.py",
    "tests/test_peer_names.py",
    "tests/test_peers.py",
    "tests/test_ranx_bulk.py",
    "tests/test_registry.py",
    "polars_rankmetrics/fusion/optimize.py",
)
RANX_TESTS = ("test_readme_example_against_trec_eval_and_ranx", "From ranx")
SPARK_FILES = ("tests/test_spark.py", "polars_rankmetrics/spark.py")
SPARK_TESTS = ("spark.md", "test_a_bad_value_gets_the_same_message_everywhere", "on_spark")


def _group(item: pytest.Item) -> str | None:
    """The xdist group of a test: ``ranx``, ``spark`` or None (any worker)."""
    path = item.nodeid.split("::", 1)[0]
    if path in RANX_FILES or any(part in item.nodeid for part in RANX_TESTS):
        return "ranx"
    if (
        path in SPARK_FILES
        or "spark" in getattr(item, "fixturenames", ())
        or any(part in item.nodeid for part in SPARK_TESTS)
    ):
        return "spark"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Group the ranx and Spark tests (under xdist); skip the Spark doctests without Spark."""
    if getattr(config.option, "dist", "no") == "loadgroup":
        for item in items:
            group = _group(item)
            if group is not None:
                item.add_marker(pytest.mark.xdist_group(group))
    reason = spark_unavailable()
    if reason is None:
        return
    for item in items:
        if item.nodeid.startswith("polars_rankmetrics/spark.py"):
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace: dict[str, object]) -> None:
    doctest_namespace["pl"] = polars
    doctest_namespace["rm"] = polars_rankmetrics
