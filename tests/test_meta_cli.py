"""`rankmetrics agree` and `rankmetrics repro`: output as the functions; bad input exits 2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polars_rankmetrics.cli import main
from polars_rankmetrics.meta_evaluation.agreement import compare_qrels
from polars_rankmetrics.meta_evaluation.reproducibility import reproduce


def _files(folder: Path) -> dict[str, Path]:
    rng = np.random.default_rng(0)
    paths = {}
    for name in ("human", "llm"):
        lines = [f"{q} 0 d{d} {rng.integers(0, 3)}" for q in range(1, 6) for d in range(12)]
        paths[name] = folder / f"{name}.qrels"
        paths[name].write_text("\n".join(lines) + "\n")
    for name in ("bm25", "dense", "rerank"):
        lines = []
        for q in range(1, 6):
            scores = rng.random(12)
            for rank, d in enumerate(np.argsort(-scores), start=1):
                lines.append(f"{q} Q0 d{d} {rank} {scores[d]:.6f} {name}")
        paths[name] = folder / f"{name}.run"
        paths[name].write_text("\n".join(lines) + "\n")
    return paths


def _table(text: str) -> dict[str, str]:
    return dict(line.split("\t", 1) for line in text.splitlines() if line and "\t" in line)


def test_agree_prints_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path)
    runs = [str(files[name]) for name in ("bm25", "dense", "rerank")]
    assert main(["agree", str(files["human"]), str(files["llm"]), *runs]) == 0
    printed = _table(capsys.readouterr().out)
    report = compare_qrels(str(files["human"]), str(files["llm"]), runs)
    for statistic, value in report.summary.iter_rows():
        assert float(printed[statistic]) == pytest.approx(value, abs=5e-7)


def test_repro_prints_the_measures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = _files(tmp_path)
    arguments = [str(files["human"]), str(files["bm25"]), str(files["dense"])]
    assert main(["repro", *arguments, "--measures", "AP,P@5"]) == 0
    printed = capsys.readouterr().out.splitlines()
    result = reproduce(
        str(files["human"]), str(files["bm25"]), str(files["dense"]), measures=("AP", "P@5")
    )
    assert float(printed[0].split("\t")[1]) == pytest.approx(result.summary["ktu"][0], abs=5e-7)
    assert float(printed[1].split("\t")[1]) == pytest.approx(result.summary["rbo"][0], abs=5e-7)
    assert printed[2] == "queries\t5"
    rows = [line.split("\t") for line in printed[4:-1]]
    assert rows[0] == ["measure", "rmse", "nrmse", "p_value"]
    assert [row[0] for row in rows[1:]] == ["AP", "P@5"]
    assert float(rows[1][1]) == pytest.approx(result.per_measure["rmse"][0], abs=5e-7)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["agree", "{human}", "{missing}"], "qrels file not found"),
        (["agree", "{human}", "{disjoint}"], "no (query, doc) pair in common"),
        (["agree", "{human}", "{llm}", "{bm25}"], "one run only"),
        (["agree", "{human}", "{llm}", "{bm25}", "{dense}", "--measure", "nope"], "nope"),
        (["repro", "{human}", "{bm25}", "{duplicated}"], "more than once"),
        (["repro", "{human}", "{bm25}", "{dense}", "--p", "1.5"], "`p` must be"),
        (["repro", "{human}", "{bm25}", "{empty}"], "empty"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    files = {name: str(path) for name, path in _files(tmp_path).items()}
    (tmp_path / "disjoint.qrels").write_text("99 0 zz 1\n")
    (tmp_path / "dup.run").write_text("1 Q0 d1 1 2.0 x\n1 Q0 d1 2 1.0 x\n")
    (tmp_path / "empty.run").write_text("")
    files |= {
        "missing": str(tmp_path / "nothing.qrels"),
        "disjoint": str(tmp_path / "disjoint.qrels"),
        "duplicated": str(tmp_path / "dup.run"),
        "empty": str(tmp_path / "empty.run"),
    }
    code = main([argument.format(**files) for argument in arguments])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("rankmetrics: error: ")
    assert message in err


def test_agree_with_tied_systems_prints_the_rest_and_names_the_tie(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two runs with the same ranking tie under both qrels: tau_AP is undefined there.

    The command still prints every other statistic (equal to ``ranking_agreement`` with
    ``tau_ap=False``) and says which systems tied, instead of failing or guessing.
    """
    from polars_rankmetrics.meta_evaluation.systems import ranking_agreement

    files = _files(tmp_path)
    twin = tmp_path / "twin.run"
    twin.write_text(files["bm25"].read_text().replace(" bm25\n", " twin\n"))
    runs = [str(files["bm25"]), str(twin), str(files["dense"])]
    assert main(["agree", str(files["human"]), str(files["llm"]), *runs]) == 0
    out = capsys.readouterr().out
    printed = _table(out)
    assert not any(key.startswith("systems_tau_ap") for key in printed)
    assert "# tau_ap undefined: systems tie under qrels A: bm25, twin" in out
    assert "# tau_ap undefined: systems tie under qrels B: bm25, twin" in out
    rows = [
        line.split("\t") for line in out.split("(n_queries_a, n_queries_b)\n", 1)[1].splitlines()
    ]
    systems = {row[0]: (float(row[1]), float(row[2])) for row in rows[1:4]}
    expected = ranking_agreement(
        [value[0] for value in systems.values()],
        [value[1] for value in systems.values()],
        tau_ap=False,
    )
    for name, value in expected.items():
        assert float(printed[f"systems_{name}"]) == pytest.approx(value, abs=5e-7)
