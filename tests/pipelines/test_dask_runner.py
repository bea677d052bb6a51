"""The build on Beam's Dask runner (qabase's fixes: pipelines/dask_runner.py) against a real 2-worker
dask.distributed LocalCluster gives the DirectRunner's base: same qa.parquet, questions.parquet and index."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.runners import QABASE_DASK, runner_args, runner_name

ROOT = Path(__file__).resolve().parents[2]
TABLES = ("qa.parquet", "questions.parquet", "rejected.parquet", "accepted_sample.parquet",
          "state/questions.parquet")


def test_dask_runner_names_select_qabase_s_runner_and_other_runners_pass_through():
    assert runner_args(["--runner=DaskRunner", "--dask_client_address=tcp://h:8786"]) == [
        f"--runner={QABASE_DASK}", "--dask_client_address=tcp://h:8786"]
    assert runner_args(["--runner", "apache_beam.runners.dask.dask_runner.DaskRunner"]) == ["--runner", QABASE_DASK]
    assert runner_args(["--runner=FlinkRunner", "--flink_master=h:8081"]) == ["--runner=FlinkRunner",
                                                                               "--flink_master=h:8081"]
    assert runner_name(["--x=1"]) is None and runner_name(["--runner", "SparkRunner"]) == "SparkRunner"


def test_the_cli_knows_the_dask_runner_s_options_and_refuses_a_runner_it_cannot_import(capsys):
    pytest.importorskip("distributed")
    from pipelines.build_base import check_beam_args, main

    check_beam_args(["--runner=DaskRunner", "--dask_client_address=tcp://127.0.0.1:8786", "--dask_npartitions=4"])
    assert main(["--demo", "--output", "unused", "--runner=no_such_module.Runner"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: usage: --runner no_such_module.Runner: cannot import no_such_module "
                   "(No module named 'no_such_module')"]


# the cluster and the Dask build run in a fresh interpreter, as a user's build does: a LocalCluster started inside
# a test process that has run other tests (their threads, Beam's gRPC) can hang for good (dask/distributed#3555)
_DASK_BUILD = """
import json, sys
import distributed
from pipelines.build_base import main

out, inputs = sys.argv[1], sys.argv[2:]
with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
    with distributed.Client(cluster.scheduler_address) as client, distributed.get_task_stream(client) as stream:
        code = main([*inputs, "--output", out, "-q", "--runner=DaskRunner",
                     f"--dask_client_address={cluster.scheduler_address}"])
    print(json.dumps({"code": code, "workers": sorted({t["worker"] for t in stream.data})}))
"""


def _run_in_its_own_session(args: list[str], timeout: float) -> subprocess.CompletedProcess:
    """Run ``args``; past ``timeout``, kill it and every process it started (the cluster's workers) and fail."""
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"the Dask build did not end within {timeout:.0f} s:\n{err[-4000:]}")
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


@pytest.mark.slow
def test_demo_on_a_two_worker_dask_cluster_equals_the_direct_runner(tmp_path):
    pytest.importorskip("distributed")
    from pipelines.build_base import main
    from pipelines.demo import write_demo_logs

    logs = [str(p) for p in write_demo_logs(tmp_path / "logs")]
    inputs = [a for p in logs for a in ("--input", p)]
    assert main([*inputs, "--output", str(tmp_path / "direct"), "-q", "--runner=DirectRunner"]) == 0
    done = _run_in_its_own_session([sys.executable, "-c", _DASK_BUILD, str(tmp_path / "dask"), *inputs], 420)
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["code"] == 0, done.stderr[-4000:]
    assert len(result["workers"]) == 2  # both worker processes ran tasks of the build
    direct, dask = tmp_path / "direct" / "latest", tmp_path / "dask" / "latest"
    for name in TABLES:
        a, b = pq.read_table(direct / name), pq.read_table(dask / name)
        assert a.num_rows > 0 or name == "rejected.parquet"
        assert a.equals(b), name
    indexes = sorted(p.name for p in direct.iterdir() if p.suffix in (".faiss", ".npy"))
    assert "index.faiss" in indexes
    for name in indexes:
        assert (direct / name).read_bytes() == (dask / name).read_bytes(), name
    manifest = json.loads((dask / "manifest.json").read_text())
    assert manifest["beam"]["runner"] == QABASE_DASK
    assert manifest["counts"]["published"] == json.loads((direct / "manifest.json").read_text())["counts"]["published"]
