"""One call for many recommender metrics and models: :func:`evaluate`.

The expensive tables are built once and shared: the test pairs and the item
popularity are collected once for every model; each model's recommendations
are joined with them once, and every per-user metric (RecTools', the
library's registry names, popularity and novelty) is one ``group_by("user")``
over that frame; the catalogue metrics read the same frame. The models'
plans run together in one ``pl.collect_all``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import polars as pl

from polars_rankmetrics.recsys.accuracy import auc_insufficient
from polars_rankmetrics.recsys.columns import ITEM, LONG_TAIL, RANK, RELEVANT, USER
from polars_rankmetrics.recsys.coverage import (
    Catalog,
    _catalog_expr,
    _catalog_plan,
    _catalog_size,
    intersection,
    model_rbo,
)
from polars_rankmetrics.recsys.diversity import intra_list_diversity, intra_list_similarity
from polars_rankmetrics.recsys.frames import (
    HeadBy,
    as_lazy,
    cast_keys,
    check_reco,
    interactions_table,
    judged,
    key_types,
    recommendations,
    refuse_null_ids,
    train_statistics,
)
from polars_rankmetrics.recsys.history import (
    miscalibration,
    recommenders_diversity,
    recommenders_serendipity,
)
from polars_rankmetrics.recsys.names import METRICS, Spec, parse
from polars_rankmetrics.recsys.packed import (
    distinct_pairs,
    has_repeats,
    popularity_gather,
    ranked_pairs,
    ranks_of,
    unflagged,
)

if TYPE_CHECKING:
    import altair

Repeats = Literal["raise", "first"]


@dataclass(frozen=True)
class RecsysEvaluation:
    """What :func:`evaluate` returns.

    Attributes
    ----------
    per_user
        One row per (model, user) with a column per per-user metric: ready for
        ``rm.compare(per_user, baseline=..., system="model", query="user",
        missing="drop")``. A metric that does not apply to a user is null
        (accuracy for a user without test items, novelty for one without
        recommendations).
    summary
        One row per model: the mean over users of each per-user metric (nulls
        left out, as RecTools' ``calc``) and the catalogue metrics.
    """

    per_user: pl.DataFrame
    summary: pl.DataFrame

    def chart(self, x: str, y: str) -> altair.LayerChart:
        """A scatter of the models' ``summary``: e.g. accuracy against novelty. Needs altair."""
        from polars_rankmetrics.recsys.plot import tradeoff_chart

        return tradeoff_chart(self.summary, x=x, y=y, model=self.summary.columns[0])


def _models(reco: object, model: str) -> dict[str, pl.LazyFrame]:
    if isinstance(reco, Mapping):
        if not reco:
            msg = "`reco` is an empty mapping; give {model name: recommendations}"
            raise ValueError(msg)
        return {str(name): as_lazy(frame, f"reco[{name!r}]") for name, frame in reco.items()}
    frame = as_lazy(reco, "reco")
    if model not in frame.collect_schema().names():
        return {"reco": frame}
    names = frame.select(pl.col(model).unique().sort()).collect().to_series()
    if names.null_count():
        nulls = frame.select(pl.col(model).null_count()).collect().item()
        msg = f"`reco`: column {model!r} has {nulls} null values; name every row's model"
        raise ValueError(msg)
    return {str(name): frame.filter(pl.col(model) == name).drop(model) for name in names}


def _require(specs: Sequence[Spec], given: dict[str, bool]) -> None:
    for spec in specs:
        for need in METRICS[spec.name].needs:
            if need != "ref" and not given[need]:
                msg = f"{spec.label!r} needs `{need}`"
                raise ValueError(msg)


def _user_expr(spec: Spec, catalog: Catalog | None) -> pl.Expr:
    options = dict(spec.options)
    if spec.name in ("PartialAUC", "PAP") and options.get("insufficient") == "raise":
        options.pop("insufficient")
    if spec.name == "Serendipity":
        assert catalog is not None
        options["n_items"] = _catalog_size(catalog)
    build = METRICS[spec.name].build
    assert build is not None
    try:
        expr: pl.Expr = build(spec.k, **options)
    except (TypeError, ValueError) as error:
        msg = f"{spec.label!r}: {error}"
        raise ValueError(msg) from None
    return expr.alias(spec.label)


_TEST_ROWS = {"Precision", "Recall", "F1Beta", "HitRate", "MAP", "NDCG", "MRR"}
"""Read only the test pairs' ranks: computed over the (small) test table joined with the lists."""
_LIST_ROWS = {"MeanInvUserFreq", "AvgRecPopularity", "APLT", "ACLT", "SufficientReco"}
"""Read only the lists: computed without the test pairs."""


def _frame_of(spec: Spec) -> str:
    """Which frame a per-user metric reads: the test pairs, the lists, both, or the raw lists."""
    if spec.name in _TEST_ROWS or spec.name == "PopStratifiedRecall":
        return "test"
    if spec.name in _LIST_ROWS or (spec.name == "EPC" and not spec.options.get("relevance")):
        return "list"
    if spec.name == "UnrepeatedReco":
        return "raw"
    return "full"


def _frame_metric(
    spec: Spec,
    name: str,
    reco: pl.LazyFrame,
    models: Mapping[str, pl.LazyFrame],
    *,
    train: object | None,
    features: object | None,
    genres: object | None,
) -> pl.DataFrame:
    k = spec.k or 1
    options = spec.options
    if spec.name == "IntraListDiversity":
        result = intra_list_diversity(
            reco, features, k=k, distance=options.get("distance", "hamming")
        )
    elif spec.name == "IntraListSimilarity":
        result = intra_list_similarity(
            reco, features, k=k, distance=options.get("distance", "cosine")
        )
    elif spec.name == "Miscalibration":
        result = miscalibration(reco, train, genres, k=k, alpha=options.get("alpha", 0.01))
    elif spec.name == "RecommendersDiversity":
        top = reco.filter(pl.col(RANK) <= k)
        result = recommenders_diversity(top, features=features, train=train)
    elif spec.name == "RecommendersSerendipity":
        top = reco.filter(pl.col(RANK) <= k)
        result = recommenders_serendipity(top, train, features=features)
    else:  # Intersection, RBO
        reference = str(options.get("ref"))
        if reference not in models:
            msg = f"{spec.label!r}: `ref` must name one of the models {sorted(models)}"
            raise ValueError(msg)
        if spec.name == "RBO":
            result = model_rbo(reco, models[reference], k=k, p=options.get("p", 0.9))
        else:
            result = intersection(reco, models[reference], k=k, ref_k=options.get("ref_k"))
    return result.select(USER, pl.col(result.columns[1]).alias(spec.label))


def evaluate(
    reco: object,
    *,
    metrics: Sequence[str],
    interactions: object | None = None,
    train: object | None = None,
    catalog: Catalog | None = None,
    features: object | None = None,
    genres: object | None = None,
    model: str = "model",
    repeats: Repeats = "raise",
    head_share: float = 0.2,
    head_by: HeadBy = "items",
) -> RecsysEvaluation:
    """
    Accuracy and beyond-accuracy metrics of one or several models, in one frame.

    Parameters
    ----------
    reco
        Recommendations (``user, item`` and ``rank`` or ``score``): one table,
        one table with a ``model`` column, or a mapping ``{model: table}``.
    metrics
        Names: RecTools' (``"MAP@10"``, ``"NDCG@10(divide_by_achievable=true)"``,
        ``"MeanInvUserFreq@10"``, ...) and this package's (``"EPC@10"``,
        ``"Gini@10"``, ...), see :data:`~.names.METRICS`; any other name is the
        library's (``"nDCG@10"``, ``"P@10"``, ``"AP@10"``, ``"RR@10"``).
    interactions
        The test pairs ``user, item`` (accuracy, serendipity, coverage of users).
    train
        The training interactions (popularity, novelty, history).
    catalog
        The items that could be recommended, or their number.
    features, genres
        Item features (``IntraListDiversity``, ``RecommendersSerendipity``) and
        ``item, genre`` rows (``Miscalibration``).
    model
        The column that names the model when ``reco`` is one table.
    repeats : {'raise', 'first'}
        A (user, item) recommended twice: an error, or keep its best rank
        (``UnrepeatedReco`` still sees the repeats).
    head_share, head_by
        The short head / long tail split of ``APLT`` and ``ACLT``
        (:func:`~.frames.item_popularity`).

    Examples
    --------
    >>> from polars_rankmetrics import recsys
    >>> reco = pl.DataFrame(
    ...     {
    ...         "model": ["pop"] * 4 + ["knn"] * 4,
    ...         "user": [1, 1, 2, 2] * 2,
    ...         "item": ["a", "b", "a", "b", "c", "a", "b", "d"],
    ...         "rank": [1, 2] * 4,
    ...     }
    ... )
    >>> test = pl.DataFrame({"user": [1, 2], "item": ["c", "b"]})
    >>> train = pl.DataFrame({"user": [3, 3, 4, 5], "item": ["a", "b", "a", "c"]})
    >>> names = ["NDCG@2", "MeanInvUserFreq@2", "CatalogCoverage@2"]
    >>> result = recsys.evaluate(reco, interactions=test, train=train, metrics=names)
    >>> result.summary
    shape: (2, 4)
    ┌───────┬──────────┬───────────────────┬───────────────────┐
    │ model ┆ NDCG@2   ┆ MeanInvUserFreq@2 ┆ CatalogCoverage@2 │
    │ ---   ┆ ---      ┆ ---               ┆ ---               │
    │ str   ┆ f64      ┆ f64               ┆ f64               │
    ╞═══════╪══════════╪═══════════════════╪═══════════════════╡
    │ knn   ┆ 0.613147 ┆ 1.334963          ┆ 4.0               │
    │ pop   ┆ 0.193426 ┆ 1.084963          ┆ 2.0               │
    └───────┴──────────┴───────────────────┴───────────────────┘
    """
    if isinstance(metrics, str) or not metrics:
        msg = f"`metrics` must be a non-empty list of metric names, got {metrics!r}"
        raise ValueError(msg)
    if repeats not in ("raise", "first"):
        msg = f"`repeats` must be 'raise' or 'first', got {repeats!r}"
        raise ValueError(msg)
    given = {
        "interactions": interactions is not None,
        "train": train is not None,
        "catalog": catalog is not None,
        "features": features is not None,
        "genres": genres is not None,
    }
    request = _request(metrics, catalog, given)
    tables = _tables(
        reco,
        model=model,
        interactions=interactions,
        train=train,
        head_share=head_share,
        head_by=head_by,
        distinct_users=bool({"MeanInvUserFreq", "EPC"} & request.names),
    )
    plans: list[pl.LazyFrame] = []
    for name in tables.lists:
        plans += _model_plans(name, tables, request, repeats=repeats, model=model)
    collected = pl.collect_all(plans)
    per_users, catalog_rows = [], []
    for index, name in enumerate(tables.lists):
        values = _frame_values(
            name, collected[2 * index], tables, request, features=features, genres=genres
        )
        per_users.append(values.with_columns(pl.lit(name).alias(model)))
        catalog_rows.append(collected[2 * index + 1].with_columns(pl.lit(name).alias(model)))
    return _assemble(metrics, request, list(tables.lists), per_users, catalog_rows, model)


@dataclass(frozen=True)
class _Request:
    """What the metric names ask for: which frames are built, and the expressions over each."""

    specs: list[Spec]
    registry: list[str]
    by_frame: dict[str, list[pl.Expr]]
    """The per-user expressions, by the frame they read (:func:`_frame_of`)."""
    popular: set[str]
    """The frames whose metrics read the popularity columns (``"catalog"`` included)."""
    raising: list[Spec]
    """``PartialAUC``/``PAP`` with ``insufficient=raise``: a count per model to check."""
    catalog_exprs: list[tuple[str, int | None, pl.Expr | None, pl.Expr]]

    @property
    def names(self) -> set[str]:
        """The table names of the metrics asked for."""
        return {spec.name for spec in self.specs}

    def of_kind(self, kind: str) -> list[Spec]:
        """The metrics asked for of one :data:`~.names.METRICS` kind."""
        return [spec for spec in self.specs if METRICS[spec.name].kind == kind]


def _request(metrics: Sequence[str], catalog: Catalog | None, given: dict[str, bool]) -> _Request:
    """The planner: each name parsed, its inputs required, its expression built and placed."""
    specs, registry = [], []
    for label in metrics:
        spec = parse(label)
        if spec is None:
            registry.append(label)
        else:
            specs.append(spec)
    _require(specs, given)
    if registry and not given["interactions"]:
        msg = f"{registry[0]!r} needs `interactions`"
        raise ValueError(msg)
    by_frame: dict[str, list[pl.Expr]] = {"test": [], "list": [], "full": [], "raw": []}
    popular: set[str] = set()
    user_specs = [spec for spec in specs if METRICS[spec.name].kind == "user"]
    for spec in user_specs:
        by_frame[_frame_of(spec)].append(_user_expr(spec, catalog))
        if "train" in METRICS[spec.name].needs:
            popular.add(_frame_of(spec))
    if registry:
        from polars_rankmetrics.multi import metrics as library_metrics

        score = -pl.col(RANK).cast(pl.Float64)
        by_frame["full"].append(
            library_metrics(
                pl.col(RELEVANT).cast(pl.Int32),
                registry,
                by=[score, pl.col(ITEM)],
                descending=[True, False],
            ).alias("__registry")
        )
    raising = [
        spec
        for spec in user_specs
        if spec.name in ("PartialAUC", "PAP") and spec.options.get("insufficient") == "raise"
    ]
    by_frame["full"] += [
        auc_insufficient(spec.k or 1).fill_null(False).sum().alias(f"__insufficient{i}")
        for i, spec in enumerate(raising)
    ]
    catalog_specs = [spec for spec in specs if METRICS[spec.name].kind == "catalog"]
    if any("train" in METRICS[spec.name].needs for spec in catalog_specs):
        popular.add("catalog")
    catalog_exprs = [(spec.label, spec.k, *_catalog_expr(spec, catalog)) for spec in catalog_specs]
    return _Request(specs, registry, by_frame, popular, raising, catalog_exprs)


@dataclass(frozen=True)
class _Tables:
    """The inputs read once for every model, their ids of one type (:func:`~.frames.key_types`)."""

    lists: dict[str, pl.DataFrame]
    """Each model's ``user, item, rank``, in memory."""
    test: pl.LazyFrame | None
    """The distinct test pairs, in memory."""
    train: pl.LazyFrame | None
    popularity: pl.DataFrame | None
    totals: pl.DataFrame | None


def _tables(
    reco: object,
    *,
    model: str,
    interactions: object | None,
    train: object | None,
    head_share: float,
    head_by: HeadBy,
    distinct_users: bool,
) -> _Tables:
    """Every model's lists, the test pairs and the training statistics, read and checked."""
    lists = {  # each model's lists read once, into memory
        name: unflagged(recommendations(frame, f"reco[{name!r}]").collect())
        for name, frame in _models(reco, model).items()
    }
    sources: dict[str, pl.LazyFrame | pl.DataFrame] = {
        f"reco[{name!r}]": frame for name, frame in lists.items()
    }
    for name, frame in lists.items():
        refuse_null_ids(frame, f"reco[{name!r}]")
    pairs = None
    if interactions is not None:
        pairs = interactions_table(interactions, "interactions", unique=False).collect()
        refuse_null_ids(pairs, "interactions")
        sources["interactions"] = pairs
    train_frame = None
    if train is not None:
        train_frame = as_lazy(train, "train")
        sources["train"] = train_frame
    types = key_types(sources)
    lists = {name: cast_keys(frame, types) for name, frame in lists.items()}
    test = None if pairs is None else distinct_pairs(cast_keys(pairs, types)).lazy()
    popularity = totals = None
    if train_frame is not None:
        train_frame = cast_keys(train_frame, types)
        per_item, row = train_statistics(
            train_frame, head_share=head_share, head_by=head_by, distinct_users=distinct_users
        )
        popularity, totals = per_item.collect(), row.collect()
    return _Tables(lists, test, train_frame, popularity, totals)


def _with_popularity(frame: pl.LazyFrame, tables: _Tables) -> pl.LazyFrame:
    """``frame`` with each item's popularity columns and the training totals."""
    table, row = tables.popularity, tables.totals
    if table is None or row is None:
        return frame
    added = [column for column in table.columns if column != ITEM]
    gathered = popularity_gather(table, added, frame.collect_schema()[ITEM])
    if gathered is None:
        frame = frame.join(table.lazy(), on=ITEM, how="left")
    else:  # the same columns as the join, looked up by position
        frame = frame.with_columns(gathered)
    return frame.with_columns(
        pl.col(LONG_TAIL).fill_null(True),
        *(
            pl.lit(row[column].item(), dtype=row[column].dtype).alias(column)
            for column in row.columns
        ),
    )


def _model_plans(
    name: str, tables: _Tables, request: _Request, *, repeats: Repeats, model: str
) -> list[pl.LazyFrame]:
    """One model's two plans: its per-user values, and its catalogue row (empty without)."""
    by_frame = request.by_frame

    def joined(kind: str, frame: pl.LazyFrame) -> pl.LazyFrame:
        return _with_popularity(frame, tables) if kind in request.popular else frame

    in_memory = tables.lists[name]
    raw = ranked = in_memory.lazy()
    argument = f"reco[{name!r}]"
    check_reco(ranked, argument, repeats=False)
    if repeats == "first":
        in_memory = ranked.group_by(USER, ITEM).agg(pl.col(RANK).min()).collect()
        ranked = in_memory.lazy()
    test = tables.test
    pairs_index = None
    if repeats == "raise" or (test is not None and by_frame["test"]):
        pairs_index = ranked_pairs(in_memory)  # one sort: the repeat check and the test ranks
    if repeats == "raise" and (pairs_index is None or has_repeats(pairs_index)):
        check_reco(raw, argument)  # raises, naming the repeats, or checks without numpy
    listed = ranked.with_columns(pl.lit(False).alias(RELEVANT))
    sources = {
        "list": joined("list", listed),
        "full": joined("full", judged(ranked, test)),
        "raw": raw,
    }
    if test is not None:
        looked_up = None
        if pairs_index is not None and by_frame["test"]:
            looked_up = ranks_of(pairs_index, test.collect())
        matched = (
            test.join(ranked, on=[USER, ITEM], how="left")
            if looked_up is None
            else looked_up.lazy()
        )
        sources["test"] = joined("test", matched.with_columns(pl.lit(True).alias(RELEVANT)))
    parts = [sources[kind].group_by(USER).agg(exprs) for kind, exprs in by_frame.items() if exprs]
    per_user = parts[0] if parts else listed.select(USER).unique()
    for part in parts[1:]:
        per_user = per_user.join(part, on=USER, how="full", coalesce=True)
    if request.registry:
        per_user = per_user.unnest("__registry")
    catalog_frame = joined("catalog", listed)
    catalog_plan = (
        _catalog_plan(catalog_frame, request.catalog_exprs, in_memory)
        if request.catalog_exprs
        else pl.LazyFrame()
    )
    return [per_user.with_columns(pl.lit(name).alias(model)), catalog_plan]


def _frame_values(
    name: str,
    values_of_user: pl.DataFrame,
    tables: _Tables,
    request: _Request,
    *,
    features: object | None,
    genres: object | None,
) -> pl.DataFrame:
    """One model's per-user values: the insufficient-AUC checks, then the frame metrics joined."""
    for i, spec in enumerate(request.raising):
        count = values_of_user[f"__insufficient{i}"].sum()
        if count:
            msg = (
                f"{spec.label!r}: {count} users of model {name!r} have fewer than {spec.k} "
                "negatives recommended and a test item left out; use "
                "insufficient=exclude or insufficient=ignore"
            )
            raise ValueError(msg)
    values_of_user = values_of_user.drop(
        [f"__insufficient{i}" for i in range(len(request.raising))]
    )
    models = {model_name: frame.lazy() for model_name, frame in tables.lists.items()}
    for spec in request.of_kind("frame"):
        values = _frame_metric(
            spec, name, models[name], models, train=tables.train, features=features, genres=genres
        )
        values_of_user = values_of_user.join(values, on=USER, how="full", coalesce=True)
    return values_of_user


def _assemble(
    metrics: Sequence[str],
    request: _Request,
    names: list[str],
    per_users: list[pl.DataFrame],
    catalog_rows: list[pl.DataFrame],
    model: str,
) -> RecsysEvaluation:
    """``per_user`` and ``summary``, columns in the order asked; a row for every model."""
    catalog_labels = {spec.label for spec in request.of_kind("catalog")}
    user_columns = [label for label in metrics if label not in catalog_labels]
    expanded = [column for column in per_users[0].columns if column not in (USER, model)]
    ordered = [column for column in expanded if column in user_columns] + [
        column for column in expanded if column not in user_columns
    ]
    per_user_all = pl.concat(
        [frame.select(model, USER, *ordered) for frame in per_users], how="vertical_relaxed"
    ).sort(model, USER)
    means = per_user_all.group_by(model).agg(
        [pl.col(column).cast(pl.Float64).fill_nan(None).mean() for column in ordered]
    )
    # Every model keeps its row: a model without per-user rows has null means.
    summary = pl.DataFrame({model: names}, schema={model: pl.String}).join(
        means, on=model, how="left"
    )
    if request.catalog_exprs:
        catalog = pl.concat(catalog_rows, how="vertical_relaxed")
        summary = summary.join(catalog, on=model, how="left")
    columns = [label for label in metrics if label in summary.columns] + [
        column for column in summary.columns if column not in metrics and column != model
    ]
    return RecsysEvaluation(per_user_all, summary.select(model, *columns).sort(model))
