"""Review decisions made on the base browser (browse.html), exported as a review file, applied by a build.

A small base is built with the fake models (tests/fakes/models.py). Debian's chromium, driven by Playwright, opens
its page from disk; on it a person excludes an entry, sets another's answer, splits a form off, merges an entry into
another, marks one time-sensitive and keeps a dropped question. The page keeps the decisions in the browser (they
outlive a reload; undo drops one), lists them in its Decisions tab, and exports them as JSON lines in the review
file's format (a download, and the text to copy). The end-to-end test builds with the downloaded file and finds the
decisions applied. Skips, saying why, where chromium is not installed (as test_browse_page.py does).
"""

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from fakes.models import FakeModels

from models.config_check import load_config
from pipelines.build import run_build
from pipelines.release import browse
from schemas.layout import BROWSE_FILE, QA_FILE, QUESTIONS_FILE
from schemas.review import load_review
from schemas.review_outcome import EXCLUDED_REASON, REVIEWED_METHOD

FRANCE = "What is the capital of France?"
FRANCE_FORM = "Which city is the capital of France?"
EIFFEL = "How tall is the Eiffel Tower?"
TEA = "Which is better, tea or coffee?"
BITCOIN = "What is the price of bitcoin today?"
DROPPED = "what is is the answer?"  # a doubled word: low GEC with the fake models
NEW_ANSWER = "Paris (reviewed).\nIt has been the capital since 987."
HOSTILE = "</script><img src=x onerror=alert(1)> what is this tag?"  # shown and exported as text


def _logs(path: Path) -> Path:
    rows = []

    def add(q, a, n=1):
        rows.extend({"question": q, "answer": a} for _ in range(n))

    add(FRANCE, "Paris is the capital of France.", 4)
    add(FRANCE_FORM, "The capital of France is Paris.", 2)  # a paraphrase: merged into FRANCE
    add(TEA, "Tea is calmer and healthier.", 2)
    add(TEA, "Coffee gives you energy and tastes great.", 2)
    add(EIFFEL, "It is 330 metres tall.", 3)
    add(BITCOIN, "About 60000 dollars.", 2)
    add("中国的首都是哪里？", "北京是中国的首都。", 3)
    add(DROPPED, "42.", 1)
    add(HOSTILE, "<img src=x onerror=alert(2)> it is </SCRIPT> a tag <!-- x", 2)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    work = tmp_path_factory.mktemp("review")
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False})
    logs = _logs(work / "logs.jsonl")
    return run_build([str(logs)], work / "base", cfg, factory=FakeModels()), logs


# --- without a browser -------------------------------------------------------------------------------------------

def test_the_storage_key_names_the_version_and_its_inputs():
    m = {"version": "20261126T010203000Z", "config_hash": "abc", "inputs": [{"path": "/l.jsonl", "sha256": "1"}]}
    key = browse.review_facts(m)["key"]
    assert key.startswith("qabase-review:20261126T010203000Z:") and key == browse.review_facts(dict(m))["key"]
    other = browse.review_facts({**m, "inputs": [{"path": "/l.jsonl", "sha256": "2"}]})["key"]  # another base
    assert other != key and browse.review_facts({**m, "config_hash": "abd"})["key"] != key
    assert browse.review_facts({})["key"].startswith("qabase-review:?:")


# --- in chromium (the browser fixture: tests/conftest.py) ----------------------------------------------------------

