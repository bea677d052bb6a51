"""The standalone judge through the whole graph with the fakes (one build): a question that cannot stand alone
leaves the base with the reason ``no_subject``, and one merged with a form that names its subject counts toward
that form's entry."""

import json

import pyarrow.parquet as pq
from fakes.models import FakesWithJudges

from models import registry
from models.config_check import load_config
from models.factory import question_sections
from pipelines.build import run_build
from schemas.layout import QA_FILE, QUESTIONS_FILE

TICKET = "要门票吗？"
LOUVRE_ANSWER = "A Louvre ticket costs 22 euros at the door, less when booked online."


def _logs(tmp_path):
    rows = ([(TICKET, "具体情况具体分析，不同景点规定不同。")] * 6  # the most asked, and about nothing named
            + [("How do I reset my password?", "Use the reset link on the sign-in page.")] * 3
            # a bare form asked more than the form that names its subject, with the same answers: one entry
            + [("how much is it?", LOUVRE_ANSWER)] * 4
            + [("How much is a Louvre ticket?", LOUVRE_ANSWER)] * 2)
    path = tmp_path / "logs.jsonl"
    path.write_text("".join(json.dumps({"question": q, "answer": a}, ensure_ascii=False) + "\n" for q, a in rows),
                    encoding="utf-8")
    return [str(path)]


def test_questions_that_cannot_stand_alone_leave_the_base_with_their_reason(tmp_path, tmp_base):
    cfg = load_config(None, {"aggregation.cache": False, "quality.data_docs": False})
    factory = FakesWithJudges(questions=question_sections(cfg))
    res = run_build(_logs(tmp_path), tmp_base, cfg, factory=factory, gate=False, report=False)
    questions = {r["question"]: r for r in pq.read_table(res.path / QUESTIONS_FILE).to_pylist()}
    # the most asked question passed GEC and intent; the standalone judge dropped it
    ticket = questions[TICKET]
    assert ticket["passed_gec"] and ticket["passed_intent"]
    assert ticket["reasons"] == ["no_subject"] and not ticket["kept"] and ticket["qid"] is None
    # the bare form was merged with the form naming its subject: that form represents the entry, with every ask
    bare, named = questions["how much is it?"], questions["How much is a Louvre ticket?"]
    assert bare["reasons"] == ["no_subject"] and bare["entry_key"] == named["entry_key"]
    assert named["kept"] and bare["qid"] == named["qid"] is not None and bare["rank"] == named["rank"]
    qa = {r["question"]: r for r in pq.read_table(res.path / QA_FILE).to_pylist()}
    assert sorted(qa) == ["How do I reset my password?", "How much is a Louvre ticket?"]
    assert qa["How much is a Louvre ticket?"]["frequency"] == 6
    assert res.manifest["models"]["standalone"] == "standalone-rules-v1"
