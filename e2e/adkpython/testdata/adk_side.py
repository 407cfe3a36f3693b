"""ADK for Python's side of the oracle test (e2e/adkpython).

run APP TURNS_JSON OUT_JSON [RECORDINGS_DIR]: plays the user turns against
the app's agent under InMemoryRunner (the model is whatever
GOOGLE_GEMINI_BASE_URL points at: adkproxy record or replay), answering
every tool confirmation with an approval, and writes the session's events;
with RECORDINGS_DIR, ADK's own RecordingsPlugin records every model and
tool call into RECORDINGS_DIR/generated-recordings.yaml, as ADK's
conformance corpus is made; without it, ADK's eval request intercepter
captures every model request, and OUT_JSON.app.json holds the app details
ADK's evaluator builds from them, by invocation id (what adk eval hands
its judges: each agent's instructions and tool declarations).

evaluate SESSIONS_JSON EVALSET CONFIG OUT_JSON: ADK's own view of each
session (EvaluationGenerator.convert_events_to_eval_invocations) scored by
ADK's LocalEvalService against the eval set, runs of a case pooled as
AgentEvaluator pools num_runs; writes each case's status and scores. A
session's "app" holds its app details (run's OUT_JSON.app.json). An
LLM-judged metric calls its judge where GOOGLE_GEMINI_BASE_URL points.

templates DIR: writes ADK's own judge template texts as DIR/<kind>.txt,
for adkproxy score --judge-prompts.
"""

import asyncio
import json
import statistics
import sys

from google.adk.cli.plugins.recordings_plugin import RecordingsPlugin
from google.adk.evaluation.app_details import AppDetails
from google.adk.evaluation.base_eval_service import EvaluateConfig, EvaluateRequest, InferenceResult
from google.adk.evaluation.eval_config import EvalConfig, get_eval_metrics_from_config
from google.adk.evaluation.eval_set import EvalSet
from google.adk.evaluation.evaluation_generator import EvaluationGenerator
from google.adk.evaluation.evaluator import EvalStatus
from google.adk.evaluation.in_memory_eval_sets_manager import InMemoryEvalSetsManager
from google.adk.evaluation.local_eval_service import LocalEvalService
from google.adk.evaluation.request_intercepter_plugin import _RequestIntercepterPlugin
from google.adk.events import Event
from google.adk.runners import InMemoryRunner
from google.genai import types

import agents

APP = "oracle"


async def run(app, turns, out, recordings=None):
  agent = agents.AGENTS[app]()
  intercepter = None if recordings else _RequestIntercepterPlugin(name="request_intercepter")
  plugins = [RecordingsPlugin()] if recordings else [intercepter]
  runner = InMemoryRunner(agent=agent, app_name=APP, plugins=plugins)
  session = await runner.session_service.create_session(app_name=APP, user_id="u")
  for index, text in enumerate(turns):
    message = types.Content(role="user", parts=[types.Part(text=text)])
    delta = {"_adk_recordings_config": {"dir": recordings, "user_message_index": index}} if recordings else None
    while message is not None:
      answer = None
      async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message, state_delta=delta):
        for call in event.get_function_calls():
          if call.name == "adk_request_confirmation":
            answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
                id=call.id, name=call.name, response={"confirmed": True}))])
      message = answer
  session = await runner.session_service.get_session(app_name=APP, user_id="u", session_id=session.id)
  with open(out, "w") as f:
    json.dump([e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in session.events], f)
  if intercepter:
    details = EvaluationGenerator._get_app_details_by_invocation_id(session.events, intercepter)
    with open(out + ".app.json", "w") as f:
      json.dump({k: v.model_dump(mode="json") for k, v in details.items()}, f)


