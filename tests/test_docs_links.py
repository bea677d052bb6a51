"""Every relative link in README.md and docs/ resolves, and every doc page the code names exists."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
CODE_TREES = ("schemas", "models", "indexes", "pipelines", "tests", "benchmarks", "airflow_dags", ".ci")

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
DOC_PATH = re.compile(r"\bdocs/[\w./-]+\.md\b")


def _prose(text: str) -> str:
    """The text outside code blocks and code spans (a link there is an example, not a link)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    headings = re.findall(r"^#{1,6} (.+)$", FENCE.sub("", page.read_text(encoding="utf-8")), re.M)
    return {_slug(h) for h in headings}


def relative_links(page: Path) -> list[str]:
    return [t for t in LINK.findall(_prose(page.read_text(encoding="utf-8")))
            if not re.match(r"^[a-z][a-z0-9+.-]*:", t)]


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in relative_links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target} (no heading #{anchor})")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    assert broken_links(page) == []


def test_every_doc_page_is_in_the_index():
    index = ROOT / "docs" / "index.md"
    linked = {(index.parent / t.partition("#")[0]).resolve() for t in relative_links(index)}
    pages = {p.resolve() for p in (ROOT / "docs").rglob("*.md") if p != index}
    assert sorted(str(p.relative_to(ROOT)) for p in pages - linked) == []


def test_doc_paths_named_anywhere_exist():
    # code comments, docstrings and pages name pages by their path from the repository root
    files = PAGES + [p for tree in CODE_TREES for p in (ROOT / tree).rglob("*")
                     if p.suffix in (".py", ".md", ".yaml", "") and p.is_file()]
    files.append(ROOT / "Dockerfile")
    missing = sorted({f"{f.relative_to(ROOT)}: {m}" for f in files
                      for m in DOC_PATH.findall(f.read_text(encoding="utf-8", errors="replace"))
                      if not (ROOT / m).is_file()})
    assert missing == []


def test_the_checker_catches_a_broken_link(tmp_path):
    (tmp_path / "a.md").write_text("# Top\n\n[ok](b.md#part) [bad](c.md) [bad anchor](b.md#nope) "
                                   "[web](https://example.com) `[code](d.md)`\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\n## Part\n", encoding="utf-8")
    assert broken_links(tmp_path / "a.md") == ["c.md (no such file)", "b.md#nope (no heading #nope)"]
