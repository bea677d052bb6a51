"""Index choice by size and memory budget (the ladder), the recall pre-check before a build, nprobe tuned to the
recall floor, and the floor enforced."""

import faiss
import numpy as np
import pytest

from indexes.builder import (PRECHECK_NEIGHBOURS, PRECHECK_QUERIES, PRECHECK_SAMPLE, FaissIndexBuilder, add_in_shards,
                             choose_factory, gpu_count, index_memory_bytes, ladder, nlist_for, precheck_recall)
from schemas.config import IVF_MAX_LISTS, IndexConfig, config_from_dict
from schemas.errors import BaseIntegrityError, ConfigError, PublishError


def _clustered(n, dim=32, centers=64, seed=0):
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(centers, dim))
    x = c[rng.integers(0, centers, n)] + 0.3 * rng.normal(size=(n, dim))
    x = x.astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_choose_factory_follows_size_and_budget():
    assert choose_factory(50_000, 384) == "Flat"
    assert choose_factory(1_000_000, 384, memory_budget_mb=4096) == "IVF4096,Flat"  # 1.4 GiB of raw vectors
    assert choose_factory(1_000_000, 384, memory_budget_mb=512) == "IVF4096,SQ8"  # 380 MiB of 1-byte codes
    assert choose_factory(150_000, 384) == "IVF2048,Flat"
    assert choose_factory(2_000, 384, flat_max=1_000) == "IVF32,Flat"  # at least 39 training vectors per list


def test_auto_climbs_down_the_ladder_as_the_base_outgrows_the_budget():
    assert ladder(4_000_000, 384) == ["IVF8192,Flat", "IVF8192,SQfp16", "IVF8192,SQ8", "IVF8192,PQ96"]
    assert choose_factory(2_600_000, 384) == "IVF8192,Flat"  # 3.8 GiB of vectors and ids
    assert choose_factory(4_000_000, 384) == "IVF8192,SQfp16"  # raw 5.8 GiB would not fit 4 GiB
    assert choose_factory(10_000_000, 384) == "IVF16000,SQ8"  # 3.7 GiB; 16,000 lists at most
    assert choose_factory(12_000_000, 384) == "IVF16000,PQ96"
    assert choose_factory(1_000_000, 384, memory_budget_mb=1) == "IVF4096,PQ96"  # nothing fits: the last rung


def test_memory_counts_codes_ids_and_centroids(tmp_path):
    assert index_memory_bytes("Flat", 1_000, 32) == 1_000 * 128
    assert index_memory_bytes("IVF16,SQ8", 1_000, 32) == 1_000 * (32 + 8) + 16 * 32 * 4 + 2 * 32 * 4
    assert index_memory_bytes("IVF16,PQ8", 1_000, 32) == 1_000 * (8 + 8) + 16 * 32 * 4 + 256 * 32 * 4
    assert index_memory_bytes("IVF16,PQ8,Refine(SQ8)", 1_000, 32) == \
        index_memory_bytes("IVF16,PQ8", 1_000, 32) + 1_000 * 32
    x = _clustered(20_000)
    for factory in ("IVF64,Flat", "IVF64,SQfp16", "IVF64,SQ8", "IVF64,PQ8"):
        FaissIndexBuilder(factory, use_gpu="no", sample=100).build(x, tmp_path / "i.faiss")
        written = (tmp_path / "i.faiss").stat().st_size
        assert abs(written - index_memory_bytes(factory, 20_000, 32)) < 0.05 * written, factory


def _big_enough():
    """More vectors than the pre-check's own sample, so that a builder runs it."""
    return _clustered(PRECHECK_SAMPLE + PRECHECK_QUERIES * PRECHECK_NEIGHBOURS + 5_000, centers=512, seed=3)


def test_precheck_refuses_codes_below_the_floor_before_building(tmp_path):
    x = _big_enough()
    builder = FaissIndexBuilder("IVF256,PQ2", recall_floor=0.95, use_gpu="no")  # 2 bytes a vector
    with pytest.raises(PublishError, match=r"^index: IVF256,PQ2 keeps recall@10 0\.\d+ on a sample of the 75,000 "
                                           r"vectors .* not built\. Set index.factory to IVF1024,SQfp16 \(about"):
        builder.build(x, tmp_path / "i.faiss")
    assert not (tmp_path / "i.faiss").exists()  # refused before training
    with pytest.raises(PublishError, match=r"IVF1024,SQ8 keeps .* Set index.factory to IVF1024,SQfp16"):
        FaissIndexBuilder("IVF1024,SQ8", recall_floor=0.99, use_gpu="no").build(x, tmp_path / "i.faiss")
    recall = precheck_recall(x, "IVF256,PQ2")
    assert recall < 0.5 and recall == precheck_recall(x, "IVF256,PQ2")  # seeded