async def evaluate(sessions_path, evalset_path, config_path, out):
  with open(sessions_path) as f:
    sessions = json.load(f)  # [{"case": id, "events": [...]}], a case's runs in order
  with open(evalset_path) as f:
    eval_set = EvalSet.model_validate_json(f.read())
  with open(config_path) as f:
    metrics = get_eval_metrics_from_config(EvalConfig.model_validate_json(f.read()))
  manager = InMemoryEvalSetsManager()
  manager.create_eval_set(APP, eval_set.eval_set_id)
  for case in eval_set.eval_cases:
    manager.add_eval_case(APP, eval_set.eval_set_id, case)
  service = LocalEvalService(root_agent=agents.weather_agent(), eval_sets_manager=manager)
  inferences = []
  for s in sessions:
    events = [Event.model_validate(e) for e in s["events"]]
    app = {k: AppDetails.model_validate(v) for k, v in (s.get("app") or {}).items()}
    inferences.append(InferenceResult(app_name=APP, eval_set_id=eval_set.eval_set_id, eval_case_id=s["case"],
                                      inferences=EvaluationGenerator.convert_events_to_eval_invocations(events, app or None),
                                      session_id=s.get("session", "s")))
  by_case = {}
  views = {}
  for inf in inferences:
    views.setdefault(inf.eval_case_id, []).append(len(inf.inferences))
    _, result = await service._evaluate_single_inference_result(
        inference_result=inf, evaluate_config=EvaluateConfig(eval_metrics=metrics))
    by_case.setdefault(inf.eval_case_id, []).append(result)
  doc = {}
  for case_id, results in by_case.items():
    # AgentEvaluator's num_runs rule: per metric, the mean of every run's
    # per-invocation scores, PASSED when >= the threshold.
    case = {"invocations": views[case_id], "metrics": {}}
    status = EvalStatus.NOT_EVALUATED
    for m in metrics:
      per = [r for res in results for inv in res.eval_metric_result_per_invocation
             for r in inv.eval_metric_results if r.metric_name == m.metric_name]
      scores = [r.score for r in per if r.score is not None]
      score = statistics.mean(scores) if scores else None
      st = EvalStatus.NOT_EVALUATED if score is None else (
          EvalStatus.PASSED if score >= m.threshold else EvalStatus.FAILED)
      if len(results) == 1:
        overall = [r for r in results[0].overall_eval_metric_results if r.metric_name == m.metric_name][0]
        score, st = overall.score, overall.eval_status
      case["metrics"][m.metric_name] = {"score": score, "status": st.name}
      if st == EvalStatus.FAILED:
        status = EvalStatus.FAILED
      elif st == EvalStatus.PASSED and status != EvalStatus.FAILED:
        status = EvalStatus.PASSED
    case["status"] = status.name
    doc[case_id] = case
  with open(out, "w") as f:
    json.dump(doc, f, indent=1, sort_keys=True)


def templates(out):
  from google.adk.evaluation import final_response_match_v2, hallucinations_v1
  from google.adk.evaluation import rubric_based_final_response_quality_v1 as fr, rubric_based_tool_use_quality_v1 as tu
  for kind, text in {"final_response_match_v2": final_response_match_v2._FINAL_RESPONSE_MATCH_V2_PROMPT,
                     "hallucinations_v1_segmenter": hallucinations_v1._HALLUCINATIONS_V1_SEGMENTER_PROMPT,
                     "hallucinations_v1_validator": hallucinations_v1._HALLUCINATIONS_V1_VALIDATOR_PROMPT,
                     "rubric_based_final_response_quality_v1": fr._RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1_PROMPT,
                     "rubric_based_tool_use_quality_v1": tu._RUBRIC_BASED_TOOL_USE_QUALITY_V1_PROMPT}.items():
    with open(f"{out}/{kind}.txt", "w") as f:
      f.write(text)


if __name__ == "__main__":
  if sys.argv[1] == "templates":
    templates(sys.argv[2])
  elif sys.argv[1] == "run":
    asyncio.run(run(sys.argv[2], json.loads(sys.argv[3]), sys.argv[4], *sys.argv[5:6]))
  else:
    asyncio.run(evaluate(*sys.argv[2:6]))
