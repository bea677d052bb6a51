"""The browse page's topics (pipelines/release/browse.js, topics section): the topic list and the topic filter.

A base of two kinds of question (refunds of eight items, opening hours of eight museums) is built with the fake
models (their hashed bag-of-words embedder puts each kind together), so the build finds two topics. Without a
browser: the page embeds the topics. In chromium (skips where it is not installed, as test_browse_page.py does):
the list shows every topic, a click on one filters the entries to it (the URL hash keeps it), a second click
clears it.
"""

import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from fakes.models import FakeModels

from models.config_check import load_config
from pipelines.build import run_build
from schemas.layout import BROWSE_FILE, QA_FILE, TOPICS_FILE

ITEMS = ["shoes", "jacket", "phone", "laptop", "book", "lamp", "chair", "watch"]
PLACES = ["paris", "london", "tokyo", "berlin", "madrid", "rome", "oslo", "vienna"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    work = tmp_path_factory.mktemp("browse-topics")
    rows = []
    for i, item in enumerate(ITEMS):
        rows += [{"question": f"How do I get a refund for the {item}?",
                  "answer": f"Return the {item} within 30 days for a refund."}] * (i + 2)
    for i, place in enumerate(PLACES):
        rows += [{"question": f"When does the {place} museum open on sundays?",
                  "answer": f"The museum in {place} opens at {i + 8} am."}] * (i + 2)
    logs = work / "logs.jsonl"
    logs.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False})
    return run_build([str(logs)], work / "base", cfg, factory=FakeModels())


def _page_data(path: Path) -> dict:
    page = path.read_text(encoding="utf-8")
    return json.loads(re.search(r'<script type="application/json" id="qabase-data">(.*?)</script>', page, re.S)
                      .group(1))


def test_the_two_kinds_of_question_are_two_named_topics_and_the_page_embeds_them(built):
    topics = pq.read_table(built.path / TOPICS_FILE).to_pylist()
    qa = pq.read_table(built.path / QA_FILE, columns=["question", "topic"]).to_pylist()
    assert [t["topic"] for t in topics] == [0, 1]
    by_topic = {t["topic"]: {r["question"].split()[1] for r in qa if r["topic"] == t["topic"]} for t in topics}
    assert sorted(by_topic.values(), key=sorted) == [{"do"}, {"does"}]  # "How do I ..." / "When does the ..."
    names = {t["words"][0] for t in topics} | {w for t in topics for w in t["words"]}
    assert "refund" in names and "museum" in names
    data = _page_data(built.path / BROWSE_FILE)
    assert [t["topic"] for t in data["topics"]] == [t["topic"] for t in sorted(topics, key=lambda t: -t["asks"])]


@pytest.mark.slow  # a browser
def test_a_topic_click_filters_the_entries_and_a_second_click_clears_it(built, browser):
    # browser: tests/conftest.py (skips where chromium is not installed)
    from playwright.sync_api import expect

    qa = pq.read_table(built.path / QA_FILE, columns=["question", "topic", "rank"]).to_pylist()
    topics = _page_data(built.path / BROWSE_FILE)["topics"]
    errors = []
    page = browser.new_page()
    try:
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto((built.path / BROWSE_FILE).resolve().as_uri())
        page.wait_for_selector("html[data-ready]")
        entries = page.locator("#entries tbody tr")
        expect(entries).to_have_count(len(qa))
        page.locator("#topics summary").click()
        expect(page.locator("#topic-list tbody tr")).to_have_count(len(topics))
        first = topics[0]
        page.locator(f"#topic-list tbody tr[data-topic='{first['topic']}']").click()
        members = sorted((r for r in qa if r["topic"] == first["topic"]), key=lambda r: r["rank"])
        expect(entries).to_have_count(len(members))
        assert page.locator("#entries tbody td.q a").all_inner_texts() == [r["question"] for r in members]
        assert f"topic={first['topic']}" in page.evaluate("location.hash")
        assert page.input_value("select[name=topic]") == str(first["topic"])
        page.locator(f"#topic-list tbody tr[data-topic='{first['topic']}']").click()
        expect(entries).to_have_count(len(qa))
    finally:
        page.close()
    assert not errors, errors
