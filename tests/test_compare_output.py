"""`rankmetrics compare` output: losses, p-values, intervals, -o, --help, warnings, LaTeX.

The LaTeX table is checked to be pure ASCII always, and compiled with plain
``pdflatex`` when it is on PATH (TeX Live's basic packages:
``apt-get install texlive-latex-base``).
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest
from scipy import stats

from polars_rankmetrics.cli import main

N_QUERIES = 20


def _write_runs(directory: Path, n_queries: int) -> list[str]:
    """Qrels and runs: `base` mixed, `good` relevant first, `bad` relevant last, `near`
    as `base` but as `good` on one query in four (a middling p-value)."""
    qrels: list[str] = []
    runs: dict[str, list[str]] = {"base": [], "good": [], "bad": [], "near": []}
    for q in range(n_queries):
        relevant = {f"d{i}" for i in range(20) if (i * 7 + q) % 5 == 0}
        for i in range(20):
            doc = f"d{i}"
            qrels.append(f"q{q} 0 {doc} {int(doc in relevant)}\n")
            hit = doc in relevant
            scores = {
                "base": float((i * 13 + q * 3) % 20),
                "good": 100.0 + i if hit else float(i),
                "bad": float(i) if hit else 100.0 + i,
            }
            scores["near"] = scores["good" if q % 4 == 0 else "base"]
            for name, score in scores.items():
                runs[name].append(f"q{q} Q0 {doc} 0 {score} {name}\n")
    (directory / "qrels").write_text("".join(qrels))
    paths = [str(directory / "qrels")]
    for name, lines in runs.items():
        (directory / name).write_text("".join(lines))
        paths.append(str(directory / name))
    return paths


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return _write_runs(tmp_path_factory.mktemp("compare"), N_QUERIES)


def _rows(markdown: str) -> dict[str, list[str]]:
    rows = {}
    for line in markdown.splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def _per_query_ap(path: str, qrels: str) -> list[float]:
    """AP per query, slowly: score descending, then document id descending (trec_eval)."""
    relevant: dict[str, set[str]] = {}
    for line in Path(qrels).read_text().splitlines():
        query, _, doc, label = line.split()
        relevant.setdefault(query, set())
        if int(label) > 0:
            relevant[query].add(doc)
    ranked: dict[str, list[tuple[float, str]]] = {}
    for line in Path(path).read_text().splitlines():
        query, _, doc, _, score, _ = line.split()
        ranked.setdefault(query, []).append((float(score), doc))
    values = []
    for query in sorted(ranked):
        hits, total = 0, 0.0
        for rank, (_, doc) in enumerate(sorted(ranked[query], reverse=True), start=1):
            if doc in relevant[query]:
                hits += 1
                total += hits / rank
        values.append(total / len(relevant[query]))
    return values


def test_significant_losses_and_wins_are_marked_with_a_legend(
    paths: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", *paths, "--baseline", "base", "-m", "AP"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # 20 queries: no warning
    rows = _rows(captured.out)
    assert rows["good"][0].endswith("†") and rows["good"][0].startswith("**")
    assert rows["bad"][0].endswith("‡")
    assert not rows["base (baseline)"][0].endswith(("†", "‡"))
    assert "‡: significantly worse than the baseline." in captured.out.splitlines()
    assert "†: significant improvement over the baseline base" in captured.out


def test_p_values_and_intervals_in_the_table(
    paths: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "compare",
        *paths,
        "--baseline",
        "base",
        "-m",
        "AP",
        "--p-values",
        "--ci",
        "--correction",
        "none",
    ]
    assert main([*argv, "--markers", "ascii"]) == 0
    out = capsys.readouterr().out
    rows = _rows(out)
    base, good = _per_query_ap(paths[1], paths[0]), _per_query_ap(paths[2], paths[0])
    p = stats.ttest_rel(good, base).pvalue
    assert p < 0.001
    assert rows["good"][0].split(" ")[0].endswith("+")
    assert "(p<0.001)" in rows["good"][0]
    near = _per_query_ap(paths[4], paths[0])
    p = stats.ttest_rel(near, base).pvalue
    assert 0.001 < p < 0.5
    assert f"(p={p:.3f})" in rows["near"][0]
    assert rows["bad"][0].split(" ")[0].endswith("-")
    low, high = rows["base (baseline)"][0].split("[")[1].rstrip("]").split(", ")
    mean = sum(base) / len(base)
    assert float(low) < mean < float(high)
    assert "(p=" not in rows["base (baseline)"][0]
    assert out.isascii()  # --markers ascii: the whole table
    assert "alpha = 0.05" in out
    assert "p: the p-value of the difference to the baseline" in out
    assert "[low, high]: the confidence interval of the mean" in out


@pytest.mark.parametrize(
    ("name", "check"),
    [
        ("table.md", lambda text: text.startswith("| System | AP |")),
        ("table.txt", lambda text: text.startswith("| System | AP |")),
        ("table.tex", lambda text: text.startswith("\\begin{table}")),
        ("table.csv", lambda text: text.startswith("metric,system,mean,")),
        ("table.json", lambda text: json.loads(text)[0]["system"] == "base"),
    ],
)
def test_output_file_format_follows_its_extension(
    paths: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    check: object,
) -> None:
    target = tmp_path / name
    assert main(["compare", *paths, "--baseline", "base", "-m", "AP", "-o", str(target)]) == 0
    assert capsys.readouterr().out == ""
    assert callable(check) and check(target.read_text())
    assert list(tmp_path.iterdir()) == [target]  # written atomically: no temporary left


def test_format_overrides_the_extension_and_unknown_extensions_fail(
    paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "table.out"
    assert main(["compare", *paths, "--baseline", "base", "-m", "AP", "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rankmetrics: error: -o ") and "'.out'" in err and "--format" in err
    assert not target.exists()
    assert (
        main(
            [
                "compare",
                *paths,
                "--baseline",
                "base",
                "-m",
                "AP",
                "-o",
                str(target),
                "--format",
                "csv",
            ]
        )
        == 0
    )
    assert target.read_text().startswith("metric,system,mean,")
    missing = tmp_path / "nowhere" / "t.md"
    assert main(["compare", *paths, "--baseline", "base", "-m", "AP", "-o", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err == f"rankmetrics: error: cannot write {missing}: No such file or directory\n"


def test_help_shows_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["compare", "--help"])
    assert exited.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for default in (
        "(default: t)",
        "(default: holm)",
        "(default: 0.05)",
        "(default: 10000)",
        "(default: daggers)",
        "(default: zero)",
        "(default: hline)",
    ):
        assert default in text
    assert "(default: None)" not in text and "(default: False)" not in text


def test_few_queries_warn_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    few = _write_runs(tmp_path, 4)
    assert main(["compare", *few, "--baseline", "base", "-m", "AP", "--format", "csv"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("rankmetrics: warning: only 4 paired queries (fewer than 10)")
    assert "means little" in err


def _latex(paths: list[str], capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert (
        main(
            [
                "compare",
                *paths,
                "--baseline",
                "base",
                "-m",
                "AP",
                "-m",
                "P_10",
                "--format",
                "latex",
                *extra,
            ]
        )
        == 0
    )
    return capsys.readouterr().out


def test_latex_is_pure_ascii(paths: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    for extra in ([], ["--p-values", "--ci"], ["--markers", "daggers"]):
        text = _latex(paths, capsys, *extra)
        assert text.isascii(), [c for c in text if not c.isascii()]
        assert r"$\alpha$ = 0.05" in text  # not a raw α
        assert r"$^{\bigtriangledown}$" in text or r"$^{\ddagger}$" in text


def _compile(tmp_path: Path, table: str, packages: list[str]) -> subprocess.CompletedProcess[str]:
    preamble = "".join(f"\\usepackage{{{name}}}\n" for name in packages)
    document = (
        f"\\documentclass{{article}}\n{preamble}\\begin{{document}}\n{table}\\end{{document}}\n"
    )
    (tmp_path / "table.tex").write_text(document, encoding="ascii")
    pdflatex = shutil.which("pdflatex")
    assert pdflatex is not None
    return subprocess.run(
        [pdflatex, "-interaction=nonstopmode", "-halt-on-error", "table.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(
    shutil.which("pdflatex") is None,
    reason="pdflatex not on PATH (apt-get install texlive-latex-base to run this check)",
)
@pytest.mark.parametrize("extra", [[], ["--p-values", "--ci"], ["--markers", "daggers"]])
def test_latex_compiles_with_plain_pdflatex(
    paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    # \hline rules need no package at all: plain pdflatex, nothing else.
    table = _latex(paths, capsys, *extra)
    done = _compile(tmp_path, table, [])
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "table.pdf").read_bytes().startswith(b"%PDF")
    assert "Missing character" not in (tmp_path / "table.log").read_text(errors="replace")


@pytest.mark.skipif(
    shutil.which("kpsewhich") is None
    or subprocess.run(["kpsewhich", "booktabs.sty"], capture_output=True, check=False).returncode,
    reason="booktabs.sty not installed (apt-get install texlive-latex-recommended)",
)
def test_latex_with_booktabs_compiles(
    paths: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = _latex(paths, capsys, "--p-values", "--latex-rules", "booktabs")
    done = _compile(tmp_path, table, ["booktabs"])
    assert done.returncode == 0, done.stdout[-2000:]


def test_csv_output_carries_p_values_and_intervals(
    paths: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compare", *paths, "--baseline", "base", "-m", "AP", "--format", "csv"]) == 0
    frame = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert {"p_value", "p_value_adjusted", "ci_low", "ci_high"} <= set(frame.columns)
    assert frame.filter(pl.col("system") == "bad")["delta"][0] < 0
    assert frame.filter(pl.col("system") == "bad")["significant"][0] is True
