from typing import Any, Optional

from google.adk.evaluation.common import base

_Base = base("forbid")


class FunctionCall(_Base):
    id: Optional[str] = None
    args: Optional[dict[str, Any]] = None
    name: Optional[str] = None


class FunctionResponse(_Base):
    id: Optional[str] = None
    name: Optional[str] = None
    response: Optional[dict[str, Any]] = None


class Part(_Base):
    text: Optional[str] = None
    thought: Optional[bool] = None
    function_call: Optional[FunctionCall] = None
    function_response: Optional[FunctionResponse] = None


class Content(_Base):
    parts: Optional[list[Part]] = None
    role: Optional[str] = None
