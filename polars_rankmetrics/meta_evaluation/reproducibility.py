"""Reproducibility and replicability measures: repro_eval's, vectorised.

Breuer et al. (SIGIR 2020) compare an original experiment (a baseline run and,
optionally, an improved "advanced" run) with its reproduction on the same
topics, or its replication on other topics (other qrels). :func:`reproduce`
computes every measure of ``repro_eval``'s ``RpdEvaluator`` and
``RplEvaluator`` with the same definitions:

- per topic, between the original and reproduced rankings (reproduction only):
  Kendall's tau Union (KTU: the i-th documents of the two rankings are
  paired, each replaced by its position in the sorted union of both rankings'
  documents, and Kendall's tau-b computed; rankings cut to ``depth``) and RBO
  as Clarke et al.'s truncated form ``sum_{i<depth} p**i |overlap at i+1| /
  (i+1) / sum_{i<depth} p**i``;
- per measure, over the topic scores of ``measures`` (repro_eval's 58
  trec_eval measures as ir_measures names, computed by
  :func:`polars_rankmetrics.evaluate`): RMSE, nRMSE (RMSE over the largest
  possible RMSE, ``sqrt(mean(max(x, 1 - x)**2))`` of the original scores), and
  the two-sided t-test p-value between original and reproduced topic scores
  (paired for a reproduction, unpaired with pooled variance for a replication;
  when every p-value is NaN and the scores are identical, all are 1, as
  repro_eval sets them);
- per measure, with advanced runs: the effect ratio ER = mean reproduced
  improvement / mean original improvement (per-topic a - b), and
  DeltaRI = RI_orig - RI_repro with RI = (mean a - mean b) / mean b.

Runs are cut to ``trim`` documents per topic first (repro_eval's
``Evaluator.trim()``), and every ranking is ordered by score, descending, and
equal scores by document id, descending (repro_eval's ``break_ties``, which
keeps its file order otherwise: the same when the file is sorted by score); a
null or NaN score is not retrieved, and its row is left out of KTU and RBO.

Where repro_eval fails or divides by zero, this module says what it does:
KTU on rankings of unequal length (scipy refuses) pairs the first ``min``
documents; a zero denominator in ER or DeltaRI gives IEEE's inf or NaN, as in
repro_eval (without its warning); topics of the reproduction missing from the original, or
(for paired measures) differing topic sets, raise ``ValueError``.

References
----------
T. Breuer, N. Ferro, N. Fuhr, M. Maistro, T. Sakai, P. Schaer and I. Soboroff,
"How to Measure the Reproducibility of System-oriented IR Experiments", SIGIR 2020.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import numpy.typing as npt
import polars as pl

from polars_rankmetrics.evaluation.inputs import read_qrels, read_run
from polars_rankmetrics.evaluation.topics import trec_ranked
from polars_rankmetrics.meta_evaluation.rbo import check_depth, check_p

FloatArray: TypeAlias = npt.NDArray[np.float64]

_CUTS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")
REPRO_MEASURES: tuple[str, ...] = (
    *(f"P@{k}" for k in _CUTS),
    *(f"R@{k}" for k in _CUTS),
    "nDCG",
    *(f"nDCG@{k}" for k in _CUTS),
    *(f"AP@{k}" for k in _CUTS),
    "SetAP",
    "SetP",
    "SetP(relative=True)",
    "SetR",
    "SetF",
    "Rprec",
    "infAP",
    "Bpref",
    "RR",
    "AP",
    *(f"IPrec@{r / 10:.1f}" for r in range(11)),
)
"""repro_eval's measures (its ``load_measures()``: trec_eval's ``P``, ``recall``,
``ndcg``, ``ndcg_cut``, ``map_cut``, ``set_*``, ``Rprec``, ``infAP``, ``bpref``,
``recip_rank``, ``map``, ``iprec_at_recall``) as ir_measures names."""


def _positions(run: object, trim: int | None, name: str) -> pl.DataFrame:
    """``query, doc, score, pos`` (1-based, trec_eval's order), cut to ``trim``.

    A null or NaN score is not retrieved: its row is left out before the cut.
    """
    frame = read_run(run).select("query", "doc", "score")
    # A count of distinct documents per query first: a fraction of a check per row.
    repeats = frame.group_by("query").agg(pl.col("doc").n_unique() != pl.len())
    if repeats.get_column("doc").any():
        twice = frame.filter(pl.struct("query", "doc").is_duplicated()).sort("query", "doc")
        query, doc = twice.row(0)[:2]
        msg = f"`{name}` lists document {doc!r} more than once for query {query!r}"
        raise ValueError(msg)
    ranked = (
        frame.lazy()
        .group_by("query")
        .agg(trec_ranked(pl.struct("doc", "score"), trim).alias("row"))
        .sort("query")
        .explode("row")
        .filter(pl.col("row").is_not_null())  # a query that retrieved nothing
        .unnest("row")
        .with_columns(pos=pl.int_range(1, pl.len() + 1).over("query"))
    )
    return ranked.select("query", "doc", "score", "pos").collect()


def _check_topics(original: pl.DataFrame, reproduced: pl.DataFrame) -> None:
    extra = (
        reproduced.select("query")
        .unique()
        .join(original.select("query").unique(), on="query", how="anti")
    )
    if extra.height:
        sample = sorted(extra["query"].to_list())[:5]
        msg = f"the reproduced run has {extra.height} topic(s) the original lacks, e.g. {sample}"
        raise ValueError(msg)


def _inversions(
    sequences: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """Inversions of each row's first ``lengths[t]`` values (distinct, >= 1).

    A bottom-up merge sort of every row at once: at each level, each value of a
    right run counts the larger values of its left run (one ``searchsorted`` over
    all runs, told apart by an offset), then each pair of runs is sorted. Rows are
    padded with increasing values above every real one, which add no inversion.
    """
    rows, width = sequences.shape
    padded = 1 << max(width - 1, 0).bit_length()
    top = int(sequences.max(initial=0)) + 1
    values = np.broadcast_to(top + np.arange(padded, dtype=np.int64), (rows, padded)).copy()
    real = np.arange(width)[None, :] < lengths[:, None]
    values[:, :width][real] = sequences[real]
    counts = np.zeros(rows, dtype=np.int64)
    offset = top + padded
    run = 1
    while run < padded:
        pairs = values.reshape(rows, padded // (2 * run), 2, run)
        blocks = np.arange(rows * (padded // (2 * run)), dtype=np.int64).reshape(
            rows, padded // (2 * run), 1
        )
        left = (pairs[:, :, 0, :] + blocks * offset).ravel()
        right = pairs[:, :, 1, :] + blocks * offset
        not_greater = np.searchsorted(left, right.ravel(), side="right").reshape(right.shape)
        larger = run - (not_greater - blocks * run)
        counts += larger.sum(axis=(1, 2))
        values = np.sort(values.reshape(rows, padded // (2 * run), 2 * run), axis=-1).reshape(
            rows, padded
        )
        run *= 2
    return counts


def ktu(original: object, reproduced: object, *, depth: int = 1000) -> pl.DataFrame:
    """
    Kendall's tau Union per topic of the reproduced run: ``query, ktu``.

    The first ``depth`` documents of each ranking (trec_eval's order) are
    paired by rank: the i-th original and the i-th reproduced document, each
    replaced by its position in the sorted union of both rankings' documents;
    KTU is Kendall's tau-b of the two sequences (repro_eval's ``KTU``). When
    the rankings differ in length, the first ``min`` documents are compared
    (repro_eval fails there); one document gives NaN, as scipy does.

    Parameters
    ----------
    original, reproduced
        Any run :func:`polars_rankmetrics.evaluate` reads.
    depth
        How many documents of each ranking are compared.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation.reproducibility import ktu
    >>> original = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    >>> reproduced = {"q1": {"b": 3.0, "a": 2.0, "c": 1.0}}
    >>> ktu(original, reproduced)
    shape: (1, 2)
    ┌───────┬──────────┐
    │ query ┆ ktu      │
    │ ---   ┆ ---      │
    │ str   ┆ f64      │
    ╞═══════╪══════════╡
    │ q1    ┆ 0.333333 │
    └───────┴──────────┘
    """
    depth = check_depth(depth) or 1000
    first = _positions(original, depth, "original")
    second = _positions(reproduced, depth, "reproduced")
    return _ktu(first, second, depth)


def _ktu(first: pl.DataFrame, second: pl.DataFrame, depth: int) -> pl.DataFrame:
    """KTU from ``query, doc, pos`` frames sorted by query, then position (:func:`_positions`)."""
    _check_topics(first, second)
    counts = [side.group_by("query").agg(pl.len()) for side in (first, second)]
    lengths = (
        counts[1]
        .rename({"len": "n_rep"})
        .join(counts[0].rename({"len": "n_orig"}), on="query")
        .with_columns(n=pl.min_horizontal("n_rep", "n_orig", pl.lit(depth)))
        .sort("query")
    )

    def compared(side: pl.DataFrame, count: pl.DataFrame, column: str) -> pl.DataFrame:
        """The side's rows of the compared topics and positions (itself when that is all)."""
        if count.height == lengths.height and lengths[column].equals(lengths["n"]):
            return side
        kept = side.join(lengths.select("query", "n"), on="query", maintain_order="left")
        return kept.filter(pl.col("pos") <= pl.col("n"))

    # Kendall's tau compares x with x and y with y, never x with y: a document's
    # position in the union of both rankings orders the pairs of one side as its
    # rank among that side's own documents does.
    coded = [
        compared(side, count, column)
        .select(code=pl.col("doc").rank("ordinal").over("query").cast(pl.Int64))
        .get_column("code")
        .to_numpy()
        for side, count, column in zip((first, second), counts, ("n_orig", "n_rep"), strict=True)
    ]
    # Both sides hold, query by query (sorted), the positions 1..n in order: their
    # rows pair up as they stand. Each original code is a column of its query's row.
    n = lengths.get_column("n").to_numpy().astype(np.int64)
    width = int(n.max()) if n.size else 0
    sequences = np.zeros((lengths.height, width), dtype=np.int64)
    rows = np.repeat(np.arange(lengths.height), n)
    sequences[rows, coded[0] - 1] = coded[1]
    discordant = _inversions(sequences, n)
    pairs = n * (n - 1) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(n >= 2, 1.0 - 2.0 * discordant / pairs, np.nan)
    return lengths.select("query").with_columns(ktu=pl.Series(tau, dtype=pl.Float64))


def rbo_truncated(
    original: object, reproduced: object, *, p: float = 0.95, depth: int = 1000
) -> pl.DataFrame:
    """
    repro_eval's RBO per topic of the reproduced run: ``query, rbo``.

    Clarke et al.'s truncated form: ``sum_{i=0}^{depth-1} p**i X_{i+1} / (i+1)``
    over ``sum_{i=0}^{depth-1} p**i``, where ``X_d`` is the overlap of the two
    rankings' first ``d`` documents (a ranking shorter than ``d`` counts whole).

    Parameters
    ----------
    original, reproduced
        Any run :func:`polars_rankmetrics.evaluate` reads.
    p
        The persistence, in (0, 1).
    depth
        The depth the sums run to.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation.reproducibility import rbo_truncated
    >>> original = {"q1": {"a": 3.0, "b": 2.0}}
    >>> rbo_truncated(original, {"q1": {"a": 1.0, "b": 0.5}}, p=0.5, depth=2)
    shape: (1, 2)
    ┌───────┬─────┐
    │ query ┆ rbo │
    │ ---   ┆ --- │
    │ str   ┆ f64 │
    ╞═══════╪═════╡
    │ q1    ┆ 1.0 │
    └───────┴─────┘
    """
    p = check_p(p)
    depth = check_depth(depth) or 1000
    first = _positions(original, None, "original")
    second = _positions(reproduced, None, "reproduced")
    return _rbo_truncated(first, second, p, depth)


def _rbo_truncated(first: pl.DataFrame, second: pl.DataFrame, p: float, depth: int) -> pl.DataFrame:
    """repro_eval's RBO from ``query, doc, pos`` frames."""
    _check_topics(first, second)
    ranks = np.arange(1, depth + 1, dtype=np.float64)
    weights = p ** (ranks - 1.0) / ranks
    cumulative = pl.Series(np.concatenate([[0.0], np.cumsum(weights)]))
    total = float(cumulative[depth])
    normalizer = float(np.sum(p ** np.arange(depth, dtype=np.float64)))
    common = (
        first.join(second, on=["query", "doc"], suffix="_rep")
        .with_columns(m=pl.max_horizontal("pos", "pos_rep"))
        .filter(pl.col("m") <= depth)
        .group_by("query")
        .agg(score=(total - pl.lit(cumulative).gather(pl.col("m") - 1)).sum())
    )
    return (
        second.select("query")
        .unique()
        .join(common, on="query", how="left")
        .select("query", rbo=(pl.col("score").fill_null(0.0) / normalizer).clip(0.0, 1.0))
        .sort("query")
    )


@dataclass(frozen=True)
class Reproduction:
    """The result of :func:`reproduce`.

    Attributes
    ----------
    per_topic
        ``run, query, ktu, rbo``: ``run`` is ``'baseline'`` or ``'advanced'``
        (a reproduction only; empty for a replication).
    per_measure
        ``run, measure, rmse, nrmse, p_value``: RMSE and nRMSE (null for a
        replication) and the t-test p-value of each measure.
    effects
        ``measure, er, delta_ri`` (empty without the advanced runs).
    summary
        ``run, ktu, rbo``: the means over topics of ``per_topic``.
    """

    per_topic: pl.DataFrame
    per_measure: pl.DataFrame
    effects: pl.DataFrame
    summary: pl.DataFrame


def _scores(
    qrels: object,
    run: pl.DataFrame,
    ranked: pl.DataFrame,
    measures: tuple[str, ...],
    trim: int | None,
) -> pl.DataFrame:
    """The topic scores of ``run``; ``ranked`` is it cut to ``trim`` by :func:`_positions`.

    Where every score is a number (no null, no NaN), ``_positions`` orders and
    cuts the run as ``evaluate(max_per_query=trim)`` does (trec_eval's order),
    so the cut run is evaluated without cutting it again (a sort of the run
    less); otherwise the run itself, with ``max_per_query``.
    """
    from polars_rankmetrics.evaluation.evaluate import evaluate

    score = run.get_column("score")
    numbers = score.null_count() == 0 and not (score.dtype.is_float() and score.is_nan().any())
    if numbers and trim is not None:
        source, cut = ranked.select("query", "doc", "score"), None
    else:
        source, cut = run, trim
    return evaluate(qrels, source, list(measures), max_per_query=cut).per_query.sort("query")


def _t_test_p(first: FloatArray, second: FloatArray, *, paired: bool) -> FloatArray:
    """Two-sided p-values per column, as scipy's ``ttest_rel`` / ``ttest_ind``."""
    from scipy.special import stdtr  # type: ignore[import-untyped]  # lighter than scipy.stats

    def squares(values: FloatArray) -> FloatArray:
        """Sums of squared deviations per column (0 for one row, as scipy's ``n - 1`` weight)."""
        return np.square(values - values.mean(axis=0)).sum(axis=0)

    # One topic (no degrees of freedom) gives 0 / 0: NaN, as scipy, without numpy's warning.
    with np.errstate(divide="ignore", invalid="ignore"):
        if paired:
            differences = first - second
            n = differences.shape[0]
            freedom = float(n - 1)
            t = differences.mean(axis=0) / np.sqrt(squares(differences) / freedom / n)
        else:
            n1, n2 = first.shape[0], second.shape[0]
            freedom = float(n1 + n2 - 2)
            pooled = (squares(first) + squares(second)) / freedom
            t = (first.mean(axis=0) - second.mean(axis=0)) / np.sqrt(pooled * (1.0 / n1 + 1.0 / n2))
        p_values: FloatArray = 2.0 * stdtr(freedom, -np.abs(t))
    return p_values


def _matrix(scores: pl.DataFrame, measures: tuple[str, ...]) -> FloatArray:
    return scores.select(measures).to_numpy().astype(np.float64)


def _same_topics(original: pl.DataFrame, reproduced: pl.DataFrame, what: str) -> None:
    if original["query"].to_list() != reproduced["query"].to_list():
        msg = (
            f"{what} needs the same evaluated topics in the original and the reproduction: "
            f"{original.height} and {reproduced.height} topics, not the same set"
        )
        raise ValueError(msg)


def _per_measure(
    original: pl.DataFrame, reproduced: pl.DataFrame, measures: tuple[str, ...], *, paired: bool
) -> pl.DataFrame:
    first, second = _matrix(original, measures), _matrix(reproduced, measures)
    p_values = _t_test_p(first, second, paired=paired)
    if np.isnan(p_values).all() and original.equals(reproduced):
        p_values = np.ones_like(p_values)
    rmse: list[float | None] = [None] * len(measures)
    nrmse: list[float | None] = [None] * len(measures)
    if paired:
        error = np.sqrt(np.square(first - second).sum(axis=0) / first.shape[0])
        largest = np.sqrt(np.square(np.maximum(first, 1.0 - first)).sum(axis=0) / first.shape[0])
        rmse = error.tolist()
        nrmse = (error / largest).tolist()
    return pl.DataFrame(
        {"measure": list(measures), "rmse": rmse, "nrmse": nrmse, "p_value": p_values},
        schema={
            "measure": pl.String,
            "rmse": pl.Float64,
            "nrmse": pl.Float64,
            "p_value": pl.Float64,
        },
    )


def _improvement(
    advanced: pl.DataFrame, baseline: pl.DataFrame, measures: tuple[str, ...], name: str
) -> FloatArray:
    _same_topics(advanced, baseline, f"the effect ratio ({name} runs)")
    improvement: FloatArray = (_matrix(advanced, measures) - _matrix(baseline, measures)).mean(
        axis=0
    )
    return improvement


def _ratio(numerator: FloatArray, denominator: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio: FloatArray = numerator / denominator
    return ratio


def reproduce(
    qrels: object,
    original: object,
    reproduced: object,
    *,
    original_advanced: object | None = None,
    reproduced_advanced: object | None = None,
    replication_qrels: object | None = None,
    measures: tuple[str, ...] = REPRO_MEASURES,
    p: float = 0.95,
    depth: int = 1000,
    trim: int | None = 1000,
) -> Reproduction:
    """
    Every measure of repro_eval's ``RpdEvaluator`` (or ``RplEvaluator``) at once.

    The module documentation gives each definition. Without
    ``replication_qrels`` this is a reproduction (``RpdEvaluator``): same
    topics, KTU and RBO per topic, RMSE and nRMSE, paired t-tests. With it, a
    replication (``RplEvaluator``): the reproduced runs are evaluated on
    ``replication_qrels``, and only the unpaired t-tests, ER and DeltaRI are
    computed.

    Parameters
    ----------
    qrels
        The original experiment's judgements.
    original, reproduced
        The original baseline run and its reproduction (any run
        :func:`polars_rankmetrics.evaluate` reads).
    original_advanced, reproduced_advanced
        The original improved run and its reproduction, for ER and DeltaRI
        and for the advanced rows.
    replication_qrels
        The judgements of a replication's other topics.
    measures
        Measure names; repro_eval's 58 by default.
    p, depth
        RBO's persistence and depth; also KTU's depth (repro_eval: 0.95, 1000).
    trim
        Documents kept per topic before anything (repro_eval's ``trim()``:
        1000); None keeps all.

    Examples
    --------
    >>> from polars_rankmetrics.meta_evaluation import reproduce
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 1}, "q2": {"a": 1, "d": 1}}
    >>> original = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"a": 2.0, "d": 1.0}}
    >>> reproduced = {"q1": {"b": 3.0, "a": 2.0, "c": 1.0}, "q2": {"a": 2.0, "d": 1.0}}
    >>> result = reproduce(qrels, original, reproduced, measures=("AP", "P@1"))
    >>> result.per_measure
    shape: (2, 5)
    ┌──────────┬─────────┬──────────┬──────────┬─────────┐
    │ run      ┆ measure ┆ rmse     ┆ nrmse    ┆ p_value │
    │ ---      ┆ ---     ┆ ---      ┆ ---      ┆ ---     │
    │ str      ┆ str     ┆ f64      ┆ f64      ┆ f64     │
    ╞══════════╪═════════╪══════════╪══════════╪═════════╡
    │ baseline ┆ AP      ┆ 0.176777 ┆ 0.192055 ┆ 0.5     │
    │ baseline ┆ P@1     ┆ 0.707107 ┆ 0.707107 ┆ 0.5     │
    └──────────┴─────────┴──────────┴──────────┴─────────┘
    """
    p = check_p(p)
    depth = check_depth(depth) or 1000
    trim = check_depth(trim)
    measures = tuple(measures)
    replication = replication_qrels is not None
    qrels = read_qrels(qrels)
    reproduced_qrels = read_qrels(replication_qrels) if replication else qrels
    pairs = [("baseline", original, reproduced)]
    if (original_advanced is None) != (reproduced_advanced is None):
        msg = "give both `original_advanced` and `reproduced_advanced`, or neither"
        raise ValueError(msg)
    if original_advanced is not None:
        pairs.append(("advanced", original_advanced, reproduced_advanced))
    per_topic, per_measure, scores = [], [], {}
    for name, first_source, second_source in pairs:
        # Each file is parsed once; evaluate() and the rankings read the frames.
        first, second = read_run(first_source), read_run(second_source)
        ranked_first = _positions(first, trim, "original")
        ranked_second = _positions(second, trim, "reproduced")
        first_scores = _scores(qrels, first, ranked_first, measures, trim)
        second_scores = _scores(reproduced_qrels, second, ranked_second, measures, trim)
        scores[name] = (first_scores, second_scores)
        if not replication:
            _same_topics(first_scores, second_scores, "a reproduction")
            topic = _ktu(ranked_first, ranked_second, depth).join(
                _rbo_truncated(ranked_first, ranked_second, p, depth),
                on="query",
                how="full",
                coalesce=True,
            )
            per_topic.append(topic.select(pl.lit(name).alias("run"), "query", "ktu", "rbo"))
        measured = _per_measure(first_scores, second_scores, measures, paired=not replication)
        per_measure.append(measured.select(pl.lit(name).alias("run"), pl.all()))
    topic_schema = {"run": pl.String, "query": pl.String, "ktu": pl.Float64, "rbo": pl.Float64}
    topics = pl.concat(per_topic) if per_topic else pl.DataFrame(schema=topic_schema)
    effects = pl.DataFrame(schema={"measure": pl.String, "er": pl.Float64, "delta_ri": pl.Float64})
    if "advanced" in scores:
        (orig_b, rep_b), (orig_a, rep_a) = scores["baseline"], scores["advanced"]
        effect_ratio = _ratio(
            _improvement(rep_a, rep_b, measures, "reproduced"),
            _improvement(orig_a, orig_b, measures, "original"),
        )

        def relative(advanced: pl.DataFrame, baseline: pl.DataFrame) -> FloatArray:
            base = _matrix(baseline, measures).mean(axis=0)
            return _ratio(_matrix(advanced, measures).mean(axis=0) - base, base)

        with np.errstate(invalid="ignore"):  # inf - inf: NaN, as in repro_eval
            delta = relative(orig_a, orig_b) - relative(rep_a, rep_b)
        effects = pl.DataFrame(
            {"measure": list(measures), "er": effect_ratio, "delta_ri": delta},
            schema={"measure": pl.String, "er": pl.Float64, "delta_ri": pl.Float64},
        )
    summary = topics.group_by("run", maintain_order=True).agg(pl.col("ktu", "rbo").mean())
    return Reproduction(
        per_topic=topics, per_measure=pl.concat(per_measure), effects=effects, summary=summary
    )
