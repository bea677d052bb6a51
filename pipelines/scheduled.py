"""What the scheduled (Airflow) tasks run: small JSON-in, JSON-out steps over pipelines.build.

The DAG in ``airflow_dags/qabase_daily.py`` only passes paths, a logical date and params
to these functions; a whole day can also be run by hand (``qabase daily``: pipelines.commands.daily).

find_logs -> stage (Beam pipeline, incremental on the latest state) -> gate -> publish -> report
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

from schemas.errors import QabaseError
from schemas.layout import BaseLayout


def render_template(template: str, logical_date: str) -> str:
    """Fill a path template from a logical date (ISO): {ds} 2026-11-01, {ds_nodash} 20261101,
    {yyyy} {mm} {dd}. A template with none of them is used as it is."""
    day = dt.date.fromisoformat(logical_date[:10])
    fields = {"ds": day.isoformat(), "ds_nodash": day.strftime("%Y%m%d"), "yyyy": f"{day.year:04d}",
              "mm": f"{day.month:02d}", "dd": f"{day.day:02d}"}
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError) as exc:
        raise QabaseError(f"input template {template!r}: unknown or malformed field ({exc}); "
                          "use {ds}, {ds_nodash}, {yyyy}, {mm}, {dd}") from None


def run_date(logical_date: dt.datetime | None, run_after: dt.datetime | None) -> str:
    """The day a run builds (ISO): its logical date; a manual run in Airflow 3 may have none, and then
    builds the day it was triggered for (``run_after``)."""
    when = logical_date or run_after
    if when is None:
        raise QabaseError("this run has neither a logical date nor a run_after time: give a logical date")
    return when.isoformat()


def published_asset_uri(base_dir: str) -> str:
    """The URI of the asset a publish updates: the base's ``latest`` (a local folder) or ``LATEST`` object
    (a store). From the run's own ``base_dir``, so a run into another base updates that base's asset."""
    from schemas.layout import LATEST, LATEST_FILE, as_url, is_remote

    url = as_url(base_dir)
    if is_remote(url):
        return f"{url.rstrip('/')}/{LATEST_FILE}"
    return f"file://{Path(base_dir).resolve()}/{LATEST}"


def find_logs(template: str, logical_date: str) -> list[str]:
    """The day's log files (sorted); [] when the day has none."""
    from pipelines.stages.read import expand_inputs
    from schemas.errors import InputError

    try:
        return [f["path"] for f in expand_inputs([render_template(template, logical_date)])]
    except InputError:
        return []


def _config(config_path: str | None, overrides: dict | None):
    from models.config_check import load_config

    return load_config(config_path or None, {k: v for k, v in (overrides or {}).items() if v is not None})


def stage(inputs: list[str], base_dir: str, config_path: str | None = None, overrides: dict | None = None,
          full_rebuild: bool = False, run_id: str | None = None) -> dict:
    """Build a version into staging (or find there is nothing new). Returns {version, unchanged, counts}."""
    from pipelines.build import stage_version

    res = stage_version(inputs, base_dir, _config(config_path, overrides), full_rebuild=full_rebuild)
    return {"version": res.version, "unchanged": res.unchanged, "run_id": run_id,
            "increment": res.manifest.get("increment"), "published_questions": res.manifest["counts"]["published"]}


def gate(base_dir: str, version: str) -> dict:
    from pipelines.build import gate_version

    quality = gate_version(base_dir, version)["quality"]
    return {"version": version, "expectations": len(quality["results"]), "warnings": len(quality["warnings"])}


def publish(base_dir: str, version: str) -> str:
    """Where the published version is: its folder, or its prefix in the store (``base_dir`` a URL)."""
    from pipelines.build import publish_version

    final = publish_version(base_dir, version)
    layout = BaseLayout(base_dir)
    return layout.version_url(version) if layout.remote else str(final)


def report(base_dir: str, version: str) -> str:
    from pipelines.build import report_version

    return report_version(base_dir, version)


def run_day(template: str, logical_date: str, base_dir: str, config_path: str | None = None,
            overrides: dict | None = None, full_rebuild: bool = False) -> dict:
    """All steps for one logical date, in one process (what the DAG does task by task)."""
    inputs = find_logs(template, logical_date)
    if not inputs:
        return {"logical_date": logical_date, "inputs": [], "published": None}
    staged = stage(inputs, base_dir, config_path, overrides, full_rebuild)
    if staged["unchanged"]:
        return {"logical_date": logical_date, "inputs": inputs, "published": None, "latest": staged["version"]}
    gate(base_dir, staged["version"])
    return {"logical_date": logical_date, "inputs": inputs, "published": publish(base_dir, staged["version"]),
            "report": report(base_dir, staged["version"])}


if __name__ == "__main__":  # the command moved to pipelines/commands/daily.py; this module only does the work
    sys.exit(print("error: run `qabase daily` (python -m pipelines.cli daily ...)", file=sys.stderr) or 2)
