"""``autobench label``: people label a record's outputs, in the terminal or a spreadsheet.

The walk shows each run's case input, expected value, output and the score's value and
reason, and asks for a label on the score's scale; each label is written to the labels
file at once (atomically), so stopping anywhere loses nothing and running the command
again resumes with the first run without a label. ``--export`` writes a CSV sheet of the
same items (with any labels already given) and ``--import`` reads one back.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from autobench.cli._console import stdout_console, user_errors
from autobench.cli._judge import LABELS_FILE
from autobench.cli._rescore import apply_rescored, rescored_option

if TYPE_CHECKING:
    from autobench.records import ExperimentResult, Label, LabelsFile, RunRecord
    from autobench.report._calibration import Scale

# The records and the report (numpy with it) are imported when the command runs: `label
# --help` needs neither.

SHEET_COLUMNS = (
    "run_id",
    "case",
    "variant",
    "input",
    "expected",
    "output",
    "score",
    "reason",
    "label",
    "labeller",
    "note",
)
"""The columns of an exported labelling sheet (``--import`` reads those of
:data:`autobench.records.LABEL_COLUMNS` and ignores the rest)."""


@click.command("label")
@click.argument("record_dir", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--score",
    metavar="NAME",
    required=True,
    help="The score the labels are for (its scale and values).",
)
@click.option(
    "--labels",
    "labels_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help=f"The labels file to write. Default: {LABELS_FILE} in DIR.",
)
@rescored_option
@click.option("--labeller", metavar="WHO", help="Who is labelling (kept with each label).")
@click.option(
    "--export",
    "export_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write a CSV labelling sheet instead of walking through the runs.",
)
@click.option(
    "--import",
    "import_path",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Read the labels of a filled-in CSV sheet into the labels file.",
)
def label_command(
    record_dir: Path,
    score: str,
    labels_path: Path | None,
    rescored: tuple[str, ...],
    labeller: str | None,
    export_path: Path | None,
    import_path: Path | None,
) -> None:
    """Label the outputs recorded in DIR for the score NAME, one run at a time.

    For each run without a label: its case input, expected value, output, and the
    score's value and reason; type a label on the score's scale (pass/fail, an integer,
    or a label), `s` to skip the run, `q` to stop. Each label is saved at once; run the
    command again to go on where you stopped. With --export/--import, label in a
    spreadsheet instead.
    """
    if export_path is not None and import_path is not None:
        raise click.UsageError("--export and --import are separate steps: give one")
    from autobench.cli._replayed import replayed

    target = labels_path or record_dir / LABELS_FILE
    with user_errors():
        result = apply_rescored(replayed(record_dir), rescored)
        labels = _existing(target, score)
        scale, hint = _scale(result, score)
        if export_path is not None:
            _export(export_path, result, score, labels)
            click.echo(f"wrote a sheet of {len(result.runs)} run(s) to {export_path}")
            return
        if import_path is not None:
            _import(import_path, target, result, score, scale, labels, labeller)
            return
    _walk(result, score, (scale, hint), labels, target, labeller)


def _existing(path: Path, score: str) -> LabelsFile:
    from autobench.records import LabelsFile, read_labels
    from autobench.report import CalibrationError

    if not path.exists():
        return LabelsFile(score=score)
    labels = read_labels(path)
    if labels.score is not None and labels.score != score:
        raise CalibrationError(
            f"{path} holds labels for score {labels.score!r}, not {score!r}; "
            "label another score into its own file with --labels FILE"
        )
    return LabelsFile(score=score, labels=labels.labels)


def _score_of(run: RunRecord, score: str) -> tuple[Any, str | None]:
    for item in run.scores:
        if item.name == score:
            return (item.value if item.error is None else None), (item.reason or item.error)
    return None, None


def _scale(result: ExperimentResult, score: str) -> tuple[Scale, str]:
    """The score's scale, and how the prompt names it (with the values recorded)."""
    from autobench.report import CalibrationError
    from autobench.report._calibration import score_scale

    values = [value for run in result.runs if (value := _score_of(run, score)[0]) is not None]
    if not values:
        names = sorted({item.name for run in result.runs for item in run.scores})
        raise CalibrationError(
            f"no run has a value of score {score!r}; scores recorded: {', '.join(names) or 'none'}"
        )
    scale = score_scale(values)
    if scale == "pass/fail":
        return scale, "pass or fail"
    if scale == "integer":
        return scale, f"an integer; {min(values)} to {max(values)} recorded"
    seen = sorted({str(value) for value in values})
    shown = ", ".join(seen[:10]) + (", ..." if len(seen) > 10 else "")
    return scale, f"a label, e.g. {shown}"


def _labelled(result: ExperimentResult, labels: Sequence[Label]) -> dict[str, Label]:
    """Run id -> its label (by run id, or by a case and variant that name one run)."""
    pairs: dict[tuple[str, str], list[str]] = {}
    for run in result.runs:
        pairs.setdefault((run.case_id, run.variant_id), []).append(run.run_id)
    found: dict[str, Label] = {}
    for label in labels:
        if label.run_id is not None:
            found[label.run_id] = label
            continue
        run_ids = pairs.get((str(label.case), str(label.variant)), [])
        if len(run_ids) == 1:
            found[run_ids[0]] = label
    return found


