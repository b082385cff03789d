"""Issue 27.2 (registry part): a tool parameter typed with a pydantic (v2) model gets the
model's JSON Schema and receives a validated model instance. pydantic stays optional."""

from __future__ import annotations

import subprocess
import sys
from typing import Annotated, Any

import pytest
from toolwire import Tool, ToolCall, ToolDefinitionError, ToolRegistry, validate_arguments

pydantic = pytest.importorskip("pydantic")


class Place(pydantic.BaseModel):
    lat: float
    lon: float


class Query(pydantic.BaseModel):
    city: str
    where: Place | None = None
    days: int = pydantic.Field(1, ge=1, le=7)

    @pydantic.field_validator("city")
    @classmethod
    def no_digits(cls, value: str) -> str:
        if any(ch.isdigit() for ch in value):
            raise ValueError("a city name has no digits")
        return value


def weather_registry() -> tuple[ToolRegistry, list[Any]]:
    received: list[Any] = []
    registry = ToolRegistry(filter="*")

    @registry.tool
    def forecast(
        query: Query,
        stops: list[Place] | None = None,
        note: Annotated[Query | None, "Another query."] = None,
    ) -> str:
        """Forecast for a place."""
        received.append((query, stops, note))
        return f"{query.city}: {query.days} days"

    return registry, received


def test_the_schema_is_the_models_with_defs_at_the_top() -> None:
    registry, _ = weather_registry()
    parameters = registry.get("forecast").parameters  # type: ignore[union-attr]
    query = Query.model_json_schema()
    defs = query.pop("$defs")
    assert parameters["properties"]["query"] == query
    assert parameters["$defs"] == defs == {"Place": Place.model_json_schema()}
    assert parameters["properties"]["stops"]["items"] == Place.model_json_schema()
    assert parameters["properties"]["note"]["description"] == "Another query."
    assert parameters["required"] == ["query"]
    # The schema compiles and its $refs resolve: a nested place is checked.
    tool = registry.get("forecast")
    assert tool is not None
    assert (
        validate_arguments(tool, {"query": {"city": "Oslo", "where": {"lat": 1, "lon": 2}}}) == []
    )
    [problem] = validate_arguments(
        tool, {"query": {"city": "Oslo", "where": {"lat": "x", "lon": 2}}}
    )
    assert "query/where" in problem or "query.where" in problem


def test_the_function_receives_validated_model_instances() -> None:
    registry, received = weather_registry()
    call = ToolCall("c1", "forecast", {
        "query": {"city": "Oslo", "where": {"lat": 59.9, "lon": 10.7}, "days": 3},
        "stops": [{"lat": 1, "lon": 2}],
        "note": {"city": "Bergen"},
    })  # fmt: skip
    assert registry.execute(call).content == "Oslo: 3 days"
    [(query, stops, note)] = received
    assert query == Query(city="Oslo", where=Place(lat=59.9, lon=10.7), days=3)
    assert stops == [Place(lat=1.0, lon=2.0)] and note == Query(city="Bergen")
    assert registry.execute(ToolCall("c2", "forecast", {"query": {"city": "Rome"}})).content == (
        "Rome: 1 days"
    )
    assert received[-1] == (Query(city="Rome"), None, None)


def test_a_model_validator_failure_is_a_validation_error_result() -> None:
    registry, received = weather_registry()
    result = registry.execute(ToolCall("c1", "forecast", {"query": {"city": "Oslo 2"}}))
    assert result.is_error and received == []
    assert result.content == (
        "Arguments for tool 'forecast' are invalid at 'query.city': Value error, a city name "
        "has no digits. Retry the tool call with a corrected value for 'query.city'."
    )
    assert [(d.origin, d.call_id) for d in result.diagnostics] == [("validation", "c1")]
    # The JSON Schema catches what it can first, in its own words.
    bounded = registry.execute(ToolCall("c2", "forecast", {"query": {"city": "Oslo", "days": 9}}))
    assert bounded.is_error and "query" in bounded.content and "9" in bounded.content


def test_an_explicit_schema_with_a_model_parameter_is_converted_too() -> None:
    received: list[Any] = []
    registry = ToolRegistry(filter="*")

    def locate(place: Place) -> str:
        received.append(place)
        return "ok"

    schema = {"type": "object", "properties": {"place": {"type": "object"}}}
    registry.register(Tool("locate", parameters=schema), locate)
    assert (
        registry.execute(ToolCall("c1", "locate", {"place": {"lat": 1, "lon": 2}})).content == "ok"
    )
    assert received == [Place(lat=1, lon=2)]
    assert registry.execute(ToolCall("c2", "locate", {"place": {"lat": "north"}})).is_error


def test_two_models_with_one_name_are_refused() -> None:
    first = pydantic.create_model("Item", name=(str, ...))
    second = pydantic.create_model("Item", price=(float, ...))
    holder_a = pydantic.create_model("A", item=(first, ...))
    holder_b = pydantic.create_model("B", item=(second, ...))
    registry = ToolRegistry(filter="*")

    def clash(a: Any, b: Any) -> str:
        return "never"

    clash.__annotations__ = {"a": holder_a, "b": holder_b, "return": str}

    with pytest.raises(ToolDefinitionError, match="two different models are named 'Item'"):
        registry.register(clash)


def test_toolwire_does_not_import_pydantic() -> None:
    code = (
        "import sys, toolwire\n"
        "r = toolwire.ToolRegistry(filter='*')\n"
        "@r.tool\n"
        "def f(a: int) -> int:\n"
        "    return a\n"
        "assert r.execute(toolwire.ToolCall('c', 'f', {'a': 1})).content == '1'\n"
        "assert 'pydantic' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
