"""Summaries of all-pairs tests: ranx-style letters, a compact letter display, a p-value matrix.

- :func:`superscripts`: each system gets a letter (``a``, ``b``, ... in order);
  a system's superscript lists the letters of the systems it is significantly
  better than, as in ranx's ``compare`` report.
- :func:`compact_letter_display`: systems that share a letter are not
  significantly different (Piepho 2004, insert-and-absorb), the letters given
  in order of the best mean.
- :func:`p_value_matrix`: the p-values as a square frame.

Both read a frame from :func:`polars_rankmetrics.compare_pairs`.

References
----------
- H.-P. Piepho, "An Algorithm for a Letter-Based Representation of All-Pairwise
  Comparisons", Journal of Computational and Graphical Statistics 13(2), 2004.
"""

from __future__ import annotations

import string
from typing import Any

import polars as pl

from polars_rankmetrics.comparisons.pairs import PAIRS_SCHEMA


def letter(index: int) -> str:
    """The ``index``-th letter: ``a`` ... ``z``, then ``aa``, ``ab``, ..."""
    letters = string.ascii_lowercase
    if index < len(letters):
        return letters[index]
    return letter(index // len(letters) - 1) + letters[index % len(letters)]


def _metric_pairs(pairs: pl.DataFrame, metric: str) -> pl.DataFrame:
    absent = [name for name in PAIRS_SCHEMA if name not in pairs.columns]
    if absent:
        msg = f"`pairs` must be a frame from compare_pairs(); it lacks the columns {absent}"
        raise ValueError(msg)
    chosen = pairs.filter(pl.col("metric") == metric)
    if chosen.is_empty():
        msg = (
            f"`metric`: {metric!r} not found; the metrics are {pairs['metric'].unique().to_list()}"
        )
        raise ValueError(msg)
    return chosen


def system_means(pairs: pl.DataFrame, metric: str) -> dict[str, float | None]:
    """Each system's mean on ``metric``, in order of first appearance in ``pairs``."""
    means: dict[str, float | None] = {}
    for a, b, mean_a, mean_b in (
        _metric_pairs(pairs, metric).select("system_a", "system_b", "mean_a", "mean_b").iter_rows()
    ):
        means.setdefault(a, mean_a)
        means.setdefault(b, mean_b)
    return means


def superscripts(pairs: pl.DataFrame, *, metric: str) -> dict[str, str]:
    """
    Each system's superscript: the letters of the systems it is significantly better than.

    Letters follow the systems' order of first appearance (``a`` for the first).
    A system is better than another when their pair is ``significant`` and its
    mean is higher (the ``better`` column), the rule of ranx's report.

    Examples
    --------
    >>> from polars_rankmetrics.comparisons.letters import superscripts
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 3,
    ...         "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.2, 0.6, 0.5, 0.7, 0.4, 0.9],
    ...     }
    ... )
    >>> pairs = rm.compare_pairs(per_query, test="tukey-two-way", correction=None)
    >>> superscripts(pairs, metric="ap")
    {'a': '', 'b': 'a', 'c': 'ab'}
    """
    chosen = _metric_pairs(pairs, metric)
    systems = list(system_means(pairs, metric))
    beaten: dict[str, set[str]] = {name: set() for name in systems}
    for a, b, better in chosen.select("system_a", "system_b", "better").iter_rows():
        if better is not None:
            beaten[better].add(b if better == a else a)
    return {
        name: "".join(letter(i) for i, other in enumerate(systems) if other in beaten[name])
        for name in systems
    }


def compact_letter_display(pairs: pl.DataFrame, *, metric: str) -> pl.DataFrame:
    """
    Compact letter display: systems sharing a letter do not differ significantly.

    Piepho's (2004) insert-and-absorb algorithm: start with one group holding
    every system; for each significant pair, split every group that holds both
    into one without the first and one without the second; drop groups inside
    another. Groups are then lettered ``a``, ``b``, ... in order of their best
    mean, and each system lists its groups' letters.

    Returns
    -------
    polars.DataFrame
        ``system, mean, letters``, systems by descending mean.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 3,
    ...         "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.5, 0.2, 0.5, 0.5, 0.7, 0.4, 0.9],
    ...     }
    ... )
    >>> pairs = rm.compare_pairs(per_query, test="tukey-two-way", correction=None)
    >>> rm.compact_letter_display(pairs, metric="ap")
    shape: (3, 3)
    ┌────────┬───────┬─────────┐
    │ system ┆ mean  ┆ letters │
    │ ---    ┆ ---   ┆ ---     │
    │ str    ┆ f64   ┆ str     │
    ╞════════╪═══════╪═════════╡
    │ c      ┆ 0.625 ┆ a       │
    │ b      ┆ 0.375 ┆ b       │
    │ a      ┆ 0.3   ┆ b       │
    └────────┴───────┴─────────┘
    """
    chosen = _metric_pairs(pairs, metric)
    means = system_means(pairs, metric)
    systems = list(means)
    groups: list[frozenset[str]] = [frozenset(systems)]
    for a, b, significant in chosen.select("system_a", "system_b", "significant").iter_rows():
        if not significant:
            continue
        split: list[frozenset[str]] = []
        for group in groups:
            if a in group and b in group:
                split.extend((group - {a}, group - {b}))
            else:
                split.append(group)
        groups = [
            group
            for index, group in enumerate(split)
            if not any(
                group < other or (group == other and later < index)
                for later, other in enumerate(split)
            )
        ]

    def score(name: str) -> float:
        value = means[name]
        return float("-inf") if value is None else value

    ranked = sorted(systems, key=score, reverse=True)
    position = {name: i for i, name in enumerate(ranked)}
    groups.sort(key=lambda group: sorted(position[name] for name in group))
    rows = [
        {
            "system": name,
            "mean": means[name],
            "letters": "".join(letter(i) for i, group in enumerate(groups) if name in group),
        }
        for name in ranked
    ]
    return pl.DataFrame(
        rows, schema={"system": pl.String, "mean": pl.Float64, "letters": pl.String}
    )


def p_value_matrix(pairs: pl.DataFrame, *, metric: str, adjusted: bool = True) -> pl.DataFrame:
    """
    The p-values of one metric as a square frame: one row and one column per system.

    Parameters
    ----------
    pairs
        A frame from :func:`compare_pairs`.
    metric
        The metric to show.
    adjusted
        Show ``p_value_adjusted`` (else ``p_value``).

    Returns
    -------
    polars.DataFrame
        A ``system`` column, then one column per system; the diagonal is null,
        as are pairs that were not compared.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {
    ...         "system": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
    ...         "query": ["q1", "q2", "q3", "q4"] * 3,
    ...         "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.2, 0.6, 0.5, 0.7, 0.4, 0.9],
    ...     }
    ... )
    >>> pairs = rm.compare_pairs(per_query, test="tukey", correction=None)
    >>> rm.p_value_matrix(pairs, metric="ap").with_columns(pl.col(pl.Float64).round(3))
    shape: (3, 4)
    ┌────────┬───────┬───────┬───────┐
    │ system ┆ a     ┆ b     ┆ c     │
    │ ---    ┆ ---   ┆ ---   ┆ ---   │
    │ str    ┆ f64   ┆ f64   ┆ f64   │
    ╞════════╪═══════╪═══════╪═══════╡
    │ a      ┆ null  ┆ 0.674 ┆ 0.115 │
    │ b      ┆ 0.674 ┆ null  ┆ 0.388 │
    │ c      ┆ 0.115 ┆ 0.388 ┆ null  │
    └────────┴───────┴───────┴───────┘
    """
    missing = [name for name in PAIRS_SCHEMA if name not in pairs.columns]
    if missing:
        msg = f"`pairs` must be a frame from compare_pairs(); it lacks the columns {missing}"
        raise ValueError(msg)
    chosen = pairs.filter(pl.col("metric") == metric)
    if chosen.is_empty():
        msg = (
            f"`metric`: {metric!r} not found; the metrics are {pairs['metric'].unique().to_list()}"
        )
        raise ValueError(msg)
    column = "p_value_adjusted" if adjusted else "p_value"
    systems = list(dict.fromkeys([*chosen["system_a"], *chosen["system_b"]]))
    lookup: dict[tuple[str, str], float | None] = {}
    for a, b, p in chosen.select("system_a", "system_b", column).iter_rows():
        lookup[a, b] = lookup[b, a] = p
    data: dict[str, list[Any]] = {"system": systems}
    for other in systems:
        data[other] = [lookup.get((name, other)) for name in systems]
    return pl.DataFrame(data, schema={"system": pl.String, **dict.fromkeys(systems, pl.Float64)})
