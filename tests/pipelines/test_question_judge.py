"""A new kind of question judge, added the way a contributor adds one, through the whole graph with the fakes.

A "question too long" judge touches two places, each stood in for here:
1. its own folder, models/toolong/: the judge (scores, never decides), its config section (``model``,
   ``threshold`` (-1: the judge's own) and its own keys), its ``BACKENDS`` table and its declaration
   ``JUDGE = JudgeKind("too_long", QUESTION, BACKENDS, TooLongConfig, meaning)`` in backends.py, which also
   states its direction (``flags_low=True`` for a quality score; a detector, as this one is, leaves it) (here:
   :class:`TooLongJudge`, :class:`TooLongConfig`, :data:`BACKENDS` and :data:`JUDGE` below);
2. one line of wiring, ``toolong.JUDGE,`` in models.registry.JUDGES (here: monkeypatched).
Nothing else changes: the build config gets its section (models.config_check.config_class), the registry checks
and loads it from its table, the score stage applies its threshold, caches key on its identity, and
questions.parquet shows the questions it dropped with its reason.
"""

import json
from dataclasses import dataclass

import pyarrow.parquet as pq
import pytest
from fakes.models import FakesWithJudges

from models import registry
from models.config_check import load_config
from models.factory import RegistryModels, question_sections
from pipelines.build import run_build
from schemas.backends import Backend
from schemas.config import BuildConfig, key
from schemas.errors import ConfigError
from schemas.judgement import QUESTION, Judgement, JudgeKind
from schemas.layout import QA_FILE, QUESTIONS_FILE


# --- 1. its folder ---------------------------------------------------------------------------------

class TooLongJudge:
    """Score 1 for a question over ``max_chars`` characters, else 0; reason ``too_long``."""

    def __init__(self, max_chars: int):
        self.max_chars = max_chars
        self.model_id = too_long_identity(max_chars)

    def own_threshold(self, lang: str) -> float:
        return 0.5

    def judgements(self, texts, langs):
        return [Judgement(1.0 if len(t) > self.max_chars else 0.0, "too_long", {"chars": len(t)}) for t in texts]


def too_long_identity(max_chars: int) -> str:
    return f"too-long-v1@{max_chars}"


@dataclass(frozen=True)
class TooLongConfig:
    model: str = key("chars", "`chars`: counts characters.")
    threshold: float = key(-1.0, "A question is flagged when its score reaches this; -1 takes the judge's own.")
    max_chars: int = key(40, "Longest question kept.", lo=1)


BACKENDS = (Backend("chars", lambda target, ctx: TooLongJudge(ctx.section.max_chars),
                    lambda target, ctx: too_long_identity(ctx.section.max_chars)),)
JUDGE = JudgeKind("too_long", QUESTION, BACKENDS, TooLongConfig, "Questions too long to be asked again.")


# --- 2. one line of wiring ----------------------------------------------------------------------------

@pytest.fixture
def wired(monkeypatch):
    monkeypatch.setattr(registry, "JUDGES", registry.JUDGES + (JUDGE,))


def _config(**too_long) -> BuildConfig:
    """A config read as any is (schemas.config.load_config, then the registry's checks), with a too_long section."""
    return load_config(None, {"aggregation.cache": False, "quality.data_docs": False,
                                       **{f"too_long.{k}": v for k, v in too_long.items()}})


LONG = "What is the best way to reset a forgotten password on the company laptop?"


def _logs(tmp_path):
    rows = ([("How do I reset my password?", "Use the reset link.")] * 3
            + [(LONG, "Ask IT for a reset.")] * 4
            + [("Which is better, tea or coffee?", "Green tea: it has less caffeine and more antioxidants.")] * 2
            + [("hello", "Hi!")])
    path = tmp_path / "logs.jsonl"
    path.write_text("".join(json.dumps({"question": q, "answer": a}) + "\n" for q, a in rows), encoding="utf-8")
    return [str(path)]


def test_a_new_question_judge_drops_questions_through_the_whole_graph(wired, tmp_path, tmp_base):
    cfg = _config(max_chars=40)
    factory = FakesWithJudges(questions=question_sections(cfg))
    res = run_build(_logs(tmp_path), tmp_base, cfg, factory=factory, gate=False, report=False)
    questions = {r["question"]: r for r in pq.read_table(res.path / QUESTIONS_FILE).to_pylist()}
    # the most asked question passed GEC and intent, and the new judge dropped it with its reason
    assert questions[LONG]["passed_gec"] and questions[LONG]["passed_intent"]
    assert questions[LONG]["reasons"] == ["too_long"] and not questions[LONG]["kept"]
    assert questions["hello"]["reasons"] == ["low_intent"]
    qa = [r["question"] for r in pq.read_table(res.path / QA_FILE).to_pylist()]
    assert qa == ["How do I reset my password?", "Which is better, tea or coffee?"]
    assert res.manifest["models"]["too_long"] == "too-long-v1@40"


@pytest.mark.slow  # a second whole build: the default tier keeps the one above
def test_a_new_judges_own_config_keys_reach_it(wired, tmp_path, tmp_base):
    # its own keys live in its config section: a roomier limit keeps the long question, and it ranks first
    roomy = _config(max_chars=200)
    res = run_build(_logs(tmp_path), tmp_base, roomy, factory=FakesWithJudges(
        questions=question_sections(roomy)), gate=False, report=False)
    qa = [r["question"] for r in pq.read_table(res.path / QA_FILE).to_pylist()]
    assert qa[0] == LONG and len(qa) == 3


def test_the_registry_checks_a_new_judges_config_from_its_table(wired):
    with pytest.raises(ConfigError, match=r"config: too_long.model must be chars, got 'words'"):
        _config(model="words")
    with pytest.raises(ConfigError, match=r"too_long.threshold must be within \[0, 1\]"):
        _config(threshold=2.0)
    with pytest.raises(ConfigError, match=r"too_long.max_chars must be at least 1"):  # bounds on its own field
        _config(max_chars=0)
    cfg = _config(max_chars=12)
    # wired after the judges already there (the standalone judge): each its own section, in wiring order
    *_, judge = registry.configured_judges(question_sections(cfg), cfg.models)
    assert judge.model_id == "too-long-v1@12" and judge.own_threshold("en") == 0.5
    assert RegistryModels.of(cfg).identities()["too_long"] == "too-long-v1@12"


def test_the_wired_judges_by_default():
    assert [j.section for j in registry.JUDGES] == ["gec", "intent", "non_answer", "time_sensitive", "injection",
                                                    "standalone", "answer_match"]
    assert [j.section for j in registry.JUDGES if j.built_in] == ["gec", "intent", "non_answer", "time_sensitive",
                                                                  "injection"]
    # GEC and intent keep their keys in models and filter: no section of their own
    assert [j.section for j in registry.JUDGES if not j.has_section] == ["gec", "intent"]
    assert [section for section, _ in question_sections(BuildConfig())] == ["standalone"]


def test_a_new_judges_section_is_a_top_level_section_of_the_config(wired, tmp_path):
    from models.config_check import default_config
    from schemas.config import config_yaml

    path = tmp_path / "c.yaml"
    path.write_text("too_long:\n  max_chars: 12\n", encoding="utf-8")
    assert load_config(path).too_long.max_chars == 12
    assert "too_long:\n  model: chars\n" in config_yaml(default_config())
