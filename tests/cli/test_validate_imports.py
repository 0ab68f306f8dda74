"""``autobench validate`` says what ``autobench run`` will say about the task and the
scorers' targets: it imports them (unless ``--no-import``), reports a missing module or
function at the target's ``file:line:column`` with a did-you-mean, refuses a task that
cannot take ``(ctx, case)``, and warns about variants that name different factors.

Every case writes a real spec and real modules to a temporary directory and runs the
real command; each module name is used by one test only (imports are cached)."""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from autobench.cli import cli

DSL = """\
benchmark:
  imports:
    cases:
      - {{id: a, input: 1}}
    run:
      python: {task}
    variants: {{only: {{}}}}
    score:
      graded:
        python: {scorer}
        goal: maximize
"""
"""A DSL spec: the task's target is at 6:15, the python scorer's at 10:17."""

STRUCTURED = """\
benchmark: {{id: structured}}
dataset:
  cases: [{{id: a, input: 1}}]
task: {{target: {task}}}
scoring:
  - kind: python
    name: graded
    target: {scorer}
    goal: maximize
"""
"""A structured spec: the python scorer's target is at 8:13."""

SCORER = "def grade(call):\n    return 1.0\n"


def _write(tmp_path: Path, spec: str, **modules: str) -> Path:
    for name, text in modules.items():
        (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    path = tmp_path / "autobench.yaml"
    path.write_text(spec, encoding="utf-8")
    return path


def _invoke(*args: str) -> Result:
    return CliRunner(env={"COLUMNS": "2000"}).invoke(cli, list(args))


def _validate(spec: Path, *options: str) -> Result:
    return _invoke("validate", *options, str(spec))


def _run(spec: Path) -> Result:
    return _invoke("run", str(spec), "--record", str(spec.parent / "rec"), "--no-progress")


def _panel(result: Result) -> tuple[str, str]:
    """The error panel's title and its first body line (the message; wide enough to fit)."""
    lines = result.output.splitlines()
    top = next(index for index, line in enumerate(lines) if line.startswith("╭─ "))
    title = re.sub(r"^╭─ (.*?) ─+╮$", r"\1", lines[top])
    return title, lines[top + 1].strip("│").strip()


def _same_in_validate_and_run(spec: Path) -> tuple[str, str]:
    """The panel ``validate`` shows, after checking ``run`` shows the same one, both exit 1
    and ``run`` recorded nothing."""
    validated, ran = _validate(spec), _run(spec)
    assert validated.exit_code == 1, validated.output
    assert ran.exit_code == 1, ran.output
    assert _panel(validated) == _panel(ran)
    assert not (spec.parent / "rec").exists()
    return _panel(validated)


def test_a_missing_task_module_is_located_with_the_module_it_resembles(tmp_path: Path) -> None:
    spec = _write(
        tmp_path,
        DSL.format(task="vi_taks:run_case", scorer="vi_scorers_a:grade"),
        vi_tasks="def run_case(ctx, case):\n    return 1\n",
        vi_scorers_a=SCORER,
    )
    assert _same_in_validate_and_run(spec) == (
        "Task not found",
        f"{spec}:6:15: cannot import module 'vi_taks' of task 'vi_taks:run_case' "
        f"(searched {tmp_path} first, then sys.path): ModuleNotFoundError: "
        "No module named 'vi_taks'; did you mean 'vi_tasks'?",
    )


def test_a_missing_task_function_is_located_with_a_did_you_mean(tmp_path: Path) -> None:
    spec = _write(
        tmp_path,
        DSL.format(task="vi_fn_tasks:run_cas", scorer="vi_scorers_b:grade"),
        vi_fn_tasks="from pathlib import Path\n\n\ndef run_case(ctx, case):\n    return 1\n\n\n"
        "def helper(text):\n    return Path(text)\n",
        vi_scorers_b=SCORER,
    )
    assert _same_in_validate_and_run(spec) == (
        "Task not found",
        f"{spec}:6:15: task 'vi_fn_tasks:run_cas': 'vi_fn_tasks' has no attribute 'run_cas' "
        f"(module file: {tmp_path / 'vi_fn_tasks.py'}); did you mean 'run_case'?",
    )


def test_with_nothing_close_the_module_public_callables_are_listed(tmp_path: Path) -> None:
    spec = _write(
        tmp_path,
        DSL.format(task="vi_list_tasks:evaluate", scorer="vi_scorers_c:grade"),
        vi_list_tasks="import os\nfrom pathlib import Path\n\nLIMIT = 3\n\n\n"
        "def run_case(ctx, case):\n    return 1\n\n\ndef _private(ctx, case):\n    return 2\n\n\n"
        "class Runner:\n    pass\n",
        vi_scorers_c=SCORER,
    )
    title, message = _panel(_validate(spec))
    assert (title, message) == (
        "Task not found",
        f"{spec}:6:15: task 'vi_list_tasks:evaluate': 'vi_list_tasks' has no attribute "
        f"'evaluate' (module file: {tmp_path / 'vi_list_tasks.py'}); "
        "its public callables: Runner, run_case",
    )


def test_a_scorer_target_error_is_located_like_a_task_error(tmp_path: Path) -> None:
    spec = _write(
        tmp_path,
        DSL.format(task="vi_sc_tasks:run_case", scorer="vi_sc_scorers:grde"),
        vi_sc_tasks="def run_case(ctx, case):\n    return 1\n",
        vi_sc_scorers=SCORER,
    )
    assert _same_in_validate_and_run(spec) == (
        "Scorer target not found",
        f"{spec}:10:17: python scorer 'graded' target 'vi_sc_scorers:grde': 'vi_sc_scorers' "
        f"has no attribute 'grde' (module file: {tmp_path / 'vi_sc_scorers.py'}); "
        "did you mean 'grade'?",
    )


def test_a_missing_scorer_module_is_located_in_the_structured_form(tmp_path: Path) -> None:
    spec = _write(
        tmp_path,
        STRUCTURED.format(task="vi_st_tasks:run_case", scorer="vi_st_scorer:grade"),
        vi_st_tasks="def run_case(ctx, case):\n    return 1\n",
        vi_st_scorers=SCORER,
    )
    assert _same_in_validate_and_run(spec) == (
        "Scorer target not found",
        f"{spec}:8:13: cannot import module 'vi_st_scorer' of python scorer 'graded' target "
        f"'vi_st_scorer:grade' (searched {tmp_path} first, then sys.path): "
        "ModuleNotFoundError: No module named 'vi_st_scorer'; did you mean 'vi_st_scorers'?",
    )


@pytest.mark.parametrize(
    ("source", "signature", "reason"),
    [
        ("def run_case(case):\n    return 1\n", "run_case(case)", "too many positional arguments"),
        (
            "def run_case(ctx, case, extra):\n    return 1\n",
            "run_case(ctx, case, extra)",
            "missing a required argument: 'extra'",
        ),
    ],
    ids=["one-argument", "extra-without-default"],
)
def test_a_task_that_cannot_take_ctx_and_case_is_refused_before_any_run(
    tmp_path: Path, source: str, signature: str, reason: str
) -> None:
    module = f"vi_sig_{len(signature)}"
    spec = _write(
        tmp_path,
        DSL.format(task=f"{module}:run_case", scorer=f"{module}_scorers:grade"),
        **{module: source, f"{module}_scorers": SCORER},
    )
    assert _same_in_validate_and_run(spec) == (
        "Task cannot take (ctx, case)",
        f"{spec}:6:15: task '{module}:run_case' cannot be called as task(ctx, case): its "
        f"signature is {signature} ({reason}); expected two positional parameters, ctx and "
        "case, with every other parameter keyword-only or given a default",
    )


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("def run_case(ctx, case, *, extra=1):\n    return extra\n", "run_case"),
        ("async def run_case(ctx, case, retries=2):\n    return retries\n", "run_case"),
        (
            "class Runner:\n    def __call__(self, ctx, case):\n        return 1\n\n\n"
            "run_case = Runner()\n",
            "run_case",
        ),
        ("class Runner:\n    def __init__(self, ctx, case):\n        self.n = 1\n", "Runner"),
        (
            "class Runner:\n    @staticmethod\n    def run(ctx, case, *args, **kwargs):\n"
            "        return 1\n",
            "Runner.run",
        ),
    ],
    ids=["keyword-only-default", "coroutine", "callable-object", "class", "static-method"],
)
def test_a_task_that_can_take_ctx_and_case_passes_and_runs(
    tmp_path: Path, source: str, target: str
) -> None:
    module = f"vi_fine_{zlib.crc32(source.encode())}"
    spec = _write(
        tmp_path,
        DSL.format(task=f"{module}:{target}", scorer=f"{module}_scorers:grade"),
        **{module: source, f"{module}_scorers": SCORER},
    )
    validated = _validate(spec)
    assert validated.exit_code == 0, validated.output
    assert "planned runs  1" in validated.output
    ran = _run(spec)
    assert ran.exit_code == 0, ran.output
    assert (spec.parent / "rec" / "summary.yaml").is_file()


