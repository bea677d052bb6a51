import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# two test processes on two cores: torch's idle OpenMP threads would spin on the core the other process needs
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

FIXTURES = Path(__file__).parent / "fixtures"
# builds in tests: no aggregation or model caches (nothing shared between tests), no Data Docs (seconds each)
FAST_BUILD = {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False}
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def everything_written(folder: Path) -> str:
    """Every file under ``folder`` as text: Parquet decoded row by row, SQLite and the rest as bytes (the privacy
    tests search it for raw values)."""
    import json

    import pyarrow.parquet as pq

    out = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if path.suffix == ".parquet":
            out.append(json.dumps(pq.read_table(path).to_pylist(), ensure_ascii=False, default=str))
        else:
            out.append(path.read_bytes().decode("utf-8", errors="replace"))
    return "\n".join(out)


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


FULL_TIER = "python -m pytest -q --full"


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", default=False,
                     help="the full tier: the tests marked slow as well (real models, real-model builds, a browser, "
                          "servers, kill tests, packaging); without it only the default tier runs")


def _default_tier(config) -> bool:
    """Without --full the tests marked slow are left out, unless a -m expression chooses by marker itself."""
    return not config.getoption("--full") and not config.getoption("markexpr")


def pytest_collection_modifyitems(config, items):
    if _default_tier(config):
        slow = [item for item in items if "slow" in item.keywords]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if "slow" not in item.keywords]
            config.stash[_SLOW_LEFT_OUT] = len(slow)
    # gpu: a CUDA GPU for torch; faiss_gpu besides: faiss built with GPU support (a GPU machine may have one only)
    skip_gpu = pytest.mark.skip(reason="needs a CUDA GPU")
    skip_faiss_gpu = pytest.mark.skip(reason="needs faiss with GPU support")
    for item in items:
        if "gpu" in item.keywords and not _has_cuda():
            item.add_marker(skip_gpu)
        elif "faiss_gpu" in item.keywords and not _has_faiss_gpu():
            item.add_marker(skip_faiss_gpu)


def _has_cuda() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:
        return False


def _has_faiss_gpu() -> bool:
    try:
        import faiss

        return hasattr(faiss, "StandardGpuResources") and faiss.get_num_gpus() > 0
    except Exception:
        return False


_SLOW_LEFT_OUT = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    left_out = config.stash.get(_SLOW_LEFT_OUT, 0)
    if left_out:
        terminalreporter.write_line(f"default tier: {left_out} tests marked slow were deselected; "
                                    f"`{FULL_TIER}` runs them too")
    elif _default_tier(config) and getattr(config.option, "numprocesses", None):  # xdist: the workers collect
        terminalreporter.write_line(f"default tier: the tests marked slow were deselected; `{FULL_TIER}` runs them too")


@pytest.fixture
def store(tmp_path, monkeypatch):
    """An empty ``mem://`` store (tests/fakes/store.py, which registers the scheme with Beam); the local
    mirror of remote bases in tmp_path/cache (empty: as on a fresh machine)."""
    from fakes import store as fake_store

    fake_store.reset()
    monkeypatch.setenv("QABASE_CACHE_DIR", str(tmp_path / "cache"))
    yield fake_store
    fake_store.reset()


@pytest.fixture(scope="session")
def shared_fake_base(tmp_path_factory):
    """(base folder, BuildResult): tests/fixtures/tiny.jsonl built once per test run with the fake models
    (tests/fakes/models.py) and FAST_BUILD, gated and reported like any build. Shared by every test that asks
    for it: read it, never change it: a test that changes a base changes its own copy
    (``shutil.copytree(base, tmp_path / "base", symlinks=True)``)."""
    from fakes.models import FakeModels
    from models.config_check import load_config
    from pipelines.build import run_build

    base = tmp_path_factory.mktemp("fake-base") / "base"
    res = run_build([str(FIXTURES / "tiny.jsonl")], base, load_config(None, FAST_BUILD), factory=FakeModels())
    assert res.manifest["counts"]["published"] > 0
    return base, res


@pytest.fixture
def tmp_base(tmp_path) -> Path:
    base = tmp_path / "base"
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    """A tiny randomly initialised BERT encoder saved as a local Hugging Face directory."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    path = tmp_path_factory.mktemp("tiny-bert")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "how", "do", "i", "reset", "my", "password", "?", "hello"]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tok = BertTokenizerFast(vocab_file=str(path / "vocab.txt"))
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64)
    torch.manual_seed(0)
    BertModel(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory, tiny_bert) -> Path:
    """A tiny randomly initialised LLaMA causal LM (sharing the tiny WordPiece tokenizer)."""
    import torch
    from transformers import BertTokenizerFast, LlamaConfig, LlamaForCausalLM

    path = tmp_path_factory.mktemp("tiny-llama")
    tok = BertTokenizerFast.from_pretrained(str(tiny_bert))
    cfg = LlamaConfig(vocab_size=tok.vocab_size, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
                      pad_token_id=tok.pad_token_id)
    torch.manual_seed(0)
    LlamaForCausalLM(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def tiny_bart(tmp_path_factory, tiny_bert) -> Path:
    """A tiny randomly initialised BART seq2seq model (sharing the tiny WordPiece tokenizer)."""
    import torch
    from transformers import BartConfig, BartForConditionalGeneration, BertTokenizerFast

    path = tmp_path_factory.mktemp("tiny-bart")
    tok = BertTokenizerFast.from_pretrained(str(tiny_bert))
    cfg = BartConfig(vocab_size=tok.vocab_size, d_model=16, encoder_layers=1, decoder_layers=1,
                     encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
                     max_position_embeddings=64, pad_token_id=tok.pad_token_id, bos_token_id=tok.cls_token_id,
                     eos_token_id=tok.sep_token_id, decoder_start_token_id=tok.cls_token_id,
                     forced_eos_token_id=tok.sep_token_id)
    torch.manual_seed(0)
    BartForConditionalGeneration(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def tiny_bert_classifier(tmp_path_factory, tiny_bert) -> Path:
    """A tiny randomly initialised BERT sequence classifier with labels clear / oos."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    path = tmp_path_factory.mktemp("tiny-bert-classifier")
    tok = BertTokenizerFast.from_pretrained(str(tiny_bert))
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, num_labels=2,
                     id2label={0: "clear", 1: "oos"}, label2id={"clear": 0, "oos": 1})
    torch.manual_seed(0)
    BertForSequenceClassification(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


# --- the browser the page tests share (tests/pipelines/release): Debian's chromium driven by Playwright (never a
# downloaded one), one per test module; a test that asks for it skips, saying why, where chromium is not installed
CHROMIUM = os.environ.get("QABASE_CHROMIUM") or next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
NO_CHROMIUM = "chromium is not installed (Debian: apt-get install chromium fonts-noto-cjk; .ci/setup installs both)"


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip(NO_CHROMIUM)
    from playwright.sync_api import sync_playwright  # the dev extra; drives the system chromium

    # the page's Content-Security-Policy forbids eval: wait with locator assertions (expect), not wait_for_function
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"] if os.geteuid() == 0 else [])
        yield b
        b.close()
