"""qabase daily build: the day's chatbot logs folded into the QA base, gated, published, reported.

Thin on purpose: every task calls one function of ``pipelines.scheduled`` with paths, the
logical date and params. Nothing heavy is imported when Airflow parses this file.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta

from airflow.sdk import Asset, AssetAlias, Param, dag, get_current_context, task

BASE_DIR = os.environ.get("QABASE_BASE_DIR", "/var/lib/qabase/base")
INPUT_TEMPLATE = os.environ.get("QABASE_INPUT_TEMPLATE", "/var/lib/qabase/logs/{ds}/*")
# the published base: an alias, resolved at run time to the asset of the run's own base_dir (a run with another
# base_dir param updates that base's asset, not the default one's)
QA_BASE = AssetAlias("qabase_latest")

DOC = """
### qabase daily build

For the logical date *D*: **find_logs** lists the files matching `input_template` with `{ds}`
(and `{ds_nodash}`, `{yyyy}`, `{mm}`, `{dd}`) filled from *D*; **stage** runs the Beam pipeline
in this task (DirectRunner), counting only files not counted before (by sha256) on top of the
state of the latest version, and re-scoring / re-embedding / re-aggregating only what changed;
**quality_gate** runs the great-expectations suites (a critical failure fails the run and
`latest` stays on the previous version; the report lands in `BASE_DIR/failed/<version>/`);
**publish** swaps `latest` and updates the asset of the run's base (`file://BASE_DIR/latest`,
through the `qabase_latest` alias, so a run with another `base_dir` updates that base's); **report** writes the
version's `report.html` and `report.json`.

Re-running a date counts nothing twice: its files are already in the state, so the run ends
with *nothing new* and publishes nothing. `full_rebuild` recounts the given files alone.
Defaults come from the environment: `QABASE_BASE_DIR`, `QABASE_INPUT_TEMPLATE`.
"""


@dag(
    dag_id="qabase_daily",
    schedule="@daily",
    start_date=datetime(2026, 1, 1),
    catchup=False,
    max_active_runs=1,
    tags=["qabase", "qa-base", "beam"],
    doc_md=DOC,
    default_args={"retries": 2, "retry_delay": timedelta(minutes=5), "owner": "data-platform"},
    params={
        "input_template": Param(INPUT_TEMPLATE, type="string", description="log files of one day: a path or "
                                "glob with {ds}, {ds_nodash}, {yyyy}, {mm}, {dd}"),
        "base_dir": Param(BASE_DIR, type="string", description="the QA base directory (versions/, latest)"),
        "config": Param(None, type=["null", "string"], description="a YAML config file; the params below win"),
        "top_k": Param(None, type=["null", "integer"], minimum=1, description="keep the K most frequent questions"),
        "gec_threshold": Param(None, type=["null", "number"], minimum=0, maximum=1),
        "intent_threshold": Param(None, type=["null", "number"], minimum=0, maximum=1),
        "full_rebuild": Param(False, type="boolean", description="ignore the saved state"),
    },
)
def qabase_daily():
    @task
    def find_logs() -> list[str]:
        from pipelines.scheduled import find_logs as find

        ctx = get_current_context()
        from pipelines.scheduled import run_date

        # a manual run in Airflow 3 can have no logical date: it builds the day it was triggered for
        day = run_date(ctx.get("logical_date"), getattr(ctx.get("dag_run"), "run_after", None))
        files = find(ctx["params"]["input_template"], day)
        if not files:
            from airflow.sdk.exceptions import AirflowSkipException

            raise AirflowSkipException("no log files for this date")
        return files

    @task
    def stage(inputs: list[str]) -> dict:
        from pipelines.scheduled import stage as run_stage

        ctx = get_current_context()
        p = ctx["params"]
        overrides = {"filter.top_k": p["top_k"], "filter.gec_threshold": p["gec_threshold"],
                     "filter.intent_threshold": p["intent_threshold"]}
        return run_stage(inputs, p["base_dir"], p["config"], overrides, p["full_rebuild"], ctx["run_id"])

    @task
    def quality_gate(staged: dict) -> dict:
        if staged["unchanged"]:
            from airflow.sdk.exceptions import AirflowSkipException

            raise AirflowSkipException(f"nothing new: {staged['version']} stays latest")
        from pipelines.scheduled import gate
        from schemas.errors import PublishError

        try:
            return gate(get_current_context()["params"]["base_dir"], staged["version"])
        except PublishError as exc:  # the data failed its expectations: a retry cannot help
            from airflow.sdk.exceptions import AirflowFailException

            raise AirflowFailException(str(exc)) from None

    @task(outlets=[QA_BASE])
    def publish(gated: dict) -> str:
        from pipelines.scheduled import publish as run_publish
        from pipelines.scheduled import published_asset_uri

        ctx = get_current_context()
        base_dir = ctx["params"]["base_dir"]
        published = run_publish(base_dir, gated["version"])
        uri = published_asset_uri(base_dir)
        ctx["outlet_events"][QA_BASE].add(Asset(uri=uri, name=f"qabase:{uri}"), extra={"version": gated["version"]})
        return published

    @task
    def report(gated: dict, published: str) -> str:
        from pipelines.scheduled import report as write

        return write(get_current_context()["params"]["base_dir"], gated["version"])

    gated = quality_gate(stage(find_logs()))
    report(gated, publish(gated))


qabase_daily()
