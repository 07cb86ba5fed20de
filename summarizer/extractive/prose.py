"""Prose, Markdown and HTML: headings and the lines around them, then what holds facts.

Headings are a document's outline; the first line under each says what the section is about.
A scraped web page also holds its site's chrome: menus and link lists (`* [AI Consulting]`,
`[![]]`, `1. [Introduction]`), lines of nothing but links, and the runs of short lines a menu's
labels leave when the scrape breaks its links over lines (`[`, `Glean in GitHub`, `] [`). They
hold names the fact scan counts (`SugarCRM`, `GitHub`), and, a few tokens each, would win the
budget from the sentences a reader came for: they weigh less than nothing (`lines.NOISE`), unless a
later turn quotes what they hold. So do a raw HTML page's lines of markup (`markup`): its scripts, style
sheets and head tags, and lines of tags with little text, a navigation list's `<li><a href=...>` lines.

A browser's accessibility tree (Playwright's snapshot, `- link "Careers" [ref=e14]:`, or a CDP
tree's `[2046] link "Careers"`) is a page too, one node a line (`accessibility`): its address and
title, headings, alerts and the controls an agent acts on by their `ref` come first; the nodes of its
banner, navigation and footer are chrome.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence

from .lines import HIGH, LOW, MID, NOISE, TAG, TEXT_SHARE, Joined

_UNDERLINE = re.compile(r'^[=-]{3,}[ \t]*$', re.MULTILINE)
"""A Setext heading's underline (`Pricing` over `=======`), or a rule across the page."""
_RULES = (
    (re.compile(r'^[ \t]{0,3}#{1,6} ', re.MULTILINE), MID),
    (re.compile(r'<(?:h[1-6]|title)\b', re.IGNORECASE), MID),  # an HTML heading, or the page's title, where it stands
    (_UNDERLINE, MID),
    (re.compile(r'^[ \t]*(?:[-*+]|\d+[.)]) \S|^[ \t]*\|', re.MULTILINE), 0.25),
)


