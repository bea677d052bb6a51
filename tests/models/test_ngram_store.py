"""Built n-gram models on disk (models.lm.ngram_store): read back identical, rebuilt when unreadable."""

import numpy as np

from models.lm import ngram_store
from models.lm.char_ngram import CharNgramModel, decode_models, encode_models

LINES = ["今天天气很好，我们去公园散步。", "明天下雨，我们在家看书。", "他去了北京，然后去了上海。",
         "我今天很高兴。", "公园里有很多人在散步。"] * 3


def _models():
    (fwd, low), (bwd, bwd_low) = CharNgramModel.build_kneser_ney(LINES, order=4, lower=2, min_char_count=1,
                                                                  source="test", backward=True)
    return fwd, low, bwd, bwd_low


def test_saved_models_read_back_identical(tmp_path):
    built = _models()
    path = tmp_path / "m.npz"
    ngram_store.save_tables(*encode_models(built), path)
    loaded = decode_models(*ngram_store.load_tables(path))
    texts = ["今天很好", "我们去北京", "没见过的字"]
    for a, b in zip(built, loaded):
        assert (a.order, a.source, a.n_chars, a.backward, a.vocab) == (b.order, b.source, b.n_chars, b.backward, b.vocab)
        for x, y in zip(a.logprobs(texts), b.logprobs(texts)):
            assert np.array_equal(x, y)
    assert all(m.vocab is loaded[0].vocab for m in loaded)  # one vocabulary object, as when built together
    assert not list(tmp_path.glob("*.tmp"))  # written atomically


def test_cache_builds_once_and_rebuilds_what_it_cannot_read(tmp_path, monkeypatch):
    monkeypatch.setenv("QABASE_CACHE_DIR", str(tmp_path))
    calls = []

    def build():
        calls.append(1)
        return _models()

    first = ngram_store.cached("t.npz", build, encode_models, decode_models)
    second = ngram_store.cached("t.npz", build, encode_models, decode_models)
    assert len(calls) == 1 and len(second) == 4
    assert np.array_equal(first[0].logprobs(["今天"])[0], second[0].logprobs(["今天"])[0])
    (tmp_path / "zh-ngram" / "t.npz").write_bytes(b"not a zip")  # a damaged file is rebuilt, not fatal
    ngram_store.cached("t.npz", build, encode_models, decode_models)
    assert len(calls) == 2 and decode_models(*ngram_store.load_tables(tmp_path / "zh-ngram" / "t.npz"))


def test_an_unwritable_cache_still_gives_the_models(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("QABASE_CACHE_DIR", str(blocker))  # a file where the folder should be
    assert len(ngram_store.cached("t.npz", _models, encode_models, decode_models)) == 4
