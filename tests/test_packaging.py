"""A plain (non-editable) install works: the wheel holds every data file the code reads, and the
installed ``qabase`` command builds the demo and queries it from outside the repository.

The fresh venv gets the project only from the wheel; its third-party dependencies come from this
test run's environment through a path file (installing torch & co. again would take minutes).
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("schemas", "models", "indexes", "pipelines")


def _data_files() -> set[str]:
    """Every non-Python file inside the packages (what the code reads at run time)."""
    out = set()
    for pkg in PACKAGES:
        for p in (ROOT / pkg).rglob("*"):
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts:
                out.add(p.relative_to(ROOT).as_posix())
    return out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(out),
                            str(src)], capture_output=True, text=True)
    wheels = list(out.glob("qabase-*.whl"))
    assert built.returncode == 0 and wheels, built.stdout[-2000:] + built.stderr[-2000:]
    return wheels[0]


@pytest.mark.slow  # packaging (pip wheel)
def test_the_wheel_ships_every_data_file_and_the_console_command(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(_data_files() - names)
    assert not missing, f"not in the wheel: {missing}"
    assert "models/aggregators/prompts/aggregate_v1.en.txt" in names
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "qabase = pipelines.cli:console" in zipfile.ZipFile(wheel).read(entry_points).decode()


@pytest.mark.slow
def test_installed_qabase_builds_and_queries_the_demo(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    vpy = venv / "bin" / "python"
    site = subprocess.run([str(vpy), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # torch, beam, ... from here
    subprocess.run([sys.executable, "-m", "pip", "--python", str(vpy), "install", "--no-deps", "-q", str(wheel)],
                   check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "QABASE_DATA", "QABASE_SETS")}
    run = lambda *args: subprocess.run([str(venv / "bin" / "qabase"), *args], cwd=tmp_path, env=env,  # noqa: E731
                                       capture_output=True, text=True, timeout=600)
    where = subprocess.run([str(vpy), "-c", "import pipelines; print(pipelines.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, check=True).stdout
    assert where.startswith(site), where  # the installed copy, not the repository
    # a training command from the wheel: its help works, and without its labelled sets it says where to put them
    assert run("train-nonanswer", "--help").returncode == 0
    untrained = run("train-nonanswer")
    assert untrained.returncode == 2 and untrained.stderr.startswith("error: ") and untrained.stderr.count("\n") == 1
    assert "--sets" in untrained.stderr and "QABASE_SETS" in untrained.stderr
    built = run("build", "--demo", "--output", "base", "-q")
    assert built.returncode == 0, built.stderr[-2000:]
    assert (tmp_path / "base" / "latest" / "qa.parquet").is_file()
    found = run("query", "--base", "base", "questions", "How do I reset my password?", "-k", "3")
    assert found.returncode == 0, found.stderr[-2000:]
    assert "password" in found.stdout.lower()
    manifest = json.loads((tmp_path / "base" / "latest" / "manifest.json").read_text())
    assert manifest["counts"]["published"] >= 45 and manifest["counts"]["merged_questions"] > 50  # paraphrases merged
