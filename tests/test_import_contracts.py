"""The import-linter run of the lint session (``tools/lint_imports.py``) sees every
distribution of the ``autobench`` namespace and reports broken contracts; the acyclic
contract of ``pyproject.toml`` catches cycles made of function-level and TYPE_CHECKING
imports, and no module of the project is on an import cycle at all. The contracts
themselves are checked by ``uv run nox -s lint``."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = ROOT / "tools" / "lint_imports.py"


def _see_whole_namespace() -> list[str]:
    spec = importlib.util.spec_from_file_location("_lint_imports", LINT_IMPORTS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    directories: list[str] = module.see_whole_namespace()
    return directories


def _lint_imports(config: Path, *, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(LINT_IMPORTS), "--config", str(config), "--no-cache"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_contracts_reach_every_distribution_and_report_breaks(tmp_path: Path) -> None:
    # Each contract is broken by the real code, in a different distribution: a run that saw
    # only autobench-core's directory would find the module missing or the contract kept.
    config = tmp_path / "contracts.toml"
    config.write_text(
        textwrap.dedent(
            """
            [tool.importlinter]
            root_packages = ["autobench"]
            include_external_packages = true

            [[tool.importlinter.contracts]]
            name = "cli without click"
            type = "forbidden"
            source_modules = ["autobench.cli"]
            forbidden_modules = ["click"]

            [[tool.importlinter.contracts]]
            name = "records without abp"
            type = "forbidden"
            source_modules = ["autobench.records"]
            forbidden_modules = ["autobench.abp"]

            [[tool.importlinter.contracts]]
            name = "httpx instrumentor without abp"
            type = "forbidden"
            source_modules = ["autobench.instrument.httpx"]
            forbidden_modules = ["autobench.abp"]
            """
        )
    )
    done = _lint_imports(config, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    for name in ("cli without click", "records without abp", "httpx instrumentor without abp"):
        assert f"{name} BROKEN" in done.stdout
    assert "autobench.cli is not allowed to import click" in done.stdout


def test_the_acyclic_contract_counts_function_level_and_type_checking_imports(
    tmp_path: Path,
) -> None:
    # The acyclic contract and session options of pyproject.toml, applied to a small package
    # whose only cycles hide behind a function-level import and a TYPE_CHECKING block.
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (contract,) = [c for c in settings["contracts"] if c["type"] == "acyclic_siblings"]
    package = tmp_path / "tangled"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def load():\n    from tangled import b\n\n    return b\n")
    (package / "b.py").write_text("import tangled.a\n")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from tangled.d import D\n"
    )
    (package / "d.py").write_text("import tangled.c\n\nD = int\n")
    config = tmp_path / "contracts.toml"
    config.write_text(
        textwrap.dedent(
            f"""
            [tool.importlinter]
            root_packages = ["tangled"]
            include_external_packages = {str(settings["include_external_packages"]).lower()}

            [[tool.importlinter.contracts]]
            name = "acyclic"
            type = "acyclic_siblings"
            ancestors = ["tangled"]
            """
        )
    )
    assert "exclude_type_checking_imports" not in settings
    assert set(contract) == {"id", "name", "type", "ancestors"}  # nothing else to copy
    done = _lint_imports(config, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "acyclic BROKEN" in done.stdout
    assert "removing 2 dependencies" in done.stdout, done.stdout


def test_no_module_is_on_an_import_cycle() -> None:
    # acyclic_siblings compares the children of each package, so it cannot see a cycle
    # through a package's own __init__ (a child importing its parent package); this can.
    # Function-level and TYPE_CHECKING imports count. The root facade (autobench/__init__.py)
    # is left out: it re-exports every layer, and that no module imports it is a rule of
    # its own.
    import grimp

    directories = _see_whole_namespace()
    assert len(directories) >= 9  # core, abp, records, report, cli and four instrumentors
    graph = grimp.build_graph("autobench", cache_dir=None)
    assert {"autobench.abp", "autobench.cli", "autobench.instrument.httpx"} <= graph.modules
    graph.remove_module("autobench")
    on_cycles = sorted(
        (importer, imported)
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
        if graph.chain_exists(importer=imported, imported=importer)
    )
    assert on_cycles == []
