"""The report's judge sections follow models.registry.JUDGES: the built-in judges' own, in wiring order, and for
each further judge a build applied (recorded in the manifest's models) a section read from its declaration."""

from models import registry
from models.answermatch.judge import REASON as DOES_NOT_ANSWER
from models.standalone.rules import REASON as NO_SUBJECT
from pipelines.release.report import _judge_sections, further_judge, judge_figures
from schemas.backends import Backend
from schemas.judgement import QUESTION, JudgeKind

QUESTIONS = [
    {"question": "how much?", "frequency": 5, "kept": False, "reason": "no_subject", "time_sensitive": False},
    {"question": "hi", "frequency": 9, "kept": False, "reason": "low_intent+too_short", "time_sensitive": False},
    {"question": "How do I reset my password?", "frequency": 7, "kept": True, "reason": "", "time_sensitive": False},
]
QA = [{"rank": 1, "question": "How do I reset my password?", "answers": [
    {"text": "Bananas are yellow.", "count": 2, "non_answer": True, "non_answer_score": 0.1,
     "non_answer_reason": "does_not_answer", "instruction_like": False},
    {"text": "Use the reset link.", "count": 3, "non_answer": False, "non_answer_score": 0.0, "non_answer_reason": "",
     "instruction_like": False}], "non_answers": 2, "total_answers": 5, "time_sensitive": False,
    "instruction_like": False, "instruction_like_answers": 0}]
TOO_SHORT = JudgeKind("too_short", QUESTION, (Backend("words", None, None),), None, "Questions too short.",
                      reasons=("too_short",))


def test_the_declared_reasons_are_the_judges_own():
    assert registry.judge_kind("standalone").reasons == (NO_SUBJECT,)
    assert registry.judge_kind("answer_match").reasons == (DOES_NOT_ANSWER,)


def test_a_further_judge_gets_its_section_from_its_declaration(monkeypatch):
    monkeypatch.setattr(registry, "JUDGES", registry.JUDGES + (TOO_SHORT,))
    manifest = {"config": {}, "models": {"standalone": "s", "answer_match": "a", "too_short": "t"}}
    figures = judge_figures(manifest, QUESTIONS, QA)
    assert figures["judges"]["too_short"]["count"] == 1  # its reason among several (joined by +)
    assert figures["judges"]["standalone"]["examples"] == [["how much?", 5, "no_subject"]]
    assert figures["judges"]["answer_match"]["count"] == 1
    assert [s["id"] for s in _judge_sections(figures)] == [
        "non-answers", "time-sensitive", "instruction-like", "judge-standalone", "judge-answer_match",
        "judge-too_short"]  # wiring order
    # not applied (not in the manifest's models): no section
    figures = judge_figures({"config": {}, "models": {"standalone": "s"}}, QUESTIONS, QA)
    assert list(figures["judges"]) == ["standalone"]


def test_an_answer_judges_figures_read_the_answers_it_shut_out():
    fj = further_judge(registry.judge_kind("answer_match"), QUESTIONS, QA)
    assert fj["examples"] == [["How do I reset my password?", "Bananas are yellow.", "does_not_answer"]]
