"""pydantic and FastAPI interop (pydantic is not a dependency of toolwire): the canonical types
as model fields and response bodies, JSON through ``json_default``, and tools from models."""

from __future__ import annotations

import json
from typing import Any

import pytest
import toolwire
from toolwire import (
    Diagnostic,
    InvalidToolCall,
    ReasoningDelta,
    TextDelta,
    Tool,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolResult,
)

pydantic = pytest.importorskip("pydantic", reason="pydantic is in the test extra")
from pydantic import BaseModel, Field, TypeAdapter, ValidationError  # noqa: E402

Event = TextDelta | ReasoningDelta | ToolCallStart | ToolCallDelta | ToolCallEnd | InvalidToolCall

CALL = ToolCall("call_1", "get_weather", {"city": "Paris", "days": [1, 2.5, None]})
INVALID = InvalidToolCall('{"name": "f", "arguments": {', "unterminated", "hermes", 1, 7, "f")
RESULT = ToolResult(
    "call_1",
    "get_weather",
    [{"type": "text", "text": "sunny"}],
    is_error=True,
    diagnostics=(Diagnostic("warning", "execution", "slow answer", "call_1"),),
)
EVENTS: list[Any] = [
    TextDelta("Checking."),
    ReasoningDelta("Paris?"),
    ToolCallStart(0, "call_1", "get_weather"),
    ToolCallDelta(0, '{"city": "Paris"'),
    ToolCallEnd(0, CALL),
    INVALID,
]


class Turn(BaseModel):
    calls: list[ToolCall | InvalidToolCall]
    result: ToolResult
    events: list[Event]
    first: ToolCall | None = None


def turn() -> Turn:
    return Turn(calls=[CALL, INVALID], result=RESULT, events=EVENTS, first=CALL)


def test_fields_keep_the_objects_and_dump_as_to_dict() -> None:
    model = turn()
    assert model.calls[0] is CALL and model.events[4] is EVENTS[4]
    dumped = model.model_dump(mode="json")
    assert dumped["calls"] == [CALL.to_dict(), INVALID.to_dict()]
    assert dumped["result"] == RESULT.to_dict()
    assert dumped["events"] == [event.to_dict() for event in EVENTS]
    assert dumped["first"] == CALL.to_dict()
    # A result without diagnostics is written without the key, as to_dict writes it.
    plain = ToolResult("call_2", "f", "ok")
    assert TypeAdapter(ToolResult).dump_python(plain) == plain.to_dict()


def test_json_round_trip() -> None:
    model = turn()
    text = model.model_dump_json()
    assert json.loads(text)["events"][1] == {"kind": "reasoning_delta", "text": "Paris?"}
    back = Turn.model_validate_json(text)
    assert back == model
    assert [type(e) for e in back.events] == [type(e) for e in EVENTS]
    assert Turn.model_validate(json.loads(text)) == model


def test_validation_from_to_dict_objects_and_errors() -> None:
    assert TypeAdapter(ToolCall).validate_python({"name": "f"}).arguments == {}
    assert TypeAdapter(ToolCall).validate_python({"name": "f", "id": "c"}) == ToolCall("c", "f")
    with pytest.raises(ValidationError, match="non-empty string name"):
        TypeAdapter(ToolCall).validate_python({"name": ""})
    with pytest.raises(ValidationError, match="Input should be an object"):
        TypeAdapter(ToolCall).validate_json('{"name": "f", "arguments": 3}')
    # An event's kind is checked when given, so a union of events picks the right class.
    events = TypeAdapter(list[Event]).validate_json(
        '[{"kind": "reasoning_delta", "text": "a"}, {"kind": "text_delta", "text": "b"}]'
    )
    assert events == [ReasoningDelta("a"), TextDelta("b")]
    with pytest.raises(ValidationError, match="'text_delta'"):
        TypeAdapter(TextDelta).validate_python({"kind": "reasoning_delta", "text": "a"})
    assert TypeAdapter(ToolResult).validate_python(
        {"tool_call_id": None, "name": None, "content": "x"}
    ) == ToolResult(None, None, "x")


