"""Prose and Markdown: headings stay, lines verbatim, the quoted fact kept."""

from __future__ import annotations

import itertools
import time

import pytest
from extractive_checks import MENU_LABELS, SHORT_LINES, SITE_MENU, kept_lines, summary_lines

from summarizer.extractive import prose, summarize
from summarizer.extractive._kinds import ContentKind, detect_kind
from summarizer.extractive.lines import MID, NOISE, Joined

SECTIONS = ['Overview', 'Installation', 'Configuration', 'Upgrading from 3.x', 'Known issues']
MARKDOWN = '\n'.join(
    line
    for index, title in enumerate(SECTIONS)
    for line in [
        f'## {title}',
        '',
        *[
            f'Paragraph {n} of the {title.lower()} section explains how the service behaves when the queue is '
            'under load and what an operator should watch for during the night shift.'
            for n in range(8)
        ],
        f'Set `WORKER_POOL_SIZE={index + 4}` before starting the service, see RFC-{2100 + index}.'
        if index == 2
        else '',
        '',
    ]
)


def test_headings_stay_and_the_quoted_fact_is_kept() -> None:
    assert detect_kind(MARKDOWN) is ContentKind.PROSE
    kept = summary_lines(MARKDOWN, budget_tokens=300, quoted=('WORKER_POOL_SIZE=6',))
    assert all(f'## {title}' in kept for title in SECTIONS)
    assert 'Set `WORKER_POOL_SIZE=6` before starting the service, see RFC-2102.' in kept


_NOTES = [
    f'Note {k}: the project is maintained by volunteers and welcomes pull requests of any size.' for k in range(30)
]


def test_a_line_of_facts_under_a_menu_like_line_is_worth_its_facts() -> None:
    """A list item of nothing but a link whose target the scrape dropped (`* [Checkout]`) weighs less than
    nothing for itself (`lines.NOISE`), not against the lines it places: the item under it, its facts in
    full, still beats a line of nothing."""
    text = '\n'.join(
        [
            '# Release notes for shop 4.2',
            '',
            'This page lists what changed in each component of the shop platform in release 4.2.',
            '',
            '* [Payments]',
            '    * Refunds now retry on HTTP 503 up to 5 times, with a 250 ms backoff (PAY-1432).',
            '    * The `refund_ratio` setting defaults to 0.33 instead of 0.5.',
            '* [Inventory]',
            '    * Stock counts sync every 30 s from warehouse-eu-2 instead of every 300 s (INV-877).',
            '* [Checkout]',
            '    * Orders over $10,000 need 2FA since 2026-03-01 (CHK-55).',
            '',
            *_NOTES,
        ]
    )
    assert detect_kind(text) is ContentKind.PROSE
    kept = summary_lines(text, budget_tokens=300)
    assert _NOTES[3] in kept  # the budget holds lines of nothing, then ...
    assert '    * Orders over $10,000 need 2FA since 2026-03-01 (CHK-55).' in kept  # ... this first
    assert kept[kept.index('    * Orders over $10,000 need 2FA since 2026-03-01 (CHK-55).') - 1] == '* [Checkout]'


def test_a_bracketed_line_in_a_code_block_is_no_menu() -> None:
    """`[tool.shop-sync.warehouse]` in a README's TOML block names the table its keys belong to."""
    text = '\n'.join(
        [
            '# shop-sync',
            '',
            'shop-sync copies orders from the shop database to the warehouse every few minutes.',
            '',
            '## Configuration',
            '',
            'Add its settings to `pyproject.toml`:',
            '',
            '```toml',
            '[tool.shop-sync]',
            'database = "postgresql://db-prod-3.internal.example.com:5432/shop"',
            'batch-size = 500',
            '',
            '[tool.shop-sync.warehouse]',
            'url = "https://wms.example.com/api/v2"',
            'token-env = "WMS_TOKEN"',
            '```',
            '',
            *_NOTES[:25],
        ]
    )
    assert detect_kind(text) is ContentKind.PROSE
    kept = summary_lines(text, budget_tokens=200)
    assert 'url = "https://wms.example.com/api/v2"' in kept
    assert '[tool.shop-sync.warehouse]' in kept


_SHORT_OR_TITLED = {
    **SHORT_LINES,
    'a line under a heading': ['# Acme Pricing', 'Team Plan'],
    'a setext heading': ['Acme Pricing', '============'],
}


