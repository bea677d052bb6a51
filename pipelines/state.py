"""Incremental builds: the state of all logs so far, kept inside each published version.

``versions/<v>/state/`` holds ``questions.parquet`` (per question: surface forms, languages
and every distinct answer, each with counts; schema in ``schemas/question_state.py``) and
``state.json`` (the input files already counted, with sha256, and the row-level counts).
Because the state is published with its version, a failed build never touches it, and the
next build starts from ``latest/state`` (a base on a store: the version ``LATEST`` names, downloaded into
the local mirror for the launcher, while the graph's workers read its ``state/questions.parquet`` from the
store itself).

A new build reads only files it has not counted (by checksum), folds their rows into the
state (pipelines.stages.count; adding counts is associative, so the result equals counting all logs at once), and
recomputes scoring, ranking, grouping and the index from the merged state; the score,
vector and aggregation caches make that cheap for questions seen before.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from schemas.errors import QabaseError
from schemas.layout import QUESTIONS_FILE, STATE_DIR, STATE_FILE

STATE_VERSION = 5  # 2: first_seen per question; 3: first/last dates; 4: offsets dated in UTC,
# year-first slash/dot/Chinese dates read (schemas.dates): dates kept by an older state may differ; 5: keys on the
# match view (invisible characters gone, look-alike letters folded) and personal data found behind invisible
# characters and separators: an older state holds other keys, and values a build now redacts
# row-level counts computed per increment and summed across increments
ROW_COUNTS = ("rows_parsed", "rows_rejected_read", "rows_accepted", "rows_rejected_validate")
ROW_COUNT_MAPS = ("reject_reasons", "row_langs", "redactions")


class StateError(QabaseError):
    """The saved state cannot be continued (other input settings, a changed log file, a newer format)."""


# --- state.json: files counted so far and row-level counts ----------------------------------------------

def input_settings_hash(cfg) -> str:
    """What decides how log files become accepted rows; a state built otherwise cannot be continued (the privacy
    settings too: the saved keys are redacted ones)."""
    tree = cfg.to_dict()
    payload = json.dumps({"input": tree["input"], "limits": tree["limits"], "privacy": tree["privacy"]},
                         sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class PreviousState(NamedTuple):
    version: str
    questions: str  # state/questions.parquet of that version, where the graph reads it (a path or a URL)
    files: list[dict]  # [{path, format, bytes, sha256}]
    counts: dict
    version_dir: Path


def load_state(version_dir: Path, cfg, questions_at: str | None = None) -> PreviousState | None:
    """The state of a published version (a local folder), or None if it has none (built before incremental
    builds). ``questions_at``: where the graph reads its state/questions.parquet (default: in
    ``version_dir``; a remote base: the URL in the store)."""
    folder = version_dir / STATE_DIR
    if not (folder / STATE_FILE).is_file():
        return None
    data = json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))
    if data.get("state_version") != STATE_VERSION:
        raise StateError(f"state: {folder} has format {data.get('state_version')}, this build reads "
                         f"{STATE_VERSION}; run with --full-rebuild over all logs")
    if data.get("input_settings") != input_settings_hash(cfg):
        raise StateError(f"state: {folder} was built with other input/limits/privacy settings; run with --full-rebuild "
                         "over all logs to start a new state")
    return PreviousState(version_dir.name, questions_at or str(folder / QUESTIONS_FILE), data["files"],
                         data["counts"], version_dir)


def split_new_files(files: list[dict], previous: PreviousState | None) -> tuple[list[dict], list[dict]]:
    """(files to read, files already counted). A file is its path: counted before = the same path with the
    same sha256. The same content under a new path is new rows, as a full rebuild given both paths counts
    both (an increment must equal the rebuild). A path counted before with other content is an error:
    logs are append-only by file, and counting a rewritten file again would double-count its rows."""
    if previous is None:
        return files, []
    by_path = {f["path"]: f["sha256"] for f in previous.files}
    new, skipped = [], []
    for f in files:
        if by_path.get(f["path"]) == f["sha256"]:
            skipped.append(f)
        elif f["path"] in by_path:
            raise StateError(f"input: {f['path']} was counted in version {previous.version} with other content "
                             "(sha256 changed); add new logs as new files, or run with --full-rebuild")
        else:
            new.append(f)
    return new, skipped


def merge_counts(increment: dict, previous: PreviousState | None) -> dict:
    """Row-level counts of all logs so far: the increment's plus the saved ones."""
    out = dict(increment)
    if previous is None:
        return out
    old = previous.counts
    for k in ROW_COUNTS:
        out[k] = increment.get(k, 0) + old.get(k, 0)
    for k in ROW_COUNT_MAPS:
        merged = Counter(old.get(k, {}))
        merged.update(increment.get(k, {}))
        out[k] = dict(sorted(merged.items()))
    out["accepted_profile"] = merge_profiles(increment.get("accepted_profile"), old.get("accepted_profile"))
    return out


def merge_profiles(a: dict | None, b: dict | None) -> dict | None:
    """Two accepted-rows profiles as one, merged as the Beam combiner merges its accumulators."""
    from pipelines.stages.validate import AcceptedProfileFn

    fn = AcceptedProfileFn()
    accs = [[p[k] for k in fn.FIELDS] for p in (a, b) if p and p.get("rows")]
    if not accs:
        return a or b
    return fn.extract_output(fn.merge_accumulators(accs))


def write_state_json(staging: Path, cfg, files: list[dict], counts: dict) -> None:
    folder = staging / STATE_DIR
    folder.mkdir(exist_ok=True)
    saved = {k: counts[k] for k in (*ROW_COUNTS, *ROW_COUNT_MAPS, "accepted_profile") if k in counts}
    data = {"state_version": STATE_VERSION, "input_settings": input_settings_hash(cfg),
            "files": sorted(files, key=lambda f: (f["path"], f["sha256"])), "counts": saved}
    (folder / STATE_FILE).write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
