"""Issue 32, the command line given hostile input: a bad config, option or path is one ``error:`` line (no
traceback, no screen of usage, no 351 MB line), a version is a name inside the base, and a failure says truly
what was published. Each test fails on the code before the fix (what it did then is said at each)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines import build_base
from pipelines.exits import MAX_ERROR_CHARS, run_reporting
from pipelines.release.build_lock import hold_build_lock
from pipelines.commands.report import main as report_main
from schemas.config import MAX_CONFIG_BYTES, load_config
from schemas.errors import ConfigError, QabaseError
from schemas.layout import BaseLayout, check_version_id

ROOT = Path(__file__).resolve().parents[2]


def _error_lines(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("error:")]


def _build(argv, capsys) -> tuple[int, list[str], str]:
    code = build_base.main(argv)
    err = capsys.readouterr().err
    return code, _error_lines(err), err


def _laughs(levels: int) -> str:
    """Nested YAML aliases in filter.top_k: 9**levels strings from a few hundred bytes."""
    doc = "x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for i in range(1, levels + 1):
        doc += f"x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * 9) + "]\n"
    return "filter:\n  top_k: {" + doc.replace("\n", ", ").rstrip(", ") + "}\n"


# --- 3. a config or an option that is not what it should be ----------------------------------------------------

def test_a_config_that_is_not_utf8_is_one_config_error(tmp_path, capsys):
    # before: exit 1, "build failed (UnicodeDecodeError: ...)" as if qabase had a bug
    path = tmp_path / "latin1.yaml"
    path.write_bytes("# réglages\nfilter:\n  top_k: 5\n".encode("latin-1"))
    code, lines, err = _build(["--config", str(path), "--print-config"], capsys)
    assert code == 2 and lines == [f"error: config: {path} is not UTF-8 text: byte 0xe9 at line 1 (save it as UTF-8)"]


@pytest.mark.parametrize("path,what", [("/dev/null", "a character device"), ("/dev/zero", "a character device")])
def test_a_config_that_is_a_device_says_what_it_is(path, what, capsys):
    # before: "file not found: /dev/null" (it exists)
    code, lines, _ = _build(["--config", path, "--print-config"], capsys)
    assert code == 2 and lines == [f"error: config: {path} is {what}, not a YAML file"]


def test_a_config_that_is_a_folder_or_a_fifo_says_what_it_is(tmp_path, capsys):
    os.mkfifo(tmp_path / "fifo.yaml")
    assert _build(["--config", str(tmp_path), "--print-config"], capsys)[1] == [
        f"error: config: {tmp_path} is a folder, not a YAML file"]
    assert _build(["--config", str(tmp_path / "fifo.yaml"), "--print-config"], capsys)[1] == [
        f"error: config: {tmp_path / 'fifo.yaml'} is a FIFO (named pipe), not a YAML file"]


def test_yaml_aliases_are_refused(tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text(_laughs(3))  # 729 strings: small enough to have been built before the fix
    with pytest.raises(ConfigError, match=r"uses a YAML alias \(\*x0\) at line 2: aliases are not allowed"):
        load_config(path)


def test_the_billion_laughs_config_is_one_short_line_at_once(tmp_path):
    # before: a 351 MB error line (repr of 9**8 strings) and 1.2 GB of memory
    path = tmp_path / "laughs.yaml"
    path.write_text(_laughs(8))
    assert len(path.read_bytes()) < 600
    done = subprocess.run([sys.executable, "-m", "pipelines.cli", "build", "--config", str(path), "--print-config"],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2 and len(done.stderr) < 1000
    assert _error_lines(done.stderr) == [f"error: config: {path} uses a YAML alias (*x0) at line 2: aliases are "
                                         f"not allowed in a config (write the value out)"]


def test_a_config_value_is_quoted_short_in_its_error(tmp_path):
    path = tmp_path / "long.yaml"
    path.write_text("filter:\n  top_k: [" + ", ".join(["lol"] * 50_000) + "]\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert len(str(caught.value)) < 300 and "characters)" in str(caught.value)


def test_an_oversized_or_unreadable_value_config_is_one_error(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * MAX_CONFIG_BYTES + "\n")
    with pytest.raises(ConfigError, match="a config file is at most"):
        load_config(big)
    digits = tmp_path / "digits.yaml"  # before: a ValueError traceback from YAML's int constructor
    digits.write_text("filter:\n  top_k: " + "9" * 5000 + "\n")
    with pytest.raises(ConfigError, match="holds a value that cannot be read"):
        load_config(digits)


@pytest.mark.parametrize("option,expected", [
    ("--direct_num_workers=abc", "error: usage: argument --direct_num_workers: invalid int value: 'abc'"),
    ("--direct_running_mode=fast", "error: usage: argument --direct_running_mode: invalid choice: 'fast' (choose "
                                   "from 'in_memory', 'multi_threading', 'multi_processing')")])
def test_a_bad_beam_option_value_is_one_line(option, expected, capsys):
    # before: Beam's whole usage (137 lines) and argparse's exit
    code, lines, err = _build(["--print-config", option], capsys)
    assert code == 2 and lines == [expected] and len(err.splitlines()) == 1


def test_an_error_line_is_bounded():
    def fail():
        raise QabaseError("input: " + "x" * 10 * MAX_ERROR_CHARS)

    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert run_reporting(fail) == 2
    assert len(err.getvalue()) < MAX_ERROR_CHARS + 100 and "characters)" in err.getvalue()


# --- 4. a version is a name inside the base ---------------------------------------------------------------------

@pytest.mark.parametrize("version", ["../../x", "a/b", "..", ".staging-x", "", "x" * 101, "v\x00"])
def test_what_is_not_a_version_id(version):
    with pytest.raises(QabaseError, match="is not a version id"):
        check_version_id(version)


def test_a_version_id_is_checked_before_any_work(tmp_path, capsys):
    # before: the build ran (54 s on the probe's logs), then failed writing ../../x and left its staging
    logs = tmp_path / "logs.jsonl"
    logs.write_text(json.dumps({"question": "How do I log in?", "answer": "Click login."}) + "\n")
    code, lines, _ = _build(["--input", str(logs), "--output", str(tmp_path / "base"), "--version-id", "../../x"],
                            capsys)
    assert code == 2 and len(lines) == 1 and "--version-id '../../x' is not a version id" in lines[0]
    assert not (tmp_path / "base").exists() and not (tmp_path / "x").exists()


def _two_bases(shared_fake_base, tmp_path) -> tuple[Path, Path, str]:
    base, res = shared_fake_base
    mine, other = tmp_path / "mine", tmp_path / "other"
    shutil.copytree(base, mine, symlinks=True)
    shutil.copytree(base, other, symlinks=True)
    return mine, other, res.version


def test_report_version_is_confined_to_the_base(shared_fake_base, tmp_path, capsys):
    # before: --version ../../other/versions/V rewrote the other base's report
    mine, other, version = _two_bases(shared_fake_base, tmp_path)
    report = other / "versions" / version / "report.json"
    before = report.stat().st_mtime_ns
    code = report_main(["--base", str(mine), "--version", f"../../other/versions/{version}"])
    assert code == 2 and "is not a version id" in capsys.readouterr().err
    assert report.stat().st_mtime_ns == before


def test_report_takes_the_build_lock(shared_fake_base, tmp_path, capsys):
    # before: it wrote into the version while a build held the base
    mine, _, version = _two_bases(shared_fake_base, tmp_path)
    report = mine / "versions" / version / "report.json"
    before = report.stat().st_mtime_ns
    import threading

    held, release = threading.Event(), threading.Event()

    def holder():
        with hold_build_lock(BaseLayout(mine), "20990101T000000000Z"):
            held.set()
            release.wait(30)

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert held.wait(30)
        assert report_main(["--base", str(mine), "--version", version]) == 4
        assert "error: " in capsys.readouterr().err and report.stat().st_mtime_ns == before
    finally:
        release.set()
        thread.join(30)
    assert report_main(["--base", str(mine)]) == 0 and report.stat().st_mtime_ns != before


# --- 5. an interrupt after the publish said the base was unchanged ----------------------------------------------

def test_an_interrupt_during_the_report_says_the_version_was_published(shared_fake_base, tmp_path, monkeypatch,
                                                                         capsys):
    # before: "error: interrupted; the published base is unchanged" while latest named the new version
    from fakes.models import FakeModels

    from pipelines import build

    mine, _, old = _two_bases(shared_fake_base, tmp_path)
    real = build.run_build
    monkeypatch.setattr(build, "run_build", lambda *a, **k: real(*a, **{**k, "factory": FakeModels()}))

    def interrupted_report(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(build, "report_version", interrupted_report)
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"question": "How tall is the Eiffel Tower?", "answer": "About 330 metres."}) + "\n")
    config = tmp_path / "fast.yaml"
    config.write_text("aggregation: {cache: false}\nmodels: {cache: false}\nquality: {data_docs: false}\n")
    code, lines, _ = _build(["--input", str(more), "--output", str(mine), "--config", str(config)], capsys)
    new = BaseLayout(mine).current_version()
    assert code == 130 and new != old
    assert lines == [f"error: interrupted; version {new} was published before it (latest names it); if its report "
                     f"is missing, `qabase report --base {mine}` writes it"]


def test_a_latest_pointer_naming_a_path_is_refused(shared_fake_base, tmp_path):
    # before: a LATEST file holding ../../other/versions/V was followed into the other base
    from schemas.errors import BaseIntegrityError
    from schemas.layout import resolve_version

    mine, other, version = _two_bases(shared_fake_base, tmp_path)
    (mine / "latest").unlink()
    (mine / "LATEST").write_text(f"../../other/versions/{version}\n")
    with pytest.raises(BaseIntegrityError, match="cannot name a version"):
        resolve_version(mine)
    (mine / "LATEST").write_text(f"{version}\n")
    assert resolve_version(mine) == mine / "versions" / version
