"""trec_eval's file formats (the run and qrels readers) and ``rankmetrics trec-eval``.

:func:`evaluate`, :class:`Evaluation` and :func:`subtopic_lists` live in
:mod:`polars_rankmetrics.evaluation`; they are still reachable from here.
"""

import importlib
from typing import Any

from polars_rankmetrics.trec.readers import (
    QRELS_SCHEMA,
    RUN_SCHEMA,
    read_trec_qrels,
    read_trec_run,
    scan_trec_qrels,
    scan_trec_run,
)

# The evaluation package reads TREC files through `readers`, so it is imported
# from here only on first access: a static import would be a cycle.
_MOVED = {"Evaluation", "Source", "evaluate", "subtopic_lists"}


def __getattr__(name: str) -> Any:
    """The names that moved to :mod:`polars_rankmetrics.evaluation`, imported on first access."""
    if name in _MOVED:
        return getattr(importlib.import_module("polars_rankmetrics.evaluation"), name)
    msg = f"module 'polars_rankmetrics.trec' has no attribute {name!r}"
    raise AttributeError(msg)


__all__ = [
    "QRELS_SCHEMA",
    "RUN_SCHEMA",
    "Evaluation",
    "Source",
    "evaluate",
    "read_trec_qrels",
    "read_trec_run",
    "scan_trec_qrels",
    "scan_trec_run",
    "subtopic_lists",
]
