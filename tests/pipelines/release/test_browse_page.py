"""The base browser (browse.html) and the offline Data Docs, in a real browser.

A small base is built with the fake models (tests/fakes/models.py) from logs with an objective and a
subjective question, a paraphrase, a contradicted and a time-sensitive answer, Chinese, hostile text (``</script>``,
an ``<img onerror>``) and questions the filters drop. Debian's chromium, driven by Playwright, opens the page from
disk: a search finds the entry, a flag narrows the list, an entry opens with its answer and viewpoints, the dropped
questions are listed by reason, Chinese text is drawn with a CJK font, and the page makes no request but its own
file. The browser tests skip, saying why, where chromium is not installed (``apt-get install chromium
fonts-noto-cjk``; .ci/setup does it).
"""

import json
import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pyarrow.parquet as pq
import pytest
from conftest import CHROMIUM, NO_CHROMIUM
from fakes.models import FakeModels

from models.config_check import load_config
from pipelines.build import run_build
from pipelines.release import browse
from pipelines.commands.report import main as report_main
from schemas.layout import BROWSE_FILE, MANIFEST, QA_FILE, REPORT_FILES

needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)

HOSTILE_Q = "</script><script>alert(1)</script> what is this tag?"
HOSTILE_A = "<img src=x onerror=alert(2)> it is </SCRIPT> a tag <!-- x"


def _logs(path: Path) -> Path:
    rows = []

    def add(q, a, n=1):
        rows.extend({"question": q, "answer": a} for _ in range(n))

    add("What is the capital of France?", "Paris is the capital of France.", 4)
    add("Which city is the capital of France?", "The capital of France is Paris.", 2)  # a paraphrase: merged
    add("What is the capital of France?", "Lyon.", 1)
    add("Which is better, tea or coffee?", "Tea is calmer and healthier.", 2)
    add("Which is better, tea or coffee?", "Coffee gives you energy and tastes great.", 2)
    add("Which is better, tea or coffee?", "I'd pick tea, it is calmer and a bit healthier.", 1)
    add("How tall is the Eiffel Tower?", "It is 330 metres tall.", 3)
    add("How tall is the Eiffel Tower?", "It is 300 metres tall.", 1)  # numbers against the answer: contradicted
    add("What is the price of bitcoin today?", "About 60000 dollars.", 2)  # time-sensitive
    add("中国的首都是哪里？", "北京是中国的首都。", 3)
    add("中国的首都是哪里", "首都是北京。", 1)
    add(HOSTILE_Q, HOSTILE_A, 2)
    add("what is is the answer?", "42.", 1)  # a doubled word: low GEC (fake)
    add("hello", "Hi!", 1)  # no question: low intent (fake)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    work = tmp_path_factory.mktemp("browse")
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False})  # Data Docs on: checked offline
    return run_build([str(_logs(work / "logs.jsonl"))], work / "base", cfg, factory=FakeModels())


@pytest.fixture(scope="module")
def qa(built) -> dict[str, dict]:
    return {r["question"]: r for r in pq.read_table(built.path / QA_FILE).to_pylist()}


# --- without a browser -------------------------------------------------------------------------------------------

def test_embedded_json_cannot_end_its_script_element():
    hostile = {"q": "</script><script>alert(1)</script>", "a": "</SCRIPT ><!-- <script", "amp": "&lt;b&gt; & <b>",
               "lines": "a\u2028b\u2029c", "zh": "中国的首都是哪里？", "lone": "x\ud800y", "quote": "\"'\\"}
    text = browse.embed_json(hostile)
    assert not re.search(r"[<>&\u2028\u2029]", text) and "</" not in text.lower()
    assert not re.search(r"[\ud800-\udfff]", text)  # a lone surrogate is written as an escape: the page stays UTF-8
    assert json.loads(text) == hostile  # the escapes mean the same characters
    assert "中国" in text  # CJK stays as it is (half the bytes of \u escapes)
    page = browse.render({"version": "v</title><script>", "created": None, "thresholds": {}, "counts": {},
                          "limits": {}, "entries": {"fields": [], "rows": []},
                          "dropped": {"fields": [], "rows": []}, "reasons": [], "data_docs": None,
                          "hostile": hostile})
    assert len(re.findall(r"<script", page, re.I)) == 2  # the data and the code, nothing the text opened
    assert "<title>qabase base browser v&lt;/title&gt;&lt;script&gt;</title>" in page
    data = re.search(r'<script type="application/json" id="qabase-data">(.*?)</script>', page, re.S).group(1)
    assert json.loads(data)["hostile"] == hostile


