"""``hf:/dir`` embedders: a sentence-transformers directory (``modules.json``) is pooled and normalised as it
says; any other directory is mean-pooled as before. The directories are written as the Hub's are (legacy
``sentence_transformers.models.*`` module names) around the conftest's tiny random BERT."""

import json
import shutil

import numpy as np
import pytest
import torch

from models import registry
from models.embedders.hf import HFMeanPoolEmbedder, encoder_identity, hf_dir_embedder, hf_dir_identity
from models.embedders.st import SentenceTransformerEmbedder
from schemas.errors import ModelLoadError

TEXTS = ["how do i reset my password ?", "hello", "reset", "my password", "how do i", "hello hello hello ?"]


def _st_dir(tmp_path, tiny_bert, name, pooling, normalize=False, prompts=None):
    """A sentence-transformers directory: Transformer (tiny_bert) + Pooling(pooling) [+ Normalize]."""
    path = tmp_path / name
    shutil.copytree(tiny_bert, path)
    modules = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
               {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
        (path / "2_Normalize").mkdir()
    (path / "modules.json").write_text(json.dumps(modules, indent=2))
    (path / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 64, "do_lower_case": False}))
    (path / "1_Pooling").mkdir()
    (path / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": 16, "pooling_mode_cls_token": pooling == "cls",
         "pooling_mode_mean_tokens": pooling == "mean", "pooling_mode_max_tokens": False,
         "pooling_mode_mean_sqrt_len_tokens": False}, indent=2))
    if prompts:
        (path / "config_sentence_transformers.json").write_text(json.dumps(
            {"prompts": prompts, "default_prompt_name": next(iter(prompts)), "similarity_fn_name": "cosine"}))
    return path


def _by_hand(tiny_bert, texts, pooling):
    """Each text alone through the raw BertModel in float64, pooled (mean over tokens or [CLS]), L2-normalised."""
    from transformers import BertModel, BertTokenizerFast

    tok = BertTokenizerFast.from_pretrained(str(tiny_bert))
    model = BertModel.from_pretrained(str(tiny_bert)).double().eval()
    rows = []
    with torch.no_grad():
        for text in texts:
            hidden = model(**tok(text, return_tensors="pt")).last_hidden_state[0]
            pooled = hidden.mean(0) if pooling == "mean" else hidden[0]
            rows.append((pooled / pooled.norm()).numpy())
    return np.stack(rows)


@pytest.fixture(scope="module")
def st_dirs(tmp_path_factory, tiny_bert):
    tmp = tmp_path_factory.mktemp("st-dirs")
    return {"mean": _st_dir(tmp, tiny_bert, "st-mean", "mean"),
            "cls": _st_dir(tmp, tiny_bert, "st-cls", "cls", normalize=True),
            "cls-bare": _st_dir(tmp, tiny_bert, "st-cls-bare", "cls")}


def test_a_mean_pooling_directory_gives_the_hand_computed_mean(st_dirs, tiny_bert):
    emb = hf_dir_embedder(st_dirs["mean"])
    assert isinstance(emb, SentenceTransformerEmbedder) and emb.dim == 16
    got = emb.embed(TEXTS)
    assert got.dtype == np.float32 and got.shape == (len(TEXTS), 16)
    np.testing.assert_allclose(got, _by_hand(tiny_bert, TEXTS, "mean"), atol=1e-6)
    # the same pooling as the plain path's: the vectors agree to float32 rounding
    np.testing.assert_allclose(got, HFMeanPoolEmbedder(tiny_bert).embed(TEXTS), atol=1e-6)


def test_a_cls_pooling_normalising_directory_gives_the_cls_vector_not_the_mean(st_dirs, tiny_bert):
    got = hf_dir_embedder(st_dirs["cls"]).embed(TEXTS)
    np.testing.assert_allclose(got, _by_hand(tiny_bert, TEXTS, "cls"), atol=1e-6)
    assert np.abs(got - _by_hand(tiny_bert, TEXTS, "mean")).max() > 0.05
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)


def test_rows_are_normalised_without_a_normalize_module(st_dirs, tiny_bert):
    # every embedder's rows are unit vectors (inner product = cosine); without Normalize, pooling then norm
    got = hf_dir_embedder(st_dirs["cls-bare"]).embed(TEXTS)
    np.testing.assert_allclose(got, _by_hand(tiny_bert, TEXTS, "cls"), atol=1e-6)


def test_a_text_gets_the_same_float32_vector_alone_and_in_any_batch(st_dirs):
    for emb in (hf_dir_embedder(st_dirs["cls"]), hf_dir_embedder(st_dirs["mean"], batch_size=4)):
        batch = emb.embed(TEXTS * 3)
        alone = np.concatenate([emb.embed([t]) for t in TEXTS])
        assert np.array_equal(batch[:len(TEXTS)], alone) and np.array_equal(batch[len(TEXTS):2 * len(TEXTS)], alone)
        assert emb.embed([]).shape == (0, 16)


def test_the_directory_default_prompt_is_prepended(tmp_path, tiny_bert):
    path = _st_dir(tmp_path, tiny_bert, "st-prompt", "mean", prompts={"query": "hello "})
    got = hf_dir_embedder(path).embed(["reset", "my password"])
    np.testing.assert_allclose(got, _by_hand(tiny_bert, ["hello reset", "hello my password"], "mean"), atol=1e-6)


