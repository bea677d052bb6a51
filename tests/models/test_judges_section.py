"""The config's ``judges`` section: which judges each level's stage applies and in what order, as data. Its
default, its choices and the reference page's rows are read from the declarations (models.registry.JUDGES), so a
judge declared here and wired by adding it to the list is listed, checked, loaded and recorded with no other edit."""

from dataclasses import dataclass

import pytest

from models import registry
from models.config_check import config_class, default_config, load_config
from models.config_reference import config_keys
from models.factory import RegistryModels, judge_sections, question_sections
from schemas.backends import Backend
from schemas.config import BuildConfig, ModelsConfig, key
from schemas.errors import ConfigError
from schemas.judgement import ANSWER, PAIR, QUESTION, Judgement, JudgeKind


class ShortJudge:
    """Score 1 for a question of fewer than ``min_words`` words; reason ``too_short``."""

    def __init__(self, min_words: int):
        self.min_words = min_words
        self.model_id = f"too-short-v1@{min_words}"

    def own_threshold(self, lang: str) -> float:
        return 0.5

    def judgements(self, texts, langs):
        return [Judgement(float(len(t.split()) < self.min_words), "too_short") for t in texts]


@dataclass(frozen=True)
class ShortConfig:
    enabled: bool = key(True, "Judge it.")
    model: str = key("words", "`words`: counts words.")
    threshold: float = key(-1.0, "Flagged at or above this; -1: the judge's own.")
    min_words: int = key(3, "Fewest words kept.", lo=1)


JUDGE = JudgeKind("too_short", QUESTION, (Backend("words", lambda target, ctx: ShortJudge(ctx.section.min_words),
                                                  lambda target, ctx: f"too-short-v1@{ctx.section.min_words}"),),
                  ShortConfig, "Questions too short to stand alone.")


@pytest.fixture
def wired(monkeypatch):
    monkeypatch.setattr(registry, "JUDGES", registry.JUDGES + (JUDGE,))


def test_the_default_lists_every_wired_judge_without_columns_in_wiring_order():
    judges = default_config().judges
    assert judges.question == tuple(j.section for j in registry.JUDGES if j.level == QUESTION and not j.built_in)
    assert judges.answer == tuple(j.section for j in registry.JUDGES if j.level == ANSWER and not j.built_in)
    assert judges.pair == tuple(j.section for j in registry.JUDGES if j.level == PAIR and not j.built_in)
    assert "non_answer" not in judges.answer  # built in: applied by its own stage, set in its own section
    assert load_config(None) == load_config(None, {"judges.question": list(judges.question)})  # old configs read


def test_a_judge_wired_by_the_list_gets_its_section_entry_identity_and_application(wired):
    cfg = load_config(None, {"too_short.min_words": 4})
    assert cfg.judges.question == ("standalone", "too_short") and cfg.too_short.min_words == 4
    assert [s for s, _ in question_sections(cfg)] == ["standalone", "too_short"]
    *_, judge = registry.configured_judges(question_sections(cfg), cfg.models)
    assert judge.judgements(["reset my password"], ["en"])[0].score == 1.0 and judge.model_id == "too-short-v1@4"
    assert RegistryModels.of(cfg).identities()["too_short"] == "too-short-v1@4"
    rows = {path: default for path, _, default in config_keys(config_class()())}  # the reference page's rows
    assert rows["judges.question"] == ("standalone", "too_short") and rows["too_short.min_words"] == 3


def test_the_list_orders_and_leaves_out_judges(wired):
    cfg = load_config(None, {"judges.question": ["too_short", "standalone"]})
    assert [s for s, _ in question_sections(cfg)] == ["too_short", "standalone"]
    models = RegistryModels.of(cfg)
    assert [j.model_id for j in models.scoring().judges] == ["too-short-v1@3", "standalone-rules-v1"]
    left_out = load_config(None, {"judges.question": ["too_short"]})
    assert [s for s, _ in question_sections(left_out)] == ["too_short"]
    assert "standalone" not in RegistryModels.of(left_out).identities()  # not applied: not recorded
    # listed, but its section turns it off
    off = load_config(None, {"too_short.enabled": False})
    assert [s for s, _ in question_sections(off)] == ["standalone"]


