"""The support benchmark's judge model, offline: a Pydantic AI ``FunctionModel`` that grades
by a fixed rule, so the example runs with no key and no network.

The rule reads what a real judge would be given: the rubric (the model's instructions) and
the ``<facts>`` and ``<answer>`` inputs. An answer passes when it states every fact (each
matched case-insensitively); when the rubric also forbids promises beyond the policy (it
mentions "guarantee"), an answer with "guarantee" or "always" fails too. Token usage is
Pydantic AI's estimate for function models, priced by ``judge_pricing.yaml`` under the
model name ``support-judge-offline``.

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


def grade(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The offline judge's reply: a reason and a pass/fail verdict by the rule above."""
    request = messages[-1]
    rubric = getattr(request, "instructions", None) or ""
    prompt = "\n".join(
        part.content
        for part in getattr(request, "parts", ())
        if isinstance(getattr(part, "content", None), str)
    )
    answer = _tag(prompt, "answer").lower()
    facts = [fact for fact in json.loads(_tag(prompt, "facts") or "[]")]
    missing = [fact for fact in facts if fact.lower() not in answer]
    promised = [word for word in PROMISES if word in answer] if "guarantee" in rubric else []
    if missing:
        reason, verdict = f"does not state: {'; '.join(missing)}", "fail"
    elif promised:
        reason, verdict = f"promises beyond the policy ({', '.join(promised)})", "fail"
    else:
        reason, verdict = "states every fact of the policy", "pass"
    arguments = json.dumps({"reason": reason, "verdict": verdict})
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, arguments)])


def model() -> Model | Any:
    """The judge model: offline unless ``SUPPORT_JUDGE_MODEL`` names a real one."""
    live = os.environ.get("SUPPORT_JUDGE_MODEL")
    if live:
        return infer_model(live)
    return FunctionModel(grade, model_name=OFFLINE_NAME)