@pytest.fixture
def context(browser):
    """A fresh profile (its own localStorage) that accepts downloads and records errors, dialogs and requests."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True,
                              permissions=["clipboard-read", "clipboard-write"])
    ctx.errors, ctx.dialogs, ctx.requests, ctx.opened = [], [], [], set()
    ctx.on("request", lambda r: ctx.requests.append(r.url))
    yield ctx
    ctx.close()
    assert not ctx.errors, ctx.errors  # no script error, no CSP violation
    assert not ctx.dialogs, ctx.dialogs
    # the pages opened, nothing else (the download is a blob: URL made in the page: no request, the CSP allows it)
    assert set(ctx.requests) == ctx.opened, ctx.requests


def _open(ctx, path: Path, fragment: str = ""):
    page = ctx.new_page()
    page.on("console", lambda m: ctx.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: ctx.errors.append(str(e)))
    page.on("dialog", lambda d: (ctx.dialogs.append(d.message), d.dismiss()))
    ctx.opened.add(path.resolve().as_uri())
    page.goto(path.resolve().as_uri() + fragment)
    page.wait_for_selector("html[data-ready]")
    return page


def expect(locator):
    from playwright.sync_api import expect as _expect

    return _expect(locator)


def _entry(page, question: str):
    """Open the entry holding ``question`` and its review controls."""
    if page.locator("#detail").count():
        page.keyboard.press("Escape")
    page.click("#tab-entries")
    page.locator("#entries tbody tr", has_text=question).first.click()
    expect(page.locator("#detail-question")).to_have_text(question)
    review = page.locator("#review")
    if review.get_attribute("open") is None:
        review.locator("summary").click()
    return page.locator("#detail")


def _exclude(page, question: str, note: str):
    detail = _entry(page, question)
    detail.locator("input[name=review-note]").fill(note)
    detail.locator("#review-exclude").click()


def _set_answer(page, question: str, answer: str):
    detail = _entry(page, question)
    detail.locator("textarea[name=review-answer]").fill(answer)
    detail.locator("#review-answer").click()


def _download(page) -> str:
    page.keyboard.press("Escape")
    page.click("#tab-decisions")
    with page.expect_download() as info:
        page.click("#decisions-download")
    download = info.value
    assert download.suggested_filename.endswith(".jsonl")
    return Path(download.path()).read_text(encoding="utf-8")


@pytest.mark.slow
def test_decisions_of_every_kind_are_kept_and_exported_as_a_review_file(built, context):
    result, _ = built
    page = _open(context, result.path / BROWSE_FILE)
    expect(page.locator("#tab-decisions")).to_have_text("Decisions (0)")
    _exclude(page, EIFFEL, "numbers disagree")
    expect(page.locator("#tab-decisions")).to_have_text("Decisions (1)")
    expect(page.locator("#review ul.decisions li")).to_have_count(1)  # the entry lists its own decisions
    _set_answer(page, FRANCE, NEW_ANSWER)
    detail = _entry(page, FRANCE)
    detail.locator("select[name=review-split]").select_option(FRANCE_FORM)
    detail.locator("#review-split").click()
    detail = _entry(page, BITCOIN)
    detail.locator("#review-ts-no").click()
    detail = _entry(page, TEA)
    detail.locator("input[name=review-merge-search]").fill("bitcoin")
    expect(detail.locator("select[name=review-merge-into] option")).to_have_count(1)
    detail.locator("#review-merge").click()
    page.keyboard.press("Escape")
    page.click("#tab-dropped")
    row = page.locator("#dropped tbody tr", has_text=DROPPED)
    row.locator("input[name=keep-note]").fill("a fine question")
    row.locator("button.keep").click()
    expect(page.locator("#tab-decisions")).to_have_text("Decisions (6)")
    expect(row.locator(".chip.decided")).to_have_text("keep")
    page.click("#reasons button[data-reason=merged]")  # the merged form split off above: the same decision
    expect(page.locator("#dropped tbody tr", has_text=FRANCE_FORM).locator(".chip.decided")).to_have_text("split off")
    # the list marks what was decided; a reload finds every decision again (this browser keeps them)
    page.click("#tab-entries")
    expect(page.locator("#entries tbody tr", has_text=EIFFEL).locator(".chip.decided")).to_have_text("decided (1)")
    _exclude(page, HOSTILE, "</textarea><b>x</b>")
    page.reload()
    page.wait_for_selector("html[data-ready]")
    expect(page.locator("#tab-decisions")).to_have_text("Decisions (7)")
    text = _download(page)
    assert page.locator("#decisions tbody tr[data-action=exclude] td.q").all_inner_texts() == [EIFFEL, HOSTILE]
    assert page.evaluate("document.scripts.length") == 2 and page.locator("img, b").count() == 0
    lines = [json.loads(line) for line in text.splitlines()]
    assert text.endswith("\n") and len(lines) == 7
    assert lines == [
        {"action": "exclude", "question": EIFFEL, "note": "numbers disagree"},
        {"action": "answer", "question": FRANCE, "answer": NEW_ANSWER},
        {"action": "split", "question": FRANCE_FORM, "from": FRANCE},
        {"action": "time_sensitive", "question": BITCOIN, "value": False},
        {"action": "merge", "question": TEA, "into": BITCOIN},
        {"action": "keep", "question": DROPPED, "note": "a fine question"},
        {"action": "exclude", "question": HOSTILE, "note": "</textarea><b>x</b>"},
    ]
    assert [list(x) for x in lines][:2] == [["action", "question", "note"], ["action", "question", "answer"]]
    assert page.input_value("#review-file") == text  # the text to copy, where a download is not possible
    page.click("#decisions-copy")
    expect(page.locator("#export-status")).to_have_text("copied")
    assert page.evaluate("navigator.clipboard.readText()") == text
    # undo one; deciding the same thing again replaces it (one answer per question)
    page.locator("#decisions tbody tr[data-action=keep] button.undo").click()
    expect(page.locator("#tab-decisions")).to_have_text("Decisions (6)")
    _set_answer(page, FRANCE, "Paris.")
    after = [json.loads(line) for line in _download(page).splitlines()]
    assert [x["action"] for x in after] == ["exclude", "split", "time_sensitive", "merge", "exclude", "answer"]
    assert after[-1] == {"action": "answer", "question": FRANCE, "answer": "Paris."}
    # another version's page (another storage key) starts with none of them
    assert page.evaluate("Object.keys(localStorage)") == [browse.review_facts(result.manifest)["key"]]


@pytest.mark.slow
def test_decisions_made_on_the_page_are_applied_by_a_build(built, context, tmp_path):
    """The issue's must-show 2: two decisions made on the page, exported, applied by a build with the file."""
    result, logs = built
    page = _open(context, result.path / BROWSE_FILE)
    _exclude(page, EIFFEL, "numbers disagree")
    _set_answer(page, FRANCE, NEW_ANSWER)
    review = tmp_path / "review.jsonl"
    review.write_text(_download(page), encoding="utf-8")
    assert [json.loads(x)["action"] for x in review.read_text(encoding="utf-8").splitlines()] == ["exclude", "answer"]
    _build_with_review_and_check(result, logs, review, tmp_path, context)


