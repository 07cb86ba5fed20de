"""The plan of a stored history: what compacting it will ask summaries of, without compacting it.

The first step of the engines that make every summary before any history is compacted (Ray's plan
stage, a provider batch): the history is parsed and walked exactly as `compact_unit` does (the
screen, the contents never to summarize, thresholds, `keep_recent`, quoted facts), so the candidates
are those its compaction will ask its `AnswerSource` for.
"""

from __future__ import annotations

from ..pipeline import Candidate, Compactor
from ._langchain import Session
from ._screen import screen
from ._stored import HistoryError, StoredHistory
from ._units import SessionUnit, Unit


def plan_unit(unit: Unit, compactor: Compactor) -> list[Candidate]:
    """The candidates of `unit`'s compaction; none for a history with nothing to summarize, or bad input.

    Bad input is not reported here: the compaction of the unit reports it.
    """
    try:
        if isinstance(unit, SessionUnit):
            session = Session.parse(unit.texts)
            messages, skip = session.messages, session.unsummarizable
        elif screen(unit.raw, config=compactor.config, tokenizer=compactor.tokenizer) is not None:
            return []
        else:
            history = StoredHistory.parse(unit.raw)
            messages, skip = history.messages, history.unsummarizable
    except HistoryError:
        return []
    return compactor.plan(messages, skip=skip).candidates
