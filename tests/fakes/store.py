"""``mem://``: an object store held in this process's memory, as a Beam FileSystem (Beam 2.77 ships none).

Like GCS or S3: flat keys, no folders (``has_dirs`` is False, a "folder" is a key prefix), no symlinks, and
no atomic rename (``rename`` is copy then delete, as the real stores do it; every rename is recorded in
``RENAMES`` so a test can tell that a publish never renamed anything). Importing this module registers the
scheme (Beam finds FileSystem subclasses by their ``scheme()``). Process-local: the in-process DirectRunner
sees it, worker processes would not.
"""

from __future__ import annotations

import io
import time

from apache_beam.io.filesystem import (BeamIOError, CompressedFile, CompressionTypes, FileMetadata,
                                       FileSystem)

OBJECTS: dict[str, bytes] = {}
RENAMES: list[tuple[str, str]] = []
WRITES: list[str] = []  # every object written, in order


def reset() -> None:
    OBJECTS.clear()
    RENAMES.clear()
    WRITES.clear()


class _Writer(io.BytesIO):
    def __init__(self, path: str):
        super().__init__()
        self._path = path

    def close(self):
        if not self.closed:
            OBJECTS[self._path] = self.getvalue()
            WRITES.append(self._path)
        super().close()


class MemFileSystem(FileSystem):
    @classmethod
    def scheme(cls):
        return "mem"

    def join(self, basepath, *paths):
        out = basepath.rstrip("/")
        for p in paths:
            out += "/" + p.strip("/")
        return out

    def split(self, path):
        path = path.rstrip("/")
        head, _, tail = path.rpartition("/")
        return head, tail

    def mkdirs(self, path):
        pass  # no folders

    def has_dirs(self):
        return False

    def _list(self, dir_or_prefix):
        for key in sorted(OBJECTS):
            if key.startswith(dir_or_prefix):
                yield FileMetadata(key, len(OBJECTS[key]), time.time())

    def create(self, path, mime_type="application/octet-stream", compression_type=CompressionTypes.AUTO):
        ctype = self._get_compression_type(path, compression_type)
        raw = _Writer(path)
        return raw if ctype == CompressionTypes.UNCOMPRESSED else CompressedFile(raw, ctype)

    def open(self, path, mime_type="application/octet-stream", compression_type=CompressionTypes.AUTO):
        if path not in OBJECTS:
            raise BeamIOError("Open failed", {path: FileNotFoundError(path)})
        ctype = self._get_compression_type(path, compression_type)
        raw = io.BytesIO(OBJECTS[path])
        return raw if ctype == CompressionTypes.UNCOMPRESSED else CompressedFile(raw, ctype)

    def copy(self, source_file_names, destination_file_names):
        missing = {s: FileNotFoundError(s) for s in source_file_names if s not in OBJECTS}
        if missing:
            raise BeamIOError("Copy failed", missing)
        for s, d in zip(source_file_names, destination_file_names):
            OBJECTS[d] = OBJECTS[s]
            WRITES.append(d)

    def rename(self, source_file_names, destination_file_names):
        self.copy(source_file_names, destination_file_names)
        for s, d in zip(source_file_names, destination_file_names):
            RENAMES.append((s, d))
            del OBJECTS[s]

    def exists(self, path):
        return path in OBJECTS

    def size(self, path):
        if path not in OBJECTS:
            raise BeamIOError("Size failed", {path: FileNotFoundError(path)})
        return len(OBJECTS[path])

    def last_updated(self, path):
        return time.time()

    def checksum(self, path):
        return str(self.size(path))

    def metadata(self, path):
        return FileMetadata(path, self.size(path), time.time())

    def delete(self, paths):
        for p in paths:
            if p in OBJECTS:
                del OBJECTS[p]
            else:  # a "folder": every key under the prefix
                for key in [k for k in OBJECTS if k.startswith(p.rstrip("/") + "/")]:
                    del OBJECTS[key]


def keys(prefix: str) -> list[str]:
    """Every key under ``prefix`` (relative to it), sorted."""
    prefix = prefix.rstrip("/") + "/"
    return sorted(k[len(prefix):] for k in OBJECTS if k.startswith(prefix))
