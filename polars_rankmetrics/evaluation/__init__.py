"""From user inputs to judged rankings and per-query values.

The input adapters (:mod:`.inputs`: paths, polars, pandas, pyarrow, nested
dicts, ranx and ir_datasets objects), :func:`evaluate` and :class:`Evaluation`
(:mod:`.evaluate`), the query-set rules shared with ``rankmetrics trec-eval``
(:mod:`.query_sets`: which queries count; :mod:`.topics`: truncation,
judged-only runs) and the
subtopic qrels of the diversity measures (:mod:`.subtopics`).
"""

from polars_rankmetrics.evaluation.evaluate import Evaluation, Source, evaluate
from polars_rankmetrics.evaluation.inputs import read_qrels, read_run
from polars_rankmetrics.evaluation.query_sets import QuerySet, judged_frame
from polars_rankmetrics.evaluation.subtopics import subtopic_lists

__all__ = [
    "Evaluation",
    "QuerySet",
    "Source",
    "evaluate",
    "judged_frame",
    "read_qrels",
    "read_run",
    "subtopic_lists",
]
