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
# the longest error line printed: a message quoting a hostile value stays one readable line
MAX_ERROR_CHARS = 1000

# the versions this process published (base, version), in order: a failure after a publish must not say the
# base is unchanged (pipelines.build.publish_version notes each)
_PUBLISHED: list[tuple[str, str]] = []


def note_published(base: str, version: str) -> None:
    """Called once ``latest`` names ``version``: from now on a failure of this run says so."""
    _PUBLISHED.append((str(base), version))


def _base_state() -> str:
    """What a failure leaves of the published base: unchanged, or the version this run published."""
    if not _PUBLISHED:
        return "the published base is unchanged"
    base, version = _PUBLISHED[-1]
    return (f"version {version} was published before it (latest names it); if its report is missing, "
            f"`qabase report --base {base}` writes it")


def _one_line(text: str) -> str:
    return text if len(text) <= MAX_ERROR_CHARS else f"{text[:MAX_ERROR_CHARS]}... ({len(text):,} characters)"


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
    _PUBLISHED.clear()
    with SigintSeen() as sigint:
        try:
            return work()
        except QabaseError as exc:
            published = f" ({_base_state()})" if _PUBLISHED else ""
            print(_one_line(f"error: {exc}") + published, file=sys.stderr)
            return exc.exit_code
        except KeyboardInterrupt:
            print(f"error: interrupted; {_base_state()}", file=sys.stderr)
            return INTERRUPTED_CODE
        except Exception as exc:  # an unexpected failure: one line unless asked for more
            if interrupted(exc, sigint):
                print(f"error: interrupted; {_base_state()}", file=sys.stderr)
                return INTERRUPTED_CODE
            if show_traceback:
                traceback.print_exc()
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            print(f"error: build failed ({type(exc).__name__}: {first[:300]}); {_base_state()}. "
                  f"Re-run with --traceback for details.", file=sys.stderr)
            return FAILED_CODE
