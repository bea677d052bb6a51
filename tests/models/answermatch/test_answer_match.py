"""The answer-match judge: a judge of answers declared in its folder and wired by one line, on by default."""

import numpy as np
import pytest

from models import registry
from models.answermatch.backends import JUDGE as ANSWER_MATCH
from models.answermatch.judge import REASON, AnswerMatchJudge
from models.config_check import load_config
from models.factory import RegistryModels, judge_sections
from schemas.judgement import ANSWER, OWN_THRESHOLD, Configured, verdicts


class Logits:
    def __init__(self, by_answer):
        self.by_answer, self.asked = by_answer, []

    def __call__(self, pairs):
        self.asked.append(list(pairs))
        return [self.by_answer[a] for _, a in pairs]


def test_it_scores_the_probability_of_not_answering_and_never_decides():
    logits = Logits({"王俊凯的身高是180cm": -3.0, "王俊凯的职业生涯和成就": 3.0})
    judge = AnswerMatchJudge(logits, 0.3, "answer-match-x")
    qs = ["王俊凯多高", "王俊凯多高"]
    js = judge.judgements(list(zip(qs, ["王俊凯的身高是180cm", "王俊凯的职业生涯和成就"], ["zh", "zh"])))
    assert js[0].score == pytest.approx(1 / (1 + np.exp(3.0)), abs=1e-6) and js[1].reason == REASON
    assert [r for _, r in verdicts(judge, js, ["zh", "zh"])] == ["", REASON]
    assert logits.asked == [list(zip(qs, ["王俊凯的身高是180cm", "王俊凯的职业生涯和成就"]))]  # question first


def test_languages_it_was_not_trained_on_are_not_judged():
    logits = Logits({})
    judge = AnswerMatchJudge(logits, 0.3, "answer-match-x")
    [j] = judge.judgements([("How tall is he?", "His career and achievements.", "en")])
    assert (j.score, j.reason) == (0.0, "") and logits.asked == []


def test_it_is_wired_as_an_answer_judge_and_on_by_default():
    assert "answer_match" in [j.section for j in registry.JUDGES if j.level == ANSWER]
    off = load_config(None, {"answer_match.enabled": False})
    assert judge_sections(off, ANSWER) == () and "answer_match" not in RegistryModels.of(off).identities()
    on = load_config(None)
    assert [s for s, _ in judge_sections(on, ANSWER)] == ["answer_match"]
    assert RegistryModels.of(on).identities()["answer_match"].startswith("answer-match-e5-v1@")


def test_a_bad_model_name_or_file_is_a_config_error(tmp_path):
    from schemas.errors import ConfigError

    with pytest.raises(ConfigError, match="answer_match.model must be"):
        load_config(None, {"answer_match.model": "rules"})
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(None, {"answer_match.model": f"e5-pairs:{tmp_path / 'none.npz'}"})


@pytest.mark.slow  # loads the packaged encoder (70 MB)
def test_the_packaged_model_loads_through_the_registry_and_judges():
    cfg = load_config(None, {"answer_match.enabled": True})
    [judge] = registry.configured_judges(judge_sections(cfg, ANSWER), cfg.models)
    js = judge.judgements([("王俊凯多高", "王俊凯的身高是180cm", "zh"), ("王俊凯多高", "无法确定王俊凯的身高", "zh")])
    assert js[0].score < js[1].score
    assert judge.model_id == RegistryModels.of(cfg).identities()["answer_match"]


@pytest.mark.slow  # loads the packaged encoder
def test_builds_with_other_cache_folders_share_one_copy_of_the_encoders_weights(tmp_path):
    # a judge is made again for each cache folder (a long-lived process builds many bases); a copy of the e5
    # weights each held about half a gigabyte until the process ended
    cfg = load_config(None, {"answer_match.enabled": True})
    first, second = (registry.configured_judges(judge_sections(cfg, ANSWER), cfg.models, str(tmp_path / name))[0]
                     for name in ("a", "b"))
    assert first.inner is not second.inner
    assert first.inner.logits.model is second.inner.logits.model


def test_a_judges_context_carries_the_models_device_and_batch_size():
    from schemas.config import ModelsConfig

    ctx = registry._judge_context("answer_match", load_config(None).answer_match,
                                  ModelsConfig(device="cpu", batch_size=7))
    assert (ctx.device, ctx.batch_size) == ("cpu", 7)


def test_its_identity_names_the_number_format_it_runs_in():
    base = load_config(None, {"models.precision": "float32"})
    bf16 = load_config(None, {"models.precision": "bfloat16"})
    f32_id = RegistryModels.of(base).identities()["answer_match"]
    bf16_id = RegistryModels.of(bf16).identities()["answer_match"]
    assert bf16_id == f32_id + "+bf16" and "+" not in f32_id


