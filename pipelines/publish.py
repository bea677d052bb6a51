"""Write the QA store and index into a staging folder; publish it atomically.

Layout of a base directory::

    BASE_DIR/latest -> versions/<version>      (symlink, replaced atomically)
    BASE_DIR/versions/<version>/manifest.json, qa.parquet, index.faiss, index_infos.json,
                                questions.parquet, rejected.parquet, stats.json, state/ (see pipelines.state)
    BASE_DIR/versions/.staging-<version>/      (a build in progress; never read)

A build writes everything into its staging folder, checks it, writes the manifest
last, renames the folder into ``versions/`` and then swaps ``latest``. A failed
or interrupted build leaves ``latest`` where it was.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from indexes.builder import FaissIndexBuilder
from pipelines.config import IndexConfig
from pipelines.errors import PublishError
from schemas import QA_SCHEMA

INDEX_FILE = "index.faiss"
MANIFEST = "manifest.json"


def write_store(rows: list[dict], staging: str, index_cfg: IndexConfig) -> dict:
    """qa.parquet (rank order) + index (row i = vector i) + index_infos.json; returns index facts."""
    out = Path(staging)
    rows = sorted(rows, key=lambda r: r["rank"])
    dim = len(rows[0]["vector"]) if rows else 384
    vectors = np.stack([np.asarray(r.pop("vector"), dtype=np.float32) for r in rows]) if rows \
        else np.zeros((0, dim), np.float32)
    table = pa.Table.from_pylist(rows, schema=QA_SCHEMA)
    pq.write_table(table, out / "qa.parquet")
    facts = FaissIndexBuilder(index_cfg.factory, index_cfg.metric, index_cfg.flat_max, index_cfg.memory_budget_mb,
                              index_cfg.recall_floor, index_cfg.use_gpu).build(vectors, out / INDEX_FILE)
    facts["qa_rows"] = len(rows)
    (out / "index_infos.json").write_text(json.dumps(facts, indent=2), encoding="utf-8")
    return facts


def enforce_recall_floor(facts: dict, floor: float) -> None:
    if facts["recall_at_10"] < floor:
        raise PublishError(f"index: recall@10 {facts['recall_at_10']:.3f} of {facts['factory']} (nprobe "
                           f"{facts.get('nprobe', '-')}) is below index.recall_floor {floor}; "
                           "raise index.memory_budget_mb, choose another index.factory, or lower the floor")


def sha256_stream(f, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    for block in iter(lambda: f.read(chunk), b""):
        h.update(block)
    return h.hexdigest()


def sha256_file(path: str | Path) -> str:
    with open(path, "rb") as f:
        return sha256_stream(f)


def new_version_id(now: dt.datetime | None = None) -> str:
    now = now or dt.datetime.now(dt.timezone.utc)
    return now.strftime("%Y%m%dT%H%M%S") + f"{now.microsecond // 1000:03d}Z"


class Publisher:
    """Owns one build's staging folder and its publication."""

    def __init__(self, base_dir: str | Path, version: str | None = None):
        self.base = Path(base_dir)
        if self.base.exists() and not self.base.is_dir():
            raise PublishError(f"output: {self.base} exists and is not a directory")
        self.version = version or new_version_id()
        self.versions = self.base / "versions"
        self.staging = self.versions / f".staging-{self.version}"
        self.final = self.versions / self.version

    def prepare(self) -> Path:
        try:
            self.staging.mkdir(parents=True, exist_ok=False)
        except FileExistsError:
            raise PublishError(f"output: staging folder {self.staging} already exists") from None
        except OSError as exc:
            raise PublishError(f"output: cannot create {self.staging}: {exc.strerror}") from None
        return self.staging

    def write_manifest(self, manifest: dict) -> None:
        files = {}
        from pipelines.report import REPORT_FILES

        from pipelines.state import STATE_DIR

        names = sorted(os.listdir(self.staging))
        if (self.staging / STATE_DIR).is_dir():
            names += sorted(f"{STATE_DIR}/{n}" for n in os.listdir(self.staging / STATE_DIR))
        for name in names:
            p = self.staging / name
            if p.is_file() and name not in REPORT_FILES:  # reports can be regenerated: not checksummed
                files[name] = {"bytes": p.stat().st_size, "sha256": sha256_file(p)}
        manifest = dict(manifest, files=files)
        tmp = self.staging / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False, sort_keys=False), encoding="utf-8")
        os.replace(tmp, self.staging / MANIFEST)

    def publish(self) -> Path:
        """Rename staging into versions/ and point latest at it (atomic on POSIX)."""
        if not (self.staging / MANIFEST).is_file():
            raise PublishError("publish: no manifest in the staging folder")
        os.rename(self.staging, self.final)
        link_tmp = self.base / f".latest-{self.version}"
        if link_tmp.is_symlink() or link_tmp.exists():
            link_tmp.unlink()
        os.symlink(Path("versions") / self.version, link_tmp)
        os.replace(link_tmp, self.base / "latest")
        return self.final

    def abort(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)


def current_version(base_dir: str | Path) -> str | None:
    latest = Path(base_dir) / "latest"
    if not latest.is_symlink() and not latest.exists():
        return None
    return Path(os.readlink(latest)).name if latest.is_symlink() else latest.resolve().name
