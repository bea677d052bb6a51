"""Calendar dates of logged timestamps: the period of the logs an entry's answers came from.

Logs carry timestamps as ISO strings ("2024-03-01T08:00:00Z", "2024-03-01 08:00"), Parquet
timestamps (read as their text) or Unix epochs in seconds or milliseconds; anything else has no date.
"""

from __future__ import annotations

import datetime as _dt
import re

_ISO = re.compile(r'^\s*"?(\d{4})-(\d{2})-(\d{2})')
_EPOCH = re.compile(r"^\s*(\d{9,14})(?:\.\d+)?\s*$")
SEEN_SEPARATOR = "\x1f"  # AcceptedRow.seen: the logged timestamp, then file and position


def iso_date(stamp: str | None) -> str:
    """'YYYY-MM-DD' of a logged timestamp, or '' when it names no date."""
    if not stamp:
        return ""
    m = _ISO.match(stamp)
    if m:
        y, mo, d = (int(x) for x in m.groups())
        try:
            return _dt.date(y, mo, d).isoformat()
        except ValueError:
            return ""
    m = _EPOCH.match(stamp)
    if m:
        value = int(m.group(1))
        seconds = value / 1000 if value >= 10**11 else value  # milliseconds from 1973 on
        try:
            return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc).date().isoformat()
        except (OverflowError, OSError, ValueError):
            return ""
    return ""


def seen_date(seen: str) -> str:
    """The date of an AcceptedRow.seen string ('' when the row was logged without a timestamp)."""
    return iso_date(seen.split(SEEN_SEPARATOR, 1)[0])


def widen(period: tuple[str, str], date: str) -> tuple[str, str]:
    """(first, last) dates widened to include ``date`` ('' leaves it as it is; ('', '') is empty)."""
    if not date:
        return period
    first, last = period
    return (date if not first or date < first else first, date if not last or date > last else last)