@pytest.mark.parametrize("overrides,message", [
    ({"judges.question": ["standalone", "no_such"]},
     "config: judges.question: 'no_such' is not a question judge (choices: standalone, too_short)"),
    ({"judges.answer": ["non_answer"]}, "config: judges.answer: 'non_answer' is not an answer judge (choices: "
                                        "answer_match)"),
    ({"judges.pair": ["standalone"]}, "config: judges.pair: 'standalone' is not a pair judge (no pair judge is "
                                      "wired)"),
    ({"judges.question": ["too_short", "too_short"]}, "config: judges.question lists 'too_short' twice"),
    ({"judges.level": []}, "config: unknown key 'judges.level' (known: answer, pair, question)"),
])
def test_an_unknown_name_is_one_error_line_with_the_choices(wired, overrides, message):
    with pytest.raises(ConfigError) as err:
        load_config(None, overrides)
    assert str(err.value) == message and "\n" not in str(err.value)


def test_the_direction_is_the_declarations_carried_beside_the_judge(monkeypatch):
    """A judge object states no direction: the registry hands it out with its kind's (JudgeKind.flags_low) and the
    score stage decides in it. The same judge declared a quality score flags the questions it scores low."""
    from pipelines.stages.score import decided
    from schemas.config import FilterConfig
    from schemas.records import QuestionStats

    asked = [QuestionStats(key=t, question=t, frequency=1, lang="en", surface_forms=1)
             for t in ("reset password", "how do I reset my password")]  # scored 1 and 0
    fine, wired = (Judgement(1.0, "low_gec"), Judgement(1.0, "low_intent")), registry.JUDGES
    for flags_low, flagged in ((False, [("too_short",), ()]), (True, [(), ("too_short",)])):
        monkeypatch.setattr(registry, "JUDGES", wired + (JUDGE._replace(flags_low=flags_low),))
        cfg = load_config(None, {"judges.question": ["too_short"]})
        [judge] = registry.configured_judges(question_sections(cfg), cfg.models)
        assert judge.flags_low is flags_low and not hasattr(judge.inner, "flags_low")
        models = registry.ScoringModels(None, None, None, (judge,))
        judged = judge.judgements([q.question for q in asked], ["en", "en"])
        assert [decided(q, *fine, (j,), models, FilterConfig()).flags for q, j in zip(asked, judged)] == flagged


def test_a_config_without_the_section_applies_every_wired_judge_in_wiring_order(wired):
    assert [s for s, _ in judge_sections(BuildConfig(), QUESTION)] == ["standalone", "too_short"]


def test_gec_and_intent_are_entries_whose_models_the_models_section_names():
    gec = registry.model_key_judge("gec_zh")
    assert gec.section == "gec" and gec.model_keys == ("gec_en", "gec_zh") and not gec.has_section
    assert registry.model_key_judge("intent").columns == ("intent_score", "intent_details", "passed_intent")
    models_cfg = load_config(None, {"models.gec_en": "quire"}).models
    ids = registry.model_identities(models_cfg, default_config().aggregation)
    assert ids["gec_en"] == registry.model_key_identity("gec_en", ModelsConfig(gec_en="quire"))
    assert ids["gec_zh"] == registry.model_key_identity("gec_zh", ModelsConfig(gec_zh="zh-ngram"))
    assert "gec" not in ids and not hasattr(default_config(), "gec")  # its keys stay in models and filter
    with pytest.raises(ConfigError, match=r"^config: models.gec_zh must be one of quire-ngram, .* got 'bert'$"):
        load_config(None, {"models.gec_zh": "bert"})


def test_gec_and_intent_are_decided_in_one_place_for_the_build_and_the_tools(monkeypatch):
    """The score stage and ``qabase score all`` (models.tools.judge_all) both decide GEC and intent through
    models.factory.filter_verdicts: a direction declared otherwise changes both."""
    from models.tools.judge_all import quality_flags
    from pipelines.stages.score import decided
    from schemas.config import FilterConfig
    from schemas.records import QuestionStats

    q = QuestionStats(key="q", question="q", frequency=1, lang="en", surface_forms=1)
    models, filt = registry.ScoringModels(None, None, None, ()), FilterConfig(gec_threshold=0.5, intent_threshold=0.3)

    def both(gec: float, intent: float):
        s = decided(q, Judgement(gec, "low_gec"), Judgement(intent, "low_intent"), (), models, filt)
        return quality_flags(gec, intent, filt), (s.passed_gec, s.passed_intent)

    assert both(0.4, 0.9) == (["low_gec"], (False, True)) and both(0.9, 0.3) == (["low_intent"], (True, False))
    gec = registry.model_key_judge("gec_en")
    monkeypatch.setattr(registry, "JUDGES", tuple(j._replace(flags_low=False) if j is gec else j
                                                  for j in registry.JUDGES))
    assert both(0.4, 0.9) == ([], (True, True)) and both(0.9, 0.9) == (["low_gec"], (False, True))
