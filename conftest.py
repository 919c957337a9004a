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
  load another's code). The tests that call ranx run in one worker (the ``ranx`` group of
  ``worker_group``, scheduled by ``pytest_xdist_make_scheduler``; always gw0), so that ranx
  is compiled once, not once per worker; the Spark ones in one group too, so that one JVM
  starts. A test left out of a group still runs and passes, only slower.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

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
# JVM: by file (the part of a node id before "::") or by a part of the node id.
RANX_FILES = (
    "tests/test_benchmarks.py",
    "tests/test_fusion.py",
    "tests/test_fusion_edges.py",
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
RANX_TESTS = (
    "test_readme_example_against_trec_eval_and_ranx",
    "From ranx",
    "test_means_and_p_values_equal_ranx_compare",
)
SPARK_FILES = ("tests/test_spark.py", "polars_rankmetrics/spark.py")
SPARK_TESTS = ("spark.md", "test_a_bad_value_gets_the_same_message_everywhere", "on_spark")


def worker_group(nodeid: str) -> str | None:
    """The worker group of a test: ``"ranx"``, ``"spark"`` or None (any worker)."""
    path = nodeid.split("::", 1)[0]
    if path in RANX_FILES or any(part in nodeid for part in RANX_TESTS):
        return "ranx"
    if path in SPARK_FILES or any(part in nodeid for part in SPARK_TESTS):
        return "spark"
    return None


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, absent with -p no:xdist
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup``: each test on any worker, but each group on one worker.

    The groups come from the node ids (``worker_group``), not from ``xdist_group`` marks:
    pytest-xdist 3.8 reads the marks by rewriting node ids, which pytest 9.2 no longer
    lets a plugin do (pytest-xdist issue 1386: the marks are silently ignored).
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return worker_group(nodeid) or nodeid

        def _assign_work_unit(self, node: Any) -> None:
            # The ranx group always to gw0 (the first unit it is given), so that a later
            # run finds ranx compiled in .numba_cache/gw0/; any other unit to gw1 first.
            queue = self.workqueue
            if "ranx" in queue and len(queue) > 1:
                queue.move_to_end("ranx", last=node.gateway.id != "gw0")
            super()._assign_work_unit(node)

    return GroupScheduling(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the Spark doctests skipped, with the reason, when Spark cannot run."""
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
