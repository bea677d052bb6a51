"""The standalone judge's ``rules`` backend on hand-written questions (no model; fast)."""

import pytest

from models import registry
from models.config_check import load_config
from models.factory import RegistryModels, question_sections
from models.standalone.backends import JUDGE as STANDALONE
from models.standalone.rules import REASON, RuleStandalone
from schemas.config import BuildConfig
from schemas.errors import ConfigError
from schemas.judgement import flagged, verdicts

JUDGE = RuleStandalone()


def _judged(question: str, lang: str):
    [j] = JUDGE.judgements([question], [lang])
    return j


def _flags(question: str, lang: str) -> bool:
    return flagged(_judged(question, lang), JUDGE.own_threshold(lang), STANDALONE.flags_low)


@pytest.mark.parametrize("question,cue", [
    ("要门票吗？", "bare_predicate"), ("多少钱", "bare_predicate"), ("一箱多少钱", "bare_predicate"),
    ("几点开门", "bare_predicate"), ("能吃吗", "bare_predicate"), ("有什么区别", "bare_predicate"),
    ("孕妇能吃吗", "bare_predicate"), ("学生票多少钱", "bare_predicate"), ("这个怎么用", "deictic"), ("这首歌叫什么名字", "deictic"), ("他是谁", "deictic"), ("翻译一下上面的", "deictic"),
    ("那北京呢", "follow_up"), ("上海呢？", "follow_up"), ("还有呢", "follow_up"), ("继续", "follow_up"),
])
def test_chinese_questions_without_a_subject_are_flagged_with_their_cue(question, cue):
    j = _judged(question, "zh")
    assert j.reason == REASON and j.details["cue"] == cue and _flags(question, "zh")


@pytest.mark.parametrize("question,cue", [
    ("how much?", "bare_predicate"), ("how many calories", "bare_predicate"), ("what's the difference", "bare_predicate"),
    ("how long does it take?", "deictic"), ("is it safe?", "deictic"), ("is it safe for kids", "deictic"), ("who sings this song", "deictic"), ("translate this", "deictic"),
    ("what about London?", "follow_up"), ("and the second one?", "follow_up"), ("tell me more", "follow_up"),
])
def test_english_questions_without_a_subject_are_flagged_with_their_cue(question, cue):
    j = _judged(question, "en")
    assert j.reason == REASON and j.details["cue"] == cue and _flags(question, "en")


@pytest.mark.parametrize("question", [
    # short complete questions, the same predicates with their subject named
    "故宫门票多少钱", "故宫要门票吗", "一箱矿泉水多少钱", "布洛芬孕妇能吃吗", "长城有多长", "一年有多少天",
    "失眠怎么办", "苹果和安卓有什么区别", "什么是副作用", "钱重要吗", "学生需要什么",
    # two asking characters that make a topic word (小说, 高中), and a name that starts with a pointer (那英)
    "小说推荐", "高中难吗", "那英多大了",
    # a pointer with its referent named first
    "iPhone 15 它防水吗", "小米14这个手机怎么样", "周杰伦他多大了",
    # keywords naming their topic, and chit-chat (the intent scorer's judgement, not this one)
    "故宫门票", "布洛芬副作用", "python列表排序", "你好", "你是谁", "现在几点了", "今天天气怎么样",
])
def test_chinese_questions_that_name_their_subject_stand(question):
    assert not _flags(question, "zh"), _judged(question, "zh")


@pytest.mark.parametrize("question", [
    "how long to boil an egg", "how long does it take to get a passport", "is tap water safe to drink in mexico",
    "what is a side effect", "python list sort", "ibuprofen side effects", "iphone 15 is it waterproof",
    "netflix how much is it per month", "why is it called a hot dog", "is it true that goldfish have 3 second memory",
    "what is this year's super bowl date", "tea or coffee?", "hello", "who are you", "what time is it",
    # who something is for as the subject ("for kids" leaves the thing out), a bare definition, a plan for today
    "are kids expensive", "what is time", "what should i do today",
])
def test_english_questions_that_name_their_subject_stand(question):
    assert not _flags(question, "en"), _judged(question, "en")


def test_scores_are_in_the_unit_interval_and_a_longer_question_scores_lower():
    short = _judged("what should i do", "en")
    long = _judged("what should I do if it doesn't work", "en")
    assert 0.0 <= long.score < short.score <= 1.0 and long.reason == short.reason == REASON
    assert _judged("长城有多长", "zh") == (0.0, "", {"content": "长城"}, False)


def test_mixed_questions_are_judged_by_the_chinese_rules_and_the_threshold_decides():
    judged = JUDGE.judgements(["这个多少钱", "iPhone 15多少钱"], ["mixed", "mixed"])
    assert verdicts(JUDGE, judged, ["mixed", "mixed"]) == [(0.9, REASON), (0.0, "")]
    assert verdicts(JUDGE, judged, ["mixed", "mixed"], configured=0.95) == [(0.9, ""), (0.0, "")]


# ---- config -------------------------------------------------------------------------------------

def _config(**standalone) -> BuildConfig:
    return load_config(None, {f"standalone.{k}": v for k, v in standalone.items()})


def test_the_judge_is_wired_on_by_default_with_the_rules_and_its_own_threshold():
    cfg = load_config(None)
    assert (cfg.standalone.enabled, cfg.standalone.model, cfg.standalone.threshold) == (True, "rules", -1.0)
    [(section, _)] = question_sections(cfg)
    assert section == "standalone"
    [judge] = registry.configured_judges(question_sections(cfg), cfg.models)
    assert judge.model_id == "standalone-rules-v1" and judge.own_threshold("zh") == 0.5
    assert RegistryModels.of(cfg).identities()["standalone"] == "standalone-rules-v1"


def test_a_configured_threshold_replaces_the_judges_own():
    cfg = _config(threshold=0.95)
    [judge] = registry.configured_judges(question_sections(cfg), cfg.models)
    assert judge.own_threshold("en") == 0.95


def test_disabled_it_is_not_applied_nor_in_the_manifest_but_still_checked():
    cfg = _config(enabled=False)
    assert question_sections(cfg) == ()
    assert "standalone" not in RegistryModels.of(cfg).identities()
    with pytest.raises(ConfigError, match=r"config: standalone.model must be rules, got 'embedding'"):
        _config(enabled=False, model="embedding")


def test_bad_values_fail_with_one_line():
    with pytest.raises(ConfigError, match=r"standalone.threshold must be within \[0, 1\]"):
        _config(threshold=1.5)
    with pytest.raises(ConfigError, match=r"standalone.enabled must be true or false"):
        _config(enabled="yes")
    with pytest.raises(ConfigError, match=r"unknown key 'standalone.treshold'"):
        _config(treshold=0.5)
