"""Search results: the url and title of every item that fits, the page text shortened by line."""

from __future__ import annotations

import time
from collections.abc import Sequence

import pytest
from extractive_checks import MENU_LABELS, SHORT_LINES, SITE_MENU, kept_lines, summary_lines

from summarizer.core._shape import JsonValue, shape_mismatch
from summarizer.core._tokens import estimate_tokens
from summarizer.extractive import search, summarize
from summarizer.extractive._kinds import ContentKind, detect_kind
from summarizer.extractive.lines import MUST, Joined

RESULTS: list[JsonValue] = [
    {
        'url': f'https://docs.example.org/guides/rate-limits-{n}',
        'title': f'Rate limits, part {n}: quotas and bursts',
        'content': '\n'.join(
            f'Section {k} of part {n} describes how the token bucket refills every second and how bursts are '
            'absorbed by the shared quota of the organisation.'
            for k in range(12)
        ),
        'score': round(0.9 - n / 50, 3),
    }
    for n in range(8)
]


def test_every_item_keeps_its_url_and_title_and_its_content_is_cut_by_line() -> None:
    assert detect_kind(RESULTS) is ContentKind.SEARCH
    summary = summarize(RESULTS, budget_tokens=500)
    assert isinstance(summary, list) and shape_mismatch(RESULTS, summary) is None
    assert len(summary) == len(RESULTS)
    for item, original in zip(summary, RESULTS, strict=True):
        assert isinstance(item, dict) and isinstance(original, dict)
        assert item['url'] == original['url'] and item['title'] == original['title']
        assert isinstance(item['content'], str) and isinstance(original['content'], str)
        assert len(item['content']) < len(original['content'])
        kept_lines(original['content'], item['content'])


TEXT = '\n\n'.join(
    f'Title: Rate limits, part {n}\nURL: https://docs.example.org/guides/rate-limits-{n}\n'
    + '\n'.join(f'Section {k} explains token buckets and bursts for part {n} of the guide.' for k in range(10))
    for n in range(8)
)


def test_search_results_as_text_keep_titles_and_urls() -> None:
    assert detect_kind(TEXT) is ContentKind.SEARCH
    kept = summary_lines(TEXT, budget_tokens=300)
    assert all(f'URL: https://docs.example.org/guides/rate-limits-{n}' in kept for n in range(8))


_MENU = [
    '[![]] ',
    '[About us] ',
    '![]![] [Get A Free AI Chatbot] ',
    *[f'* [{service} Development] ' for service in ('SugarCRM', 'HubSpot', 'X2CRM', 'Odoo', 'Salesforce', 'Zoho')],
    '[### HealthCare',
    '1. [Share This Article] ',
    '2. [Introduction] ',
]


def _scraped(n: int) -> str:
    return '\n'.join(
        [
            f'Title: Agent platforms compared, part {n}',
            f'URL: https://agents.example.com/compare-{n}',
            'Score: None',
            f'Text: Agent platforms compared, part {n}[Skip to content] ',
            *_MENU[:-2],
            '] EHR Systems and Medical Imaging Software',
            *_MENU[-2:],
            f'# Agent platforms compared, part {n}',
            f'The agent market reached ${n + 2}.4 billion in 2025, and grows {30 + n}% a year by 2030 estimates.',
            *[f'Paragraph {k} of the article weighs the vendors against each other in plain words.' for k in range(8)],
        ]
    )


def test_a_scraped_pages_menus_and_link_lists_stay_out() -> None:
    """A web page's navigation, lines of nothing but links, holds names (`SugarCRM`) that would win a budget
    from the page's sentences a few tokens at a time: a reader wants titles, urls and what the page says."""
    text = '\n\n'.join(_scraped(n) for n in range(6))
    assert detect_kind(text) is ContentKind.SEARCH
    kept = summary_lines(text, budget_tokens=400)
    assert not set(kept) & set(_MENU)
    for n in range(6):
        assert f'Title: Agent platforms compared, part {n}' in kept
        assert f'URL: https://agents.example.com/compare-{n}' in kept
    assert any(line.startswith('The agent market reached $') for line in kept)


def test_a_link_line_a_later_turn_quotes_is_kept() -> None:
    text = '\n\n'.join(_scraped(n) for n in range(6))
    summary = summarize(text, budget_tokens=400, quoted=('X2CRM',))
    assert isinstance(summary, str)
    assert '* [X2CRM Development] ' in kept_lines(text, summary)


