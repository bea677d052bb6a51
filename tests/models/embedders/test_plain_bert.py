"""The plain-torch BERT (models.embedders.bert) gives transformers' BertModel's numbers without importing it."""

import json
import subprocess
import sys

import pytest
import torch

from models.embedders.bert import BertEncoder, BertShape, FastTokenizer, is_plain_bert_dir
from models.embedders.hf import minilm_path


@pytest.fixture(scope="module")
def pair():
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=64, max_position_embeddings=40)
    ref = BertModel(config, add_pooling_layer=False).eval()
    return ref, BertEncoder(BertShape.from_config(config.to_dict())).load_weights(ref.state_dict())


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16])
def test_the_same_numbers_as_transformers_with_and_without_padding(pair, dtype):
    ref, plain = (m.to(dtype) for m in pair)
    ids = torch.randint(1, 50, (3, 9), generator=torch.Generator().manual_seed(1))
    padded = torch.ones(3, 9, dtype=torch.long)
    padded[1, 6:] = 0
    padded[2, 3:] = 0
    with torch.inference_mode():
        for mask in (padded, torch.ones_like(padded)):
            a = ref(input_ids=ids, attention_mask=mask).last_hidden_state
            b = plain(input_ids=ids, attention_mask=mask).last_hidden_state
            assert torch.equal(a[mask.bool()], b[mask.bool()])  # bit for bit on every token attended


def test_layer_by_layer_with_an_additive_mask_as_the_pair_models_call_it(pair):
    ref, plain = (m.float() for m in pair)
    ids = torch.randint(1, 50, (2, 7), generator=torch.Generator().manual_seed(2))
    mask = torch.tensor([[1] * 7, [1] * 4 + [0] * 3])
    add = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
    with torch.inference_mode():
        a, b = ref.embeddings(input_ids=ids), plain.embeddings(input_ids=ids)
        assert torch.equal(a, b)
        for la, lb in zip(ref.encoder.layer, plain.encoder.layer):
            a, b = la(a, attention_mask=add), lb(b, attention_mask=add)
            a = a[0] if isinstance(a, tuple) else a
        assert torch.equal(a[mask.bool()], b[mask.bool()])


def test_missing_weights_are_refused(pair):
    ref, _ = pair
    state = {k: v for k, v in ref.state_dict().items() if "layer.1.output" not in k}
    with pytest.raises(KeyError, match="weights missing"):
        BertEncoder(BertShape(50, 32, 2, 4, 64, 40, 2, 1e-12, 0)).load_weights(state)


def test_the_packaged_minilm_tokenizes_as_transformers_does():
    from transformers import AutoTokenizer

    texts = ["How do I reset my password?", "Café naïve résumé ÀÉÎ", "emoji 😀 and 中文 mixed", "", "   ",
             "tab\tnew\nline \u200b zero width", "word " * 400, "UPPER lower MiXeD 12,345.67 e-mail@x.org"]
    path = minilm_path()
    assert is_plain_bert_dir(path)
    ref = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
    for max_length in (8, 256):
        assert (FastTokenizer(path)(texts, truncation=True, max_length=max_length)["input_ids"]
                == ref(texts, truncation=True, max_length=max_length)["input_ids"])


def test_minilm_and_a_pair_model_load_and_run_without_transformers():
    # nor torch's compiler, which building a module on the meta device imports (1.7 s a process)
    code = ("import sys\n"
            "from models.embedders.hf import HFMeanPoolEmbedder, minilm_path\n"
            "from models.cross_encoder import load_cross_encoder, pair_logits\n"
            "from models.answermatch.backends import PACKAGED\n"
            "HFMeanPoolEmbedder(minilm_path()).embed(['How do I reset my password?'])\n"
            "m, tok, _ = load_cross_encoder(PACKAGED)\n"
            "pair_logits(m, tok, [('1+1?', '2')])\n"
            "print(sorted(n for n in sys.modules if n.split('.')[0] == 'transformers' or n == 'torch._dynamo'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().replace("'", '"')) == []


def test_only_the_packaged_minilm_takes_the_plain_path(tiny_bert):
    from models.embedders.hf import HFMeanPoolEmbedder

    assert isinstance(HFMeanPoolEmbedder(minilm_path())._model, BertEncoder)
    other = HFMeanPoolEmbedder(tiny_bert)._model  # a directory no test compared: transformers, as before
    assert type(other).__module__.startswith("transformers.")
