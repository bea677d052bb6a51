"""schemas.layout for bases on a store (``mem://``, tests/fakes/store.py) and the LATEST pointer file."""

import hashlib
import json

from fakes import store as fake_store
import pytest

from schemas import layout
from schemas.errors import BaseIntegrityError

V1, V2 = "20260101T000000000Z", "20260102T000000000Z"
URL = "mem://bucket/base"


@pytest.fixture
def store():
    fake_store.reset()
    yield fake_store
    fake_store.reset()


def _publish(files: dict[str, bytes], version: str = V1, base: str = URL) -> dict:
    """A version in the store as a build leaves it: its files, the manifest, then LATEST."""
    prefix = f"{base}/versions/{version}"
    for name, data in files.items():
        fake_store.OBJECTS[f"{prefix}/{name}"] = data
    manifest = {"version": version, "files": {n: {"bytes": len(d), "sha256": hashlib.sha256(d).hexdigest()}
                                              for n, d in files.items()}}
    fake_store.OBJECTS[f"{prefix}/{layout.MANIFEST}"] = json.dumps(manifest).encode()
    fake_store.OBJECTS[f"{base}/{layout.LATEST_FILE}"] = f"{version}\n".encode()
    return manifest


def test_urls_are_remote_and_joined_without_losing_their_slashes():
    from pathlib import Path

    assert layout.is_remote("gs://bucket/base") and layout.is_remote("s3://b/x") and layout.is_remote("mem://b")
    assert not layout.is_remote("/srv/base") and not layout.is_remote("file:///srv/base")
    assert not layout.is_remote(Path("relative/base")) and not layout.is_remote("C:\\base")
    assert layout.join("mem://bucket/base/", "versions", "v1") == "mem://bucket/base/versions/v1"
    assert layout.join("/srv/base", "versions") == "/srv/base/versions"
    # a URL that went through pathlib.Path ('mem:/bucket/...') is repaired for a known scheme only
    assert layout.as_url(Path("mem://bucket/base") / "state") == "mem://bucket/base/state"
    assert layout.as_url("nosuchscheme:/x") == "nosuchscheme:/x"


def test_a_local_base_with_a_latest_file_and_no_symlink_resolves(tmp_path):
    base = layout.BaseLayout(tmp_path / "base")
    for v in (V1, V2):
        base.version(v).mkdir(parents=True)
        (base.version(v) / layout.MANIFEST).write_text("{}")
    (base.base / layout.LATEST_FILE).write_text(V1 + "\n")
    assert not base.latest.is_symlink()
    assert base.current_version() == V1
    assert layout.resolve_version(base.base) == base.version(V1)
    assert layout.version_dir(base.base) == base.version(V1)
    # a publish swaps the symlink (which wins) and the pointer file follows it
    base.point_latest(V2)
    assert base.latest.is_symlink() and base.current_version() == V2
    assert layout.resolve_version(base.base) == base.version(V2).resolve()
    assert (base.base / layout.LATEST_FILE).read_text().strip() == V2
    # a pointer to a version that is not there is one clear error
    other = layout.BaseLayout(tmp_path / "other")
    other.base.mkdir()
    (other.base / layout.LATEST_FILE).write_text("nope\n")
    with pytest.raises(BaseIntegrityError, match="names version 'nope'"):
        layout.resolve_version(other.base)


def test_a_remote_base_is_downloaded_into_its_local_mirror_once_and_checked(store, tmp_path):
    _publish({"qa.parquet": b"rows", "state/state.json": b"{}"})
    cache = tmp_path / "cache"
    mirror = layout.BaseLayout(URL, cache)
    assert mirror.remote and mirror.base == layout.local_mirror(URL, cache) and mirror.base.parent == cache
    assert mirror.current_version() == V1 and mirror.version_url(V1) == f"{URL}/versions/{V1}"
    folder = layout.resolve_version(URL, cache)
    assert folder == mirror.version(V1)
    assert (folder / "qa.parquet").read_bytes() == b"rows" and (folder / "state" / "state.json").read_bytes() == b"{}"
    assert (folder / layout.MANIFEST).is_file()
    # a version folder's URL works too; version_dir names a version
    assert layout.version_dir(URL, V1, cache) == folder
    with pytest.raises(BaseIntegrityError, match=f"no published version nope in {URL}"):
        layout.version_dir(URL, "nope", cache)
    # a complete local copy is not downloaded again
    store.OBJECTS[f"{URL}/versions/{V1}/qa.parquet"] = b"changed!"
    assert layout.resolve_version(URL, cache) == folder and (folder / "qa.parquet").read_bytes() == b"rows"
    # an interrupted download keeps the files that match the manifest and fetches the rest, each checked
    (folder / layout.MANIFEST).unlink()
    (folder / "state" / "state.json").unlink()
    store.OBJECTS[f"{URL}/versions/{V1}/qa.parquet"] = b"rows"
    (folder / "qa.parquet").write_bytes(b"rows")
    reads = []
    real_download = layout.download

    def counting(url, path):
        reads.append(url.rsplit("/", 1)[-1])
        return real_download(url, path)

    layout.download, saved = counting, layout.download
    try:
        assert layout.resolve_version(URL, cache) == folder
    finally:
        layout.download = saved
    assert reads == ["state.json"]


def test_a_corrupted_or_missing_remote_version_is_refused(store, tmp_path):
    _publish({"qa.parquet": b"rows"})
    store.OBJECTS[f"{URL}/versions/{V1}/qa.parquet"] = b"rowz"
    with pytest.raises(BaseIntegrityError, match="qa.parquet does not match its checksum"):
        layout.resolve_version(URL, tmp_path / "cache")
    assert not (layout.BaseLayout(URL, tmp_path / "cache").version(V1) / layout.MANIFEST).exists()
    store.OBJECTS[f"{URL}/{layout.LATEST_FILE}"] = f"{V2}\n".encode()
    with pytest.raises(BaseIntegrityError, match=f"LATEST names version {V2}, but .* has no manifest.json"):
        layout.resolve_version(URL, tmp_path / "cache")
    with pytest.raises(BaseIntegrityError, match="has no published version"):
        layout.resolve_version("mem://bucket/empty", tmp_path / "cache")


def test_the_remote_pointer_is_an_object_and_folders_are_prefixes(store, tmp_path):
    base = layout.BaseLayout(URL, tmp_path / "cache")
    assert base.current_version() is None
    base.point_latest(V2)
    assert store.OBJECTS[f"{URL}/{layout.LATEST_FILE}"] == f"{V2}\n".encode() and base.current_version() == V2
    for name in ("a.parquet", "state/q.parquet", "data_docs/x/index.html"):
        layout.write_bytes(f"{URL}/versions/.staging-{V2}/{name}", b"x")
    assert layout.list_tree(base.staging_url(V2)) == ["a.parquet", "data_docs/x/index.html", "state/q.parquet"]
    layout.delete_tree(base.staging_url(V2))
    assert layout.list_tree(base.staging_url(V2)) == [] and set(store.OBJECTS) == {f"{URL}/{layout.LATEST_FILE}"}