_LINKS = re.compile(
    r'^[ \t]*(?:[-*+][ \t]+|\d+[.)][ \t]+)?(?:!?\[(?:!?\[[^\[\]\n]*\])?[^\[\]\n]*\](?!\()[ \t]*)+$|^\[#{1,6} ',
    re.MULTILINE,
)
"""A line of nothing but links and images whose targets the scrape dropped, in a list or not (`* [Careers]`,
`![]![] [Get A Free AI Chatbot]`), or the start of a heading inside a link (`[### HealthCare`): a page's
navigation, not its text. A link with its target (`- [Commits](https://...)`) is a reference, and stays a line.
No two ways to match a character (no `[` in a link's text but one image or link): linear on any line."""
_BETWEEN = r'(?:[\[\]!›»·•]|\|(?![ \t]*\r?$)| (?! )|&amp;)'
"""What stands between a menu's labels: a link's brackets, an image's `!`, breadcrumb marks, a pipe but a last
one (`Retrieval Strategy|Adaptive|` is a table's row), one space (two set words apart in a table's columns)."""
_WORD = r'[^\W\d_](?:[^\W_]|[\'’&+-]|\.(?=[^\W_]))*+'
"""A label's word, as a pattern's text: a letter first, then letters, digits, `'&+-`, a dot inside (`scite.ai`)."""
_LABEL = re.compile(
    rf'^[ ]{{0,3}}(?![|\s]|$){_BETWEEN}*+(?:{_WORD}{_BETWEEN}*+){{0,6}}+[ \t]*\r?$',
    re.MULTILINE,
)
"""A menu's label, or the brackets and images of the links around labels (`Glean in GitHub`, `] [![] `,
`B2B Marketing`, `Home | Blog`): at most six words, each starting with a letter (`B2B`, `scite.ai`, `R&D`),
and nothing else. So no sentence or field (`.`, `,`, `:`), no number, no list item, heading or code (`- `,
`#`, `=`, `(`); no table row (`|` first or last) and no indented line. Possessive quantifiers, and a word
that starts where what stands between ends: one way to match a line, linear on any line."""
_CAPTIONED_LINK = re.compile(
    rf'^[ ]{{0,3}}+(?:{_WORD}[ ]?+){{1,6}}+\*?+\(\[[^\[\]\n]*+\]\)\*?+[ \t]*+\r?$',
    re.MULTILINE,
)
"""A label and a link whose target the scrape dropped, in brackets and parentheses (`alphaXiv*([What is alphaXiv?])*`,
`Litmaps*([What is Litmaps?])*`): a site's widget, a link line as `_LINKS`'s are. Possessive, one way to match."""
_RUN = 3
"""Labels come in runs this long at least: a menu. One or two short lines are a caption, a byline, a name."""
FENCE = r'[ \t]{0,3}(?:```|~~~)'
"""The start of a Markdown code fence's opening or closing line, as a pattern's text."""
_FENCE = re.compile(rf'^{FENCE}', re.MULTILINE)
"""A fenced code block's opening or closing line: what stands between two is code (`[tool.ruff]`, `[1, 2, 3]`), no menu."""


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring)."""
    result = lines.bonuses(_RULES)
    for index in range(1, len(lines)):
        if result[index - 1] == MID and result[index] < MID:  # the line under a heading
            result[index] = max(result[index], LOW)
    _fields_first(lines, result)
    chrome(lines, result)
    markup(lines, result)
    accessibility(lines, result)
    return result


_FIELD = re.compile(r'[A-Za-z][\w.-]*+(?: [A-Za-z][\w.-]*+){0,2}:(?:[ \t]++(?P<value>\S)|[ \t]*+\r?$)')
"""A field of a header block: a name of at most three words, a colon and a value (`Version: 2.68.0`, `Start Time:
Mon, 06 May 2024`, `content-type: text/html`), or none (`Author:`)."""
_FIELDS_RUN = 3
"""A header block is this many fields in a row at least: one or two are a sentence's `Note: ...`."""
_FIELDS_MAX = 30
"""A header block is this many fields at most (an HTTP response's are fewer); a longer run is a body of fields."""


_HEADER_FIELD = 2 * MID
"""A header block's field: a heading's weight (`MID`), and its value's, a name or a version the fact scan misses."""


def _fields_first(lines: Joined, result: list[float]) -> None:
    """Weigh the fields of a header block that opens a text as headings and their values: they say what the rest is.

    `pip show`'s `Name:`, `Version:`, `Requires:` over its list of files, an email's or an HTTP response's headers
    (after its status line), `kubectl describe`'s `Name:`, `Namespace:`, `Status:`. Their values are names and
    versions the fact scan counts little or not at all (`pydantic-ai-slim`, or `2.68.0` again in every path of the
    list), so the list under them won the budget, and the summary said what files a package has but not which
    package at which version. Only a block that starts the text (its first or second line), of at most `_FIELDS_MAX`
    fields: a longer run of them is a config file's or a form's, each of its lines a detail. A field with no value
    (`Author:`, `Files:` over a list) goes on the block and weighs nothing.
    """
    if lines.lines and lines.lines[0].strip() in ('---', '+++'):
        return  # a page's front matter (Jekyll's, Hugo's: `draft: false`, `weight: 10`): its headings say more
    start = next((index for index in range(min(2, len(lines))) if _FIELD.match(lines.lines[index])), None)
    if start is None:
        return
    end = start
    while end < len(lines) and end - start <= _FIELDS_MAX and _FIELD.match(lines.lines[end]):
        end += 1
    if _FIELDS_RUN <= end - start <= _FIELDS_MAX:
        for index in range(start, end):
            field = _FIELD.match(lines.lines[index])
            if field is not None and field.group('value') is not None:
                result[index] = max(result[index], _HEADER_FIELD)


