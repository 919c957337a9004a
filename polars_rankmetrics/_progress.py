"""Progress bars on standard error, for every step that can take more than a second.

One small API for the whole package (the command line, :func:`evaluate_parquet`,
and the families that run long loops):

- :func:`progress` shows a bar of ``total`` items (queries, runs, passes,
  tests): the items done, the total, the time spent and the time left;
- :func:`status` names a step whose size is unknown (reading a file): a spinner
  and the time spent. Both yield a :class:`Progress`, whose :meth:`~Progress.step`
  starts the next step (with or without a total) and :meth:`~Progress.advance`
  counts items done.

The bar goes to standard error only, and only when it is a terminal (``show=None``,
the default; ``True`` forces it on, ``False`` off, as ``--quiet`` does), after
``delay`` seconds of work (:data:`DELAY`), so quick work prints nothing. It is
transient (erased when the work ends), and silent when rich (a dependency of the
``stats`` and ``plot`` extras) is not installed. Updating it is a lock and an int,
cheap enough to call once per query.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

DELAY = 1.0
"""Seconds of work before the progress bar appears."""


class Progress:
    """One bar: a step's description, the items done and, if known, their total.

    Calls are thread-safe and cheap; before the bar appears (and when it never
    does) they only record the state the bar will show.
    """

    def __init__(self, stream: TextIO, description: str, total: int | None = None) -> None:
        self.stream = stream
        self.description = description
        self.total = total
        self.completed = 0
        self.lock = threading.Lock()
        self.bar: Any = None
        self.task: Any = None
        self.closed = False

    def _text(self) -> str:
        return f"rankmetrics: {self.description}"

    def start(self) -> None:
        """Draw the bar (called by the timer after the delay)."""
        try:
            from rich import progress as bars
            from rich.console import Console
        except ImportError:  # pragma: no cover - depends on the environment
            return
        with self.lock:
            if self.closed:
                return
            self.bar = bars.Progress(
                bars.SpinnerColumn(),
                bars.TextColumn("{task.description}"),
                *_counted(bars, bars.BarColumn(), bars.MofNCompleteColumn(), bars.TextColumn("·")),
                bars.TimeElapsedColumn(),
                *_counted(bars, bars.TextColumn("· left"), bars.TimeRemainingColumn()),
                console=Console(file=self.stream, stderr=True, force_terminal=True),
                transient=True,
            )
            self.task = self.bar.add_task(self._text(), total=self.total, completed=self.completed)
            self.bar.start()

    def step(self, description: str, total: int | None = None) -> None:
        """Start the next step: a new description, and a new count of ``total`` items."""
        with self.lock:
            self.description, self.total, self.completed = description, total, 0
            if self.bar is not None:  # a new task: rich's reset keeps the old total for None
                self.bar.remove_task(self.task)
                self.task = self.bar.add_task(self._text(), total=total)

    def advance(self, items: int = 1) -> None:
        """Count ``items`` more done."""
        with self.lock:
            self.completed += items
            if self.bar is not None:
                self.bar.update(self.task, completed=self.completed)

    def __call__(self, items: int = 1) -> None:
        """Count ``items`` more done (``with progress(...) as advance: advance()``)."""
        self.advance(items)

    def stop(self) -> None:
        """Erase the bar; a timer that fires later draws nothing."""
        with self.lock:
            self.closed = True
            if self.bar is not None:
                self.bar.stop()
                self.bar = None


def _counted(bars: Any, *columns: Any) -> list[Any]:
    """``columns`` drawn only for a step with a total (no '0/?' or '-:--:--' otherwise)."""

    class Counted(bars.ProgressColumn):  # type: ignore[misc]
        def __init__(self, column: Any) -> None:
            super().__init__()
            self.column = column

        def render(self, task: Any) -> Any:
            return self.column.render(task) if task.total is not None else ""

    return [Counted(column) for column in columns]


def shown(stream: TextIO, show: bool | None) -> bool:
    """Whether a bar is drawn on ``stream``: ``show``, or whether it is a terminal."""
    if show is not None:
        return show
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream
        return False


@contextmanager
def progress(
    description: str,
    total: int | None = None,
    *,
    stream: TextIO | None = None,
    delay: float | None = None,
    show: bool | None = None,
) -> Iterator[Progress]:
    """A bar of ``total`` items on ``stream`` (stderr), if the work lasts ``delay`` seconds.

    Yields a :class:`Progress`: ``advance()`` counts an item done, ``step(...)``
    starts another step. ``total=None`` is a step of unknown size (a spinner).
    ``show`` forces the bar on or off; by default it is drawn only when the
    stream is a terminal. ``delay`` defaults to :data:`DELAY`; 0 draws at once.

    Examples
    --------
    >>> import io
    >>> from polars_rankmetrics._progress import progress
    >>> with progress("Evaluating runs", 3, stream=io.StringIO()) as bar:
    ...     for run in ["bm25", "dense", "hybrid"]:
    ...         bar.advance()  # not a terminal: nothing is drawn
    """
    target = sys.stderr if stream is None else stream
    bar = Progress(target, description, total)
    if not shown(target, show):
        yield bar
        return
    wait = DELAY if delay is None else delay
    timer = threading.Timer(wait, bar.start)
    timer.daemon = True
    if wait <= 0:
        bar.start()
    else:
        timer.start()
    try:
        yield bar
    finally:
        timer.cancel()
        bar.stop()


@contextmanager
def status(
    description: str,
    *,
    stream: TextIO | None = None,
    delay: float | None = None,
    show: bool | None = None,
) -> Iterator[Callable[[str], None]]:
    """A step of unknown size: yields a function that names the next step.

    A shorthand for :func:`progress` with no total, for the callers that only
    name their steps (``rankmetrics trec-eval`` while it reads its files).
    """
    with progress(description, stream=stream, delay=delay, show=show) as bar:
        yield bar.step
