"""Calendar dates of logged timestamps: the period of the logs an entry's answers came from.

Logs carry timestamps as ISO strings ("2024-03-01T08:00:00Z", "2024-03-01 08:00"), Parquet
timestamps (read as their text), year-first dates with slashes or dots ("2024/03/01 08:00", "2024.3.1"),
Chinese dates ("2024年3月1日") or Unix epochs in seconds or milliseconds. A timestamp with a UTC offset
("2024-03-01T23:30:00-05:00") is dated in UTC (2024-03-02), as epochs are, so one event has one date
whatever zone logged it; one without an offset keeps its own calendar date. Day-first or month-first
dates ("03/01/2024") are ambiguous and have no date, as has anything else.
"""

from __future__ import annotations

import datetime as _dt
import re

_ISO = re.compile(r'^\s*"?(\d{4})-(\d{2})-(\d{2})')
# the time of day and the offset after an ISO date: "T08:00", " 08:00:00.123", then "Z", "+08:00", "-0500"
_ISO_OFFSET = re.compile(r'^[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})\s*"?\s*$', re.I)
_YEAR_FIRST = re.compile(r'^\s*"?(\d{4})\s*(?:[/.]|年)\s*(\d{1,2})\s*(?:[/.]|月)\s*(\d{1,2})(?!\d)')
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
            day = _dt.date(y, mo, d)
        except ValueError:
            return ""
        tail = _ISO_OFFSET.match(stamp[m.end():])
        if tail and tail.group(4).upper() != "Z":
            hh, mm, ss, off = tail.groups()
            sign = -1 if off[0] == "-" else 1
            digits = off[1:].replace(":", "")
            offset = _dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
            if offset < _dt.timedelta(hours=15) and int(hh) < 24 and int(mm) < 60:
                local = _dt.datetime(y, mo, d, int(hh), int(mm), int(ss or 0))
                return (local - sign * offset).date().isoformat()
        return day.isoformat()
    m = _YEAR_FIRST.match(stamp)
    if m:
        try:
            return _dt.date(*(int(x) for x in m.groups())).isoformat()
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


def period_value(period: tuple[str, str]) -> dict | None:
    """qa.parquet's ``logs_period`` of (first, last) ISO dates: ``{first, last}`` as calendar dates (Arrow
    date32: a date carries no zone; :func:`iso_date` already settled it, UTC for stamps with an offset), or
    None when the rows carried no date."""
    first, last = period
    if not first:
        return None
    return {"first": _dt.date.fromisoformat(first), "last": _dt.date.fromisoformat(last or first)}


def period_text(period: dict | None) -> dict | None:
    """A ``logs_period`` as ISO date strings, whichever format wrote it (dates since base format 3, strings
    before): what the services return and :func:`as_of_note` reads."""
    if not period or not period.get("first"):
        return None
    return {k: v.isoformat() if isinstance(v, _dt.date) else v for k, v in period.items()}


def as_of_note(time_sensitive: bool, period: dict | None) -> str:
    """What a served time-sensitive answer says about when it was true: the period of the logs it came from
    ("time-sensitive: as of logs from 2026-10-01 to 2026-11-20"); "" for an answer that does not go stale. One
    wording for every place an entry is served (AnswerRetriever, so ``qabase query``, HTTP and MCP; the browse
    page)."""
    if not time_sensitive:
        return ""
    period = period_text(period)
    if not period:
        return "time-sensitive: may be out of date (the logs carry no dates)"
    first, last = period["first"], period.get("last") or period["first"]
    return (f"time-sensitive: as of logs of {first}" if first == last
            else f"time-sensitive: as of logs from {first} to {last}")
