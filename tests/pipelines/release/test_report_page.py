"""The report page as a reader meets it: a contents list that links every section, a funnel that only narrows,
numbers written one way, merges through answer overlap labelled so, log text escaped by the templates."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pipelines.release.number_format import duration, number, percent
from pipelines.release.report import OVERLAP, charts, funnel, merges, render_html

# a whole number with thousands separators, a fraction with three decimals, a share with one
ONE_FORMAT = re.compile(r"^-?\d{1,3}(?:,\d{3})*(?:\.\d{3}|\.\d%)?$")


class Page(HTMLParser):
    """The parts of a report page the tests read: section anchors, contents links, numeric cells, h2s."""

    def __init__(self):
        super().__init__()
        self.sections, self.links, self.numeric_cells, self.cards = [], [], [], []
        self.h2_outside_section = 0
        self.scripts = 0
        self._open = []  # (tag, attrs) of the elements open around the text
        self._depth_in_section = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.sections.append(a.get("id"))
            self._depth_in_section += 1
        if tag == "script":
            self.scripts += 1
        if tag == "a" and any(t == "nav" for t, _ in self._open):
            self.links.append(a.get("href"))
        if tag == "h2" and not self._depth_in_section and not any(t == "nav" for t, _ in self._open):
            self.h2_outside_section += 1
        self._open.append((tag, a))

    def handle_endtag(self, tag):
        if tag == "section":
            self._depth_in_section -= 1
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data):
        if self._open and self._open[-1][0] == "td" and "n" in (self._open[-1][1].get("class") or "").split():
            self.numeric_cells.append(data)
        if self._open and self._open[-1][0] == "div" and self._open[-1][1].get("class") == "value":
            self.cards.append(data)


@pytest.fixture(scope="module")
def version(shared_fake_base):
    path = Path(shared_fake_base[1].path)
    return path, json.loads((path / "report.json").read_text(encoding="utf-8"))


def _parsed(path: Path) -> Page:
    page = Page()
    page.feed((path / "report.html").read_text(encoding="utf-8"))
    return page


def test_the_contents_link_every_sections_anchor(version):
    page = _parsed(version[0])
    assert len(page.sections) >= 16 and all(page.sections) and len(set(page.sections)) == len(page.sections)
    assert page.links == [f"#{s}" for s in page.sections]  # every section, in page order, and nothing else
    assert page.h2_outside_section == 0  # no heading without its anchor
    assert page.scripts == 0  # nothing runs: the tables say their order instead of sorting


def test_the_funnel_only_narrows(version):
    steps = version[1]["funnel"]
    counts = [n for _, n in steps]
    assert counts == sorted(counts, reverse=True) and steps[0][0] == "rows read" and steps[-1][0] == "published"
    # the counts that are not a part of the step before stand beside it
    assert [s for s, _ in version[1]["funnel_aside"]] == ["entries formed (paraphrases merged)", "passed intent"]
    # built from counts where paraphrases made fewer entries than questions were scored (the demo's 81 < 163)
    c = {"rows_read": 2981, "rows_accepted": 2981, "distinct_questions": 163, "entries_formed": 81,
         "questions_scored": 163, "passed_gec": 150, "passed_intent": 143, "passed_both": 135, "entries": 56,
         "top_k": 53, "published": 53}
    narrowing = [n for _, n in funnel(c)]
    assert narrowing == sorted(narrowing, reverse=True) and 81 not in narrowing
    # entries whose every answer was shut out drop at their own step, not at top K (K 50,000 took every one left)
    c.update(entries=3418, candidates_judged=3418, no_valid_answer=929, top_k=2489, published=2489)
    steps = dict(funnel(c))
    assert steps["answers judged"] == 3418 and steps["with a valid answer"] == 2489 == steps["top K"]


def test_every_number_is_written_one_way(version):
    assert [number(2981), number(0.037354), number(0.0), number(True), number(None)] == \
           ["2,981", "0.037", "0.000", "yes", "–"]
    assert percent(3, 4) == "75.0%" and percent(1, 0) == "–" and duration(124.5) == "2 min 04 s"
    page = _parsed(version[0])
    assert page.numeric_cells and page.cards
    wrong = [c for c in page.numeric_cells if not ONE_FORMAT.match(c.strip())]
    assert not wrong, wrong
    assert all(ONE_FORMAT.match(c) or c.endswith(" s") or c == "–" for c in page.cards), page.cards
    # no float printed raw anywhere in a table (0.0, 0.037354)
    text = (version[0] / "report.html").read_text(encoding="utf-8")
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", text)
    assert not [c for c in cells if re.fullmatch(r"-?\d+\.(?:\d{1,2}|\d{4,})", c)]


def _question(text, p, reason, lang="en", qid="q1"):
    return {"question": text, "frequency": 3, "merge_probability": p, "merged_into_reason": reason, "qid": qid,
            "lang": lang, "kept": False, "reason": "merged"}


def test_merges_through_answer_overlap_are_labelled_so(version):
    questions = [
        _question("Tea or coffee?", 0.0, "paraphrase of 'Is tea better than coffee?' (p=0.000, answers overlap "
                  "1.00, with 'is tea better than coffee')"),
        _question("Which is better, tea or coffee?", 0.91, "paraphrase of 'Is tea better than coffee?' (p=0.910, "
                  "answers overlap 0.20, with 'is tea better than coffee')"),
        _question("长城有多长", 0.5, "paraphrase of '长城有多长？' (p=0.500, answers overlap 0.75, with '长城的长度')",
                  lang="zh"),
        _question("reviewed", None, "merged by a reviewer into 'x' (with 'y')"),
    ]
    m = merges(questions, [], {"threshold_en": 0.865, "threshold_zh": 0.8987})
    assert m["merged_by"] == {"judge": 1, "answer overlap": 2, "reviewer": 1}
    assert [q["question"] for q in m["least_sure"]] == ["Which is better, tea or coffee?"]
    assert [(q["question"], q["answer_overlap"], q["by"]) for q in m["through_overlap"]] == [
        ("长城有多长", 0.75, OVERLAP), ("Tea or coffee?", 1.0, OVERLAP)]
    figures = {**version[1], "merges": m}
    page = render_html(figures, charts(figures))
    overlap_part = page[page.index("Merged through answer overlap"):page.index("</section>", page.index(
        "Merged through answer overlap"))]
    assert "Tea or coffee?" in overlap_part and "长城有多长" in overlap_part and "class=\"tag overlap\"" in overlap_part
    judge_part = page[page.index("Least sure merges by the judge"):page.index("Merged through answer overlap")]
    assert "Tea or coffee?" not in judge_part and "Which is better, tea or coffee?" in judge_part


def test_log_text_is_escaped_by_the_templates(version):
    figures = {**version[1], "question_rejection_examples": {"low_gec": ["<script>alert('q')</script>"]},
               "question_rejections": {"low_gec": 1}}
    page = render_html(figures, charts(figures))
    assert "<script" not in page.lower() and "&lt;script&gt;alert(" in page