@pytest.mark.parametrize('lines', _SHORT_OR_TITLED.values(), ids=_SHORT_OR_TITLED)
def test_short_lines_between_menus_stay(lines: list[str]) -> None:
    """With room for the whole page, a menu's labels still go (`lines.NOISE`: worth less than nothing),
    while each kind of short line that is no label stays, between two menus."""
    text = '\n'.join([*SITE_MENU, '', *lines, '', *SITE_MENU])
    assert detect_kind(text) is ContentKind.PROSE
    kept = summary_lines(text, budget_tokens=2000)
    assert all(line in kept for line in lines)
    assert not MENU_LABELS & set(kept)


def test_a_menu_label_a_later_turn_quotes_is_kept() -> None:
    text = '\n'.join([*SITE_MENU, '# Acme', *_NOTES[:20]])
    kept = summary_lines(text, budget_tokens=200, quoted=('HubSpot',))
    assert 'Acme in HubSpot' in kept
    assert 'Acme in GitHub' not in kept


def test_a_short_line_by_a_link_is_no_menu() -> None:
    """One or two short lines beside a link are a caption or a byline, not a menu."""
    text = '\n'.join([*_NOTES[:8], '[Dana Ruiz] ', 'Incident Commander', *_NOTES[8:16]])
    summary = summarize(text, budget_tokens=2000)
    assert isinstance(summary, str)
    assert 'Incident Commander' in kept_lines(text, summary)


def test_short_lines_without_a_link_are_no_menu() -> None:
    """Names a line each with no link's bracket among them (`ls` output read as text): what a reader asked for."""
    names = ['AUTHORS', 'CONTRIBUTING', 'Dockerfile', 'LICENSE', 'Makefile', 'README', 'docs', 'scripts', 'tests']
    text = '\n'.join(['Files in the repository root', *names])
    summary = summarize(text, budget_tokens=2000)
    assert isinstance(summary, str)
    assert kept_lines(text, summary) == text.split('\n')


@pytest.mark.parametrize(
    'line',
    ['Glean in GitHub ' * 40_000 + '.', '] [' * 200_000, 'scite.' * 100_000 + ',', 'Home |' + ' ' * 300_000 + '|'],
    ids=['words then a period', 'brackets', 'dotted words', 'a pipe far from the last'],
)
def test_a_long_line_that_is_almost_a_label_is_read_in_linear_time(line: str) -> None:
    """Each of 600 KB fails to be a label only at its end: a pattern with two ways to match would take hours."""
    lines = Joined(['[Home] ', 'Blog', 'Docs', line])
    started = time.monotonic()
    bonuses = prose.line_bonuses(lines)
    assert time.monotonic() - started < 2  # about 0.02 s
    assert bonuses[1] == NOISE


def _page(nav: int, paragraphs: int) -> str:
    """A documentation page as `curl` returns it: head, a navigation list a link a line, the article."""
    return '\n'.join(
        [
            '<!DOCTYPE html>',
            '<html lang="en">',
            '<head>',
            '  <meta charset="utf-8">',
            '  <title>Retry policy | Acme SDK docs</title>',
            '  <link rel="stylesheet" href="/static/css/main.8f3a2b.css">',
            "  <script>window.dataLayer=window.dataLayer||[];gtag('config','G-ABC123',{anonymize_ip:true});</script>",
            '</head>',
            '<body>',
            '<nav><ul class="nav">',
            *(
                f'  <li class="nav-item"><a class="nav-link" href="/docs/v3/guide-{k}">Guide {k}</a></li>'
                for k in range(nav)
            ),
            '</ul></nav>',
            '<main><article><h1 class="title">Retry policy</h1>',
            *(
                f'<p>Option {k} of <code>retry_policy</code> sets how long the client waits after a 429 response: '
                f'{k * 250} ms at first, doubled up to 30 s.</p>'
                for k in range(paragraphs)
            ),
            '<p>When retries run out the client raises <code>RetryExhausted</code>, the last response attached.</p>',
            '</article></main>',
            '</body>',
            '</html>',
        ]
    )


