"""One command line, one vocabulary: the shared options of every subcommand, from one table.

The subcommand × shared option matrix is generated from
:data:`polars_rankmetrics.commands.defaults.DEFAULTS`, and the table must name
every subcommand the command registers: a new subcommand cannot skip one. Each
cell either takes the option with the table's default (shown by ``--help``) or
refuses it with an error naming both.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from polars_rankmetrics.cli import build_parser, main
from polars_rankmetrics.commands.defaults import (
    DEFAULTS,
    SHARED_OPTIONS,
    SPELLINGS,
    WITHOUT_SHARED_OPTIONS,
    Default,
    Refused,
    guide_table,
)

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "cli.md"

OPERANDS = {
    "compare": ["q.txt", "r.txt", "-m", "map"],
    "plot": ["q.txt", "r.txt", "-o", "chart.svg"],
    "fuse": ["a.txt", "b.txt", "-o", "fused.txt"],
    "agree": ["a.qrels", "b.qrels"],
    "repro": ["q.txt", "orig.txt", "repro.txt"],
}
"""Each argparse subcommand's smallest command line."""

VALUES = {"queries": ["--queries", "qrels"], "depth": ["--depth", "5"], "quiet": ["--quiet"]}


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_the_table_names_every_subcommand() -> None:
    registered = set(_subparsers())
    assert registered == set(DEFAULTS) | set(WITHOUT_SHARED_OPTIONS)
    for options in DEFAULTS.values():
        assert tuple(options) == SHARED_OPTIONS


MATRIX = [
    (subcommand, option)
    for subcommand in DEFAULTS
    if subcommand != "trec-eval"
    for option in SHARED_OPTIONS
]


@pytest.mark.parametrize(("subcommand", "option"), MATRIX)
def test_each_shared_option_applies_or_is_refused(
    subcommand: str, option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = _subparsers()[subcommand]
    found = DEFAULTS[subcommand][option]
    flag = SPELLINGS[option].split()[0].split("/")[-1]
    if isinstance(found, Refused):
        given = VALUES.get(option, ["-o", "x.txt"])
        with pytest.raises(SystemExit) as exit_:
            parser.parse_args([*OPERANDS[subcommand], *given])
        assert exit_.value.code == 2
        error = capsys.readouterr().err
        assert f"{flag} cannot be used with {subcommand}" in error
        return
    assert isinstance(found, Default)
    arguments = OPERANDS[subcommand]
    if option == "output" and "-o" in arguments:
        assert parser.get_default("output") is None  # required: no default
        assert "-o" in parser.format_help()
        return
    assert getattr(parser.parse_args(arguments), option) == found.value
    text = " ".join(parser.format_help().split())
    assert flag in text
    assert f"(default: {found.shown})" in text


@pytest.mark.parametrize("subcommand", [name for name in DEFAULTS if name != "trec-eval"])
def test_every_help_shows_each_default(subcommand: str) -> None:
    parser = _subparsers()[subcommand]
    formatter = parser._get_formatter()
    for action in parser._actions:
        if action.dest == "help" or not action.option_strings or action.required:
            continue
        text = formatter._get_help_string(action) or ""  # type: ignore[attr-defined]
        assert "default" in text or text.startswith("refused here"), action.option_strings


def test_the_guide_lists_the_table() -> None:
    assert guide_table() in GUIDE.read_text(encoding="utf-8")


def test_trec_eval_takes_depth_as_m(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "qrels"
    run = tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 1\n1 0 c 0\n")
    run.write_text("1 Q0 c 1 3 x\n1 Q0 a 2 2 x\n1 Q0 b 3 1 x\n")
    outputs = []
    for option in (["-M", "2"], ["--depth", "2"], ["--depth=2"]):
        assert main(["trec-eval", *option, "-m", "map", str(qrels), str(run)]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2]
    assert "0.2500" in outputs[0]


def test_trec_eval_documents_its_spelling_of_each_shared_option() -> None:
    from polars_rankmetrics.trec.help import help_text

    text = help_text()
    for option, found in DEFAULTS["trec-eval"].items():
        assert isinstance(found, Default)
        for flag in found.spelling.replace(",", " ").split():
            if flag.startswith("-"):
                assert flag in text, (option, flag)
