"""Retries with exponential backoff for calls to an LLM endpoint that fail for a passing reason.

A busy server answers 429 or 503, a loaded one times out, a restarting one refuses connections: each of
these usually passes within seconds, and without a retry one of them sends a whole batch of groups to the
fallback aggregator. :func:`with_retries` tries again after ``base * 2**n`` seconds (n = 0, 1, ...; capped,
with jitter so that many workers do not knock at once), or after the server's ``Retry-After``, within a
number of attempts and a total time; a failure that will not pass (400, 401, 404, a reply that is no JSON)
is never retried. Retries only change when an answer comes, never which answer: no identity depends on them.

Why not tenacity: a plain install does not have it (only Airflow's extra brings it), and the one rule that matters
here, no retry whose wait would pass the budget (the server's ``Retry-After`` included), needs the wait known before
the decision to stop, which tenacity's separate stop and wait callbacks do not share.
"""

from __future__ import annotations

import email.utils
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from schemas.config import AggregationConfig

log = logging.getLogger(__name__)
T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 429})  # and every 5xx


def retryable_status(code: int) -> bool:
    """429 Too Many Requests, 408 Request Timeout and server errors pass; other 4xx are the request's fault."""
    return code in RETRYABLE_STATUS or 500 <= code <= 599


class TransientError(Exception):
    """A failure worth another attempt: ``reason`` as in the fallback flag, ``retry_after`` the server's wish (s)."""

    def __init__(self, reason: str, retry_after: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delay-seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class RetryPolicy:
    """``attempts`` tries in all (1: no retry); no retry starts once waiting for it would pass ``max_seconds``
    since the first attempt began; the n-th wait is ``base_seconds * 2**n`` (at most ``cap_seconds``), drawn
    from its upper half (jitter), or the server's ``Retry-After`` when it sends one."""

    attempts: int = AggregationConfig.llm_attempts
    max_seconds: float = AggregationConfig.llm_retry_max_seconds
    base_seconds: float = 1.0
    cap_seconds: float = 30.0

    def backoff(self, retry: int, rng: Callable[[], float] = random.random) -> float:
        full = min(self.cap_seconds, self.base_seconds * 2 ** retry)
        return full * (0.5 + 0.5 * rng())


class RetriesExhausted(Exception):
    """The last transient failure, after ``attempts`` tries over ``seconds``."""

    def __init__(self, last: TransientError, attempts: int, seconds: float):
        super().__init__(f"{last.reason} after {attempts} attempt{'s' * (attempts != 1)} in {seconds:.1f} s")
        self.last = last
        self.attempts = attempts
        self.seconds = seconds


def with_retries(call: Callable[[], T], policy: RetryPolicy, what: str, *,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
                 rng: Callable[[], float] = random.random) -> T:
    """``call()``, tried again while it raises :class:`TransientError` and the policy allows; any other error
    passes through at once. Each retry is logged at INFO with its reason; the end of the budget raises
    :class:`RetriesExhausted`."""
    start = clock()
    attempt = 1
    while True:
        try:
            return call()
        except TransientError as exc:
            elapsed = clock() - start
            if attempt >= policy.attempts:
                raise RetriesExhausted(exc, attempt, elapsed) from None
            delay = exc.retry_after if exc.retry_after is not None else policy.backoff(attempt - 1, rng)
            if elapsed + delay > policy.max_seconds:
                log.info("%s: %s; no retry: waiting %.1f s would pass the %.0f s retry budget",
                         what, exc.reason, delay, policy.max_seconds)
                raise RetriesExhausted(exc, attempt, elapsed) from None
            log.info("%s: %s; retry %d of %d in %.1f s%s", what, exc.reason, attempt, policy.attempts - 1, delay,
                     " (Retry-After)" if exc.retry_after is not None else "")
            sleep(delay)
            attempt += 1
