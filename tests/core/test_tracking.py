"""Asset tracking: prompts, tools, types, versions, diffs, YAML export and run binding."""

# No `from __future__ import annotations`: the tests build classes and functions whose
# annotations refer to local aliases, evaluated eagerly as in application modules.
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, Field
from runtime_support import make_spec, run, write_task_module

import autobench
from autobench.core.tracking import TrackedPrompt, TrackingRegistry, UntrackedAssetError
from autobench.records import load_document, run_record_from_yaml, run_record_to_yaml


def test_facade_exposes_the_default_registry() -> None:
    assert isinstance(autobench.track, TrackingRegistry)
    assert autobench.TrackedPrompt is TrackedPrompt


def test_prompt_inline_and_from_file(tmp_path: Path) -> None:
    registry = TrackingRegistry()
    inline = registry.prompt("router", text="Route the ticket.")
    assert inline.raw == str(inline) == "Route the ticket."
    assert len(inline.version) == 12 and int(inline.version, 16) >= 0
    file = tmp_path / "router.md"
    file.write_text("Route the ticket.", encoding="utf-8")
    from_file = registry.prompt("router", path=file)
    assert from_file.version == inline.version  # same text, same version
    assert from_file.source_path == str(file)
    assert len(registry.get(from_file).versions) == 1
    file.write_text("Route the ticket politely.", encoding="utf-8")
    changed = registry.prompt("router", source=file)
    assert changed.version != inline.version
    history = registry.get("prompt.router").versions
    assert [v.version for v in history] == [inline.version, changed.version]
    assert history[1].parent == inline.version
    assert history[1].changes == ("text",)
    assert history[1].diff is not None
    assert "-text: Route the ticket." in history[1].diff
    assert "+text: Route the ticket politely." in history[1].diff
    with pytest.raises(ValueError, match="exactly one"):
        registry.prompt("x")


def _tool_with(queue_type: object) -> object:
    Queue = queue_type

    def assign_queue(ticket_id: str, queue: Queue, priority: int = 0) -> dict[str, object]:  # type: ignore[valid-type]
        """Assign a support ticket to a queue."""
        return {"ticket_id": ticket_id, "queue": queue, "priority": priority}

    return assign_queue


def test_tool_metadata_and_original_object_returned() -> None:
    registry = TrackingRegistry()
    original = _tool_with(Literal["billing", "account"])
    decorated = registry.tool(original)  # type: ignore[type-var]
    assert decorated is original
    state = registry.get(original).current.state
    assert state["kind"] == "tool"
    assert state["name"] == "assign_queue"
    assert state["doc"] == "Assign a support ticket to a queue."
    assert state["params"] == {
        "ticket_id": {"type": "str", "required": True},
        "queue": {"type": 'Literal["billing", "account"]', "required": True},
        "priority": {"type": "int", "required": False, "default": 0},
    }
    assert state["returns"] == {"type": "dict[str, object]"}
    assert len(state["source_hash"]) == 64


def test_tool_version_changes_with_literal_behind_same_alias() -> None:
    registry = TrackingRegistry()
    first = registry.version_of(registry.tool(_tool_with(Literal["billing", "account"])))  # type: ignore[type-var]
    second = registry.version_of(
        registry.tool(_tool_with(Literal["billing", "account", "general"]))
    )  # type: ignore[type-var]
    assert first.version != second.version
    assert second.parent == first.version
    assert second.changes == ("params.queue.type",)
    assert second.diff is not None and second.diff.startswith(
        f"--- {first.version}\n+++ {second.version}\n"
    )
    again = registry.version_of(registry.tool(_tool_with(Literal["billing", "account", "general"])))  # type: ignore[type-var]
    assert again == second  # unchanged content: no new version
    assert len(registry.get("tool.assign_queue").versions) == 2


def _model_with(make_type: object) -> type[BaseModel]:
    class Car(BaseModel):
        """A car."""

        make: make_type  # type: ignore[valid-type]
        model: str = Field(examples=["a3"], description="Model name.")
        year: int = Field(gt=0)
        tags: list[str] = Field(default_factory=list, alias="labels")

    return Car


def test_pydantic_type_fields_and_schema_hash() -> None:
    registry = TrackingRegistry()
    car = _model_with(Literal["audi", "bmw"])
    assert registry.type(car) is car
    state = registry.get(car).current.state
    assert state["model"] == "pydantic"
    fields = state["fields"]
    assert fields["make"] == {"type": 'Literal["audi", "bmw"]', "required": True}
    assert fields["model"]["examples"] == ["a3"]
    assert fields["model"]["description"] == "Model name."
    assert fields["year"]["constraints"] == ["Gt(gt=0)"]
    assert fields["tags"]["alias"] == "labels"
    assert fields["tags"]["default_factory"] == "list"
    assert state["schema"]["properties"]["make"]["enum"] == ["audi", "bmw"]
    before = registry.get(car).version
    registry.type(_model_with(Literal["audi", "bmw", "mercedes"]))
    assert registry.get("type.Car").version != before


def _request_using(car_type: type) -> object:
    @dataclass
    class Request:
        car: car_type  # type: ignore[valid-type]
        count: int = 1

    return Request


def test_referenced_type_change_changes_version() -> None:
    registry = TrackingRegistry()
    first = registry.version_of(registry.type(_request_using(_model_with(Literal["audi"]))))  # type: ignore[type-var]
    second = registry.version_of(registry.type(_request_using(_model_with(Literal["bmw"]))))  # type: ignore[type-var]
    assert first.state["fields"]["car"]["type"] == "_model_with.<locals>.Car"
    assert first.version != second.version
    assert any(path.startswith("types.") for path in second.changes)