def test_the_page_allows_only_its_own_script_and_style():
    import base64
    import hashlib

    page = browse.render({"version": "v", "created": None, "thresholds": {}, "counts": {}, "limits": {},
                          "entries": {"fields": [], "rows": []}, "dropped": {"fields": [], "rows": []},
                          "reasons": [], "data_docs": None})
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1)
    rules = dict((part.split(" ", 1) + [""])[:2] for part in (p.strip() for p in csp.split(";")))
    assert rules["default-src"] == "'none'" and rules["base-uri"] == "'none'" and rules["form-action"] == "'none'"
    code = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    sha = lambda s: "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"  # noqa: E731
    assert rules["script-src"] == sha(code) and rules["style-src"] == sha(style)
    assert "Noto Sans CJK SC" in style
    assert not re.search(r"(?:src|href)\s*=\s*[\"']?(?:https?:)?//", page)


def test_dropped_questions_come_nearest_passing_first():
    q = lambda text, reason, **kw: {"question": text, "reason": reason, "kept": False, "frequency": 1, **kw}  # noqa
    questions = [
        q("g1", "low_gec", gec_score=0.10), q("g2", "low_gec", gec_score=0.45), q("g3", "low_gec", gec_score=0.30),
        q("i1", "low_intent", intent_score=0.05), q("i2", "low_intent", intent_score=0.29),
        q("b1", "low_gec+low_intent", gec_score=0.49, intent_score=0.0),  # far on intent
        q("b2", "low_gec+low_intent", gec_score=0.40, intent_score=0.25),  # 0.1 and 0.05 short: nearer
        q("m1", "merged", merge_probability=0.95), q("m2", "merged", merge_probability=0.62),
        q("t1", "below_top_k", frequency=2), q("t2", "below_top_k", frequency=9),
        {"question": "kept", "reason": "", "kept": True, "frequency": 5},
    ]
    out = browse.dropped_by_reason(questions, {"gec": 0.5, "intent": 0.3}, per_reason=2)
    order = {reason: (total, [qq["question"] for _, qq in shown]) for reason, total, shown in out}
    assert order == {"low_gec": (3, ["g2", "g3"]), "low_intent": (2, ["i2", "i1"]),
                     "low_gec+low_intent": (2, ["b2", "b1"]), "merged": (2, ["m2", "m1"]),
                     "below_top_k": (2, ["t2", "t1"])}
    assert [r for r, _, _ in out] == ["low_gec", "low_intent", "low_gec+low_intent", "below_top_k", "merged"]
    words = dict((qq["question"], w) for _, _, shown in out for w, qq in shown)
    assert words["g2"] == "GEC 0.450 ≤ 0.5 (0.050 short)" and words["m2"] == "judge probability 0.620"


@pytest.mark.slow
def test_every_version_gets_a_browse_page_the_report_links(built, tmp_path):
    page = (built.path / BROWSE_FILE).read_text(encoding="utf-8")
    assert BROWSE_FILE in REPORT_FILES and REPORT_FILES[0] == "report.html"
    files = json.loads((built.path / MANIFEST).read_text(encoding="utf-8"))["files"]
    assert BROWSE_FILE not in files  # regenerable, like the report: not checksummed
    report = (built.path / "report.html").read_text(encoding="utf-8")
    assert f'href="{BROWSE_FILE}"' in report and f'href="{BROWSE_FILE}#view=dropped"' in report
    assert "styles load from the web" not in report
    assert len(re.findall(r"<script", page, re.I)) == 2 and "<img" not in page
    data = json.loads(re.search(r'id="qabase-data">(.*?)</script>', page, re.S).group(1))
    entries = [dict(zip(data["entries"]["fields"], r)) for r in data["entries"]["rows"]]
    assert {e["question"] for e in entries} >= {HOSTILE_Q, "中国的首都是哪里？", "How tall is the Eiffel Tower?"}
    assert data["limits"]["entries_shown"] == data["limits"]["entries_total"] == built.manifest["counts"]["published"]
    # `qabase report` writes it again
    (built.path / BROWSE_FILE).unlink()
    assert report_main(["--base", str(built.path.parent.parent), "--version", built.version]) == 0
    assert (built.path / BROWSE_FILE).read_text(encoding="utf-8") == page


