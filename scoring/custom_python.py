# adkproxy's runner of an ADK custom metric function (code_config.name).
# Reads the request adkproxy gives custom metric commands on stdin, calls
# module.path.function(eval_metric, actual_invocations, expected_invocations,
# conversation_scenario) as ADK does, awaiting it when it is a coroutine, and
# prints the EvaluationResult as JSON. The arguments are ADK's pydantic
# objects when google.adk imports, else plain objects with the same
# attribute names (a missing attribute reads None, as an unset pydantic
# field does); then google.adk.* imports are served by a shim holding
# EvalStatus, EvaluationResult and PerInvocationResult, and a loose class for
# any other name, so a module written for adk eval imports unchanged. An
# exception is printed as {"adkproxy_python_error": ...}.
import asyncio
import enum
import importlib
import inspect
import json
import os
import sys
import traceback
import types
import importlib.abc
import importlib.util

# Keys whose values ADK keeps as dicts (FunctionCall.args,
# FunctionResponse.response, state), never as objects.
_DICT_KEYS = {"args", "response", "state"}


class _Obj:
    def __init__(self, fields):
        self.__dict__.update(fields)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None

    def __repr__(self):
        return "Obj(%r)" % self.__dict__


def _plain(v, key=None):
    if isinstance(v, dict):
        if key in _DICT_KEYS:
            return v
        return _Obj({k: _plain(x, k) for k, x in v.items()})
    if isinstance(v, list):
        if key == "intermediate_responses":
            return [(a, _plain(p)) for a, p in v]
        return [_plain(x) for x in v]
    return v


class _Loose:
    """An ADK class adkproxy does not model: takes any fields."""

    def __init__(self, *args, **fields):
        self.__dict__.update(fields)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None

    def __class_getitem__(cls, item):
        return cls


class EvalStatus(enum.Enum):
    PASSED = 1
    FAILED = 2
    NOT_EVALUATED = 3


class EvaluationResult(_Loose):
    def __init__(self, overall_score=None, overall_eval_status=EvalStatus.NOT_EVALUATED,
                 per_invocation_results=None, **fields):
        super().__init__(**fields)
        self.overall_score = overall_score
        self.overall_eval_status = overall_eval_status
        self.per_invocation_results = per_invocation_results or []


class PerInvocationResult(_Loose):
    def __init__(self, actual_invocation=None, expected_invocation=None, score=None,
                 eval_status=EvalStatus.NOT_EVALUATED, **fields):
        super().__init__(**fields)
        self.actual_invocation = actual_invocation
        self.expected_invocation = expected_invocation
        self.score = score
        self.eval_status = eval_status


class _ShimModule(types.ModuleType):
    """A google.adk module where ADK is not installed: the result classes
    above by their names, any other name a _Loose class of its own."""

    known = {"EvalStatus": EvalStatus, "EvaluationResult": EvaluationResult,
             "PerInvocationResult": PerInvocationResult}
    made = {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self.known:
            return self.known[name]
        return self.made.setdefault(name, type(name, (_Loose,), {}))


class _ShimFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, names):
        self.names = names

    def find_spec(self, fullname, path, target=None):
        if any(fullname == n or fullname.startswith(n + ".") for n in self.names):
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return _ShimModule(spec.name)

    def exec_module(self, module):
        module.__path__ = []


def _install_shim():
    """Lets a metric module written for adk eval import google.adk where
    ADK is not installed."""
    names = ["google.adk"]
    try:
        importlib.import_module("google")
    except ImportError:
        names = ["google"]
    sys.meta_path.insert(0, _ShimFinder(names))


def _adk_args(req):
    from google.adk.evaluation.eval_case import Invocation
    from google.adk.evaluation.eval_metrics import EvalMetric
    try:
        from google.adk.evaluation.eval_case import ConversationScenario
    except ImportError:
        ConversationScenario = None

    def invs(lst):
        return None if lst is None else [Invocation.model_validate(i) for i in lst]

    scenario = req.get("conversation_scenario")
    if scenario is not None and ConversationScenario is not None:
        scenario = ConversationScenario.model_validate(scenario)
    return (EvalMetric.model_validate(req["eval_metric"]), invs(req["actual_invocations"]),
            invs(req.get("expected_invocations")), scenario)


def _plain_args(req):
    exp = req.get("expected_invocations")
    scenario = req.get("conversation_scenario")
    return (_plain(req["eval_metric"]), [_plain(i) for i in req["actual_invocations"]],
            None if exp is None else [_plain(i) for i in exp],
            None if scenario is None else _plain(scenario))


def _status(s):
    if isinstance(s, enum.Enum):
        return s.name  # ADK's names; newer ADK's INFORMATIONAL has no settled number
    return s


def _get(o, name):
    if isinstance(o, dict):
        return o.get(name)
    return getattr(o, name, None)


def _result(r):
    if r is None:
        raise TypeError("the metric function returned None, not an EvaluationResult")
    per = []
    for p in _get(r, "per_invocation_results") or []:
        per.append({"score": _get(p, "score"), "eval_status": _status(_get(p, "eval_status"))})
    out = {"overall_score": _get(r, "overall_score"),
           "overall_eval_status": _status(_get(r, "overall_eval_status")),
           "per_invocation_results": per}
    if _get(r, "overall_score") is None and _get(r, "overall_eval_status") is None and not per:
        raise TypeError("the metric function returned %s, which has no overall_score, "
                        "overall_eval_status or per_invocation_results" % type(r).__name__)
    return out


def main():
    path = sys.argv[1]
    for d in sys.argv[2:]:
        if d not in sys.path:
            sys.path.insert(0, d)
    req = json.load(sys.stdin)
    # What the metric prints goes to stderr: stdout carries the result.
    real_stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        module, _, name = path.rpartition(".")
        if not module:
            raise ImportError("code_config.name %r is not module.path.function" % path)
        try:
            import google.adk.evaluation  # noqa: F401
            have_adk = True
        except ImportError:
            have_adk = False
            _install_shim()
        fn = getattr(importlib.import_module(module), name)
        args = _adk_args(req) if have_adk else _plain_args(req)
        r = fn(*args)
        if inspect.isawaitable(r):
            r = asyncio.run(r)
        out = _result(r)
        out["adkproxy_objects"] = "adk" if have_adk else "plain"
    except BaseException:
        lines = traceback.format_exc().strip().splitlines()
        out = {"adkproxy_python_error": lines[-1] if lines else "unknown error"}
    json.dump(out, real_stdout)


main()