def test_a_plain_directory_is_mean_pooled_as_before(tiny_bert):
    emb = hf_dir_embedder(tiny_bert)
    assert type(emb) is HFMeanPoolEmbedder
    assert np.array_equal(emb.embed(TEXTS), HFMeanPoolEmbedder(tiny_bert).embed(TEXTS))
    np.testing.assert_allclose(emb.embed(TEXTS), _by_hand(tiny_bert, TEXTS, "mean"), atol=1e-6)
    assert emb.model_id == hf_dir_identity(tiny_bert) == encoder_identity(tiny_bert)  # today's identity


def test_the_registry_takes_the_right_path(st_dirs, tiny_bert):
    st = registry.load_embedder(f"hf:{st_dirs['cls']}")
    plain = registry.load_embedder(f"hf:{tiny_bert}")
    # the registry hands out its models metered (models.calls): the model inside is the backend's
    assert isinstance(st.inner, SentenceTransformerEmbedder) and type(plain.inner) is HFMeanPoolEmbedder
    assert st.model_id == registry.embedder_identity(f"hf:{st_dirs['cls']}") == hf_dir_identity(st_dirs["cls"])
    assert plain.model_id == registry.embedder_identity(f"hf:{tiny_bert}")
    np.testing.assert_allclose(st.embed(TEXTS), _by_hand(tiny_bert, TEXTS, "cls"), atol=1e-6)


def test_identities_differ_by_path_and_follow_the_directory_content(st_dirs, tiny_bert, tmp_path):
    ids = {hf_dir_identity(tiny_bert), *(hf_dir_identity(p) for p in st_dirs.values())}
    assert len(ids) == 4
    assert hf_dir_identity(st_dirs["cls"]).startswith("hf-st:st-cls@") and hf_dir_identity(tiny_bert).startswith("hf:")
    # the same weights and file sizes, another pooling: the flags swap in place, so only the content tells them apart
    a = _st_dir(tmp_path / "a", tiny_bert, "model", "mean")
    b = _st_dir(tmp_path / "b", tiny_bert, "model", "cls")
    assert (a / "1_Pooling/config.json").stat().st_size == (b / "1_Pooling/config.json").stat().st_size
    assert hf_dir_identity(a) != hf_dir_identity(b)
    before = hf_dir_identity(a)
    (a / "modules.json").unlink()  # no longer a sentence-transformers directory: the plain path and its identity
    assert hf_dir_identity(a) == encoder_identity(a) != before


def test_a_broken_sentence_transformers_directory_is_one_clear_error(tmp_path, tiny_bert):
    path = _st_dir(tmp_path, tiny_bert, "broken", "mean")
    (path / "modules.json").write_text(json.dumps(
        [{"idx": 0, "name": "0", "path": "", "type": "no_such_package.Module"}]))
    with pytest.raises(ModelLoadError, match="cannot load .*broken as a sentence-transformers encoder") as err:
        hf_dir_embedder(path)
    assert "\n" not in str(err.value)


@pytest.mark.slow
def test_the_packaged_minilm_directory_through_sentence_transformers_matches_minilm():
    from models.embedders.hf import minilm_path

    texts = ["How do I reset my password?", "What is the capital of Finland?", "hello"]
    st = hf_dir_embedder(minilm_path(), device="cpu")
    assert isinstance(st, SentenceTransformerEmbedder)
    assert st.model_id != registry.embedder_identity("minilm")
    cosine = (st.embed(texts) * registry.load_embedder("minilm", device="cpu").embed(texts)).sum(axis=1)
    assert cosine.min() > 0.9999, cosine


def test_batches_of_like_lengths_within_a_token_budget():
    from models.embedders.hf import length_batches

    lengths = [250, 5, 7, 6, 240, 8, 5, 30]
    batches = length_batches(lengths, batch_size=3, budget=512)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))  # every text once
    assert all(len(b) <= 3 and max(lengths[i] for i in b) * len(b) <= 512 or len(b) == 1 for b in batches)
    assert [sorted(lengths[i] for i in b) for b in batches] == [[5, 5, 6], [7, 8, 30], [240, 250]]
    assert length_batches([2000, 3], 64, 1024) == [[1], [0]]  # longer than the budget: alone
    assert length_batches([], 64) == []


def test_a_vector_does_not_depend_on_its_batch(tiny_bert):
    """Batches follow length and a token budget, so a text meets different company in different calls: its
    float32 vector must not change (an increment embeds a question with other texts than the full build did)."""
    import models.embedders.hf as hf

    emb = HFMeanPoolEmbedder(tiny_bert, batch_size=4)
    texts = TEXTS * 3 + ["a much longer question " * 12]
    alone = np.stack([emb.embed([t])[0] for t in texts])
    together = emb.embed(texts)
    budget, hf.TOKEN_BUDGET = hf.TOKEN_BUDGET, 16
    try:
        squeezed = emb.embed(list(reversed(texts)))[::-1]
    finally:
        hf.TOKEN_BUDGET = budget
    assert np.array_equal(alone, together) and np.array_equal(alone, squeezed)
