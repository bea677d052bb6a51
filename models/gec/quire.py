"""``quire``: English grammatical-error-correction scores in [0, 1] (see models.gec.base).

``quire``: quire-grammar's ONNX edit tagger run in padded batches (every
non-$KEEP tag with probability >= 0.5 counts, weighted by that probability), its
deterministic rules (style rules excluded: they are not errors), and a spelling
signal: words in neither the pyspellchecker English lexicon nor MiniLM's WordPiece
vocabulary. quire is precision-first, so spelling matters as much as the tagger.
"""

from __future__ import annotations

import re

import numpy as np

from models.embedders.hf import length_batches
from models.gec.base import score_from_weights

_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_EDGE_PUNCT = "\"'“”‘’()[]{}<>,.;:!?*`"


def spelling_candidates(text: str) -> list[str]:
    """Plain words to spell-check: code identifiers (snake_case, camelCase, with digits,
    dotted or slashed names) and all-caps acronyms are left alone."""
    out = []
    for token in text.split():
        word = token.strip(_EDGE_PUNCT)
        if not word or not _WORD.fullmatch(word):
            continue
        if word.isupper() and len(word) > 1:
            continue
        if any(c.isupper() for c in word[1:]):
            continue
        out.append(word)
    return out
_ALLOWED_SHORT = {"i", "a", "u", "ok", "pls", "plz", "thx", "vs", "etc", "faq", "app", "apps", "wifi", "email",
                  "online", "login", "signup", "iphone", "android", "ios", "api", "pdf", "usb", "gps"}


class EnglishLexicon:
    """Known English words: pyspellchecker's frequency list plus MiniLM's whole-word vocabulary."""

    def __init__(self):
        from spellchecker import SpellChecker

        from models.embedders.hf import minilm_path

        self._spell = SpellChecker(language="en", distance=1)
        words = set(_ALLOWED_SHORT)
        vocab = minilm_path() / "vocab.txt"
        if vocab.is_file():
            for line in vocab.read_text(encoding="utf-8").splitlines():
                if line.isalpha():
                    words.add(line)
        self._extra = words

    def known(self, word: str) -> bool:
        w = word.lower()
        if w in self._extra or w in self._spell:
            return True
        if "'" in w:
            return all(self.known(part) for part in w.split("'") if part)
        return False


class QuireGecScorer:
    """English: quire-grammar tagger (batched) + rules + spelling."""

    def __init__(self, tagger_prob: float = 0.5, batch_size: int = 32):
        from quire_grammar import check
        from quire_grammar import model as quire_model
        from quire_grammar.edits import KEEP, tokenize_spans

        self._check = check
        self._tokenize = tokenize_spans
        self._model = quire_model._model()  # the bundled ONNX tagger, or None without the [model] extra
        self._keep_id = None
        if self._model is not None:
            self._keep_id = next(i for i, t in self._model.id2tag.items() if t == KEEP)
        self._tagger_prob = tagger_prob
        self._batch_size = batch_size
        self._lexicon = EnglishLexicon()
        self.model_id = quire_identity(self._model is not None)

    def _tagger_hits(self, words_batch: list[list[str]]) -> list[list[tuple[int, str, float]]]:
        """Per text: (word index, tag, probability) of every non-KEEP prediction."""
        out: list[list[tuple[int, str, float]]] = [[] for _ in words_batch]
        if self._model is None:
            return out
        tok, session, id2tag = self._model.tokenizer, self._model.session, self._model.id2tag
        encs = [tok.encode(words[:60], is_pretokenized=True) if words else None for words in words_batch]
        lens = [min(len(e.ids), 128) if e is not None else 0 for e in encs]
        # batches of like lengths (shortest first): one long prompt no longer pads 31 short questions to 128
        # tokens (451 arena prompts: 17.3 -> 10.4 s on 2 cores, the same tags and probabilities); a budget of
        # batch_size full-length rows never binds, so every batch but the last holds batch_size texts
        present = [i for i, n in enumerate(lens) if n]
        for batch in length_batches([lens[i] for i in present], self._batch_size, self._batch_size * 128):
            chunk = [present[b] for b in batch]
            width = max(lens[i] for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, i in enumerate(chunk):
                ids[row, :lens[i]] = encs[i].ids[:lens[i]]
                mask[row, :lens[i]] = 1
            logits = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            for row, i in enumerate(chunk):
                first: dict[int, int] = {}
                for pos, wid in enumerate(encs[i].word_ids[:width]):
                    if wid is not None and wid not in first:
                        first[wid] = pos
                for wid, pos in first.items():
                    z = logits[row, pos]
                    p = np.exp(z - z.max())
                    p /= p.sum()
                    k = int(p.argmax())
                    if k != self._keep_id and p[k] >= self._tagger_prob:
                        out[i].append((wid, id2tag.get(k, "?"), float(p[k])))
        return out

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        spans_batch = [self._tokenize(t) for t in texts]
        words_batch = [[w for w, _, _ in spans] for spans in spans_batch]
        tagger = self._tagger_hits(words_batch)
        results = []
        for text, words, hits in zip(texts, words_batch, tagger):
            alpha = _WORD.findall(text)
            n_words = max(len(alpha), 1)
            unknown = [w for w in spelling_candidates(text) if not self._lexicon.known(w)]
            rules = [c for c in self._check(text, disable=["model", "style"])]
            weights = [p for _, _, p in hits] + [c.confidence for c in rules] + [0.8] * len(unknown)
            score = score_from_weights(weights, n_words) if alpha else 0.0
            details = {
                "words": len(alpha),
                "tagger_edits": [{"word": words[i] if i < len(words) else "", "tag": tag, "p": round(p, 3)}
                                 for i, tag, p in hits],
                "rules": [{"rule": c.rule_id, "text": c.original, "conf": round(c.confidence, 3)} for c in rules],
                "unknown_words": unknown[:10],
            }
            if not alpha:
                details["no_words"] = True
            results.append((score, details))
        return results


def quire_identity(tagger: bool | None = None) -> str:
    """``tagger``: whether the ONNX tagger is there; None: find out without loading it."""
    import quire_grammar

    if tagger is None:
        from quire_grammar import model as quire_model

        tagger = quire_model._resolve_dir() is not None  # what _model() loads, found without loading it
    return f"quire-grammar-{quire_grammar.__version__}-{'tagger' if tagger else 'rules-only'}+spell"