def test_a_raw_html_page_keeps_its_title_and_headings_over_its_markup() -> None:
    """What a browser shows is what a reader of a fetched page came for: its title, its headings, its
    paragraphs; not its scripts, style sheets and navigation, which are most of its characters."""
    page = _page(nav=40, paragraphs=12)
    assert detect_kind(page) is ContentKind.PROSE
    kept = summary_lines(page, budget_tokens=250, quoted=('RetryExhausted',))
    assert '  <title>Retry policy | Acme SDK docs</title>' in kept
    assert '<main><article><h1 class="title">Retry policy</h1>' in kept
    assert any('RetryExhausted' in line for line in kept)
    assert not any('nav-item' in line or '<script>' in line or '<link ' in line for line in kept)
    bonuses = prose.line_bonuses(Joined(page.split('\n')))
    paragraph = page.split('\n').index(next(line for line in page.split('\n') if line.startswith('<p>Option 3 ')))
    assert bonuses[paragraph] >= 0  # a paragraph in tags is text


def _icon(n: int) -> str:
    """An icon inlined in a page's header, as mdBook and many themes write it: one line, its drawing most of it."""
    drawing = ' '.join(
        f'{(n * 37 + k * 11) % 500}.{k % 10} {(k * 53) % 480}.{n % 10}L{k * 7 % 300} {k % 90}c' for k in range(30)
    )
    return f'<span class=fa-svg><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><path d="M{drawing}z"/></svg></span>'


def test_a_pages_icons_and_scripts_are_no_text_to_keep() -> None:
    """A page whose header draws six icons (SVG paths of numbers by the hundred) and runs a script of 30 lines: the
    summary is its title and article, not pieces of a drawing or lines of the script, which hold more numbers and
    names than any paragraph."""
    calls = ['localStorage.getItem', 'document.querySelector', 'window.matchMedia', 'Array.from', 'JSON.parse']
    script = ['<script>', *(f'    const v{k} = {calls[k % 5]}("#part-{k}") ?? {k * 12};' for k in range(30))]
    page = _page(nav=0, paragraphs=12).split('\n')
    body = page.index('<body>') + 1
    page[body:body] = [*(_icon(n) for n in range(6)), *script, '</script>']
    text = '\n'.join(page)
    kept = summary_lines(text, budget_tokens=300)
    assert not any('path d=' in line or '    const v' in line for line in kept)
    assert sum(line.startswith('<p>Option ') for line in kept) >= 4


def test_a_script_a_sentence_names_or_a_fence_shows_is_no_pages_script() -> None:
    """`Add the `<script>` tag ...` in a Markdown guide, and a script block as its example in a code fence: the lines
    after them are the guide's text and example, not a page's script to weigh as nothing."""
    guide = [
        '# Embedding the widget',
        'Add the `<script>` tag to your page, then call `Widget.init` with your key.',
        '```html',
        '<script>',
        "  Widget.init({ key: 'pk_live_123' });",
        '</script>',
        '```',
        'The widget reads `data-theme` from the body.',
        'See `docs/theming.md` for the themes.',
    ]
    bonuses = prose.line_bonuses(Joined(guide))
    assert bonuses[1] >= 0 and bonuses[4] >= 0 and bonuses[7] >= 0 and bonuses[8] >= 0


def test_a_minified_pages_icon_does_not_hide_its_text() -> None:
    """A page minified to one line, an icon's drawing at its start and 60 advisories after it: the line is the page's
    text, not an icon's markup; its CVE ids are kept."""
    drawing = ' '.join(f'{k}.5 {k * 3}.1L{k} {k}c' for k in range(40))
    icon = f'<span class=fa-svg><svg viewBox="0 0 512 512"><path d="M{drawing}z"/></svg></span>'
    advisories = ''.join(
        f'<p>Advisory {n}: CVE-2024-{1000 + n} affects libfoo {n}.2, fixed in {n}.3; upgrade now.</p>'
        for n in range(60)
    )
    summary = summarize(icon + advisories, budget_tokens=400)
    assert isinstance(summary, str) and summary.count('CVE-2024-') >= 4


def test_an_rss_feeds_links_are_text_not_a_pages_head_tags() -> None:
    """`<link>https://...</link>` is a feed item's URL, what a reader follows; a page's head `<link rel=...>` is not."""
    items = [
        [
            '<item>',
            f'<title>Post number {n} about caching</title>',
            f'<link>https://blog.example.com/posts/{n}-caching</link>',
            f'<description>Some summary text of the post {n} that goes on for a while and says things.</description>',
            '</item>',
        ]
        for n in range(30)
    ]
    text = '\n'.join(['<?xml version="1.0"?>', '<rss><channel>', *itertools.chain(*items), '</channel></rss>'])
    kept = summary_lines(text, budget_tokens=800)
    assert sum(line.startswith('<title>Post') for line in kept) >= 10
    assert sum(line.startswith('<link>') for line in kept) >= 10


