"""Checksums that tell personal numbers from lookalikes: Luhn (payment cards) and ISO 7064 MOD 11-2 (Chinese
resident ID numbers), and the birth date an ID number carries."""

from __future__ import annotations

import datetime

# ISO 7064 MOD 11-2 as GB 11643 writes it: weights 2^(17-i) mod 11 of the first 17 digits, and the check
# character for each remainder of the weighted sum mod 11
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def luhn_valid(digits: str) -> bool:
    """Whether a string of digits passes the Luhn check (every payment card number does)."""
    if not digits.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def id_check_char(first17: str) -> str:
    """The 18th character of a Chinese resident ID number whose first 17 digits are given."""
    return _ID_CHECK[sum(int(c) * w for c, w in zip(first17, _ID_WEIGHTS)) % 11]


def _real_date(year: int, month: int, day: int) -> bool:
    try:
        datetime.date(year, month, day)
    except ValueError:
        return False
    return True


def cn_id18_valid(number: str) -> bool:
    """An 18-character resident ID: 17 digits, a real birth date (1900 to 2099) at 7-14, the MOD 11-2 check."""
    if len(number) != 18 or not number[:17].isdigit():
        return False
    if not _real_date(int(number[6:10]), int(number[10:12]), int(number[12:14])):
        return False
    return id_check_char(number[:17]) == number[17].upper()


def cn_id15_valid(number: str) -> bool:
    """A 15-digit resident ID (issued before 1999): a region code and a real 19YY birth date; it has no check digit."""
    return (len(number) == 15 and number.isdigit() and number[0] != "0"
            and _real_date(1900 + int(number[6:8]), int(number[8:10]), int(number[10:12])))
