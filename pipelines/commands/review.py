"""``qabase review``: a review file from the terminal (docs/review.md).

    qabase review list FILE --base BASE_DIR [--version V] [--json]
    qabase review add FILE --action ACTION --question Q [--answer T | --into B | --from B | --value true|false]
        [--note N]
    (python -m pipelines.commands.review)

``list`` prints every decision of the file with its status against a published version of the base (the latest
by default): ``applied``, ``stale`` (a question it names is in no entry), ``conflicting`` (another decision wins,
and why), or ``pending`` when that version was built with another review file (or none): what would take
effect on the next build. ``add`` checks the decision and the file as the build does, then appends the decision
as one line (a YAML file: one list item), so a file written here never stops a build; when anything fails it
writes nothing (one ``error:`` line, exit 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from schemas import layout
from schemas.errors import ConfigError, QabaseError
from schemas.review import ACTIONS, MAX_REVIEW_BYTES, decision_of, load_review, parse_review, review_line
from schemas.review_outcome import review_outcome

STATUS_ORDER = ("applied", "pending", "conflicting", "stale")


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser

    ap = command_parser("review", "List a review file's decisions against a base (applied, stale, conflicting, "
                                  "pending), or append a checked decision (docs/review.md).")
    sub = ap.add_subparsers(dest="command", required=True, metavar="{list,add}",
                            help="list: each decision's status against a base; add: append one decision")
    ls = sub.add_parser("list", help="each decision of FILE as applied / stale / conflicting against a base")
    ls.add_argument("file", type=Path, metavar="FILE", help="the review file")
    ls.add_argument("--base", required=True, metavar="BASE_DIR", help="the base directory")
    ls.add_argument("--version", help="a version id under BASE_DIR/versions (default: the one latest names)")
    ls.add_argument("--json", action="store_true", help="one JSON object per decision instead of a table")
    add = sub.add_parser("add", help="append one checked decision to FILE (created if missing)")
    add.add_argument("file", type=Path, metavar="FILE", help="the review file")
    add.add_argument("--action", required=True, choices=list(ACTIONS), help="what the decision does")
    add.add_argument("--question", required=True, help="any form of the question (matched by its key)")
    add.add_argument("--answer", help="answer: the text the entry serves")
    add.add_argument("--into", help="merge: the question whose entry takes QUESTION's forms")
    add.add_argument("--from", dest="from_", metavar="FROM", help="split: the question QUESTION never shares an "
                                                                  "entry with")
    add.add_argument("--value", choices=("true", "false"), help="time_sensitive: the flag")
    add.add_argument("--note", help="why (kept with the decision, shown in qa.parquet's review_note)")
    return ap


def list_decisions(file: Path, base: str, version: str | None = None) -> tuple[dict, list[dict]]:
    """(what the file was checked against, each decision's status) for ``qabase review list``."""
    review = load_review(file)
    if version is not None:
        layout.check_version_id(version, "--version")
    folder = layout.version_dir(base, version)
    manifest = json.loads((folder / layout.MANIFEST).read_text(encoding="utf-8"))
    built_with = (manifest.get("review") or {}).get("sha256") == review.sha256
    import pyarrow.parquet as pq

    table = pq.read_table(folder / layout.QUESTIONS_FILE, columns=["question_key", "entry_key"]).to_pydict()
    entry_of = dict(zip(table["question_key"], table["entry_key"]))
    outcome = review_outcome(review.decisions, entry_of, built_with)
    return {"file": str(file), "sha256": review.sha256, "version": folder.name, "built_with": built_with}, outcome


def _print_list(facts: dict, outcome: list[dict], as_json: bool) -> None:
    if as_json:
        for o in outcome:
            print(json.dumps(o, ensure_ascii=False))
        return
    how = ("built with this file" if facts["built_with"]
           else "built with another review file or none: 'pending' is what the next build applies")
    counts = ", ".join(f"{n} {s}" for s in STATUS_ORDER if (n := sum(o["status"] == s for o in outcome)))
    print(f"{shown_path(facts['file'])}: {len(outcome)} decision(s) against version {facts['version']} ({how}): "
          f"{counts or 'none'}")
    for o in outcome:
        other = f" -> {o['other']!r}" if o.get("other") else ""
        detail = f"  ({o['detail']})" if o["detail"] else ""
        print(f"  line {o['line']:<5} {o['status']:<11} {o['action']:<14} {o['question']!r}{other}{detail}")


def add_decision(file: Path, item: dict) -> str:
    """Check ``item`` and the file with it as a build would, then append it; returns the line written. Nothing is
    written unless the file with the line reads back as its decisions and this one, last: whatever fails, the file
    is as it was (or is not created)."""
    existing = _existing(file)
    is_yaml = file.name.lower().endswith((".yaml", ".yml"))
    line_no = existing.count(b"\n") + (1 if existing and not existing.endswith(b"\n") else 0) + 1
    decision = decision_of(item, file.name, line_no)
    text = review_line(decision)
    out = ("- " + text) if is_yaml else text
    prefix = b"\n" if existing and not existing.endswith(b"\n") else b""
    added = prefix + (out + "\n").encode("utf-8")
    if len(existing) + len(added) > MAX_REVIEW_BYTES:
        raise ConfigError(f"review: {file} would be {len(existing) + len(added):,} bytes; a review file is at most "
                          f"{MAX_REVIEW_BYTES:,}")
    decisions = parse_review(existing + added, file.name)  # a file that would stop a build is not added to
    if not decisions or decisions[-1] != decision:
        raise ConfigError(f"review: {file.name} line {line_no}: the decision would not read back as written after "
                          f"the file's last line (nothing was written)")
    try:
        with open(file, "ab") as f:
            f.write(added)
    except OSError as exc:
        raise ConfigError(f"review: {file}: cannot write it ({exc.strerror or exc})") from None
    return out


def _existing(file: Path) -> bytes:
    """The review file's bytes, empty when it does not exist yet."""
    if not file.exists():
        return b""
    if not file.is_file():
        raise ConfigError(f"review: {file} is not a regular file")
    size = file.stat().st_size
    if size > MAX_REVIEW_BYTES:
        raise ConfigError(f"review: {file} is {size:,} bytes; a review file is at most {MAX_REVIEW_BYTES:,}")
    try:
        return file.read_bytes()
    except OSError as exc:
        raise ConfigError(f"review: {file}: cannot read it ({exc.strerror or exc})") from None


def shown_path(path: Path | str) -> str:
    """A path as it can be printed: the bytes of a name that is not UTF-8 (which Python holds as lone surrogates)
    written as ``\\xff`` escapes."""
    text = str(path)
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no byte makes (not from a command line): its code point
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _item(args: argparse.Namespace) -> dict:
    item: dict = {"action": args.action, "question": args.question}
    given = {"answer": args.answer, "into": args.into, "from": args.from_,
             "value": None if args.value is None else args.value == "true"}
    item.update({k: v for k, v in given.items() if v is not None})
    if args.note:
        item["note"] = args.note
    return item


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "list":
            facts, outcome = list_decisions(args.file, args.base, args.version)
            _print_list(facts, outcome, args.json)
        else:
            written = add_decision(args.file, _item(args))
            print(f"{shown_path(args.file)}: added {written}")
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