def test_it_is_asked_only_where_the_non_answer_judge_is_unsure():
    from models.answer_judging import other_verdicts

    logits = Logits({"a1": 3.0, "a2": 3.0, "a3": 3.0})
    # as the registry hands it out: at its own threshold, in its kind's direction
    judge = Configured(AnswerMatchJudge(logits, 0.3, "answer-match-x", asks_above=0.03), OWN_THRESHOLD,
                       "answer-match-x", ANSWER_MATCH.flags_low)
    items = [("q1", "a1", "zh"), ("q2", "a2", "zh"), ("q3", "a3", "zh")]
    out = other_verdicts((judge,), items, [0.5, 0.01, 0.03])
    assert logits.asked == [[("q1", "a1"), ("q3", "a3")]]  # the answer the cheap judge is surest of is not asked
    assert [r for _, r in out] == [REASON, "", REASON]
    logits.asked.clear()
    assert [r for _, r in other_verdicts((judge,), items)] == [REASON] * 3  # no scores: every answer asked
    assert len(logits.asked[0]) == 3


def test_the_gate_is_config():
    assert load_config(None).answer_match.ask_above == 0.03
    from schemas.errors import ConfigError

    with pytest.raises(ConfigError, match="ask_above"):
        load_config(None, {"answer_match.ask_above": 2})


class NonAnswerHead:
    """A non-answer judge with columns: flags by score, or by a sure rule."""

    def __init__(self, by_answer):
        self.by_answer = by_answer  # answer -> (score, reason, sure)

    def judgements(self, items):
        from schemas.judgement import Judgement

        return [Judgement(s, r, {}, sure) for s, r, sure in (self.by_answer[a] for _, a, _ in items)]

    def decide(self, judged, langs):
        return [(j.score, j.reason if j.sure or j.score >= 0.5 else "") for j in judged]


@pytest.mark.parametrize("below", [0.7, 0.0])
def test_it_judges_again_what_the_non_answer_judge_flags_by_its_score_alone(below):
    from models.nonanswer.backends import JUDGE as NON_ANSWER_KIND
    from models.answer_judging import judged_columns

    head = NonAnswerHead({"a1": (0.9, "non_answer", False), "a2": (1.0, "inability", True),
                          "a3": (0.8, "non_answer", False), "a4": (0.7, "non_answer", False),
                          "a5": (0.1, "", False), "a6": (0.99, "non_answer", False)})
    # the pair model: a1 answers its question, a2 (a sure rule's flag) too, a3 does not, a6 (.5 to .73) probably
    # does not (above its threshold of .3, below where it lets through); a4 is English
    logits = Logits({"a1": -3.0, "a2": -3.0, "a3": 3.0, "a4": -3.0, "a5": -3.0, "a6": 1.0})
    judge = Configured(AnswerMatchJudge(logits, 0.3, "answer-match-x", asks_above=0.03, lets_through_below=below),
                       OWN_THRESHOLD, "answer-match-x", ANSWER_MATCH.flags_low)
    items = [("q1", "a1", "zh"), ("q2", "a2", "zh"), ("q3", "a3", "zh"), ("q4", "a4", "en"), ("q5", "a5", "zh"),
             ("q6", "a6", "zh")]
    columns = judged_columns(((NON_ANSWER_KIND, head), (ANSWER_MATCH, judge)), items)
    flags = [c["non_answer"] for c in columns]
    reasons = [c["non_answer_reason"] for c in columns]
    if below:
        # let through where the pair model scores it below .7; the head's reason where it does not; a sure rule's
        # flag and a language it does not read are not judged again
        assert flags == [False, True, True, True, False, True]
        assert reasons == ["", "inability", "non_answer", "non_answer", "", "non_answer"]
        assert [a for _, a in sum(logits.asked, [])] == ["a5", "a1", "a3", "a6"]
    else:
        assert flags == [True, True, True, True, False, True]
        assert [a for _, a in sum(logits.asked, [])] == ["a5"]
    assert [c["non_answer_score"] for c in columns] == [0.9, 1.0, 0.8, 0.7, 0.1, 0.99]  # the head's, as they were


def test_what_it_lets_through_is_config():
    from schemas.errors import ConfigError

    assert load_config(None).answer_match.lets_through_below == 0.7
    with pytest.raises(ConfigError, match="lets_through_below"):
        load_config(None, {"answer_match.lets_through_below": 1.5})


def test_the_encoder_is_loaded_when_a_chinese_answer_is_first_asked(tmp_path, monkeypatch):
    # a build of English answers alone never asks it: it neither loads the encoder (~2 s) nor holds its weights
    import models.cross_encoder as ce

    loads = []
    monkeypatch.setattr(ce, "shared_cross_encoder", lambda path, device, precision: loads.append(path) or
                        ("model", "tokenizer", {}))
    monkeypatch.setattr(ce, "pair_logits", lambda model, tok, pairs, batch, device: np.full(len(pairs), 2.0))
    cfg = load_config(None, {"answer_match.enabled": True})
    [judge] = registry.configured_judges(judge_sections(cfg, ANSWER), cfg.models, str(tmp_path / "fresh"))
    english = judge.judgements([("How tall is he?", "I cannot tell.", "en")] * 3)
    assert loads == [] and [j.score for j in english] == [0.0] * 3
    chinese = judge.judgements([("王俊凯多高", "无法确定", "zh"), ("王俊凯多高", "180cm", "zh")])
    assert len(loads) == 1 and all(j.score > 0.8 for j in chinese)
    judge.judgements([("王俊凯多高", "无法确定", "zh")])
    assert len(loads) == 1  # loaded once
