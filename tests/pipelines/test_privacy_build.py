"""Personal data in a whole build (issue 32): one question asked with many phone numbers is one entry, no raw value
is written anywhere a build writes (published files, state, caches, logs), the gate refuses a version holding
one, and a change of the privacy settings cannot continue a saved state."""

import json
import logging
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import everything_written
from fakes.models import FakeModels

from models.config_check import load_config
from pipelines.build import run_build
from pipelines.state import StateError
from schemas.errors import GateRefused
from schemas.layout import LATEST, QA_FILE, BaseLayout

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# score, vector and aggregation caches and Data Docs on: they are searched too
CACHES_ON: dict = {}

PHONES = [f"1{3 + i % 7}{i:03d}{(7919 * i) % 100000:05d}{i % 10}" for i in range(30)]
EMAILS = [f"user{i}.name@example{i}.com" for i in range(8)]
IDS = ["11010519491231002X", "440308199901010012", "320102198001010016"]
CARDS = ["4111 1111 1111 1111", "5500005555555559"]
CUT_PHONE = "13912349876"  # straddles the end of a rejected record's preview


def _raw_values() -> list[str]:
    return [*PHONES, *EMAILS, *IDS, *CARDS, CARDS[0].replace(" ", ""), CUT_PHONE, CUT_PHONE[:6], "13812345678",
            "jo@x.com"]


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("pii-logs")
    rows = [json.loads(line) for line in (FIXTURES / "tiny.jsonl").read_text(encoding="utf-8").splitlines()]
    rows += [{"question": f"我的手机号是{p}，为什么收不到验证码？", "answer": "请检查短信是否被拦截，或稍后重试。"}
             for p in PHONES]
    rows += [{"question": f"My email is {e}, why can't I log in?",
              "answer": f"We sent a reset link to {e}; call us at +1 (415) 555-0132 if it does not arrive."}
             for e in EMAILS]
    rows += [{"question": f"身份证{n}被冻结了怎么办？", "answer": "请携带身份证到柜台办理解冻。"} for n in IDS]
    rows += [{"question": f"Why was my card {c} declined?", "answer": ""} for c in CARDS]  # rejected: empty answer
    lines = [json.dumps(r, ensure_ascii=False) for r in rows]
    # bad JSON (read's reject, made before any field is known), its preview (300 characters) ending inside CUT_PHONE
    broken = '{"question": "我的电话是13812345678，邮箱jo@x.com，'
    lines.append(broken + "c" * (295 - len(broken)) + CUT_PHONE + " broken")
    # a question too long for the limit below (validate's reject): redacted before its preview is cut
    lines.append(json.dumps({"question": "a" * 280 + " " + CUT_PHONE + " " + "b" * 300, "answer": "ok"}))
    (folder / "logs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


class _Lines(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(self.format(record))


@pytest.fixture(scope="module")
def built(logs, tmp_path_factory):
    """(base, result, every log line of the build)."""
    base = tmp_path_factory.mktemp("pii-base") / "base"
    cfg = load_config(None, {**CACHES_ON, "limits.max_question_chars": 500})
    # the qabase logger's own level too: a command-line test run before this one in the same process may have
    # set it (schemas.logs.configure), and then no INFO line would reach the handler
    root, ours, handler = logging.getLogger(), logging.getLogger("qabase"), _Lines()
    levels = root.level, ours.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    ours.setLevel(logging.INFO)
    try:
        res = run_build([str(logs)], base, cfg, factory=FakeModels())
    finally:
        root.removeHandler(handler)
        root.setLevel(levels[0])
        ours.setLevel(levels[1])
    return base, res, "\n".join(handler.lines)


@pytest.mark.slow  # a whole build with the gate (fake models)
def test_one_question_asked_with_many_phone_numbers_is_one_entry(built):
    base, res, _ = built
    qa = pq.read_table(base / LATEST / QA_FILE).to_pylist()
    asked = [r for r in qa if "验证码" in r["question"]]
    assert len(asked) == 1
    assert asked[0]["question"] == "我的手机号是<PHONE>，为什么收不到验证码？"
    assert asked[0]["frequency"] == len(PHONES)
    assert res.manifest["counts"]["redactions"]["PHONE"] == len(PHONES) + len(EMAILS)  # the bot's number too
    assert res.manifest["counts"]["redactions"]["EMAIL"] == 2 * len(EMAILS)
    assert res.manifest["counts"]["redactions"]["ID_NUMBER"] == len(IDS)
    report = (base / LATEST / "report.html").read_text(encoding="utf-8")
    assert "Personal data" in report and "&lt;PHONE&gt;" in report
    quality = res.manifest["quality"]
    assert any(r["suite"] == "personal_data" and r["success"] for r in quality["results"])


@pytest.mark.slow  # a whole build with the gate (fake models)
def test_no_raw_value_anywhere_the_build_wrote(built):
    base, res, log = built
    # the whole base: the published version (Parquet, report, browse page, Data Docs, stats, manifest, state) and
    # the caches; and every line the build logged
    written = everything_written(base) + log
    version = Path(res.path)
    for part in ("state/questions.parquet", "report.html", "browse.html", "data_docs/index.html", "stats.json"):
        assert (version / part).is_file(), part
    assert list((base / "cache").glob("*.sqlite")) and log
    found = [v for v in _raw_values() if v in written]
    assert not found
    rejected = pq.read_table(Path(res.path) / "rejected.parquet").to_pylist()
    raws = " ".join(r["raw"] for r in rejected)
    assert "<PHONE>" in raws and "<EMAIL>" in raws and "<CARD>" in raws and "<CUT>…" in raws


@pytest.mark.slow  # whole builds with the gate (fake models)
def test_the_gate_refuses_a_version_with_personal_data_written_past_redaction(logs, tmp_path, monkeypatch):
    from pipelines.stages import validate

    base = tmp_path / "base"
    cfg = load_config(None, {**CACHES_ON, "limits.max_question_chars": 500})
    monkeypatch.setattr(validate, "redact_value", lambda value, redactor: value)  # raw values written on purpose
    with pytest.raises(GateRefused, match=r"personal data .* in the published text of qa\.parquet:question"):
        run_build([str(logs)], base, cfg, factory=FakeModels())
    assert BaseLayout(base).current_version() is None
    monkeypatch.undo()
    # the same logs redacted pass the same gate
    assert run_build([str(logs)], base, cfg, factory=FakeModels()).manifest["quality"]["critical_failures"] == []


@pytest.mark.slow  # whole builds (fake models)
def test_other_privacy_settings_cannot_continue_the_state(built, logs, tmp_path):
    base, _, _ = built
    copy = tmp_path / "base"
    shutil.copytree(base, copy, symlinks=True)
    other = load_config(None, {**CACHES_ON, "limits.max_question_chars": 500, "privacy.kinds": ["EMAIL"]})
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "more.jsonl").write_text('{"question": "hi?", "answer": "hello"}\n', encoding="utf-8")
    with pytest.raises(StateError, match="privacy"):
        run_build([str(logs), str(tmp_path / "more")], copy, other, factory=FakeModels())


@pytest.mark.slow  # three builds (fake models)
def test_increments_with_personal_data_equal_one_full_rebuild(logs, tmp_path):
    lines = (logs / "logs.jsonl").read_text(encoding="utf-8").splitlines()
    days = []
    for i, chunk in enumerate((lines[::2], lines[1::2])):
        (tmp_path / f"day{i}").mkdir()
        (tmp_path / f"day{i}" / "logs.jsonl").write_text("\n".join(chunk) + "\n", encoding="utf-8")
        days.append(str(tmp_path / f"day{i}"))
    cfg = load_config(None, {**CACHES_ON, "limits.max_question_chars": 500, "quality.data_docs": False})
    run_build(days[:1], tmp_path / "inc", cfg, factory=FakeModels(), gate=False, report=False)
    inc = run_build(days, tmp_path / "inc", cfg, factory=FakeModels(), gate=False, report=False)
    full = run_build(days, tmp_path / "full", cfg, factory=FakeModels(), gate=False, report=False, full_rebuild=True)
    assert inc.manifest["increment"]["new_files"] and inc.manifest["counts"]["redactions"]["PHONE"] > 0
    assert inc.manifest["counts"]["redactions"] == full.manifest["counts"]["redactions"]
    for name in (QA_FILE, "questions.parquet"):
        assert pq.read_table(inc.path / name).equals(pq.read_table(full.path / name)), name


@pytest.mark.slow  # a whole build with the gate (fake models)
def test_a_query_with_personal_data_finds_its_redacted_entry(built):
    from fakes.models import HashEmbedder

    from indexes.retrievers import AnswerRetriever, QuestionRetriever

    base, _, _ = built
    query = "我的手机号是13999990000，为什么收不到验证码？"  # a number the logs never held
    answer = AnswerRetriever(base, embedder=HashEmbedder()).get(query)
    assert answer.found and answer.score == 1.0  # the exact key, not a near neighbour
    assert answer.matched_question == "我的手机号是<PHONE>，为什么收不到验证码？"
    hits = QuestionRetriever(base, embedder=HashEmbedder(), mode="bm25").search(query, k=1)
    assert hits[0].question == answer.matched_question
