"""Run every compared model over the eval histories through the real pipeline, and score the outputs.

Each model compacts each stored history with `compact_stored`, so the byte-level post-check runs
exactly as in production, with `keep_recent=0`: every oversized return is summarized, since the
eval scores the summarizer, not the window.

Retention is scored on the facts later turns quote, and with `keep_quoted_facts` on the pipeline
hands exactly those facts to the summarizer (`_quoted`). So each model also runs *blind*, with
`keep_quoted_facts` off: its retention there is what the summarizer keeps on its own, the figure
for a return summarized before the conversation quotes it (an agent run's early turns), and the one
a score that the pipeline's help inflates cannot hide. The cache lives in a directory fresh for each run, so
the figures (calls, tokens, time) are not artifacts of an earlier run, unless the user's config
names a cache of its own.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from genai_prices import Usage, calc_price
from pydantic_ai.messages import BaseToolReturnPart, ModelRequest, ModelResponse, ToolReturnPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import FunctionModel

from ..core import JsonValue, SummarizerConfig, Turns, content_tokens
from ..extractive import detect_kind
from ..pipeline import (
    Candidate,
    Compactor,
    OriginalStore,
    Report,
    Summarizer,
    SummaryCache,
    is_deterministic,
    resolve_model,
)
from ..stored import StoredCompaction, StoredHistory, compact_stored
from ._baseline import HEAD, content_digest, head_model
from ._golden import Figures, Recorded
from ._metrics import ReturnScore, Tally, score_return


@dataclass(frozen=True)
class EvalHistory:
    name: str
    path: Path
    stored: StoredHistory


@dataclass(kw_only=True)
class HistoryScore:
    name: str
    returns: list[ReturnScore]
    tokens_before: int
    """Estimated tokens of the whole stored history, before and after."""
    tokens_after: int
    failures: list[str] = field(default_factory=list[str])
    typed_parts: int = 0
    """Tool returns pydantic-ai types (a `tool_kind`, a class of its own): never to be summarized."""
    typed_touched: int = 0
    """Of those, the ones the compacted history changed."""

    @property
    def tally(self) -> Tally:
        return _sum(score.tally for score in self.returns)


@dataclass(kw_only=True)
class ModelScore:
    name: str
    histories: list[HistoryScore]
    report: Report
    seconds: float
    price_usd: float | None
    """None when genai-prices does not know the model; 0 for the embedded ones."""
    blind: ModelScore | None = None
    """The same model with `keep_quoted_facts` off (see the module's docstring); None if it was off anyway."""

    @property
    def baseline(self) -> bool:
        return self.name == HEAD

    @property
    def overall(self) -> Tally:
        return _sum(history.tally for history in self.histories)

    @property
    def per_tool(self) -> dict[str, Tally]:
        return self._grouped(lambda score: score.tool_name)

    @property
    def per_kind(self) -> dict[str, Tally]:
        """Figures per content kind (`summarizer.extractive.ContentKind`)."""
        return self._grouped(lambda score: score.kind)

    @property
    def typed_parts(self) -> tuple[int, int]:
        """Typed tool returns seen, and how many of them compaction changed (should be none)."""
        return sum(h.typed_parts for h in self.histories), sum(h.typed_touched for h in self.histories)

    def _grouped(self, key: Callable[[ReturnScore], str]) -> dict[str, Tally]:
        groups: dict[str, Tally] = {}
        for history in self.histories:
            for score in history.returns:
                groups.setdefault(key(score), Tally()).add(score.tally)
        return dict(sorted(groups.items()))

    @property
    def history_tokens(self) -> tuple[int, int]:
        return sum(h.tokens_before for h in self.histories), sum(h.tokens_after for h in self.histories)


@dataclass(kw_only=True)
class EvalRun:
    config: SummarizerConfig
    """The config every model ran with (`keep_recent` 0)."""
    models: list[ModelScore]
    histories: list[str]
    min_chars: int = 0
    """Only returns whose JSON text is longer than this were scored."""
    skipped: list[str] = field(default_factory=list[str])
    """Files of the sources that were not histories, each with why."""
    recorded: Recorded | None = None
    """The figures recorded for these histories (golden/): the gate compares with them instead of the floors."""

    def settings(self) -> dict[str, object]:
        """What the figures depend on besides the summarizer: compared before recorded figures are."""
        config = self.config
        return {
            'threshold_tokens': config.threshold_tokens,
            'target_ratio': config.target_ratio,
            'quoted_ratio': config.quoted_ratio,
            'min_summary_tokens': config.min_summary_tokens,
            'keep_quoted_facts': config.keep_quoted_facts,
            'min_chars': self.min_chars,
            'histories': len(self.histories),
        }

    def figures(self) -> Figures:
        """Per model (not the baseline) and content kind, and overall: the shares kept in context, told and blind."""
        figures: Figures = {}
        for model in self.models:
            if model.baseline:
                continue
            blind = model.blind.per_kind if model.blind is not None else {}
            kinds = {**model.per_kind, 'overall': model.overall}
            blind_kinds = {**blind, 'overall': model.blind.overall} if model.blind is not None else {}
            figures[model.name] = {
                kind: {'kept': _rounded(tally.retention), 'blind': _rounded(_retention(blind_kinds.get(kind)))}
                for kind, tally in kinds.items()
            }
        return figures

    @property
    def retention_floor(self) -> float:
        """The floor for each model's retention: the blind one when the run did not pass quoted facts."""
        floors = self.config.eval
        return floors.retention_floor if self.config.keep_quoted_facts else floors.blind_retention_floor

    def gate_problems(self) -> list[str]:
        """Why CI should fail: a model (not the baseline) lost a summary to a check, or too many facts.

        Too many: more than a point below the figures recorded for a model (golden/), where there are
        some, else below the config's floors.
        """
        problems: list[str] = []
        floors, floor = self.config.eval, self.retention_floor
        recorded = self.recorded.figures if self.recorded is not None else {}
        if self.recorded is not None:
            figures = self.figures()
            ran = {name: kinds for name, kinds in recorded.items() if name in figures}  # the models this run scored
            problems += dataclasses.replace(self.recorded, figures=ran).regressions(self.settings(), figures)
        for model in self.models:
            if model.baseline:
                continue
            overall = model.overall
            rate = overall.structure_pass_rate
            if rate is not None and rate < 1:
                problems.append(
                    f'{model.name}: structure pass rate {rate:.1%} is below 100% '
                    f'({overall.returns - overall.summarized} of {overall.returns} returns kept their original)'
                )
            problems += _fidelity_problems(model, floor=floors.identical_lines_floor)
            if model.name in recorded:
                continue
            if overall.retention is not None and overall.retention < floor:
                problems.append(
                    f'{model.name}: facts kept in context {overall.retention:.1%} is below the floor {floor:.1%}'
                )
            blind = model.blind.overall.retention if model.blind is not None else None
            if blind is not None and blind < floors.blind_retention_floor:
                problems.append(
                    f'{model.name}: facts kept in context blind {blind:.1%} is below the floor '
                    f'{floors.blind_retention_floor:.1%}'
                )
        return problems


def _fidelity_problems(model: ModelScore, *, floor: float) -> list[str]:
    """Lines rewritten, JSON broken, empty summaries, typed returns touched: what no summary may do."""
    overall, problems = model.overall, list[str]()
    identical = overall.identical_lines
    if identical is not None and identical < floor:
        problems.append(
            f'{model.name}: {identical:.1%} of the summary lines from an original line are byte-identical to it, '
            f'below the floor {floor:.1%}'
        )
    if overall.json_strings_parsing < overall.json_strings:
        problems.append(
            f'{model.name}: {overall.json_strings - overall.json_strings_parsing} of {overall.json_strings} '
            'summaries of a string holding JSON no longer parse as the same JSON type'
        )
    if overall.empty:
        problems.append(f'{model.name}: {overall.empty} empty summaries (their originals were kept)')
    typed, touched = model.typed_parts
    if touched:
        problems.append(f'{model.name}: {touched} of {typed} typed tool returns were changed')
    return problems


def eval_models(names: Sequence[str], config: SummarizerConfig) -> dict[str, Model]:
    """The models to compare by name: the ones asked for (default: the config's), then the baseline.

    Resolved before anything runs, so a model that cannot be used (unknown provider, no API key)
    stops the eval at once (`ModelBuildError`).
    """
    chosen = list(dict.fromkeys(names or [config.model]))
    if HEAD not in chosen:
        chosen.append(HEAD)
    return {name: head_model() if name == HEAD else resolve_model(config, name) for name in chosen}


async def run_eval(
    histories: Sequence[EvalHistory],
    *,
    models: dict[str, Model],
    config: SummarizerConfig,
    cache: SummaryCache,
    min_chars: int = 0,
) -> EvalRun:
    """Every model over every history, one model after the other (so wall times do not mix).

    `min_chars`: score only the oversized returns whose JSON text is longer (all are summarized).
    """
    config = dataclasses.replace(config, keep_recent=0)
    blind = dataclasses.replace(config, keep_quoted_facts=False) if config.keep_quoted_facts else None
    scores: list[ModelScore] = []
    # The baseline last, wherever it is listed: it is read at the cut of the first model compared with it.
    for name, model in sorted(models.items(), key=lambda pair: pair[0] == HEAD):
        if name == HEAD and scores:
            # At the first model's cut, return by return, told and blind: its summaries' sizes, not the budgets
            # (a summary may take more to keep quoted lines). Not from the cache, whose key holds the budget.
            first, uncached = scores[0], SummaryCache(directory=None, size_limit_bytes=0)
            score = await _score_model(
                name, head_model(_sizes(first)), histories, config=config, cache=uncached, min_chars=min_chars
            )
            if first.blind is not None and blind is not None:
                score.blind = await _score_model(
                    name, head_model(_sizes(first.blind)), histories, config=blind, cache=uncached, min_chars=min_chars
                )
            scores.append(score)
            continue
        score = await _score_model(name, model, histories, config=config, cache=cache, min_chars=min_chars)
        if blind is not None and name != HEAD:  # truncation ignores the quoted facts: its figures are blind already
            score.blind = await _score_model(name, model, histories, config=blind, cache=cache, min_chars=min_chars)
        scores.append(score)
    scores.sort(key=lambda score: list(models).index(score.name))  # in the order asked
    return EvalRun(config=config, models=scores, histories=[history.name for history in histories], min_chars=min_chars)


def _sizes(score: ModelScore) -> dict[bytes, int]:
    """The tokens of each summary `score`'s model made, by its content's digest: where `head_model` cuts."""
    return {r.digest: r.tally.tokens_after for h in score.histories for r in h.returns if r.tally.summarized}


async def _score_model(
    name: str,
    model: Model,
    histories: Sequence[EvalHistory],
    *,
    config: SummarizerConfig,
    cache: SummaryCache,
    min_chars: int,
) -> ModelScore:
    summarizer = Summarizer(config=config, model=model, cache=cache)
    # No originals store: the eval measures summaries as models write them, and keeps no tool output.
    compactor = Compactor(config=config, summarizer=summarizer, originals=OriginalStore.disabled())
    start = time.perf_counter()
    results = await asyncio.gather(*(compact_stored(history.stored.text, compactor) for history in histories))
    seconds = time.perf_counter() - start
    report = Report()
    for result in results:
        report.add(result.report)
    return ModelScore(
        name=name,
        histories=[
            _score_history(history, result, compactor, min_chars=min_chars)
            for history, result in zip(histories, results)
        ],
        report=report,
        seconds=seconds,
        price_usd=_price(model, report, config),
    )


def _score_history(
    history: EvalHistory, result: StoredCompaction, compactor: Compactor, *, min_chars: int
) -> HistoryScore:
    before = history.stored
    after = StoredHistory.parse(result.text) if result.text is not None else before
    reasons = {(f.message_index, f.part_index): f.reason for f in result.report.failures}
    later = Turns(before.messages)
    returns: list[ReturnScore] = []
    # Every oversized return (`keep_recent` is 0), as the compaction asked its summary: with its budget and quoted
    # facts, where the head baseline finds its size.
    for candidate in compactor.plan(before.messages).candidates:
        if len(candidate.text) <= min_chars:
            continue
        ref = (candidate.message_index, candidate.part_index)
        summarized = result.text is not None and ref not in reasons
        summary = _content(after, ref) if summarized else candidate.content
        tally, lost = score_return(
            original=candidate.content,
            summary=summary,
            # a return that kept its original failed: its facts count for no retention, kept or lost
            referred=later.quoted_facts(candidate.content, message_index=candidate.message_index) if summarized else (),
            tokens_before=candidate.tokens,
            tokens_after=content_tokens(summary, compactor.tokenizer) if summarized else candidate.tokens,
            summarized=summarized,
            empty='empty summary' in reasons.get(ref, ''),
            own_words=not is_deterministic(compactor.summarizer.model),
        )
        if not summarized:
            tally.failures[failure_kind(reasons.get(ref, _HISTORY_REFUSED))] += 1
        returns.append(
            ReturnScore(
                tool_name=candidate.tool_name,
                tool_call_id=candidate.part.tool_call_id,
                message_index=candidate.message_index,
                kind=str(detect_kind(candidate.content)),
                tally=tally,
                lost=lost,
                digest=_digest(candidate, compactor),
            )
        )
    failures = [
        f'message {f.message_index} part {f.part_index} ({f.tool_name}): {f.reason}' for f in result.report.failures
    ]
    if result.text is None and result.report.failed and not failures:
        failures.append(f'{_HISTORY_REFUSED}: every summary of this history was dropped')
    typed, touched = typed_parts(before, after)
    return HistoryScore(
        name=history.name,
        returns=returns,
        tokens_before=result.tokens_before,
        tokens_after=result.tokens_after,
        failures=failures,
        typed_parts=typed,
        typed_touched=touched,
    )


def _digest(candidate: Candidate, compactor: Compactor) -> bytes:
    """`candidate`'s request as `head_model` is asked it: its content, budget and quoted facts."""
    return content_digest(compactor.summarizer.embedded_request(candidate))


_HISTORY_REFUSED = 'the rewrite failed the post-check'
_GROUNDING_FAILURES = ('repeats the prompt', 'a value where the original has none', 'is not in the original')
_NUMBER = re.compile(r'\d[\d,]*')


def failure_kind(reason: str) -> str:
    """What kind of failure a report's reason tells, without what it quotes: `not under the threshold`, `timed out`.

    A grounding failure names its kind of line (`not grounded (repeats the prompt)`); numbers read `N`.
    """
    if reason.startswith('not grounded'):
        detail = next((detail for detail in _GROUNDING_FAILURES if detail in reason), None)
        return f'not grounded ({detail})' if detail else 'not grounded'
    return _NUMBER.sub('N', re.split(r': | \(', reason, maxsplit=1)[0])


def typed_parts(before: StoredHistory, after: StoredHistory) -> tuple[int, int]:
    """How many tool returns of `before` pydantic-ai types, and how many of them `after` changed.

    Typed: a return part of a class of its own (tool search, capability loading, builtin tools) or
    with a `tool_kind`; pydantic-ai rebuilds an agent's tools from them, so compaction must leave
    them alone.
    """
    refs = [
        (message_index, part_index)
        for message_index, message in enumerate(before.messages)
        if isinstance(message, (ModelRequest, ModelResponse))
        for part_index, part in enumerate(message.parts)
        if isinstance(part, BaseToolReturnPart) and (type(part) is not ToolReturnPart or part.tool_kind is not None)
    ]
    return len(refs), sum(_stored_part(before, ref) != _stored_part(after, ref) for ref in refs)


def _stored_part(stored: StoredHistory, ref: tuple[int, int]) -> object:
    message = stored.data[ref[0]]
    assert isinstance(message, dict) and isinstance(message['parts'], list)
    return message['parts'][ref[1]]


def _content(stored: StoredHistory, ref: tuple[int, int]) -> JsonValue:
    part = _stored_part(stored, ref)
    assert isinstance(part, dict)
    return part['content']  # type: ignore[return-value]  # stored parts are JSON objects


def _price(model: Model, report: Report, config: SummarizerConfig) -> float | None:
    """USD for the summarizer's tokens, from genai-prices' bundled data; 0 for the embedded models."""
    if isinstance(model, FunctionModel):
        return 0.0
    usage = Usage(input_tokens=report.summarizer_input_tokens, output_tokens=report.summarizer_output_tokens)
    try:
        if config.base_url:
            price = calc_price(usage, model.model_name, provider_api_url=config.base_url)
        else:
            price = calc_price(usage, model.model_name, provider_id=model.system)
    except LookupError:
        return None
    return float(price.total_price)


def _retention(tally: Tally | None) -> float | None:
    return tally.retention if tally is not None else None


def _rounded(share: float | None) -> float | None:
    return round(share, 4) if share is not None else None


def _sum(tallies: Iterable[Tally]) -> Tally:
    total = Tally()
    for tally in tallies:
        total.add(tally)
    return total
