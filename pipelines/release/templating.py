"""The Jinja2 environment of the release pages (report.html, browse.html): templates in templates/ beside this
module (package data, so a plain wheel install has them), autoescape on (log text is only ever text), an
undefined name an error rather than an empty string, and the number filters (pipelines.release.number_format)."""

from __future__ import annotations

from pathlib import Path

TEMPLATES = Path(__file__).parent / "templates"


def environment(**filters):
    """A fresh environment with the number filters and ``filters``."""
    import jinja2

    from pipelines.release.number_format import duration, number, percent

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters.update(num=number, percent=percent, duration=duration, **filters)
    return env
