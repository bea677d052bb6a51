"""No package forms an import circle with its own modules. A package's ``__init__`` that imports one of its modules
(at module level or inside a function, as a backend table's loaders do) runs before that module, and a module
that imports the package or any sibling (``from P.x import y`` runs ``P/__init__`` first) comes back to it: the
order of first imports then decides what exists. import-linter's contracts (pyproject.toml) see imports between
modules only, where ``from P.x import y`` is an import of ``P.x`` and not of ``P``: this scan counts the package
too, at every import of the file, so a kind's ``__init__`` holds its docstring and its tables live in a module."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("schemas", "models", "indexes", "pipelines", "airflow_dags")


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for top in PACKAGES:
        for path in (ROOT / top).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            is_package = path.name == "__init__.py"
            out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


def _imported(path: Path, name: str, is_package: bool) -> set[str]:
    """Every module name an import anywhere in the file names (``from P import x``: P and P.x)."""
    package = name if is_package else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def circles() -> list[tuple[str, str]]:
    """(package, own module) pairs where the package's ``__init__`` imports the module and the module imports the
    package or a module of it."""
    mods = _modules()
    found = []
    for name, (path, is_package) in sorted(mods.items()):
        if not is_package:
            continue
        for child in sorted(m for m in _imported(path, name, True) if m.startswith(name + ".") and m in mods):
            back = _imported(*mods[child][:1], child, mods[child][1])
            if any(m == name or m.startswith(name + ".") for m in back):
                found.append((name, child))
    return found


def test_no_package_forms_an_import_circle_with_its_own_modules():
    assert circles() == []


def test_the_scan_finds_a_circle(tmp_path, monkeypatch):
    pkg = tmp_path / "models" / "kind"
    pkg.mkdir(parents=True)
    (tmp_path / "models" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("def load():\n    from models.kind.impl import X\n    return X\n")
    (pkg / "impl.py").write_text("from models.kind.base import B\nX = B\n")
    (pkg / "base.py").write_text("B = 1\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    assert circles() == [("models.kind", "models.kind.impl")]
