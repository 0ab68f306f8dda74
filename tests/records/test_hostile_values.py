"""Values a task may return that YAML cannot hold as they are: the record is still written."""

from __future__ import annotations

from pathlib import Path

from _factories import experiment_for, trivial_run

from autobench.records import (
    OpaqueValue,
    RecordDirectoryWriter,
    load_run_record,
    run_record_from_yaml,
    run_record_path,
    run_record_to_yaml,
)


def _round_trip(output: object) -> object:
    return run_record_from_yaml(run_record_to_yaml(trivial_run(output=output))).output


def test_a_self_referencing_output_is_cut_at_the_depth_limit() -> None:
    loop: dict[str, object] = {"name": "loop"}
    loop["self"] = loop
    stored = _round_trip(loop)
    assert isinstance(stored, dict) and stored["name"] == "loop"
    node: object = stored
    for _ in range(200):
        if isinstance(node, OpaqueValue):
            break
        assert isinstance(node, dict)
        node = node["self"]
    assert isinstance(node, OpaqueValue) and node.type == "builtins.dict"


def test_very_deep_nesting_is_cut_and_the_rest_kept() -> None:
    deep: list[object] = []
    current = deep
    for _ in range(5000):
        child: list[object] = []
        current.append(child)
        current = child
    stored = _round_trip({"deep": deep, "ok": True})
    assert isinstance(stored, dict) and stored["ok"] is True


def test_a_lone_surrogate_becomes_an_opaque_value_and_the_run_is_written(tmp_path: Path) -> None:
    root = tmp_path / "rec"
    writer = RecordDirectoryWriter(root)
    writer.start(experiment_for([("c", "v")]))
    writer.run_finished(trivial_run("c", "v", output={"text": "a\ud800b", "fine": "é"}), {})
    writer.flush()
    stored = load_run_record(root / run_record_path("c", "v"))
    assert stored.output == {"text": OpaqueValue(type="str", repr="'a\\ud800b'"), "fine": "é"}


def test_strings_a_yaml_1_1_reader_would_retype_are_quoted() -> None:
    text = run_record_to_yaml(
        trivial_run(output={"a": "yes", "b": "off", "c": "0o17", "d": "1_000", "e": "12:30"})
    )
    for word in ("'yes'", "'off'", "'1_000'", "'12:30'"):
        assert word in text
    assert _round_trip({"a": "yes", "b": "n", "c": "017"}) == {"a": "yes", "b": "n", "c": "017"}


def test_multi_line_text_is_a_literal_block() -> None:
    text = run_record_to_yaml(
        trivial_run(output={"traceback": "Traceback:\n  line 1\nValueError: x\n"})
    )
    assert "traceback: |" in text
    assert _round_trip({"t": "a\nb\n"}) == {"t": "a\nb\n"}
