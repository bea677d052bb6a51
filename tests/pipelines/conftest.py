"""Fixtures the pipeline tests share."""

import fake_store
import pytest


@pytest.fixture
def store(tmp_path, monkeypatch):
    """An empty ``mem://`` store (tests/pipelines/fake_store.py); the local mirror of remote bases in
    tmp_path/cache (empty: as on a fresh machine)."""
    fake_store.reset()
    monkeypatch.setenv("QABASE_CACHE_DIR", str(tmp_path / "cache"))
    yield fake_store
    fake_store.reset()
