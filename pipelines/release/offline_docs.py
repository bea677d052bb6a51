"""GX Data Docs that work offline: rewrite the pages great-expectations wrote so that they need no network.

GX's pages load Bootstrap, jQuery, bootstrap-table, Font Awesome, Vega and their logo from CDNs; the
great_expectations package ships only its own images, fonts and two small style sheets. Offline (an
air-gapped machine, a version folder copied somewhere, a CI artifact) a page is then unstyled and the
index page is blank: its tables are drawn by bootstrap-table from data in an inline script.
:func:`make_offline` rewrites every page of a site, after GX wrote it:

* every ``<script>`` (all of them need jQuery from a CDN) and every remote ``<link>`` go;
* the index page's tables are written out as plain HTML tables from the data GX gave bootstrap-table
  (every row links to its page, as a click on a row did); a page whose data cannot be read lists the
  site's pages instead;
* remote images (the GX logo) point at GX's local copy under ``static/images`` where it has one;
* a small local style sheet (``data_docs_offline.css`` beside this module: layout, tables, cards, badges,
  stand-ins for the Font Awesome icons GX uses) is inlined, with a few lines of plain script for the
  "Show All / Failed Only" buttons of a validation page;
* a Content-Security-Policy meta tag allows only local files, inline styles and that one script.

Links to GX's web site stay links: following one is the reader's choice, nothing loads by itself. Vega
charts (GX draws them for profiling results, which qabase does not make) are not drawn offline; a page
that has one says so.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import html
import os
import re
from pathlib import Path

MARKER = "qabase-offline"
_HERE = Path(__file__).parent
_REMOTE = r"(?:https?:)?//"
_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script\s*>", re.S | re.I)
_REMOTE_LINK = re.compile(rf"<link\b[^>]*\bhref\s*=\s*[\"']{_REMOTE}[^\"']*[\"'][^>]*>", re.I)
_REMOTE_IMG = re.compile(rf"(<img\b[^>]*?\bsrc\s*=\s*)([\"']){_REMOTE}([^\"']*)\2", re.I)
_REMOTE_URL = re.compile(rf"url\(\s*([\"']?){_REMOTE}([^\"')]*)\1\s*\)", re.I)
_STATIC_REF = re.compile(r"(\b(?:href|src)\s*=\s*)([\"'])(?:\./|(?:\.\./)+)static/", re.I)
_ONCLICK = re.compile(r"\s+onclick\s*=\s*(\"[^\"]*\"|'[^']*')", re.I)
_TOOLBAR = re.compile(r"<div\s+id=\"[^\"]*-toolbar\"[^>]*>.*?</div>", re.S | re.I)
_TABLE_CALL = re.compile(r"\$\('#(?P<id>[^']+)'\)\.bootstrapTable\(\s*Object\.assign\(\s*\{\s*"
                         r"columns:\s*(?P<columns>\[.*?\]),\s*\n\s*data:\s*(?P<data>\[.*?\]),\s*\n", re.S)

# the "Show All / Failed Only" buttons of a validation page, without jQuery
_SCRIPT_TEXT = """
(function () {
  function show(el, on) { if (el) el.style.display = on ? "" : "none"; }
  function filter(failedOnly) {
    document.querySelectorAll(".hide-succeeded-validation-target-child").forEach(function (el) {
      show(el.parentElement, !failedOnly);
    });
    document.querySelectorAll(".hide-succeeded-validation-target").forEach(function (el) { show(el, !failedOnly); });
    document.querySelectorAll(".hide-succeeded-validations-column-section-target-child").forEach(function (el) {
      var section = el.parentElement && el.parentElement.parentElement;
      show(section, !failedOnly);
      if (!section || !section.id) return;
      document.querySelectorAll("a[href='#" + section.id + "']").forEach(function (a) { show(a, !failedOnly); });
    });
  }
  document.querySelectorAll("[data-qabase-filter]").forEach(function (label) {
    label.addEventListener("click", function () {
      document.querySelectorAll("[data-qabase-filter]").forEach(function (l) {
        l.classList.toggle("active", l === label);
      });
      filter(label.getAttribute("data-qabase-filter") === "failed");
    });
  });
})();
"""


def _css() -> str:
    return (_HERE / "data_docs_offline.css").read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def _local_image(name: str, prefix: str, images: set[str]) -> str | None:
    base = name.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[-1]
    return f"{prefix}static/images/{base}" if base in images else None


def _static_table(table_id: str, columns: list[dict], rows: list[dict]) -> str:
    """The rows GX gave bootstrap-table, as a plain table (cells are GX's own HTML, as bootstrap-table showed them);
    the first cell links to the row's page."""
    if any("_run_time_sort" in r for r in rows):
        rows = sorted(rows, key=lambda r: -(r.get("_run_time_sort") or 0))
    head = "".join(f"<th>{html.escape(str(c.get('title', '')))}</th>" for c in columns)
    body = []
    for r in rows:
        link = r.get("_table_row_link_path")
        cells = []
        for i, c in enumerate(columns):
            value = str(r.get(c.get("field"), "") or "")
            if c.get("field") == "validation_success" and r.get("_validation_success_text"):
                value += f" {html.escape(str(r['_validation_success_text']))}"
            if i == 0 and link and "<a " not in value:
                value = f"<a href=\"{html.escape(str(link), quote=True)}\">{value}</a>"
            cells.append(f"<td>{value}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f"<table id=\"{html.escape(table_id, quote=True)}\" class=\"qabase-static\"><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def _page_list(folder: Path, page: Path) -> str:
    """Every validation and suite page of the site, as links (when the index's table data cannot be read)."""
    items = []
    for p in sorted(folder.rglob("*.html")):
        if p == page:
            continue
        rel = os.path.relpath(p, page.parent).replace(os.sep, "/")
        items.append(f"<li><a href=\"{html.escape(rel, quote=True)}\">{html.escape(rel)}</a></li>")
    return "<ul class='qabase-static-list'>" + "".join(items) + "</ul>"


def _index_tables(text: str, folder: Path, page: Path) -> str:
    for m in list(_TABLE_CALL.finditer(text)):
        table_id = m.group("id")
        empty = re.compile(rf"<table\s+id=\"{re.escape(table_id)}\"[^>]*>\s*</table>", re.S)
        try:
            columns, rows = ast.literal_eval(m.group("columns")), ast.literal_eval(m.group("data"))
            static = _static_table(table_id, columns, rows)
        except (ValueError, SyntaxError, TypeError, AttributeError):
            static = _page_list(folder, page)
        text = empty.sub(lambda _: static, text, count=1)
    if re.search(r"<table\s+id=\"[^\"]*\"[^>]*data-toggle=\"table\"[^>]*>\s*</table>", text):  # one left unread
        text = re.sub(r"(<table\s+id=\"[^\"]*\"[^>]*data-toggle=\"table\"[^>]*>\s*</table>)",
                      lambda _: _page_list(folder, page), text, count=1)
    return text


def rewrite_page(text: str, folder: Path, page: Path, images: set[str]) -> str:
    """One page of the site, offline (see the module's docstring)."""
    if MARKER in text:
        return text
    depth = len(page.relative_to(folder).parts) - 1
    prefix = "../" * depth
    has_vega = "vegaEmbed" in text
    text = _index_tables(text, folder, page)
    text = _SCRIPT.sub("", text)
    text = _REMOTE_LINK.sub("", text)
    text = _TOOLBAR.sub("", text)

    def img(m):
        local = _local_image(m.group(3), prefix, images)
        return f"{m.group(1)}{m.group(2)}{local or 'data:,'}{m.group(2)}"

    text = _REMOTE_IMG.sub(img, text)

    def url(m):
        local = _local_image(m.group(2), prefix, images)
        return f"url('{local}')" if local else "none"

    text = _REMOTE_URL.sub(url, text)
    # GX's own links into static/ (its favicon's is one level short on validation pages)
    text = _STATIC_REF.sub(lambda m: f"{m.group(1)}{m.group(2)}{prefix or './'}static/", text)
    text = re.sub(r"onclick\s*=\s*\"showAllValidations\(\)\"", 'data-qabase-filter="all"', text)
    text = re.sub(r"onclick\s*=\s*\"hideSucceededValidations\(\)\"", 'data-qabase-filter="failed"', text)
    text = _ONCLICK.sub("", text)
    css = _css()
    csp = (f"default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; "
           f"script-src {_sha256(_SCRIPT_TEXT)}; base-uri 'none'; form-action 'none'")
    head = (f"<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n"
            f"<style id=\"{MARKER}\">{css}</style>\n")
    if re.search(r"<head\b[^>]*>", text, re.I):
        text = re.sub(r"(<head\b[^>]*>)", lambda m: m.group(1) + "\n" + head, text, count=1, flags=re.I)
    else:
        text = head + text
    note = ("<p class='qabase-offline-note'>Offline copy (qabase): charts drawn with Vega need it from the web and "
            "are not shown.</p>" if has_vega else "")
    tail = f"{note}<script>{_SCRIPT_TEXT}</script>\n"
    if re.search(r"</body\s*>", text, re.I):
        text = re.sub(r"(</body\s*>)", lambda m: tail + m.group(1), text, count=1, flags=re.I)
    else:
        text += tail
    return text


def make_offline(folder: Path) -> int:
    """Rewrite every page of the Data Docs site in ``folder`` to work offline; returns the pages rewritten."""
    folder = Path(folder)
    images_dir = folder / "static" / "images"
    images = {p.name for p in images_dir.iterdir() if p.is_file()} if images_dir.is_dir() else set()
    done = 0
    for page in sorted(folder.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        new = rewrite_page(text, folder, page, images)
        if new != text:
            page.write_text(new, encoding="utf-8")
            done += 1
    return done
