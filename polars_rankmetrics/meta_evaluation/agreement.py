"""Agreement between two sets of relevance labels on the same (query, document) pairs.

:func:`label_pairs` joins two qrels on (query, doc); the statistics then read
the two aligned label arrays:

- :func:`cohen_kappa`: ``1 - sum(w * O) / sum(w * E)`` over the confusion
  matrix ``O`` and its expectation ``E`` from the marginals, with weights
  ``w`` that are 0 on the diagonal and 1 off it (unweighted), ``|i - j|``
  (linear) or ``(i - j)**2`` (quadratic), ``i`` and ``j`` being the positions
  of the labels in the sorted list of labels either side uses, as
  ``sklearn.metrics.cohen_kappa_score`` defines them.
- :func:`fleiss_kappa`: Fleiss (1971) for any number of raters, every item
  rated by all (``statsmodels.stats.inter_rater.fleiss_kappa``).
- :func:`krippendorff_alpha`: ``1 - D_o / D_e`` from the coincidence matrix,
  nominal, ordinal or interval distances (the ``krippendorff`` package's
  definitions; the value domain is the sorted set of labels seen).
- :func:`confusion_matrix` and :func:`per_query_agreement`: frames.
- :func:`compare_qrels`: all of it, plus how far each qrels orders a set of
  systems alike (:func:`~polars_rankmetrics.meta_evaluation.systems.ranking_agreement`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias, get_args

import numpy as np
import numpy.typing as npt
import polars as pl

from polars_rankmetrics.evaluation.inputs import read_qrels

FloatArray: TypeAlias = npt.NDArray[np.float64]

KappaWeights: TypeAlias = Literal["linear", "quadratic"]
"""Cohen's kappa weights; ``None`` is the unweighted kappa."""

AlphaLevel: TypeAlias = Literal["nominal", "ordinal", "interval"]
"""Krippendorff's level of measurement: which distance between two labels."""


def label_pairs(qrels: object, other: object) -> pl.DataFrame:
    """
    The labels both qrels give, joined on (query, doc): ``query, doc, label_a, label_b``.

    Parameters
    ----------
    qrels, other
        Any qrels :func:`polars_rankmetrics.evaluate` reads. A (query, doc)
        judged twice in one of them is refused; pairs judged by one side only
        are left out. No common pair at all raises ``ValueError``.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import label_pairs
    >>> human = {"q1": {"a": 2, "b": 0, "c": 1}}
    >>> model = {"q1": {"a": 1, "b": 0, "d": 1}}
    >>> label_pairs(human, model)
    shape: (2, 4)
    ┌───────┬─────┬─────────┬─────────┐
    │ query ┆ doc ┆ label_a ┆ label_b │
    │ ---   ┆ --- ┆ ---     ┆ ---     │
    │ str   ┆ str ┆ i64     ┆ i64     │
    ╞═══════╪═════╪═════════╪═════════╡
    │ q1    ┆ a   ┆ 2       ┆ 1       │
    │ q1    ┆ b   ┆ 0       ┆ 0       │
    └───────┴─────┴─────────┴─────────┘
    """
    sides = []
    for source, name in ((qrels, "label_a"), (other, "label_b")):
        frame = read_qrels(source).select("query", "doc", pl.col("relevance").alias(name))
        twice = frame.filter(pl.struct("query", "doc").is_duplicated())
        if twice.height:
            query, doc = twice.row(0)[:2]
            side = "qrels" if name == "label_a" else "other"
            msg = f"`{side}` judges (query {query!r}, doc {doc!r}) twice: keep one label per pair"
            raise ValueError(msg)
        sides.append(frame)
    pairs = sides[0].join(sides[1], on=["query", "doc"], how="inner").sort("query", "doc")
    if pairs.height == 0:
        msg = "the two qrels have no (query, doc) pair in common: there is nothing to compare"
        raise ValueError(msg)
    return pairs


