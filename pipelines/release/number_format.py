"""How the report pages write a number: one way everywhere, so a reader never meets ``0.037354`` beside ``0.0``
or ``2981`` beside ``2,981``.

Whole numbers with thousands separators (``2,981``), fractions with three decimals (``0.037``, ``0.000``), shares
as percentages with one decimal (``4.5%``), durations in seconds or minutes and seconds. The report's templates
use these as filters (pipelines.release.report); text built in Python calls them directly.
"""

from __future__ import annotations

MISSING = "–"


def number(value) -> str:
    """``value`` as the pages write it: ints ``2,981``, floats ``0.037``, booleans yes/no, None a dash; any
    other value (a text) unchanged."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.3f}"
    return str(value)


def percent(part, whole=None) -> str:
    """``part`` of ``whole`` (or ``part`` alone, a share) as ``4.5%``; a dash when ``whole`` is zero."""
    if part is None or whole == 0:
        return MISSING
    return f"{(part / whole if whole is not None else part):.1%}"


def duration(seconds) -> str:
    """``42 s`` under a minute, ``2 min 05 s`` from there."""
    if seconds is None:
        return MISSING
    s = round(float(seconds))
    return f"{s} s" if s < 60 else f"{s // 60:,} min {s % 60:02d} s"
