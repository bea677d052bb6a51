"""The topics stage (pipelines/stages/topics.py): each published entry's topic in qa.parquet, the topics table in
topics.parquet (listed in the manifest), and the topics in the report and the browse page."""

import json
import re

import numpy as np
import pyarrow.parquet as pq

from pipelines.release.report import render_section, topics_view
from pipelines.stages.topics import assign_topics, least_reliable, topic_table
from schemas.config import TopicsConfig
from schemas.layout import MANIFEST, QA_FILE, TOPICS_FILE
from schemas.topics import TOPICS_SCHEMA


class GivenLabels:
    """A topic model that returns the labels it was given (the stage's counting, apart from clustering)."""

    model_id = "given"

    def __init__(self, labels):
        self.labels = np.asarray(labels)

    def group(self, vectors):
        assert len(vectors) == len(self.labels)
        return self.labels


def row(rank, question, frequency, flags=(), reliability=0.9, aliases=()):
    return {"rank": rank, "question": question, "frequency": frequency, "flags": list(flags),
            "reliability": reliability, "aliases": [{"question": question, "count": frequency}]
            + [{"question": a, "count": 1} for a in aliases], "vector": np.ones(4, np.float32)}


def sample_rows():
    return [row(1, "how do I get a refund", 50, reliability=0.2, aliases=["refund please"]),
            row(2, "my card was stolen", 40, flags=["tie"]),
            row(3, "refund not received", 30, flags=["single_answer", "tie"], reliability=0.1),
            row(4, "lost my card", 20),
            row(5, "what is the weather", 10, reliability=0.5)]


def test_each_topic_counts_entries_asks_flagged_and_least_reliable():
    rows = sample_rows()
    table = assign_topics(rows, TopicsConfig(words=2, least_reliable_share=0.4), GivenLabels([0, 1, 0, 1, -1]))
    assert [r["topic"] for r in rows] == [0, 1, 0, 1, -1]
    assert [t["topic"] for t in table] == [0, 1, -1]  # the unassigned last
    refund, card, rest = table
    assert refund["words"][0] == "refund" and card["words"][0] == "card" and rest["name"] == "unassigned"
    assert (refund["size"], refund["asks"], refund["flagged"], refund["least_reliable"]) == (2, 80, 1, 2)
    assert (card["size"], card["asks"], card["flagged"], card["least_reliable"]) == (2, 60, 1, 0)
    assert (rest["size"], rest["asks"], rest["words"]) == (1, 10, [])
    assert refund["top_questions"] == ["how do I get a refund", "refund not received"]
    import pyarrow as pa

    pa.Table.from_pylist(table, schema=TOPICS_SCHEMA)  # the records fit the file's schema


def test_least_reliable_is_the_lowest_share_ties_by_rank():
    rows = [{"rank": i, "reliability": r} for i, r in enumerate([0.5, 0.1, 0.5, 0.9, 0.5], 1)]
    assert least_reliable(rows, 0.4) == {1, 0}  # 0.1, then the first of the 0.5 ties
    assert least_reliable(rows, 0.0) == set() and least_reliable(rows, 1.0) == set(range(5))


def test_disabled_topics_leave_the_column_null_and_write_no_table():
    rows = sample_rows()
    assert assign_topics(rows, TopicsConfig(enabled=False)) is None
    assert all(r["topic"] is None for r in rows)


def test_topic_table_is_deterministic():
    a = topic_table(sample_rows(), np.array([0, 1, 0, 1, -1]), 3, 0.2)
    assert a == topic_table(sample_rows(), np.array([0, 1, 0, 1, -1]), 3, 0.2)


def test_the_build_writes_topics_beside_the_store(shared_fake_base):
    base, res = shared_fake_base
    version = res.path
    qa = pq.read_table(version / QA_FILE, columns=["topic", "frequency", "flags"]).to_pylist()
    topics = pq.read_table(version / TOPICS_FILE).to_pylist()
    manifest = json.loads((version / MANIFEST).read_text(encoding="utf-8"))
    assert TOPICS_FILE in manifest["files"]  # checksummed like the store
    assert all(r["topic"] is not None for r in qa)
    assert {t["topic"] for t in topics} == {r["topic"] for r in qa}
    for t in topics:
        members = [r for r in qa if r["topic"] == t["topic"]]
        assert t["size"] == len(members) and t["asks"] == sum(r["frequency"] for r in members)
        assert t["flagged"] == sum(1 for r in members if r["flags"])
    assert sum(t["size"] for t in topics) == len(qa)
    figures = json.loads((version / "report.json").read_text(encoding="utf-8"))
    assert figures["topics"]["entries"] == len(qa)
    assert '<section id="topics">\n<h2>Topics</h2>' in (version / "report.html").read_text(encoding="utf-8")
    page = (version / "browse.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="qabase-data">(.*?)</script>', page, re.S)
                      .group(1))
    assert len(data["topics"]) == len(topics) and "topic" in data["entries"]["fields"]


def test_report_section_lists_topics_most_asked_first(tmp_path):
    import pyarrow as pa

    rows = sample_rows()
    table = assign_topics(rows, TopicsConfig(words=2), GivenLabels([1, 0, 1, 0, -1]))
    pq.write_table(pa.Table.from_pylist(table, schema=TOPICS_SCHEMA), tmp_path / TOPICS_FILE)
    view = topics_view(tmp_path)
    assert [t["topic"] for t in view["topics"]] == [1, 0, -1]  # asks 80, 60, then the unassigned
    assert view["count"] == 2 and view["entries_in_topics"] == 4 and view["entries"] == 5
    html = render_section("topics", {"topics": view})
    assert "refund" in html and '<td class="n">80</td>' in html and "2 topics hold 4 of the 5" in html
    assert "No topics" in render_section("topics", {"topics": topics_view(tmp_path / "none")})


def test_an_incremental_build_has_the_topics_of_a_full_rebuild(tmp_path):
    from fakes.models import FakeModels

    from models.config_check import load_config
    from pipelines.build import run_build

    items = ["shoes", "jacket", "phone", "laptop", "book", "lamp", "chair", "watch"]
    places = ["paris", "london", "tokyo", "berlin", "madrid", "rome", "oslo", "vienna"]
    days = []
    for day in range(2):  # the same questions as test_browse_topics.py (two topics), half of them each day
        half = range(day * 4, day * 4 + 4)
        rows = [{"question": f"How do I get a refund for the {items[i]}?",
                 "answer": f"Return the {items[i]} within 30 days for a refund."} for i in half for _ in range(i + 2)]
        rows += [{"question": f"When does the {places[i]} museum open on sundays?",
                  "answer": f"The museum in {places[i]} opens at {i + 8} am."} for i in half for _ in range(i + 2)]
        days.append(tmp_path / f"day{day}.jsonl")
        days[-1].write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False})
    run_build([str(days[0])], tmp_path / "inc", cfg, factory=FakeModels())
    inc = run_build([str(d) for d in days], tmp_path / "inc", cfg, factory=FakeModels())
    full = run_build([str(d) for d in days], tmp_path / "full", cfg, factory=FakeModels(), full_rebuild=True)
    assert inc.manifest["increment"]["mode"] == "incremental"
    a, b = pq.read_table(inc.path / TOPICS_FILE), pq.read_table(full.path / TOPICS_FILE)
    assert a.num_rows >= 2 and a.equals(b)
    assert pq.read_table(inc.path / QA_FILE).equals(pq.read_table(full.path / QA_FILE))