@pytest.mark.slow
def test_the_page_stays_bounded_on_a_big_base(built, monkeypatch):
    manifest = json.loads((built.path / MANIFEST).read_text(encoding="utf-8"))
    full = browse.collect(built.path, manifest)
    one_entry = len(browse.embed_json(full["entries"]["rows"][0]).encode()) + 3
    monkeypatch.setattr(browse, "ENTRY_BUDGET_BYTES", one_entry * 2)
    monkeypatch.setattr(browse, "DROPPED_PER_REASON", 1)
    small = browse.collect(built.path, manifest)
    assert 1 <= small["limits"]["entries_shown"] < small["limits"]["entries_total"] == len(full["entries"]["rows"])
    assert [r[0] for r in small["entries"]["rows"]] == list(range(1, small["limits"]["entries_shown"] + 1))  # ranks
    assert all(r["shown"] <= 1 for r in small["reasons"])


@pytest.mark.slow
def test_data_docs_reference_nothing_on_the_web(built):
    docs = built.path / "data_docs"
    pages = sorted(docs.rglob("*.html"))
    assert len(pages) >= 10
    remote = re.compile(r"<(?:script|link|img)\b[^>]*(?:src|href)\s*=\s*[\"'](?:https?:)?//"
                        r"|url\(\s*[\"']?(?:https?:)?//", re.I)
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert not remote.search(text), page
        assert "Content-Security-Policy" in text and "bootstrapTable" not in text
    index = (docs / "index.html").read_text(encoding="utf-8")
    links = set(re.findall(r'href="(validations/[^"]+\.html)"', index))
    assert links == {p.relative_to(docs).as_posix() for p in docs.glob("validations/**/*.html")}


# --- in chromium (the browser fixture: tests/conftest.py) ----------------------------------------------------------

class Visit:
    """A fresh page that records every request, console error, page error and dialog the browser sees."""

    def __init__(self, browser):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.requests, self.errors, self.dialogs = [], [], []
        self.context.on("request", lambda r: self.requests.append(r.url))
        self.page = None

    def new_page(self):
        """A new tab (a URL that differs only in its hash would not load the page again in the same tab)."""
        if self.page is not None:
            self.page.close()
        self.page = self.context.new_page()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        return self.page

    def open(self, path: Path, fragment: str = ""):
        page = self.new_page()
        page.goto(path.resolve().as_uri() + fragment)
        page.wait_for_selector("html[data-ready]")
        return page

    def local_files(self) -> set[str]:
        assert all(u.startswith("file://") for u in self.requests), self.requests
        return {unquote(urlsplit(u).path) for u in self.requests}


@pytest.fixture
def visit(browser):
    v = Visit(browser)
    yield v
    v.context.close()
    assert not v.errors, v.errors  # no script error, no CSP violation
    assert not v.dialogs, v.dialogs  # no hostile text ran


def expect(locator):
    from playwright.sync_api import expect as _expect

    return _expect(locator)


def _rows(page) -> list[str]:
    return page.locator("#entries tbody td.q a").all_inner_texts()


def _page_only(built, visit):
    assert visit.local_files() == {str((built.path / BROWSE_FILE).resolve())}  # the page itself, nothing else


