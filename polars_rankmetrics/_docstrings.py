"""The parameter descriptions that many functions share, written once.

In a numpy docstring's Parameters section, an entry that names parameters and
gives no description (``k`` alone on its line, or ``by, descending, threshold,
ties``) takes each name's entry from :data:`PARAMETERS`: its type line (where
the table gives one) and its description. :func:`fill_parameters` does it, for
``help()`` when :mod:`polars_rankmetrics.metrics` is imported, and for the
documentation site in its griffe extension (``docs/_ext/sphinx_roles.py``), so
the source, the terminal and the site read the same text. An entry with its own
description is left as written (a parameter whose meaning differs says so there).
"""

from __future__ import annotations

import re

PARAMETERS: dict[str, tuple[str, str]] = {
    "relevance": (
        "relevance",
        "Relevance labels: bool, int or float. A label above ``threshold`` is\n"
        "relevant; null means unjudged and is not relevant.",
    ),
    "k": ("k", "The cutoff, a positive int."),
    "by": (
        "by",
        "The score to rank by, highest first; or a list whose later entries break\n"
        "ties, as in ``sort_by``. Rows with a null or NaN score are not retrieved.\n"
        "``None`` means the rows are already in rank order (see the quick start:\n"
        "without ``by=`` nothing is sorted).",
    ),
    "descending": (
        "descending",
        "Sort direction, one bool or one per ``by`` entry. Equal scores keep\n"
        "their input order unless ``ties`` says otherwise.",
    ),
    "threshold": (
        "threshold",
        "Labels above this value are relevant; the default 0 matches trec_eval.",
    ),
    "ties": (
        "ties : {'stable', 'optimistic', 'pessimistic', 'average'}",
        "How rows with equal scores (the first ``by`` entry) are ordered.\n"
        "``'stable'`` (default) keeps input order, or follows the later ``by``\n"
        "entries. ``'optimistic'`` puts higher labels (relevant rows) first,\n"
        "``'pessimistic'`` lower labels first; the later ``by`` entries then only\n"
        "order rows of equal label. ``'average'`` is the exact expected value\n"
        "over every ordering of each group of tied rows (McSherry and Najork,\n"
        "ECIR 2008), so the later ``by`` entries do not matter. Modes other than\n"
        "``'stable'`` need ``by``. With distinct scores every mode gives the same\n"
        "value; otherwise ``optimistic >= average >= pessimistic``.",
    ),
    "no_relevant": (
        "no_relevant : {'null', 'zero'}",
        "The value for a query with no relevant row, where the metric is\n"
        "undefined: null (default; ``mean`` skips it), or 0 as trec_eval, ranx and\n"
        "torchmetrics give (torchmetrics' ``empty_target_action='neg'``).",
    ),
}
"""Each shared parameter's entry: its name line (with the type, where one is spelled
out) and its description, unindented."""

_SECTION = re.compile(r"(?P<indent>[ ]*)(?:Parameters|Other Parameters)\n(?P=indent)-{3,}\n")
_ENTRY = re.compile(r"[a-z_]\w*(?:, [a-z_]\w*)*")


def fill_parameters(docstring: str) -> str:
    """``docstring`` with each description-less entry of :data:`PARAMETERS` written out.

    Works on a raw ``__doc__`` (indented) and on a dedented docstring alike.
    Raises ``KeyError`` for a description-less entry naming a parameter the table
    does not have, so that a docstring cannot lose a description silently.
    """
    match = _SECTION.search(docstring)
    if match is None:
        return docstring
    indent = match.group("indent")
    start = match.end()
    section_end = docstring.find("\n\n", start)
    section_end = len(docstring) if section_end < 0 else section_end
    lines = docstring[start:section_end].split("\n")
    out: list[str] = []
    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        described = following.startswith(indent + " ")
        entry = line[len(indent) :]
        if described or not line.startswith(indent) or not _ENTRY.fullmatch(entry):
            out.append(line)
            continue
        for name in entry.split(", "):
            header, description = PARAMETERS[name]
            out.append(indent + header)
            out += [f"{indent}    {text}" for text in description.split("\n")]
    return docstring[:start] + "\n".join(out) + docstring[section_end:]
