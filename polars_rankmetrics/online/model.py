"""A fitted click model: its name and its parameters as frames.

:class:`ClickModel` is the record :func:`~polars_rankmetrics.online.fit` returns
and the other functions of :mod:`polars_rankmetrics.online` read. It can also be
built by hand, to simulate clicks from known parameters. :func:`attach` joins a
model's parameters to the rows of a log or of rankings by their keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, get_args

import polars as pl

from polars_rankmetrics.online.log import DOCUMENT, QUERY, RANK, LogColumns

ModelName: TypeAlias = Literal["pbm", "cm", "dcm", "ubm", "dbn", "sdbn"]
"""The click models, by the book's abbreviations (Chuklin, Markov and de Rijke 2015)."""

MODELS: tuple[ModelName, ...] = get_args(ModelName)

ATTRACTIVENESS = "attractiveness"
EXAMINATION = "examination"
SATISFACTION = "satisfaction"
CONTINUATION = "continuation"
PREVIOUS_CLICK = "previous_click"

REQUIRED: dict[ModelName, tuple[str, ...]] = {
    "pbm": (ATTRACTIVENESS, EXAMINATION),
    "cm": (ATTRACTIVENESS,),
    "dcm": (ATTRACTIVENESS, CONTINUATION),
    "ubm": (ATTRACTIVENESS, EXAMINATION),
    "dbn": (ATTRACTIVENESS, SATISFACTION, CONTINUATION),
    "sdbn": (ATTRACTIVENESS, SATISFACTION),
}
"""The parameters each model has."""

KEYS: dict[tuple[ModelName, str], tuple[str, ...]] = {
    ("pbm", EXAMINATION): (RANK,),
    ("ubm", EXAMINATION): (RANK, PREVIOUS_CLICK),
    ("dcm", CONTINUATION): (RANK,),
}
"""The key columns of the parameter frames that are not per query and document."""


@dataclass(frozen=True)
class ClickModel:
    """
    A click model's parameters, as frames keyed like the log.

    Attributes
    ----------
    model : {'pbm', 'cm', 'dcm', 'ubm', 'dbn', 'sdbn'}
        Which model: the position-based model, the cascade model, the dependent
        click model, the user browsing model, the dynamic Bayesian network and
        its simplified version (Chuklin, Markov and de Rijke 2015, chapter 3).
    attractiveness
        ``query, document, attractiveness``: the probability that a user who
        examines the document clicks it (every model).
    examination
        PBM: ``rank, examination``, the probability that rank ``r`` is examined;
        UBM: ``rank, previous_click, examination``, the probability that rank
        ``r`` is examined when the last click above it was at ``previous_click``
        (0: no click above). None for the other models.
    satisfaction
        DBN and SDBN: ``query, document, satisfaction``, the probability that a
        user who clicks the document is satisfied and stops. None otherwise.
    continuation
        DCM: ``rank, continuation``, the probability that a user goes on after a
        click at rank ``r`` (the book's lambda_r); DBN: the probability (a float)
        that a user who is not satisfied goes on to the next rank (gamma). None
        for the other models.
    iterations
        The EM iterations run (0 for the models estimated in closed form: CM,
        DCM, SDBN).
    default
        The parameter value for a document, rank or pair the frames do not hold
        (an unseen query-document pair): the prior's mean.
    columns
        The log's column names, which the parameter frames use too.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rankmetrics.online import ClickModel
    >>> model = ClickModel(
    ...     "dbn",
    ...     attractiveness=pl.DataFrame(
    ...         {"query": ["q"], "document": ["a"], "attractiveness": [0.8]}
    ...     ),
    ...     satisfaction=pl.DataFrame({"query": ["q"], "document": ["a"], "satisfaction": [0.6]}),
    ...     continuation=0.9,
    ... )
    >>> model.model, model.continuation
    ('dbn', 0.9)
    """

    model: ModelName
    attractiveness: pl.DataFrame
    examination: pl.DataFrame | None = None
    satisfaction: pl.DataFrame | None = None
    continuation: pl.DataFrame | float | None = None
    iterations: int = 0
    default: float = 0.5
    columns: LogColumns = field(default_factory=LogColumns)

    def __post_init__(self) -> None:
        """Check that the model has its parameters, and only those, with valid values."""
        if self.model not in MODELS:
            msg = f"`model` must be one of {list(MODELS)}, got {self.model!r}"
            raise ValueError(msg)
        if not (isinstance(self.default, float | int) and 0.0 <= self.default <= 1.0):
            msg = f"`default` must be a probability in [0, 1], got {self.default!r}"
            raise ValueError(msg)
        needed = REQUIRED[self.model]
        for name in (ATTRACTIVENESS, EXAMINATION, SATISFACTION, CONTINUATION):
            if (getattr(self, name) is None) == (name in needed):
                state = "needs" if name in needed else "has no"
                msg = f"the {self.model.upper()} model {state} `{name}`"
                raise ValueError(msg)
        for name in needed:
            value = getattr(self, name)
            if isinstance(value, float | int) and not isinstance(value, bool):
                if not (self.model == "dbn" and name == CONTINUATION and 0.0 <= value <= 1.0):
                    msg = f"`{name}` must be a frame (or, for DBN, a probability), got {value!r}"
                    raise ValueError(msg)
            else:
                self._check_frame(name, value)

    def _check_frame(self, name: str, frame: object) -> None:
        if not isinstance(frame, pl.DataFrame):
            msg = f"`{name}` must be a polars DataFrame, got {type(frame).__name__}"
            raise ValueError(msg)
        keys = self.keys(name)
        missing = [column for column in (*keys, name) if column not in frame.columns]
        if missing:
            msg = f"`{name}` needs the columns {[*keys, name]}, it lacks {missing}"
            raise ValueError(msg)
        values = frame.get_column(name)
        if values.null_count() or not bool(values.is_between(0.0, 1.0).all()):
            msg = f"column {name!r} of `{name}` must hold probabilities in [0, 1]"
            raise ValueError(msg)

    def keys(self, name: str) -> tuple[str, ...]:
        """The key columns of parameter ``name``, with the log's names."""
        inside = KEYS.get((self.model, name), (QUERY, DOCUMENT))
        outside = self.columns.to_outside()
        return tuple(outside.get(key, key) for key in inside)

    def __repr__(self) -> str:
        """The model's name and the size of each parameter frame."""
        parts = [f"model={self.model!r}"]
        for name in REQUIRED[self.model]:
            value = getattr(self, name)
            parts.append(
                f"{name}={value!r}"
                if not isinstance(value, pl.DataFrame)
                else f"{name}=<{value.height} rows>"
            )
        if self.iterations:
            parts.append(f"iterations={self.iterations}")
        return f"ClickModel({', '.join(parts)})"


