"""Recall and precision of the personal-data redaction (schemas.privacy) per kind, span-level, exact type; and the
share of lookalikes left alone, per kind of lookalike.

    python benchmarks/pii_set.py                       # the generated set (benchmarks/pii_labelled.jsonl)
    python benchmarks/pii_eval.py                      # on it
    python benchmarks/pii_eval.py benchmarks/pii_tricky.txt --misses   # the hand-written tricky items
    python benchmarks/pii_eval.py benchmarks/pii_obfuscated_tricky.txt --misses   # hand-written obfuscated items

A finding counts when its start, end and kind equal a labelled span's; a lookalike is left alone when no finding
overlaps it. ``--misses`` prints every miss and false find.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from schemas.privacy.recognizers import KINDS

from schemas.privacy.redactor import Redactor  # noqa: E402

DEFAULT = ROOT / "benchmarks" / "pii_labelled.jsonl"


_MARK = re.compile(r"\[\[([A-Z_]+)\|(.+?)\]\]|\{\{([a-z_]+)\|(.+?)\}\}")


_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def parse_marked(line: str) -> dict:
    """A hand-written line: ``[[KIND|value]]`` personal data, ``{{what|value}}`` a lookalike; ``\\uXXXX`` that
    character (an invisible one can be written so that it is seen)."""
    line = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), line)
    text, spans, decoys, at = "", [], [], 0
    for m in _MARK.finditer(line):
        text += line[at:m.start()]
        kind, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        (spans if m.group(1) else decoys).append([len(text), len(text) + len(value), kind])
        text += value
        at = m.end()
    return {"text": text + line[at:], "spans": spans, "decoys": decoys}


def load(path: Path) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    if path.suffix == ".txt":
        return [parse_marked(ln) for ln in lines if ln.strip() and not ln.startswith("#")]
    return [json.loads(ln) for ln in lines if ln.strip()]


def evaluate(rows: list[dict], redactor: Redactor, show: bool = False) -> dict:
    gold, found, hit = Counter(), Counter(), Counter()
    decoys, spared = Counter(), Counter()
    clean_sentences = clean_kept = 0
    for r in rows:
        want = {(s, e, k) for s, e, k in r["spans"]}
        got = {(f.start, f.end, f.kind) for f in redactor.findings(r["text"])}
        gold.update(k for _, _, k in want)
        found.update(k for _, _, k in got)
        hit.update(k for _, _, k in want & got)
        for s, e, what in r.get("decoys", []):
            decoys[what] += 1
            untouched = all(fe <= s or fs >= e for fs, fe, _ in got)
            spared[what] += untouched
            if show and not untouched:
                print(f"LOOKALIKE HIT  {what:14} {r['text']!r} -> {sorted(got)}")
        if not r["spans"]:
            clean_sentences += 1
            clean_kept += not got
        if show:
            for s, e, k in sorted(want - got):
                print(f"MISSED         {k:14} {r['text'][s:e]!r} in {r['text']!r} (found {sorted(got)})")
            for s, e, k in sorted(got - want):
                if not any(fs < e and fe > s for fs, fe, _ in want) and not r.get("decoys"):
                    print(f"FALSE FIND     {k:14} {r['text'][s:e]!r} in {r['text']!r}")
                elif any(fs < e and fe > s for fs, fe, _ in want):
                    print(f"WRONG SPAN     {k:14} {r['text'][s:e]!r} in {r['text']!r} (want {sorted(want)})")
    return {"gold": gold, "found": found, "hit": hit, "decoys": decoys, "spared": spared,
            "clean_sentences": clean_sentences, "clean_kept": clean_kept}


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "-"


def table(res: dict) -> str:
    lines = ["| kind | spans | found | exact | recall | precision |", "|---|---|---|---|---|---|"]
    kinds = [k for k in KINDS if res["gold"][k] or res["found"][k]]
    for k in kinds:
        lines.append(f"| {k} | {res['gold'][k]} | {res['found'][k]} | {res['hit'][k]} | "
                     f"{_ratio(res['hit'][k], res['gold'][k])} | {_ratio(res['hit'][k], res['found'][k])} |")
    g, f, h = (sum(res[x].values()) for x in ("gold", "found", "hit"))
    lines.append(f"| all | {g} | {f} | {h} | {_ratio(h, g)} | {_ratio(h, f)} |")
    lines += ["", "| lookalike | items | left alone | share |", "|---|---|---|---|"]
    for what in sorted(res["decoys"]):
        lines.append(f"| {what} | {res['decoys'][what]} | {res['spared'][what]} | "
                     f"{_ratio(res['spared'][what], res['decoys'][what])} |")
    d, s = sum(res["decoys"].values()), sum(res["spared"].values())
    lines.append(f"| all | {d} | {s} | {_ratio(s, d)} |")
    lines.append(f"\nSentences with no personal data left unchanged: {res['clean_kept']} of {res['clean_sentences']}.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", default=str(DEFAULT))
    ap.add_argument("--misses", action="store_true", help="print every miss, wrong span, false find")
    args = ap.parse_args(argv)
    path = Path(args.path)
    if not path.is_file():
        print(f"error: {path} not found (python benchmarks/pii_set.py writes the generated set)", file=sys.stderr)
        return 2
    rows = load(path)
    res = evaluate(rows, Redactor.of(), args.misses)
    print(f"{path.name}: {len(rows)} sentences")
    print(table(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
