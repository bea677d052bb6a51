"""Logging set-up for the command line: our progress lines (progress bars on a terminal), Beam kept quiet."""

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


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):  # a closed or stand-in stream
        return False


class _DropNoise(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        msg = record.getMessage().lower()
        return not any(n.lower() in msg for n in _NOISE)


class BarHandler(logging.StreamHandler):
    """Log lines to a terminal, where a record that carries a ``bar`` (a progress line's redrawn form,
    pipelines.beam.metering) is drawn in place: one line per stage that updates, ended when the stage is done
    (``bar_done``) or another line comes. Everything else is written as any handler writes it."""

    def __init__(self, stream=None):
        super().__init__(stream)
        self._open = False  # a bar is on the current line

    def emit(self, record: logging.LogRecord) -> None:
        bar = getattr(record, "bar", None)
        try:
            if bar is None:
                if self._open:
                    self.stream.write("\n")
                    self._open = False
                super().emit(record)
                return
            self.stream.write("\r\x1b[K" + bar + ("\n" if record.bar_done else ""))
            self._open = not record.bar_done
            self.flush()
        except Exception:  # noqa: BLE001 - as logging.StreamHandler does: a log line never stops the build
            self.handleError(record)


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
    # a terminal draws progress as bars; a log file, a pipe or Airflow gets the plain lines
    handler = BarHandler(sys.stderr) if _is_terminal(sys.stderr) else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT, LOG_DATE_FORMAT))
    handler.addFilter(_DropNoise())
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    level = logging.WARNING if quiet else (logging.DEBUG if verbose else logging.INFO)
    logging.getLogger("qabase").setLevel(level)
    for noisy in ("apache_beam", "transformers", "urllib3", "filelock", "absl"):
        logging.getLogger(noisy).setLevel(logging.INFO if verbose else logging.CRITICAL)
