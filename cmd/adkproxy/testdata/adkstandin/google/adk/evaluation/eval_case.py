from typing import Optional, Union

from google.genai import types as genai_types

from .common import EvalBaseModel
from .conversation_scenarios import ConversationScenario  # noqa: F401 (re-exported as ADK does)


class IntermediateData(EvalBaseModel):
    tool_uses: list[genai_types.FunctionCall] = []
    tool_responses: list[genai_types.FunctionResponse] = []
    intermediate_responses: list[tuple[str, list[genai_types.Part]]] = []


class InvocationEvent(EvalBaseModel):
    author: str
    content: Optional[genai_types.Content] = None


class InvocationEvents(EvalBaseModel):
    invocation_events: list[InvocationEvent] = []


class Invocation(EvalBaseModel):
    invocation_id: str = ""
    user_content: genai_types.Content
    final_response: Optional[genai_types.Content] = None
    intermediate_data: Optional[Union[IntermediateData, InvocationEvents]] = None
    creation_timestamp: float = 0.0
    rubrics: Optional[list[dict]] = None
    app_details: Optional[dict] = None
