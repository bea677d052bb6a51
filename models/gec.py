"""Grammatical-error-correction scores in [0, 1]; 1 = needs no correction.

A score comes from corrections per word, each weighted by its confidence:
``score = exp(-strength * sum(weights) / words)``. One confident correction in a
five-word question gives about 0.5.

English (``quire``): quire-grammar's ONNX edit tagger run in padded batches (every
non-$KEEP tag with probability >= 0.5 counts, weighted by that probability), its
deterministic rules (style rules excluded: they are not errors), and a spelling
signal: words in neither the pyspellchecker English lexicon nor MiniLM's WordPiece
vocabulary. quire is precision-first, so spelling matters as much as the tagger.

Chinese (``zh-heuristic``): character-level signals only (doubled function
characters, stray symbols and mojibake, broken punctuation runs, Latin letters
mixed into CJK words). It catches noise, not fine grammar; see docs/scorers.md.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import Protocol

import numpy as np

from pipelines.text import cjk_count

STRENGTH = 3.5


class GecScorer(Protocol):
    model_id: str

    def score(self, texts: list[str]) -> list[tuple[float, dict]]: ...


def score_from_weights(weights: list[float], units: float) -> float:
    rate = sum(weights) / max(units, 1.0)
    return float(math.exp(-STRENGTH * rate))


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

        from models.embedders import minilm_path

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
        import quire_grammar
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
        tagger = "tagger" if self._model is not None else "rules-only"
        self.model_id = f"quire-grammar-{quire_grammar.__version__}-{tagger}+spell"

    def _tagger_hits(self, words_batch: list[list[str]]) -> list[list[tuple[int, str, float]]]:
        """Per text: (word index, tag, probability) of every non-KEEP prediction."""
        out: list[list[tuple[int, str, float]]] = [[] for _ in words_batch]
        if self._model is None:
            return out
        tok, session, id2tag = self._model.tokenizer, self._model.session, self._model.id2tag
        for start in range(0, len(words_batch), self._batch_size):
            chunk = list(range(start, min(start + self._batch_size, len(words_batch))))
            encs = [tok.encode(words_batch[i][:60], is_pretokenized=True) if words_batch[i] else None for i in chunk]
            lens = [min(len(e.ids), 128) if e is not None else 0 for e in encs]
            width = max(lens) if lens else 0
            if width == 0:
                continue
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, (e, n) in enumerate(zip(encs, lens)):
                if e is not None and n:
                    ids[row, :n] = e.ids[:n]
                    mask[row, :n] = 1
            logits = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            for row, (i, e) in enumerate(zip(chunk, encs)):
                if e is None:
                    continue
                first: dict[int, int] = {}
                for pos, wid in enumerate(e.word_ids[:width]):
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


# doubling these is (almost) never right; reduplicated verbs/adverbs (看看, 谢谢, 常常) are fine
_ZH_NO_DOUBLE = set("的了是在和与就都也把被对从向给让很吗呢吧啊么着过得地")
_ZH_PUNCT_RUN = re.compile(r"[，。！？、；：,.!?;:]{2,}")
_LATIN_IN_CJK = re.compile(r"(?<=[\u4e00-\u9fff])[a-z]{1,3}(?=[\u4e00-\u9fff])")


_ASCII_JUNK = set("#@$%^&*_=+|\\<>~`")


def _is_stray(ch: str) -> bool:
    if ch.isspace() or ch.isalnum():
        return False
    if ch in _ASCII_JUNK:
        return True
    cat = unicodedata.category(ch)
    if cat.startswith("P"):
        return False
    return cat.startswith("S") or cat in ("Co", "Cn", "Cs", "Cc") or ch == "\ufffd"


class ZhHeuristicGecScorer:
    """Chinese: character-level noise signals (no model)."""

    model_id = "zh-heuristic-v1"

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        results = []
        for text in texts:
            n_cjk = cjk_count(text)
            units = max(n_cjk / 4.0, 1.0)  # about four characters per word
            doubled = [text[i:i + 2] for i in range(len(text) - 1)
                       if text[i] == text[i + 1] and text[i] in _ZH_NO_DOUBLE]
            stray = [ch for ch in text if _is_stray(ch)]
            punct_runs = [m.group(0) for m in _ZH_PUNCT_RUN.finditer(text) if len(set(m.group(0))) > 1
                          or m.group(0)[0] not in "!?！？.。"]
            latin_inside = _LATIN_IN_CJK.findall(text)
            weights = [0.9] * len(doubled) + [0.5] * len(stray) + [0.5] * len(punct_runs) + [0.6] * len(latin_inside)
            score = score_from_weights(weights, units) if n_cjk else 0.0
            details = {"cjk_chars": n_cjk, "doubled": doubled[:5], "stray_symbols": "".join(stray[:10]),
                       "punct_runs": punct_runs[:5], "latin_inside_words": latin_inside[:5]}
            results.append((score, details))
        return results


def details_json(details: dict) -> str:
    return json.dumps(details, ensure_ascii=False, sort_keys=True)


class CausalLmGecScorer:
    """Any local causal LM directory (``lm:/path``): fluency from length-normalised log-likelihood.

    The mean negative log-likelihood per token is compared with the same model's
    values on fluent reference requests (the clear-request prototypes, both
    languages): ``z = (nll - mean_ref) / sd_ref``, ``score = sigmoid(1 - z)``. So a
    text as fluent as the references scores about 0.73, one standard deviation
    worse 0.5, three worse 0.12, whatever the model's own perplexity scale.
    """

    def __init__(self, path: str, batch_size: int = 16, max_length: int = 128):
        from pathlib import Path

        import torch

        from models.embedders import load_hf_dir

        p = Path(path)
        self._tok, self._model, fingerprint = load_hf_dir(p, "AutoModelForCausalLM", "a causal LM")
        if self._tok.pad_token is None:
            self._tok.pad_token = self._tok.eos_token or self._tok.unk_token
        self._torch = torch
        self._batch_size = batch_size
        self._max_length = max_length
        self.model_id = f"lm:{p.name}@{fingerprint}"
        from models.prototypes import load_prototypes

        clear = load_prototypes()["intent"]["clear"]
        ref = np.asarray(self.nll(clear["en"] + clear["zh"]))
        self._ref_mean = float(ref.mean())
        self._ref_sd = float(max(ref.std(), 1e-3))

    def nll(self, texts: list[str]) -> list[float]:
        """Mean negative log-likelihood per predicted token of each text."""
        torch = self._torch
        out: list[float] = []
        with torch.inference_mode():
            for start in range(0, len(texts), self._batch_size):
                chunk = texts[start:start + self._batch_size]
                enc = self._tok(chunk, return_tensors="pt", padding=True, truncation=True,
                                max_length=self._max_length)
                logits = self._model(**enc).logits[:, :-1].float()
                target = enc["input_ids"][:, 1:]
                mask = enc["attention_mask"][:, 1:].float()
                logp = torch.log_softmax(logits, dim=-1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
                per_text = -(logp * mask).sum(1) / mask.sum(1).clamp(min=1.0)
                out.extend(float(v) for v in per_text)
        return out

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        results = []
        for text, value in zip(texts, self.nll(texts)):
            z = (value - self._ref_mean) / self._ref_sd
            score = float(1.0 / (1.0 + math.exp(-(1.0 - z))))
            results.append((score, {"nll": round(value, 4), "ref_mean": round(self._ref_mean, 4),
                                    "ref_sd": round(self._ref_sd, 4), "z": round(z, 3)}))
        return results


def char_edit_distance(a: str, b: str) -> int:
    """Levenshtein distance over characters (two-row dynamic programme)."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


