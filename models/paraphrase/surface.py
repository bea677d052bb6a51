"""Chinese questions that differ only in how they are written down: punctuation, spacing, the particle 的 and
the modal particles 呢, 啊, 呀, 嘛, 哦. 'DNA全称是什么?' and 'DNA的全称是什么？' ask one thing.

The pair model learned from pairs whose negatives share most of their characters, so it is wary of exactly the
pairs that differ least; these never need its judgement. On the training and tune pairs (LCQMC, BQ, all of ATEC
train: 53,730), 105 pairs have equal surface keys and unequal normalised keys; 104 are labelled paraphrases, and the
105th ('花呗分期退款' against '花呗分期 退款') is a label that a space decided. Left alone: 吗 and 吧, which
make a question or a suggestion of a statement ('你好吗' is not '你好'); 了, which changes tense; 么, part of 什么,
怎么, 这么.
"""

from __future__ import annotations

import re

from schemas.text import normalize_key

_HAN = re.compile("[\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff]")
# the structural particle and the sentence-final modal particles, whitespace and every non-word character
_WRITING = re.compile(r"[的呢啊呀嘛哦\s]|[^\w]")


def surface_key(text: str) -> str:
    """The normalised key (schemas.text.normalize_key) without punctuation, spacing and the particles above."""
    return _WRITING.sub("", normalize_key(text))


def same_surface(a: str, b: str) -> bool:
    """Whether two Chinese questions are one question written two ways (both must hold Han characters, and
    something must be left of them)."""
    if not (_HAN.search(a) and _HAN.search(b)):
        return False
    key = surface_key(a)
    return bool(key) and key == surface_key(b)