@pytest.mark.slow
@needs_chromium
def test_search_finds_the_entry(built, visit):
    page = visit.open(built.path / BROWSE_FILE)
    assert len(_rows(page)) == built.manifest["counts"]["published"]
    questions = page.locator("#entries tbody td.q a")
    page.fill("input[name=q]", "EIFFEL")  # case-insensitive
    expect(questions).to_have_text(["How tall is the Eiffel Tower?"])
    assert "q=EIFFEL" in page.evaluate("location.hash")  # a link to this search
    page.fill("input[name=q]", "which city")  # only a merged form says it
    expect(questions).to_have_text(["What is the capital of France?"])
    assert "Which city is the capital of France?" in page.locator("#entries .hit").inner_text()
    page.fill("input[name=q]", "首都")
    expect(questions).to_have_text(["中国的首都是哪里？"])
    page.fill("input[name=q]", "Eif\u200bfel\u2066")  # invisible characters read past, as the keys do
    expect(questions).to_have_text(["How tall is the Eiffel Tower?"])
    page.fill("input[name=q]", "</script>")  # hostile text is found, and shown, as text
    expect(questions).to_have_text([HOSTILE_Q])
    assert page.evaluate("document.scripts.length") == 2 and page.locator("img").count() == 0
    page.fill("input[name=q]", "no such words anywhere")
    expect(page.locator(".empty")).to_have_text("No entry matches.")
    _page_only(built, visit)


@pytest.mark.slow
@needs_chromium
def test_a_flag_filter_narrows_the_list_and_the_hash_opens_it_again(built, visit, qa):
    page = visit.open(built.path / BROWSE_FILE)
    total = len(_rows(page))
    options = page.locator("select[name=flag] option").evaluate_all("os => os.map(o => o.value)")
    assert {"contradicted", "time_sensitive"} <= set(options)
    page.select_option("select[name=flag]", "contradicted")
    expect(page.locator("#entries tbody tr")).to_have_count(1)
    contradicted = [q for q, r in qa.items() if r["contradicted"]]
    assert total > 1 and _rows(page) == contradicted == ["How tall is the Eiffel Tower?"]
    page.select_option("select[name=flag]", "time_sensitive")
    expect(page.locator("#entries tbody td.q a").first).to_contain_text("bitcoin")
    assert _rows(page) == [q for q, r in qa.items() if r["time_sensitive"]]
    assert "flag=time_sensitive" in page.evaluate("location.hash")
    page.select_option("select[name=lang]", "zh")
    page.wait_for_selector("#entries", state="detached")
    assert page.locator(".empty").inner_text() == "No entry matches."
    # a link opens a search: the hash alone sets the controls and the list
    page = visit.open(built.path / BROWSE_FILE, "#q=tea&type=subjective&minconf=0")
    assert page.input_value("input[name=q]") == "tea" and page.input_value("select[name=type]") == "subjective"
    assert _rows(page) == ["Which is better, tea or coffee?"]
    _page_only(built, visit)


@pytest.mark.slow
@needs_chromium
def test_an_opened_entry_shows_its_answer_viewpoints_and_scores(built, visit, qa):
    entry = qa["Which is better, tea or coffee?"]
    assert entry["qtype"] == "subjective" and entry["viewpoints"]
    page = visit.open(built.path / BROWSE_FILE)
    page.locator("#entries tbody tr", has_text="Which is better, tea or coffee?").click()
    detail = page.locator("#detail")
    detail.wait_for()
    assert page.locator("#detail-question").inner_text() == entry["question"]
    assert page.locator("#detail-answer").inner_text() == entry["answer"]
    assert f"entry={entry['rank']}" in page.evaluate("location.hash")
    shown = page.locator("#viewpoints .vp")
    assert shown.count() == len(entry["viewpoints"])
    texts = {a["answer_id"]: a["text"] for a in entry["answers"]}
    for i, vp in enumerate(entry["viewpoints"]):
        box = shown.nth(i).inner_text()
        assert vp["summary"] in box
        assert all(texts[a] in box for a in vp["answer_ids"])  # the answers that support it
    text = detail.inner_text()
    for part in ("agreement", "support", "answered", "consistent", "fresh"):
        assert part in text
    assert f"{entry['confidence']:.3f}" in text and f"{entry['reliability']:.3f}" in text
    page.keyboard.press("Escape")
    detail.wait_for(state="detached")
    # an entry opens from a link, hostile text and all, as text
    hostile = qa[HOSTILE_Q]
    page = visit.open(built.path / BROWSE_FILE, f"#entry={hostile['rank']}")
    assert page.locator("#detail-question").inner_text() == HOSTILE_Q
    assert page.locator("#detail-answer").inner_text() == hostile["answer"] and HOSTILE_A in hostile["answer"]
    assert HOSTILE_A in page.locator("#answers").inner_text()
    assert page.evaluate("document.scripts.length") == 2 and page.locator("img").count() == 0
    _page_only(built, visit)


