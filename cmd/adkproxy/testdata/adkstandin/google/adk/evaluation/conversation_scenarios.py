from typing import Optional

from .common import EvalBaseModel


class ConversationScenario(EvalBaseModel):
    starting_prompt: str
    conversation_plan: str
    user_persona: Optional[dict] = None
