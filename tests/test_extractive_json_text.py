"""JSON inside a string: summarized by its shape and written back in its own style, so it still parses."""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path

import pytest

from summarizer.core import JsonValue, ungrounded
from summarizer.core._shape import ITEMS_OMITTED, shape_mismatch
from summarizer.core._tokens import estimate_tokens
from summarizer.extractive import summarize
from summarizer.extractive._kinds import ContentKind, detect_kind
from summarizer.extractive.json_text import _fewer_keys

ROWS = [
    {'id': 9000 + n, 'customer': f'Customer {n}', 'city': 'Zürich' if n % 5 == 0 else 'Lyon', 'total': 12.5 + n}
    for n in range(80)
]


@pytest.mark.parametrize(
    ('text', 'style'),
    [
        (json.dumps(ROWS), 'default'),
        (json.dumps(ROWS, separators=(',', ':'), ensure_ascii=False), 'compact'),
        (json.dumps(ROWS, indent=2), 'indent 2'),
    ],
)
def test_a_list_in_a_string_comes_back_as_a_shorter_list_of_the_same_style(text: str, style: str) -> None:
    assert detect_kind(text) is ContentKind.JSON_TEXT
    summary = summarize(text, budget_tokens=300, quoted=('9042',))
    assert isinstance(summary, str) and estimate_tokens(summary) <= 300
    value = json.loads(summary)
    assert isinstance(value, list) and 0 < len(value) < len(ROWS) and shape_mismatch(ROWS, value) is None
    rows = [row for row in value if not (isinstance(row, str) and ITEMS_OMITTED.fullmatch(row))]
    assert rows and all(row in ROWS for row in rows)  # whole rows, and a marker in the place of each run dropped
    assert any(row['id'] == 9042 for row in rows)
    if style == 'indent 2':
        assert summary.startswith('[\n  {\n    "id": ')
    elif style == 'compact':
        assert '"id":' in summary and '", "' not in summary and 'Zürich' in summary
    else:
        assert '"id": ' in summary and '\\u00fc' in summary


def test_an_object_in_a_string_keeps_every_key_and_its_number_literals() -> None:
    text = '{"report": "weekly", "ratio": 1E2, "delta": -0, "rows": ' + json.dumps(ROWS) + ', "ok": true}'
    summary = summarize(text, budget_tokens=250)
    assert isinstance(summary, str)
    value = json.loads(summary)
    assert isinstance(value, dict) and list(value) == ['report', 'ratio', 'delta', 'rows', 'ok']
    assert '"ratio": 1E2' in summary and '"delta": -0' in summary
    assert value['rows'] and len(value['rows']) < len(ROWS)


def test_an_object_whose_keys_fill_the_budget_keeps_fewer_keys_with_their_values() -> None:
    """Keeping all 40 engines would cut every value to `…`: some engines stay whole, a marker counts the rest."""
    stats = {f'engine_{n:02d}': {'malicious': n % 7, 'undetected': 60 - n, 'category': 'clean'} for n in range(40)}
    original = {'indicator': '203.0.113.77', 'last_analysis_results': stats}
    text = json.dumps(original, indent=2)
    budget = 300
    summary = summarize(text, budget_tokens=budget)
    assert isinstance(summary, str) and estimate_tokens(summary) <= budget
    assert summary.startswith('{\n  "indicator": "203.0.113.77",\n')  # its own style
    value = json.loads(summary)
    engines = value['last_analysis_results']
    kept = [key for key in engines if key.startswith('engine_')]
    assert 0 < len(kept) < 40 and list(engines)[-1] == f'… {40 - len(kept)} keys omitted …'
    assert all(engines[key] == stats[key] for key in kept)  # values, not `…`
    assert ungrounded(text, summary, own_words=False) is None


