"""What a build says at the end: counts reconciled, the per-stage table, and the summary lines."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from pipelines.beam.metering import STAGE_ORDER
from schemas.errors import PublishError


class BuildResult(NamedTuple):
    version: str
    path: Path
    manifest: dict
    stage_table: list[dict]
    unchanged: bool = False  # no new input and the same config: the latest version was kept as it is
    location: str | None = None  # a version in an object store: its URL (``path`` is then its local copy)


def reconcile(stats: dict) -> dict:
    read = stats["rows_parsed"] + stats["rows_rejected_read"]
    rejected = stats["rows_rejected_read"] + stats["rows_rejected_validate"]
    accepted = stats["rows_accepted"]
    if read != accepted + rejected:
        raise PublishError(f"counts: rows read {read} != accepted {accepted} + rejected {rejected}")
    return {"rows_read": read, "rows_accepted": accepted, "rows_rejected": rejected}


def stage_table(stats: dict, timings: dict[str, dict[str, float]], wall: dict[str, float],
                increment: dict | None = None) -> list[dict]:
    """Rows of the end-of-build summary: what went in and out of each stage, and its time.

    ``increment``: this build's own row counts when it continued a saved state; read, validate and
    count then show the new rows only (the later stages work on all questions so far)."""
    rows_in = increment or stats
    # format-1 bases without these counts scored every distinct question and counted only eligible entries
    scored = stats.get("questions_scored", stats["distinct_questions"])
    formed = stats.get("entries_formed", stats["entries"])
    out_counts = {
        "read": (rows_in["rows_read"], rows_in["rows_parsed"], rows_in["rows_rejected_read"]),
        "validate": (rows_in["rows_parsed"], rows_in["rows_accepted"], rows_in["rows_rejected_validate"]),
        "count": (rows_in["rows_accepted"], stats["distinct_questions"], 0),
        # in: the members of the entries the top K could take (pipelines.stages.frontier); out: passed both
        "score": (scored, stats["passed_both"], scored - stats["passed_both"]),
        # in: distinct questions; out: entries (one per meaning), before any is scored
        "paraphrase": (stats["distinct_questions"], formed, stats["distinct_questions"] - formed),
        # every scored question judged; none dropped here (policy drop acts at selection)
        "time": (scored, scored, 0),
        "select": (stats["entries"], stats["top_k"], stats["entries"] - stats["top_k"]),
        # in: the candidates (top K + headroom); dropped: those whose every answer was a non-answer
        "nonanswer": (stats["candidates_judged"], stats["candidates_judged"] - stats["no_valid_answer"],
                      stats["no_valid_answer"]),
        "embed": (stats["top_k"], stats["top_k"], 0),
        "aggregate": (stats["top_k"], stats["published"], stats["top_k"] - stats["published"]),
        "write": (stats["published"], stats["published"], 0),
    }
    rows = []
    for stage in STAGE_ORDER:
        if stage not in out_counts:
            continue
        n_in, n_out, n_drop = out_counts[stage]
        secs = timings.get(stage, {}).get("seconds")
        if stage in wall:
            secs = (secs or 0.0) + wall[stage]
        rows.append({"stage": stage, "in": n_in, "out": n_out, "dropped": n_drop,
                     "seconds": round(secs, 3) if secs is not None else None,
                     # below 10 ms a rate says more about the clock than the stage
                     "items_per_s": round(n_in / secs, 1) if secs and secs >= 0.01 and n_in else None})
    return rows


def format_table(rows: list[dict]) -> str:
    """busy s: time the stage itself spent (summed over workers); in/s: items in per busy second."""
    head = f"{'stage':<10} {'in':>10} {'out':>10} {'dropped':>10} {'busy s':>9} {'in/s':>10}"
    lines = [head, "-" * len(head)]
    for r in rows:
        secs = f"{r['seconds']:.2f}" if r["seconds"] is not None else "-"
        rate = f"{r['items_per_s']:,.0f}" if r["items_per_s"] else "-"
        lines.append(f"{r['stage']:<10} {r['in']:>10,} {r['out']:>10,} {r['dropped']:>10,} {secs:>9} {rate:>10}")
    return "\n".join(lines)


def format_calls(rows: list[dict]) -> str:
    """The model calls of a build (manifest ``model_calls``): per stage and model, the texts the model computed,
    their characters, and the texts a cache served instead (``cached``)."""
    head = f"{'stage':<12} {'model':<18} {'texts':>9} {'chars':>12} {'chars/text':>10} {'cached':>9}"
    lines = [head, "-" * len(head)]
    for r in rows:
        per = f"{r['chars'] / r['texts']:,.0f}" if r["texts"] else "-"
        lines.append(f"{r['stage']:<12} {r['model']:<18} {r['texts']:>9,} {r['chars']:>12,} {per:>10} {r['cached']:>9,}")
    total = sum(r["texts"] for r in rows), sum(r["chars"] for r in rows), sum(r["cached"] for r in rows)
    lines.append(f"{'all':<12} {'':<18} {total[0]:>9,} {total[1]:>12,} {'':>10} {total[2]:>9,}")
    return "\n".join(lines)


def summary_text(res: BuildResult) -> str:
    if res.unchanged:
        return (f"no new input (every file was counted before), the same config and review file: {res.version} "
                f"stays latest ({res.path}); --full-rebuild recounts")
    c = res.manifest["counts"]
    lines = [
        format_table(res.stage_table),
        "",
        f"rows read {c['rows_read']:,} = accepted {c['rows_accepted']:,} + rejected {c['rows_rejected']:,}",
        f"distinct questions {c['distinct_questions']:,}, scored {c.get('questions_scored', c['distinct_questions']):,}; "
        f"passed GEC {c['passed_gec']:,}, "
        f"passed intent {c['passed_intent']:,}, both {c['passed_both']:,}; published {c['published']:,}",
        f"index: {res.manifest['index']['type']} ntotal={res.manifest['index']['ntotal']} "
        f"recall@10={res.manifest['index']['recall_at_10']}",
        f"version {res.version} -> {res.location or res.path}  ({res.manifest['build_seconds']:.1f}s)",
    ]
    if "instruction_like_judged" in c:  # some format-1 bases did not judge it
        lines.insert(-1, f"instruction-like answers {c['instruction_like_judged']:,} of {c.get('answers_judged', 0):,} "
                         f"judged; entries withheld for them {c.get('instruction_like_withheld', 0):,}, published "
                         f"with the flag {c.get('published_instruction_like', 0):,}")
    lines.insert(-1, f"report: {res.location + '/report.html' if res.location else res.path / 'report.html'}")
    caches = res.manifest.get("caches") or {}
    reused = [f"{stage} {c['hits']:,} reused / {c['misses']:,} computed" for stage, c in caches.items()
              if isinstance(c, dict)]
    if reused:
        lines.insert(-1, "caches: " + "; ".join(reused))
    lines[-1:-1] = review_lines(res.manifest.get("review"))
    inc = res.manifest.get("increment") or {}
    if inc.get("mode") == "incremental":
        lines.insert(-1, f"incremental: {len(inc['new_files'])} new file(s), {inc['rows_read']:,} new rows, on top of "
                         f"{inc['base_version']}")
    return "\n".join(lines)


def review_lines(review: dict | None, shown: int = 10) -> list[str]:
    """The summary's lines about the review file: its counts, then each decision not applied (stale or
    conflicting: never dropped silently), the first ``shown`` of them."""
    if not review:
        return []
    lines = [f"review: {review['decisions']:,} decision(s) in {review['file']}: {review['applied']:,} applied, "
             f"{review['stale']:,} stale, {review['conflicting']:,} conflicting"]
    problems = review.get("not_applied", [])
    for o in problems[:shown]:
        other = f" / {o['other']!r}" if o.get("other") else ""
        lines.append(f"  line {o['line']} {o['action']} {o['question']!r}{other}: {o['status']}: {o['detail']}")
    more = review["stale"] + review["conflicting"] - min(shown, len(problems))
    if more > 0:
        lines.append(f"  ... and {more:,} more (the manifest's review.not_applied; `qabase review list`)")
    return lines
