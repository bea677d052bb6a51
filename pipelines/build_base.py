"""Command line: build a QA base from dialogue logs.

    python -m pipelines.build_base --input 'logs/*.jsonl' --output BASE_DIR [--config FILE.yaml]
        [--top-k N] [--gec-threshold E1] [--intent-threshold E2] [Beam options, e.g. --runner ...]
    python -m pipelines.build_base --demo --output BASE_DIR

Anything the parser doesn't know is handed to Beam as a pipeline option
(--runner, --direct_num_workers, --direct_running_mode, ...).

Exit codes: 0 built (or nothing new), 2 a bad config, path, option or input, a refused version (quality gate)
or another build holding the base, 1 any other failure, 130 interrupted: each with one ``error:`` line.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import traceback
from pathlib import Path

from schemas.errors import QabaseError

LOG = logging.getLogger("qabase.cli")


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    ap = argparse.ArgumentParser(prog="python -m pipelines.build_base", description=__doc__.split("\n\n")[0],
                                 epilog="Unknown --options are passed to Apache Beam as pipeline options.")
    ap.add_argument("--input", action="append", default=[], metavar="PATH_OR_GLOB",
                    help="log file(s): .jsonl, .jsonl.gz, .csv, .parquet; repeatable; globs allowed")
    ap.add_argument("--output", required=False, metavar="BASE_DIR", help="base directory (versions/ and latest)")
    ap.add_argument("--config", metavar="FILE.yaml", help="YAML config; flags below override it")
    ap.add_argument("--top-k", type=int, metavar="N", help="keep the N most frequent good questions")
    ap.add_argument("--gec-threshold", type=float, metavar="E1", help="keep questions with GEC score > E1")
    ap.add_argument("--intent-threshold", type=float, metavar="E2", help="keep questions with intent score > E2")
    ap.add_argument("--max-answers", type=int, metavar="N", help="distinct answers kept per question")
    ap.add_argument("--demo", action="store_true", help="build from built-in sample logs (written to BASE_DIR/demo-logs)")
    ap.add_argument("--print-config", action="store_true", help="print the effective config as YAML and exit")
    ap.add_argument("--full-rebuild", action="store_true",
                    help="ignore the state of the latest version: count the given inputs alone (default: add "
                         "files not counted before to the counts of all earlier logs)")
    ap.add_argument("--allow-empty", action="store_true",
                    help="publish a version with no entries (quality.allow_empty; default: refused, the base unchanged)")
    ap.add_argument("--version-id", help=argparse.SUPPRESS)
    ap.add_argument("-v", "--verbose", action="store_true", help="debug logging, Beam's own logs included")
    ap.add_argument("-q", "--quiet", action="store_true", help="only warnings and the final summary")
    ap.add_argument("--traceback", action="store_true", help="show the traceback of an unexpected failure")
    return ap.parse_known_args(argv)


def check_beam_args(beam_args: list[str]) -> None:
    """Fail fast on an option neither we nor Beam know (Beam itself would only warn and drop it)."""
    import difflib

    from apache_beam.options.pipeline_options import PipelineOptions, _BeamArgumentParser

    from pipelines.runners import load_runner_options

    load_runner_options(beam_args)  # a runner's own options are Beam's only once its module is imported
    _check_runner_name(beam_args)
    parser = _BeamArgumentParser(allow_abbrev=False)
    classes = {str(c): c for c in PipelineOptions.__subclasses__()}
    for cls in classes.values():
        cls._add_argparse_args(parser)  # how Beam itself collects its options
    _, unknown = parser.parse_known_args(beam_args)
    for arg in unknown:
        if arg.startswith("-"):
            name = arg.split("=", 1)[0]
            known = [o for a in parser._actions for o in a.option_strings] + [
                "--input", "--output", "--config", "--top-k", "--gec-threshold", "--intent-threshold",
                "--max-answers", "--demo", "--print-config", "--full-rebuild", "--allow-empty"]
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


class _SigintSeen:
    """Records a Ctrl-C (and raises KeyboardInterrupt as Python does): Beam re-raises an interrupt that reached a
    worker as RuntimeError('KeyboardInterrupt [while running ...]'), which must still exit 130."""

    def __init__(self):
        self.seen = False
        self._installed = False
        self._previous = None

    def __enter__(self):
        try:
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        except ValueError:  # not the main thread: no handler, the exception chain still tells
            pass
        return self

    def _handle(self, signum, frame):
        self.seen = True
        signal.default_int_handler(signum, frame)

    def __exit__(self, *exc):
        if self._installed:
            signal.signal(signal.SIGINT, self._previous if self._previous is not None else signal.SIG_DFL)
        return False


def _interrupted(exc: BaseException, sigint: _SigintSeen) -> bool:
    """Whether a failure is an interrupt: a Ctrl-C was seen, or a KeyboardInterrupt is in its chain."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return sigint.seen


INTERRUPTED = "error: interrupted; the published base is unchanged"


def main(argv: list[str] | None = None) -> int:
    args, beam_args = parse_args(sys.argv[1:] if argv is None else argv)
    from schemas.logs import setup_logging

    setup_logging(args.verbose, args.quiet)
    with _SigintSeen() as sigint:
        return _run(args, beam_args, sigint)


def _run(args: argparse.Namespace, beam_args: list[str], sigint: _SigintSeen) -> int:
    try:
        check_beam_args(beam_args)
        from models.registry import load_config
        from schemas.config import config_yaml

        overrides = {k: v for k, v in {
            "filter.top_k": args.top_k, "filter.gec_threshold": args.gec_threshold,
            "filter.intent_threshold": args.intent_threshold, "grouping.max_answers": args.max_answers,
            "quality.allow_empty": True if args.allow_empty else None,
        }.items() if v is not None}
        cfg = load_config(args.config, overrides)
        if args.print_config:
            print(config_yaml(cfg), end="")
            return 0
        if not args.output:
            raise QabaseError("usage: --output BASE_DIR is required")
        inputs = list(args.input)
        if args.demo:
            from pipelines.demo import write_demo_logs

            from schemas.layout import is_remote, join, upload

            if is_remote(args.output):  # written locally, then put beside the base where workers can read them
                import tempfile

                local = write_demo_logs(Path(tempfile.mkdtemp(prefix="qabase-demo-logs-")))
                paths = [join(args.output, "demo-logs", p.name) for p in local]
                for src, dst in zip(local, paths):
                    upload(src, dst)
            else:
                paths = write_demo_logs(Path(args.output) / "demo-logs")
            inputs.extend(str(p) for p in paths)
            LOG.info("demo: wrote %d sample log files to %s", len(paths), join(args.output, "demo-logs"))
        if not inputs:
            raise QabaseError("usage: give --input PATH (repeatable) or --demo")
        from pipelines.build import run_build
        from pipelines.summary import summary_text

        result = run_build(inputs, args.output, cfg, beam_args, version=args.version_id,
                           full_rebuild=args.full_rebuild)
        print(summary_text(result))
        return 0
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        return 130
    except Exception as exc:  # an unexpected failure: one line unless asked for more
        if _interrupted(exc, sigint):
            print(INTERRUPTED, file=sys.stderr)
            return 130
        if args.traceback or args.verbose:
            traceback.print_exc()
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        print(f"error: build failed ({type(exc).__name__}: {first[:300]}); the published base is unchanged. "
              f"Re-run with --traceback for details.", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
