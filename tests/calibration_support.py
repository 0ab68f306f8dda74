"""A real recorded experiment whose scores are set by hand, for calibration and labelling.

Eleven support questions, one variant. Three python scorers stand in for judges, each
returning what its case says (so every figure is known in advance):

* ``verdict`` (pass/fail, with a reason): true on c1-c5 and c11, false on c6-c10;
* ``grade`` (an integer scale 1-3): the case's ``grade``;
* ``tone`` (labels): ``kind`` or ``curt``.

:data:`VERDICT_LABELS` are what a person said about c1-c10 (c11 left unlabelled), one
label for a run that does not exist, and one given by case and variant. Against them,
by hand: rows person (fail, pass), columns judge: ``[[4, 1], [1, 4]]``; accuracy 8/10,
chance agreement 0.5, kappa (0.8 - 0.5) / 0.5 = 0.6; TPR 4/5 = 0.8; FPR 1/5 = 0.2.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from autobench.cli import cli

TASK = """\
from autobench import ScoreRecord


def answer(ctx, case):
    return {"answer": "Answer to " + case.input["question"]}


def verdict(call):
    value = call.case.input["verdict"]
    return ScoreRecord(
        name="verdict", value=value, reason="cites the policy" if value else "misses the refund rule"
    )


def grade(call):
    return call.case.input["grade"]


def tone(call):
    return call.case.input["tone"]
"""

VERDICTS = {f"c{n}": n <= 5 or n == 11 for n in range(1, 12)}
GRADES = {
    "c1": 1,
    "c2": 1,
    "c3": 3,
    "c4": 3,
    "c5": 3,
    "c6": 1,
    "c7": 1,
    "c8": 3,
    "c9": 1,
    "c10": 3,
    "c11": 1,
}
TONES = {f"c{n}": "kind" if n % 2 else "curt" for n in range(1, 12)}


def spec_text() -> str:
    """The benchmark YAML of the eleven cases."""
    cases = "\n".join(
        f"      - {{id: {case}, input: {{question: q{case[1:]}, verdict: {str(VERDICTS[case]).lower()}, "
        f"grade: {GRADES[case]}, tone: {TONES[case]}}}, expected: {{answer: a{case[1:]}}}}}"
        for case in VERDICTS
    )
    return f"""\
benchmark:
  support:
    cases:
{cases}
    run:
      python: support_task:answer
    variants:
      base: {{factors: {{model: small}}}}
    score:
      verdict: {{python: "support_task:verdict"}}
      grade: {{python: "support_task:grade"}}
      tone: {{python: "support_task:tone"}}
"""


def record(root: Path) -> Path:
    """Run the benchmark under ``root`` and return its record directory."""
    (root / "support_task.py").write_text(TASK, encoding="utf-8")
    (root / "autobench.yaml").write_text(spec_text(), encoding="utf-8")
    out = root / "out"
    ran = CliRunner(env={"COLUMNS": "200"}).invoke(
        cli, ["run", str(root / "autobench.yaml"), "--record", str(out), "--no-progress"]
    )
    assert ran.exit_code == 0, ran.output
    return out


HUMAN_VERDICTS = {f"c{n}": n <= 4 or n == 10 for n in range(1, 11)}
"""A person agrees with the judge except on c5 (judge pass, person fail) and c10 (judge
fail, person pass)."""


def verdict_labels_yaml(run_ids: dict[str, str]) -> str:
    """The labels file of :data:`HUMAN_VERDICTS`: c1 by case and variant, the others by
    run id, plus a label of a run that does not exist."""
    lines = [
        "score: verdict",
        "labels:",
        "  - {case: c1, variant: base, label: pass, labeller: ana}",
    ]
    for case, value in HUMAN_VERDICTS.items():
        if case != "c1":
            lines.append(f"  - {{run_id: {run_ids[case]}, label: {str(value).lower()}}}")
    lines.append("  - {run_id: no-such-run, label: true, note: typo}")
    return "\n".join(lines) + "\n"