FACTORS = """\
benchmark:
  factors:
    cases:
      - {id: a, input: 1}
    run:
      python: vi_factor_tasks:run_case
    variants:
      fast:
        factors:
          model_name: small
          temperature: 0.2
      slow:
        factors:
          model: large
          temperature: 0.2
      hot:
        factors: [{name: model, value: large}, {name: temperature, value: 0.9}]
"""


def test_variants_naming_different_factors_are_warned_about_before_any_run(
    tmp_path: Path,
) -> None:
    spec = _write(
        tmp_path,
        FACTORS,
        vi_factor_tasks="def run_case(ctx, case):\n    return ctx.factor('temperature')\n",
    )
    confounded = (
        " Comparisons between these variants are confounded: they differ in which factors "
        "they name, not only in values, and ctx.factor raises KeyError where one is missing."
    )
    expected = [
        f"warning: {spec}:10:11: factor 'model_name' is set by variant 'fast' ({spec}:10:11) "
        f"but not by 'slow' ({spec}:12:7), 'hot' ({spec}:16:7); did you mean 'model', as "
        f"variant 'slow' ({spec}:14:11) names it?{confounded}",
        f"warning: {spec}:14:11: factor 'model' is set by variant 'slow' ({spec}:14:11), "
        f"'hot' ({spec}:17:26) but not by 'fast' ({spec}:8:7); did you mean 'model_name', as "
        f"variant 'fast' ({spec}:10:11) names it?{confounded}",
    ]
    validated = _validate(spec)
    assert validated.exit_code == 0, validated.output
    assert [line for line in validated.output.splitlines() if "warning:" in line] == expected
    ran = _run(spec)
    assert ran.exit_code == 0, ran.output
    assert [line for line in ran.stderr.splitlines() if "warning:" in line] == expected
    # warned before the first run: the runs' records come after, and all three ran
    assert len(list((spec.parent / "rec" / "cases").rglob("run.yaml"))) == 3


