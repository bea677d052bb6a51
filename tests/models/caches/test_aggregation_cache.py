"""The aggregation cache: keyed by question, answers, model identity (incl. prompt version)."""

from models.aggregators.base import AggregateResult, Viewpoint
from models.caches.aggregations import AggregationCache, CachedAggregator, group_key
from schemas.records import AnswerCount


class Counting:
    def __init__(self, model_id="agg-v1"):
        self.model_id = model_id
        self.seen = []

    def aggregate_many(self, groups):
        self.seen.extend(q for q, *_ in groups)
        return [AggregateResult(f"answer to {q}", 0.75, 0.5, [Viewpoint("s", [a.answer_id for a in ans])],
                                "embedding-majority-vote", ["tie"]) for q, _, _, ans in groups]


def _group(q, texts=("yes", "no")):
    return (q, "objective", "en", [AnswerCount(i, t, 1) for i, t in enumerate(texts, 1)])


def test_key_changes_with_answers_model_and_prompt_version():
    q, t, lang, answers = _group("Q?")
    base = group_key(q, t, lang, answers, "llm[x|aggregate-v1@aa]")
    assert base == group_key(q, t, lang, list(answers), "llm[x|aggregate-v1@aa]")
    assert base != group_key(q, t, lang, answers, "llm[x|aggregate-v2@bb]")
    assert base != group_key(q, t, lang, answers[:1], "llm[x|aggregate-v1@aa]")
    assert base != group_key(q, t, lang, [answers[0]._replace(count=2), answers[1]], "llm[x|aggregate-v1@aa]")
    assert base != group_key(q, "subjective", lang, answers, "llm[x|aggregate-v1@aa]")


def test_cached_aggregator_skips_unchanged_groups_across_processes(tmp_path):
    path = tmp_path / "cache" / "aggregation.sqlite"
    inner = Counting()
    first = CachedAggregator(inner, AggregationCache(path)).aggregate_many([_group("A?"), _group("B?")])
    again = CachedAggregator(inner, AggregationCache(path))  # a new connection, as a new build would open
    second = again.aggregate_many([_group("A?"), _group("C?"), _group("B?", ("yes", "maybe"))])
    assert inner.seen == ["A?", "B?", "C?", "B?"]  # A served from the cache; B's answers changed
    assert (again.hits, again.misses) == (1, 2)
    assert second[0] == first[0] and second[0].viewpoints == [Viewpoint("s", [1, 2])]
    other_model = CachedAggregator(Counting("agg-v2"), AggregationCache(path))
    other_model.aggregate_many([_group("A?")])
    assert other_model.misses == 1


def test_aggregator_identities_carry_every_setting_that_changes_results():
    from fakes.models import FakeEmbedder

    from models.aggregators.embedding import EmbeddingAggregator
    from models.aggregators.llm import LlmAggregator

    a = EmbeddingAggregator(FakeEmbedder())
    assert a.model_id != EmbeddingAggregator(FakeEmbedder(), merge_threshold=0.5).model_id
    assert a.model_id != EmbeddingAggregator(FakeEmbedder(), lexical_weight=0.5).model_id

    class Gen:
        model_id = "gen/max256"

    llm = LlmAggregator(Gen(), a)
    assert llm.model_id.endswith(f"|fallback={a.model_id}]")
    assert llm.model_id != LlmAggregator(Gen(), EmbeddingAggregator(FakeEmbedder(), lexical_weight=0.1)).model_id