def test_json_schema_describes_the_to_dict_objects() -> None:
    schema = Turn.model_json_schema()
    defs = schema["$defs"]
    assert defs["ToolCall"]["required"] == ["name"]
    assert defs["ToolCall"]["properties"]["arguments"]["type"] == "object"
    assert defs["ToolCallEnd"]["properties"]["call"] == {"$ref": "#/$defs/ToolCall"}
    assert defs["TextDelta"]["properties"]["kind"]["const"] == "text_delta"
    serialized = Turn.model_json_schema(mode="serialization")["$defs"]
    assert serialized["ToolCall"]["required"] == ["id", "name", "arguments"]
    assert serialized["ToolResult"]["required"] == ["tool_call_id", "name", "content"]


def test_fastapi_response_and_request_bodies() -> None:
    fastapi = pytest.importorskip("fastapi", reason="fastapi is in the test extra")
    from fastapi.testclient import TestClient

    app = fastapi.FastAPI()

    @app.post("/extract")
    def extract(body: dict[str, str]) -> list[ToolCall | InvalidToolCall]:
        return toolwire.extract(body["text"], on_error="keep")

    @app.post("/echo")
    def echo(model: Turn) -> Turn:
        return model

    client = TestClient(app)
    text = '~~~tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n~~~'
    [call] = client.post("/extract", json={"text": text}).json()
    assert call["name"] == "get_weather" and call["arguments"] == {"city": "Paris"}
    body = turn().model_dump(mode="json")
    echoed = client.post("/echo", json=body)
    assert echoed.status_code == 200 and echoed.json() == body
    assert Turn.model_validate(echoed.json()) == turn()
    bad = client.post("/echo", json={**body, "first": {"name": 3}})
    assert bad.status_code == 422
    openapi = client.get("/openapi.json").json()
    assert "ToolCall" in json.dumps(openapi["components"]["schemas"])


def test_json_default() -> None:
    values = [CALL, INVALID, RESULT, *EVENTS, Tool("f"), toolwire.parse_text("hi")]
    text = json.dumps(values, default=toolwire.json_default)
    assert json.loads(text) == [value.to_dict() for value in values]
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        json.dumps([{1}], default=toolwire.json_default)


class Weather(BaseModel):
    """Current weather for a city."""

    city: str = Field(description="City name")
    days: int = 1


def test_tool_from_pydantic() -> None:
    tool = Tool.from_pydantic(Weather)
    assert (tool.name, tool.description) == ("Weather", "Current weather for a city.")
    assert tool.parameters == Weather.model_json_schema()
    assert tool.parameters["required"] == ["city"]
    named = Tool.from_pydantic(Weather, name="get_weather", description="")
    assert (named.name, named.description) == ("get_weather", "")
    with pytest.raises(TypeError, match="pydantic model class"):
        Tool.from_pydantic(dict)  # type: ignore[arg-type]
    # Arguments the model accepts pass the derived schema; the model reads them back.
    assert toolwire.validate_arguments(tool, {"city": "Oslo"}) == []
    assert toolwire.validate_arguments(tool, {"days": 2}) != []
    assert Weather.model_validate({"city": "Oslo"}).days == 1


@pytest.mark.parametrize("provider", toolwire.PROVIDERS)
def test_encode_tools_takes_pydantic_models(provider: Any) -> None:
    assert toolwire.encode_tools([Weather], provider) == toolwire.encode_tools(
        [Tool.from_pydantic(Weather)], provider
    )
    [back] = toolwire.decode_tools(toolwire.encode_tools([Weather], provider), provider)
    assert back.name == "Weather" and back.parameters == Weather.model_json_schema()


def test_prompt_augmentation_takes_pydantic_models() -> None:
    prompt = toolwire.augment_system_prompt(None, [Weather], compact=True)
    assert prompt.endswith("- Weather(city: string, days?: integer) — Current weather for a city.")
