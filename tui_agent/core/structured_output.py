"""`--json-schema` (the SDK's `output_format={"type": "json_schema", "schema": ...}`): a final answer that
conforms to a JSON Schema, done as Claude Code 2.1.197 does it.

- The model is offered a `StructuredOutput` tool whose input schema IS the user's schema (Claude Code's
  name, description and result texts).
- A call is validated against the schema (the `jsonschema` package; messages in Ajv's words, as Claude
  Code reports them): a mismatch is an is_error result "Output does not match required schema: ..." so
  the model tries again; after MAX_STRUCTURED_OUTPUT_RETRIES (5) failed calls the run ends with
  `error_max_structured_output_retries`.
- A valid call ends the run at once (no further request): the result's `structured_output` is the value,
  its `result` the value as compact JSON.
- A response that ends without calling it gets one reminder per prompt (Claude Code's
  `[structured-output-enforce]` message); if the model still answers in prose, the run ends as usual,
  without `structured_output`.
Only the main conversation has the tool: subagents' registries are made without it, and the gate
ignores any agent but its own (subagents share the parent's services).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ConfigDict

from ..tools.base import Tool, ToolContext, ToolError, ToolInput, ToolOutput

STRUCTURED_OUTPUT = "StructuredOutput"
SERVICE_KEY = "structured_output"
DESCRIPTION = (
    "Use this tool to return your final response in the requested structured format. You MUST call this "
    "tool exactly once at the end of your response to provide the structured output."
)
PROVIDED = "Structured output provided successfully"
MISMATCH = "Output does not match required schema: "
ENFORCE = f"[structured-output-enforce] You MUST call the {STRUCTURED_OUTPUT} tool to complete this request. Call this tool now."
RETRIES_ENV = "MAX_STRUCTURED_OUTPUT_RETRIES"
DEFAULT_MAX_RETRIES = 5
END_REASON = "max_structured_output_retries"


class SchemaProblem(ValueError):
    """`--json-schema` is not JSON, or not a JSON Schema (the message says which, for the user)."""


def load_schema(text: str) -> dict[str, Any]:
    """The schema of `--json-schema TEXT`, checked against its metaschema."""
    from jsonschema import SchemaError, validators

    try:
        schema = json.loads(text)
    except ValueError as exc:
        raise SchemaProblem(f"--json-schema is not valid JSON: {exc}") from None
    if not isinstance(schema, dict):
        raise SchemaProblem("--json-schema must be a JSON object (a JSON Schema)")
    try:
        validators.validator_for(schema).check_schema(schema)
    except SchemaError as exc:
        raise SchemaProblem(f"--json-schema is not a valid JSON Schema: {exc.message}") from None
    return schema


# Ajv's messages (what Claude Code's validator says), for the keywords a schema mostly uses.
def _ajv_message(error: Any) -> str:
    kind, value = error.validator, error.validator_value
    if kind == "required":
        missing = [name for name in value if isinstance(error.instance, dict) and name not in error.instance]
        return f"must have required property '{missing[0] if missing else value[0]}'"
    simple = {
        "additionalProperties": "must NOT have additional properties",
        "enum": "must be equal to one of the allowed values",
        "const": "must be equal to constant",
        "type": f"must be {','.join(value) if isinstance(value, list) else value}",
        "minimum": f"must be >= {value}", "maximum": f"must be <= {value}",
        "exclusiveMinimum": f"must be > {value}", "exclusiveMaximum": f"must be < {value}",
        "minLength": f"must NOT have fewer than {value} characters", "maxLength": f"must NOT have more than {value} characters",
        "minItems": f"must NOT have fewer than {value} items", "maxItems": f"must NOT have more than {value} items",
        "pattern": f'must match pattern "{value}"', "format": f'must match format "{value}"',
    }
    return simple.get(kind, error.message)


def _path(error: Any) -> str:
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in error.absolute_path]
    return "/" + "/".join(parts) if parts else "root"


def schema_problems(validator: Any, value: Any) -> list[str]:
    """Every way `value` misses the schema, `"<path or root>: <message>"` as Claude Code lists them."""
    return [f"{_path(e)}: {_ajv_message(e)}" for e in validator.iter_errors(value)]


class StructuredOutputInput(ToolInput):
    """Any JSON object: the tool itself validates it against the user's schema (with Ajv's words)."""

    model_config = ConfigDict(extra="allow", strict=False)


@dataclass(slots=True)
class StructuredOutputGate:
    """One agent's structured output for the prompt in progress: the value, the failed calls, the reminder."""

    owner: Any
    validator: Any
    max_failures: int = DEFAULT_MAX_RETRIES
    value: Any = None
    has_value: bool = False
    failures: int = 0
    reminded: bool = False

    def accept(self, value: dict[str, Any]) -> None:
        """Validate one call's input: kept when it conforms, else ToolError with what is wrong."""
        problems = schema_problems(self.validator, value)
        if problems:
            self.failures += 1
            raise ToolError(MISMATCH + ", ".join(problems))
        self.value, self.has_value = value, True

    def after_turn(self, agent: Any, has_tools: bool) -> Literal["continue"] | tuple[str, str, str] | None:
        """After a response and its tools: (reason, detail, result) to end the run, "continue" when a
        reminder was added to the history, None to let the loop decide as usual."""
        if agent is not self.owner:
            return None
        if self.has_value:
            return ("completed", "", json.dumps(self.value, ensure_ascii=False, separators=(",", ":")))
        if has_tools:
            if self.failures >= self.max_failures:
                return (END_REASON, f"Failed to provide valid structured output after {self.max_failures} attempts", "")
            return None
        if self.reminded:
            return None  # reminded once already this prompt: the answer stands as it is
        self.reminded = True
        agent.record({"role": "user", "content": [{"type": "text", "text": ENFORCE}]})
        return "continue"

    def take(self, agent: Any) -> Any:
        """The value for the run's result (None without one); the next prompt starts afresh."""
        if agent is not self.owner:
            return None
        value = self.value if self.has_value else None
        self.value, self.has_value, self.failures, self.reminded = None, False, 0, False
        return value


