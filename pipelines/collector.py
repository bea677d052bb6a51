"""Python's cyclic garbage collector during a build: young collections only.

CPython's collector runs a full collection, over every container object the process holds, each time enough
objects have survived the young generations. A build holds few objects but some very large containers (the
base's state, a step's output list of a million rows) and keeps making long-lived ones, so full collections come
often and each walks every reference of those containers, freeing almost nothing: 19 of them took 4.7 s of a
36 s +1% day at 1M rows (docs/measurements/build-time-and-memory.md). A build makes little cyclic garbage that
outlives the young generations, so the young collections (which still run as before) are kept and the full ones
are left for after the build: the day's peak RSS rose by 1%, a 1M-row rebuild's by 0.1 GB (6%).

And once a command is done, the process ends without the full collection Python's shutdown runs first: after a
+1% day at 1M rows it walked what the build left for 3.3 s (the process's memory goes back to the system whole).
"""

from __future__ import annotations

import contextlib
import gc
import sys
from typing import NoReturn

# the third threshold counts young (generation 1) collections between full ones: this many never come in a build
NEVER = 1_000_000_000


@contextlib.contextmanager
def young_collections_only():
    """No full collection inside the block (explicit ``gc.collect()`` calls still run); the thresholds as they
    were afterwards. Nested blocks keep the outer one's setting."""
    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0], thresholds[1], NEVER)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


def exit_without_collecting(code: int) -> NoReturn:
    """End the process with exit status ``code``, its objects frozen (``gc.freeze``) so that shutdown does not
    walk them in one last full collection; they are freed as the process ends, as before. For a command's
    ``__main__`` only: a process that goes on (tests calling ``main()``, a worker, a service) must not freeze
    what it holds."""
    gc.freeze()
    sys.exit(code)