def _labels(values: npt.ArrayLike, name: str) -> FloatArray:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1 or array.size == 0:
        msg = f"`{name}` must be a non-empty 1-d array of labels, got shape {array.shape}"
        raise ValueError(msg)
    if np.isnan(array).any():
        msg = f"`{name}` holds NaN or null labels: drop the unlabelled pairs first"
        raise ValueError(msg)
    _check_finite_labels(array, name)
    return array


def _check_finite_labels(labels: FloatArray, name: str) -> None:
    """Raise ``ValueError`` if ``labels`` holds ±inf: a label is a finite number."""
    if np.isinf(labels).any():
        msg = f"`{name}` holds ±inf: a label must be a finite number (NaN for a missing label)"
        raise ValueError(msg)


def cohen_kappa(
    labels: npt.ArrayLike, other: npt.ArrayLike, *, weights: KappaWeights | None = None
) -> float:
    """
    Cohen's kappa between two aligned label arrays, unweighted or weighted.

    ``kappa = 1 - sum(w * O) / sum(w * E)``: ``O`` is the confusion matrix
    over the sorted labels either side uses, ``E = outer(row sums, column
    sums) / n`` and ``w[i, j]`` is ``i != j``, ``|i - j|`` or ``(i - j)**2``
    (positions in the sorted labels, not the label values), exactly as
    ``sklearn.metrics.cohen_kappa_score``. When both sides use one and the
    same label, the kappa is undefined (0 / 0) and NaN is returned.

    Parameters
    ----------
    labels, other
        One label per (query, doc) pair, aligned.
    weights : {None, 'linear', 'quadratic'}
        The disagreement weights.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import cohen_kappa
    >>> human, model = [0, 1, 2, 2, 1, 0], [0, 1, 1, 2, 1, 1]
    >>> round(cohen_kappa(human, model), 6)
    0.5
    >>> round(cohen_kappa(human, model, weights="quadratic"), 6)
    0.666667
    """
    if weights not in (None, *get_args(KappaWeights)):
        msg = f"`weights` must be None, 'linear' or 'quadratic', got {weights!r}"
        raise ValueError(msg)
    first, second = _labels(labels, "labels"), _labels(other, "other")
    if first.shape != second.shape:
        msg = f"`labels` and `other` must have equal lengths, got {first.size} and {second.size}"
        raise ValueError(msg)
    domain, codes = np.unique(np.concatenate([first, second]), return_inverse=True)
    size = domain.size
    observed = np.zeros((size, size))
    np.add.at(observed, (codes[: first.size], codes[first.size :]), 1.0)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / observed.sum()
    positions = np.arange(size)
    distance = np.abs(positions[:, None] - positions[None, :]).astype(np.float64)
    if weights is None:
        w = (distance > 0).astype(np.float64)
    elif weights == "linear":
        w = distance
    else:
        w = distance**2
    denominator = float((w * expected).sum())
    if denominator == 0.0:
        return float("nan")
    return 1.0 - float((w * observed).sum()) / denominator