_PAGE_TEXT = [
    'The tools differ most in how they escalate an alert that nobody acknowledges.',
    'Some page the whole rotation at once, others walk a chain of responders one by one.',
    'Most teams keep the default schedules for their first quarter on a new tool.',
    'Reports of noisy alerts fell once the routing rules were tuned by the teams themselves.',
]
_TOOLS = ['PagerDuty', 'OpsGenie', 'FireHydrant', 'VictorOps', 'SquadCast', 'AlertOps']
_SECTIONS = ['Operations Guide', 'Reliability Notes', 'Platform Review', 'Field Report', 'Buyer Guide', 'Tool Survey']
"""What each page's title is about, on the line under it: a label, but no menu's."""


def _result_with_menu(n: int, lines: Sequence[str] = ()) -> str:
    return '\n'.join(
        [
            f'Title: Incident response tooling, part {n}',
            f'URL: https://ops.example.com/incident-tooling-{n}',
            'Score: None',
            f'Text: Incident response tooling, part {n}',
            _SECTIONS[n],
            *SITE_MENU,
            *lines,
            f'# Incident response tooling, part {n}',
            f'Teams paging through {_TOOLS[n]} cut their median response to {4 + n} minutes in 2025.',
            *_PAGE_TEXT,
        ]
    )


_MENU_PAGES = '\n\n'.join(_result_with_menu(n) for n in range(6))


def test_a_menu_broken_over_lines_stays_out() -> None:
    """A menu's labels on lines of their own (`Acme in GitHub` between `[` and `] [![] `) hold names the
    fact scan counts: the budget goes to each result's title, url and first sentence instead."""
    assert detect_kind(_MENU_PAGES) is ContentKind.SEARCH
    kept = summary_lines(_MENU_PAGES, budget_tokens=500)
    assert not set(kept) & set(SITE_MENU)
    for n in range(6):
        assert f'Title: Incident response tooling, part {n}' in kept
        assert f'URL: https://ops.example.com/incident-tooling-{n}' in kept
        assert f'Teams paging through {_TOOLS[n]} cut their median response to {4 + n} minutes in 2025.' in kept


def test_with_room_for_the_page_the_menu_still_goes_and_the_line_under_the_title_stays() -> None:
    kept = summary_lines(_MENU_PAGES, budget_tokens=5000)
    assert not MENU_LABELS & set(kept)
    assert all(section in kept for section in _SECTIONS)  # under each page's title (`Text: ...`)


@pytest.mark.parametrize('lines', SHORT_LINES.values(), ids=SHORT_LINES)
def test_short_lines_between_menus_stay(lines: list[str]) -> None:
    text = '\n\n'.join([_result_with_menu(0, [*lines, *SITE_MENU]), _result_with_menu(1), _result_with_menu(2)])
    assert detect_kind(text) is ContentKind.SEARCH
    kept = summary_lines(text, budget_tokens=5000)
    assert all(line in kept for line in lines)
    assert not MENU_LABELS & set(kept)


def test_a_menu_label_a_later_turn_quotes_is_kept() -> None:
    kept = summary_lines(_MENU_PAGES, budget_tokens=500, quoted=('ServiceNow',))
    assert 'Acme in ServiceNow' in kept
    assert 'Acme in HubSpot' not in kept


_TOPICS = ['Rollouts', 'Observability', 'Budgets', 'Security', 'Staffing', 'Vendors']
_TAGS = ['* [Machine learning] ', '* [Platform teams] ', '* [Why Do Most Rollouts Fail?] ', '* [Case studies] ']
"""A page's tag links as a scrape leaves them, their targets dropped: one names trouble (`Fail`)."""
_OPENINGS = [
    '‘Agents’ now run a third of the rollouts at large platform teams, a survey of 400 engineers finds.',
    '“Observability first” is the rule that teams adopting agents in 2025 say they wish they had followed.',
    'Agent budgets overran their plans by 40% in the first year at most of the companies surveyed.',
    '**Security** reviews of agent actions took 3 days on average, twice as long as reviews of scripts.',
    '¿Who staffs the agents? Most teams moved two engineers to it without any new hires at all.',
    '"Vendors promise more than agents deliver", the survey’s authors conclude after 18 months of data.',
]
"""Each result's first sentence, on its `Text:` line: most start with no letter (a quote mark, `**`, `¿`)."""


def _exa_result(n: int) -> str:
    topic = _TOPICS[n]
    return '\n'.join(
        [
            f'Title: Agents in production, part {n}: {topic}',
            f'URL: https://platform.example.net/agents-in-production-{n}',
            f'ID: https://platform.example.net/agents-in-production-{n}',
            'Score: None',
            f'Published Date: 2025-0{n + 1}-15T00:00:00.000Z',
            'Author: Rowan Pike',
            'Image: None',
            'Favicon: None',
            'Extras: None',
            'Subpages: None',
            f'Text: {_OPENINGS[n]}',
            *[
                f'Paragraph {k} on {topic.lower()} weighs what the agents did against what the teams expected of them.'
                for k in range(10)
            ],
            *_TAGS,
            'Summary: None',
        ]
    )


