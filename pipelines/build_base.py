"""``qabase build``: build a QA base from dialogue logs.

This module is where it is, and named as it is, because its path is the build's fixed entry point: users run
``python -m pipelines.build_base``. It is the one ``qabase`` subcommand of pipelines outside pipelines/commands/.

    python -m pipelines.build_base --input 'logs/*.jsonl' --output BASE_DIR [--config FILE.yaml]
        [--top-k N] [--gec-threshold E1] [--intent-threshold E2] [Beam options, e.g. --runner ...]
    python -m pipelines.build_base --demo --output BASE_DIR

Anything the parser doesn't know is handed to Beam as a pipeline option
(--runner, --direct_num_workers, --direct_running_mode, ...).

Exit codes (schemas.errors.EXIT_CODES; pipelines.exits maps failures to them): 0 built (or nothing new),
1 an unexpected failure, 2 a bad config, path, option or input, 3 the quality gate refused the version,
4 another build holds the base, 130 interrupted: each failure with one ``error:`` line.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from schemas.commandline import command_parser
from schemas.errors import QabaseError, exit_code_table

LOG = logging.getLogger("qabase.cli")

# the flags that override one config key each (absent: the config file's value, or the default)
CONFIG_FLAGS = {"top_k": "filter.top_k", "gec_threshold": "filter.gec_threshold",
                "intent_threshold": "filter.intent_threshold", "max_answers": "grouping.max_answers"}


def _config_default(key: str) -> str:
    """How a config-backed flag's help names its default: the key, and its value in the built-in config."""
    from schemas.config import BuildConfig

    section, name = key.split(".")
    return f"(default: {key} of --config, else {getattr(getattr(BuildConfig(), section), name)})"


def build_parser() -> argparse.ArgumentParser:
    ap = command_parser("build", "Build a QA base from dialogue logs, or from the built-in demo logs.",
                        epilog="Unknown --options are passed to Apache Beam as pipeline options (--runner, "
                               "--direct_num_workers, ...).\n\n" + exit_code_table())
    ap.add_argument("--input", action="append", default=[], metavar="PATH_OR_GLOB",
                    help="log file(s): .jsonl, .csv, .parquet (compressed or not: .gz, .bz2, .xz, .zst), or a folder; "
                         "repeatable; globs allowed (a path that exists is that file)")
    ap.add_argument("--base", "--output", dest="output", metavar="BASE_DIR",
                    help="base directory (versions/ and latest); --base and --output are the same")
    ap.add_argument("--config", metavar="FILE.yaml", help="YAML config; flags below override it")
    ap.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE", dest="set_keys",
                    help="override one config key, its value read as YAML (repeatable; after the flags below): "
                         "--set filter.top_k=1000 --set input.languages=[en,zh]; docs/reference/config.md")
    ap.add_argument("--top-k", type=int, metavar="N",
                    help=f"keep the N most frequent good questions {_config_default(CONFIG_FLAGS['top_k'])}")
    ap.add_argument("--gec-threshold", type=float, metavar="E1",
                    help=f"keep questions with GEC score > E1 {_config_default(CONFIG_FLAGS['gec_threshold'])}")
    ap.add_argument("--intent-threshold", type=float, metavar="E2",
                    help=f"keep questions with intent score > E2 {_config_default(CONFIG_FLAGS['intent_threshold'])}")
    ap.add_argument("--max-answers", type=int, metavar="N",
                    help=f"distinct answers kept per question {_config_default(CONFIG_FLAGS['max_answers'])}")
    ap.add_argument("--review", metavar="FILE",
                    help="a review file of people's decisions (exclude, answer, merge, split, time_sensitive, keep; "
                         "docs/review.md), applied on every build (default: review.file of --config, else none)")
    ap.add_argument("--demo", action="store_true", help="build from built-in sample logs (written to BASE_DIR/demo-logs)")
    ap.add_argument("--print-config", action="store_true", help="print the effective config as YAML, each key's meaning (and default, where it differs) above it, and exit")
    ap.add_argument("--full-rebuild", action="store_true",
                    help="ignore the state of the latest version: count the given inputs alone (default: add "
                         "files not counted before to the counts of all earlier logs)")
    ap.add_argument("--allow-empty", action="store_true",
                    help="publish a version with no entries (quality.allow_empty; default: refused, the base unchanged)")
    ap.add_argument("--version-id", help=argparse.SUPPRESS)
    ap.add_argument("-v", "--verbose", action="store_true", help="debug logging, Beam's own logs included")
    ap.add_argument("-q", "--quiet", action="store_true", help="only warnings and the final summary")
    ap.add_argument("--traceback", action="store_true", help="show the traceback of an unexpected failure")
    return ap


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    return build_parser().parse_known_args(argv)