def test_a_factor_only_some_variants_set_is_named_without_a_guess(tmp_path: Path) -> None:
    spec = _write(
        tmp_path,
        FACTORS.replace("model_name: small", "model: small").replace(
            "          temperature: 0.2\n      slow", "          reasoning: high\n      slow"
        ),
        vi_factor_tasks="def run_case(ctx, case):\n    return 1\n",
    )
    validated = _validate(spec)
    assert validated.exit_code == 0, validated.output
    warnings = [line for line in validated.output.splitlines() if "warning:" in line]
    assert [line.split(" Comparisons")[0] for line in warnings] == [
        f"warning: {spec}:11:11: factor 'reasoning' is set by variant 'fast' ({spec}:11:11) "
        f"but not by 'slow' ({spec}:12:7), 'hot' ({spec}:16:7).",
        f"warning: {spec}:15:11: factor 'temperature' is set by variant 'slow' ({spec}:15:11), "
        f"'hot' ({spec}:17:55) but not by 'fast' ({spec}:8:7).",
    ]


def test_variants_naming_the_same_factors_get_no_warning(tmp_path: Path) -> None:
    spec = _write(
        tmp_path,
        FACTORS.replace("model_name: small", "model: small"),
        vi_same_factors="def run_case(ctx, case):\n    return 1\n",
    )
    spec.write_text(spec.read_text().replace("vi_factor_tasks", "vi_same_factors"))
    validated = _validate(spec)
    assert validated.exit_code == 0, validated.output
    assert "warning:" not in validated.output


def test_no_import_skips_the_imports_and_their_errors(tmp_path: Path) -> None:
    spec = _write(
        tmp_path,
        DSL.format(task="vi_sdk_tasks:run_case", scorer="vi_sdk_scorers:grde"),
        vi_sdk_tasks="import an_sdk_not_installed_here\n\n\ndef run_case(case):\n    return 1\n",
        vi_sdk_scorers=SCORER,
    )
    imported = _validate(spec)
    assert imported.exit_code == 1
    assert _panel(imported)[0] == "Task module failed to import"
    skipped = _validate(spec, "--no-import")
    assert skipped.exit_code == 0, skipped.output
    assert "╭─ Benchmark" in skipped.output and "planned runs  1" in skipped.output
    assert "Task" not in skipped.output.split("╭─ Benchmark")[0]


def test_help_says_what_no_import_skips() -> None:
    result = _invoke("validate", "--help")
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "--no-import Do not import the task module or the scorers' targets" in text
    assert "an SDK installed only where the benchmark runs" in text
