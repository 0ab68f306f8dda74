"""The ``judge`` scorer kind: :class:`JudgeScorer` (its fields and checks are
:mod:`._fields`'; the model call, which imports Pydantic AI when a judge first runs, is
:mod:`._call`'s)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from autobench.core.scoring._base import ScorerResolutionError, ScoringCall
from autobench.judge._fields import JudgeFields, JudgeModelTarget
from autobench.records import ScoreRecord


class JudgeScorer(JudgeFields):
    """``judge: {model, rubric, inputs, scale, examples, pricing, timeout, retries, limits}``: a
    model grades the run against a rubric.

    * ``model``: a Pydantic AI model string (``openai:gpt-4o-mini``, ``test``), an
      OpenAI-compatible endpoint (:class:`JudgeEndpoint`) or a model object from the
      user's code (:class:`JudgeModelTarget`).
    * ``rubric``: the grading instructions, inline or ``file://path`` (relative to the
      spec). Tracked as an asset ``rubric.<scorer name>`` of kind ``rubric``: each run
      records the version it was judged with.
    * ``inputs``: name -> dotted path of what the judge reads (default
      ``{output: output}``); a list of paths names each by its last step. A path that
      does not resolve is a scorer error of that run.
    * ``scale``: ``pass_fail`` (the score is a bool), ``{min, max}`` (an int) or
      ``{labels: [...]}`` (one of the strings).
    * ``examples``: few-shot :class:`JudgeExample` entries, checked against the scale.
    * ``pricing``: a pricing file (the ``token_cost`` format) pricing the judge's calls.
    * ``timeout`` (seconds, per attempt) and ``retries`` (further attempts after a call
      that raised, timed out or gave a malformed reply).
    * ``limits``: the judge's rate limits (:class:`~autobench.core.spec._models.LimitSpec`:
      ``max_concurrency``, ``requests_per_minute``, ``tokens_per_minute``), held per model
      across every run, re-score and pairwise judging of the process (:mod:`._limits`);
      the wait is the observation ``judge.time.queue``.

    The judge's reason is the score's ``reason``. A reply that is malformed or off the
    scale after every attempt is a scorer error of that run, never a task failure. The
    judge's tokens, requests and cost are observations ``judge.tokens.input``,
    ``judge.tokens.output``, ``judge.request.count``, ``judge.cost`` (see
    :mod:`._call`), never the application's ``llm.tokens.*`` or ``money.cost``.
    """

    def prepare(self, base_dir: Path | None) -> JudgeScorer:
        """Read the rubric and pricing files (relative to ``base_dir``), track the rubric,
        resolve a ``{python: ...}`` model. Raises :class:`ScorerResolutionError`."""
        from autobench.core.tracking import track
        from autobench.core.tracking._describe import text_hash

        bound = self.model_copy()
        text, source = self._read_rubric(base_dir)
        version = track.record(
            "rubric",
            self.name,
            {"text": text},
            source_path=source,
            source_hash=text_hash(text) if source else None,
        )
        bound._rubric_text = text
        bound._rubric_version = version.version
        if self.pricing is not None:
            from autobench.core.pricing import PricingError, load_pricing_table

            relative = self.pricing.removeprefix("file://")
            path = Path(relative) if base_dir is None else base_dir / relative
            try:
                bound._pricing_table = load_pricing_table(path)
            except PricingError as exc:
                where = f"{self.origin}: " if self.origin else ""
                raise ScorerResolutionError(
                    f"{where}judge scorer '{self.name}' pricing: {exc}"
                ) from None
        if isinstance(self.model, JudgeModelTarget):
            from autobench.judge._call import resolve_model_target

            bound._model_object = resolve_model_target(self, base_dir)
        return bound

    def definition_content(self) -> dict[str, str]:
        """``{"rubric_sha256": ...}`` for a ``file://`` rubric once :meth:`prepare` read it:
        an edited rubric file is a new definition of the judge (a re-scoring of its own)."""
        if not self.rubric.startswith("file://") or self._rubric_text is None:
            return {}
        return {"rubric_sha256": hashlib.sha256(self._rubric_text.encode()).hexdigest()}

    async def score(self, call: ScoringCall) -> ScoreRecord:
        from autobench.judge._call import judge_run

        return await judge_run(self, call)
