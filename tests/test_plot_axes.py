"""The PR chart's axes: [0, 1], every label whole (the "1.0" label was clipped)."""

from __future__ import annotations

import re

import polars as pl

import polars_rankmetrics as rm


def _rankings(systems: int = 1) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "system": [f"s{i}" for i in range(systems) for _ in range(6)],
            "query": ["q"] * 6 * systems,
            "doc": list("abcdef") * systems,
            "score": [6.0, 5, 4, 3, 2, 1] * systems,
            "relevance": [1, 0, 1, 0, 0, 1] * systems,
        }
    )


def test_unit_axes_keep_their_end_labels_whole() -> None:
    spec = rm.pr_curve_chart(_rankings()).to_dict()
    for channel in ("x", "y"):
        encoding = spec["encoding"][channel]
        assert encoding["scale"] == {"domain": [0, 1], "nice": False}
        # Centred on their ticks (not flushed inside the plot, where the legend cut
        # "1.0"), and never dropped as overlapping.
        assert encoding["axis"]["labelFlush"] is False
        assert encoding["axis"]["labelOverlap"] is False
        assert encoding["axis"]["labelBound"] is False


def test_the_rendered_recall_axis_centres_its_1_0_label_on_the_tick() -> None:
    from vl_convert import vegalite_to_svg

    svg = vegalite_to_svg(rm.pr_curve_chart(_rankings(2)).to_dict())
    labels = re.findall(
        r'<text text-anchor="(\w+)" transform="translate\((\d+),15\)"[^>]*>'
        r"([\d.]+)</text>",
        svg,
    )
    recall = {text: (anchor, int(x)) for anchor, x, text in labels}
    assert set(recall) >= {"0.0", "0.5", "1.0"}
    # Flushed, it was right-aligned to the plot's edge ("end") and the legend cut it.
    assert recall["1.0"][0] == "middle" and recall["0.0"][0] == "middle"
    assert recall["1.0"][1] > recall["0.5"][1] > recall["0.0"][1]


def test_title_counts_one_query_in_the_singular() -> None:
    assert rm.pr_curve_chart(_rankings()).to_dict()["title"].endswith("mean over 1 query")
