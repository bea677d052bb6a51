"""``qabase daily``: one logical date's build, run as the daily DAG runs it, in one process.

    qabase daily --input-template TEMPLATE --date YYYY-MM-DD --base BASE_DIR [--config FILE.yaml] [--full-rebuild]
    (python -m pipelines.commands.daily)

Finds the day's logs, stages, gates, publishes and reports (pipelines.scheduled.run_day: the DAG's steps), and
prints the run's outcome as JSON; exits with the codes of schemas.errors.EXIT_CODES.
"""

from __future__ import annotations

import argparse
import json
import sys

from pipelines.scheduled import run_day


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser
    from schemas.errors import exit_code_table

    ap = command_parser("daily", "Run one logical date's build as the daily DAG does (find the day's logs, "
                                 "stage, gate, publish, report);\nprints the run's outcome as JSON.",
                        epilog=exit_code_table())
    ap.add_argument("--input-template", required=True, metavar="TEMPLATE",
                    help="path/glob of the day's logs with {ds}, {ds_nodash}, {yyyy}, {mm}, {dd}")
    ap.add_argument("--date", required=True, metavar="YYYY-MM-DD", help="the logical date to build")
    ap.add_argument("--base", required=True, metavar="BASE_DIR", help="the base directory (or its URL)")
    ap.add_argument("--config", metavar="FILE.yaml", help="YAML config (default: the built-in defaults)")
    ap.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE", dest="set_keys",
                    help="override one config key, its value read as YAML (repeatable): --set filter.top_k=1000")
    ap.add_argument("--full-rebuild", action="store_true",
                    help="count the day's logs alone, not added to the latest version's state")
    ap.add_argument("--traceback", action="store_true", help="show the traceback of an unexpected failure")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from pipelines.exits import run_reporting
    from schemas.logs import setup_logging

    setup_logging(False, False)

    def day() -> int:
        from schemas.config import set_overrides

        overrides = set_overrides(args.set_keys)
        print(json.dumps(run_day(args.input_template, args.date, args.base, args.config, overrides,
                                 args.full_rebuild), indent=1))
        return 0

    return run_reporting(day, show_traceback=args.traceback)


if __name__ == "__main__":
    sys.exit(main())