@pytest.mark.slow
@needs_chromium
def test_a_time_sensitive_answer_says_when_it_was_true(built, visit, qa):
    """In the list and in the opened entry, with the answer (these logs carry no dates: it says so)."""
    entry = qa["What is the price of bitcoin today?"]
    assert entry["time_sensitive"] and entry["logs_period"] is None
    note = "time-sensitive: may be out of date (the logs carry no dates)"
    page = visit.open(built.path / BROWSE_FILE, f"#entry={entry['rank']}")
    assert page.locator("#detail-asof").inner_text() == note
    row = page.locator("#entries tbody tr", has_text="What is the price of bitcoin today?")
    assert note in row.locator("td.a").inner_text()
    stable = qa["What is the capital of France?"]
    page = visit.open(built.path / BROWSE_FILE, f"#entry={stable['rank']}")
    assert page.locator("#detail-asof").count() == 0
    _page_only(built, visit)


@pytest.mark.slow
@needs_chromium
def test_dropped_questions_are_listed_by_reason(built, visit):
    page = visit.open(built.path / BROWSE_FILE)
    page.click("#tab-dropped")
    page.wait_for_selector("#dropped")
    reasons = page.locator("#reasons button").evaluate_all("bs => bs.map(b => b.dataset.reason)")
    assert reasons[:2] == ["low_gec", "low_intent"] and "merged" in reasons
    assert page.locator("#dropped tbody td.q").all_inner_texts() == ["what is is the answer?"]
    assert "GEC 0.200 ≤ 0.5" in page.locator("#dropped tbody").inner_text()
    page.click("#reasons button[data-reason=low_intent]")
    expect(page.locator("#dropped tbody td.q").first).to_have_text("hello")
    assert "view=dropped" in page.evaluate("location.hash") and "reason=low_intent" in page.evaluate("location.hash")
    page.click("#reasons button[data-reason=merged]")  # a merged question opens the entry it counts toward
    page.locator("#dropped tbody tr", has_text="Which city is the capital of France?").click()
    assert page.locator("#detail-question").inner_text() == "What is the capital of France?"
    _page_only(built, visit)


@pytest.mark.slow
@needs_chromium
def test_chinese_is_drawn_with_a_cjk_font(built, visit):
    page = visit.open(built.path / BROWSE_FILE, "#q=首都")
    cell = page.locator("#entries td.q[lang=zh] a")
    assert cell.inner_text() == "中国的首都是哪里？"
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "#entries td.q[lang=zh] a"})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    cjk = [f for f in fonts if "CJK" in f["familyName"] or "Han" in f["familyName"]]
    assert cjk and sum(f["glyphCount"] for f in cjk) >= 8, fonts  # every Han character, none as a missing glyph
    _page_only(built, visit)


@pytest.mark.slow
@needs_chromium
def test_data_docs_work_offline(built, visit):
    docs = built.path / "data_docs"
    page = visit.new_page()
    page.goto((docs / "index.html").resolve().as_uri())
    rows = page.locator("table.qabase-static tbody tr")
    suites = len({r["suite"] for r in built.manifest["quality"]["results"]})
    assert rows.count() >= 2 * suites  # validation results and suites, as tables without bootstrap-table
    assert page.evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 0)")  # GX's logo, local
    assert page.evaluate("getComputedStyle(document.querySelector('.navbar')).display") == "flex"  # styled
    page.locator("table.qabase-static a", has_text="Success").first.click()
    page.wait_for_selector("text=Expectation Validation Result")
    assert page.evaluate("getComputedStyle(document.querySelector('.card')).borderTopStyle") == "solid"
    root = str(docs.resolve())
    assert all(f.startswith(root + os.sep) for f in visit.local_files()), visit.requests