ACCESSIBILITY_NODE = re.compile(r'^([ \t]*+)(?:- |\[\d++\] )([a-zA-Z]++)(?=[ :\r]|$)', re.MULTILINE)
"""A node of an accessibility tree, its indentation and its role: Playwright's `  - button "Apply" [ref=e106]`,
a CDP tree's `  [2049] link "About us"` (inspect's browser, browser-use)."""
TREE_NODE = re.compile(r'^[ \t]*+(?:- [a-z]++\b[^\n]*?\[ref=|\[\d++\] [a-zA-Z]++(?: \"| *+\r?$))', re.MULTILINE)
"""A node no Markdown list or YAML holds: Playwright's with its `[ref=e12]`, a CDP tree's with its `[2046]` first and
its name in quotes after its role, or nothing (`[2043] banner `): a build's `[0001] compiled module ...` is none."""
TREE_SHARE = 0.3
"""At least this share of a text's lines are `TREE_NODE`s: an accessibility tree (the rest its `/url:` and text lines)."""
_PAGE_LINE = re.compile(r'^- Page (?:URL|Title): ', re.MULTILINE)
"""Playwright MCP's header: the page's address and title, above its snapshot."""
_CHROME_ROLES = frozenset({'banner', 'navigation', 'contentinfo', 'menubar'})
"""Landmarks a site repeats on every page: header, menus, footer."""
_ALERT_ROLES = frozenset({'alert', 'alertdialog', 'dialog', 'status'})
"""What the page says now: an error under a form, a dialog waiting for an answer."""
_CONTROL_ROLES = frozenset(
    {'button', 'textbox', 'searchbox', 'combobox', 'checkbox', 'radio', 'spinbutton', 'slider', 'switch', 'tab'}
)
"""What an agent acts on next, by the node's `ref`."""
_TEXT_ROLES = frozenset({'statictext', 'text', 'paragraph'})
_EMPTY_NODE = re.compile(r'[ \t]*+(?:"[^\w"\n]*+\w?[^\w"\n]*+")?[ \t]*+\r?$')
"""What follows a node's role when the node holds no words: nothing, or a name of one letter at most (`" "`, `"A"`)."""
_SENTENCE_WORDS = 10
"""Words of a text node's line (its number and role included) that make a sentence of the page's own text, what a
reader of the page came for: a line of a link list or a one-word label is none."""


_CONSENT = re.compile(
    r'\b(?:uses? (?:essential |only |necessary )?cookies (?:to|for|that|which|essential|so)|'
    r'cookie (?:policy|settings|preferences|consent)|accept (?:all )?cookies)\b',
    re.IGNORECASE,
)
"""A cookie banner's sentence (`WWW.AISI.GOV.UK uses cookies essential for website functionality`): every site shows
one, last in its tree, where a page's last lines would be worth keeping as its end."""
_CONSENT_LINES = 2
"""The most lines a cookie banner's sentences fill: a tree with more of them is a page about cookies (a site's cookie
policy), whose sentences are what its reader came for."""
_CONSENT_REACH = 2
"""Lines either side of a cookie banner's sentence that are its parts when they hold a few words (`I understand`)."""
_FEW_WORDS = 4
"""A banner's part beside its sentence holds no more words than this, its node number and role counted."""


def is_tree(lines: Joined) -> bool:
    """Whether `lines` are an accessibility tree: `TREE_SHARE` of them `TREE_NODE`s.

    A Markdown list's `- Navigation is hard` is no banner's node.
    """
    nodes = len(lines.matching(TREE_NODE))
    return bool(nodes) and nodes >= TREE_SHARE * sum(1 for line in lines.lines if line.strip())


