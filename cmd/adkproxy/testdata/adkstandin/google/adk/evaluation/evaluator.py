from typing import Optional

from pydantic import BaseModel

from .eval_case import ConversationScenario, Invocation  # noqa: F401
from .eval_metrics import EvalStatus


class PerInvocationResult(BaseModel):
    actual_invocation: Invocation
    expected_invocation: Optional[Invocation] = None
    score: Optional[float] = None
    eval_status: EvalStatus = EvalStatus.NOT_EVALUATED


class EvaluationResult(BaseModel):
    overall_score: Optional[float] = None
    overall_eval_status: EvalStatus = EvalStatus.NOT_EVALUATED
    per_invocation_results: list[PerInvocationResult] = []