def _rating_matrix(ratings: npt.ArrayLike) -> FloatArray:
    matrix = np.asarray(ratings, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[1] < 2 or matrix.shape[0] == 0:
        msg = (
            "`ratings` must be a 2-d array with one row per item and one column per rater "
            f"(at least two), got shape {matrix.shape}"
        )
        raise ValueError(msg)
    _check_finite_labels(matrix, "ratings")
    return matrix


def fleiss_kappa(ratings: npt.ArrayLike) -> float:
    """
    Fleiss' kappa for items each labelled by the same number of raters.

    With ``n`` raters, ``n_ij`` of them giving item ``i`` category ``j``:
    ``P_i = (sum_j n_ij**2 - n) / (n (n - 1))``, ``p_j`` the share of all
    ratings in category ``j``, and ``kappa = (mean(P_i) - sum p_j**2) / (1 -
    sum p_j**2)``, as ``statsmodels.stats.inter_rater.fleiss_kappa`` (method
    ``'fleiss'``) computes from the count table. One category only: NaN.

    Parameters
    ----------
    ratings
        One row per item, one column per rater (e.g. the ``label_a`` and
        ``label_b`` columns of :func:`label_pairs`); no missing labels.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import fleiss_kappa
    >>> round(fleiss_kappa([[0, 0], [1, 1], [2, 1], [2, 2], [1, 1], [0, 1]]), 6)
    0.466667
    """
    matrix = _rating_matrix(ratings)
    if np.isnan(matrix).any():
        msg = "`ratings` holds NaN: Fleiss' kappa needs every item rated by every rater"
        raise ValueError(msg)
    _, codes = np.unique(matrix, return_inverse=True)
    codes = codes.reshape(matrix.shape)
    n_items, n_raters = matrix.shape
    table = np.zeros((n_items, int(codes.max()) + 1))
    np.add.at(table, (np.repeat(np.arange(n_items), n_raters), codes.ravel()), 1.0)
    share = table.sum(axis=0) / table.sum()
    agreement = ((table * table).sum(axis=1) - n_raters) / (n_raters * (n_raters - 1.0))
    chance = float((share * share).sum())
    if chance == 1.0:
        return float("nan")
    return (float(agreement.mean()) - chance) / (1.0 - chance)


def krippendorff_alpha(ratings: npt.ArrayLike, *, level: AlphaLevel = "interval") -> float:
    """
    Krippendorff's alpha for items labelled by two or more raters, missing allowed.

    ``alpha = 1 - sum(o * d) / sum(e * d)``: ``o`` is the coincidence matrix
    (each item with ``m >= 2`` labels adds ``1 / (m - 1)`` per ordered pair of
    its labels), ``e`` the coincidences expected by chance from its
    marginals ``n_v``, and ``d`` the distance between two labels:
    ``c != k`` (nominal), ``(sum_{g=c}^{k} n_g - (n_c + n_k) / 2)**2``
    (ordinal, over the sorted labels seen) or ``(c - k)**2`` (interval). These
    are the ``krippendorff`` package's definitions. Items with fewer than two
    labels are left out; no item with two (every label missing included)
    raises ``ValueError``, and so does a ±inf label. One label value
    throughout gives NaN (0 / 0; the package raises there).

    Parameters
    ----------
    ratings
        One row per item, one column per rater; NaN for a missing label.
    level : {'interval', 'nominal', 'ordinal'}
        The level of measurement.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import krippendorff_alpha
    >>> ratings = [[0, 0], [1, 1], [2, 1], [2, 2], [1, 1], [0, 1]]
    >>> round(krippendorff_alpha(ratings, level="ordinal"), 6)
    0.694444
    """
    if level not in get_args(AlphaLevel):
        msg = f"`level` must be one of 'nominal', 'ordinal', 'interval', got {level!r}"
        raise ValueError(msg)
    matrix = _rating_matrix(ratings)
    present = ~np.isnan(matrix)
    domain = np.unique(matrix[present])
    counts = np.zeros((matrix.shape[0], domain.size))  # every label missing: no column
    for column, value in enumerate(domain):
        counts[:, column] = (matrix == value).sum(axis=1)
    pairable = counts.sum(axis=1)
    counts = counts[pairable >= 2]
    if counts.shape[0] == 0:
        msg = "Krippendorff's alpha needs at least one item labelled by two raters"
        raise ValueError(msg)
    per_item = counts[:, :, None] * counts[:, None, :]
    per_item -= counts[:, :, None] * np.eye(domain.size)[None, :, :]
    coincidence = (per_item / (counts.sum(axis=1) - 1.0)[:, None, None]).sum(axis=0)
    marginals = coincidence.sum(axis=0)
    chance = (np.outer(marginals, marginals) - np.diag(marginals)) / (marginals.sum() - 1.0)
    if level == "nominal":
        distance = (domain[:, None] != domain[None, :]).astype(np.float64)
    elif level == "interval":
        distance = (domain[:, None] - domain[None, :]) ** 2
    else:
        cumulative = np.concatenate([[0.0], np.cumsum(marginals)])
        low = np.minimum.outer(np.arange(domain.size), np.arange(domain.size))
        high = np.maximum.outer(np.arange(domain.size), np.arange(domain.size))
        between = cumulative[high + 1] - cumulative[low]
        distance = (between - (marginals[low] + marginals[high]) / 2.0) ** 2
    expected = float((chance * distance).sum())
    if expected == 0.0:
        return float("nan")
    return 1.0 - float((coincidence * distance).sum()) / expected


def confusion_matrix(pairs: pl.DataFrame) -> pl.DataFrame:
    """
    How often each pair of labels occurs: ``label_a, label_b, count`` (long, sorted).

    Parameters
    ----------
    pairs
        The frame of :func:`label_pairs`.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import confusion_matrix, label_pairs
    >>> pairs = label_pairs({"q": {"a": 1, "b": 0, "c": 1}}, {"q": {"a": 1, "b": 1, "c": 1}})
    >>> confusion_matrix(pairs)
    shape: (2, 3)
    ┌─────────┬─────────┬───────┐
    │ label_a ┆ label_b ┆ count │
    │ ---     ┆ ---     ┆ ---   │
    │ i64     ┆ i64     ┆ u32   │
    ╞═════════╪═════════╪═══════╡
    │ 0       ┆ 1       ┆ 1     │
    │ 1       ┆ 1       ┆ 2     │
    └─────────┴─────────┴───────┘
    """
    return pairs.group_by("label_a", "label_b").len("count").sort("label_a", "label_b")


def per_query_agreement(pairs: pl.DataFrame) -> pl.DataFrame:
    """
    Per query: pairs judged by both, share of equal labels, and unweighted kappa.

    ``kappa = (p_o - p_e) / (1 - p_e)`` with ``p_o`` the share of equal
    labels and ``p_e = sum_c (n_a(c) / n)(n_b(c) / n)`` from the query's
    marginals; null where ``p_e = 1`` (both sides give one and the same label
    throughout the query: undefined).

    Parameters
    ----------
    pairs
        The frame of :func:`label_pairs`.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import label_pairs, per_query_agreement
    >>> human = {"q1": {"a": 1, "b": 0, "c": 1, "d": 0}, "q2": {"x": 1}}
    >>> model = {"q1": {"a": 1, "b": 0, "c": 0, "d": 0}, "q2": {"x": 1}}
    >>> per_query_agreement(label_pairs(human, model))
    shape: (2, 4)
    ┌───────┬─────────┬───────────┬───────┐
    │ query ┆ n_pairs ┆ agreement ┆ kappa │
    │ ---   ┆ ---     ┆ ---       ┆ ---   │
    │ str   ┆ u32     ┆ f64       ┆ f64   │
    ╞═══════╪═════════╪═══════════╪═══════╡
    │ q1    ┆ 4       ┆ 0.75      ┆ 0.5   │
    │ q2    ┆ 1       ┆ 1.0       ┆ null  │
    └───────┴─────────┴───────────┴───────┘
    """
    counts_a = pairs.group_by("query", pl.col("label_a").alias("label")).len("n_a")
    counts_b = pairs.group_by("query", pl.col("label_b").alias("label")).len("n_b")
    chance = (
        counts_a.join(counts_b, on=["query", "label"], how="inner")
        .group_by("query")
        .agg(product=(pl.col("n_a").cast(pl.Float64) * pl.col("n_b")).sum())
    )
    observed = pairs.group_by("query").agg(
        n_pairs=pl.len(), agreement=(pl.col("label_a") == pl.col("label_b")).mean()
    )
    p_e = pl.col("product").fill_null(0.0) / (pl.col("n_pairs").cast(pl.Float64) ** 2)
    return (
        observed.join(chance, on="query", how="left")
        .with_columns(kappa=pl.when(p_e < 1.0).then((pl.col("agreement") - p_e) / (1.0 - p_e)))
        .select("query", "n_pairs", "agreement", "kappa")
        .sort("query")
    )


@dataclass(frozen=True)
class QrelsAgreement:
    """The report of :func:`compare_qrels`: "qrels A vs qrels B".

    Attributes
    ----------
    summary
        ``statistic, value``: counts of pairs, Cohen's kappa (three weights),
        Fleiss' kappa, Krippendorff's alpha (three levels) and, with runs, the
        system-ranking correlations.
    confusion
        :func:`confusion_matrix` of the common pairs.
    per_query
        :func:`per_query_agreement`.
    systems
        ``system, score_a, score_b``: each run's mean ``measure`` under each
        qrels (empty without runs).
    """

    summary: pl.DataFrame
    confusion: pl.DataFrame
    per_query: pl.DataFrame
    systems: pl.DataFrame


def compare_qrels(
    qrels: object,
    other: object,
    runs: Mapping[str, object] | Sequence[object] | None = None,
    *,
    measure: str = "nDCG@10",
) -> QrelsAgreement:
    """
    Compare two sets of judgements: label agreement and, given runs, system-ranking agreement.

    Parameters
    ----------
    qrels, other
        Any qrels :func:`polars_rankmetrics.evaluate` reads (e.g. human and
        LLM labels).
    runs
        Runs to order under each qrels, named by a mapping or numbered
        ``run1, run2, ...`` (a path is named by its file name).
    measure
        The measure whose mean over queries orders the systems.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.meta_evaluation import compare_qrels
    >>> human = {"q1": {"a": 2, "b": 0, "c": 1}, "q2": {"a": 1, "d": 0}}
    >>> model = {"q1": {"a": 2, "b": 1, "c": 1}, "q2": {"a": 1, "d": 0}}
    >>> report = compare_qrels(human, model)
    >>> report.summary.filter(pl.col("statistic").str.starts_with("cohen"))
    shape: (3, 2)
    ┌───────────────────────┬──────────┐
    │ statistic             ┆ value    │
    │ ---                   ┆ ---      │
    │ str                   ┆ f64      │
    ╞═══════════════════════╪══════════╡
    │ cohen_kappa           ┆ 0.6875   │
    │ cohen_kappa_linear    ┆ 0.736842 │
    │ cohen_kappa_quadratic ┆ 0.8      │
    └───────────────────────┴──────────┘
    """
    from polars_rankmetrics.meta_evaluation.systems import ranking_agreement, system_scores

    pairs = label_pairs(qrels, other)
    only_a = read_qrels(qrels).height - pairs.height
    only_b = read_qrels(other).height - pairs.height
    first, second = pairs["label_a"].to_numpy(), pairs["label_b"].to_numpy()
    ratings = np.column_stack([first, second])
    rows: list[tuple[str, float]] = [
        ("common_pairs", float(pairs.height)),
        ("only_in_a", float(only_a)),
        ("only_in_b", float(only_b)),
        ("agreement", float((first == second).mean())),
        ("cohen_kappa", cohen_kappa(first, second)),
        ("cohen_kappa_linear", cohen_kappa(first, second, weights="linear")),
        ("cohen_kappa_quadratic", cohen_kappa(first, second, weights="quadratic")),
        ("fleiss_kappa", fleiss_kappa(ratings)),
        *(
            (f"krippendorff_alpha_{level}", krippendorff_alpha(ratings, level=level))
            for level in get_args(AlphaLevel)
        ),
    ]
    systems = pl.DataFrame(
        schema={"system": pl.String, "score_a": pl.Float64, "score_b": pl.Float64}
    )
    if runs:
        systems = system_scores(qrels, runs, measure, other_qrels=other)
        ranking = ranking_agreement(
            systems["score_a"], systems["score_b"], names=systems["system"].to_list()
        )
        rows.extend((f"systems_{name}", value) for name, value in ranking.items())
    summary = pl.DataFrame(rows, schema={"statistic": pl.String, "value": pl.Float64}, orient="row")
    return QrelsAgreement(
        summary=summary,
        confusion=confusion_matrix(pairs),
        per_query=per_query_agreement(pairs),
        systems=systems,
    )
