"""The experiment's HTML report, opened in a real headless browser (Debian's ``chromium``).

How "no network request and no error" is checked, and why it is a real check:

- **Requests.** Chromium runs with ``--log-net-log``, which writes every request
  its network stack starts (the browser's own background requests too) to a
  JSON file. A request made by the page carries the page's network isolation
  key (``file://`` for a file opened from disk); the browser's own (update
  checks, account probes) carry another. The test fails on any request of the
  page for a URL that is not ``file:`` or ``data:``. The proxy
  (``--proxy-server=127.0.0.1:9``, the discard port) and ``--host-resolver-rules``
  make sure that such a request, were there one, could reach nothing; the net
  log still records that it was attempted.
- **Errors.** ``--enable-logging=stderr --v=0`` prints each console message of
  the page as a ``CONSOLE`` line; the test fails on any.
- A **control page** that loads an image over HTTP and logs a console error must
  trip both checks (:func:`test_the_checks_see_a_request_and_an_error`), so a
  check that silently sees nothing would fail there.

The rendered page (``--dump-dom``, the DOM after the browser has laid it out)
must hold the results table with a row per run and an ``<svg>`` in every
chart's figure; ``--screenshot`` (in the same load) must write a PNG. Where
``chromium`` is missing the browser tests are skipped with the reason, except in
CI (``CI=true``), where ``.ci/run`` installs it and its absence fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import polars_rankmetrics as rm


def _browser() -> str:
    found = shutil.which("chromium")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is missing in CI: .ci/run installs it with apt")
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    return found


def _open(page: Path, folder: Path, *, screenshot: Path | None = None) -> tuple[str, str, list]:
    """Load ``page`` headless: the rendered DOM, the browser's log, and its net log events."""
    net_log = folder / f"{page.stem}.netlog.json"
    arguments = [
        _browser(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        f"--user-data-dir={folder / 'profile'}",
        "--no-first-run",
        "--proxy-server=127.0.0.1:9",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--enable-logging=stderr",
        "--v=0",
        f"--log-net-log={net_log}",
    ]
    arguments.append("--dump-dom")  # with --screenshot, both in one load
    if screenshot is not None:
        arguments += [f"--screenshot={screenshot}", "--window-size=1280,2000"]
    done = subprocess.run(
        [*arguments, page.resolve().as_uri()], capture_output=True, text=True, timeout=120
    )
    events = json.loads(net_log.read_text()).get("events", []) if net_log.is_file() else []
    return done.stdout, done.stderr, events


def _page_requests(events: list) -> list[str]:
    """The URLs the page itself asked the network for (not ``file:`` or ``data:``)."""
    urls = []
    for event in events:
        params = event.get("params") or {}
        url, key = params.get("url"), params.get("network_isolation_key", "")
        if isinstance(url, str) and "file://" in str(key):
            if not url.startswith(("file:", "data:")):
                urls.append(url)
    return sorted(set(urls))


def _console(log: str) -> list[str]:
    return [line for line in log.splitlines() if "CONSOLE" in line]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, rm.Experiment]:
    """One report (three runs, two measures, all pairs) for the tests of this module."""
    tmp_path = tmp_path_factory.mktemp("report")
    rng = np.random.default_rng(11)
    qrels = {
        f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(8)} | {"d0": 1} for q in range(12)
    }
    runs = {
        name: {
            query: {doc: float(rng.normal() + strength * label) for doc, label in judged.items()}
            for query, judged in qrels.items()
        }
        for name, strength in (("bm25", 0.2), ("dense", 0.8), ("hybrid", 1.2))
    }
    result = rm.experiment(qrels, runs, ["ndcg_cut_10", "map"])
    path = tmp_path / "report.html"
    result.save(path)
    return path, result


def test_the_page_loads_nothing(report: tuple[Path, rm.Experiment]) -> None:
    path, _ = report
    text = path.read_text()
    assert "<script" not in text and "<link" not in text and "<iframe" not in text
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?!#|data:)[a-z]+:""", text)
    assert "@import" not in text and "url(" not in text


def test_the_checks_see_a_request_and_an_error(tmp_path: Path) -> None:
    control = tmp_path / "control.html"
    control.write_text(
        '<html><body><img src="http://example.invalid/x.png">'
        '<script>console.error("boom")</script></body></html>'
    )
    _, log, events = _open(control, tmp_path)
    assert _page_requests(events) == ["http://example.invalid/x.png"]
    assert any("boom" in line for line in _console(log))


def test_the_report_renders_offline_in_chromium(
    report: tuple[Path, rm.Experiment], tmp_path: Path
) -> None:
    path, result = report
    shot = tmp_path / "report.png"
    dom, log, events = _open(path, tmp_path, screenshot=shot)
    assert _page_requests(events) == []
    assert _console(log) == []
    table = re.search(r'<table class="results">.*?</table>', dom, re.S)
    assert table is not None
    rows = re.findall(r"<tr><td>([a-z])</td><td>([^<]+)</td>", table.group(0))
    assert [name for _, name in rows] == result.systems
    assert "Holm correction" in table.group(0) and "0.05" in table.group(0)
    assert "Means over 12 queries" in dom
    figures = re.findall(r'<figure class="chart" id="chart-([^"]+)">(.*?)</figure>', dom, re.S)
    assert [name for name, _ in figures] == ["delta-ndcg_cut_10", "delta-map", "pr"]
    assert all("<svg" in body for _, body in figures)
    for needed in ("Wins, ties and losses", "Runs and settings", rm.__version__):
        assert needed in dom
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_many_queries_draw_a_profile_not_a_bar_per_query() -> None:
    from polars_rankmetrics.experiments.charts import BARS_UP_TO

    rng = np.random.default_rng(12)
    n = BARS_UP_TO + 1
    qrels = {f"q{q}": {"d0": 1, "d1": 0} for q in range(n)}
    runs = {
        name: {f"q{q}": {"d0": float(rng.normal()), "d1": float(rng.normal())} for q in range(n)}
        for name in ("a", "b")
    }
    result = rm.experiment(qrels, runs, ["recip_rank"], baseline="a")
    spec = result.chart("delta").to_dict()
    marks = [layer["mark"]["type"] for layer in spec["spec"]["layer"]]
    assert marks == ["area", "area"]
    page = result.to_html()
    assert "<i>(baseline)</i>" in page and "Per-query differences" in page