_EXA_RESULTS = '\n\n\n'.join(_exa_result(n) for n in range(len(_TOPICS)))


@pytest.mark.parametrize('budget', [550, 1500], ids=['a quarter', 'room left over'])
def test_each_result_keeps_its_first_sentence_and_no_tag_links_or_empty_fields(budget: int) -> None:
    """What a reader wants of each result (issue 37): its title, url, date and first sentence (the `Text:` line,
    whatever it starts with), at a quarter of the results' tokens (`target_ratio`). The page's tag links
    (`* [Case studies]`, one naming trouble) and its empty fields (`Summary: None`) say nothing of it: the
    budget left over goes to its paragraphs."""
    assert detect_kind(_EXA_RESULTS) is ContentKind.SEARCH
    kept = summary_lines(_EXA_RESULTS, budget_tokens=budget)
    for n in range(len(_TOPICS)):
        assert f'Title: Agents in production, part {n}: {_TOPICS[n]}' in kept
        assert f'URL: https://platform.example.net/agents-in-production-{n}' in kept
        assert f'Published Date: 2025-0{n + 1}-15T00:00:00.000Z' in kept
        assert f'Text: {_OPENINGS[n]}' in kept
    assert not set(kept) & {*_TAGS, 'Summary: None', 'Score: None'}


_LEADS = [
    'Most agent rollouts stalled at the pilot stage in 2025, a survey of 300 platform teams finds.',
    'Agents that page a human before acting cut incidents by half at the teams that tried it.',
    'Vendors now bill agent runs by the step, and the bills of long runs surprised most buyers.',
    'Open models closed most of the gap on tool use this year, at a tenth of the price per run.',
    'Teams that log every tool call found their agents repeating reads more than anything else.',
    'Regulators in the EU asked for agent audit trails, and two vendors shipped them in a month.',
]


def _scraped_article(n: int) -> str:
    """A scraped page: its title again with a link, a menu, a table of contents, then one long paragraph."""
    rest = ' '.join(f'Sentence {k} of the article goes on about the market in words a reader skims.' for k in range(12))
    return '\n'.join(
        [
            f'Title: Agents in 2025, report {n}',
            f'URL: https://research.example.org/agents-2025-{n}',
            'Score: None',
            f'Published Date: 2025-0{n + 1}-02T00:00:00.000Z',
            f'Text: Agents in 2025, report {n}[Skip to content] ',
            *_MENU,
            *[f'* [Chapter {k}: what the teams said] ' for k in range(6)],
            f'# Agents in 2025, report {n}',
            f'{_LEADS[n]} {rest}',
            *[f'Paragraph {k} weighs the rollouts of report {n} against the plans.' for k in range(6)],
        ]
    )


def test_each_scraped_result_keeps_the_first_sentence_of_its_page_and_not_its_title_again() -> None:
    """Title, url and first sentence each (issue 37): a scraped page's `Text:` line is its title again and a
    link; what it says first comes after its menus, on a line of 1,100 characters of which a reader needs the
    first sentence."""
    text = '\n\n'.join(_scraped_article(n) for n in range(6))
    assert detect_kind(text) is ContentKind.SEARCH
    summary = summarize(text, budget_tokens=400)  # an eighth of its tokens
    assert isinstance(summary, str)
    kept = summary.split('\n')
    for n in range(6):
        assert f'Title: Agents in 2025, report {n}' in kept
        assert f'URL: https://research.example.org/agents-2025-{n}' in kept
        assert f'{_LEADS[n]} …' in kept  # the start of its line, cut where a piece ends
        assert f'Text: Agents in 2025, report {n}[Skip to content] ' not in kept
    assert 'Sentence 11 of the article' not in summary


@pytest.mark.parametrize(
    'line',
    ['word ' * 120_000, 'Word A.' * 100_000, 'one two three ' + '\t' * 600_000],
    ids=['words', 'capitals', 'tabs'],
)
def test_a_long_line_that_is_almost_a_sentence_is_read_in_linear_time(line: str) -> None:
    """Each of 600 KB fails to be a sentence only at its end (no end, an end after a capital, blanks): a pattern
    with many ways to count its first ten words would take hours."""
    lines = Joined(['Title: Agents in 2025', 'URL: https://research.example.org/agents', line, _LEADS[0]])
    started = time.monotonic()
    bonuses = search.line_bonuses(lines)
    assert time.monotonic() - started < 2  # about 0.05 s
    assert bonuses[2] < MUST
    assert bonuses[3] == MUST


