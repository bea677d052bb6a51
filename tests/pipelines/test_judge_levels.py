"""A judge of answers and a judge of question pairs, added the way a contributor adds any judge, through the whole
graph with the fakes. Each touches, like the question judge of test_question_judge.py:
1. its own folder, models/<kind>/: the judge (scores, never decides), its config section (``model``,
   ``threshold`` (-1: the judge's own) and its own keys), its ``BACKENDS`` table and its declaration
   ``JUDGE = JudgeKind(section, level, BACKENDS, config, meaning)`` (here: the classes and constants below);
2. one line of wiring, ``<kind>.JUDGE,`` in models.registry.JUDGES (here: monkeypatched).
The registry checks and loads them from their tables, the factory hands each level's judges to its stage, the
manifest records their identities: an answer the answer judge flags is shut out as a non-answer is, with its
reason; a pair the pair judge flags is never merged. The answer stage names no judge: the built-in answer judges
(non-answer, instruction-like) come to it in the same list as the new one, and a declaration that takes over a
built-in one's columns is applied there with no other edit."""

import json
from collections import Counter
from dataclasses import dataclass

import pyarrow.parquet as pq
import pytest
from fakes.models import FakesWithJudges

from models import registry
from models.config_check import load_config
from models.factory import RegistryModels
from models.injection.backends import JUDGE as INJECTION
from pipelines.build import run_build
from schemas.backends import Backend
from schemas.config import key
from schemas.judgement import ANSWER, PAIR, Judgement, JudgeKind
from schemas.layout import QA_FILE


# --- 1. the folders --------------------------------------------------------------------------------------------

class ShoutingAnswerJudge:
    """Score 1 for an answer written in capitals only (at least ``min_letters`` letters); reason ``shouting``."""

    def __init__(self, min_letters: int):
        self.min_letters = min_letters
        self.model_id = f"shouting-v1@{min_letters}"

    def own_threshold(self, lang: str) -> float:
        return 0.5

    def judgements(self, items):
        return [Judgement(1.0 if sum(c.isalpha() for c in a) >= self.min_letters and a.upper() == a else 0.0,
                          "shouting") for _, a, _ in items]


@dataclass(frozen=True)
class ShoutingConfig:
    model: str = key("caps", "`caps`: letters in capitals.")
    threshold: float = key(-1.0, "An answer is flagged when its score reaches this; -1 takes the judge's own.")
    min_letters: int = key(8, "Fewest letters an answer shouts with.", lo=1)


ANSWER_BACKENDS = (Backend("caps", lambda target, ctx: ShoutingAnswerJudge(ctx.section.min_letters),
                           lambda target, ctx: f"shouting-v1@{ctx.section.min_letters}"),)
ANSWER_JUDGE = JudgeKind("shouting", ANSWER, ANSWER_BACKENDS, ShoutingConfig, "Answers written in capitals.")


class OtherVerbJudge:
    """Score 1 for two questions whose second words differ ("how do I ..." and "how can I ..." ask for a way and for
    a permission): never one question, however alike the rest."""

    model_id = "other-verb-v1"

    def own_threshold(self, lang: str) -> float:
        return 0.5

    def judgements(self, pairs, langs):
        def verb(t):
            words = t.lower().split()
            return words[1] if len(words) > 1 else ""

        return [Judgement(1.0 if verb(a) != verb(b) else 0.0, "other_verb") for a, b in pairs]


@dataclass(frozen=True)
class OtherVerbConfig:
    model: str = key("words", "`words`: the second word of each.")
    threshold: float = key(-1.0, "A pair is kept apart when its score reaches this; -1 takes the judge's own.")


PAIR_BACKENDS = (Backend("words", lambda target, ctx: OtherVerbJudge(), lambda target, ctx: OtherVerbJudge.model_id),)
PAIR_JUDGE = JudgeKind("other_verb", PAIR, PAIR_BACKENDS, OtherVerbConfig, "Questions asking with other verbs.")


# --- 2. one line of wiring each ------------------------------------------------------------------------------------

@pytest.fixture
def wired(monkeypatch):
    monkeypatch.setattr(registry, "JUDGES", registry.JUDGES + (ANSWER_JUDGE, PAIR_JUDGE))


CALM, SHOUTED = "Click Forgot password on the sign-in page.", "CALL THE HELPDESK NOW"
OPEN_DO, OPEN_CAN = "How do I open an account?", "How can I open an account?"


def _build(tmp_path, **overrides):
    rows = ([("How do I reset my password?", CALM)] * 2 + [("How do I reset my password?", SHOUTED)] * 3
            + [(OPEN_DO, "Fill in the form at any branch.")] * 3 + [(OPEN_CAN, "Use the app's sign-up page.")] * 2
            + [("What is the capital of France?", "Paris.")] * 2)
    path = tmp_path / "logs.jsonl"
    path.write_text("".join(json.dumps({"question": q, "answer": a}) + "\n" for q, a in rows), encoding="utf-8")
    cfg = load_config(None, {"aggregation.cache": False, "quality.data_docs": False, "answer_match.enabled": False,
                             **overrides})
    return run_build([str(path)], tmp_path / "base", cfg, factory=FakesWithJudges.of(cfg), gate=False, report=False)


def _qa(res) -> dict:
    return {r["question"]: r for r in pq.read_table(res.path / QA_FILE).to_pylist()}


