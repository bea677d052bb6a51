"""The topic model (models/topics): HDBSCAN groups, deterministic labels, and names from the entries' words."""

import numpy as np
import pytest

from models.registry import topic_model, topic_model_identity
from models.config_check import check_config
from models.topics.base import UNASSIGNED, renumber
from models.topics.hdbscan_topics import HdbscanTopics, auto_min_cluster_size
from models.topics.naming import topic_name, topic_words
from schemas.config import TopicsConfig, config_from_dict
from schemas.errors import ConfigError


def blobs(sizes, dim=48, spread=0.15, seed=3):
    """Well-separated groups on the unit sphere (group centres far apart, each point a little off its centre)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(sizes), dim))
    truth = np.repeat(np.arange(len(sizes)), sizes)
    x = centres[truth] / np.linalg.norm(centres[truth], axis=1, keepdims=True) + rng.normal(scale=spread / np.sqrt(dim),
                                                                                             size=(len(truth), dim))
    return x.astype(np.float32), truth


def same_partition(a, b) -> bool:
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def test_well_separated_groups_are_recovered_and_numbered_by_size():
    x, truth = blobs([120, 80, 60, 40])
    labels = HdbscanTopics(min_cluster_size=10).group(x)
    assert same_partition(labels, truth)
    assert UNASSIGNED not in labels
    assert np.bincount(labels).tolist() == [120, 80, 60, 40]  # 0 is the largest


def test_points_far_from_every_group_are_unassigned():
    # three groups of one region of the sphere (a shared direction u), five questions on the far side of it
    rng = np.random.default_rng(3)
    dim = 48
    u = rng.normal(size=dim)
    u /= np.linalg.norm(u)
    centres = u + 1.5 * rng.normal(size=(3, dim)) / np.sqrt(dim)
    truth = np.repeat(np.arange(3), 80)
    x = centres[truth] / np.linalg.norm(centres[truth], axis=1, keepdims=True)
    x += rng.normal(scale=0.15 / np.sqrt(dim), size=x.shape)
    far = -u + 2 * rng.normal(size=(5, dim)) / np.sqrt(dim)
    labels = HdbscanTopics(min_cluster_size=10).group(np.vstack([x, far]))
    assert (labels[-5:] == UNASSIGNED).all()
    assert same_partition(labels[:-5], truth) and UNASSIGNED not in labels[:-5]


def test_the_same_vectors_give_the_same_topics_and_the_sample_path_recovers_groups_too():
    x, truth = blobs([300, 200, 100], seed=5)
    model = HdbscanTopics(min_cluster_size=20, fit_sample=200)  # 600 vectors: 200 clustered, 400 predicted
    first, second = model.group(x), model.group(x.copy())
    assert (first == second).all()
    assert same_partition(first[first != UNASSIGNED], truth[first != UNASSIGNED])
    assert (first != UNASSIGNED).mean() > 0.9
    assert (HdbscanTopics(min_cluster_size=20).group(x) == HdbscanTopics(min_cluster_size=20).group(x)).all()


def test_too_few_entries_make_no_topic_and_sizes_scale_with_the_base():
    x, _ = blobs([3])
    assert (HdbscanTopics().group(x) == UNASSIGNED).all()
    assert HdbscanTopics().group(np.zeros((0, 8), np.float32)).tolist() == []
    assert auto_min_cluster_size(100) == 5 and auto_min_cluster_size(50_000) == 250
    assert HdbscanTopics().sizes(50_000) == (250, 1) and HdbscanTopics(min_cluster_size=3, min_samples=0).sizes(10) == (3, 3)


def test_renumber_orders_by_size_then_first_row():
    assert renumber(np.array([7, 7, 3, -1, 3, 3, 9, 9])).tolist() == [1, 1, 0, -1, 0, 0, 2, 2]


def test_topics_are_named_by_the_words_that_tell_them_apart():
    texts = [["how do I get a refund", "refund my order please"], ["refund not received yet"],
             ["my card was stolen", "stolen card"], ["lost my card abroad"],
             ["怎么申请退款", "退款多久到账"], ["退款失败怎么办"],
             ["what is the weather"]]
    labels = [0, 0, 1, 1, 2, 2, UNASSIGNED]
    words = topic_words(texts, labels, words=2)
    assert set(words) == {0, 1, 2}  # the unassigned topic is not named
    assert words[0][0] == "refund" and words[1][0] == "card"
    assert words[2][0] == "退款" and "退" not in words[2] and "款" not in words[2]  # the bigram, not its characters
    assert topic_words(texts, labels, words=2) == words  # deterministic
    assert topic_name(0, words[0]) == " · ".join(words[0]) and topic_name(UNASSIGNED, []) == "unassigned"
    assert topic_name(4, []) == "topic 4"


def test_config_and_registry():
    model = topic_model(TopicsConfig(min_cluster_size=12))
    assert isinstance(model, HdbscanTopics) and model.min_cluster_size == 12
    assert topic_model_identity(TopicsConfig(min_cluster_size=12)) == model.model_id
    assert topic_model_identity(TopicsConfig()) != model.model_id
    assert topic_model(TopicsConfig(enabled=False)) is None and topic_model_identity(TopicsConfig(enabled=False)) == "off"
    for bad in ({"min_cluster_size": 1}, {"dims": -1}, {"fit_sample": 10}, {"words": 0},
                {"least_reliable_share": 1.5}):
        with pytest.raises(ConfigError, match="topics."):
            config_from_dict({"topics": bad})
    with pytest.raises(ConfigError, match="topics.backend"):
        check_config(config_from_dict({"topics": {"backend": "kmeans"}}))


def test_nearest_is_the_brute_force_nearest_point():
    from models.topics.hdbscan_topics import nearest

    rng = np.random.default_rng(0)
    queries, points = rng.normal(size=(300, 6)), rng.normal(size=(50, 6))
    brute = ((queries[:, None, :] - points[None]) ** 2).sum(-1).argmin(axis=1)
    assert (nearest(queries, points, chunk=64) == brute).all()


def test_topic_names_are_in_their_questions_language_without_stop_words():
    from models.topics.naming import CHINESE_STOP_CHARS, CHINESE_STOP_WORDS, ENGLISH_STOP, naming_tokens

    # one topic holding both languages (the embedder's space is shared): most of its texts are Chinese
    texts = [["Is tea better than coffee?", "Which is better, tea or coffee?"],
             ["咖啡好还是茶好？", "喝茶好还是喝咖啡好？"],
             ["今年高考是哪天？", "请问今年高考是哪天？"], ["买房好还是租房好？"], ["李白是哪个朝代的诗人？"],
             ["how do I reset my password", "reset password"], ["password reset link expired"],
             ["what is the weather"]]
    labels = [0, 0, 0, 0, 0, 1, 1, UNASSIGNED]
    words = topic_words(texts, labels, words=4)
    assert all(w not in ("coffee", "tea", "better") for w in words[0])  # Chinese topic, Chinese words
    assert not any(ch in CHINESE_STOP_CHARS for w in words[0] for ch in w)  # no "好还"
    assert not any(w in CHINESE_STOP_WORDS for w in words[0]) and "年高" not in naming_tokens("今年高考是哪天")
    assert "高考" in naming_tokens("今年高考是哪天")
    assert words[1][0] in ("password", "reset") and not set(words[1]) & ENGLISH_STOP
    assert all(w.isascii() for w in words[1])
    assert topic_words(texts, labels, words=4) == words


def test_prims_spanning_tree_gives_the_topics_boruvkas_gave():
    """The topics run HDBSCAN with Prim's spanning tree (faster); the package's own pick for few dimensions is
    Borůvka's. Same minimum spanning tree, same topics, on groups that overlap and leave points unassigned."""
    import hdbscan

    from models.topics.hdbscan_topics import _prepare

    x, _ = blobs([400, 250, 150, 100, 60, 40], dim=64, spread=1.6, seed=11)
    model = HdbscanTopics(min_cluster_size=15)
    mcs, ms = model.sizes(len(x))
    boruvka = hdbscan.HDBSCAN(min_cluster_size=mcs, min_samples=ms, algorithm="boruvka_kdtree")
    expected = renumber(boruvka.fit_predict(_prepare(x, model.dims)))
    got = model.group(x)
    assert (got == expected).all()
    assert got.max() == 5 and (got == UNASSIGNED).sum() > 100  # six topics and many unassigned: not a trivial case