class StructuredOutputTool(Tool[StructuredOutputInput]):
    name = STRUCTURED_OUTPUT
    description = DESCRIPTION
    Input = StructuredOutputInput
    bookkeeping = True  # as in Claude Code: always allowed, never asks

    def __init__(self, schema: dict[str, Any], gate: StructuredOutputGate) -> None:
        self.schema = schema
        self.gate = gate

    def is_read_only(self, input: StructuredOutputInput) -> bool:
        return True

    def summarize(self, input: StructuredOutputInput) -> str:
        return json.dumps(input.model_extra or {}, ensure_ascii=False, separators=(", ", ": "))[:200]

    def input_schema(self) -> dict[str, Any]:
        return self.schema

    async def call(self, input: StructuredOutputInput, ctx: ToolContext) -> ToolOutput:
        value = dict(input.model_extra or {})
        self.gate.accept(value)
        return ToolOutput(PROVIDED, data={"structured_output": value})


class StructuredOutputRegistry:
    """The agent's registry plus StructuredOutput; `restricted` (a subagent's) is made without it."""

    def __init__(self, inner: Any, tool: StructuredOutputTool) -> None:
        self.inner = inner
        self.tool = tool

    def __getattr__(self, name: str) -> Any:  # decorate_request, MCP's extras: the inner registry's
        return getattr(self.inner, name)

    def find(self, name: str) -> Any:
        return self.tool if name == self.tool.name else self.inner.find(name)

    @property
    def tools(self) -> list[Any]:
        return [*self.inner.tools, self.tool]

    @property
    def names(self) -> tuple[str, ...]:
        return (*self.inner.names, self.tool.name)

    def api_definitions(self) -> list[dict[str, Any]]:
        return [*self.inner.api_definitions(), self.tool.api_definition()]

    def restricted(self, *args: Any, **kwargs: Any) -> Any:
        return self.inner.restricted(*args, **kwargs)


def max_failures(environ: dict[str, str] | None = None) -> int:
    raw = (os.environ if environ is None else environ).get(RETRIES_ENV, "")
    return int(raw) if raw.strip().isdigit() and int(raw) > 0 else DEFAULT_MAX_RETRIES


def install_structured_output(agent: Any, schema: dict[str, Any] | None) -> None:
    """Give `agent` (a front end's main agent) the StructuredOutput tool for `schema` (None: nothing)."""
    if schema is None:
        return
    from jsonschema import validators

    gate = StructuredOutputGate(agent, validators.validator_for(schema)(schema), max_failures())
    agent.context.services[SERVICE_KEY] = gate
    agent.registry = StructuredOutputRegistry(agent.registry, StructuredOutputTool(schema, gate))


def structured_step(agent: Any, has_tools: bool) -> Literal["continue"] | tuple[str, str, str] | None:
    """The loop's question after each turn (see StructuredOutputGate.after_turn); None without a schema."""
    gate = agent.context.services.get(SERVICE_KEY)
    return None if gate is None else gate.after_turn(agent, has_tools)


def take_structured_output(agent: Any) -> Any:
    """The run's structured output for its result (None without a schema or a valid call)."""
    gate = agent.context.services.get(SERVICE_KEY)
    return None if gate is None else gate.take(agent)
