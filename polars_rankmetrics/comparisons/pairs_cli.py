"""``rankmetrics compare`` over every pair of systems, as a ranx-style table.

The default without ``--baseline`` (as :func:`polars_rankmetrics.experiment`'s
``baseline=None`` and ``ranx.compare``), or asked for by ``--all-pairs``.

The evaluated runs go to :func:`polars_rankmetrics.compare_pairs` with
``--test``, ``--correction`` (default Holm; none for the Tukey tests),
``--alpha``, ``--n-resamples`` and ``--seed``; with ``--all-pairs``,
``--baseline`` limits the pairs to that system against the others. The output is the table of
:func:`polars_rankmetrics.pairs_table` (Markdown, LaTeX or HTML), or the pairs
frame itself (CSV or JSON).
"""

from __future__ import annotations

import argparse
from typing import Any

import polars as pl

from polars_rankmetrics.comparisons.arguments import (
    CORRECTION_NAMES,
    PAIR_TEST_NAMES,
    TEST_NAMES,
)

FAMILY_TESTS = ("tukey", "tukey-two-way", "randomised-tukey")
"""The tests that hold the family-wise error rate themselves (no correction)."""


def with_query_note(text: str, comparison: pl.DataFrame, rule: str, lacking: dict[str, int]) -> str:
    """The table's query-set line with the rule that chose the queries, and what runs lacked."""
    from polars_rankmetrics.comparisons.report import query_count_line

    line = query_count_line(comparison)
    if line is None:
        return text
    note = f"{line[:-1]} (--queries {rule})."
    listing = ", ".join(f"{name}: {count}" for name, count in lacking.items() if count)
    if listing and rule != "run":
        note += f" Queries missing from a run, scored as trec_eval -c scores them: {listing}."
    return text.replace(line, note) if line in text else f"{text}\n{note}"


def refuse_unused_with_all_pairs(args: argparse.Namespace) -> None:
    """The options of a table against one baseline, refused over all pairs (naming both)."""
    unused = [
        ("--p-values", args.p_values, "the pairs' p-values are in -o FILE.csv or .json"),
        ("--ci", args.ci, "compare_pairs gives no interval of each mean"),
        (
            "--markers",
            args.markers not in ("daggers", "ascii"),
            "superscript letters mark the significant pairs (--markers ascii keeps the "
            "table ASCII)",
        ),
        ("--latex-rules", args.latex_rules != "hline", "its LaTeX table uses \\hline"),
    ]
    for flag, given, reason in unused:
        if given:
            msg = (
                f"{flag} cannot be used with --all-pairs (every pair is tested, the default "
                f"without --baseline): {reason}; add --baseline NAME to test every run "
                "against NAME"
            )
            raise ValueError(msg)


def check_baseline_test(test: str) -> str:
    """Refuse, naming ``--baseline`` and ``--all-pairs``, a test that needs all pairs."""
    if test not in TEST_NAMES:
        msg = (
            f"--test {test} cannot be used with --baseline: against one baseline the "
            f"table's tests are {', '.join(TEST_NAMES)}; drop --baseline to test every pair, "
            "or add --all-pairs for the table of the baseline's pairs"
        )
        raise ValueError(msg)
    return test


def check_baseline_correction(correction: str | None, output_format: str) -> str | None:
    """The correction against one baseline (default holm); others need all pairs."""
    if output_format == "html":
        msg = (
            "--format html cannot be used with --baseline: it is the table of all pairs "
            "(drop --baseline, or add --all-pairs); against one baseline use markdown, "
            "latex, csv or json"
        )
        raise ValueError(msg)
    if correction is None:
        return "holm"
    if correction not in ("holm", "bonferroni", "none"):
        msg = (
            f"--correction {correction} cannot be used with --baseline (against one "
            "baseline: holm, bonferroni, none); drop --baseline to test every pair, or add "
            "--all-pairs"
        )
        raise ValueError(msg)
    return None if correction == "none" else correction


def all_pairs_report(
    per_query: pl.DataFrame,
    queries: pl.Series | None,
    args: argparse.Namespace,
    layout: Any,
    lacking: dict[str, int] | None = None,
) -> tuple[str, pl.DataFrame]:
    """Compare every pair of the evaluated systems and render the table in ``layout``'s format.

    The table ends with the query-set line, as against a baseline; the options
    of that table alone (``--p-values``, ``--ci``, ``--markers``,
    ``--latex-rules``) are refused, naming ``--all-pairs`` and ``--baseline``.
    Means show four digits, as :func:`polars_rankmetrics.experiment`'s table.
    """
    refuse_unused_with_all_pairs(args)
    from polars_rankmetrics.comparisons.pairs import compare_pairs
    from polars_rankmetrics.comparisons.pairs_report import pairs_table

    test = args.test
    correction = args.correction
    if correction is None:
        correction = "none" if test in FAMILY_TESTS else "holm"
    if test in FAMILY_TESTS and correction != "none":
        msg = f"--test {test} holds the family-wise error rate itself: use --correction none"
        raise ValueError(msg)
    pairs = compare_pairs(
        per_query,
        test=test,
        correction=None if correction == "none" else correction,
        alpha=args.alpha,
        baselines=None if args.baseline is None else [args.baseline],
        n_resamples=args.n_resamples,
        seed=args.seed,
        queries=queries,
        missing=args.missing,
    )
    if layout.output_format in ("markdown", "latex", "html"):
        text = pairs_table(
            pairs,
            format=layout.output_format,
            digits=4,
            test=PAIR_TEST_NAMES[test],
            correction=None if correction == "none" else CORRECTION_NAMES[correction],
            alpha=args.alpha,
        )
        text = with_query_note(text, pairs, args.queries, lacking or {})
        if layout.markers == "ascii":
            text = text.replace("–", "-")
    elif layout.output_format == "csv":
        text = pairs.write_csv().rstrip("\n")
    else:
        text = pairs.write_json()
    return text, pairs
