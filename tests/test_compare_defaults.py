"""``rankmetrics compare`` is ``rm.experiment``'s shell face: the same options, the same defaults.

Every option of ``compare`` that is a parameter of :func:`polars_rankmetrics.experiment`
defaults to the parameter's default (read from the signature), and the command's
default output is the call's: without ``--baseline`` every pair is tested, with
``--baseline NAME`` every run against NAME. An option that is only for a table
against one baseline is refused without one, naming ``--baseline``.
"""

from __future__ import annotations

import inspect
import io
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import polars_rankmetrics as rm
from polars_rankmetrics.cli import build_parser, main
from polars_rankmetrics.experiments.cli import (
    EXPERIMENT_PARAMETERS,
    experiment_table,
    resolved_correction,
)

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "cli.md"
NAMES = ("bm25", "dense", "hybrid")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A qrels file and three TREC runs of 15 queries, hybrid best, dense between."""
    folder = tmp_path_factory.mktemp("defaults")
    rng = np.random.default_rng(7)
    qrels, runs = [], {name: [] for name in NAMES}
    for q in range(15):
        relevant = rng.random(12) < 0.3
        qrels += [f"q{q} 0 d{d} {int(relevant[d])}\n" for d in range(12)]
        for shift, name in enumerate(NAMES):
            scores = rng.normal(size=12) + shift * relevant
            runs[name] += [f"q{q} Q0 d{d} 0 {scores[d]:.6f} {name}\n" for d in range(12)]
    (folder / "qrels.txt").write_text("".join(qrels))
    paths = [str(folder / "qrels.txt")]
    for name, lines in runs.items():
        (folder / f"{name}.run").write_text("".join(lines))
        paths.append(str(folder / f"{name}.run"))
    return paths


def _compare_defaults() -> dict[str, object]:
    compare = build_parser()._subparsers._group_actions[0].choices["compare"]  # type: ignore[union-attr]
    return {action.dest: action for action in compare._actions if action.option_strings}


def test_every_shared_option_defaults_to_the_signatures_default() -> None:
    parameters = inspect.signature(rm.experiment).parameters
    actions = _compare_defaults()
    for dest, (spelling, name) in EXPERIMENT_PARAMETERS.items():
        action = actions[dest]
        assert spelling.split()[0].split("/")[-1] in action.option_strings, dest
        expected = parameters[name].default
        if expected is inspect.Parameter.empty:
            assert action.required, dest
            continue
        got = action.default
        if dest == "correction":  # unset: the call's holm (none for the Tukey tests)
            got = resolved_correction(actions["test"].default, got)
        assert got == expected, (dest, got, expected)
    shared = set(parameters) & set(actions)
    assert shared <= set(EXPERIMENT_PARAMETERS) | {"ci"}  # --ci shows intervals (not their kind)


def test_the_guide_prints_the_table() -> None:
    assert experiment_table() in GUIDE.read_text()


def test_without_baseline_every_pair_is_tested_as_by_experiment(
    files: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", *files, "-m", "map", "-m", "P_5"]
    assert main(argv) == 0
    default = capsys.readouterr().out
    assert main([*argv, "--all-pairs"]) == 0
    assert capsys.readouterr().out == default  # --all-pairs: the explicit spelling
    expected = rm.experiment(files[0], files[1:], ["map", "P_5"])
    assert expected.systems == list(NAMES)
    table = expected.to_markdown()
    # The table and its legend up to the query-set line are the call's, letter for letter.
    head = table.split(" Means over")[0]
    assert default.startswith(head)
    assert "<sup>" in head  # hybrid is significantly better than bm25
    assert main([*argv, "--format", "csv"]) == 0
    pairs = pl.read_csv(io.StringIO(capsys.readouterr().out))
    tests = expected.tests
    assert (
        pairs.select("metric", "system_a", "system_b").rows()
        == tests.select("metric", "system_a", "system_b").rows()
    )
    for column in ("delta", "p_value", "p_value_adjusted"):
        np.testing.assert_allclose(pairs[column], tests[column], rtol=1e-12)


def test_baseline_tests_every_run_against_it_as_by_experiment(
    files: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["compare", *files, "-m", "map", "--baseline", "dense"]
    assert main(argv) == 0
    assert "| dense (baseline) |" in capsys.readouterr().out
    assert main([*argv, "--format", "csv"]) == 0
    rows = pl.read_csv(io.StringIO(capsys.readouterr().out)).filter(~pl.col("is_baseline"))
    tests = rm.experiment(files[0], files[1:], "map", baseline="dense").tests
    assert tests["system_a"].unique().to_list() == ["dense"]
    assert rows["system"].to_list() == tests["system_b"].to_list()
    np.testing.assert_allclose(rows["p_value_adjusted"], tests["p_value_adjusted"], rtol=1e-12)


@pytest.mark.parametrize(
    "option",
    [
        ["--p-values"],
        ["--ci"],
        ["--markers", "arrows"],
        ["--format", "latex", "--latex-rules", "booktabs"],
    ],
)
def test_options_of_one_baseline_are_refused_without_it(
    files: list[str], capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    flag = option[-2] if option[0] == "--format" else option[0]
    assert main(["compare", *files, "-m", "map", *option]) == 2
    err = capsys.readouterr().err
    assert f"{flag} cannot be used with --all-pairs" in err
    assert "add --baseline NAME" in err
    assert main(["compare", *files, "-m", "map", "--baseline", "bm25", *option]) == 0
