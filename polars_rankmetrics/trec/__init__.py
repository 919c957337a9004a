"""TREC evaluation: the run and qrels readers, :func:`evaluate`, and ``rankmetrics trec-eval``."""

from polars_rankmetrics.trec.evaluate import Evaluation, Source, evaluate
from polars_rankmetrics.trec.readers import (
    QRELS_SCHEMA,
    RUN_SCHEMA,
    read_trec_qrels,
    read_trec_run,
    scan_trec_qrels,
    scan_trec_run,
)
from polars_rankmetrics.trec.subtopics import subtopic_lists

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
