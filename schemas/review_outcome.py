"""What a review file's decisions make of the base: per entry, the overrides the build applies; per decision,
whether it was applied, is stale (a question it names is in no entry) or conflicting (another decision wins).

One set of rules, used where the build applies the decisions (pipelines.stages.paraphrase and .review) and where
they are reported (the manifest, the build summary, the report, ``qabase review list``), so what is reported is
what was applied:

* merge and split: a split wins; a merge whose two questions a split keeps apart (directly, or because earlier
  merges put a split's two sides on either side) is conflicting;
* merges of one question into different questions: the later line wins, the earlier ones are conflicting (a
  question has one place to go; applying both would join the two targets, which no line asked for, and the
  later line wins as it does between exclude and keep, or two answers, so that a changed mind is one appended
  line);
* exclude / keep on one entry: the later line wins, the earlier ones of the other action are conflicting;
* answer (or time_sensitive) on one entry: the later line wins over an earlier one with another text (value);
* an excluded entry serves nothing: its answer and time_sensitive decisions are conflicting.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from schemas.review import Decision

APPLIED, STALE, CONFLICTING, PENDING = "applied", "stale", "conflicting", "pending"
ENTRY_ACTIONS = ("exclude", "keep", "answer", "time_sensitive")
EXCLUDED_REASON = "excluded_by_reviewer"  # questions.parquet reason of an excluded entry's representative
REVIEWED_METHOD = "reviewed"  # qa.parquet method of an entry serving a reviewer's answer
MAX_LISTED = 200  # stale and conflicting decisions listed in the manifest (the counts are exact)


class EntryReview(NamedTuple):
    """The overrides of one entry (None fields: the judges decide)."""

    excluded: bool = False
    keep: bool = False
    answer: str | None = None
    time_sensitive: bool | None = None
    actions: tuple = ()  # the actions that took effect on the entry, sorted
    notes: tuple = ()  # their notes, in file order


def by_key(decisions: Iterable[Decision]) -> dict[str, tuple]:
    """{question key: the decisions naming it, in file order}: how an entry finds its decisions."""
    out: dict[str, list] = defaultdict(list)
    for d in decisions:
        for k in d.keys():
            out[k].append(d)
    return {k: tuple(v) for k, v in out.items()}


def decisions_of_entry(member_keys: Iterable[str], index: Mapping[str, tuple]) -> list[Decision]:
    """The decisions that touch an entry of these members: its entry actions, a merge with both questions in
    it, a split with one side in it; in file order."""
    members = set(member_keys)
    found = {d.line: d for k in members for d in index.get(k, ())}
    out = []
    for d in found.values():
        if d.action in ENTRY_ACTIONS or (d.action == "merge" and d.other_key in members and d.key in members) or (
                d.action == "split" and (d.key in members) != (d.other_key in members)):
            out.append(d)
    return sorted(out, key=lambda d: d.line)


def _last_wins(ds: list[Decision], same, what: str, statuses: dict) -> Decision | None:
    if not ds:
        return None
    winner = ds[-1]
    for d in ds:
        statuses[d.line] = ((APPLIED, "") if same(d, winner)
                            else (CONFLICTING, f"overridden by line {winner.line} ({what})"))
    return winner


def entry_review(decisions: list[Decision]) -> tuple[EntryReview | None, dict[int, tuple[str, str]]]:
    """(the entry's overrides, or None when no decision touches it; {line: (status, detail)}) from
    :func:`decisions_of_entry`'s decisions."""
    if not decisions:
        return None, {}
    statuses: dict[int, tuple[str, str]] = {}
    of = lambda *actions: [d for d in decisions if d.action in actions]  # noqa: E731
    stay = _last_wins(of("exclude", "keep"), lambda d, w: d.action == w.action, "exclude or keep", statuses)
    answer = _last_wins(of("answer"), lambda d, w: d.answer == w.answer, "another answer", statuses)
    timed = _last_wins(of("time_sensitive"), lambda d, w: d.value == w.value, "another value", statuses)
    excluded = stay is not None and stay.action == "exclude"
    if excluded:
        for d in of("answer", "time_sensitive"):
            statuses[d.line] = (CONFLICTING, f"the entry is excluded (line {stay.line})")
    for d in of("merge", "split"):
        statuses[d.line] = (APPLIED, "")
    applied = [d for d in decisions if statuses[d.line][0] == APPLIED]
    notes = tuple(dict.fromkeys(d.note for d in applied if d.note))
    review = EntryReview(
        excluded=excluded, keep=stay is not None and stay.action == "keep",
        answer=answer.answer if answer is not None and not excluded else None,
        time_sensitive=timed.value if timed is not None and not excluded else None,
        actions=tuple(sorted({d.action for d in applied})), notes=notes)
    return review, statuses


def superseded_merges(decisions: Iterable[Decision]) -> dict[int, int]:
    """{line of a merge: the later line that merges the same question into another question}: the merges that do
    not apply (the later line wins; a merge repeated with the same target is no conflict)."""
    last: dict[str, Decision] = {}
    for d in decisions:
        if d.action == "merge":
            last[d.key] = d
    return {d.line: last[d.key].line for d in decisions
            if d.action == "merge" and last[d.key].other_key != d.other_key}


def merge_groups(groups: Mapping[str, str], decisions: Iterable[Decision]) -> tuple[dict[str, str], dict[int, int]]:
    """The merges applied to a grouping: ({question key: group id} for every key a merge moved or joined,
    {merge line: the split line that kept its two sides apart}). ``groups``: {key: group id} of the grouped
    questions (a key absent is its own group). Merges go in file order; one whose two groups a split spans is
    refused, as is one a later merge of the same question overrides (:func:`superseded_merges`, not in the
    returned dict). Group ids stay the smallest key of the group, as the paraphrase grouping names them."""
    decisions = list(decisions)
    superseded = superseded_merges(decisions)
    splits = [d for d in decisions if d.action == "split"]
    gid = dict(groups)
    members: dict[str, set] = defaultdict(set)
    for k, g in gid.items():
        members[g].add(k)
    blocked: dict[int, int] = {}
    for d in (d for d in decisions if d.action == "merge" and d.line not in superseded):
        ga, gb = gid.get(d.key, d.key), gid.get(d.other_key, d.other_key)
        if ga == gb:
            continue
        sa, sb = members[ga] | {d.key, ga}, members[gb] | {d.other_key, gb}
        wall = next((s for s in splits if (s.key in sa and s.other_key in sb) or (s.key in sb and s.other_key in sa)),
                    None)
        if wall is not None:
            blocked[d.line] = wall.line
            continue
        new, old = (ga, gb) if ga < gb else (gb, ga)
        for k in sa | sb:
            gid[k] = new
        members[new] = sa | sb
        members.pop(old, None)
    return gid, blocked


def review_outcome(decisions: Iterable[Decision], entry_of: Mapping[str, str], built_with: bool = True) -> list[dict]:
    """Every decision with its status against a base: ``entry_of`` {question key: its entry's key} of every
    question of the base (questions.parquet). ``built_with``: the base was built with these decisions (else
    what would take effect is ``pending``, not ``applied``)."""
    decisions = list(decisions)
    status: dict[int, tuple[str, str]] = {}
    for d in decisions:
        missing = [t for k, t in zip(d.keys(), (d.question, d.other)) if k not in entry_of]
        if missing:
            status[d.line] = (STALE, "no question " + " nor ".join(repr(t) for t in missing) + " in the base")
    for line, winner in superseded_merges(decisions).items():
        if line not in status:
            status[line] = (CONFLICTING, f"overridden by line {winner} (a merge into another question)")
    live = [d for d in decisions if d.line not in status]
    splits = [d for d in live if d.action == "split"]
    per_entry: dict[str, list[Decision]] = defaultdict(list)
    for d in live:
        ea = entry_of[d.key]
        eb = entry_of.get(d.other_key) if d.other_key else None
        if d.action == "merge" and ea != eb:
            wall = next((s for s in splits if {entry_of[s.key], entry_of[s.other_key]} == {ea, eb}
                         or {s.key, s.other_key} == {d.key, d.other_key}), None)
            status[d.line] = ((CONFLICTING, f"a split (line {wall.line}) keeps them apart") if wall is not None
                              else (PENDING if not built_with else CONFLICTING, "" if not built_with
                                    else "kept apart by a split"))
        elif d.action == "split" and ea == eb:
            status[d.line] = (PENDING, "one entry in this base") if not built_with else (
                CONFLICTING, "the two questions share an entry")
        else:
            for e in {ea, eb} - {None}:
                per_entry[e].append(d)
    for ds in per_entry.values():
        _, statuses = entry_review(sorted(ds, key=lambda d: d.line))
        for line, st in statuses.items():
            if line not in status or status[line][0] == APPLIED:
                status[line] = st
    out = []
    for d in decisions:
        st, detail = status.get(d.line, (APPLIED, ""))
        if st == APPLIED and not built_with:
            st = PENDING
        out.append({"line": d.line, "action": d.action, "question": d.question,
                    **({"other": d.other} if d.other else {}), "status": st, "detail": detail})
    return out


def outcome_summary(path: str, sha256: str, outcome: list[dict]) -> dict:
    """The manifest's ``review`` section: the file, its digest, counts per status, and the decisions not
    applied (stale or conflicting; the first :data:`MAX_LISTED`)."""
    counts = {s: sum(1 for o in outcome if o["status"] == s) for s in (APPLIED, STALE, CONFLICTING)}
    problems = [o for o in outcome if o["status"] in (STALE, CONFLICTING)]
    return {"file": path, "sha256": sha256, "decisions": len(outcome), **counts,
            "not_applied": problems[:MAX_LISTED]}
