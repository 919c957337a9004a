"""The one table of the options every subcommand shares, and each subcommand's default.

Each subcommand either takes a shared option, with the default written here
(and shown by its ``--help``), or refuses it with an error that names both the
option and the subcommand, and says why. ``docs/guide/cli.md`` prints this
table (:func:`guide_table`); a test builds the subcommand × option matrix from
it, so a new subcommand cannot leave one out.
"""

from __future__ import annotations

from dataclasses import dataclass

SHARED_OPTIONS = ("queries", "depth", "output", "quiet")
"""The shared options, by their destination name, in the order of the table."""

SPELLINGS = {
    "queries": "--queries RULE",
    "depth": "-M/--depth N",
    "output": "-o/--output FILE",
    "quiet": "-q/--quiet",
}
"""How each shared option is written (``trec-eval`` keeps trec_eval's letters: see
:data:`DEFAULTS`)."""

QUERY_RULES = ("trec_eval", "run", "qrels", "relevant")
"""``--queries``' choices: the query-set rules of :func:`polars_rankmetrics.evaluate`."""


@dataclass(frozen=True)
class Default:
    """A shared option a subcommand takes: its default value and how the docs state it."""

    value: object
    shown: str
    spelling: str = ""


@dataclass(frozen=True)
class Refused:
    """A shared option a subcommand cannot use, and why (the error says it)."""

    reason: str


Entry = Default | Refused

EVERY_DOCUMENT = "every document"

DEFAULTS: dict[str, dict[str, Entry]] = {
    "trec-eval": {
        "queries": Default("trec_eval", "trec_eval"),
        "depth": Default(None, EVERY_DOCUMENT, "-M N, --depth N"),
        "output": Default(None, "standard output", "--output FILE (-o is trec_eval's)"),
        "quiet": Default(False, "off", "--quiet"),
    },
    "compare": {
        "queries": Default("trec_eval", "trec_eval"),
        "depth": Default(None, EVERY_DOCUMENT),
        "output": Default(None, "standard output"),
        "quiet": Default(False, "off"),
    },
    "plot": {
        "queries": Default("trec_eval", "trec_eval"),
        "depth": Default(None, EVERY_DOCUMENT),
        "output": Default(None, "required (.png, .svg, .html, .json)"),
        "quiet": Default(False, "off"),
    },
    "fuse": {
        "queries": Default("qrels", "qrels (of --optimize; refused without it)"),
        "depth": Default(None, EVERY_DOCUMENT),
        "output": Default(None, "required (TREC; .parquet by suffix; - for stdout)"),
        "quiet": Default(False, "off"),
    },
    "agree": {
        "queries": Default("run", "run (as rm.compare_qrels)"),
        "depth": Default(None, EVERY_DOCUMENT),
        "output": Default(None, "standard output"),
        "quiet": Default(False, "off"),
    },
    "repro": {
        "queries": Refused("repro pairs the two runs on the qrels' queries, as repro_eval does"),
        "depth": Default(1000, "1000 (repro_eval's)"),
        "output": Default(None, "standard output"),
        "quiet": Refused("repro draws no progress bar and writes only errors on standard error"),
    },
}
"""Every subcommand (but ``demo``, which reads no files) and each shared option's
default, or why it refuses it."""


WITHOUT_SHARED_OPTIONS = {"demo": "it reads no files and prints a fixed example"}
"""The subcommands that take none of the shared options, and why."""


def entry(subcommand: str, option: str) -> Entry:
    """The table's entry for ``subcommand`` and ``option``."""
    return DEFAULTS[subcommand][option]


def refusal(subcommand: str, option: str) -> str:
    """The error for a shared option that ``subcommand`` refuses: it names both."""
    found = entry(subcommand, option)
    assert isinstance(found, Refused)
    flag = SPELLINGS[option].split()[0].split("/")[-1]
    return f"{flag} cannot be used with {subcommand}: {found.reason}"


def guide_table() -> str:
    """The table as Markdown: one row per subcommand, one column per shared option."""
    header = "| subcommand | " + " | ".join(f"`{SPELLINGS[o]}`" for o in SHARED_OPTIONS) + " |"
    rule = "| --- |" + " --- |" * len(SHARED_OPTIONS)
    rows = [header, rule]
    for subcommand, options in DEFAULTS.items():
        cells = []
        for option in SHARED_OPTIONS:
            found = options[option]
            if isinstance(found, Refused):
                cells.append(f"refused: {found.reason}")
            else:
                spelled = f" (`{found.spelling}`)" if found.spelling else ""
                cells.append(f"{found.shown}{spelled}")
        rows.append(f"| `{subcommand}` | " + " | ".join(cells) + " |")
    return "\n".join(rows)