def test_a_long_url_is_kept_whole_or_not_at_all() -> None:
    """A result's paragraph is offered in pieces of 160 characters, its url not: a grounding redirect's url runs
    to 265 characters, and its first 160 open nothing."""
    url = 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ' + 'abcdEFGH1234_-' * 14
    sentence = 'This is a sentence about the topic that has many words in it. '
    text = '\n\n'.join(
        f'Title: Result number {n} about the topic\nURL: {url}{n}\nText: {sentence * 20}' for n in range(5)
    )
    assert detect_kind(text) is ContentKind.SEARCH
    for budget in (150, 300, 1000):
        summary = summarize(text, budget_tokens=budget)
        assert isinstance(summary, str)
        urls = [line for line in summary.split('\n') if line.startswith('URL: ')]
        assert all(line in {f'URL: {url}{n}' for n in range(5)} for line in urls)
        assert len(urls) >= (0 if budget < 300 else 2 if budget < 1000 else 5)


def test_a_first_sentence_is_found_where_lines_end_in_crlf() -> None:
    """A page written with `\\r\\n` line ends: its first sentence ends its line before the `\\r`, and is found as
    with `\\n` alone."""
    lines = [
        'Title: Foo',
        'URL: https://e.com/a',
        'Text: [Skip to content]',
        '* [Home]',
        'The quick brown fox jumps over the lazy dog near the river bank today.',
        'More text here.',
    ]
    text = '\n'.join(lines)
    for written in (text, text.replace('\n', '\r\n')):
        assert search.line_bonuses(Joined(written.split('\n')))[4] >= MUST


def _paper_page(n: int) -> str:
    """A scraped paper's page, as an arXiv abstract page reads: its title as a heading, then the abstract as a quote."""
    return '\n'.join(
        [
            f'Title: Governing agents, part {n}',
            f'URL: https://papers.example.org/abs/2509.{10289 + n}',
            'Score: None',
            f'Text: [2509.{10289 + n}] Governing agents, part {n}',
            '[Skip to main content] ',
            'All fieldsTitleAuthorAbstractCommentsJournal referenceHelp pagesFull text',
            f'# Title:Governing agents, part {n}',
            f'Authors:[Author {n}],[Coauthor {n}] ',
            '[View PDF] > > Abstract:',
            f'> {_LEADS[n]} We argue for more engagement by scholars, engineers and policymakers with it. Comments:|6 pages|',
            'Subjects:|Computers and Society (cs.CY); Artificial Intelligence (cs.AI)|',
            'arXivLabs is a framework that allows collaborators to develop and share new features directly on our website.',
        ]
    )


def test_a_scraped_papers_abstract_is_its_first_sentence_though_written_as_a_quote() -> None:
    """A paper page's abstract comes as a Markdown quote (`> The deployment of ...`): it is what the page says
    first, not its footer's `arXivLabs is a framework ...` sentence further down."""
    text = '\n\n'.join(_paper_page(n) for n in range(5))
    assert detect_kind(text) is ContentKind.SEARCH
    summary = summarize(text, budget_tokens=estimate_tokens(text) // 2)
    assert isinstance(summary, str)
    kept = summary.split('\n')
    for n in range(5):
        assert f'> {_LEADS[n]} …' in kept
    assert sum(line.startswith('arXivLabs') for line in kept) <= 1  # as the text's last line, it may fill what is left


_WIDGETS = ['alphaXiv', 'DagsHub', 'GotitPub', 'ScienceCast', 'CatalyzeX']


def _paper_with_widgets(n: int) -> str:
    """A scraped paper page whose site lists its widgets one a line, each label between two lines of link text."""
    return '\n'.join(
        [
            f'Title: Agents at work, part {n}',
            f'URL: https://papers.example.org/abs/2509.{20000 + n}',
            f'Text: Agents at work, part {n}',
            f'> {_LEADS[n]} We measure it on {n + 3} platform teams and report where it held.',
            'Current browse context:',
            'cs.CY',
            'Code, Data and Media',
            *(f'{widget} Toggle\n{widget}*([What is {widget}?])*' for widget in _WIDGETS),
            'About arXivLabs',
            f'Journal reference: Agents Quarterly, {n + 1} (2025), 38-40',
        ]
    )


def test_a_widget_on_a_results_page_is_chrome() -> None:
    """A scraped page's widgets come one a line, a label (`alphaXiv Toggle`) over a label and a link whose target the
    scrape dropped (`alphaXiv*([What is alphaXiv?])*`): a menu, though no line of it is a link alone. Their names
    are the site's, which the fact scan counts, and the same on every page: none of them is kept."""
    text = '\n\n'.join(_paper_with_widgets(n) for n in range(5))
    assert detect_kind(text) is ContentKind.SEARCH
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 2)
    widgets = {'About arXivLabs', *(f'{widget} Toggle' for widget in _WIDGETS)}
    widgets |= {f'{widget}*([What is {widget}?])*' for widget in _WIDGETS}
    assert not widgets & set(kept)
    assert any(line.startswith('Journal reference: ') for line in kept)