def _text(value: Any, *, indent: int | None = None) -> str:
    """A value for a person: text as it is, anything else as JSON (one line unless
    ``indent``)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str, indent=indent)


def _shown(run: RunRecord, score: str, position: int, total: int) -> Panel:
    value, reason = _score_of(run, score)
    body = Text()
    for title, content in (
        ("input", run.case.input),
        ("expected", run.case.expected),
        ("output", run.output),
    ):
        body.append(f"{title}\n", style="bold")
        body.append(f"{_text(content, indent=2) or '(none)'}\n\n")
    body.append(f"{score}: ", style="bold")
    body.append(_text(value) or "(no value)")
    if reason:
        body.append(f"\nreason: {reason}")
    return Panel(
        body,
        title=f"{position} of {total}: case {run.case_id} / variant {run.variant_id}",
        subtitle=f"run {run.run_id}",
        title_align="left",
    )


def _walk(
    result: ExperimentResult,
    score: str,
    scale_hint: tuple[Scale, str],
    labels: LabelsFile,
    target: Path,
    labeller: str | None,
) -> None:
    from autobench.records import Label, LabelsFile, write_labels
    from autobench.report import output_policy

    scale, hint = scale_hint
    console = stdout_console(output_policy(result))
    done = _labelled(result, labels.labels)
    todo = [run for run in result.runs if run.run_id not in done]
    console.print(
        f"{len(done)} of {len(result.runs)} run(s) labelled for {score} ({scale}); "
        f"{len(todo)} to go. Labels are saved in {target} after each one."
    )
    written = skipped = 0
    for position, run in enumerate(todo, 1):
        console.print(_shown(run, score, position, len(todo)))
        answer = _ask(console, scale, hint)
        if answer is None:
            break
        if answer == "skip":
            skipped += 1
            continue
        note = click.prompt("note (Enter for none)", default="", show_default=False).strip()
        label = Label(
            run_id=run.run_id,
            label=answer[0],
            labeller=labeller,
            note=note or None,
        )
        labels = LabelsFile(score=score, labels=(*labels.labels, label))
        with user_errors():
            write_labels(target, labels)
        written += 1
    remaining = len(todo) - written - skipped
    console.print(
        f"labelled {written}, skipped {skipped}, {remaining} left without a label; "
        f"labels in {target}"
    )


def _ask(console: Console, scale: Scale, hint: str) -> tuple[Any] | str | None:
    """``(label,)``, ``"skip"``, or ``None`` to stop."""
    from autobench.report._calibration import read_label

    while True:
        typed = click.prompt(f"label ({hint}; s skip, q quit)").strip()
        if typed.lower() in {"q", "quit"}:
            return None
        if typed.lower() in {"s", "skip"}:
            return "skip"
        if typed == "":
            continue
        try:
            return (read_label(typed, scale),)
        except ValueError as exc:
            console.print(Text(f"{exc}; try again", style="yellow"))


def _export(path: Path, result: ExperimentResult, score: str, labels: LabelsFile) -> None:
    from autobench.records import RecordingError

    done = _labelled(result, labels.labels)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=SHEET_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for run in result.runs:
        value, reason = _score_of(run, score)
        given = done.get(run.run_id)
        writer.writerow(
            {
                "run_id": run.run_id,
                "case": run.case_id,
                "variant": run.variant_id,
                "input": _text(run.case.input),
                "expected": _text(run.case.expected),
                "output": _text(run.output),
                "score": _text(value),
                "reason": reason or "",
                "label": "" if given is None else _text(given.label),
                "labeller": "" if given is None else given.labeller or "",
                "note": "" if given is None else given.note or "",
            }
        )
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(buffer.getvalue(), encoding="utf-8", newline="")
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise RecordingError(f"cannot write the sheet {path}: {exc}", path=path) from exc


def _import(
    sheet: Path,
    target: Path,
    result: ExperimentResult,
    score: str,
    scale: Scale,
    labels: LabelsFile,
    labeller: str | None,
) -> None:
    from autobench.records import LabelsFile, read_labels, write_labels
    from autobench.report import CalibrationError
    from autobench.report._calibration import read_label

    incoming = read_labels(sheet).labels
    known = {run.run_id for run in result.runs}
    kept = list(labels.labels)
    replaced = 0
    unknown = []
    for label in incoming:
        try:
            value = read_label(label.label, scale)
        except ValueError as exc:
            raise CalibrationError(f"{sheet}: {label.item}: the label {exc}") from None
        label = label.model_copy(update={"label": value, "labeller": label.labeller or labeller})
        if label.run_id is not None and label.run_id not in known:
            unknown.append(label.item)
        before = len(kept)
        kept = [item for item in kept if not _same_item(item, label)]
        replaced += before - len(kept)
        kept.append(label)
    write_labels(target, LabelsFile(score=score, labels=tuple(kept)))
    click.echo(
        f"imported {len(incoming)} label(s) from {sheet} ({replaced} replaced earlier ones); "
        f"{len(kept)} in {target}"
    )
    if unknown:
        click.echo(f"{len(unknown)} label(s) name no run of the record: {', '.join(unknown)}")


def _same_item(first: Label, second: Label) -> bool:
    if first.run_id is not None or second.run_id is not None:
        return first.run_id == second.run_id
    return (first.case, first.variant) == (second.case, second.variant)
