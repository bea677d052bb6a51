"""The topic model interface: vectors -> one topic label per vector (``UNASSIGNED`` for none), deterministic.

Backends: ``hdbscan`` (models.topics.hdbscan_topics). ``models.registry`` maps ``topics.backend`` to them. Naming a
topic by its words is the backend-independent part (models.topics.naming).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

UNASSIGNED = -1  # the label of a vector in no topic (HDBSCAN's noise)
UNASSIGNED_NAME = "unassigned"


class TopicModel(Protocol):
    model_id: str

    def group(self, vectors: np.ndarray) -> np.ndarray:
        """One int label per row of ``vectors``: topics numbered 0, 1, ... by size (largest first, ties by
        their first row), ``UNASSIGNED`` for rows in no topic. The same vectors give the same labels."""
        ...


def renumber(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered 0, 1, ... by topic size (largest first; ties: the topic whose first row comes first);
    ``UNASSIGNED`` stays. Makes labels independent of the clusterer's own numbering."""
    labels = np.asarray(labels, dtype=np.int64)
    found = [int(x) for x in np.unique(labels) if x != UNASSIGNED]
    first = {lab: int(np.argmax(labels == lab)) for lab in found}
    size = {lab: int((labels == lab).sum()) for lab in found}
    order = sorted(found, key=lambda lab: (-size[lab], first[lab]))
    out = np.full(len(labels), UNASSIGNED, dtype=np.int64)
    for new, old in enumerate(order):
        out[labels == old] = new
    return out
