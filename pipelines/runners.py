"""Which Beam runner a build uses, and its options: imported by the CLI and the build, never imports dask.

``--runner=DaskRunner`` (or Beam's class path for it) selects :class:`pipelines.dask_runner.DaskRunner`,
Beam's Dask runner with the gaps that stop this build fixed (see that module); ``--runner=LocalRunner``
selects :class:`pipelines.local_runner.LocalRunner` (the graph run in this process over lists); every other
runner is Beam's own, as named. Without ``--runner``, :func:`default_runner` picks by the size of the input.
A runner's own options (``--dask_client_address``, ``--flink_master``, ...) are registered by Beam only when its
module is imported: :func:`load_runner_options` imports it, so the CLI's check of unknown options knows them.
"""

from __future__ import annotations

import importlib

from schemas.errors import QabaseError

BEAM_DASK_NAMES = ("DaskRunner", "apache_beam.runners.dask.dask_runner.DaskRunner")
QABASE_DASK = "pipelines.dask_runner.DaskRunner"
LOCAL_NAMES = ("LocalRunner", "Local")
QABASE_LOCAL = "pipelines.local_runner.LocalRunner"
DASK_EXTRA = "pip install 'qabase[dask]' (dask and distributed)"


def runner_name(args: list[str]) -> str | None:
    """The value of ``--runner`` in Beam arguments (``--runner=X`` or ``--runner X``), or None."""
    for i, a in enumerate(args):
        if a.startswith("--runner="):
            return a.split("=", 1)[1]
        if a == "--runner" and i + 1 < len(args):
            return args[i + 1]
    return None


def _qabase_runner(name: str) -> str | None:
    """qabase's class path for a runner name it implements itself (None: Beam's own runner)."""
    if name in BEAM_DASK_NAMES:
        return QABASE_DASK
    if name.lower() in {n.lower() for n in LOCAL_NAMES}:
        return QABASE_LOCAL
    return None


def runner_args(args: list[str]) -> list[str]:
    """Beam arguments with the Dask and local runners pointed at qabase's classes (anything else as given)."""
    out = list(args)
    for i, a in enumerate(out):
        if a.startswith("--runner=") and (ours := _qabase_runner(a.split("=", 1)[1])):
            out[i] = f"--runner={ours}"
        elif a == "--runner" and i + 1 < len(out) and (ours := _qabase_runner(out[i + 1])):
            out[i + 1] = ours
    return out


def default_runner(input_bytes: int, local_max_mb: float, args: list[str] = ()) -> str:
    """The runner of a build whose arguments name none: in this process over lists for a small input (a day's
    increment: Beam's portable machinery was 11 s of a 43 s day at 1M rows), else Beam's DirectRunner, which streams
    elements through fused stages (config ``runner.local_max_mb``; 0: always the DirectRunner). Arguments
    that set the DirectRunner's own options (``--direct_num_workers``, ...) ask for it."""
    if any(a.startswith("--direct_") for a in args):
        return "DirectRunner"
    return QABASE_LOCAL if 0 < local_max_mb and input_bytes <= local_max_mb * 1024 * 1024 else "DirectRunner"


def load_runner_options(args: list[str]) -> None:
    """Import the module of the runner ``args`` name, so its options are known; QabaseError if it can't be."""
    name = runner_name(runner_args(args))
    if name is None or "." not in name:
        return  # Beam's own short names (DirectRunner, FlinkRunner, ...): their options are always known
    module = name.rsplit(".", 1)[0]
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        if name == QABASE_DASK or "dask" in str(exc).lower():
            raise QabaseError(f"usage: --runner {name}: the Dask runner needs {DASK_EXTRA} ({exc})") from None
        raise QabaseError(f"usage: --runner {name}: cannot import {module} ({exc})") from None
    if not hasattr(mod, name.rsplit(".", 1)[1]):
        raise QabaseError(f"usage: --runner {name}: {module} has no {name.rsplit('.', 1)[1]}")