def accessibility(lines: Joined, bonuses: list[float]) -> None:
    """Weigh an accessibility tree's nodes by role (see the module's docstring); nothing for other texts.

    A heading weighs as a Markdown heading does (`MID`); a text node holding a sentence (the page's own
    words, `[1757] StaticText "The AI Security Institute was set up to ..."`) and an alert `HIGH`, a
    control `LOW` outside the chrome; every line of a banner, navigation or footer (to the next line indented no deeper than
    the landmark), its links' `/url:` lines with them, weighs `NOISE`, as does a node with no words (`StaticText "A"`,
    a bare `strong`) and a cookie banner's sentence with the short nodes beside it (`I understand`), where one or two
    lines are such sentences. Playwright's page address and title lines are `HIGH`.
    """
    if not is_tree(lines):
        return
    for index in lines.matching(_PAGE_LINE):
        bonuses[index] = max(bonuses[index], HIGH)
    chrome_end = 0
    """The line after the last of the landmark the nodes are in, while inside one."""
    for index in lines.matching(ACCESSIBILITY_NODE):
        node = ACCESSIBILITY_NODE.match(lines.lines[index])
        if node is None or index < chrome_end:
            continue
        role = node[2].lower()
        if role in _CHROME_ROLES:
            chrome_end = _subtree_end(lines.lines, index, len(node[1]))
            bonuses[index:chrome_end] = [NOISE] * (chrome_end - index)
        elif role == 'heading':
            bonuses[index] = max(bonuses[index], MID)
        elif role in _ALERT_ROLES:
            bonuses[index] = max(bonuses[index], HIGH)
        elif role in _CONTROL_ROLES:
            bonuses[index] = max(bonuses[index], LOW)
        elif role in _TEXT_ROLES and len(lines.lines[index].split()) >= _SENTENCE_WORDS:
            bonuses[index] = max(bonuses[index], HIGH)
        elif _EMPTY_NODE.match(lines.lines[index], node.end()):
            bonuses[index] = NOISE  # `StaticText "A"`, `strong`: no words a reader reads
    consent = lines.matching(_CONSENT)
    for index in consent if len(consent) <= _CONSENT_LINES else ():
        bonuses[index] = NOISE
        for near in range(max(0, index - _CONSENT_REACH), min(len(lines), index + _CONSENT_REACH + 1)):
            if len(lines.lines[near].split()) <= _FEW_WORDS and ACCESSIBILITY_NODE.match(lines.lines[near]):
                bonuses[near] = NOISE  # the banner's site name and its button: `[1603] StaticText "I understand"`


def _subtree_end(texts: Sequence[str], index: int, depth: int) -> int:
    """The first line after `index` indented no deeper than `depth` (blank lines aside), or the end."""
    for after in range(index + 1, len(texts)):
        text = texts[after]
        if text.strip() and len(text) - len(text.lstrip(' \t')) <= depth:
            return after
    return len(texts)


def markup(lines: Joined, bonuses: list[float]) -> None:
    """Give the lines of a raw HTML page that are markup with little text the `NOISE` bonus.

    A page fetched as HTML spends most of its characters on what no reader reads: `<script>` and
    `<style>` blocks (every line of them, to their closing tag), `<link>` and `<meta>` tags, and navigation
    lists, whose `<li><a href=...>` lines hold a word or two of text in a hundred characters of tags. They weigh as a scraped page's menus do,
    unless a rule values them as a heading or a later turn quotes them; the article's paragraphs, headings,
    table cells and code stay what is read.
    """
    if '<' not in lines.text:
        return
    for index in lines.matching(_NOT_TEXT):
        if bonuses[index] < MID:
            bonuses[index] = NOISE
    closes, fences = lines.matching(_BLOCK_END), lines.matching(_FENCE)
    done = -1
    for start in lines.matching(_BLOCK_START):  # the lines of a script or a style sheet, up to the tag closing it
        if start <= done or bisect.bisect_right(fences, start) % 2:
            continue  # inside the block before, or a code fence's example
        after = bisect.bisect_right(closes, start)
        opened = lines.lines[start]
        if after == len(closes) or ('</' in opened and _closed(opened.lower())):
            continue  # never closed, or closed on its own line
        done = closes[after]
        for index in range(start + 1, done + 1):
            if bonuses[index] < MID:
                bonuses[index] = NOISE
    for index in lines.matching(_TAGGED):
        line = lines.lines[index]
        if bonuses[index] < MID and len(TAG.sub('', line).strip()) < TEXT_SHARE * len(line) and not _CELL.search(line):
            bonuses[index] = NOISE


