"""How ``qabase build`` and ``qabase daily`` end: one ``error:`` line and the exit code of what went wrong.

The codes (schemas.errors.EXIT_CODES, printed by ``--help``): 0 built or nothing new, 1 an unexpected failure,
2 a usage / config / input error, 3 the quality gate refused the version, 4 another build holds the base,
130 interrupted. A :class:`QabaseError` carries its own code (``exit_code``), so this is the one place that
maps failures to codes.
"""

from __future__ import annotations

import signal
import sys
import traceback
from collections.abc import Callable

from schemas.errors import QabaseError

INTERRUPTED_CODE = 130
FAILED_CODE = 1
INTERRUPTED = "error: interrupted; the published base is unchanged"


class SigintSeen:
    """Records a Ctrl-C (and raises KeyboardInterrupt as Python does): Beam re-raises an interrupt that reached a
    worker as RuntimeError('KeyboardInterrupt [while running ...]'), which must still exit 130."""

    def __init__(self):
        self.seen = False
        self._installed = False
        self._previous = None

    def __enter__(self):
        try:
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        except ValueError:  # not the main thread: no handler, the exception chain still tells
            pass
        return self

    def _handle(self, signum, frame):
        self.seen = True
        signal.default_int_handler(signum, frame)

    def __exit__(self, *exc):
        if self._installed:
            signal.signal(signal.SIGINT, self._previous if self._previous is not None else signal.SIG_DFL)
        return False


def interrupted(exc: BaseException, sigint: SigintSeen) -> bool:
    """Whether a failure is an interrupt: a Ctrl-C was seen, or a KeyboardInterrupt is in its chain."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return sigint.seen


def run_reporting(work: Callable[[], int], show_traceback: bool = False) -> int:
    """``work()``'s exit code, or the code of what it raised with one ``error:`` line on stderr (the traceback
    too for an unexpected failure when ``show_traceback``)."""
    with SigintSeen() as sigint:
        try:
            return work()
        except QabaseError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return exc.exit_code
        except KeyboardInterrupt:
            print(INTERRUPTED, file=sys.stderr)
            return INTERRUPTED_CODE
        except Exception as exc:  # an unexpected failure: one line unless asked for more
            if interrupted(exc, sigint):
                print(INTERRUPTED, file=sys.stderr)
                return INTERRUPTED_CODE
            if show_traceback:
                traceback.print_exc()
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            print(f"error: build failed ({type(exc).__name__}: {first[:300]}); the published base is unchanged. "
                  f"Re-run with --traceback for details.", file=sys.stderr)
            return FAILED_CODE