def _build_with_review_and_check(result, logs: Path, review: Path, tmp_path: Path, context):
    """The next build of the same base (a copy), with the same logs and the page's review file."""
    assert [d.action for d in load_review(review).decisions] == ["exclude", "answer"]  # the build's own parser
    base = tmp_path / "base"
    shutil.copytree(result.path.parent.parent, base, symlinks=True)  # latest stays a link
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False,
                             "review.file": str(review)})
    after = run_build([str(logs)], base, cfg, factory=FakeModels())
    assert after.version != result.version  # a review file alone makes a new version
    assert after.manifest["review"]["sha256"] == hashlib.sha256(review.read_bytes()).hexdigest()
    assert (after.manifest["review"]["decisions"], after.manifest["review"]["applied"]) == (2, 2)
    before = {r["question"]: r for r in pq.read_table(result.path / QA_FILE).to_pylist()}
    qa = {r["question"]: r for r in pq.read_table(after.path / QA_FILE).to_pylist()}
    assert EIFFEL in before and EIFFEL not in qa  # excluded
    assert set(qa) == set(before) - {EIFFEL}
    questions = {r["question"]: r for r in pq.read_table(after.path / QUESTIONS_FILE).to_pylist()}
    assert questions[EIFFEL]["reasons"] == [EXCLUDED_REASON] and not questions[EIFFEL]["kept"]
    france = qa[FRANCE]
    assert before[FRANCE]["answer"] != NEW_ANSWER and france["answer"] == NEW_ANSWER  # the reviewer's answer
    assert france["method"] == REVIEWED_METHOD and france["reviewed"] == ["answer"]
    assert {a["text"] for a in france["answers"]} == {a["text"] for a in before[FRANCE]["answers"]}  # logged ones kept
    assert all(not r["reviewed"] for q, r in qa.items() if q != FRANCE)
    # and the new version's page shows it so
    page = _open(context, after.path / BROWSE_FILE)
    assert EIFFEL not in page.locator("#entries").inner_text()
    expect(page.locator("#tab-decisions")).to_have_text("Decisions (0)")  # another version: a fresh list
    row = page.locator("#entries tbody tr", has_text=FRANCE).first
    expect(row.locator(".chip.reviewed")).to_have_text("reviewed:answer")  # what the build applied, as a flag
    page.select_option("select[name=flag]", "reviewed")
    expect(page.locator("#entries tbody tr")).to_have_count(1)
    row.click()
    expect(page.locator("#detail-answer")).to_have_text(NEW_ANSWER)