def test_a_styled_table_row_of_an_html_email_is_data_not_markup() -> None:
    """An invoice's rows hold a few characters of text among their inline styles: they are what the mail says. So
    is a `<summary>`'s title among its tags."""
    style = 'style="padding:4px 8px;border-bottom:1px solid #e5e7eb;font-family:Helvetica,Arial,sans-serif"'
    rows = [f'<tr><td {style}>Line {k}</td><td {style}>$1,{k}57.40</td></tr>' for k in range(3)]
    nav = '<li class="nav-item"><a class="nav-link" href="/account/billing/invoices">Invoices</a></li>'
    details = '<details><summary><b>Config</b></summary>'
    bonuses = prose.line_bonuses(Joined(['<table>', *rows, '</table>', '<ul>', nav, nav, '</ul>', details]))
    assert all(bonus >= 0 for bonus in bonuses[1:4])
    assert bonuses[6] == NOISE
    assert bonuses[9] >= 0  # a collapsed section's title in Markdown


def _snapshot() -> str:
    """A Playwright MCP snapshot of a checkout page: a header menu, the cart, an alert, a long footer."""
    lines = [
        '### Page state',
        '- Page URL: https://tickets.example.org/checkout',
        '- Page Title: Checkout – Riverside Theatre',
        '- Page Snapshot:',
        '```yaml',
        '- generic [ref=e1]:',
        '  - banner [ref=e2]:',
        '    - navigation "Site" [ref=e3]:',
    ]
    for n, label in enumerate(['Whats on', 'Plan your visit', 'Membership', 'Donate', 'Hire a space', 'Press']):
        lines += [
            f'      - link "{label}" [ref=e{10 + n}] [cursor=pointer]:',
            f'        - /url: /{label.lower().replace(" ", "-")}',
        ]
    lines += [
        '  - main [ref=e30]:',
        '    - heading "Checkout" [level=1] [ref=e31]',
        '    - table "Your tickets" [ref=e32]:',
    ]
    for n, (seat, price) in enumerate([('Stalls K12', '£42.50'), ('Stalls K13', '£42.50'), ('Circle B4', '£28.00')]):
        lines += [
            f'      - row "{seat} {price}" [ref=e{40 + n}]:',
            f'        - cell "{seat}" [ref=e{50 + n}]',
            f'        - cell "{price}" [ref=e{60 + n}]',
        ]
    lines += [
        '    - generic [ref=e70]: Total £113.00',
        '    - alert [ref=e71]: Card declined: insufficient funds (code 51)',
        '    - textbox "Card number" [ref=e72]: "4000 0000 0000 9995"',
        '    - button "Pay £113.00" [ref=e73] [cursor=pointer]',
        '  - contentinfo [ref=e80]:',
    ]
    for n in range(30):
        lines += [f'    - link "Footer page {n}" [ref=e{100 + n}] [cursor=pointer]:', f'      - /url: /about/page-{n}']
    return '\n'.join([*lines, '```'])


