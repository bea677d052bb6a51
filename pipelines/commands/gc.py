"""``qabase gc``: remove a base's old versions and what killed builds left (``--dry-run``: show what would go).

    qabase gc --base DIR [--keep N] [--keep-failed N] [--dry-run]      (python -m pipelines.commands.gc)

What may go, and the removal under the base's build lock: pipelines.release.retention.
"""

from __future__ import annotations

import argparse
import sys

from pipelines.release.leftovers import Plan
from pipelines.release.retention import gc
from schemas.errors import QabaseError


def _mb(size: int | None) -> str:
    return "" if size is None else f"{size / 1e6:,.1f} MB"


def format_plan(plan: Plan, dry_run: bool) -> str:
    verb = "would remove" if dry_run else "removed"
    rows = [("keep", i) for i in plan.keep] + [(verb, i) for i in plan.remove]
    width = max([len(i.name) for _, i in rows] + [8])
    lines = [f"{action:<12}  {i.kind:<13}  {i.name:<{width}}  {_mb(i.size):>10}  {i.why}" for action, i in rows]
    freed = f"{plan.freed / 1e6:,.1f} MB" + ("" if all(i.size is not None for i in plan.remove) else " (and more on the store)")
    if not plan.remove:
        lines.append("nothing to remove")
    elif dry_run:
        lines.append(f"{len(plan.remove)} item(s) would be removed, {freed}; nothing was deleted (--dry-run)")
    else:
        lines.append(f"{len(plan.remove)} item(s) removed, {freed} freed")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser

    ap = command_parser("gc", "Remove a base's old versions and what killed builds left (--dry-run: show what would "
                              "go);\nthe version latest names and every served version are always kept.")
    ap.add_argument("--base", required=True, metavar="BASE_DIR", help="the base directory (or its URL)")
    ap.add_argument("--keep", type=int, metavar="N",
                    help="published versions to keep besides latest and served ones "
                         "(default: the latest version's retention.keep_versions; 0 keeps all)")
    ap.add_argument("--keep-failed", type=int, metavar="N",
                    help="reports of refused versions to keep (default: retention.keep_failed; 0 keeps all)")
    ap.add_argument("--dry-run", action="store_true", help="print what would be removed, remove nothing")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging(False, True)
    try:
        plan = gc(args.base, args.keep, args.keep_failed, args.dry_run)
    except QabaseError as exc:  # 4 another build holds the base, 2 anything else
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:  # a folder that cannot be read or changed: one line, as every qabase error
        print(f"error: gc: {exc.filename or args.base}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(format_plan(plan, args.dry_run))
    return 0


if __name__ == "__main__":
    sys.exit(main())
