"""A small JSON-Schema checker for the subset pydantic writes (``$ref``, ``anyOf``, ``type``, ``enum``, ``items``,
``properties``), strict about keys: Harbor ignores a key it does not know, so a misspelt field would pass there
silently; here it fails."""

from __future__ import annotations

import json
import re
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "harbor" / "task_config_schema.json"
TYPES = {"object": dict, "string": str, "array": list, "boolean": bool, "null": type(None)}


def load_fixture() -> dict:
    return json.loads(FIXTURE.read_text())


def _type_ok(value, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[name])


def problems(value, schema: dict, defs: dict, where: str = "") -> list[str]:
    """Why ``value`` does not fit ``schema`` (empty when it does)."""
    if "$ref" in schema:
        return problems(value, defs[schema["$ref"].rsplit("/", 1)[1]], defs, where)
    if "anyOf" in schema:
        tries = [problems(value, option, defs, where) for option in schema["anyOf"]]
        return [] if any(not t for t in tries) else [p for t in tries for p in t][:3]
    out = []
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if "type" in schema and not _type_ok(value, schema["type"]):
        return out + [f"{where}: {value!r} is not of type {schema['type']}"]
    if isinstance(value, dict) and "properties" in schema:
        for key, sub in value.items():
            if key not in schema["properties"]:
                out.append(f"{where}.{key}: not a field of {schema.get('title', 'this table')}")
            else:
                out += problems(sub, schema["properties"][key], defs, f"{where}.{key}")
        out += [f"{where}.{k}: required" for k in schema.get("required", []) if k not in value]
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            out += problems(item, schema["items"], defs, f"{where}[{i}]")
    return out


def task_toml_problems(data: dict, fixture: dict | None = None) -> list[str]:
    """What is wrong with a parsed task.toml for Harbor 0.26's TaskConfig: schema misfits and deprecated fields."""
    fixture = fixture or load_fixture()
    schema = fixture["schema"]
    out = problems(data, schema, schema.get("$defs", {}), "task.toml")
    for dotted in fixture["deprecated"]:
        node = data
        for part in dotted.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            out.append(f"task.toml.{dotted}: deprecated in Harbor 0.26")
    name = (data.get("task") or {}).get("name")
    if name is not None and not re.match(fixture["task_name_pattern"], name):
        out.append(f"task.toml.task.name: {name!r} is not org/name")
    return out
