"""The root facade's public names: declared once, by the ``__all__`` of each public module.

``autobench.__all__`` is the union of the ``__all__`` lists of the modules in
``autobench._PUBLIC_MODULES``; these tests pin it to a checked-in list and check that the
lazy index, ``dir()`` and the modules themselves agree.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import autobench

ROOT = Path(__file__).resolve().parents[2]
PUBLIC_NAMES = Path(__file__).with_name("public_names.txt")


def _checked_in_names() -> list[str]:
    lines = PUBLIC_NAMES.read_text().splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def test_the_public_names_are_the_checked_in_list() -> None:
    assert sorted(autobench.__all__) == _checked_in_names(), (
        "The public names of `autobench` changed. If that is intended, update "
        f"{PUBLIC_NAMES.relative_to(ROOT)} deliberately (a name is public when it is in the "
        "__all__ of a module listed in autobench._PUBLIC_MODULES; a name other packages need "
        "but users do not is re-exported as `from ._x import name as name`, outside __all__)."
    )


def test_every_public_name_resolves_to_its_module_object() -> None:
    for module_name, _ in autobench._PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            assert getattr(autobench, name) is getattr(module, name), (module_name, name)


def test_no_name_is_public_in_two_modules_and_no_two_modules_disagree_on_an_object() -> None:
    owners: dict[str, list[str]] = {}
    modules = {name: importlib.import_module(name) for name, _ in autobench._PUBLIC_MODULES}
    for module_name, module in modules.items():
        for name in module.__all__:
            owners.setdefault(name, []).append(module_name)
    assert {name: found for name, found in owners.items() if len(found) > 1} == {}
    # A public name that another public module also re-exports is the same object there.
    for name in autobench.__all__:
        for module_name, module in modules.items():
            if hasattr(module, name):
                assert getattr(module, name) is getattr(autobench, name), (module_name, name)


def test_dir_lists_the_public_names_and_the_version() -> None:
    assert dir(autobench) == sorted({*autobench.__all__, "__version__"})


def test_the_index_reads_the_same_all_as_the_imported_modules() -> None:
    # The root reads each module's __all__ from its source without importing it; the
    # literal it reads is the list the module has at run time.
    for module_name, _ in autobench._PUBLIC_MODULES:
        spec = importlib.util.find_spec(module_name)
        assert spec is not None and spec.origin is not None
        tree = ast.parse(Path(spec.origin).read_text())
        (declared,) = [
            ast.literal_eval(node.value)
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        ]
        assert list(declared) == list(importlib.import_module(module_name).__all__), module_name


def test_each_public_module_is_in_the_distribution_named_for_it() -> None:
    for module_name, distribution in autobench._PUBLIC_MODULES:
        spec = importlib.util.find_spec(module_name)
        assert spec is not None and spec.origin is not None
        assert Path(spec.origin).is_relative_to(ROOT / "packages" / distribution / "src"), (
            module_name,
            distribution,
        )


def test_no_module_of_the_project_imports_the_root_facade() -> None:
    found = []
    for path in sorted(ROOT.glob("packages/*/src/**/*.py")):
        if path == ROOT / "packages/autobench-core/src/autobench/__init__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "autobench":
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Import) and any(a.name == "autobench" for a in node.names):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == [], "import from the owning subpackage instead of `autobench`"


def test_a_name_from_records_imports_neither_report_nor_cli() -> None:
    code = (
        "import sys; from autobench import Case; "
        "print(sorted(m for m in ('autobench.report', 'autobench.cli', 'autobench.core.runtime') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_name_whose_module_needs_a_missing_distribution_names_that_distribution() -> None:
    code = "import sys; sys.modules['autobench.records'] = None; from autobench import Benchmark"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode != 0
    assert "autobench.Benchmark needs the 'autobench-records' distribution" in done.stderr
    assert "pip install <wheel directory>/autobench_records-0.1.0-*.whl" in done.stderr
