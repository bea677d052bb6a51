"""Logging set-up for the command line: our progress lines, Beam kept quiet."""

from __future__ import annotations

import logging
import os
import sys
import warnings

_NOISE = (
    "prism",  # DirectRunner tries to fetch a Prism binary, fails, falls back: expected here
    "apitools",
    "bigquery client",
    "Discarding unparseable args",
    "pkg_resources",
)


# the date as well as the time: a long or scheduled build's lines are read the next day, and beside other logs
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LOG_DATE_FORMAT = "%Y-%m-%d %H:%M:%S"


class _DropNoise(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage().lower()
        return not any(n.lower() in msg for n in _NOISE)


def setup_logging(verbose: bool = False, quiet: bool = False) -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning, module="apache_beam")
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT, LOG_DATE_FORMAT))
    handler.addFilter(_DropNoise())
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    level = logging.WARNING if quiet else (logging.DEBUG if verbose else logging.INFO)
    logging.getLogger("qabase").setLevel(level)
    for noisy in ("apache_beam", "transformers", "urllib3", "filelock", "absl"):
        logging.getLogger(noisy).setLevel(logging.INFO if verbose else logging.CRITICAL)