def _beam_parser_class():
    from apache_beam.options.pipeline_options import _BeamArgumentParser

    class QuietBeamParser(_BeamArgumentParser):
        """Beam's option parser, whose errors are one line: argparse's own prints Beam's whole usage (over a
        hundred lines) and exits."""

        def error(self, message: str):
            raise QabaseError(f"usage: {message}")

    return QuietBeamParser


def check_beam_args(beam_args: list[str]) -> None:
    """Fail fast on an option neither we nor Beam know (Beam itself would only warn and drop it)."""
    import difflib

    from apache_beam.options.pipeline_options import PipelineOptions

    from pipelines.runners import load_runner_options

    load_runner_options(beam_args)  # a runner's own options are Beam's only once its module is imported
    _check_runner_name(beam_args)
    parser = _beam_parser_class()(allow_abbrev=False)
    classes = {str(c): c for c in PipelineOptions.__subclasses__()}
    for cls in classes.values():
        cls._add_argparse_args(parser)  # how Beam itself collects its options
    _, unknown = parser.parse_known_args(beam_args)
    for arg in unknown:
        if arg.startswith("-"):
            name = arg.split("=", 1)[0]
            known = [o for ap in (parser, build_parser()) for a in ap._actions for o in a.option_strings
                     if o.startswith("--") and a.help is not argparse.SUPPRESS]
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise QabaseError(f"usage: unknown option {name}{hint}")
        raise QabaseError(f"usage: unexpected argument {arg!r} (options start with --)")


def _check_runner_name(beam_args: list[str]) -> None:
    """A short --runner name Beam does not know fails here, before anything is written (Beam itself would fail
    only when the pipeline is made)."""
    from pipelines.runners import runner_args, runner_name

    name = runner_name(runner_args(beam_args))
    if name is not None and "." not in name:
        from pipelines.build import check_runner_name

        check_runner_name(name)


def main(argv: list[str] | None = None) -> int:
    args, beam_args = parse_args(sys.argv[1:] if argv is None else argv)
    from schemas.logs import setup_logging

    setup_logging(args.verbose, args.quiet)
    from pipelines.collector import young_collections_only
    from pipelines.exits import run_reporting

    with young_collections_only():  # from here, where the build's lazy imports start
        return run_reporting(lambda: _build(args, beam_args), show_traceback=args.traceback or args.verbose)


def _build(args: argparse.Namespace, beam_args: list[str]) -> int:
    if args.version_id is not None:  # before any work: a bad id would fail only when the staging is written
        from schemas.layout import check_version_id

        check_version_id(args.version_id, "--version-id")
    check_beam_args(beam_args)
    from models.config_check import load_config
    from schemas.config import commented_config_yaml, set_overrides

    overrides = {key: getattr(args, flag) for flag, key in CONFIG_FLAGS.items() if getattr(args, flag) is not None}
    if args.allow_empty:
        overrides["quality.allow_empty"] = True
    if args.review is not None:
        overrides["review.file"] = args.review
    overrides.update(set_overrides(args.set_keys))
    cfg = load_config(args.config, overrides)
    if args.print_config:
        print(commented_config_yaml(cfg), end="")
        return 0
    if not args.output:
        raise QabaseError("usage: --base BASE_DIR (or --output BASE_DIR) is required")
    inputs = list(args.input) + (_demo_logs(args.output) if args.demo else [])
    if not inputs:
        raise QabaseError("usage: give --input PATH (repeatable) or --demo")
    from pipelines.build import run_build
    from pipelines.summary import summary_text

    result = run_build(inputs, args.output, cfg, beam_args, version=args.version_id,
                       full_rebuild=args.full_rebuild)
    print(summary_text(result))
    return 0


def _demo_logs(output: str) -> list[str]:
    """The demo's sample logs, written beside the base (BASE_DIR/demo-logs)."""
    from pipelines.demo import write_demo_logs

    from schemas.layout import is_remote, join, upload

    if is_remote(output):  # written locally, then put beside the base where workers can read them
        import tempfile

        local = write_demo_logs(Path(tempfile.mkdtemp(prefix="qabase-demo-logs-")))
        paths = [join(output, "demo-logs", p.name) for p in local]
        for src, dst in zip(local, paths):
            upload(src, dst)
    else:
        paths = write_demo_logs(Path(output) / "demo-logs")
    LOG.info("demo: wrote %d sample log files to %s", len(paths), join(output, "demo-logs"))
    return [str(p) for p in paths]


if __name__ == "__main__":
    from pipelines.collector import exit_without_collecting

    exit_without_collecting(main())
