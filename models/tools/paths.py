"""Where the training and evaluation tools find their two folders, from a checkout or an installed wheel.

* The public data folder (CLINC150, LCQMC, MuCGEC ...: ``shared/data``, read where it lies): ``--data DIR``,
  else ``$QABASE_DATA``, else ``shared/data`` or ``../shared/data`` under the current directory, else the
  checkout's ``../shared/data``.
* The labelled sets written in this repository (``benchmarks/``: nonanswer_dev.tsv, paraphrase_en.tsv ...):
  ``--sets DIR``, else ``$QABASE_SETS``, else the checkout's ``benchmarks/``, else ``benchmarks/`` under the
  current directory.

A folder given by flag or variable is taken as is (a file missing from it is then named by the reader); a
folder searched for must exist. Nothing found is one :class:`FolderNotFound` (``error: ...``, exit 2) naming
the flag and the variable: from a wheel the source file lies in site-packages, so a default computed from it
would point at nothing without a word.
"""

from __future__ import annotations

import os
from pathlib import Path

from schemas.errors import ConfigError

DATA_ENV = "QABASE_DATA"
SETS_ENV = "QABASE_SETS"


class FolderNotFound(ConfigError):
    """A tool needs a folder no flag, variable or default location gives."""


def checkout() -> Path | None:
    """The repository root when this code runs from a checkout (source tree or editable install), else None:
    an installed wheel has no pyproject.toml and no benchmarks/ beside its packages."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() and (root / "benchmarks").is_dir() else None


def _given(flag: Path | str | None, env: str) -> Path | None:
    if flag is not None:
        return Path(flag)
    value = os.environ.get(env, "").strip()
    return Path(value).expanduser() if value else None


def _first_dir(candidates: list[Path]) -> Path | None:
    return next((c for c in candidates if c.is_dir()), None)


def find_data(flag: Path | str | None = None) -> Path | None:
    """The public data folder, or None where none is given or found."""
    given = _given(flag, DATA_ENV)
    if given is not None:
        return given
    root = checkout()
    here = [Path.cwd() / "shared" / "data", Path.cwd().parent / "shared" / "data"]
    return _first_dir(here + ([root.parent / "shared" / "data"] if root else []))


def find_sets(flag: Path | str | None = None) -> Path | None:
    """The folder of the labelled sets (benchmarks/), or None where none is given or found."""
    given = _given(flag, SETS_ENV)
    if given is not None:
        return given
    root = checkout()
    return _first_dir(([root / "benchmarks"] if root else []) + [Path.cwd() / "benchmarks"])


def data_dir(flag: Path | str | None = None) -> Path:
    """:func:`find_data`, or FolderNotFound."""
    found = find_data(flag)
    if found is None:
        raise FolderNotFound(f"no public data folder (CLINC150, LCQMC, MuCGEC ...): pass --data DIR or set "
                             f"{DATA_ENV}=DIR (searched shared/data and ../shared/data under {Path.cwd()})")
    return found


def sets_dir(flag: Path | str | None = None) -> Path:
    """:func:`find_sets`, or FolderNotFound."""
    found = find_sets(flag)
    if found is None:
        raise FolderNotFound(f"no folder of labelled sets (the repository's benchmarks/): pass --sets DIR or set "
                             f"{SETS_ENV}=DIR (searched benchmarks/ under {Path.cwd()})")
    return found


# resolved when the tool runs, not when its parser is made: --help and an import never need the folders
def add_data_option(ap, holds: str) -> None:
    ap.add_argument("--data", type=Path, metavar="DIR",
                    help=f"the public data folder ({holds}; default: ${DATA_ENV}, else ./shared/data or "
                         f"../shared/data, else the checkout's ../shared/data)")


def add_sets_option(ap) -> None:
    ap.add_argument("--sets", type=Path, metavar="DIR",
                    help=f"the folder of the labelled sets the default files are read from (default: ${SETS_ENV}, "
                         f"else the checkout's benchmarks/, else ./benchmarks)")
