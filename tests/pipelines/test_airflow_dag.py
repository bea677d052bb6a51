"""The daily DAG: it parses without heavy imports, and a whole run works under dag.test() with SQLite.

Airflow runs in a subprocess with its own AIRFLOW_HOME (a fresh SQLite metadata database), so its
logging and settings never leak into the other tests. Skipped when the airflow extra is not installed.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("airflow.sdk", reason="the airflow extra is not installed (pip install -e .[airflow])")

ROOT = Path(__file__).resolve().parents[2]
DAGS = ROOT / "airflow_dags"


def _airflow(tmp_path: Path, code: str, timeout: int = 900):
    env = dict(os.environ, AIRFLOW_HOME=str(tmp_path / "airflow"), AIRFLOW__CORE__LOAD_EXAMPLES="False",
               AIRFLOW__CORE__DAGS_FOLDER=str(DAGS), PYTHONPATH=str(ROOT), AIRFLOW__LOGGING__LOGGING_LEVEL="WARNING")
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code), encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=timeout)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    assert proc.returncode == 0 and last.startswith(("{", "[")), f"rc={proc.returncode}\n{proc.stdout[-3000:]}\n" \
                                                          f"{proc.stderr[-3000:]}"
    return json.loads(last)


def test_dag_folder_loads_with_schedule_retries_and_tags(tmp_path):
    out = _airflow(tmp_path, """
        import json, sys
        from airflow.dag_processing.dagbag import DagBag
        bag = DagBag(dag_folder=r"%s")
        dag = bag.dags["qabase_daily"]
        heavy = sorted(m for m in ("apache_beam", "torch", "pipelines", "models", "faiss") if m in sys.modules)
        print(json.dumps({"errors": {k: str(v) for k, v in bag.import_errors.items()}, "dags": sorted(bag.dags),
                          "schedule": str(dag.schedule), "catchup": dag.catchup,
                          "max_active_runs": dag.max_active_runs, "tags": sorted(dag.tags),
                          "retries": {t.task_id: t.retries for t in dag.tasks}, "params": sorted(dag.params),
                          "outlets": [str(o.name) for t in dag.tasks for o in t.outlets],
                          "doc": bool(dag.doc_md), "heavy_imports": heavy,
                          "order": [t.task_id for t in dag.topological_sort()]}))
    """ % DAGS)
    assert out["errors"] == {} and out["dags"] == ["qabase_daily"]
    assert out["schedule"] == "@daily" and out["catchup"] is False and out["max_active_runs"] == 1
    assert {"qabase", "beam"} <= set(out["tags"])
    assert set(out["retries"].values()) == {2}
    assert out["order"] == ["find_logs", "stage", "quality_gate", "publish", "report"]
    assert out["outlets"] == ["qabase_latest"] and out["doc"]
    assert {"input_template", "base_dir", "top_k", "gec_threshold", "intent_threshold", "full_rebuild"} <= \
        set(out["params"])
    assert out["heavy_imports"] == []  # parsing the DAG file imports neither Beam, torch nor the pipeline


@pytest.mark.slow
def test_whole_dag_runs_daily_increments_with_dag_test(tmp_path):
    """Two logical dates, then the second again: two versions published, the re-run publishes nothing."""
    demo = ROOT / "tests" / "fixtures" / "tiny.jsonl"
    rows = demo.read_text(encoding="utf-8").splitlines()
    for day, chunk in (("2026-11-01", rows[: len(rows) // 2]), ("2026-11-02", rows[len(rows) // 2:])):
        (tmp_path / "logs" / day).mkdir(parents=True)
        (tmp_path / "logs" / day / "chat.jsonl").write_text("\n".join(chunk) + "\n", encoding="utf-8")
    base = tmp_path / "base"
    out = _airflow(tmp_path, """
        import datetime as dt, json, os, subprocess, sys
        subprocess.run([os.path.join(os.path.dirname(sys.executable), "airflow"), "db", "migrate"], check=True,
                       capture_output=True)
        from airflow.dag_processing.dagbag import DagBag
        dag = DagBag(dag_folder=r"%s").dags["qabase_daily"]
        conf = {"input_template": r"%s/logs/{ds}/*.jsonl", "base_dir": r"%s", "top_k": 100}
        runs = []
        for day in (1, 2, 2):
            run = dag.test(logical_date=dt.datetime(2026, 11, day, tzinfo=dt.timezone.utc), run_conf=conf)
            runs.append({"state": str(run.state),
                         "tasks": {ti.task_id: str(ti.state) for ti in run.get_task_instances()}})
        print(json.dumps(runs))
    """ % (DAGS, tmp_path, base))
    assert [r["state"] for r in out] == ["success"] * 3
    assert all(state == "success" for r in out[:2] for state in r["tasks"].values())
    assert out[2]["tasks"]["stage"] == "success" and out[2]["tasks"]["quality_gate"] == "skipped"
    assert out[2]["tasks"]["publish"] == "skipped"
    versions = sorted(p.name for p in (base / "versions").iterdir())
    assert len(versions) == 2 and (base / "latest").resolve().name == versions[-1]
    manifest = json.loads((base / "latest" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["increment"]["mode"] == "incremental" and manifest["counts"]["rows_read"] == len(rows)
    assert (base / "latest" / "report.html").is_file()


def test_run_date_falls_back_to_run_after_and_the_asset_follows_the_run_s_base(tmp_path):
    import datetime as dt

    from pipelines.scheduled import published_asset_uri, run_date
    from schemas.errors import QabaseError

    day = dt.datetime(2026, 11, 2, tzinfo=dt.timezone.utc)
    assert run_date(day, None) == run_date(None, day) == day.isoformat()
    with pytest.raises(QabaseError, match="neither a logical date nor a run_after"):
        run_date(None, None)
    assert published_asset_uri(str(tmp_path / "b")) == f"file://{tmp_path / 'b'}/latest"
    assert published_asset_uri("gs://bucket/base/") == "gs://bucket/base/LATEST"


@pytest.mark.slow
def test_a_manual_run_without_logical_date_into_another_base_updates_that_base_s_asset(tmp_path):
    """Airflow 3 manual runs may have no logical date; the asset event names the run's own base_dir."""
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "chat.jsonl").write_bytes((ROOT / "tests" / "fixtures" / "tiny.jsonl").read_bytes())
    other = tmp_path / "other-base"
    out = _airflow(tmp_path, """
        import json, os, subprocess, sys
        subprocess.run([os.path.join(os.path.dirname(sys.executable), "airflow"), "db", "migrate"], check=True,
                       capture_output=True)
        from airflow.dag_processing.dagbag import DagBag
        from airflow.models.asset import AssetEvent
        from airflow.utils.session import create_session
        dag = DagBag(dag_folder=r"%s").dags["qabase_daily"]
        conf = {"input_template": r"%s/logs/*.jsonl", "base_dir": r"%s", "top_k": 100}
        run = dag.test(logical_date=None, run_conf=conf)
        with create_session() as session:
            events = [(e.asset.uri, e.extra.get("version")) for e in session.query(AssetEvent).all()]
        print(json.dumps({"state": str(run.state), "logical_date": str(run.logical_date),
                          "tasks": {ti.task_id: str(ti.state) for ti in run.get_task_instances()},
                          "events": events}))
    """ % (DAGS, tmp_path, other))
    assert out["state"] == "success" and out["logical_date"] == "None", out
    assert set(out["tasks"].values()) == {"success"}
    version = (other / "latest").resolve().name
    assert out["events"] == [[f"file://{other}/latest", version]]
