"""schemas.layout: the one owner of a base directory's layout."""

import pytest

from schemas import layout
from schemas.errors import BaseIntegrityError


def test_latest_points_at_a_version_and_resolves(tmp_path):
    base = layout.BaseLayout(tmp_path / "base")
    assert base.current_version() is None
    for v in ("20260101T000000000Z", "20260102T000000000Z"):
        base.version(v).mkdir(parents=True)
        (base.version(v) / layout.MANIFEST).write_text("{}")
        base.point_latest(v)
    assert base.current_version() == "20260102T000000000Z"
    assert layout.BaseLayout(tmp_path / "base").current_version() == "20260102T000000000Z"  # read back anew
    assert layout.resolve_version(tmp_path / "base") == base.version("20260102T000000000Z").resolve()
    assert layout.resolve_version(base.version("20260101T000000000Z")) == base.version("20260101T000000000Z")
    assert layout.version_dir(tmp_path / "base", "20260101T000000000Z") == base.version("20260101T000000000Z")
    with pytest.raises(BaseIntegrityError, match="no published version nope"):
        layout.version_dir(tmp_path / "base", "nope")
    with pytest.raises(BaseIntegrityError, match="has no published version"):
        layout.resolve_version(tmp_path / "empty")


def test_paths_and_ids(tmp_path):
    base = layout.BaseLayout(tmp_path)
    assert base.staging("v1").parent == base.versions and base.staging("v1").name.startswith(".")
    assert base.failed("v1") == tmp_path / layout.FAILED_DIR / "v1"
    assert base.cache_file(layout.SCORE_CACHE).parent == base.cache
    a, b = layout.new_version_id(), layout.new_version_id()
    assert len(a) == len("20260101T000000000Z") and a.endswith("Z") and a <= b
    (tmp_path / "f").write_bytes(b"abc")
    assert layout.sha256_file(tmp_path / "f") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