class Seq2SeqGecScorer:
    """Any local seq2seq corrector directory (``seq2seq:/path``, T5/BART style).

    The model rewrites the text; the score is ``exp(-3.5 × edits / units)`` with
    edits = character edit distance between input and correction divided by the
    average word length (4 characters; 1 per CJK character), units = words (or
    CJK characters / 4), the same scale as the other GEC scores.
    """

    def __init__(self, path: str, batch_size: int = 16, max_length: int = 128, num_beams: int = 1):
        from pathlib import Path

        import torch

        from models.embedders import load_hf_dir

        p = Path(path)
        self._tok, self._model, fingerprint = load_hf_dir(p, "AutoModelForSeq2SeqLM", "a seq2seq model")
        self._torch = torch
        self._batch_size = batch_size
        self._max_length = max_length
        self._num_beams = num_beams
        self.model_id = f"seq2seq:{p.name}@{fingerprint}"

    def _max_new_tokens(self) -> int:
        limit = getattr(self._model.config, "max_position_embeddings", None) or self._max_length
        return max(1, min(self._max_length, limit - 2))

    def correct(self, texts: list[str]) -> list[str]:
        out: list[str] = []
        with self._torch.inference_mode():
            for start in range(0, len(texts), self._batch_size):
                chunk = texts[start:start + self._batch_size]
                enc = self._tok(chunk, return_tensors="pt", padding=True, truncation=True,
                                max_length=self._max_length)
                # only what every seq2seq model takes (a BERT-style tokenizer adds token_type_ids)
                gen = self._model.generate(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                                           max_new_tokens=self._max_new_tokens(), num_beams=self._num_beams,
                                           do_sample=False)
                out.extend(self._tok.batch_decode(gen, skip_special_tokens=True))
        return out

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        results = []
        for text, fixed in zip(texts, self.correct(texts)):
            n_cjk = cjk_count(text)
            units = max(len(_WORD.findall(text)) + n_cjk / 4.0, 1.0)
            per_edit = 1.0 if n_cjk > len(text) / 2 else 4.0
            edits = char_edit_distance(text.strip(), fixed.strip()) / per_edit
            results.append((score_from_weights([edits], units), {"correction": fixed, "edits": round(edits, 3)}))
        return results
