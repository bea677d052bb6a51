"""``qabase report``: (re)write a version's report.html, report.json and browse.html.

    qabase report --base BASE_DIR [--version V]      (python -m pipelines.commands.report)

It writes into a published version of the base, so it does what every step that writes into a base does: it
holds the base's build lock while it writes (a build publishing, or retention removing that version, waits; exit
4 while a build holds it), and it writes only inside the base: ``--version`` is a version id (one name under
``versions/``), never a path. The report itself: pipelines.release.report.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pipelines.release.build_lock import hold_build_lock
from pipelines.release.report import write_report
from schemas import layout
from schemas.errors import QabaseError


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser

    ap = command_parser("report", "(Re)write a version's report.html, report.json and browse.html.")
    ap.add_argument("--base", required=True, type=Path, metavar="BASE_DIR", help="the base directory")
    ap.add_argument("--version", help="a version id under BASE_DIR/versions, never a path (default: the one latest "
                                      "names)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.version is not None:  # before anything is read: a path would reach outside the base
            layout.check_version_id(args.version, "--version")
        version_dir = layout.version_dir(args.base, args.version)
        with hold_build_lock(layout.BaseLayout(args.base), version_dir.name):
            manifest = json.loads((version_dir / layout.MANIFEST).read_text(encoding="utf-8"))
            write_report(version_dir, manifest)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    print(f"report -> {version_dir / 'report.html'}, {version_dir / 'report.json'} and "
          f"{version_dir / layout.BROWSE_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