def test_dataclass_decorators_and_typed_classes() -> None:
    registry = TrackingRegistry()

    @registry.dataclass(frozen=True, slots=True)
    class Ticket:
        id: str
        subject: str = "none"

    assert dataclasses.is_dataclass(Ticket)
    assert Ticket("t1").subject == "none"  # type: ignore[call-arg]
    state = registry.get(Ticket).current.state
    assert state["model"] == "dataclass"
    assert state["options"]["frozen"] is True
    assert state["decorator"] == {
        "name": "dataclasses.dataclass",
        "options": {"frozen": True, "slots": True},
    }
    assert state["fields"]["subject"] == {"type": "str", "required": False, "default": "none"}

    @registry.decorate_type(dataclass, order=True)
    class Point:
        x: int

    assert registry.get(Point).current.state["options"]["order"] is True

    class Typed:
        name: str
        size: int | None = None

        def __init__(self, name: str) -> None:
            self.name = name

    assert registry.type(Typed) is Typed
    typed = registry.get(Typed).current.state
    assert typed["fields"] == {
        "name": {"type": "str"},
        "size": {"type": "int | None", "default": None},
    }
    assert typed["init"]["params"] == {"name": {"type": "str", "required": True}}


def test_generic_assets_values_and_decorator() -> None:
    registry = TrackingRegistry()
    table = {"billing": "queue-1"}
    assert registry.asset("routing", table, kind="config") is table
    assert registry.version_of(table).asset_id == "config.routing"

    @registry.asset(kind="routing_policy", name="enterprise")
    def route_policy(ticket: dict[str, bool]) -> str:
        return "priority" if ticket["enterprise"] else "standard"

    assert route_policy({"enterprise": True}) == "priority"
    assert registry.version_of(route_policy).asset_id == "routing_policy.enterprise"
    pinned = registry.asset("manual", 3, version="v1")
    assert pinned == 3 and registry.get("asset.manual").version == "v1"
    with pytest.raises(UntrackedAssetError):
        registry.version_of(object())


def test_write_assets_index_and_history(tmp_path: Path) -> None:
    registry = TrackingRegistry()
    car = registry.type(_model_with(Literal["audi"]))

    def create_car(make: Literal["audi"]) -> car:  # type: ignore[valid-type]
        """Create a new car instance."""
        return car(make=make, model="a3", year=1)

    registry.tool(create_car)
    registry.type(_model_with(Literal["audi", "bmw"]))
    index_path = registry.write_assets(tmp_path / "assets")
    index = load_document(index_path.read_text(encoding="utf-8"))
    assert index["record"] == {"type": "asset_index", "version": 1}
    assert index["assets"]["tool.create_car"] == {
        "kind": "tool",
        "name": "create_car",
        "semantic": "agent.tool",
        "current_version": registry.get("tool.create_car").version,
        "file": "tool_create_car.yaml",
    }
    tool = load_document((tmp_path / "assets" / "tool_create_car.yaml").read_text(encoding="utf-8"))
    assert tool["record"] == {"type": "asset", "version": 1}
    assert tool["asset"]["doc"] == "Create a new car instance."
    assert tool["asset"]["returns"] == {"type": "_model_with.<locals>.Car", "asset_id": "type.Car"}
    assert tool["versions"][0]["changes"] == {"fields": ["initial"]}
    history = load_document((tmp_path / "assets" / "type_Car.yaml").read_text(encoding="utf-8"))
    first, second = history["versions"]
    assert second["parent"] == first["version"]
    assert second["hashes"]["content"].startswith(second["version"])
    assert "fields.make.type" in second["changes"]["fields"]
    assert second["changes"]["diff"].startswith(
        f"--- {first['version']}\n+++ {second['version']}\n"
    )
    assert history["asset"]["current_version"] == second["version"]


TRACKED_TASK = """
from typing import Literal

from autobench import track

PROMPT = track.prompt("rt_tracking_prompt", text="Answer briefly.")


@track.tool
def rt_tracking_lookup(user_id: str, tier: Literal["gold", "silver"] = "gold") -> dict[str, str]:
    return {"tier": tier}


def run_case(ctx, case):
    ctx.attach_tracked_asset(PROMPT)
    ctx.attach_tracked_asset(rt_tracking_lookup)
    return {"value": 2}
"""


def test_attached_versions_are_copied_into_the_run_record_and_replayed(tmp_path: Path) -> None:
    module = write_task_module(tmp_path, TRACKED_TASK)
    result = run(make_spec(tmp_path, f"{module}:run_case"))
    record = result.runs[0]
    prompt = autobench.track.get("prompt.rt_tracking_prompt")
    tool = autobench.track.get("tool.rt_tracking_lookup")
    assert {key: value.model_dump() for key, value in record.asset_versions.items()} == {
        "prompt.rt_tracking_prompt": {"version": prompt.version, "kind": "prompt"},
        "tool.rt_tracking_lookup": {"version": tool.version, "kind": "tool"},
    }
    text = run_record_to_yaml(record)
    assert f"asset_versions:\n  prompt.rt_tracking_prompt:\n    version: {prompt.version}\n" in text
    assert run_record_from_yaml(text).asset_versions == record.asset_versions


def test_assets_whose_names_clean_up_alike_keep_separate_history_files(tmp_path: Path) -> None:
    registry = TrackingRegistry()
    registry.prompt("a/b", text="one")
    registry.prompt("a_b", text="two")
    registry.asset("A", 1)
    registry.asset("a", 2)
    registry.write_assets(tmp_path)
    files = sorted(path.name for path in tmp_path.iterdir())
    assert len(files) == 5 and "index.yaml" in files
    assert len({name.lower() for name in files}) == 5
