"""``qabase``: one command for every tool; ``qabase SUBCOMMAND ARGS`` = ``python -m MODULE ARGS``.

Each subcommand takes exactly the arguments of its ``python -m`` form, so scripts and docs carry over:
``qabase score gec --input F --output O`` is ``python -m models.tools.score gec --input F --output O``.
The tool's module is imported only when its subcommand runs, so ``qabase --help`` stays fast. Each tool's
module makes its parser in ``build_parser()`` with schemas.commandline.command_parser: its usage says
``qabase COMMAND`` (``python -m`` too), every option has help and shows its default. ``build`` and ``daily``
exit with the codes of schemas.errors.EXIT_CODES (3: the quality gate refused; 4: another build holds the base).
"""

from __future__ import annotations

import importlib
import sys
from typing import NoReturn

# subcommand -> (module whose main(argv) runs it, what it does)
COMMANDS: dict[str, tuple[str, str]] = {
    "build": ("pipelines.build_base", "build a QA base from dialogue logs (or --demo)"),
    "daily": ("pipelines.commands.daily", "run one logical date's build as the daily DAG does"),
    "gc": ("pipelines.commands.gc", "remove old versions and what killed builds left (--dry-run: show it)"),
    "review": ("pipelines.commands.review", "list a review file's decisions against a base, or append one"),
    "report": ("pipelines.commands.report",
               "(re)write a version's report.html, report.json and browse.html"),
    "query": ("indexes.query", "QuestionRetriever / AnswerRetriever over a base, one query or a file"),
    "serve": ("indexes.serve", "HTTP service (FastAPI) over a base"),
    "mcp": ("indexes.mcp_server", "MCP server (stdio or streamable HTTP): the two retrievers as agent tools"),
    "score": ("models.tools.score", "GEC or intent scores of questions in a file"),
    "calibrate": ("models.tools.calibrate", "thresholds for a keep rate or a precision"),
    "evaluate": ("models.tools.evaluate", "AUROC, precision and recall of a scorer on labelled data"),
    "eval-sets": ("models.tools.eval_sets", "build the labelled evaluation sets"),
    "train-intent": ("models.tools.train_intent", "train an intent head on labelled requests"),
    "train-paraphrase": ("models.tools.train_paraphrase", "fit and measure the paraphrase judge on labelled pairs"),
    "train-nonanswer": ("models.tools.train_nonanswer", "fit and measure the non-answer head on labelled answers"),
    "train-chitchat": ("models.tools.train_chitchat", "fit and measure the intent scorer's chit-chat head"),
    "train-timesensitive": ("models.tools.train_timesensitive",
                            "fit and measure the time-sensitivity head on labelled questions"),
    "train-from-review": ("models.tools.train_from_review",
                          "refit the non-answer and time-sensitivity heads on a review file's decisions"),
    "aggregate": ("models.tools.aggregate", "aggregate answer groups from a file"),
    "finetune": ("models.tools.finetune_aggregator", "LoRA fine-tuning of the aggregation LLM (extra: finetune)"),
    "serve-llm": ("models.tools.serve_llm", "OpenAI-compatible completions endpoint for a local LLM"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: qabase COMMAND [ARGS...]   (qabase COMMAND --help for a command's arguments)", "",
             "commands:"]
    lines += [f"  {name:<{width}}  {what}   [python -m {module}]" for name, (module, what) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        import difflib

        close = difflib.get_close_matches(name, list(COMMANDS), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        print(f"error: unknown command {name!r}{hint}; qabase --help lists them", file=sys.stderr)
        return 2
    sys.argv[0] = f"qabase {name}"
    try:
        return int(importlib.import_module(COMMANDS[name][0]).main(rest) or 0)
    except KeyboardInterrupt:  # a tool's own handling aside (build: 130 too), Ctrl-C is one line, not a traceback
        print("error: interrupted", file=sys.stderr)
        return 130


def console() -> NoReturn:
    """The ``qabase`` command's entry point: :func:`main`, then the process ends without a last full collection."""
    from pipelines.collector import exit_without_collecting

    exit_without_collecting(main())


if __name__ == "__main__":
    console()
