"""`pip install -e '.[bench]'` is enough for every bench script and target: every package a bench/ module
imports (at its top or inside a function) is the project's own, the standard library's, or a dependency of
the project or of its `bench` extra (pyproject.toml)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions

from conftest import ROOT

BENCH = ROOT / "bench"


def _imported(path: str) -> set[str]:
    tree = ast.parse((BENCH / path).read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].strip().lower().replace("_", "-") for r in requirements}


def test_every_package_a_bench_script_imports_comes_with_the_bench_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    allowed = _requirement_names(project["dependencies"]) | _requirement_names(
        project["optional-dependencies"]["bench"]
    )
    own = {"toadstool", "toadstool_clients"} | {p.stem for p in BENCH.glob("*.py")}
    distributions = packages_distributions()
    missing = []
    for script in sorted(p.name for p in BENCH.glob("*.py")):
        for module in sorted(_imported(script) - own - set(sys.stdlib_module_names)):
            provided = {d.lower().replace("_", "-") for d in distributions.get(module, [module])}
            if not provided & allowed:
                missing.append(f"{script}: {module} ({', '.join(sorted(provided))})")
    assert not missing, f"bench/ imports packages the bench extra does not install: {missing}"
