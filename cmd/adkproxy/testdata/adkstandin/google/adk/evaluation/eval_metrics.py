from enum import Enum
from typing import Optional

from .common import EvalBaseModel, base


class EvalStatus(Enum):
    PASSED = 1
    FAILED = 2
    NOT_EVALUATED = 3


class BaseCriterion(base("allow")):
    threshold: float


class EvalMetric(EvalBaseModel):
    metric_name: str
    threshold: Optional[float] = None
    criterion: Optional[BaseCriterion] = None
    custom_function_path: Optional[str] = None
