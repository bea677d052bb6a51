"""Publish a staged version atomically (the folder layout itself is schemas.layout's).

A build writes everything into its staging folder, checks it, writes the manifest
last, renames the folder into ``versions/`` and then swaps ``latest``. A failed
or interrupted build leaves ``latest`` where it was.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from schemas.errors import PublishError
from schemas.layout import MANIFEST, REPORT_FILES, STATE_DIR, BaseLayout, new_version_id, sha256_file


class Publisher:
    """Owns one build's staging folder and its publication."""

    def __init__(self, base_dir: str | Path, version: str | None = None):
        self.layout = BaseLayout(base_dir)
        self.base = self.layout.base
        if self.base.exists() and not self.base.is_dir():
            raise PublishError(f"output: {self.base} exists and is not a directory")
        self.version = version or new_version_id()
        self.versions = self.layout.versions
        self.staging = self.layout.staging(self.version)
        self.final = self.layout.version(self.version)

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
        self.layout.point_latest(self.version)
        return self.final

    def abort(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)