def test_a_quoted_key_is_kept_among_fewer_keys() -> None:
    dependencies = {f'library-{n}': f'^{n % 9}.{n % 13}.{n % 7}' for n in range(120)}
    text = json.dumps({'name': 'orders-api', 'version': '3.4.1', 'dependencies': dependencies}, indent=2)
    summary = summarize(text, budget_tokens=300, quoted=('library-97',))
    assert isinstance(summary, str)
    value = json.loads(summary)
    assert value['name'] == 'orders-api' and value['version'] == '3.4.1'
    assert value['dependencies']['library-97'] == dependencies['library-97']
    assert list(value['dependencies'])[-1].endswith('keys omitted …')


def test_an_object_too_wide_for_its_style_even_with_fewer_keys_comes_back_compact() -> None:
    """Two keys an object, at the least, still exceed the budget in their style: compact JSON is as near as it gets."""
    stats = {f'engine_{n:02d}': {'malicious': n % 7, 'undetected': 60 - n, 'category': 'clean'} for n in range(40)}
    text = json.dumps({'indicator': '203.0.113.77', 'last_analysis_results': stats}, indent=2)
    summary = summarize(text, budget_tokens=40)
    assert isinstance(summary, str) and '\n' not in summary
    assert list(json.loads(summary)) == ['indicator', 'last_analysis_results']
    assert ungrounded(text, summary, own_words=False) is None


def test_many_small_objects_at_distinct_places_keep_fewer_keys_in_linear_time() -> None:
    """6,561 objects of three keys, each its own group: a round of counting per halving was quadratic (10 s)."""

    def tree(levels: int) -> JsonValue:
        return 'x' if not levels else {f'k{n}': tree(levels - 1) for n in range(3)}

    text = json.dumps(tree(8))
    started = time.perf_counter()
    summary = summarize(text, budget_tokens=200)
    assert time.perf_counter() - started < 2
    assert isinstance(summary, str) and ungrounded(text, summary, own_words=False) is None


def test_counting_the_keys_of_a_text_takes_memory_by_its_objects_not_its_values() -> None:
    """100,000 numbers 60 objects deep: a place of 61 keys for each number took 50 MB (a 4.5 MB text, 900 MB)."""
    value: JsonValue = {'numbers': [1] * 100_000, **{f'field_{n}': n for n in range(30)}}
    for _ in range(60):
        value = {'inner': value, **{f'field_{n}': n for n in range(20)}}
    tracemalloc.start()
    try:
        _fewer_keys(value, room=100, quoted=())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000


@pytest.mark.parametrize('levels', [300, 600, 900])
@pytest.mark.parametrize('container', ['list', 'object'])
def test_json_nested_past_the_depth_guard_is_summarized_without_raising(levels: int, container: str) -> None:
    """Nesting Python's json reads but the recursive summary cannot: `_keeping` and the tree raised RecursionError."""
    deep = '[' * levels + '"x"' + ']' * levels if container == 'list' else '{"a": ' * levels + '1' + '}' * levels
    fields = ', '.join(f'"field_{n:03d}": "value number {n}"' for n in range(300))
    text = '{"deep": ' + deep + ', ' + fields + '}'
    summary = summarize(text, budget_tokens=200)
    assert isinstance(summary, str) and len(summary) < len(text)


def test_json_nested_past_what_python_reads_is_summarized_as_text() -> None:
    text = '[' * 5000 + ']' * 5000
    assert detect_kind(text) is not ContentKind.JSON_TEXT
    summary = summarize(text, budget_tokens=100)
    assert isinstance(summary, str) and len(summary) < len(text)


def _patch(module: str, n: int) -> str:
    lines = [f'@@ -{40 + n},7 +{40 + n},9 @@ class {module.title()}Service:']
    for k in range(14):
        lines.append(f'     def handle_{module}_{k}(self, request):')
        lines.append(f'-        return self.{module}_store.fetch_{k}(request.id)')
        lines.append(f'+        return self.{module}_store.fetch_{k}(request.id, timeout={k + 3})')
    return '\n'.join(lines)


