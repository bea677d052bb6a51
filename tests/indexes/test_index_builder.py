"""Index choice by size and memory budget, nprobe tuned to the recall floor, and the floor enforced."""

import faiss
import numpy as np
import pytest

from indexes.builder import FaissIndexBuilder, choose_factory, gpu_count
from schemas.config import IndexConfig
from schemas.errors import PublishError


def _clustered(n, dim=32, centers=64, seed=0):
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(centers, dim))
    x = c[rng.integers(0, centers, n)] + 0.3 * rng.normal(size=(n, dim))
    x = x.astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_choose_factory_follows_size_and_budget():
    assert choose_factory(50_000, 384) == "Flat"
    assert choose_factory(1_000_000, 384, memory_budget_mb=4096) == "IVF4096,Flat"  # 1.4 GiB of raw vectors
    assert choose_factory(1_000_000, 384, memory_budget_mb=512) == "IVF4096,PQ48"
    assert choose_factory(150_000, 384) == "IVF2048,Flat"
    assert choose_factory(2_000, 384, flat_max=1_000) == "IVF32,Flat"  # at least 39 training vectors per list


def test_ivf_index_reaches_the_recall_floor_by_widening_nprobe(tmp_path):
    x = _clustered(20_000)
    facts = FaissIndexBuilder(flat_max=1_000, recall_floor=0.95, use_gpu="no").build(x, tmp_path / "i.faiss")
    assert facts["factory"].startswith("IVF") and facts["factory"].endswith(",Flat")
    assert facts["recall_at_10"] >= 0.95 and facts["nprobe"] in (8, 16, 32, 64, 128, 256, 512, 1024)
    assert facts["ntotal"] == 20_000 and facts["built_on"] == "cpu"
    loaded = faiss.read_index(str(tmp_path / "i.faiss"))
    assert faiss.extract_index_ivf(loaded).nprobe == facts["nprobe"]  # saved with the index


def test_small_bases_stay_exact(tmp_path):
    x = _clustered(500)
    facts = FaissIndexBuilder(use_gpu="no").build(x, tmp_path / "i.faiss")
    assert facts["factory"] == "Flat" and facts["recall_at_10"] == 1.0 and "nprobe" not in facts


def test_publishing_fails_below_the_recall_floor(tmp_path):
    from indexes.store import enforce_recall_floor

    x = _clustered(3_000, dim=32)
    cfg = IndexConfig(factory="IVF64,PQ2", recall_floor=0.99, use_gpu="no")  # 2 bytes a vector: lossy
    facts = FaissIndexBuilder(cfg.factory, recall_floor=cfg.recall_floor, use_gpu="no").build(x, tmp_path / "i")
    assert facts["recall_at_10"] < 0.99 and facts["nprobe"] == 64  # widened as far as the lists go
    with pytest.raises(PublishError, match=r"recall@10 0\.\d+ of IVF64,PQ2 \(nprobe 64\) is below index.recall_floor"):
        enforce_recall_floor(facts, cfg.recall_floor)
    enforce_recall_floor({**facts, "recall_at_10": 0.995}, cfg.recall_floor)  # passes


def test_requiring_a_gpu_without_one_is_a_clear_error(tmp_path):
    if gpu_count():
        pytest.skip("this machine has a GPU")
    with pytest.raises(PublishError, match="use_gpu is yes but faiss sees no GPU"):
        FaissIndexBuilder(use_gpu="yes").build(_clustered(100), tmp_path / "i.faiss")


@pytest.mark.gpu
def test_gpu_build_matches_cpu_recall(tmp_path):
    x = _clustered(50_000, dim=64)
    gpu = FaissIndexBuilder(flat_max=1_000, use_gpu="yes").build(x, tmp_path / "g.faiss")
    cpu = FaissIndexBuilder(flat_max=1_000, use_gpu="no").build(x, tmp_path / "c.faiss")
    assert gpu["built_on"] == "gpu" and cpu["built_on"] == "cpu"
    assert gpu["recall_at_10"] >= 0.95 and gpu["factory"] == cpu["factory"]
