"""Which Beam runner a build uses, and its options: imported by the CLI and the build, never imports dask.

``--runner=DaskRunner`` (or Beam's class path for it) selects :class:`pipelines.dask_runner.DaskRunner`,
Beam's Dask runner with the gaps that stop this build fixed (see that module); every other runner is
Beam's own, as named. A runner's own options (``--dask_client_address``, ``--flink_master``, ...) are
registered by Beam only when its module is imported: :func:`load_runner_options` imports it, so the CLI's
check of unknown options knows them.
"""

from __future__ import annotations

import importlib

from schemas.errors import QabaseError

BEAM_DASK_NAMES = ("DaskRunner", "apache_beam.runners.dask.dask_runner.DaskRunner")
QABASE_DASK = "pipelines.dask_runner.DaskRunner"
DASK_EXTRA = "pip install 'qabase[dask]' (dask and distributed)"


def runner_name(args: list[str]) -> str | None:
    """The value of ``--runner`` in Beam arguments (``--runner=X`` or ``--runner X``), or None."""
    for i, a in enumerate(args):
        if a.startswith("--runner="):
            return a.split("=", 1)[1]
        if a == "--runner" and i + 1 < len(args):
            return args[i + 1]
    return None


def runner_args(args: list[str]) -> list[str]:
    """Beam arguments with a Dask runner pointed at qabase's (anything else as given)."""
    out = list(args)
    for i, a in enumerate(out):
        if a.startswith("--runner=") and a.split("=", 1)[1] in BEAM_DASK_NAMES:
            out[i] = f"--runner={QABASE_DASK}"
        elif a == "--runner" and i + 1 < len(out) and out[i + 1] in BEAM_DASK_NAMES:
            out[i + 1] = QABASE_DASK
    return out


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
