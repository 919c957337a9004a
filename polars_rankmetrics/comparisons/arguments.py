"""The command-line options of ``rankmetrics compare`` and ``rankmetrics plot``.

``--help`` shows each option's default.
"""

from __future__ import annotations

import argparse

from polars_rankmetrics.commands.options import DefaultsFormatter, add_shared_options
from polars_rankmetrics.comparisons.output import DEFAULT_MARKERS, FORMATS, MARKERS

__all__ = [
    "CORRECTION_NAMES",
    "PAIR_TEST_NAMES",
    "TEST_NAMES",
    "DefaultsFormatter",
    "add_common",
    "add_compare_options",
    "add_plot_options",
]

TEST_NAMES = {
    "t": "paired t-test",
    "randomization": "Fisher's randomization test",
    "bootstrap": "paired bootstrap test",
}
"""``--test``'s choices against a baseline, and how the table's note names them."""

PAIR_TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "randomization": "Fisher's randomization test",
    "bootstrap": "paired bootstrap test",
    "tukey": "Tukey's HSD test",
    "tukey-two-way": "two-way Tukey HSD test",
    "randomised-tukey": "randomised Tukey HSD test",
}
"""``--test``'s choices over all pairs (no ``--baseline``, or ``--all-pairs``): the tests of
``compare_pairs``."""

CORRECTION_NAMES = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "sidak": "Sidak",
    "holm-sidak": "Holm-Sidak",
    "fdr_bh": "Benjamini-Hochberg",
    "fdr_by": "Benjamini-Yekutieli",
    "none": "no",
}
"""``--correction``'s choices (only holm, bonferroni and none against one baseline)."""


def add_common(parser: argparse.ArgumentParser, subcommand: str = "compare") -> None:
    """The inputs and options that ``compare`` and ``plot`` share (and the shared options)."""
    parser.add_argument(
        "qrels",
        help="qrels: a TREC qrels file (or .gz, or - for stdin) or parquet (query, doc, relevance)",
    )
    parser.add_argument(
        "runs",
        nargs="+",
        help="runs: TREC run files (or .gz, or -) or parquet (query, doc, score[, run_id])",
    )
    parser.add_argument(
        "--qrels-columns",
        metavar="ROLE=NAME,...",
        help="the qrels' columns where not the usual names, e.g. query=topic,relevance=grade "
        "(default: the usual names)",
    )
    parser.add_argument(
        "--run-columns",
        metavar="ROLE=NAME,...",
        help="the runs' columns where not the usual names, e.g. score=sim "
        "(default: the usual names)",
    )
    baseline = {
        "compare": "the run every other is tested against (as rm.experiment's baseline=) "
        "(default: none: every pair of runs is tested)",
        "plot": "with --delta, the run the differences are to (default: the first run)",
    }
    parser.add_argument("--baseline", metavar="NAME", help=baseline[subcommand])
    parser.add_argument(
        "--missing",
        choices=["zero", "drop"],
        default="zero",
        help="with --queries run: a query a run lacks scores 0, or is dropped for every run",
    )
    output = {
        "compare": "write the table to FILE (atomically), not standard output; the format "
        "follows its suffix (.md, .txt, .tex, .csv, .json, .html) unless --format",
        "plot": "the chart's file: .png, .svg, .html or .json",
    }
    add_shared_options(
        parser,
        subcommand,
        helps={
            "output": output[subcommand],
            "depth": "evaluate each run's top N documents per query (trec_eval's -M)",
        },
    )


def add_compare_options(parser: argparse.ArgumentParser) -> None:
    """``compare``'s own options: the test, the output and what the table shows."""
    parser.add_argument(
        "-m",
        dest="measures",
        action="append",
        required=True,
        metavar="MEASURE",
        help="a measure, e.g. map, ndcg_cut_10, P@10 (repeatable)",
    )
    parser.add_argument(
        "--test",
        choices=list(PAIR_TEST_NAMES),
        default="t",
        help="the significance test (as rm.experiment's test=); against one --baseline only "
        "t, randomization or bootstrap, unless --all-pairs",
    )
    parser.add_argument(
        "--correction",
        choices=list(CORRECTION_NAMES),
        default=None,
        help="the correction of the p-values for the several systems compared (as "
        "rm.experiment's correction=); against one --baseline only holm, bonferroni or "
        "none, unless --all-pairs; the Tukey tests need none and default to it "
        "(default: holm)",
    )
    parser.add_argument(
        "--all-pairs",
        action="store_true",
        help="compare every pair of systems (ranx-style table: superscript letters name "
        "the systems each is significantly better than), the default without --baseline; "
        "with --baseline NAME, the table of every pair holding NAME",
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="significance level; the confidence intervals are at 1 - alpha",
    )
    parser.add_argument(
        "--n-resamples",
        type=int,
        default=10_000,
        help="resamples of the randomization and bootstrap tests and of the bootstrap "
        "intervals (--ci, and the CSV and JSON rows)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling")
    parser.add_argument(
        "--format",
        choices=list(FORMATS),
        help="the table's format (default: from -o's extension, else markdown)",
    )
    parser.add_argument(
        "--markers",
        choices=list(MARKERS),
        default=DEFAULT_MARKERS,
        help="marks of a significant improvement / loss against the --baseline: "
        "daggers †/‡ (LaTeX: dagger/ddagger; as rm.markdown_table and rm.latex_table), "
        "arrows ▲/▼ (LaTeX: bigtriangleup/bigtriangledown), or ascii +/- "
        "(then the whole Markdown table is ASCII)",
    )
    parser.add_argument(
        "--p-values",
        action="store_true",
        help="print each system's p-value against the --baseline (adjusted) beside its mean "
        "(needs --baseline; over all pairs they are in -o FILE.csv or .json)",
    )
    parser.add_argument(
        "--ci",
        action="store_true",
        help="print the confidence interval of each mean beside it (needs --baseline)",
    )
    parser.add_argument(
        "--latex-rules",
        choices=["booktabs", "hline"],
        default="hline",
        help=(
            "LaTeX rules: \\hline (no package: plain pdflatex compiles the table) "
            "or booktabs (needs \\usepackage{booktabs})"
        ),
    )


def add_plot_options(parser: argparse.ArgumentParser) -> None:
    """``plot``'s own options."""
    parser.add_argument(
        "--kind",
        choices=["interpolated", "exact"],
        default="interpolated",
        help="11-point interpolated curves, or exact ones (with --per-query)",
    )
    parser.add_argument(
        "--per-query", metavar="SYSTEM", help="one curve per query of SYSTEM (default: one per run)"
    )
    parser.add_argument(
        "--delta",
        metavar="MEASURE",
        help="per-query difference of MEASURE to the baseline (default: PR curves)",
    )
    parser.add_argument("--title", help="the chart's title (default: says what it shows)")
    parser.add_argument("--scale", type=float, default=2.0, help="PNG scale factor")
