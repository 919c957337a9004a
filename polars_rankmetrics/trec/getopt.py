"""GNU ``getopt_long``, as trec_eval parses its command line.

trec_eval reads its options with glibc's ``getopt_long``: options and operands
may be interleaved (``qrels run -q`` works), ``--`` ends the options, short
flags combine (``-qc``), a short option's argument may be attached (``-l2``,
``-mmap``) or be the next word, and a long option may be abbreviated to any
unambiguous prefix and take ``--name=value`` or ``--name value``. Options are
yielded one at a time, in order, so that their effects (and errors) happen in
command-line order, as in trec_eval.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass


class GetoptError(Exception):
    """A word of the command line that ``getopt_long`` refuses, with glibc's message."""


@dataclass(frozen=True)
class LongOption:
    """A long option: its name, whether it takes an argument, and its short letter."""

    name: str
    argument: bool
    letter: str


@dataclass
class Parsed:
    """The operands, filled in as :func:`getopt_long` goes."""

    operands: list[str]


def _long(
    word: str, rest: list[str], options: Sequence[LongOption]
) -> tuple[LongOption, str | None]:
    """Resolve ``--name[=value]`` (an unambiguous prefix will do) and its argument."""
    body = word[2:]
    name, equals, value = body.partition("=")
    exact = [option for option in options if option.name == name]
    matches = exact or [option for option in options if option.name.startswith(name)]
    if not matches:
        msg = f"unrecognized option '--{name}'"
        raise GetoptError(msg)
    if len(matches) > 1:
        names = " ".join(f"'--{option.name}'" for option in matches)
        msg = f"option '--{name}' is ambiguous; possibilities: {names}"
        raise GetoptError(msg)
    option = matches[0]
    if not option.argument:
        if equals:
            msg = f"option '--{option.name}' doesn't allow an argument"
            raise GetoptError(msg)
        return option, None
    if equals:
        return option, value
    if not rest:
        msg = f"option '--{option.name}' requires an argument"
        raise GetoptError(msg)
    return option, rest.pop(0)


def getopt_long(
    argv: Sequence[str],
    short: str,
    options: Sequence[LongOption],
    parsed: Parsed,
) -> Iterator[tuple[str, str | None]]:
    """Yield ``(letter, argument)`` for each option of ``argv`` in order.

    ``short`` is getopt's option string (``"hvqm:c"``: a letter followed by
    ``:`` takes an argument). Operands are appended to ``parsed.operands``.
    Raises :class:`GetoptError` at the first word getopt refuses.
    """
    takes = {letter: short[i + 1 : i + 2] == ":" for i, letter in enumerate(short) if letter != ":"}
    rest = list(argv)
    while rest:
        word = rest.pop(0)
        if word == "--":
            parsed.operands.extend(rest)
            return
        if word.startswith("--"):
            option, value = _long(word, rest, options)
            yield option.letter, value
            continue
        if not word.startswith("-") or word == "-":
            parsed.operands.append(word)
            continue
        position = 1
        while position < len(word):
            letter = word[position]
            position += 1
            if letter not in takes:
                msg = f"invalid option -- '{letter}'"
                raise GetoptError(msg)
            if not takes[letter]:
                yield letter, None
                continue
            if position < len(word):
                yield letter, word[position:]
            elif rest:
                yield letter, rest.pop(0)
            else:
                msg = f"option requires an argument -- '{letter}'"
                raise GetoptError(msg)
            break
