"""Training a cross-encoder's adapters (models.tools.cross_training) on the tiny e5 file: seeded and reproducible,
the packaged layers' states computed once and cached, the best epoch kept."""

import numpy as np
import pytest
import torch
from fakes.e5_file import write_e5_file

from models.cross_encoder import CrossEncoder, pair_logits
from models.embedders.e5_torch import load_e5_torch
from models.tools.cross_training import PairStates, auc, train_adapters

PAIRS = [("how do i reset my password?", "reset my password", 1), ("how do i", "password?", 0),
         ("reset my password", "how do i reset my password?", 1), ("as", "password", 0),
         ("how do i reset", "how do i reset my password?", 1), ("ta", "my", 0)] * 3


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("e5") / "tiny-q4.bin"
    write_e5_file(path)
    return path


def _trained(tiny, cache, seed=0):
    torch.manual_seed(seed)
    bert, tok = load_e5_torch("cpu", tiny, for_training=True)
    model = CrossEncoder(bert, r=4, alpha=8.0, lora_from=1)
    train = PairStates(model, tok, PAIRS, cache, "train")
    tune = PairStates(model, tok, PAIRS[:6], cache, "tune")
    model, aucs = train_adapters(model, train, tune, epochs=3, seed=seed, batch=4, lr=1e-2)
    return model, tok, aucs, tune


def test_the_same_seed_trains_the_same_adapters(tiny, tmp_path):
    a, tok, aucs, _ = _trained(tiny, tmp_path / "a")
    b, _, _, _ = _trained(tiny, tmp_path / "b")
    assert len(aucs) == 3
    for (k, va), (_, vb) in zip(a.trained().items(), b.trained().items()):
        assert torch.equal(va, vb), k


def test_cached_states_give_the_same_training(tiny, tmp_path):
    first, _, _, _ = _trained(tiny, tmp_path)
    assert list(tmp_path.glob("e5-pairs-*.npz"))  # written once...
    again, _, _, _ = _trained(tiny, tmp_path)  # ...and read back
    assert all(torch.equal(va, vb) for va, vb in zip(first.trained().values(), again.trained().values()))


def test_the_kept_epoch_is_the_best_on_tune_and_the_top_runs_as_the_whole(tiny, tmp_path):
    model, tok, aucs, tune = _trained(tiny, tmp_path)
    assert auc(tune.logits(model), tune.y) == pytest.approx(max(aucs))
    whole = pair_logits(model, tok, [(a, b) for a, b, _ in PAIRS[:6]])
    assert np.allclose(whole, tune.logits(model), atol=1e-2)  # float16 states: a little apart


def test_auc_counts_ranks():
    assert auc(np.array([0.1, 0.2, 0.8, 0.9]), np.array([0, 0, 1, 1])) == 1.0
    assert auc(np.array([0.9, 0.8, 0.2, 0.1]), np.array([0, 0, 1, 1])) == 0.0


def test_a_saved_model_loads_in_bfloat16_and_scores_as_in_float32(tiny, tmp_path):
    from models.cross_encoder import load_cross_encoder, save_adapter

    model, tok, _, _ = _trained(tiny, tmp_path)
    save_adapter(model, {"kind": "test", "threshold": 0.5}, tmp_path / "m.npz")
    pairs = [(a, b) for a, b, _ in PAIRS[:6]]
    f32, _, _ = load_cross_encoder(tmp_path / "m.npz", base=tiny)
    bf16, _, _ = load_cross_encoder(tmp_path / "m.npz", base=tiny, precision="bfloat16")
    assert {p.dtype for p in bf16.parameters()} == {torch.bfloat16}
    assert {p.dtype for p in f32.parameters()} == {torch.float32}
    a, b = pair_logits(f32, tok, pairs), pair_logits(bf16, tok, pairs)
    assert b.dtype == np.float64 and not np.array_equal(a, b)  # computed in the other format...
    assert np.allclose(a, b, atol=0.1)  # ...to about two decimals


def test_without_a_tune_set_the_last_epoch_is_kept_and_a_subset_reads_the_same_states(tiny, tmp_path):
    torch.manual_seed(0)
    bert, tok = load_e5_torch("cpu", tiny, for_training=True)
    model = CrossEncoder(bert, r=4, alpha=8.0, lora_from=1)
    pool = PairStates(model, tok, PAIRS, None, "pool")
    part = pool.subset(PAIRS[3:9])
    assert part.y.tolist() == [y for _, _, y in PAIRS[3:9]]
    assert all(np.array_equal(a, b) for a, b in zip(part.states, pool.states[3:9]))
    seen: list = []
    train_adapters(model, pool, part, epochs=2, seed=0, batch=4, lr=1e-2, tune_logits=seen)
    assert len(seen) == 2 and not np.array_equal(seen[0], seen[1])  # the tune logits after each epoch
    before = part.logits(model)
    last, aucs = train_adapters(model, pool, None, epochs=1, seed=0, batch=4, lr=1e-2)
    assert aucs == [] and not np.array_equal(part.logits(last), before)  # trained on, no epoch chosen
