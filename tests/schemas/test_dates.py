"""schemas.dates: the dates of logged timestamps (the logs period of an entry)."""

from schemas.dates import iso_date, seen_date, widen


def test_iso_dates_of_logged_timestamps():
    assert iso_date("2026-03-04T10:00:00Z") == "2026-03-04"
    assert iso_date("2026-03-04 10:00") == "2026-03-04"
    assert iso_date('"2026-03-04 10:00:00"') == "2026-03-04"  # a Parquet timestamp read as JSON text
    assert iso_date("1772618400") == "2026-03-04"  # Unix seconds
    assert iso_date("1772618400000") == "2026-03-04"  # milliseconds
    assert iso_date("2026-13-40") == "" and iso_date("yesterday") == "" and iso_date(None) == ""


def test_seen_dates_and_periods():
    assert seen_date("2026-03-04T10:00:00Z\x1flogs.jsonl\x1f000000000001\x1f0000") == "2026-03-04"
    assert seen_date("\x1flogs.jsonl\x1f000000000001\x1f0000") == ""
    period = widen(("", ""), "2026-03-04")
    assert period == ("2026-03-04", "2026-03-04")
    assert widen(widen(period, "2026-01-02"), "") == ("2026-01-02", "2026-03-04")


def test_offsets_are_dated_in_utc_and_year_first_dates_are_read():
    from schemas.dates import iso_date

    assert iso_date("2024-03-01T23:30:00-05:00") == "2024-03-02"  # the same instant as epoch 1709353800
    assert iso_date("2024-03-01T23:30:00-05:00") == iso_date("1709353800")
    assert iso_date("2024-03-01T00:30:00+08:00") == "2024-02-29"
    assert iso_date("2024-03-01T23:30:00.5+0530") == "2024-03-01"
    assert iso_date("2024-03-01T23:30:00Z") == iso_date("2024-03-01 23:30") == "2024-03-01"
    assert iso_date("2024/03/01") == iso_date("2024/3/1 08:00") == iso_date("2024.3.1") == "2024-03-01"
    assert iso_date("2024年3月1日 上午") == "2024-03-01"
    # ambiguous day/month order, impossible dates: no date (never a guess)
    assert iso_date("03/01/2024") == iso_date("2024/13/01") == iso_date("2024-02-30") == ""
