"""The support benchmark's judge model, offline: a Pydantic AI ``FunctionModel`` that grades
by a fixed rule, so the example runs with no key and no network.

The rule reads what a real judge would be given: the rubric (the model's instructions) and
the ``<facts>`` and ``<answer>`` inputs. An answer passes when it states every fact (each
matched case-insensitively); when the rubric also forbids promises beyond the policy (it
mentions "guarantee"), an answer with "guarantee" or "always" fails too. Token usage is
Pydantic AI's estimate for function models, priced by ``judge_pricing.yaml`` under the
model name ``support-judge-offline``.

Asked to compare two answers (``autobench judge pairwise``: the reply has a ``winner``, the
answers come as ``<first_answer>`` and ``<second_answer>``), the same model counts, for each
answer, the facts it states less the promises it makes ("guarantee", "always"), and prefers
the answer with more; equal counts are a tie. The rule reads the content, never the order.

``model()`` returns that model, or the Pydantic AI model named by ``SUPPORT_JUDGE_MODEL``
(``openai:gpt-4o-mini``, say) when it is set: ``live_judge.py`` sets it for a real judge.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models import Model, infer_model
from pydantic_ai.models.function import AgentInfo, FunctionModel

OFFLINE_NAME = "support-judge-offline"
PROMISES = ("guarantee", "always")


def _tag(prompt: str, name: str) -> str:
    found = re.search(rf"<{name}>\s*(.*?)\s*</{name}>", prompt, re.DOTALL)
    return found.group(1) if found else ""


def _standing(answer: str, facts: list[str]) -> tuple[int, list[str]]:
    """How well ``answer`` states the policy: facts stated less promises made, and the
    promises."""
    text = answer.lower()
    promised = [word for word in PROMISES if word in text]
    return sum(fact.lower() in text for fact in facts) - len(promised), promised


def _compare(prompt: str, facts: list[str]) -> tuple[str, str]:
    """The pairwise rule above: ``(reason, winner)``."""
    first, first_promises = _standing(_tag(prompt, "first_answer"), facts)
    second, second_promises = _standing(_tag(prompt, "second_answer"), facts)
    if first == second:
        return f"both state the policy as well (standing {first})", "tie"
    winner = "first" if first > second else "second"
    promises = first_promises if winner == "second" else second_promises
    reason = f"the {winner} answer states more of the policy ({max(first, second)} to "
    reason += f"{min(first, second)}, facts less promises)"
    if promises:
        reason += f"; the other promises {', '.join(promises)}"
    return reason, winner


def grade(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The offline judge's reply: a reason and a pass/fail verdict by the rule above, or a
    ``winner`` (first, second, tie) when asked to compare two answers."""
    request = messages[-1]
    rubric = getattr(request, "instructions", None) or ""
    prompt = "\n".join(
        part.content
        for part in getattr(request, "parts", ())
        if isinstance(getattr(part, "content", None), str)
    )
    facts = [fact for fact in json.loads(_tag(prompt, "facts") or "[]")]
    tool = info.output_tools[0]
    if "winner" in tool.parameters_json_schema.get("properties", {}):
        reason, winner = _compare(prompt, facts)
        arguments = json.dumps({"reason": reason, "winner": winner})
        return ModelResponse(parts=[ToolCallPart(tool.name, arguments)])
    answer = _tag(prompt, "answer").lower()
    missing = [fact for fact in facts if fact.lower() not in answer]
    promised = [word for word in PROMISES if word in answer] if "guarantee" in rubric else []
    if missing:
        reason, verdict = f"does not state: {'; '.join(missing)}", "fail"
    elif promised:
        reason, verdict = f"promises beyond the policy ({', '.join(promised)})", "fail"
    else:
        reason, verdict = "states every fact of the policy", "pass"
    arguments = json.dumps({"reason": reason, "verdict": verdict})
    return ModelResponse(parts=[ToolCallPart(tool.name, arguments)])


def model() -> Model | Any:
    """The judge model: offline unless ``SUPPORT_JUDGE_MODEL`` names a real one."""
    live = os.environ.get("SUPPORT_JUDGE_MODEL")
    if live:
        return infer_model(live)
    return FunctionModel(grade, model_name=OFFLINE_NAME)
