"""Checks of public-function arguments: a wrong type is an ArgumentTypeError (a TypeError), a value
out of range a ParameterError (a ValueError), both naming the argument. Python's own conversions
(int(1.5) == 1, bool as int) would change values silently."""

import numbers
import os

from .errors import argument_error


def integer(value, name, lo=None, hi=None):
    """`value` as an int: an int or numpy integer (not a bool, not a float, even 2.0), in [lo, hi]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise argument_error(name, value, _range_text("an integer", lo, hi), type_error=True)
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise argument_error(name, value, _range_text("an integer", lo, hi))
    return v


def number(value, name, lo=None, hi=None):
    """`value` as a finite float (int, float or numpy real; not a bool), in [lo, hi]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise argument_error(name, value, _range_text("a number", lo, hi), type_error=True)
    v = float(value)
    if v != v or v in (float("inf"), float("-inf")) or (lo is not None and v < lo) or (hi is not None and v > hi):
        raise argument_error(name, value, _range_text("a finite number", lo, hi))
    return v


def flag(value, name):
    """`value` as a bool (True/False or a numpy bool only)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise argument_error(name, value, "True or False", type_error=True)


def path(value, name):
    """`value` as a str path (str or os.PathLike, not empty, no NUL)."""
    if not isinstance(value, (str, os.PathLike)):
        raise argument_error(name, value, "a path (str or os.PathLike)", type_error=True)
    p = os.fspath(value)
    if not isinstance(p, str):
        raise argument_error(name, value, "a str path", type_error=True)
    if not p or "\0" in p:
        raise argument_error(name, value, "a non-empty path without NUL characters")
    return p


def choice(value, name, choices):
    if not isinstance(value, str) or value not in choices:
        raise argument_error(name, value, "one of " + ", ".join(repr(c) for c in choices),
                             type_error=not isinstance(value, str))
    return value


def _range_text(what, lo, hi):
    if lo is not None and hi is not None:
        return f"{what} from {lo} to {hi}"
    if lo is not None:
        return f"{what} >= {lo}"
    if hi is not None:
        return f"{what} <= {hi}"
    return what