def test_precheck_passes_codes_that_keep_the_recall(tmp_path):
    x = _big_enough()
    facts = FaissIndexBuilder("IVF256,SQfp16", recall_floor=0.95, use_gpu="no", sample=200).build(x, tmp_path / "i")
    assert facts["precheck_recall_at_10"] >= 0.95 and facts["precheck_seconds"] > 0
    assert facts["recall_at_10"] >= 0.95  # the full build agrees
    flat = FaissIndexBuilder("IVF256,Flat", use_gpu="no", sample=200).build(x, tmp_path / "f")
    assert "precheck_recall_at_10" not in flat  # vectors kept whole: nothing to pre-check


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


def test_no_index_gets_as_many_lists_as_faiss_gpu_loses():
    # faiss-gpu 1.15 searches no IVF index of 16,384 lists or more, even on the CPU: auto stays under it at any
    # size, and a factory asking for more is refused at config load, before any build
    assert nlist_for(8_000_000) == 8_192 and nlist_for(9_000_000) == IVF_MAX_LISTS == 16_000
    assert nlist_for(10**9) == IVF_MAX_LISTS
    assert config_from_dict({"index": {"factory": "IVF16000,SQ8"}}).index.factory == "IVF16000,SQ8"
    for factory in ("IVF16384,SQ8", "OPQ16_64,IVF65536_HNSW32,PQ16"):
        with pytest.raises(ConfigError, match=r"config: index.factory '.*' has [\d,]+ lists, more than 16,000"):
            config_from_dict({"index": {"factory": factory}})


def test_a_base_of_too_many_lists_is_refused_only_where_faiss_would_search_it_wrongly(monkeypatch):
    import indexes.loading as loading

    index = faiss.index_factory(32, "IVF64,Flat", faiss.METRIC_INNER_PRODUCT)
    index.train(_clustered(64 * 39))
    monkeypatch.setattr(loading, "IVF_MAX_LISTS", 32)  # as if 64 lists were past the cap
    monkeypatch.setattr(loading, "faiss_gpu_build", lambda: False)
    loading.check_searchable(index, "index.faiss")  # faiss-cpu searches it correctly
    monkeypatch.setattr(loading, "faiss_gpu_build", lambda: True)
    with pytest.raises(BaseIntegrityError, match=r"base: index.faiss has 64 IVF lists, more than 32, and this faiss "
                                                 r"\(.*\) is a GPU build, .*: serve the base with faiss-cpu"):
        loading.check_searchable(index, "index.faiss")
    loading.check_searchable(faiss.IndexFlatIP(32), "index.faiss")  # no lists
    monkeypatch.setattr(loading, "IVF_MAX_LISTS", 64)
    loading.check_searchable(index, "index.faiss")


@pytest.mark.gpu
@pytest.mark.faiss_gpu
def test_gpu_build_matches_cpu_recall(tmp_path):
    x = _clustered(50_000, dim=64)
    gpu = FaissIndexBuilder(flat_max=1_000, use_gpu="yes").build(x, tmp_path / "g.faiss")
    cpu = FaissIndexBuilder(flat_max=1_000, use_gpu="no").build(x, tmp_path / "c.faiss")
    assert gpu["built_on"] == "gpu" and cpu["built_on"] == "cpu"
    assert gpu["recall_at_10"] >= 0.95 and gpu["factory"] == cpu["factory"]


def _fill(index, block):
    index.add(block)
    return index


@pytest.mark.parametrize("factory", ["IVF32,SQ8", "IVF32,Flat", "Flat"])
def test_shards_merge_into_the_index_one_add_gives(factory):
    x = _clustered(2_000)
    trained = faiss.index_factory(x.shape[1], factory, faiss.METRIC_INNER_PRODUCT)
    trained.train(x)
    whole = _fill(faiss.clone_index(trained), x)
    sharded = add_in_shards(trained, x, 700, _fill)
    assert trained.ntotal == 0 and sharded.ntotal == whole.ntotal == len(x)
    for index in (whole, sharded):
        if faiss.try_extract_index_ivf(index) is not None:
            faiss.extract_index_ivf(index).nprobe = 32
    d_whole, i_whole = whole.search(x[:50], 10)
    d_sharded, i_sharded = sharded.search(x[:50], 10)
    assert (i_whole == i_sharded).all() and np.allclose(d_whole, d_sharded)


@pytest.mark.gpu
@pytest.mark.faiss_gpu
def test_a_base_past_one_gpu_index_is_built_in_shards(tmp_path, monkeypatch):
    import indexes.builder as builder

    monkeypatch.setattr(builder, "GPU_SHARD_VALUES", 64 * 12_000)  # 12,000 rows of 64 numbers a shard
    x = _clustered(50_000, dim=64)
    facts = FaissIndexBuilder("IVF256,SQ8", use_gpu="yes").build(x, tmp_path / "g.faiss")
    assert facts["built_on"] == "gpu" and facts["ntotal"] == len(x) and facts["recall_at_10"] >= 0.95