PR_FILES = [
    {
        'sha': f'{n:02x}' * 20,
        'filename': f'src/shop/{module}.py',
        'status': 'modified',
        'additions': 14,
        'deletions': 14,
        'blob_url': f'https://github.com/acme/shop/blob/{n:02x}{n:02x}/src/shop/{module}.py',
        'patch': _patch(module, n),
    }
    for n, module in enumerate(['orders', 'billing', 'refunds', 'carts', 'stock', 'shipping'])
]


def test_the_quoted_facts_stay_in_their_items_and_the_text_still_parses() -> None:
    """An MCP tool's `json.dumps(files)`: the items that do not fit go, the lines later turns quote stay in theirs."""
    text = json.dumps(PR_FILES, indent=2)
    quoted = ('src/shop/orders.py', 'src/shop/refunds.py', 'src/shop/shipping.py', 'handle_stock_7', 'fetch_11')
    summary = summarize(text, budget_tokens=500, quoted=quoted)
    assert isinstance(summary, str) and estimate_tokens(summary) <= 500
    value = json.loads(summary)
    assert isinstance(value, list) and shape_mismatch(PR_FILES, value) is None
    files = [item for item in value if not (isinstance(item, str) and ITEMS_OMITTED.fullmatch(item))]
    assert 0 < len(files) < len(PR_FILES) and all(set(item) == set(PR_FILES[0]) for item in files)
    kept = {str(item['filename']): str(item['patch']) for item in files if isinstance(item, dict)}
    assert {'src/shop/orders.py', 'src/shop/refunds.py', 'src/shop/shipping.py', 'src/shop/stock.py'} <= set(kept)
    assert '     def handle_stock_7(self, request):' in kept['src/shop/stock.py'].split('\n')
    assert any('.fetch_11(request.id' in line for patch in kept.values() for line in patch.split('\n'))


def test_quoted_items_past_the_budget_stay_whole_and_the_text_still_parses() -> None:
    """The items holding quoted ids may take the summary to `quoted_budget_tokens`, in the text's own style."""
    text = json.dumps(ROWS, indent=2)
    quoted = tuple(str(9000 + n) for n in range(3, 80, 4))
    at_budget = summarize(text, budget_tokens=300, quoted=quoted)
    stretched = summarize(text, budget_tokens=300, quoted=quoted, quoted_budget_tokens=900)
    assert isinstance(at_budget, str) and isinstance(stretched, str)
    assert estimate_tokens(at_budget) <= 300 < estimate_tokens(stretched) <= 900
    ids = [{row['id'] for row in json.loads(summary) if isinstance(row, dict)} for summary in (at_budget, stretched)]
    assert not {int(fact) for fact in quoted} <= ids[0]  # the budget alone cannot hold them
    assert {int(fact) for fact in quoted} <= ids[1] and '\n  {\n    "id": ' in stretched  # its own style
    assert ids[0] <= ids[1] and all(n in ids[0] or str(n) in quoted for n in ids[1])  # nothing else past the budget


def test_past_the_budget_a_json_texts_own_items_still_keep_to_the_budget() -> None:
    """The style's overhead is found by trying: a try over the budget but under the quoted limit used to be kept,
    its extra items quoting nothing. With nothing quoted held, the stretched text is the budget's."""
    path = Path(__file__).parent.parent / 'golden/histories/35_coding_pr_review_mcp.json'
    text = json.loads(path.read_text(encoding='utf-8'))[4]['parts'][0]['content']  # an MCP tool's PR files
    assert isinstance(text, str) and text.startswith('[\n  {\n    "sha": ')
    budget = estimate_tokens(text) // 4
    at_budget = summarize(text, budget_tokens=budget, quoted=('not-in-it',))
    stretched = summarize(text, budget_tokens=budget, quoted=('not-in-it',), quoted_budget_tokens=2 * budget)
    assert isinstance(at_budget, str) and estimate_tokens(at_budget) <= budget and stretched == at_budget