def test_an_answer_judge_shuts_out_the_answers_it_flags(wired, tmp_path):
    res = _build(tmp_path)
    entry = _qa(res)["How do I reset my password?"]
    shouted = next(a for a in entry["answers"] if a["text"] == SHOUTED)
    assert shouted["non_answer"] and shouted["non_answer_reason"] == "shouting"
    assert entry["answer"] == CALM  # the most given answer was shut out: the calm one is served
    assert res.manifest["models"]["shouting"] == "shouting-v1@8"


def test_a_pair_judge_keeps_apart_what_the_paraphrase_judge_would_merge(wired, tmp_path):
    qa = _qa(_build(tmp_path))
    assert qa[OPEN_DO]["frequency"] == 3 and qa[OPEN_CAN]["frequency"] == 2
    assert OPEN_CAN not in [a["question"] for a in qa[OPEN_DO]["aliases"]]


def test_without_the_pair_judge_the_paraphrase_judge_merges_them(monkeypatch, tmp_path):
    monkeypatch.setattr(registry, "JUDGES", registry.JUDGES + (ANSWER_JUDGE,))
    qa = _qa(_build(tmp_path))
    assert OPEN_CAN not in qa and qa[OPEN_DO]["frequency"] == 5  # the fake paraphrase judge reads them as one


def test_the_registry_checks_each_new_judges_config(wired):
    with pytest.raises(Exception, match=r"shouting.model must be caps"):
        load_config(None, {"shouting.model": "words"})
    with pytest.raises(Exception, match=r"other_verb.threshold must be within \[0, 1\]"):
        load_config(None, {"other_verb.threshold": 3.0})


def test_the_judges_section_takes_a_wired_judge_out_without_code(wired, tmp_path):
    # wired, listed by default (judges.pair: [other_verb]); an empty list takes it out of the paraphrase stage
    qa = _qa(_build(tmp_path, **{"judges.pair": []}))
    assert OPEN_CAN not in qa and qa[OPEN_DO]["frequency"] == 5


def test_the_answer_stage_gets_the_new_judge_in_the_same_list_as_the_built_in_ones(wired):
    cfg = load_config(None, {"non_answer.model": "rules", "answer_match.enabled": False})
    for factory in (FakesWithJudges.of(cfg), RegistryModels.of(cfg)):
        assert [kind.section for kind, _ in factory.answer_judges()] == ["non_answer", "injection", "shouting"]
    off = load_config(None, {"non_answer.model": "rules", "answer_match.enabled": False, "injection.enabled": False,
                             "judges.answer": []})
    assert [kind.section for kind, _ in RegistryModels.of(off).answer_judges()] == ["non_answer"]


class LoudJudge:
    """Score 1 for an answer that ends in an exclamation mark; reason ``loud``."""

    model_id = "loud-v1"

    def own_threshold(self, lang: str) -> float:
        return 0.5

    def judgements(self, items):
        return [Judgement(float(a.rstrip().endswith("!")), "loud") for _, a, _ in items]


@dataclass(frozen=True)
class LoudConfig:
    model: str = key("marks", "`marks`: the last mark.")
    threshold: float = key(-1.0, "An answer is loud when its score reaches this; -1 takes the judge's own.")
    policy: str = key("flag", "`exclude` or `flag`.", choices=("exclude", "flag"))


# a declaration that writes the instruction-like columns in place of models/injection: wired by swapping one line
LOUD = JudgeKind("loud", ANSWER, (Backend("marks", lambda target, ctx: LoudJudge(), lambda target, ctx: "loud-v1"),),
                 LoudConfig, "Answers that shout.", INJECTION.columns, excludes=lambda cfg: cfg.policy == "exclude")


@pytest.mark.parametrize("policy, valid", [("flag", ["Call us!", CALM]), ("exclude", [CALM])])
def test_a_declared_answer_judge_writes_its_columns_and_its_policy_decides(monkeypatch, policy, valid):
    from models.factory import shut_out_flags
    from pipelines.stages.nonanswer import judge_groups
    from pipelines.stages.paraphrase import make_entry
    from schemas.records import ScoredQuestion

    monkeypatch.setattr(registry, "JUDGES", tuple(LOUD if j is INJECTION else j for j in registry.JUDGES))
    cfg = load_config(None, {"non_answer.model": "rules", "answer_match.enabled": False, "loud.policy": policy})
    judges = RegistryModels.of(cfg).answer_judges()
    assert [kind.section for kind, _ in judges] == ["non_answer", "loud"]
    key_ = "how do i reset my password?"
    entry = make_entry([ScoredQuestion(key_, key_, 5, "en", 1, 0.9, 0.9, "{}", "{}", True, True, {})], {})
    acc = {t.lower(): Counter({t: n}) for t, n in (("Call us!", 3), (CALM, 2), ("I'm sorry, I can't help.", 1))}
    (_, group), = judge_groups(judges, [(entry, [(entry.key, acc)])], 10, shut_out_flags(cfg))
    loud = group.answers[0]
    assert (loud.instruction_like, loud.instruction_score, loud.instruction_reason) == (True, 1.0, "loud")
    assert [a.text for a in group.valid] == valid and group.answers[2].non_answer_reason == "refusal"
    assert RegistryModels.of(cfg).identities()["loud"] == "loud-v1"
