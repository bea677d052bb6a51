"""models.tools.paths: where the training tools find the public data and the labelled sets, from a checkout
or from an installed wheel (no checkout: the current directory and the variables only)."""

import pytest

from models.tools import paths
from pipelines.cli import main as qabase


@pytest.fixture
def nowhere(tmp_path, monkeypatch):
    """No variable, no checkout, and a current directory holding nothing: an installed wheel run elsewhere."""
    monkeypatch.delenv(paths.DATA_ENV, raising=False)
    monkeypatch.delenv(paths.SETS_ENV, raising=False)
    monkeypatch.setattr(paths, "checkout", lambda: None)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return tmp_path


def _dir(path):
    path.mkdir(parents=True)
    return path


def test_the_checkout_is_found_from_the_source_tree():
    root = paths.checkout()
    assert root is not None and (root / "benchmarks" / "nonanswer_dev.tsv").is_file()


def test_data_folder_flag_then_variable_then_current_directory_then_checkout(nowhere, monkeypatch):
    checkout = _dir(nowhere / "deep" / "repo")
    monkeypatch.setattr(paths, "checkout", lambda: checkout)
    assert paths.find_data() is None
    beside_checkout = _dir(nowhere / "deep" / "shared" / "data")
    assert paths.data_dir() == beside_checkout
    above = _dir(nowhere / "shared" / "data")  # ../shared/data seen from work/
    assert paths.data_dir() == above
    here = _dir(nowhere / "work" / "shared" / "data")
    assert paths.data_dir() == here
    env = _dir(nowhere / "env")
    monkeypatch.setenv(paths.DATA_ENV, str(env))
    assert paths.data_dir() == env
    assert paths.data_dir(nowhere / "flag") == nowhere / "flag"  # a flag is taken as given, even missing


def test_sets_folder_flag_then_variable_then_checkout_then_current_directory(nowhere, monkeypatch):
    here = _dir(nowhere / "work" / "benchmarks")
    assert paths.sets_dir() == here
    checkout = _dir(nowhere / "repo")
    _dir(checkout / "benchmarks")
    monkeypatch.setattr(paths, "checkout", lambda: checkout)
    assert paths.sets_dir() == checkout / "benchmarks"
    env = _dir(nowhere / "env")
    monkeypatch.setenv(paths.SETS_ENV, str(env))
    assert paths.sets_dir() == env
    assert paths.sets_dir(nowhere / "flag") == nowhere / "flag"


def test_nothing_found_names_the_flag_and_the_variable(nowhere):
    with pytest.raises(paths.FolderNotFound, match=f"--data DIR or set {paths.DATA_ENV}"):
        paths.data_dir()
    with pytest.raises(paths.FolderNotFound, match=f"--sets DIR or set {paths.SETS_ENV}"):
        paths.sets_dir()
    assert paths.find_data() is None and paths.find_sets() is None


@pytest.mark.parametrize("command, named", [
    (["train-nonanswer"], "--sets"), (["train-timesensitive"], "--sets"), (["train-chitchat"], "--data"),
    (["train-paraphrase", "--languages", "en"], "--sets"), (["train-paraphrase"], "--data"),
    (["eval-sets", "mucgec", "--out", "x.jsonl"], "--data")])
def test_a_tool_without_its_folders_fails_with_one_error_line(nowhere, capsys, command, named):
    assert qabase(command) == 2
    out, err = capsys.readouterr()
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    env = paths.SETS_ENV if named == "--sets" else paths.DATA_ENV
    assert f"{named} DIR" in err and env in err


def test_a_variable_reaches_the_tool(nowhere, monkeypatch, capsys):
    sets = _dir(nowhere / "sets")
    monkeypatch.setenv(paths.SETS_ENV, str(sets))
    assert qabase(["train-nonanswer"]) == 2  # the folder is used: its missing file is named
    assert capsys.readouterr().err == f"error: input: no such file: {sets / 'nonanswer_dev.tsv'}\n"


def test_the_zh_gec_trainer_names_the_data_flag(nowhere, capsys):
    from models.tools.train_zh_gec import main

    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no public data folder") and err.count("\n") == 1
