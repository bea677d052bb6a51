"""The English word bigram model (symspellpy's Google Books counts) and the quire-ngram GEC default."""

import math

import pytest

from models.lm.word_ngram import WordBigramModel, symspell_bigram_model, tokens


def test_tokens_keep_contractions_and_numbers():
    assert tokens("Don’t reset my PIN 1234, OK?") == ["don't", "reset", "my", "pin", "1234", "ok"]


def test_absolute_discounting_on_a_hand_made_table():
    uni = {"how": 10, "do": 8, "i": 12, "reset": 2}
    bi = {("how", "do"): 6, ("do", "i"): 5, ("how", "i"): 2}
    m = WordBigramModel(uni, bi)
    assert m.discount == 2.0  # the truncation level of the pair table
    # seen pair: discounted count plus the reserved mass spread over unigrams
    p_uni_do = (8 + 1) / (32 + 4)
    assert m.prob("how", "do") == pytest.approx((6 - 2) / 8 + 2 * 2 / 8 * p_uni_do)
    # every context's distribution over the vocabulary sums to at most 1 (the rest is unseen words)
    for ctx in ("how", "do", "reset"):
        assert sum(m.prob(ctx, w) for w in uni) <= 1.0 + 1e-9
    # unknown words are skipped, not scored
    assert [(a, b) for a, b, _ in m.pair_logprobs("how do xyzzy i")] == [("how", "do")]


def test_symspell_tables_prefer_grammatical_word_order():
    m = symspell_bigram_model()
    good = m.pair_logprobs("how do i reset my password")
    swapped = m.pair_logprobs("how i do reset password my")
    assert sum(lp for *_, lp in good) / len(good) > sum(lp for *_, lp in swapped) / len(swapped)
    assert m.prob("i", "am") > 10 * m.prob("i", "is")
    assert all(math.isfinite(lp) for *_, lp in good)


@pytest.mark.slow
def test_quire_ngram_catches_what_quire_alone_misses():
    from models.registry import model_key_model
    from schemas.config import ModelsConfig

    quire, combined = (model_key_model("gec_en", ModelsConfig(gec_en=name)) for name in ("quire", "quire-ngram"))
    pairs = [("how do i reset my password", "how i do reset my password"),
             ("she has a new phone", "she have a new phone"),
             ("what is the capital of france", "what the is capital of france")]
    wins_quire = sum(a > b for (a, _), (b, _) in zip(quire.score([g for g, _ in pairs]),
                                                    quire.score([b for _, b in pairs])))
    combined_good = combined.score([g for g, _ in pairs])
    combined_bad = combined.score([b for _, b in pairs])
    assert sum(a > b for (a, _), (b, _) in zip(combined_good, combined_bad)) == 3 > wins_quire
    assert min(s for s, _ in combined_good) > 0.6
    details = combined_bad[0][1]
    assert {"corrections", "fluency", "z", "nll", "least_likely", "word_pairs"} <= set(details)
    assert combined.model_id.startswith(quire.model_id + "+word-bigram-v1")