_NOT_TEXT = re.compile(
    r'^[ \t]*+<(?:(?:script|style|noscript|svg|iframe|!--)(?![\w-])|(?:link|meta|path)[ \t/])',
    re.IGNORECASE | re.MULTILINE,
)
"""A line that opens what a browser does not show as text: a script, a style sheet, a tag of the page's head. A
`<link`, `<meta` or `<path` only with attributes, as HTML and SVG write them: an RSS feed's `<link>https://...</link>`
is an item's URL, a config's `<path>/var/lib</path>` a value."""
_BLOCK_START = re.compile(r'^[ \t]*+<(?:script|style)(?![\w-])', re.IGNORECASE | re.MULTILINE)
"""A script or a style sheet opening a line: the lines under it, to its closing tag, are code no reader of the page
reads. Not one a sentence names (`add the <script> tag`), nor one in a code fence, which is a document's example."""
_BLOCK_END = re.compile(r'</(?:script|style)>', re.IGNORECASE)


def _closed(line: str) -> bool:
    """Whether the script or style sheet `line` (lowercase) opens last is closed on it too."""
    return max(line.rfind('</script>'), line.rfind('</style>')) > max(line.rfind('<script'), line.rfind('<style'))


_TAGGED = re.compile(r'^(?:[^<\n]*+<[^<>\n]*+>){3}', re.MULTILINE)
"""A line of three tags or more: markup, whose share of text tells a paragraph from a menu."""
_CELL = re.compile(r'<(?:t[dh]|summary|caption)[\s>]', re.IGNORECASE)
"""A table's cell or caption, a collapsed section's title: text however styled (an invoice's `<td style="...">$1,357.40</td>`,
Markdown's `<details><summary><b>Config</b></summary>`), no page's chrome."""


def chrome(lines: Joined, bonuses: list[float]) -> None:
    """Give the lines of a page's chrome (see the module's docstring) the `NOISE` bonus.

    A line of nothing but links is chrome unless a rule values it more than the line under a
    heading. A menu's label is chrome in a run of `_RUN` or more labels and link lines that holds
    a link's bracket, unless it is a title or names what one is about: over a Setext underline, or
    under a line a rule values as a heading or title does (`## Pricing`, `Title:`, a page's first
    `Text:` line). Without a bracket the run is no scraped page's (`ls` output, `import re` lines:
    names a reader came for). Never inside a fenced code block: a TOML table's `[tool.ruff]` or a
    printed `[1, 2, 3]` is code a reader came for. A label and a link whose target the scrape dropped
    (`_CAPTIONED_LINK`) is a link line: a site's widgets, one a line (`alphaXiv Toggle` over
    `alphaXiv*([What is alphaXiv?])*`), make a menu's run.
    """
    links = {*lines.matching(_LINKS), *lines.matching(_CAPTIONED_LINK)}
    labels = lines.matching(_LABEL)
    if not links and not labels:
        return
    fences = lines.matching(_FENCE)
    titles: set[int] = {index - 1 for index in lines.matching(_UNDERLINE)} if labels else set()
    valued = list(bonuses)  # as the rules left them: a line made chrome here is no title of the one under it
    found = [index for index in sorted(links.union(labels)) if not bisect.bisect_right(fences, index) % 2]
    for _, group in itertools.groupby(enumerate(found), lambda pair: pair[1] - pair[0]):  # runs of consecutive lines
        run = [index for _, index in group]
        menu = len(run) >= _RUN and any('[' in lines.lines[index] or ']' in lines.lines[index] for index in run)
        for index in run:
            if index in links:
                is_chrome = valued[index] <= LOW
            else:
                is_chrome = menu and index not in titles and (index == 0 or valued[index - 1] < MID)
            if is_chrome:
                bonuses[index] = NOISE
