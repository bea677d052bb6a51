"""Hand labels on real chatbot answers of the Decompose-and-Query sample (``dq_base/dq_base_sample.jsonl`` in the
shared data folder): is the answer a non-answer, and does it go stale with time.

Provenance: labelled by hand in this repository on real answers of the DQ sample; the report split is never used
for any choice. Each line was read, question and answer, and judged as a careful editor would who must vouch for the
answer in a QA base; no keyword rule chose a label. In the order of the file:

* 2026-11-27: 800 lines (``random.Random(20261127).sample(range(4000), 800)``), both splits;
* 2026-11-27: 906 more tune lines (docs/measurements/answer-match.md says how they were picked);
* 2026-11-28: every tune line left (698), in three parts read by three labellers from one written guide
  (benchmarks/dq_base_labelling_guide.md: the kinds below, with the earlier labels' examples); one reader a line.
* 2026-11-28: every report line left but one (1,595), in five parts read by five labellers from the same guide,
  after the packaged models had been fitted; one choice was made after reading them (the Chinese time threshold's
  rule, docs/measurements/time-sensitive-questions.md). The one left out (line 3173) asks a question that written
  training rows ask (感冒吃什么药), so it could not be measured as unseen. The report split held 391 lines until then.

Counts: ``python benchmarks/dq_base_labels.py [--data DIR] [--split report|tune]``.

``benchmarks/dq_base_labels.tsv`` holds no text (the data stays in the shared folder): its columns are

* ``line``: the 0-based line number in the jsonl;
* ``qhash``: the first 8 hex digits of sha256 of the question (UTF-8), checked on load;
* ``non_answer``: 1 where the answer does not answer the question, with ``kind`` one of ``inability`` (an
  inability stated as a fact: "无法确定…", "AI无法提供实时信息"), ``deferral`` (sends the user elsewhere or says
  it varies, with no figure), ``heading`` (a topic heading or a description of the answer instead of the answer),
  ``tautology`` (restates the question: "4是一个数字"), ``refusal`` (declines) or ``off_topic`` (answers another
  question, e.g. a nickname read as a common noun); ``answer`` where ``non_answer`` is 0 (a wrong answer is still
  an answer: the note says "wrong" or "doubtful");
* ``time_sensitive``: 1 where the right answer changes with time (prices, rates, dates to come, office holders,
  ages, relationships, rankings, live events, "latest");
* ``split``: ``report`` where ``int(sha256(f"split\\x00{line}"), 16)`` is even, else ``tune`` (fixed by hash
  before any model was looked at);
* ``note``: a short English note, often empty; "ambiguous: ..." marks a label a second reader might flip.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

from models.tools.paths import data_dir as find_data_dir
from models.tools.paths import sets_dir

LABELS = "dq_base_labels.tsv"  # in the labelled sets' folder (models.tools.paths.sets_dir: benchmarks/)
DATA_FILE = Path("dq_base") / "dq_base_sample.jsonl"
COLUMNS = ("line", "qhash", "non_answer", "kind", "time_sensitive", "split", "note")
KINDS = ("answer", "inability", "deferral", "heading", "tautology", "refusal", "off_topic")
SPLITS = ("report", "tune")


class LabelsMismatch(ValueError):
    """The jsonl read is not the one the labels were written on."""


def qhash(question: str) -> str:
    return hashlib.sha256(question.encode("utf-8")).hexdigest()[:8]


def split_of(line: int) -> str:
    return "report" if int(hashlib.sha256(f"split\x00{line}".encode()).hexdigest(), 16) % 2 == 0 else "tune"


def read_labels(path: Path | None = None) -> list[dict]:
    """The label rows alone (no text), typed (default: dq_base_labels.tsv of the labelled sets' folder)."""
    path = path or sets_dir() / LABELS
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ValueError(f"{path}: expected the columns {COLUMNS}, got {reader.fieldnames}")
        rows = []
        for r in reader:
            row = {"line": int(r["line"]), "qhash": r["qhash"], "non_answer": int(r["non_answer"]),
                   "kind": r["kind"], "time_sensitive": int(r["time_sensitive"]), "split": r["split"],
                   "note": r["note"] or ""}
            if row["kind"] not in KINDS or (row["non_answer"] == 1) != (row["kind"] != "answer"):
                raise ValueError(f"{path}: line {row['line']}: kind {row['kind']!r} with non_answer "
                                 f"{row['non_answer']}")
            if row["split"] != split_of(row["line"]):
                raise ValueError(f"{path}: line {row['line']}: split {row['split']!r} is not the hashed one")
            rows.append(row)
    return rows


def load(data_dir: Path | str | None = None, split: str | None = None) -> list[dict]:
    """The labelled rows joined with their texts: each label row plus ``question`` and ``answer``.

    ``data_dir``: the shared data folder (default: :func:`models.tools.paths.data_dir`, i.e. ``$QABASE_DATA`` or
    ``shared/data`` / ``../shared/data``). ``split``: ``report``, ``tune`` or None (both). Raises
    :class:`LabelsMismatch` where a question's hash differs from the one labelled (another file or version) and
    FileNotFoundError where the jsonl is absent."""
    if split not in (None, *SPLITS):
        raise ValueError(f"split must be one of {SPLITS} or None, got {split!r}")
    path = find_data_dir(data_dir) / DATA_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the DQ sample is not there (the labels need dq_base/dq_base_sample.jsonl "
                                f"of the shared data folder)")
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(x) for x in f if x.strip()]
    out = []
    for row in read_labels():
        if split is not None and row["split"] != split:
            continue
        n = row["line"]
        if n >= len(lines):
            raise LabelsMismatch(f"{path} has {len(lines)} lines, the labels name line {n}: not the labelled file")
        rec = lines[n]
        if qhash(rec["question"]) != row["qhash"]:
            raise LabelsMismatch(f"{path}: line {n}: the question's hash {qhash(rec['question'])} is not the "
                                 f"labelled {row['qhash']}: not the file the labels were written on")
        out.append({**row, "question": rec["question"], "answer": rec["answer"]})
    return out