def test_a_browser_snapshot_keeps_its_page_what_went_wrong_and_not_its_menus() -> None:
    """A reader of a snapshot needs the page's address, its heading and alert and the controls; not the footer."""
    text = _snapshot()
    assert detect_kind(text) is ContentKind.PROSE  # indented like YAML or code, read as the page it is
    kept = summary_lines(text, budget_tokens=len(text) // 16)  # about a quarter of its estimated tokens
    for line in (
        '- Page URL: https://tickets.example.org/checkout',
        '- Page Title: Checkout – Riverside Theatre',
        '    - heading "Checkout" [level=1] [ref=e31]',
        '    - alert [ref=e71]: Card declined: insufficient funds (code 51)',
    ):
        assert line in kept
    assert not [line for line in kept if 'Footer page' in line or '/about/page-' in line or 'Membership' in line]


def test_a_cdp_accessibility_tree_leaves_its_navigation_out() -> None:
    nav = [f'  [{200 + n}] link "Section {n}"  [url: https://example.org/section-{n}]' for n in range(20)]
    body = [f'[{400 + n}] StaticText "Paragraph {n} explains the tariff change for zone {n % 4}."' for n in range(20)]
    text = '\n'.join(['[100] navigation ', *nav, '[300] heading "Tariffs from 1 January"', *body])
    weights = prose.line_bonuses(Joined(text.split('\n')))
    assert weights[: len(nav) + 1] == [NOISE] * (len(nav) + 1)
    assert weights[len(nav) + 1] > 0  # the heading


def test_a_cdp_tree_keeps_the_pages_sentences_over_its_table_of_contents() -> None:
    """A page's own words (a text node holding a sentence) are what its reader came for; a link list's entries, each
    with a URL, and the node numbers' extremes (`[1052] StaticText "A"`, the lowest) are not."""
    toc = [f'[{3100 + n}] link "Topic {n}"  [url: https://example.org/agenda#topic-{n}]' for n in range(30)]
    sentence = (
        '[1758] StaticText "Since we were established in November 2023, we have channelled our efforts into three key '
        'areas of research."'
    )
    letter = '[1052] StaticText "A" '
    heading = '[2094] heading "Our Research Agenda"'
    text = '\n'.join([heading, *toc[:15], letter, *toc[15:], sentence, '[3300] link "Back"'])
    kept = summary_lines(text, budget_tokens=len(text) // 16)
    assert sentence in kept
    assert letter not in kept


def test_a_cdp_trees_long_text_nodes_bring_their_first_sentences() -> None:
    """A text node holding a paragraph (400 characters and more) is offered in pieces of a sentence or two, as a
    search result's page is: whole, each cost as much as ten links of the page's table of contents and lost to
    them; its first sentence says what the paragraph is about."""
    toc = [f'[{3100 + n}] link "Topic {n}"  [url: https://example.org/agenda#topic-{n}]' for n in range(30)]
    rest = ' '.join(
        f'Sentence {k} of the paragraph goes on about the institute in words a reader skims.' for k in range(6)
    )
    paragraphs = [
        f'[{1756 + n}] StaticText "The institute was set up in {2020 + n} to study the risks of area {n}. {rest}"'
        for n in range(3)
    ]
    text = '\n'.join(['[2094] heading "Our Research Agenda"', *toc, '[2112] heading "Introduction"', *paragraphs])
    assert prose.is_tree(Joined(text.split('\n')))
    summary = summarize(text, budget_tokens=len(text) // 16)
    assert isinstance(summary, str)
    for n in range(3):
        assert (
            f'[{1756 + n}] StaticText "The institute was set up in {2020 + n} to study the risks of area {n}.'
            in summary
        )


def test_a_cdp_trees_cookie_banner_weighs_less_than_nothing() -> None:
    """Every site's cookie banner, last in its tree where a page's end would be kept: its sentence, the site's name
    and the button beside it say nothing of the page. A page's sentence about cookies is no banner's."""
    items = [f'  [{884 + n}] listitem \n    [{529 + n}] StaticText "May {n + 1}, 2025" ' for n in range(12)]
    recipe = '[700] StaticText "The recipe uses cookies crumbled over the cream, and a pinch of salt on top."'
    banner = [
        '[1601] StaticText "WWW.EXAMPLE.GOV.UK" ',
        '[1602] StaticText " uses cookies essential for website functionality and anonymous usage analytics." ',
        '[1603] StaticText "I understand" ',
    ]
    text = '\n'.join(['[846] heading "Our work"', recipe, '[883] list ', *items, *banner])
    lines = text.split('\n')
    weights = prose.line_bonuses(Joined(lines))
    assert weights[-3:] == [NOISE] * 3
    assert weights[1] > 0  # the recipe's sentence
    kept = summary_lines(text, budget_tokens=len(text) // 12)
    assert not set(banner) & set(kept)


def test_a_cdp_tree_of_a_page_about_cookies_is_no_banner() -> None:
    """A site's cookie policy page says `use cookies to` and `cookie preferences` in sentence after sentence: they are
    what its reader came for, not a banner's one or two (they all weighed less than nothing, its title too)."""
    body = [
        '[10] heading "Cookie Policy"',
        '[11] StaticText "Last updated May 2025"',
        '[12] StaticText "We use cookies to remember your language and region settings across visits to the store."',
        '[13] StaticText "Analytics partners use cookies that measure how often each product page is opened."',
        '[14] heading "Managing cookies"',
        '[15] StaticText "You can change your cookie preferences at any time from the footer of any page."',
        '[16] StaticText "Advertising cookies are only set when you accept all cookies in the banner."',
    ]
    items = [f'  [{884 + n}] listitem \n    [{529 + n}] StaticText "May {n + 1}, 2025" ' for n in range(12)]
    text = '\n'.join(['[1] RootWebArea "Cookie Policy | Example Store"', *body, '[883] list ', *items])
    weights = prose.line_bonuses(Joined(text.split('\n')))
    assert NOISE not in weights[:8], weights[:8]


def test_a_cdp_trees_nodes_without_words_weigh_less_than_nothing() -> None:
    """`StaticText "A"`, `StaticText " "`, a bare `strong`: a node with no words says nothing, and near a page's top
    the first lines' filler bonus kept them over its text. A one-word node (`"Careers"`) is a name, and stays weighed."""
    lines = [
        '[2033] link "We are now the AI Security Institute"  [url: https://www.gov.uk/news]',
        '[1652] StaticText "A" ',
        '[2114] strong ',
        '  [1755] StaticText " " ',
        '[1754] StaticText "Artificial Intelligence presents an enormous opportunity to the UK." ',
        '[3301] StaticText "Careers" ',
        '[3300] link "I understand"',
    ]
    bonuses = prose.line_bonuses(Joined(lines))
    assert bonuses[1:4] == [NOISE] * 3
    assert bonuses[4] > NOISE and bonuses[5] > NOISE


def test_a_markdown_list_naming_a_landmark_is_no_accessibility_tree() -> None:
    text = '## Notes\n- navigation is hard on small screens\n  - the footer hides the menu\n- banner ads load late'
    weights = prose.line_bonuses(Joined(text.split('\n')))
    assert NOISE not in weights


PIP_SHOW = '\n'.join(
    [
        'Name: ledger-tools',
        'Version: 4.12.0',
        'Summary: Reconcile ledgers against bank statements',
        'Home-page: https://example.com/ledger-tools',
        'Author: ',
        'License: MIT',
        'Location: /srv/app/.venv/lib/python3.12/site-packages',
        'Requires: click, httpx, pydantic, sqlalchemy',
        'Required-by: billing-api',
        'Files:',
        *[
            f'  ledger_tools/{area}/{name}_{n}.py'
            for n in range(60)
            for area, name in (('io', 'reader'), ('rules', 'match'))
        ],
        *[f'  ledger_tools-4.12.0.dist-info/{name}' for name in ('METADATA', 'RECORD', 'WHEEL', 'entry_points.txt')],
    ]
)
"""`pip show -f`: a header block of fields over a list of files, the version again in the dist-info paths."""


def test_a_header_block_that_opens_a_text_is_kept_over_the_list_under_it() -> None:
    """Which package at which version, and what it requires, is what `pip show` is read for. The version is in every
    dist-info path too and the names are no facts, so the files under the block won the budget from it."""
    summary = summarize(PIP_SHOW, budget_tokens=len(PIP_SHOW) // 16)
    assert isinstance(summary, str)
    kept = kept_lines(PIP_SHOW, summary)
    for line in ('Name: ledger-tools', 'Version: 4.12.0', 'Requires: click, httpx, pydantic, sqlalchemy'):
        assert line in kept, (line, summary)


def test_only_a_short_block_of_fields_at_a_texts_start_is_a_header() -> None:
    """Two fields are a sentence's `Note:`; forty are a form's or a config's body; fields past the start are text."""
    header = prose.line_bonuses(Joined(PIP_SHOW.split('\n')))
    assert header[1] > 0 and header[4] == 0  # `Author: ` holds no value: on the block, worth nothing
    note = ['Note: the numbers below are estimates.', 'Source: internal survey.', '', 'The rest is prose.']
    assert prose.line_bonuses(Joined(note))[:2] == [0.0, 0.0]
    form = [f'Field {n}: value {n}' for n in range(40)]
    assert set(prose.line_bonuses(Joined(form))) == {0.0}
    later = ['Some prose first.', 'And more of it.', *PIP_SHOW.split('\n')[:9]]
    assert set(prose.line_bonuses(Joined(later))) == {0.0}


def test_a_pages_front_matter_is_no_header_block() -> None:
    """A Markdown page's front matter (`draft: false`, `weight: 10`) is its generator's: its headings say more."""
    page = ['---', 'title: Cart totals', 'draft: false', 'weight: 10', 'toc: true', '---', '', '# Cart totals', '']
    fields = prose.line_bonuses(Joined(page))[1:5]
    assert max(fields) < 2 * MID  # what a header block's field weighs
