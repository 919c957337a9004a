"""MkDocs hook: the formulas of the pages rendered as MathML when the site is built.

``pymdownx.arithmatex`` (generic mode, ``$...$`` and ``$$...$$`` only) wraps each
formula in ``<span class="arithmatex">`` or ``<div class="arithmatex">``; this hook
replaces each with the MathML that ``latex2mathml`` makes of it. Browsers draw
MathML natively, so the site needs no script, font or network access for its
formulas, and the build works offline. A formula latex2mathml cannot read fails
the build, naming the page and the formula.
"""

from __future__ import annotations

import html
import re
from typing import Any

FORMULA = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
"""A formula as arithmatex (generic) writes it: ``\\(...\\)`` inline, ``\\[...\\]`` display."""


def mathml(latex: str, *, display: bool) -> str:
    """``latex`` as a MathML ``<math>`` element, inline or as a block."""
    try:
        from latex2mathml.converter import convert
    except ImportError as error:
        msg = 'the formulas need latex2mathml: pip install -e ".[docs]" (or latex2mathml)'
        raise ImportError(msg) from error
    return str(convert(latex, display="block" if display else "inline"))


def render(page_html: str, where: str = "") -> str:
    """Every arithmatex formula of ``page_html`` replaced by its MathML."""

    def replace(match: re.Match[str]) -> str:
        tag, wrapped = match.groups()
        latex = html.unescape(wrapped).strip()[2:-2].strip()  # \( \) or \[ \]
        try:
            rendered = mathml(latex, display=tag == "div")
        except Exception as error:  # the converter's own errors have no common base
            msg = f"{where}: cannot render the formula {latex!r}: {error}"
            raise ValueError(msg) from error
        if "\\" in rendered:  # a command the converter left as text
            msg = f"{where}: the formula {latex!r} keeps LaTeX in its MathML: {rendered}"
            raise ValueError(msg)
        return rendered

    return FORMULA.sub(replace, page_html)


def on_page_content(page_html: str, page: Any, config: Any, files: Any) -> str:
    """Render the page's formulas (its Markdown and the docstrings it shows)."""
    return render(page_html, page.file.src_uri)