def check_prior(prior: object) -> tuple[float, float]:
    """``(clicks, views)`` pseudo-counts with ``0 < clicks < views``, finite."""
    if (
        isinstance(prior, tuple | list)
        and len(prior) == 2
        and all(isinstance(value, int | float) and not isinstance(value, bool) for value in prior)
        and all(math.isfinite(value) for value in prior)
        and 0 < prior[0] < prior[1]
    ):
        return float(prior[0]), float(prior[1])
    msg = f"`prior` must be two numbers (clicks, views) with 0 < clicks < views, got {prior!r}"
    raise ValueError(msg)


def attach(frame: pl.LazyFrame, model: ClickModel) -> pl.LazyFrame:
    """``frame`` (names used inside) with the model's parameters per row, unseen ones the default.

    Adds ``attractiveness`` and, as the model has them, ``satisfaction``,
    ``examination`` (PBM; UBM's needs the previous click and is joined where it
    is read), and ``continuation`` (DCM per rank; DBN's gamma as a literal).
    Keeps the row order.
    """
    inside = model.columns.to_inside()
    default = pl.lit(model.default, pl.Float64)

    def joined(lazy: pl.LazyFrame, name: str) -> pl.LazyFrame:
        table = getattr(model, name)
        keys = [inside.get(key, key) for key in model.keys(name)]
        right = (
            table.lazy()
            .rename({key: inside[key] for key in model.keys(name) if key in inside})
            .select(*keys, pl.col(name).cast(pl.Float64))
            .unique(subset=keys, keep="first")
        )
        casts = [pl.col(key).cast(lazy.collect_schema()[key]) for key in keys]
        right = right.with_columns(casts)
        return lazy.join(right, on=keys, how="left", maintain_order="left").with_columns(
            pl.col(name).fill_null(default)
        )

    lazy = joined(frame, ATTRACTIVENESS)
    if model.satisfaction is not None:
        lazy = joined(lazy, SATISFACTION)
    if model.model == "pbm":
        lazy = joined(lazy, EXAMINATION)
    if model.model == "dcm":
        lazy = joined(lazy, CONTINUATION)
    if model.model == "dbn":
        lazy = lazy.with_columns(pl.lit(float(model.continuation), pl.Float64).alias(CONTINUATION))  # type: ignore[arg-type]
    return lazy
