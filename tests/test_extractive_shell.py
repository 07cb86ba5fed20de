"""Shell and test output: failures, the exception and its last frames, the summary lines stay."""

from __future__ import annotations

import time

from extractive_checks import kept_lines, summary_lines

from summarizer.core._tokens import estimate_tokens
from summarizer.extractive import log, summarize
from summarizer.extractive._kinds import ContentKind, detect_kind
from summarizer.extractive.lines import ESCAPES, HIGH, Joined, shown
from summarizer.extractive.outline import enclosing
from summarizer.extractive.shell import line_bonuses, repeated_failures, signature

PASSING = [f'tests/test_orders.py::test_order_case_{n} PASSED{" " * 20}[{n * 100 // 160:3d}%]' for n in range(150)]
PYTEST = '\n'.join(
    [
        '============================= test session starts ==============================',
        'platform linux -- Python 3.12.4, pytest-8.3.2, pluggy-1.5.0',
        'rootdir: /srv/shop',
        'collected 151 items',
        '',
        *PASSING[:90],
        'tests/test_orders.py::test_refund_rounding FAILED                         [ 57%]',
        *PASSING[90:],
        '',
        '=================================== FAILURES ===================================',
        '____________________________ test_refund_rounding _____________________________',
        '',
        '    def test_refund_rounding():',
        '        order = make_order(total="19.99")',
        '>       assert refund(order, ratio=1 / 3) == Decimal("6.66")',
        "E       AssertionError: assert Decimal('6.67') == Decimal('6.66')",
        '',
        'tests/test_orders.py:88: AssertionError',
        '=========================== short test summary info ============================',
        "FAILED tests/test_orders.py::test_refund_rounding - AssertionError: assert Decimal('6.67') == Decimal('6.66')",
        '======================== 1 failed, 150 passed in 4.21s =========================',
    ]
)

TRACEBACK = '\n'.join(
    [
        '$ python -m shop.import_prices data/prices.csv',
        *[f'imported row {n}: sku=SKU-{n:04d} price={n * 3}.99' for n in range(120)],
        'Traceback (most recent call last):',
        '  File "/srv/shop/shop/import_prices.py", line 41, in <module>',
        '    main(sys.argv[1])',
        '  File "/srv/shop/shop/import_prices.py", line 33, in main',
        '    for row in read_rows(path):',
        '  File "/srv/shop/shop/csvio.py", line 17, in read_rows',
        '    yield parse_price(line)',
        '  File "/srv/shop/shop/csvio.py", line 9, in parse_price',
        '    return Decimal(text)',
        "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
    ]
)


def test_a_pytest_run_keeps_its_failure_and_summary_lines() -> None:
    assert detect_kind(PYTEST) is ContentKind.SHELL
    kept = summary_lines(PYTEST, budget_tokens=350)
    assert '======================== 1 failed, 150 passed in 4.21s =========================' in kept
    assert any(line.startswith('FAILED tests/test_orders.py::test_refund_rounding') for line in kept)
    assert "E       AssertionError: assert Decimal('6.67') == Decimal('6.66')" in kept
    assert sum('PASSED' in line for line in kept) < 30


def test_a_traceback_keeps_the_exception_and_its_last_frames() -> None:
    assert detect_kind(TRACEBACK) is ContentKind.SHELL
    kept = summary_lines(TRACEBACK, budget_tokens=250)
    assert "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]" in kept
    assert '  File "/srv/shop/shop/csvio.py", line 9, in parse_price' in kept
    assert '    return Decimal(text)' in kept
    assert '$ python -m shop.import_prices data/prices.csv' in kept


def test_a_pytest_run_keeps_where_it_ran_and_where_the_failure_is() -> None:
    """The lines an agent acts on next: `rootdir:` (the folder its next command runs in) and the
    `file:line: Error` location of the failure (the file it opens next)."""
    kept = summary_lines(PYTEST, budget_tokens=300)
    assert 'rootdir: /srv/shop' in kept
    assert 'tests/test_orders.py:88: AssertionError' in kept


COMPILER = '\n'.join(
    [
        '> shop@1.4.0 build',
        '> next build',
        *[f'  Compiling page {n} of 180 (static)' for n in range(180)],
        './src/lib/api/orders.ts:217:14',
        "Type error: Property 'lineItems' does not exist on type 'CheckoutSession'. (TS2339)",
        '',
        *[f'  Linting file {n} of 90' for n in range(90)],
        'Build failed with 1 error.',
    ]
)


def test_a_line_of_trouble_comes_with_the_line_above_that_says_where() -> None:
    kept = summary_lines(COMPILER, budget_tokens=120)
    error = "Type error: Property 'lineItems' does not exist on type 'CheckoutSession'. (TS2339)"
    assert error in kept and kept[kept.index(error) - 1] == './src/lib/api/orders.ts:217:14'


def test_a_pytest_failure_stands_under_its_tests_banner() -> None:
    text = '\n'.join(
        [
            '============================= test session starts ==============================',
            'collected 240 items',
            *[f'tests/test_orders.py::test_case_{n} PASSED' for n in range(200)],
            '=================================== FAILURES ===================================',
            '____________________________ test_refund_rounding _____________________________',
            '',
            '    def test_refund_rounding():',
            '>       assert refund(Decimal("10.005")) == Decimal("10.01")',
            "E       AssertionError: assert Decimal('10.00') == Decimal('10.01')",
            '',
            'tests/test_refunds.py:41: AssertionError',
            '=========================== short test summary info ============================',
            'FAILED tests/test_refunds.py::test_refund_rounding - AssertionError',
            '======================== 1 failed, 239 passed in 4.21s =========================',
        ]
    )
    kept = summary_lines(text, budget_tokens=160)
    error = "E       AssertionError: assert Decimal('10.00') == Decimal('10.01')"
    banner = '____________________________ test_refund_rounding _____________________________'
    assert error in kept and banner in kept and kept.index(banner) < kept.index(error)
    assert kept[kept.index(error) - 1] == '>       assert refund(Decimal("10.005")) == Decimal("10.01")'


_REFUND_RUN_HEAD = [
    '============================= test session starts ==============================',
    'collected 60 items',
    *[f'tests/test_refunds.py::test_case_{n} PASSED [{n * 100 // 60:3d}%]' for n in range(59)],
    'tests/test_refunds.py::test_refund_rounding FAILED [100%]',
    '=================================== FAILURES ===================================',
    '____________________________ test_refund_rounding _____________________________',
    '',
    '    def test_refund_rounding():',
]
"""A pytest run of 60 tests up to its one failing test's `def` line: the failure's body is each test's own."""


def _long_traceback_run() -> str:
    """A failing pytest run in its long format: frames with their source, `_ _ _` between them, the raise last."""
    frames = [
        (f'/srv/shop/shop/{module}.py', 10 + 7 * n, name, f'    return {name}(order, rows)')
        for n, (module, name) in enumerate(
            [('api', 'refund'), ('ledger', 'post'), ('rows', 'convert'), ('money', 'parse'), ('money', 'quantize')]
        )
    ]
    return '\n'.join(
        [
            *_REFUND_RUN_HEAD,
            '        order = make_order(total="19.99")',
            '>       refund(order, ratio=1 / 3)',
            '',
            *[line for path, number, name, source in frames for line in (f'{path}:{number}: in {name}', source)],
            '_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ',
            '',
            'value = <shop.money.Amount object at 0x7f3a2c1d9e50>',
            '',
            '    def to_cents(value):',
            '        for unit in value.units:',
            '            if unit.scale is None:',
            '                # no scale: the amount cannot be rounded to cents',
            '>               raise ValueError(f"amount {value} has no scale")',
            'E               ValueError: amount 6.666666 has no scale',
            '',
            '/srv/shop/shop/money.py:44: ValueError',
            '=========================== short test summary info ============================',
            'FAILED tests/test_refunds.py::test_refund_rounding - ValueError: amount 6.666666 has no scale',
            '========================= 1 failed, 59 passed in 0.40s ==========================',
        ]
    )


def test_a_failing_run_keeps_its_verdict_and_its_error_when_later_turns_quote_its_frames() -> None:
    """The frames hold what the agent quoted next (their paths), and they must not crowd out what a reader of a
    test run needs first: that it failed, which test, and why. The run is a command result's `stdout` field,
    whose other fields take their share of the budget first."""
    run = _long_traceback_run()
    result = {'stdout': run, 'stderr': 'WARNING: pytest is not on PATH', 'exitCode': 1}
    quoted = tuple(f'/srv/shop/shop/{module}.py' for module in ('api', 'ledger', 'rows', 'money')) + ('refund',)
    summary = summarize(result, budget_tokens=300, quoted=quoted)  # a quarter of it
    assert isinstance(summary, dict) and isinstance(summary['stdout'], str)
    kept = kept_lines(run, summary['stdout'])
    assert '========================= 1 failed, 59 passed in 0.40s ==========================' in kept
    assert 'FAILED tests/test_refunds.py::test_refund_rounding - ValueError: amount 6.666666 has no scale' in kept
    error = 'E               ValueError: amount 6.666666 has no scale'
    assert error in kept
    # the failing source line places it, not the source lines above that one
    assert kept[kept.index(error) - 1] == '>               raise ValueError(f"amount {value} has no scale")'


def test_the_separator_between_two_frames_is_no_exception() -> None:
    """pytest's `_ _ _` line follows a frame that is not the last: the exception is further down."""
    run = _long_traceback_run()
    kept = summary_lines(run, budget_tokens=90)
    assert '_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ' not in kept
    assert '========================= 1 failed, 59 passed in 0.40s ==========================' in kept


def test_an_ok_a_command_prints_is_no_verdict() -> None:
    """unittest's `OK` is a verdict under `Ran 12 tests in ...`; alone it is what `redis-cli SET` prints each
    time, and 120 of them, 2 tokens each, must not win the budget from the error and its exception."""
    lines: list[str] = []
    for n in range(120):
        lines += [f'$ redis-cli -h cache-{n % 7}.internal SET feature:{n} on', 'OK']
    lines[150:150] = [
        'ERROR: connection to cache-3.internal:6379 refused after 3 retries',
        'Traceback (most recent call last):',
        '  File "/srv/warm.py", line 12, in <module>',
        '    client.set(key, value)',
        'redis.exceptions.ConnectionError: Error 111 connecting to cache-3.internal:6379. Connection refused.',
    ]
    text = '\n'.join(lines)
    assert detect_kind(text) is ContentKind.SHELL
    summary = summarize(text, budget_tokens=150)
    assert isinstance(summary, str)
    kept = summary.split('\n')  # (`kept_lines` cannot tell one `OK` from another)
    assert lines[150] in kept and lines[154] in kept
    assert kept.count('OK') < 10

    run = '\n'.join(
        [
            *[f'test_case_{n} (tests.test_cache.CacheTest) ... ok' for n in range(200)],
            '-' * 70,
            'Ran 60 tests in 0.031s',
            '',
            'OK',
        ]
    )
    summary = summarize(run, budget_tokens=40)
    assert isinstance(summary, str)
    assert kept_lines(run, summary)[-3:] == ['Ran 60 tests in 0.031s', '', 'OK']


def test_the_separator_between_two_frames_is_no_exception_with_windows_line_ends() -> None:
    run = _long_traceback_run().replace('\n', '\r\n')
    kept = summary_lines(run, budget_tokens=90)
    assert '_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \r' not in kept
    assert '========================= 1 failed, 59 passed in 0.40s ==========================' in kept
    # the budget goes to why it failed, not to the separator and the frames above it: in the `E` line or in
    # the `FAILED` line, which says it again
    assert any('ValueError: amount 6.666666 has no scale' in line for line in kept)
    assert 'FAILED tests/test_refunds.py::test_refund_rounding - ValueError: amount 6.666666 has no scale\r' in kept


def test_go_jest_and_unittest_failures_are_kept_with_their_verdicts() -> None:
    """Other runners' verdicts and failure headers: Go's `FAIL<tab>pkg<tab>time` and `--- FAIL:`, Jest's
    `Tests:` and `FAIL file`, unittest's `FAIL: test_x`; each named by the line itself, not the one above."""
    go = '\n'.join(
        [
            *[f'=== RUN   TestCart{n}\n--- PASS: TestCart{n} (0.00s)' for n in range(200)],
            '=== RUN   TestRefundRounding',
            '    refund_test.go:41: got 6.67, want 6.66',
            '--- FAIL: TestRefundRounding (0.00s)',
            *[f'ok  \texample.com/shop/pkg{n}\t0.0{n % 10}s' for n in range(20)],
            'FAIL\texample.com/shop/refunds\t0.41s',
            'FAIL',
        ]
    )
    jest = '\n'.join(
        [
            *[f'PASS src/cart{n}.test.ts' for n in range(200)],
            'FAIL src/refund.test.ts',
            '  ● refund › rounds to cents',
            '    expect(received).toBe(expected) // Object.is equality',
            'Test Suites: 1 failed, 60 passed, 61 total',
            'Tests:       1 failed, 240 passed, 241 total',
        ]
    )
    unittest = '\n'.join(
        [
            '.' * 2800,
            '======================================================================',
            'FAIL: test_refund_rounding (shop.tests.RefundTests.test_refund_rounding)',
            '----------------------------------------------------------------------',
            'AssertionError: 6.67 != 6.66',
            '----------------------------------------------------------------------',
            'Ran 2801 tests in 4.210s',
            '',
            'FAILED (failures=1)',
        ]
    )
    for text, wanted in (
        (go, ('--- FAIL: TestRefundRounding (0.00s)', 'FAIL\texample.com/shop/refunds\t0.41s')),
        (jest, ('FAIL src/refund.test.ts', 'Tests:       1 failed, 240 passed, 241 total')),
        (unittest, ('FAIL: test_refund_rounding (shop.tests.RefundTests.test_refund_rounding)', 'FAILED (failures=1)')),
    ):
        assert detect_kind(text) is ContentKind.SHELL
        summary = summarize(text, budget_tokens=60)
        assert isinstance(summary, str)
        kept = kept_lines(text, summary)
        assert all(line in kept for line in wanted), (wanted, summary)


def test_with_room_for_quoted_lines_a_run_keeps_its_error_beside_every_quoted_frame() -> None:
    """A stored history may spend past the budget on the lines it quotes (`quoted_budget_tokens`): the lines a test
    run requires then take the share they take unquoted, and the error is not crowded out by 25 quoted frames."""
    frames = [(f'/srv/shop/shop/mod_{n:02d}.py', 10 + 7 * n, f'step_{n:02d}') for n in range(25)]
    run = '\n'.join(
        [
            *_REFUND_RUN_HEAD,
            '>       refund(make_order(total="19.99"), ratio=1 / 3)',
            '',
            *[
                line
                for path, number, name in frames
                for line in (f'{path}:{number}: in {name}', '    return next(order)')
            ],
            '',
            '>               raise ValueError(f"amount {value} has no scale")',
            'E               ValueError: amount 6.666666 has no scale',
            '',
            '/srv/shop/shop/money.py:44: ValueError',
            '=========================== short test summary info ============================',
            'FAILED tests/test_refunds.py::test_refund_rounding',
            '========================= 1 failed, 59 passed in 0.40s ==========================',
        ]
    )
    quoted = tuple(path for path, _, _ in frames)
    summary = summarize(run, budget_tokens=300, quoted=quoted, quoted_budget_tokens=900)
    assert isinstance(summary, str) and estimate_tokens(summary) <= 900
    kept = kept_lines(run, summary)
    assert all(f'{path}:{number}: in {name}' in kept for path, number, name in frames)
    for line in (
        'E               ValueError: amount 6.666666 has no scale',
        'FAILED tests/test_refunds.py::test_refund_rounding',
        '========================= 1 failed, 59 passed in 0.40s ==========================',
    ):
        assert line in kept, line


def _pytest_ra(tests: int) -> str:
    """`pytest -rA` of a suite against a local server: one failure, then every passing test's captured access log
    under its banner (`=== PASSES ===`), and a `PASSED` line per test in the short summary."""
    lines = ['============================= test session starts ==============================', 'rootdir: /code/shop']
    lines += [f'tests/test_api.py::test_endpoint_{n} PASSED [{n * 100 // tests:3d}%]' for n in range(tests)]
    lines += [
        '=================================== FAILURES ===================================',
        '______________________________ test_refund_twice _______________________________',
        '    def test_refund_twice(client):',
        '>       assert client.refund("ord_00042").status == 409',
        'E       AssertionError: assert 500 == 409',
        '',
        'tests/test_api.py:88: AssertionError',
        '==================================== PASSES ====================================',
    ]
    for n in range(tests):
        lines += [
            f'_______________________________ test_endpoint_{n} _______________________________',
            '----------------------------- Captured stderr call -----------------------------',
            f'127.0.0.1 - - [05/May/2026 12:11:{n % 60:02d}] "GET /orders/ord_{n:05d}?page={n} HTTP/1.1" 200 {n * 7}',
        ]
    lines.append('=========================== short test summary info ============================')
    lines += [f'PASSED tests/test_api.py::test_endpoint_{n}' for n in range(tests)]
    lines += [
        'FAILED tests/test_api.py::test_refund_twice - AssertionError: assert 500 == 409',
        f'========================= 1 failed, {tests} passed in 3.20s =========================',
    ]
    return '\n'.join(lines)


def test_what_pytest_ra_prints_of_passing_tests_gives_way_to_the_failure() -> None:
    """The access logs of 60 passing tests hold paths and numbers by the hundred; the failure's lines come first,
    and the room left goes to the run, not to lines about tests that passed, unless a later turn quotes one."""
    text = _pytest_ra(60)
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 6)
    for line in (
        'E       AssertionError: assert 500 == 409',
        'tests/test_api.py:88: AssertionError',
        'FAILED tests/test_api.py::test_refund_twice - AssertionError: assert 500 == 409',
    ):
        assert line in kept
    passes = text.split('\n').index('==================================== PASSES ====================================')
    banner = '______________________________ test_refund_twice _______________________________'
    assert kept.index(banner) < kept.index('E       AssertionError: assert 500 == 409') < passes
    about_passing = [line for line in kept if line.startswith(('127.0.0.1 ', 'PASSED ', '____', '----'))]
    assert len(about_passing) <= 3  # the failure's banner, and one passing test's at most: not 60 of them
    quoted = summarize(text, budget_tokens=estimate_tokens(text) // 6, quoted=('/orders/ord_00017?page=17',))
    assert isinstance(quoted, str)
    assert any('/orders/ord_00017?page=17' in line for line in kept_lines(text, quoted))


def test_colored_pytest_ra_keeps_the_failure_and_verdict_after_its_passes() -> None:
    """With `--color=yes` pytest prints `=== PASSES ===` plain but the banners after it in color: the section
    still ends at the short test summary, so its `FAILED` line and the verdict are no lines about passing tests."""
    lines = _pytest_ra(60).split('\n')
    banner = lines.index('=========================== short test summary info ============================')
    lines[banner] = f'\x1b[36m\x1b[1m{lines[banner]}\x1b[0m'
    failed, verdict = f'\x1b[31m{lines[-2]}\x1b[0m', f'\x1b[31m{lines[-1]}\x1b[0m'
    text = '\n'.join([*lines[:-2], failed, verdict])
    kept = kept_lines(text, summarize(text, budget_tokens=estimate_tokens(text) // 6))
    assert failed in kept
    assert verdict in kept


def test_pytest_ra_keeps_a_coverage_gate_failure_printed_after_its_passes() -> None:
    """pytest-cov (before 5) prints its report under a `---- coverage: ... ----` rule between the `PASSES` section
    and the short test summary: the section ends there, so its failing gate is no line about passing tests."""
    lines = _pytest_ra(60).split('\n')
    summary_at = lines.index('=========================== short test summary info ============================')
    gate = 'FAIL Required test coverage of 90% not reached. Total coverage: 71.40%'
    lines[summary_at:summary_at] = [
        '---------- coverage: platform linux, python 3.11.7-final-0 -----------',
        'Name                Stmts   Miss  Cover',
        '---------------------------------------',
        'shop/api.py           212     61    71%',
        'TOTAL                 212     61    71%',
        '',
        gate,
    ]
    text = '\n'.join(lines)
    kept = kept_lines(text, summarize(text, budget_tokens=estimate_tokens(text) // 6))
    assert gate in kept
    assert not [line for line in kept if line.startswith('127.0.0.1 ')][1:]  # the passing tests' logs still go


def test_command_output_lines_alike_but_for_their_numbers_fold_with_a_count() -> None:
    """The same warning for every line of a module (`least_angle.py:30: DeprecationWarning: ...`) is read once: the
    first copy stays, the others are one marker that counts them, and the room goes to the failure."""
    warnings = [
        f'sklearn/linear_model/least_angle.py:{30 + 7 * n}: DeprecationWarning: `np.float` is a deprecated alias '
        'for the builtin `float`. To silence this warning, use `float` by itself.'
        for n in range(40)
    ]
    text = '\n'.join(
        [
            '$ python -m pytest tests/test_lars.py -q',
            *warnings,
            'F.',
            'FAILED tests/test_lars.py::test_lars_path_positive - ValueError: alpha must be positive, got -0.5',
            '1 failed, 1 passed, 40 warnings in 1.92s',
        ]
    )
    assert detect_kind(text) is ContentKind.SHELL
    summary = summarize(text, budget_tokens=150)
    assert isinstance(summary, str)
    kept = kept_lines(text, summary)
    assert 'FAILED tests/test_lars.py::test_lars_path_positive - ValueError: alpha must be positive, got -0.5' in kept
    assert sum(line in kept for line in warnings) == 1
    assert any(line.endswith('similar lines omitted …') for line in summary.split('\n'))


_GEOKIT = '/srv/geo/.venv/lib/python3.11/site-packages/geokit'
_CELLSIZE = (
    'DeprecationWarning: `gk.Grid.cellsize` is deprecated, use `gk.Grid.resolution`. Reading it still works and '
    'returns the same value; it will be removed in a future release.'
)
_ORIGIN = 'DeprecationWarning: `gk.Grid.origin` is deprecated, use `gk.Grid.bounds[:2]`.'
_SCHEDULE = (
    'Deprecated since geokit 2.4; for the removal schedule see https://geokit.example.org/changes/2.4.html#removals'
)
"""The second line of each geokit deprecation: the warning's message runs over two lines, its source line under them."""
_CELLSIZE_SOURCES = (
    '  step = grid.cellsize / 2,',
    '  h = np.arange(0, grid.cellsize * lags, grid.cellsize)',
    '  radius = max(grid.cellsize, min_radius)',
    '  return grid.cellsize ** 2 * np.sum(weights)',
)
_FUTURE = (
    "FutureWarning: the default of resample= will change from 'nearest' to 'bilinear' in geokit 3.0; pass it to keep "
    'the current behaviour.'
)
FIT_WARNINGS = '\n'.join(
    [
        '$ python scripts/fit_surfaces.py --region alps',
        *[
            line
            for n in range(12)
            for line in (
                f'{_GEOKIT}/{("kriging", "variogram", "kriging", "smoothing")[n % 4]}.py:{40 + 37 * n}: {_CELLSIZE}',
                _SCHEDULE,
                _CELLSIZE_SOURCES[n % 4],
            )
        ],
        *[
            line
            for n in range(3)
            for line in (f'{_GEOKIT}/grid.py:{120 + 9 * n}: {_ORIGIN}', _SCHEDULE, f'  x0, y0 = grids[{n}].origin')
        ],
        *[
            line
            for n in range(8)
            for line in (
                f'/srv/geo/geo/io/tiles.py:{60 + 11 * n}: {_FUTURE}',
                f'  band = tiles.read(path, window=w[{n}])',
            )
        ],
        '/srv/geo/geo/fit.py:212: UserWarning: 3 of 48 stations have no elevation; filled from the nearest station.',
        '  warnings.warn(f"{missing} of {total} stations have no elevation; filled from the nearest station.")',
        'fitted 48 surfaces in 6.2s, mean RMSE 0.41 m',
    ]
)
"""A script's run printing Python warnings: 23 of four kinds from several modules, each over the source line it warns
of (indented under it), one kind's message on two lines; then what the script did."""


def test_python_warnings_are_read_once_each_with_its_source_line_and_the_repeats_fold() -> None:
    """A warning repeated at other lines and modules is the same warning: its first copy stays, with its place and
    source line, and the others fold into a marker's count, the source lines under them too. Kept for their own
    sake, those source lines would bring the message over them each time (`Deprecated since geokit 2.4; ...`, the
    line that places them), and leave no room for the other warnings and the run's last line."""
    assert detect_kind(FIT_WARNINGS) is ContentKind.SHELL
    kept = summary_lines(FIT_WARNINGS, budget_tokens=estimate_tokens(FIT_WARNINGS) // 4)
    lines = FIT_WARNINGS.split('\n')
    assert sum(line.endswith(_CELLSIZE) for line in kept) == 1
    assert kept.count(_SCHEDULE) <= 2  # under the first `cellsize` warning, and under the first `origin` one
    for kind in (_CELLSIZE, _ORIGIN, _FUTURE, 'UserWarning: 3 of 48 stations'):
        warning = next(index for index, line in enumerate(kept) if kind in line)
        under = 2 if kind in (_CELLSIZE, _ORIGIN) else 1  # its message's second line, then its source line
        at = lines.index(kept[warning])
        assert kept[warning + 1 : warning + 1 + under] == lines[at + 1 : at + 1 + under], kind
    assert 'fitted 48 surfaces in 6.2s, mean RMSE 0.41 m' in kept


def test_in_pytests_warnings_summary_each_warning_stays_under_its_place_alike_or_not() -> None:
    """pytest's warnings summary names the place over each warning (`src/ledger/models.py:88`): places alike but for
    their line numbers fold, a different warning under one does not, only the repeats of one warning do."""
    utcnow = (
        'DeprecationWarning: datetime.datetime.utcnow() is deprecated and scheduled for removal in a future version.'
    )
    relationship = (
        "SAWarning: relationship 'Entry.account' will copy column accounts.id to column entries.account_id, which "
        "conflicts with relationship(s): 'Account.entries'."
    )
    blocks = [
        (
            f'src/ledger/models.py:{40 + 3 * n}',
            f'/srv/ledger/src/ledger/models.py:{40 + 3 * n}: {utcnow}',
            f'created_{n}',
        )
        for n in range(16)
    ]
    blocks.insert(9, ('src/ledger/models.py:88', f'/srv/ledger/src/ledger/models.py:88: {relationship}', 'account'))
    text = '\n'.join(
        [
            '============================= test session starts ==============================',
            'collected 31 items',
            '',
            'tests/test_ledger.py ...............................                        [100%]',
            '',
            '=============================== warnings summary ===============================',
            *[
                line
                for place, warning, name in blocks
                for line in (place, f'  {warning}', f'    {name} = Column(DateTime, default=datetime.utcnow())', '')
            ],
            '-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html',
            '======================= 31 passed, 17 warnings in 1.20s ========================',
        ]
    )
    assert detect_kind(text) is ContentKind.SHELL
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 4)
    assert sum(line.endswith(utcnow) for line in kept) == 1
    assert f'  /srv/ledger/src/ledger/models.py:88: {relationship}' in kept
    assert '======================= 31 passed, 17 warnings in 1.20s ========================' in kept


_CRATES = ('anyhow', 'bytes', 'chrono', 'hashbrown', 'itoa', 'memchr', 'once_cell', 'rand', 'regex', 'tokio')
CARGO_BUILD = '\n'.join(
    [
        '    Updating crates.io index',
        '     Locking 71 packages to latest compatible versions',
        '  Downloaded 3 crates (412.0 KB) in 0.61s',
        *[f'   Compiling {_CRATES[n % 10]}-{n // 10} v{n % 4}.{n}.{n % 7}' for n in range(70)],
        '   Compiling invoices v0.9.1 (/srv/billing/invoices)',
        'error[E0425]: cannot find value `tax_rate` in this scope',
        '  --> invoices/src/totals.rs:57:31',
        '   |',
        '57 |     let tax = subtotal * tax_rate;',
        '   |                          ^^^^^^^^ not found in this scope',
        '',
        'error[E0277]: the trait bound `Cents: From<f64>` is not satisfied',
        '   --> invoices/src/render.rs:203:18',
        '    |',
        '203 |     let shown = Cents::from(amount * 100.0);',
        '    |                 ^^^^^ the trait `From<f64>` is not implemented for `Cents`',
        '',
        'Some errors have detailed explanations: E0277, E0425.',
        'For more information about an error, try `rustc --explain E0277`.',
        'error: could not compile `invoices` (lib) due to 2 previous errors',
    ]
)
"""A `cargo build` of 70 dependencies and one crate that fails with two errors, each over its location."""


def test_a_cargo_build_keeps_its_errors_their_locations_and_its_verdict_not_its_progress() -> None:
    """What a reader of a failed build opens next is the file and line under each error (`--> src/x.rs:57:31`);
    the verdict says which crate failed and how often. The `Compiling` lines are the dependencies that built."""
    assert detect_kind(CARGO_BUILD) is ContentKind.SHELL
    summary = summarize(CARGO_BUILD, budget_tokens=estimate_tokens(CARGO_BUILD) // 4)
    assert isinstance(summary, str)
    kept = kept_lines(CARGO_BUILD, summary)
    for line in (
        'error[E0425]: cannot find value `tax_rate` in this scope',
        '  --> invoices/src/totals.rs:57:31',
        'error[E0277]: the trait bound `Cents: From<f64>` is not satisfied',
        '   --> invoices/src/render.rs:203:18',
        'error: could not compile `invoices` (lib) due to 2 previous errors',
    ):
        assert line in kept, (line, summary)
    assert not [line for line in kept if line.lstrip().startswith(('Compiling ', 'Updating ', 'Locking '))]


def _unused_warning(n: int) -> list[str]:
    line = 7 * n + 6
    gutter = ' ' * len(str(line))
    return [
        f'warning: unused variable: `scratch_{n}`',
        f'{gutter}--> src/main.rs:{line}:9',
        f'{gutter} |',
        f'{line} |     let scratch_{n} = input.len();',
        f'{gutter} |         {"^" * len(f"scratch_{n}")} help: if this is intentional, prefix it with an underscore: `_scratch_{n}`',
        '',
    ]


CARGO_WARNINGS = '\n'.join(
    [
        '   Compiling demo v0.1.0 (/srv/demo)',
        'error[E0308]: mismatched types',
        '   --> src/main.rs:170:47',
        '    |',
        '170 |     let parsed: u32 = input.parse().unwrap_or("0");',
        '    |                                     --------- ^^^ expected `u32`, found `&str`',
        '    |                                     |',
        '    |                                     arguments to this method are incorrect',
        '',
        'error[E0433]: cannot find type `Config` in this scope',
        '   --> src/main.rs:367:15',
        '    |',
        '367 |     let cfg = Config::load(input);',
        '    |               ^^^^^^ use of undeclared type `Config`',
        '',
        *[line for n in range(70) for line in _unused_warning(n)],
        'Some errors have detailed explanations: E0308, E0433.',
        'warning: `demo` (bin "demo") generated 70 warnings',
        'error: could not compile `demo` (bin "demo") due to 2 previous errors; 70 warnings emitted',
    ]
)
"""A `cargo build` with two errors, each with its snippet, and seventy warnings alike but for the variable they name."""


def test_a_build_with_many_warnings_keeps_why_each_error_failed_and_one_of_the_warnings() -> None:
    """Why an error failed is in its snippet: the source line and the label under it (`^^^ expected `u32`, found
    `&str``). Seventy warnings alike are one warning and a count to a reader; each with the place under it (`-->`)
    weighed as an error's, their places crowded out the errors' snippets."""
    summary = summarize(CARGO_WARNINGS, budget_tokens=estimate_tokens(CARGO_WARNINGS) // 4)
    assert isinstance(summary, str)
    kept = kept_lines(CARGO_WARNINGS, summary)
    for line in (
        '170 |     let parsed: u32 = input.parse().unwrap_or("0");',
        '    |                                     --------- ^^^ expected `u32`, found `&str`',
        '367 |     let cfg = Config::load(input);',
        '    |               ^^^^^^ use of undeclared type `Config`',
        'error: could not compile `demo` (bin "demo") due to 2 previous errors; 70 warnings emitted',
    ):
        assert line in kept, (line, summary)
    assert len([line for line in kept if line.startswith('warning: unused variable')]) <= 2, summary


def test_a_warnings_place_weighs_less_than_an_errors_and_its_snippet_folds_across_gutter_widths() -> None:
    """An error's place is where a reader goes next; a warning's is one of many. The same warning's snippet on line 6
    and on line 104 differs only in the widths of the gutter and of the marks, so it is alike."""
    lines = CARGO_WARNINGS.split('\n')
    bonuses = line_bonuses(Joined(lines))
    assert bonuses[lines.index('   --> src/main.rs:170:47')] >= HIGH
    assert bonuses[lines.index('   --> src/main.rs:167:9')] < HIGH
    assert (
        bonuses[lines.index('    |                                     --------- ^^^ expected `u32`, found `&str`')]
        >= HIGH
    )
    assert signature('6 |     let scratch_0 = input.len();') == signature('104 |     let scratch_14 = input.len();')
    assert signature('  |         ^^^^^^^^^ help: prefix `_scratch_0`') == signature(
        '    |         ^^^^^^^^^^ help: prefix `_scratch_14`'
    )
    assert signature('  --> src/main.rs:104:9') == signature('   --> src/main.rs:104:9')
    assert signature('  --> src/main.rs:6:9') != signature('  --> src/main.rs:104:9')
    assert signature(' --> ledger/module_3.py:4:7') == signature(' --> ledger/module_12.py:4:7')
    assert signature('6 |     let total = 1;') != signature('6 |     let scratch_0 = 1;')


def _go_package(name: str, tests: int) -> list[str]:
    lines: list[str] = []
    for n in range(tests):
        lines += [f'=== RUN   Test{name}Case{n}', f'--- PASS: Test{name}Case{n} (0.0{n % 10}s)']
    return [*lines, 'PASS', f'ok  \texample.com/mailer/internal/{name.lower()}\t0.{tests}s']


GO_TEST = '\n'.join(
    [
        *_go_package('Templates', 25),
        *_go_package('Queue', 25),
        '=== RUN   TestSendBatchSplitsAtLimit',
        '    send_test.go:61: batch 1: 500 recipients',
        '    send_test.go:61: batch 2: 500 recipients',
        '    send_test.go:74: got 3 batches, want 2',
        '    send_test.go:75: last batch has 1 recipients, want 0',
        '--- FAIL: TestSendBatchSplitsAtLimit (0.02s)',
        *[f'=== RUN   TestSendCase{n}\n--- PASS: TestSendCase{n} (0.00s)' for n in range(20)],
        'FAIL',
        'FAIL\texample.com/mailer/internal/send\t0.31s',
        'FAIL',
    ]
)
"""`go test -v ./...` over three packages of passing tests, one of which fails with the `t.Errorf` lines of why."""


def test_a_go_test_run_keeps_the_failing_tests_messages_not_the_passing_tests() -> None:
    """Why a Go test failed is what it printed between its `=== RUN` and its `--- FAIL:` (`send_test.go:74: got 3
    batches, want 2`); the `=== RUN` and `--- PASS:` lines of the tests that passed are progress."""
    assert detect_kind(GO_TEST) is ContentKind.SHELL
    summary = summarize(GO_TEST, budget_tokens=estimate_tokens(GO_TEST) // 4)
    assert isinstance(summary, str)
    kept = kept_lines(GO_TEST, summary)
    for line in (
        '=== RUN   TestSendBatchSplitsAtLimit',
        '    send_test.go:74: got 3 batches, want 2',
        '    send_test.go:75: last batch has 1 recipients, want 0',
        '--- FAIL: TestSendBatchSplitsAtLimit (0.02s)',
        'FAIL\texample.com/mailer/internal/send\t0.31s',
    ):
        assert line in kept, (line, summary)
    assert not [line for line in kept if line.startswith('ok  \t')]
    # One passing test's lines may fill budget left over, for a fact sixty of them repeat (`(0.00s)`): not 70
    passing = [line for line in kept if line.startswith(('=== RUN ', '--- PASS: ')) and 'BatchSplits' not in line]
    assert len(passing) <= 2, passing


CARGO_TEST = '\n'.join(
    [
        *[f'   Compiling {_CRATES[n % 10]}-{n // 10} v{n % 4}.{n}.{n % 7}' for n in range(30)],
        '   Compiling invoices v0.9.1 (/srv/billing/invoices)',
        '    Finished `test` profile [unoptimized + debuginfo] target(s) in 14.22s',
        '     Running unittests src/lib.rs (target/debug/deps/invoices-6f1e2d9a0b3c4d5e)',
        '',
        'running 41 tests',
        *[f'test totals::tests::case_{n} ... ok' for n in range(20)],
        'test render::tests::rounds_half_cents ... FAILED',
        *[f'test render::tests::case_{n} ... ok' for n in range(20)],
        '',
        'failures:',
        '',
        '---- render::tests::rounds_half_cents stdout ----',
        "thread 'render::tests::rounds_half_cents' panicked at invoices/src/render.rs:311:9:",
        'assertion `left == right` failed',
        '  left: "12.34"',
        ' right: "12.35"',
        'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
        '',
        'test result: FAILED. 40 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.03s',
        '',
        'error: test failed, to rerun pass `--lib`',
    ]
)
"""`cargo test` of one crate, a test of which panics. (Cargo lists the failing tests again under a second
`failures:` line before the verdict, left out here: `kept_lines` cannot tell two equal lines apart.)"""


def test_a_cargo_test_run_keeps_its_verdict_and_the_failing_tests_panic() -> None:
    """`cargo test`: the verdict (`test result: FAILED. ...`), then why: the failing test's panic, where it was
    (`panicked at invoices/src/render.rs:311:9:`) and its message, with the values it compared."""
    assert detect_kind(CARGO_TEST) is ContentKind.SHELL
    summary = summarize(CARGO_TEST, budget_tokens=estimate_tokens(CARGO_TEST) // 4)
    assert isinstance(summary, str)
    kept = kept_lines(CARGO_TEST, summary)
    for line in (
        'test result: FAILED. 40 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.03s',
        "thread 'render::tests::rounds_half_cents' panicked at invoices/src/render.rs:311:9:",
        'assertion `left == right` failed',
        '  left: "12.34"',
        ' right: "12.35"',
    ):
        assert line in kept, (line, summary)
    assert not [line for line in kept if line.endswith(' ... ok') or line.lstrip().startswith('Compiling ')]


_PIP_HEAD = [
    *[f'Requirement already satisfied: {name} in ./.venv/lib/python3.12/site-packages (from -r requirements.txt (line {n}))'
      for n, name in enumerate(('urllib3>=1.21.1,<3', 'idna<4,>=2.5', 'certifi>=2017.4.17', 'click>=8.1', 'jinja2>=3.1'
                                , 'itsdangerous>=2.1', 'blinker>=1.6', 'markupsafe>=2.0', 'packaging>=23', 'six>=1.5')
                               * 3)],
    *[line for n in range(12) for line in (
        f'Collecting vendor-lib-{n}==1.{n}.0 (from -r requirements.txt (line {40 + n}))',
        f'  Downloading vendor_lib_{n}-1.{n}.0-py3-none-any.whl.metadata (2.{n} kB)',
        f'  Using cached vendor_lib_{n}-1.{n}.0-py3-none-any.whl (1{n}8 kB)',
    )],
]  # fmt: skip


def test_a_pip_install_keeps_its_error_or_what_it_installed_over_what_was_there() -> None:
    """pip's progress (`Requirement already satisfied: `, `Collecting `, `  Downloading `) is what it found in order;
    a reader needs whether it installed (`Successfully installed ...`) or why not (`ERROR: ...`)."""
    failed = '\n'.join(
        [
            *_PIP_HEAD,
            'Collecting stripe-billing==4.2.0 (from -r requirements.txt (line 58))',
            'ERROR: Could not find a version that satisfies the requirement stripe-billing==4.2.0 (from versions: 3.9.1)',
            'ERROR: No matching distribution found for stripe-billing==4.2.0',
        ]
    )
    installed = '\n'.join(
        [
            *_PIP_HEAD,
            'Installing collected packages: ' + ', '.join(f'vendor-lib-{n}' for n in range(12)),
            'Successfully installed ' + ' '.join(f'vendor-lib-{n}-1.{n}.0' for n in range(12)),
            '',
            '[notice] A new release of pip is available: 24.0 -> 24.2',
        ]
    )
    for text, wanted in (
        (failed, 'ERROR: No matching distribution found for stripe-billing==4.2.0'),
        (installed, 'Successfully installed ' + ' '.join(f'vendor-lib-{n}-1.{n}.0' for n in range(12))),
    ):
        assert detect_kind(text) is ContentKind.SHELL
        summary = summarize(text, budget_tokens=estimate_tokens(text) // 5)
        assert isinstance(summary, str)
        kept = kept_lines(text, summary)
        assert wanted in kept, summary
        # One may fill budget left over, for the folder thirty of them repeat (`./.venv/lib/...`): not 30
        assert len([line for line in kept if line.startswith('Requirement already satisfied: ')]) <= 1
        assert not [line for line in kept if line.startswith(('  Using cached ', '  Downloading '))]


def test_cargos_right_aligned_status_lines_place_nothing_and_djangos_indented_lines_still_do() -> None:
    """Cargo right-aligns its status word to the 12th column: `     Running` is no child of `    Finished` or of
    `   Compiling`. Django's `    Creating table x` ends its word there too, and is a child of its heading."""
    from summarizer.extractive.outline import enclosing

    cargo = [
        '   Compiling invoices v0.9.1 (/srv/billing/invoices)',
        '    Finished `test` profile [unoptimized + debuginfo] target(s) in 14.22s',
        '     Running unittests src/lib.rs (target/debug/deps/invoices-6f1e2d9a0b3c4d5e)',
    ]
    assert enclosing(ContentKind.SHELL, cargo) == [(), (), ()]
    django = ['  Synchronizing apps without migrations:', '    Creating tables...', '    Creating table shop_order']
    assert enclosing(ContentKind.SHELL, django)[2] == (0,)


def _jest_suite(n: int) -> list[str]:
    return [f'PASS src/lib/money{n}.test.ts', *[f'  ✓ rounds {k} cents half up ({k + 1} ms)' for k in range(6)]]


JEST = '\n'.join(
    [
        '> vitrine@3.2.0 test',
        '> jest --ci',
        '',
        *[line for n in range(8) for line in _jest_suite(n)],
        'FAIL src/cart/totals.test.ts',
        '  totals',
        '    ✓ sums the lines (2 ms)',
        '    ✕ takes the discount off before VAT (9 ms)',
        '    ✓ is zero when empty (1 ms)',
        '',
        '  ● totals › takes the discount off before VAT',
        '',
        '    expect(received).toBe(expected) // Object.is equality',
        '',
        '    Expected: 108',
        '    Received: 110.4',
        '',
        '      25 |     const cart = makeCart([{ sku: "mug", price: 100 }]);',
        '      26 |     cart.discount("TEN");',
        '    > 27 |     expect(cart.total()).toBe(108);',
        '         |                          ^',
        '      28 |   });',
        '',
        '      at Object.<anonymous> (src/cart/totals.test.ts:27:26)',
        '',
        'Test Suites: 1 failed, 8 passed, 9 total',
        'Tests:       1 failed, 50 passed, 51 total',
        'Snapshots:   0 total',
        'Time:        3.104 s',
        'Ran all test suites.',
    ]
)
"""`jest --ci` over nine suites, one test of which fails an assertion."""


def test_a_jest_run_keeps_why_and_where_a_test_failed_not_the_suites_that_passed() -> None:
    """The failing test (`✕`), its header (`● suite › test`), what it compared (`Expected`/`Received`), the source line
    and the frame it failed at, and both verdicts; a passing suite's `PASS` and `✓` lines are what went well."""
    assert detect_kind(JEST) is ContentKind.SHELL
    summary = summarize(JEST, budget_tokens=estimate_tokens(JEST) // 4)
    assert isinstance(summary, str)
    kept = kept_lines(JEST, summary)
    for line in (
        'FAIL src/cart/totals.test.ts',
        '    ✕ takes the discount off before VAT (9 ms)',
        '  ● totals › takes the discount off before VAT',
        '    Expected: 108',
        '    Received: 110.4',
        '    > 27 |     expect(cart.total()).toBe(108);',
        '      at Object.<anonymous> (src/cart/totals.test.ts:27:26)',
        'Test Suites: 1 failed, 8 passed, 9 total',
        'Tests:       1 failed, 50 passed, 51 total',
    ):
        assert line in kept, (line, summary)
    assert len([line for line in kept if line.startswith('PASS ')]) <= 1, summary
    assert not [line for line in kept if line.lstrip().startswith('✓ ')], summary


def test_vitest_and_mocha_runs_keep_the_failures_message_and_their_verdicts() -> None:
    """Vitest writes a failure's message and location at the left edge under ` FAIL  file > test`, its verdicts
    right-aligned (`      Tests  1 failed | ...`); Mocha numbers a failure (`  1) suite`) under `N failing`."""
    vitest = '\n'.join(
        [
            ' RUN  v2.0.5 /srv/vitrine',
            '',
            *[f' ✓ src/lib/money{n}.test.ts (12 tests) {n + 3}ms' for n in range(30)],
            ' ❯ src/cart/totals.test.ts (3 tests | 1 failed) 11ms',
            '   × totals > takes the discount off before VAT 6ms',
            '     → expected 110.4 to be 108 // Object.is equality',
            '',
            '⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯',
            '',
            ' FAIL  src/cart/totals.test.ts > totals > takes the discount off before VAT',
            'AssertionError: expected 110.4 to be 108 // Object.is equality',
            '',
            '- Expected',
            '+ Received',
            '',
            '- 108',
            '+ 110.4',
            '',
            ' ❯ src/cart/totals.test.ts:27:26',
            '     25|     const cart = makeCart([{ sku: "mug", price: 100 }]);',
            '     26|     cart.discount("TEN");',
            '     27|     expect(cart.total()).toBe(108);',
            '       |                          ^',
            '',
            '⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯',
            '',
            ' Test Files  1 failed | 30 passed (31)',
            '      Tests  1 failed | 362 passed (363)',
            '   Start at  09:12:44',
            '   Duration  2.87s (transform 301ms, setup 0ms, collect 912ms, tests 188ms, environment 1ms, prepare 840ms)',
        ]
    )
    mocha = '\n'.join(
        [
            '',
            '  money',
            *[f'    ✔ rounds {n} cents half up' for n in range(40)],
            '',
            '  totals',
            '    ✔ sums the lines',
            '    1) takes the discount off before VAT',
            '',
            '',
            '  41 passing (86ms)',
            '  1 failing',
            '',
            '  1) totals',
            '       takes the discount off before VAT:',
            '',
            '      AssertionError: expected 110.4 to equal 108',
            '      + expected - actual',
            '',
            '      -110.4',
            '      +108',
            '',
            '      at Context.<anonymous> (test/totals.test.js:27:26)',
            '      at process.processImmediate (node:internal/timers:478:21)',
        ]
    )
    for text, wanted in (
        (
            vitest,
            (
                ' FAIL  src/cart/totals.test.ts > totals > takes the discount off before VAT',
                'AssertionError: expected 110.4 to be 108 // Object.is equality',
                ' ❯ src/cart/totals.test.ts:27:26',
                ' Test Files  1 failed | 30 passed (31)',
                '      Tests  1 failed | 362 passed (363)',
            ),
        ),
        (
            mocha,
            (
                '  1) totals',
                '      AssertionError: expected 110.4 to equal 108',
                '      at Context.<anonymous> (test/totals.test.js:27:26)',
                '  41 passing (86ms)',
                '  1 failing',
            ),
        ),
    ):
        assert detect_kind(text) is ContentKind.SHELL
        summary = summarize(text, budget_tokens=estimate_tokens(text) // 4)
        assert isinstance(summary, str)
        kept = kept_lines(text, summary)
        for line in wanted:
            assert line in kept, (line, summary)
        assert len([line for line in kept if line.lstrip().startswith(('✓ ', '✔ '))]) <= 1, summary


def test_tsc_errors_in_either_format_keep_the_verdict_over_the_table_of_files() -> None:
    """`tsc`'s verdict (`Found 9 errors in 3 files.`) says how much is wrong; its table of errors per file, after it,
    counts the same errors again."""
    files = ('src/routes/[slug]/page.tsx', 'src/store/cart.ts', 'src/api/client.ts')
    errors = [(files[n % 3], n * 7 + 4, n % 4 + 2) for n in range(9)]
    table = ['Errors  Files', *[f'     3  {name}:{4 + 7 * n}' for n, name in enumerate(files)]]
    plain = '\n'.join(
        [
            '> vitrine@3.2.0 typecheck',
            '> tsc --noEmit -p tsconfig.json',
            '',
            *[
                f"{name}({line},{column}): error TS2345: Argument of type 'number' is not assignable to parameter "
                "of type 'string'."
                for name, line, column in errors
            ],
            '',
            'Found 9 errors in 3 files.',
            '',
            *table,
        ]
    )
    pretty = '\n'.join(
        [
            *[
                text
                for name, line, column in errors
                for text in (
                    f"{name}:{line}:{column} - error TS2345: Argument of type 'number' is not assignable to parameter"
                    + " of type 'string'.",
                    '',
                    f'{line}     render(count);',
                    '                ~~~~~',
                    '',
                )
            ],
            '',
            'Found 9 errors in 3 files.',
            '',
            *table,
        ]
    )
    for text in (plain, pretty):
        assert detect_kind(text) is ContentKind.SHELL
        summary = summarize(text, budget_tokens=estimate_tokens(text) // 4)
        assert isinstance(summary, str)
        kept = kept_lines(text, summary)
        assert 'Found 9 errors in 3 files.' in kept, summary
        assert [line for line in kept if ' error TS2345: ' in line], summary


ESLINT = '\n'.join(
    [
        *[
            line
            for n, name in enumerate(('src/api/client.ts', 'src/cart/totals.ts', 'src/lib/money.ts', 'src/ui/Cart.tsx'))
            for line in (
                f'/home/ci/vitrine/{name}',
                *[
                    f'  {8 + 6 * k}:{k + 1}  warning  Unexpected console statement                    no-console'
                    for k in range(5)
                ],
                f"  {40 + n}:7  error    '{('retry', 'vat', 'cents', 'row')[n]}' is assigned a value but never used"
                + '  @typescript-eslint/no-unused-vars',
                '',
            )
        ],
        '✖ 24 problems (4 errors, 20 warnings)',
        '',
    ]
)
"""ESLint's stylish report of four files, five warnings and an error each."""


def test_an_eslint_report_keeps_each_error_under_its_file_and_its_verdict() -> None:
    """An ESLint problem (`  40:7  error  ...  rule`) names its line, not its file: the header above it does."""
    assert detect_kind(ESLINT) is ContentKind.SHELL
    summary = summarize(ESLINT, budget_tokens=estimate_tokens(ESLINT) // 4)
    assert isinstance(summary, str)
    kept = kept_lines(ESLINT, summary)
    assert '✖ 24 problems (4 errors, 20 warnings)' in kept, summary
    errors = [line for line in kept if '  error  ' in line]
    assert errors, summary
    lines = ESLINT.split('\n')
    for error in errors:
        header = next(line for line in reversed(lines[: lines.index(error)]) if line.startswith('/'))
        assert header in kept, (error, summary)
        assert kept.index(header) < kept.index(error)


TERRAFORM_PLAN = '\n'.join(
    [
        *[f'aws_sqs_queue.jobs[{n}]: Refreshing state... [id=https://sqs.eu-west-1.amazonaws.com/1234/jobs-{n}]'
          for n in range(12)],
        '',
        'Terraform used the selected providers to generate the following execution plan. Resource actions are',
        'indicated with the following symbols:',
        '  ~ update in-place',
        '-/+ destroy and then create replacement',
        '',
        'Terraform will perform the following actions:',
        '',
        *[
            line
            for n in range(6)
            for line in (
                f'  # aws_sqs_queue.jobs[{n}] will be updated in-place',
                '  ~ resource "aws_sqs_queue" "jobs" {',
                f'        id                         = "https://sqs.eu-west-1.amazonaws.com/1234/jobs-{n}"',
                '      ~ tags                       = {',
                f'          ~ "Team" = "payments-{n}" -> "checkout-{n}"',
                '            # (2 unchanged elements hidden)',
                '        }',
                '        # (14 unchanged attributes hidden)',
                '    }',
                '',
            )
        ],
        '  # aws_elasticache_cluster.sessions must be replaced',
        '-/+ resource "aws_elasticache_cluster" "sessions" {',
        '      ~ arn                      = "arn:aws:elasticache:eu-west-1:1234:cluster:sessions" -> (known after apply)',
        '      ~ engine_version           = "6.2" -> "7.1" # forces replacement',
        '      ~ id                       = "sessions" -> (known after apply)',
        '        # (18 unchanged attributes hidden)',
        '    }',
        '',
        'Plan: 1 to add, 6 to change, 1 to destroy.',
        '',
        '─────────────────────────────────────────────────────────────────────────────',
        '',
        "Note: You didn't use the -out option to save this plan, so Terraform can't guarantee to take exactly these",
        'actions if you run "terraform apply" now.',
    ]
)  # fmt: skip
"""A Terraform plan changing six queues' tags in place and replacing a cache cluster for its engine version."""


def test_a_terraform_plan_keeps_its_verdict_and_the_resource_it_replaces_with_why() -> None:
    """What a plan does (`Plan: 1 to add, 6 to change, 1 to destroy.`), what it destroys (`# x must be replaced`) and
    why (the attribute that `# forces replacement`), over the refresh's progress and the nested blocks it updates."""
    assert detect_kind(TERRAFORM_PLAN) is ContentKind.SHELL
    summary = summarize(TERRAFORM_PLAN, budget_tokens=estimate_tokens(TERRAFORM_PLAN) // 4)
    assert isinstance(summary, str)
    kept = kept_lines(TERRAFORM_PLAN, summary)
    for line in (
        'Plan: 1 to add, 6 to change, 1 to destroy.',
        '  # aws_elasticache_cluster.sessions must be replaced',
        '      ~ engine_version           = "6.2" -> "7.1" # forces replacement',
    ):
        assert line in kept, (line, summary)
    assert not [line for line in kept if ': Refreshing state... ' in line], summary


def test_a_plans_attribute_is_placed_by_its_resource_and_an_eslint_problem_by_its_file() -> None:
    """A changed attribute's block starts `-/+ resource ...` at the left edge, under the `# x must be replaced` line
    that names it; an ESLint problem's `  40:7` is no numbered read's line number."""
    from summarizer.extractive.outline import enclosing

    plan = TERRAFORM_PLAN.split('\n')
    attribute = plan.index('      ~ engine_version           = "6.2" -> "7.1" # forces replacement')
    assert (
        plan.index('  # aws_elasticache_cluster.sessions must be replaced')
        in enclosing(ContentKind.SHELL, plan)[attribute]
    )
    eslint = ESLINT.split('\n')
    assert enclosing(ContentKind.SHELL, eslint)[6] == (0,)


def test_unittests_passing_lines_give_way_to_its_failure() -> None:
    """`python -m unittest -v` / Django's runner: a line a passing test, then the failure's block. Beside a failure
    the passing tests' lines weigh nothing, so the budget goes to what failed and why."""
    passing = [f'test_total_{n} (shop.tests.CartTests.test_total_{n}) ... ok' for n in range(200)]
    text = '\n'.join(
        [
            *passing[:30],
            'test_refund_rounding (shop.tests.RefundTests.test_refund_rounding) ... FAIL',
            *passing[30:],
            'test_legacy_export (shop.tests.ExportTests.test_legacy_export) ... skipped "needs S3"',
            '',
            '======================================================================',
            'FAIL: test_refund_rounding (shop.tests.RefundTests.test_refund_rounding)',
            '----------------------------------------------------------------------',
            'Traceback (most recent call last):',
            '  File "/code/shop/tests.py", line 212, in test_refund_rounding',
            '    self.assertEqual(refund.amount, Decimal("10.05"))',
            "AssertionError: Decimal('10.04') != Decimal('10.05')",
            '',
            '----------------------------------------------------------------------',
            'Ran 62 tests in 0.412s',
            '',
            'FAILED (failures=1, skipped=1)',
        ]
    )
    assert detect_kind(text) is ContentKind.SHELL
    kept = summary_lines(text, budget_tokens=120)
    assert "AssertionError: Decimal('10.04') != Decimal('10.05')" in kept
    assert '    self.assertEqual(refund.amount, Decimal("10.05"))' in kept
    assert 'FAILED (failures=1, skipped=1)' in kept
    assert not any(line in kept for line in passing)


def test_a_cargo_build_that_passed_keeps_its_finished_line() -> None:
    """`cargo run`: whether the build passed is its `Finished` line, beside the program's own errors after it: the
    program failed, not the build."""
    finished = '    Finished `dev` profile [unoptimized + debuginfo] target(s) in 12.84s'
    text = '\n'.join(
        [
            '    Updating crates.io index',
            *(f'   Compiling dep{n} v0.{n}.0' for n in range(80)),
            '   Compiling app v0.1.0 (/home/dev/app)',
            finished,
            '     Running `target/debug/app`',
            *(f'order ord_{7000 + n} total {n * 13 % 900}.{n % 100:02d} EUR status shipped' for n in range(60)),
            'warning: 3 orders had no carrier',
            'error: export failed: disk full (wrote 2.1 GB of 3.0 GB)',
        ]
    )
    assert detect_kind(text) is ContentKind.SHELL
    summary = summarize(text, budget_tokens=55)
    assert isinstance(summary, str)
    assert finished in kept_lines(text, summary)


def _go_crash() -> str:
    """A Go service's output: its log, a nil-pointer panic, and the dump of thirty goroutines waiting."""
    lines = [f'2026/12/01 08:15:{n:02d} shipped batch {n} of {40 + n * 7} parcels in {12 + n % 9}ms' for n in range(30)]
    lines += [
        'panic: runtime error: invalid memory address or nil pointer dereference',
        '[signal SIGSEGV: segmentation violation code=0x1 addr=0x30 pc=0x5c2e11]',
        '',
        'goroutine 17 [running]:',
        'example.com/depot/internal/label.(*Printer).Print(0x0, 0xc0000a6120)',
        '\t/app/internal/label/printer.go:64 +0x31',
        'example.com/depot/internal/ship.(*Run).next(0xc0001b2000)',
        '\t/app/internal/ship/run.go:203 +0x1a4',
        '',
    ]
    for n in range(30):
        lines += [
            f'goroutine {40 + n} [chan receive]:',
            'example.com/depot/internal/queue.(*Consumer).loop(0xc000300000)',
            '\t/app/internal/queue/consumer.go:77 +0x9e',
            '',
        ]
    return '\n'.join([*lines, 'exit status 2'])


def test_a_go_crash_keeps_its_panic_and_where_it_stopped_not_the_waiting_goroutines() -> None:
    text = _go_crash()
    assert detect_kind(text) is ContentKind.SHELL
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 4)
    for line in (
        'panic: runtime error: invalid memory address or nil pointer dereference',
        '[signal SIGSEGV: segmentation violation code=0x1 addr=0x30 pc=0x5c2e11]',
        'goroutine 17 [running]:',
        'example.com/depot/internal/label.(*Printer).Print(0x0, 0xc0000a6120)',
        '\t/app/internal/label/printer.go:64 +0x31',
        'exit status 2',
    ):
        assert line in kept
    assert sum(line.startswith('goroutine ') for line in kept) <= 3
    assert sum('shipped batch' in line for line in kept) <= 3  # the log's lines alike but for numbers fold


_SETUP_ERRORS = [
    f'ERROR tests/test_api.py::TestClient::test_{name}'
    for name in (
        'get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'redirect', 'cookies', 'headers', 'timeout',
        'retries', 'streaming', 'json_body', 'form_body', 'multipart', 'auth_basic', 'auth_digest',
    )
]  # fmt: skip
_DISTINCT_FAILURE = 'FAILED tests/test_api.py::TestClient::test_params_bytes_are_encoded - TypeError: expected str'


def test_one_distinct_failure_is_kept_before_many_errors_alike_but_for_their_test() -> None:
    """18 `ERROR` lines of one cause (a fixture that could not start) and one `FAILED` line: at a tight budget the
    verdict and the failure stay, one `ERROR` line stands for the rest and a marker counts them."""
    text = '\n'.join(
        [
            '$ python -m pytest tests/test_api.py -q -p no:cacheprovider',
            *_SETUP_ERRORS,
            _DISTINCT_FAILURE,
            '========== 1 failed, 84 passed, 18 errors in 0.67s ==========',
        ]
    )
    assert detect_kind(text) is ContentKind.SHELL
    summary = summarize(text, budget_tokens=90)
    assert isinstance(summary, str)
    kept = kept_lines(text, summary)
    assert _DISTINCT_FAILURE in kept
    assert '========== 1 failed, 84 passed, 18 errors in 0.67s ==========' in kept
    assert sum(line in kept for line in _SETUP_ERRORS) == 1
    assert '… 17 similar lines omitted …' in summary.split('\n')


def test_a_pytest_error_line_names_its_test_and_brings_no_line_above() -> None:
    """`ERROR t.py::test_x` says which test it is about, as `FAILED t.py::test_x` does: the `ERROR` line above it
    is another test's, no place of it."""
    lines = [
        '=========================== short test summary info ============================',
        'ERROR tests/test_api.py::test_get - ConnectionError: refused',
        'ERROR tests/test_api.py::test_post - KeyError: token',
        'ERROR: test_parse (shop.tests.ParseTests)',
    ]
    assert enclosing(ContentKind.SHELL, lines)[1:] == [(), (), ()]


def test_verbose_pytest_lines_alike_but_for_their_test_fold_and_a_quoted_one_stays() -> None:
    """The same error for each of 18 tests, written by `pytest -v` as `t.py::test_x ERROR [ 5%]`: one stays, the
    others are counted, but for the one a later turn quotes."""
    progress = [f'tests/test_api.py::TestClient::test_{n:02d} ERROR{" " * 30}[{(n + 1) * 5:3d}%]' for n in range(18)]
    text = '\n'.join(
        [
            '============================= test session starts ==============================',
            'collected 18 items',
            '',
            *progress,
            '',
            '========== 18 errors in 0.67s ==========',
        ]
    )
    kept = summary_lines(text, budget_tokens=400, quoted=('test_07',))
    assert progress[0] in kept and progress[7] in kept
    assert sum(line in kept for line in progress) == 2


def test_the_lines_of_one_e_block_are_placed_by_the_line_over_the_block() -> None:
    """pytest's `E   ` lines of one failure are placed by the failing source line over the first, not each by the one
    above it: a line deep in a long block would bring the whole block over it with it."""
    lines = [
        '____________________________ test_report ____________________________',
        '>       result.stdout.fnmatch_lines(["*SKIP*1*test_foo.py*platform*"])',
        "E       Failed: nomatch: '*SKIP*1*test_foo.py*platform*'",
        "E           and: '============================= test session starts =='",
        "E           and: 'collected 0 items / 1 error'",
        "E       remains unmatched: '*SKIP*1*test_foo.py*platform*'",
    ]
    chains = enclosing(ContentKind.SHELL, lines)
    assert all(set(chain) == {0, 1} for chain in chains[2:])


def test_a_long_e_block_leaves_room_for_the_other_failures() -> None:
    """The first `E   ` line of a failure says why it failed; forty more (`fnmatch_lines` writing every line it read)
    say more of it and are no longer required each, so the other tests' `FAILED` lines stay beside it."""
    failed = [
        f'FAILED testing/test_skipping.py::test_{name} - AssertionError: {reason}'
        for name, reason in (
            ('skipif_reporting', 'no SKIP line'),
            ('xfail_strict', 'XPASS(strict)'),
            ('skip_report_default', 'nomatch'),
        )
    ]
    text = '\n'.join(
        [
            '=================================== FAILURES ===================================',
            '__________________________ test_skip_not_report_default __________________________',
            '>       result.stdout.fnmatch_lines(["*SKIP*1*test_foo.py*platform*"])',
            "E       Failed: nomatch: '*SKIP*1*test_foo.py*platform*'",
            *[
                f"E           and: '/srv/pytest/src/_pytest/assertion/rewrite.py:{n}: in visit_Assert_{n}'"
                for n in range(40)
            ],
            "E       remains unmatched: '*SKIP*1*test_foo.py*platform*'",
            '',
            'testing/test_skipping.py:1190: Failed',
            '=========================== short test summary info ============================',
            *failed,
            'FAILED testing/test_skipping.py::test_skip_not_report_default - Failed: nomatch',
            '======================= 4 failed, 72 deselected in 0.40s =======================',
        ]
    )
    kept = summary_lines(text, budget_tokens=300)
    assert "E       Failed: nomatch: '*SKIP*1*test_foo.py*platform*'" in kept
    assert all(line in kept for line in failed)


def test_a_pytest_node_before_a_long_run_of_blanks_is_read_in_linear_time() -> None:
    """`t.py::x`, 40 KB of blanks and no status: the blanks before a status were tried from each blank (7 s a pattern)."""
    line = 'tests/test_api.py::test_get' + ' ' * 40_000 + 'x'
    verbose = 'tests/test_api.py::test_get[a b]    PASSED  [ 10%]'
    lines = ['collected 2 items', line, verbose, 'FAILED tests/test_api.py::test_put - boom']
    started = time.process_time()
    bonuses = line_bonuses(Joined(lines))
    chains = enclosing(ContentKind.SHELL, lines)
    assert time.process_time() - started < 1  # about 0.01 s
    assert len(bonuses) == len(chains) == len(lines)
    assert signature(line) == log.signature(line)  # no status: no test id to mask
    assert signature(verbose) == signature(verbose.replace('test_get[a b]', 'test_post'))


def test_failed_tests_that_say_nothing_but_their_test_each_stay() -> None:
    """Three tests of forty failed, `pytest -v` and its short summary naming each and no reason: the names are what a
    reader fixes, and the short summary's lines alike but for them are no repeats (only the first was kept)."""
    failing = (3, 17, 29)
    text = '\n'.join(
        [
            '============================= test session starts ==============================',
            'collected 40 items',
            '',
            *(f'tests/test_api.py::test_{n} {"FAILED" if n in failing else "PASSED"} [{n * 2:3d}%]' for n in range(40)),
            '',
            '=========================== short test summary info ============================',
            *(f'FAILED tests/test_api.py::test_{n}' for n in failing),
            '========================= 3 failed, 37 passed in 1.20s =========================',
        ]
    )
    kept = summary_lines(text, budget_tokens=120)
    assert [line for line in kept if line.startswith('FAILED ')] == [
        f'FAILED tests/test_api.py::test_{n}' for n in failing
    ]
    assert sum(' PASSED ' in line for line in kept) <= 2  # passing tests still fold
    assert signature('FAILED t.py::test_a') != signature('FAILED t.py::test_b')
    assert signature('ERROR t.py::test_a') == signature('ERROR t.py::test_b')
    assert signature('FAILED t.py::test_a - OSError: refused') == signature('FAILED t.py::test_b - OSError: refused')


def _unittest_errors(count: int) -> str:
    """Django's runner: `count` errors, each a header between two rules, then its traceback."""
    blocks = [
        '\n'.join(
            [
                '======================================================================',
                f'ERROR: test_ordering_{n} (invalid_models.tests.OrderingTests.test_ordering_{n})',
                '----------------------------------------------------------------------',
                'Traceback (most recent call last):',
                f'  File "/code/tests/invalid_models/tests.py", line {100 + 9 * n}, in test_ordering_{n}',
                f'    class Model_{n}(models.Model):',
                '  File "/code/django/db/models/base.py", line 112, in __new__',
                '    raise RuntimeError(',
                f'RuntimeError: Model class invalid_models.Model_{n} does not declare an explicit app_label.',
                '',
            ]
        )
        for n in range(count)
    ]
    return '\n'.join(
        [
            'E' * count,
            *blocks,
            '----------------------------------------------------------------------',
            f'Ran {count} tests in 0.002s',
            '',
            f'FAILED (errors={count})',
        ]
    )


def test_a_unittest_traceback_is_placed_by_its_failures_header() -> None:
    """A traceback of unittest's output says which test it is only under its `ERROR: test_x (...)` header: a
    kept traceback line brings it, up to the next failure's rule or the rule over `Ran N tests`."""
    lines = _unittest_errors(2).split('\n')
    chains = enclosing(ContentKind.SHELL, lines)
    for n in range(2):
        header = lines.index(f'ERROR: test_ordering_{n} (invalid_models.tests.OrderingTests.test_ordering_{n})')
        error = lines.index(
            f'RuntimeError: Model class invalid_models.Model_{n} does not declare an explicit app_label.'
        )
        assert header in chains[error]
        assert chains[header] == () and chains[header + 1] == ()  # the header and its rule: no place of their own
    assert chains[lines.index('Ran 2 tests in 0.002s')] == ()
    kept = summary_lines(_unittest_errors(6), budget_tokens=200, quoted=('Model_4',))
    assert 'ERROR: test_ordering_4 (invalid_models.tests.OrderingTests.test_ordering_4)' in kept


def test_a_module_that_failed_to_import_places_its_traceback() -> None:
    """unittest names a test module it could not import by its dotted name (`ERROR: tests.test_api (...)`): its
    header places its traceback as a test's does."""
    lines = [
        '======================================================================',
        'ERROR: tests.test_api (unittest.loader._FailedTest.tests.test_api)',
        '----------------------------------------------------------------------',
        'ImportError: Failed to import test module: tests.test_api',
        'Traceback (most recent call last):',
        "ModuleNotFoundError: No module named 'requests'",
        '',
        '----------------------------------------------------------------------',
        'Ran 1 test in 0.000s',
    ]
    chains = enclosing(ContentKind.SHELL, lines)
    assert 1 in chains[3] and 1 in chains[5]
    assert chains[8] == ()


def test_a_passing_tests_banner_comes_with_its_section() -> None:
    """`pytest -rP` prints passing tests' captured output under banners as failures have them: in the PASSES
    section, the banner brings the section's header, so a captured 302 reads as a passing test's log. A
    failure's banner goes without `=== FAILURES ===`."""
    text = '\n'.join(
        [
            '=================================== FAILURES ===================================',
            '____________________________ test_refund_rounding _____________________________',
            "E       AssertionError: assert Decimal('10.00') == Decimal('10.01')",
            '==================================== PASSES ====================================',
            *[
                line
                for n in range(30)
                for line in (
                    f'____________________________ test_redirect_{n} _____________________________',
                    '----------------------------- Captured log call ------------------------------',
                    f'127.0.0.1 - - [05/May/2026 12:11:{n:02d}] "GET /redirect/{n} HTTP/1.1" 302 195',
                )
            ],
            '======================== 1 failed, 30 passed in 4.21s =========================',
        ]
    )
    lines = text.split('\n')
    chains = enclosing(ContentKind.SHELL, lines)
    passes = lines.index('==================================== PASSES ====================================')
    assert passes in chains[lines.index('127.0.0.1 - - [05/May/2026 12:11:07] "GET /redirect/7 HTTP/1.1" 302 195')]
    assert chains[2] == (1,)  # a failure's lines: its banner alone
    kept = summary_lines(text, budget_tokens=150, quoted=('/redirect/17',))
    assert kept.index(lines[passes]) < kept.index(
        '____________________________ test_redirect_17 _____________________________'
    )


_STEPS = [
    'config', 'paths', 'builder', 'theme', 'domains', 'roles', 'nodes', 'events', 'locale', 'search', 'index',
    'assets', 'static', 'templates', 'math', 'latex', 'epub', 'texinfo', 'manpage', 'html', 'json', 'pickle',
    'text', 'xml', 'linkcheck', 'gettext', 'coverage', 'doctest', 'todo', 'reload',
]  # fmt: skip
"""Lines of a traceback's function, each its own: no two alike but for a number, which fold anyway (`signature`)."""


def _setup_errors(tests: int) -> str:
    """pytest's report of a fixture failing for `tests` tests: the same chained traceback under each test's banner."""
    traceback = [
        '',
        '    try:',
        '>       from docutils.utils.roman import toRoman',
        "E       ModuleNotFoundError: No module named 'docutils.utils.roman'",
        '',
        'sphinx/writers/latex.py:37: ModuleNotFoundError',
        '',
        'During handling of the above exception, another exception occurred:',
        '',
        '>       from roman import toRoman  # type: ignore',
        "E       ModuleNotFoundError: No module named 'roman'",
        '',
        'sphinx/writers/latex.py:40: ModuleNotFoundError',
        '',
        'The above exception was the direct cause of the following exception:',
        '',
        '    def load_extension(self, app, extname):',
        *[
            f'        app.registry.{name}_loader.prepare(extname, sphinx.ext.{name}.SETUP_{name.upper()})'
            for name in _STEPS
        ],
        '        try:',
        '            mod = import_module(extname)',
        '        except ImportError as err:',
        ">           raise ExtensionError('Could not import extension %s' % extname, err) from err",
        "E           sphinx.errors.ExtensionError: Could not import extension sphinx.builders.latex (No module 'roman')",
        '',
        'sphinx/registry.py:420: ExtensionError',
    ]
    return '\n'.join(
        [
            '============================= test session starts ==============================',
            f'collected {tests} items',
            '',
            '==================================== ERRORS ====================================',
            *[
                line
                for n in range(tests)
                for line in (
                    f'_______________________ ERROR at setup of test_view_{n} ________________________',
                    *traceback,
                )
            ],
            '=========================== short test summary info ============================',
            *[f'ERROR tests/test_ext_viewcode.py::test_view_{n} - sphinx.errors.ExtensionError' for n in range(tests)],
            f'============================== {tests} errors in 0.43s ===============================',
        ]
    )


def test_a_failure_repeated_for_each_test_is_read_once() -> None:
    """A fixture failing fails every test using it, and pytest prints the same chained traceback under each banner:
    a repeat folds into a marker (its banner and last error line may stay), so the chain is read once."""
    text = _setup_errors(3)
    assert detect_kind(text) is ContentKind.SHELL
    summary = summarize(text, budget_tokens=360)
    assert isinstance(summary, str)
    kept = kept_lines(text, summary)
    assert '_______________________ ERROR at setup of test_view_0 ________________________' in kept
    assert kept.count("E       ModuleNotFoundError: No module named 'docutils.utils.roman'") == 1
    assert kept.count("E       ModuleNotFoundError: No module named 'roman'") == 1
    assert 'ERROR tests/test_ext_viewcode.py::test_view_0 - sphinx.errors.ExtensionError' in kept
    lines = text.split('\n')
    repeated = repeated_failures(lines)
    second = lines.index('_______________________ ERROR at setup of test_view_1 ________________________')
    third = lines.index('_______________________ ERROR at setup of test_view_2 ________________________')
    assert second not in repeated and not any(at < second for at in repeated)  # the first section is read
    error = (
        "E           sphinx.errors.ExtensionError: Could not import extension sphinx.builders.latex (No module 'roman')"
    )
    assert lines.index(error, second) not in repeated  # each repeat keeps its last error line to offer
    assert (
        len([at for at in repeated if second < at < third])
        == len([line for line in lines[second + 1 : third] if line.strip()]) - 1
    )


def _native_setup_errors(tests: int) -> list[str]:
    """pytest's `--tb=native` report of a fixture failing for `tests` tests: no `E` lines, Python's traceback."""
    return [
        '==================================== ERRORS ====================================',
        *[
            line
            for n in range(tests)
            for line in (
                f'_____________________ ERROR at setup of test_{n} _____________________',
                'Traceback (most recent call last):',
                '  File "/repo/tests/conftest.py", line 12, in db',
                '    conn = connect(DSN)',
                '  File "/repo/app/db.py", line 40, in connect',
                '    raise ConnectionError(msg)',
                'ConnectionError: could not connect to db',
            )
        ],
    ]


def test_a_native_traceback_repeated_for_each_test_keeps_its_exception_to_offer() -> None:
    """With `--tb=native` a section has no `E` line: its exception line is the one that says how the test failed."""
    lines = _native_setup_errors(3)
    repeated = repeated_failures(lines)
    exceptions = [at for at, line in enumerate(lines) if line.startswith('ConnectionError:')]
    assert len(exceptions) == 3
    assert repeated and not repeated & set(exceptions)
    summary = summarize('\n'.join(lines), budget_tokens=200)
    assert isinstance(summary, str)
    assert summary.split('\n').count('ConnectionError: could not connect to db') == 3


def test_a_repeated_section_cut_off_by_the_end_of_the_output_keeps_its_last_line_to_offer() -> None:
    """Output cut off (`| head`) inside a repeated section: its last line says where it stopped, repeat or not."""
    lines = _native_setup_errors(3)[:-2]  # the third section stops at its frame
    text = '\n'.join(lines)
    assert repeated_failures(lines) & {len(lines) - 1}  # the line repeats one of the first section
    summary = summarize(text, budget_tokens=200)
    assert isinstance(summary, str)
    assert summary.split('\n')[-1] == lines[-1]


def test_a_kept_test_name_brings_the_line_saying_how_it_went() -> None:
    """Django's verbose runner puts a test's docstring and outcome on the line under its name: a name kept without
    it says a test ran, not whether it passed."""
    lines = ["Testing against Django installed in '/code/django/django'", 'Importing application staticfiles_tests']
    words = ['app', 'camelcase', 'ignore', 'pathlib', 'links', 'clear', 'dry_run', 'verbosity', 'priority', 'subdir']
    for first in words:
        for second in ('files', 'dirs', 'names', 'patterns'):
            name = f'test_{first}_{second}'
            lines.append(f'{name} (staticfiles_tests.test_management.Test{second.title()}.{name})')
            lines.append(f'Can find the {second} of {first} in an app static/ directory. ... ok')
    lines += ['', '-' * 70, 'Ran 40 tests in 0.682s', '', 'OK']
    text = '\n'.join(lines)
    summary = summarize(text, budget_tokens=300)
    assert isinstance(summary, str)
    kept = summary.split('\n')
    names = [index for index, line in enumerate(kept) if line.startswith('test_')]
    assert names and kept[-1] == 'OK'
    assert all(kept[index + 1].endswith('. ... ok') for index in names)


def test_a_skipped_tests_reason_of_trouble_is_placed_by_its_name_and_places_nothing() -> None:
    """`Doc ... skipped "Error: database unavailable"` tells of trouble: its name places it, never the other way too."""
    lines = [
        'Importing application app',
        'test_db (app.tests.StoreTests.test_db)',
        'Reads the store. ... skipped "Error: database unavailable (failed)"',
        'test_cache (app.tests.StoreTests.test_cache)',
        'Reads the cache. ... ok',
    ]
    chains = enclosing(ContentKind.SHELL, lines)
    assert chains[1] == () and chains[2] == (1,)
    assert chains[3] == (4,) and chains[4] == ()


def test_python_position_markers_place_no_exception() -> None:
    """Python 3.11 writes `^^^^` (or `~~~^^^`) under a frame's source line: the exception under them is placed by the
    source line, so keeping it brings no line of markers, and the markers are no line of trouble's way in."""
    lines = [
        'Traceback (most recent call last):',
        '  File "/srv/app/jobs.py", line 41, in run',
        '    total = invoice.amount + fee',
        '            ~~~~~~~~~~~~~~~^~~~~',
        "TypeError: unsupported operand type(s) for +: 'Decimal' and 'float'",
    ]
    chains = enclosing(ContentKind.SHELL, lines)
    assert 3 not in chains[4] and 2 in chains[4]


MAKE_BUILD = '\n'.join(
    [
        *[f'gcc -Wall -O2 -c src/unit_{n}.c -o build/unit_{n}.o' for n in range(25)],
        'gcc -Wall -O2 -c src/ledger.c -o build/ledger.o',
        'src/ledger.c: In function ‘post_entry’:',
        'src/ledger.c:41:22: error: ‘pending_total’ undeclared (first use in this function)',
        '   41 |     return balance + pending_total;',
        '      |                      ^~~~~~~~~~~~~',
        'src/ledger.c:41:22: note: each undeclared identifier is reported only once for each function it appears in',
        'src/ledger.c:42:1: warning: control reaches end of non-void function [-Wreturn-type]',
        '   42 | }',
        '      | ^',
        'make: *** [Makefile:5: build/ledger.o] Error 1',
    ]
)
"""`make` over 26 files, one failing: its compiler's error, then a warning with its snippet, then make's verdict."""


def test_makes_verdict_is_kept_without_the_warning_over_it() -> None:
    """`make: *** [Makefile:5: build/ledger.o] Error 1` names the target that failed and says the build stopped. Placed
    by the line above it (the last diagnostic's caret, its snippet and its warning), it cost too much to be kept."""
    summary = summarize(MAKE_BUILD, budget_tokens=estimate_tokens(MAKE_BUILD) // 4)
    assert isinstance(summary, str)
    kept = kept_lines(MAKE_BUILD, summary)
    assert 'make: *** [Makefile:5: build/ledger.o] Error 1' in kept, summary
    assert 'src/ledger.c:41:22: error: ‘pending_total’ undeclared (first use in this function)' in kept, summary


_RULES_FOUND = (
    ('D101', 'Missing docstring in public class', 4, 7, 'class Ledger:'),
    ('F841', 'Local variable `total` is assigned to but never used', 23, 5, '    total: int = entry.amount'),
    ('UP045', '[*] Use `X | None` for type annotations', 13, 50, 'def find(rows: list[Row]) -> Optional[Row]:'),
    ('T201', '`print` found', 24, 5, '    print(entry)'),
)


def _finding(path: str, rule: str, message: str, line: int, column: int, source: str) -> list[str]:
    gutter = ' ' * len(str(line))
    return [
        f'{rule} {message}',
        f'{gutter}--> {path}:{line}:{column}',
        f'{gutter} |',
        f'{line - 1} |',
        f'{line} | {source}',
        f'{gutter} | {" " * (column - 1)}^^^^^',
        f'{gutter} |',
        '',
    ]


RUFF_CHECK = '\n'.join(
    [
        *(
            line
            for module in range(30)
            for rule in _RULES_FOUND
            for line in _finding(f'ledger/module_{module}.py', *rule)
        ),
        'Found 120 errors.',
        '[*] 30 fixable with the `--fix` option.',
    ]
)
"""`ruff check` in its default format (rustc's style): four findings in each of thirty modules, each with a snippet."""


def test_a_linters_findings_keep_each_rule_once_with_its_place_and_the_verdict() -> None:
    """A reader of 120 findings wants which rules fired, where one of each is, and how many there are: each finding's
    snippet is the file's own text. Read as prose, the summary was the first module's snippets, then places of other
    modules with no rule over them."""
    assert detect_kind(RUFF_CHECK) is ContentKind.SHELL
    summary = summarize(RUFF_CHECK, budget_tokens=estimate_tokens(RUFF_CHECK) // 10)
    assert isinstance(summary, str)
    kept = summary.split('\n')
    assert 'Found 120 errors.' in kept
    for rule, message, *_ in _RULES_FOUND:
        assert f'{rule} {message}' in kept, (rule, summary)
    for position, line in enumerate(kept):
        if '--> ' in line:  # a place comes under its finding's rule
            assert kept[position - 1].split(' ')[0] in {rule for rule, *_ in _RULES_FOUND}, (line, summary)
    for rule, _, line, column, _ in _RULES_FOUND:  # each rule with its first place
        place = f'--> ledger/module_0.py:{line}:{column}'
        assert any(row.strip() == place for row in kept), (rule, summary)
    assert not [line for line in kept if line.startswith(('23 |', '24 |'))], summary


def _import_finding(module: int, name: str) -> list[str]:
    """ruff's TC003 on one import, with its unsafe fix: two parts of a diff, a rule of dashes between them."""
    return [
        f'TC003 Move standard library import `collections.abc.{name}` into a type-checking block',
        f'  --> shop/mod_{module}.py:3:29',
        '   |',
        ' 1 | import re',
        f' 3 | from collections.abc import {name}',
        '   |                             ^^^^^^^^',
        f' 4 | from shop.core_{module} import Ledger, Account, Entry, Posting, Journal, Batch, Period',
        '   |',
        'help: Move into type-checking block',
        '   |',
        f'   - from collections.abc import {name}',
        f' 3 | from shop.core_{module} import Ledger, Account, Entry, Posting, Journal, Batch, Period',
        '-' * 80,
        f' 8 | from shop.audit_{module} import {name}Trail, {name}Reviewer, {name}Approval, {name}Stamp',
        ' 9 + from typing import TYPE_CHECKING',
        '11 + if TYPE_CHECKING:',
        f'12 +     from collections.abc import {name}',
        '   |',
        'note: This is an unsafe fix and may change runtime behavior',
        '',
    ]


_ABSTRACTS = [
    'Sequence',
    'Mapping',
    'Iterable',
    'Callable',
    'Iterator',
    'Generator',
    'Awaitable',
    'Coroutine',
    'AsyncIterator',
    'Collection',
    'Container',
    'Hashable',
    'Sized',
    'Set',
    'MutableMapping',
    'MutableSequence',
    'MutableSet',
    'KeysView',
    'ItemsView',
    'ValuesView',
    'Reversible',
    'Buffer',
    'AsyncGenerator',
    'ByteString',
]
RUFF_FIXES = '\n'.join(
    [
        *(line for module, name in enumerate(_ABSTRACTS) for line in _import_finding(module, name)),
        'Found 24 errors.',
        'No fixes available (24 hidden fixes can be enabled with the `--unsafe-fixes` option).',
    ]
)
"""`ruff check` of 24 modules, each importing another name for type annotations only, each fix shown."""


def test_a_kept_finding_brings_its_place_and_a_kept_fix_line_its_finding() -> None:
    """`TC003 Move standard library import ...` kept alone says nothing of where to look; past the rule of dashes
    between the two parts of a fix, a kept line of it said neither which finding nor which file it was in."""
    summary = summarize(RUFF_FIXES, budget_tokens=estimate_tokens(RUFF_FIXES) // 8)
    assert isinstance(summary, str)
    kept = summary.split('\n')
    headers = [index for index, line in enumerate(kept) if line.startswith('TC003 ')]
    assert len(headers) >= 5, summary
    for index in headers:
        assert kept[index + 1].startswith('  --> shop/mod_'), (kept[index], summary)
    for line in kept:
        if ' import ' in line and '| from shop.' in line:
            module = line.split('_')[1].split(' ')[0]
            assert f'  --> shop/mod_{module}.py:3:29' in kept, (line, summary)
    lines = RUFF_FIXES.split('\n')
    assert 0 in enclosing(ContentKind.SHELL, lines)[lines.index(' 9 + from typing import TYPE_CHECKING')]


CARGO_RUN = '\n'.join(
    [
        '   Compiling shop v0.1.0 (/srv/shop)',
        *(line for n in range(6) for line in _unused_warning(n)),
        'warning: `shop` (bin "shop") generated 6 warnings (run `cargo fix --bin "shop"` to apply 6 suggestions)',
        '    Finished `release` profile [optimized] target(s) in 41.27s',
        '     Running `target/release/shop --port 8080`',
        'listening on 0.0.0.0:8080',
    ]
)
"""`cargo run` that builds with six warnings and starts the program."""


def test_a_builds_outcome_under_its_warnings_count_is_no_part_of_a_warning() -> None:
    """cargo's count of warnings is no diagnostic, and its indented `Finished` and `Running` lines under it say the
    build succeeded and the program started: read as the count's snippet, they weighed nothing."""
    summary = summarize(CARGO_RUN, budget_tokens=60)
    assert isinstance(summary, str)
    kept = kept_lines(CARGO_RUN, summary)
    assert '    Finished `release` profile [optimized] target(s) in 41.27s' in kept, summary


RUFF_CONCISE = '\n'.join(
    [
        *(
            f'ledger/module_{module}.py:{line}:{column}: {rule} {message}'
            for module in range(30)
            for rule, message, line, column, _ in _RULES_FOUND
        ),
        'Found 120 errors.',
        '[*] 30 fixable with the `--fix` option.',
    ]
)
"""`ruff check --output-format=concise` (flake8's format): a finding a line, its place first."""


def test_a_linters_findings_a_line_each_keep_each_rule_and_the_count() -> None:
    """Read as a listing, each module's first finding was kept (the same rule forty times) and the count was dropped.
    A reader wants which rules fired, one place of each, and how many findings there are."""
    assert detect_kind(RUFF_CONCISE) is ContentKind.SHELL
    summary = summarize(RUFF_CONCISE, budget_tokens=estimate_tokens(RUFF_CONCISE) // 10)
    assert isinstance(summary, str)
    kept = summary.split('\n')
    assert 'Found 120 errors.' in kept, summary
    for rule, message, line, column, _ in _RULES_FOUND:
        assert f'ledger/module_0.py:{line}:{column}: {rule} {message}' in kept, (rule, summary)


def _mismatch(number: int) -> list[str]:
    line = 20 + 7 * number
    return [
        'error[E0308]: mismatched types',
        f'   --> src/handlers.rs:{line}:23',
        '    |',
        f'{line} |     let id: u64 = req.param("id_{number}");',
        '    |             ---   ^^^^^^^^^^^^^^^^^ expected `u64`, found `&str`',
        '    |             |',
        '    |             expected due to this',
        '',
    ]


CARGO_ALIKE_ERRORS = '\n'.join(
    [
        '   Compiling shop v0.1.0 (/srv/shop)',
        *(line for number in range(31) for line in _mismatch(number)),
        'error[E0382]: borrow of moved value: `cart`',
        '   --> src/cart.rs:88:5',
        '    |',
        '85 |     let total = checkout(cart);',
        '    |                          ---- value moved here',
        '88 |     cart.clear();',
        '    |     ^^^^ value borrowed here after move',
        '',
        'Some errors have detailed explanations: E0308, E0382.',
        'error: could not compile `shop` (bin "shop") due to 32 previous errors',
    ]
)
"""A build failing with 31 errors alike and one that differs."""


def test_errors_alike_fold_and_the_one_that_differs_is_kept_with_why() -> None:
    """Thirty-one `error[E0308]: mismatched types` are one error and a count to a reader. Each required, their headers
    took the budget without their places or labels, and the borrow error, the one that differed, was dropped."""
    summary = summarize(CARGO_ALIKE_ERRORS, budget_tokens=estimate_tokens(CARGO_ALIKE_ERRORS) // 4)
    assert isinstance(summary, str)
    kept = kept_lines(CARGO_ALIKE_ERRORS, summary)
    for line in (
        'error[E0382]: borrow of moved value: `cart`',
        '    |     ^^^^ value borrowed here after move',
        '    |             ---   ^^^^^^^^^^^^^^^^^ expected `u64`, found `&str`',
        'error: could not compile `shop` (bin "shop") due to 32 previous errors',
    ):
        assert line in kept, (line, summary)
    assert len([line for line in kept if line.startswith('error[E0308]')]) <= 2, summary


def _colored(code: str, text: str) -> str:
    return f'\x1b[{code}m{text}\x1b[39m'


def _vitest_colored(cases: int) -> tuple[str, list[str]]:
    """A Vitest report as a terminal gets it (`FORCE_COLOR`, a pty), and the lines a reader needs, as shown."""
    failures = [
        ('totals prices', 'expected 0.30000000000000004 to be 0.3 // Object.is equality', 5),
        ('keeps order', 'expected [ 2, 1 ] to deeply equal [ 1, 2 ]', 6),
        ('throws on bad input', "expected [Function] to throw error including 'items required'", 9),
    ]
    lines = [
        '',
        f'\x1b[1m\x1b[30m\x1b[46m RUN \x1b[49m\x1b[39m\x1b[22m {_colored("36", "v4.1.12 ")}{_colored("90", "/srv/shop")}',
        '',
        f' {_colored("31", "❯")} src/cart.test.ts \x1b[2m({cases + 3} tests | \x1b[22m{_colored("31", "3 failed")})',
        *[f'     {_colored("32", "✓")} case {n}{_colored("32", " 0ms")}' for n in range(cases)],
        *[f'\x1b[31m     \x1b[31m×\x1b[31m {name}\x1b[39m' for name, _, _ in failures],
        '',
        f'{_colored("31", "⎯" * 7)}\x1b[1m\x1b[41m Failed Tests 3 \x1b[49m\x1b[22m{_colored("31", "⎯" * 7)}',
        '',
    ]
    needed = []
    for number, (name, message, at) in enumerate(failures, start=1):
        header = f'\x1b[41m\x1b[1m FAIL \x1b[22m\x1b[49m src/cart.test.ts\x1b[2m > \x1b[22mcart\x1b[2m > \x1b[22m{name}'
        error = f'\x1b[31m\x1b[1mAssertionError\x1b[22m: {message}\x1b[39m'
        lines += [header, error, '']
        lines += [f'\x1b[36m \x1b[2m❯\x1b[22m src/cart.test.ts:\x1b[2m{at}:49\x1b[22m\x1b[39m']
        lines += [
            f"    \x1b[90m {row:2d}|\x1b[39m   it('case', () => {{ expect(value).toBe({row}); }});"
            for row in range(at - 2, at + 3)
        ]
        lines += ['', f'\x1b[31m\x1b[2m{"⎯" * 24}[{number}/3]⎯\x1b[22m\x1b[39m', '']
        needed += [ESCAPES.sub('', header), ESCAPES.sub('', error)]
    verdict = f'\x1b[2m      Tests \x1b[22m \x1b[1m\x1b[31m3 failed\x1b[39m\x1b[22m\x1b[2m | \x1b[22m\x1b[1m\x1b[32m{cases} passed\x1b[39m\x1b[22m\x1b[90m ({cases + 3})\x1b[39m'
    lines += [
        '\x1b[2m Test Files \x1b[22m \x1b[1m\x1b[31m1 failed\x1b[39m\x1b[22m\x1b[90m (1)\x1b[39m',
        verdict,
        '\x1b[2m   Start at \x1b[22m 21:16:25',
        '\x1b[2m   Duration \x1b[22m 337ms\x1b[2m (transform 66ms, setup 0ms, import 103ms, tests 21ms)\x1b[22m',
    ]
    return '\n'.join(lines), [*needed, ESCAPES.sub('', verdict)]


def test_a_colored_test_report_is_weighed_as_a_terminal_shows_it() -> None:
    """Colours do not hide a failure: each failing test's header and error and the verdict are kept, byte for byte."""
    text, needed = _vitest_colored(60)
    assert detect_kind(text) is ContentKind.SHELL
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 4)
    shown = [ESCAPES.sub('', line) for line in kept]
    assert [line for line in needed if line not in shown] == []
    assert any('\x1b[' in line for line in kept)  # kept as written, colours and all


def _valgrind(errors: int) -> tuple[str, list[str]]:
    """`valgrind --leak-check=full` of a program with `errors` memory errors, and the lines a reader needs first."""
    pid = '==31337== '
    lines = [
        f'{pid}Memcheck, a memory error detector',
        f"{pid}Copyright (C) 2002-2022, and GNU GPL'd, by Julian Seward et al.",
        f'{pid}Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info',
        f'{pid}Command: ./httpd --port 8080',
        pid,
    ]
    kinds = [
        'Invalid read of size 4',
        'Invalid write of size 8',
        'Conditional jump or move depends on uninitialised value(s)',
    ]
    needed: list[str] = []
    for n in range(errors):
        header = f'{pid}{kinds[n % 3]}'
        lines += [
            header,
            f'{pid}   at 0x4848{n:03X}: memcpy@GLIBC_2.2.5 (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)',
            f'{pid}   by 0x1093{n:02X}: parse_header_{n} (http.c:{80 + n})',
            f'{pid}   by 0x1094{n:02X}: handle_request (server.c:{200 + n})',
            f'{pid}   by 0x1095{n:02X}: main (main.c:41)',
            f"{pid} Address 0x4a4{n:03x}8 is 0 bytes after a block of size {16 * (n + 1)} alloc'd",
            f'{pid}   at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)',
            f'{pid}   by 0x1092{n:02X}: buffer_new (buffer.c:{12 + n})',
            pid,
        ]
        needed.append(header)
    lines += [f'listening on :8080, served {n} requests' for n in range(3)]
    leak = f'{pid}96 bytes in 3 blocks are definitely lost in loss record 2 of 2'
    verdict = f'{pid}ERROR SUMMARY: {errors * 4} errors from {errors + 1} contexts (suppressed: 0 from 0)'
    lines += [
        pid,
        f'{pid}HEAP SUMMARY:',
        f'{pid}    in use at exit: 1,120 bytes in 9 blocks',
        f'{pid}  total heap usage: 2,214 allocs, 2,205 frees, 301,556 bytes allocated',
        pid,
        leak,
        f'{pid}   at 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)',
        f'{pid}   by 0x109311: session_open (session.c:57)',
        pid,
        f'{pid}LEAK SUMMARY:',
        f'{pid}   definitely lost: 96 bytes in 3 blocks',
        f'{pid}   indirectly lost: 0 bytes in 0 blocks',
        f'{pid}     possibly lost: 0 bytes in 0 blocks',
        f'{pid}   still reachable: 1,024 bytes in 6 blocks',
        f'{pid}        suppressed: 0 bytes in 0 blocks',
        pid,
        verdict,
    ]
    return '\n'.join(lines), [*needed, leak, verdict]


def test_valgrind_keeps_each_memory_error_and_its_verdict() -> None:
    """Read past its `==31337== ` gutter, Valgrind's report is command output: each error's header, the leak and the
    error summary are kept, and a kept frame brings the header of its error."""
    text, needed = _valgrind(6)
    assert detect_kind(text) is ContentKind.SHELL
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 4)
    assert [line for line in needed if line not in kept] == []
    for index, line in enumerate(kept):
        if ': parse_header_' in line:  # under its error's header: the nearest kept line above at the gutter's edge
            assert next(above for above in kept[index::-1] if above[10:11] != ' ') in needed


def test_a_crash_keeps_its_signal_and_where_it_stopped() -> None:
    """gdb's `Program received signal SIGSEGV` and the innermost frame come before the registers it printed."""
    frames = [
        f'#{n}  0x00005555555551{n}9 in walk (node=0x5555555592a0, depth={12 - n}) at tree.c:{40 + n}'
        for n in range(12)
    ]
    registers = [f'r{n:<13} 0x7ffff7fc{n:04x}      {140737353900000 + n * 977}' for n in range(8, 16)]
    text = '\n'.join(
        [
            '[Thread debugging using libthread_db enabled]',
            'Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".',
            '',
            'Program received signal SIGSEGV, Segmentation fault.',
            '0x0000555555555159 in walk (node=0x0, depth=12) at tree.c:40',
            '40\t    return node->left ? walk(node->left, depth + 1) : node->value;',
            *frames,
            '#12 0x00005555555551a9 in main (argc=1, argv=0x7fffffffe808) at tree.c:88',
            *registers,
            'rip            0x555555555159      0x555555555159 <walk+16>',
            'eflags         0x10246             [ PF ZF IF RF ]',
        ]
    )
    assert detect_kind(text) is ContentKind.SHELL
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 4)
    assert 'Program received signal SIGSEGV, Segmentation fault.' in kept
    assert frames[0] in kept


def test_a_sanitizer_report_keeps_its_error_its_summary_and_the_first_frames() -> None:
    frames = [
        f'    #{n} 0x560e14dba{n}0f in {name} /srv/app/{name}.c:{n + 4}'
        for n, name in enumerate(['dup', 'load', 'main'])
    ]
    shadow = [f'  0x0c047fff7f{n:x}0: ' + ' '.join(['fa'] * 16) for n in range(16)]
    legend = [
        f'  {name}: {code:02x}'
        for code, name in enumerate(
            [
                'Heap left redzone',
                'Freed heap region',
                'Stack left redzone',
                'Stack mid redzone',
                'Stack right redzone',
                'Stack after return',
                'Stack use after scope',
                'Global redzone',
                'Global init order',
                'Poisoned by user',
                'Container overflow',
                'Array cookie',
                'Intra object redzone',
                'ASan internal',
                'Left alloca redzone',
                'Right alloca redzone',
            ],
            start=0xF1,
        )
    ]
    error = '==19501==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x60200000001b at pc 0x7f0f836602ca'
    summary = 'SUMMARY: AddressSanitizer: heap-buffer-overflow /srv/app/dup.c:4 in dup'
    text = '\n'.join(
        [
            '=' * 65,
            error,
            'WRITE of size 12 at 0x60200000001b thread T0',
            *frames,
            '',
            '0x60200000001b is located 0 bytes to the right of 11-byte region [0x602000000010,0x60200000001b)',
            summary,
            'Shadow bytes around the buggy address:',
            *shadow,
            'Shadow byte legend (one shadow byte represents 8 application bytes):',
            *legend,
            '==19501==ABORTING',
        ]
    )
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 4)
    assert error in kept
    assert summary in kept
    assert frames[0] in kept


def test_valgrind_keeps_its_errors_between_what_the_program_printed() -> None:
    """The program's own lines, however many, stand between Valgrind's: its gutter still says which lines are its."""
    text, needed = _valgrind(30)
    lines = text.split('\n')
    served = [f'served request {n}: GET /api/items/{n} -> 200 in {n % 17}ms' for n in range(600)]
    text = '\n'.join([*lines[:6], *served[:300], *lines[6:200], *served[300:], *lines[200:]])
    assert detect_kind(text) is ContentKind.SHELL
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 4)
    assert [line for line in needed if line not in kept] == []


def test_a_document_quoting_a_backtrace_is_still_a_document() -> None:
    """A page that shows a crash in an indented block, as Markdown quotes code, is prose: its headings stay its outline."""
    paragraphs = [
        f'Paragraph {n}: the allocator keeps a free list per size class and trims it when the arena shrinks.'
        for n in range(30)
    ]
    text = '\n'.join(
        [
            '# Debugging crashes',
            '',
            '## Reading a backtrace',
            '',
            *paragraphs[:10],
            '',
            '    Program received signal SIGSEGV, Segmentation fault.',
            '    #0  0x0000555555555159 in arena_trim (a=0x0) at arena.c:212',
            '    #1  0x00005555555551a9 in main (argc=1, argv=0x7fffffffe808) at main.c:40',
            '',
            '## Fixing it',
            '',
            *paragraphs[10:],
        ]
    )
    assert detect_kind(text) is ContentKind.PROSE


def test_colored_lines_alike_fold_as_plain_ones_do() -> None:
    """Eighty `ERROR` lines of one fixture that could not start, in colour: one stays, the rest fold as alike."""
    red, bold, reset = '\x1b[31m', '\x1b[1m', '\x1b[0m'
    words = [f'{a}{b}' for a in ('alpha', 'bravo', 'charlie', 'delta') for b in ('one', 'two', 'three', 'four', 'five')]
    errors = [f'{red}ERROR{reset} tests/test_api.py::{bold}TestClient::test_{word}{reset}' for word in words * 2]
    failed = f'{red}FAILED{reset} tests/test_db.py::{bold}test_migrate{reset} - AssertionError: 3 tables, expected 4'
    verdict = f'{red}======= 1 failed, 9 passed, {len(errors)} errors in 4.20s ======={reset}'
    text = '\n'.join([f'{bold}=========== short test summary info ==========={reset}', *errors, failed, verdict])
    summary = summarize(text, budget_tokens=estimate_tokens(text) // 4)
    assert isinstance(summary, str)
    assert f'… {len(errors) - 1} similar lines omitted …' in summary.split('\n')
    assert failed in kept_lines(text, summary)


def test_a_terminal_shows_a_line_rewritten_by_carriage_returns_as_last_written() -> None:
    assert shown(['Downloading 10%\rDownloading 55%\rDownloading 100%\r', 'plain\r', '\x1b(B\x1b[mFAILED t.py']) == [
        'Downloading 100%\r',
        'plain\r',
        'FAILED t.py',
    ]


def _ansible() -> tuple[str, str, list[str]]:
    """`ansible-playbook` over 6 hosts: 14 tasks that went well, one that failed on a host, and the recap."""
    hosts = [f'web-{n}' for n in range(6)]
    lines = ['', 'PLAY [webservers] **************************************************************', '']
    failing = 'TASK [Run database migrations] *************************************************'
    fatal = (
        'fatal: [web-3]: FAILED! => {"changed": true, "cmd": ["./manage.py", "migrate", "--noinput"], "rc": 1, '
        '"stderr": "django.db.utils.OperationalError: could not connect to server: Connection refused"}'
    )
    for task in range(15):
        header = failing if task == 9 else f'TASK [Configure service step {task}] '.ljust(80, '*')
        lines.append(header)
        for host in hosts:
            if task == 9 and host == 'web-3':
                lines.append(fatal)
            else:
                outcome = 'changed' if (task + len(host)) % 3 == 0 else 'ok'
                lines.append(f'{outcome}: [{host}] => (item=/etc/app/conf.d/step-{task}.conf)')
        lines.append('')
    lines.append('PLAY RECAP *********************************************************************')
    recap = [
        f'{host:<27}: ok={9 if host == "web-3" else 15}    changed={4 + n % 3}    unreachable=0    '
        f'failed={1 if host == "web-3" else 0}    skipped=0    rescued=0    ignored=0'
        for n, host in enumerate(hosts)
    ]
    return '\n'.join([*lines, *recap]), failing, [fatal, recap[3]]  # web-3's: the host that failed


def test_an_ansible_run_keeps_the_failed_task_and_its_recap() -> None:
    """What a reader of a playbook run needs: which task failed on which host and why (under its `TASK [...]` header),
    and the failed host's line of the recap; the `ok:`/`changed:` lines of tasks that went well give way."""
    text, failing, needed = _ansible()
    assert detect_kind(text) is ContentKind.SHELL
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 4)
    assert [line for line in needed if line not in kept] == []
    assert next(line for line in kept[kept.index(needed[0]) :: -1] if line.startswith('TASK [')) == failing


def test_a_pty_doubled_line_end_is_no_rewrite() -> None:
    """`docker exec -t` and `ssh -t` end a CRLF program's lines with `\\r\\r\\n`: each line is still what it says."""
    lines = [f't.py::test_{n} PASSED' for n in range(300)]
    lines.insert(150, 't.py::test_bad FAILED')
    lines += ['E   AssertionError: assert 3 == 4', '=== 1 failed, 300 passed in 2.1s ===']
    text = '\r\r\n'.join(lines)
    kept = summary_lines(text, budget_tokens=200)
    assert 't.py::test_bad FAILED\r\r' in kept
    assert 'E   AssertionError: assert 3 == 4\r\r' in kept
    assert shown(['a\r\r', 'a\rb\r\r']) == ['a\r\r', 'b\r\r']


def test_an_ansible_run_of_many_hosts_keeps_its_failure_over_the_hosts_that_went_well() -> None:
    """Forty hosts' lines of the recap are the verdict of a run that went well; beside a failed task, the lines of the
    hosts where nothing failed give way to it."""
    hosts = [f'web-{n}' for n in range(40)]
    lines = ['PLAY [web] ****', '']
    for task in range(10):
        lines += [f'TASK [install {task}] ****', *[f'changed: [{host}] => (item=pkg{task})' for host in hosts], '']
    failing = 'TASK [nginx : Validate config] ****'
    fatal = 'fatal: [web-39]: FAILED! => {"msg": "nginx: [emerg] unknown directive in app.conf:14", "rc": 1}'
    lines += [failing, *[f'ok: [{host}]' for host in hosts[:-1]], fatal, '', 'PLAY RECAP ****']
    recap = [f'{host:<12}: ok=11 changed=10 unreachable=0 failed={int(host == "web-39")} skipped=0' for host in hosts]
    text = '\n'.join([*lines, *recap])
    kept = summary_lines(text, budget_tokens=600)
    assert fatal in kept
    assert failing in kept
    assert recap[-1] in kept
    assert sum('failed=0' in line for line in kept) < 10


def test_a_play_in_words_is_no_playbook_run() -> None:
    assert detect_kind('Turn 1\nPLAY [Knight] from hand\nTurn 2\nPLAY [Shield] from hand') is not ContentKind.SHELL


def _mypy(*, columns: bool, modules: int = 4) -> tuple[str, dict[tuple[str, str], list[str]]]:
    """`mypy --strict` of four modules: each rule a few times a file, in line order, then the count.

    `columns`: as `--show-column-numbers` prints them (`shop/core.py:12:5: error: ...`), as a pre-commit hook may.
    """
    rules = {
        'no-untyped-def': 'Function is missing a type annotation',
        'no-untyped-call': 'Call to untyped function "{name}" in typed context',
        'attr-defined': '"Cache" has no attribute "{name}"',
        'type-arg': 'Missing type arguments for generic type "{name}"',
        'arg-type': 'Argument 1 to "{name}" has incompatible type "str"; expected "int"',
    }
    findings: dict[tuple[str, str], list[str]] = {}
    lines: list[str] = []
    for module in ('core', 'fanout', 'recipes', 'persistent', 'api', 'cli', 'models', 'views', 'tasks', 'utils')[
        :modules
    ]:
        for row in range(40):
            code = list(rules)[row * 7 % len(rules)]
            message = rules[code].format(name=f'{module}_{code.replace("-", "_")}_{row}')
            place = f'shop/{module}.py:{12 + row * 9}:{row % 7 + 1}' if columns else f'shop/{module}.py:{12 + row * 9}'
            line = f'{place}: error: {message}  [{code}]'
            findings.setdefault((module, code), []).append(line)
            lines.append(line)
    lines.append(f'Found {len(lines)} errors in {modules} files (checked 12 source files)')
    return '\n'.join(lines), findings


def test_a_type_checkers_findings_are_each_rule_once_a_file_and_the_count() -> None:
    """160 findings of 5 rules in 4 files: each rule's first finding in each file, and the count under them. A finding
    names its own place, so the one above it does not come with it."""
    text, findings = _mypy(columns=True)
    assert detect_kind(text) is ContentKind.SHELL
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 6)
    assert kept[-1] == text.split('\n')[-1]
    assert [first for first, *_ in findings.values() if first not in kept] == []
    assert len(kept) <= 2 * len(findings) + 1


def test_a_type_checkers_listing_keeps_its_count() -> None:
    """mypy without columns reads as a listing (a finding a line, by file): each file's first finding, and the count
    under them, which no kept finding says."""
    text, findings = _mypy(columns=False, modules=10)
    assert detect_kind(text) is ContentKind.LISTING
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 16)
    assert kept[-1] == text.split('\n')[-1]
    firsts = {module: lines[0] for (module, _), lines in reversed(findings.items())}
    assert [first for first in firsts.values() if first not in kept] == []


def test_a_pre_commit_run_keeps_which_hooks_failed_and_their_verdicts() -> None:
    """`pre-commit run --all-files`: each failed hook's line and each tool's verdict under it, a finding under its own
    hook; the hooks that passed give way."""
    ruff = [f'src/shop/mod_{n}.py:{n + 3}:1: F401 [*] `os` imported but unused' for n in range(200)]
    mypy = [
        f'src/shop/mod_{n}.py:{n + 7}: error: Function is missing a type annotation  [no-untyped-def]'
        for n in range(60)
    ]
    hooks = {
        'ruff': 'ruff.....................................................................Failed',
        'format': 'ruff format..............................................................Passed',
        'mypy': 'mypy.....................................................................Failed',
        'yaml': 'check yaml...............................................................Passed',
        'print': 'no print statements......................................................Failed',
    }
    verdicts = ['Found 200 errors.', 'Found 200 errors in 200 files (checked 204 source files)']
    text = '\n'.join(
        [
            hooks['ruff'], '- hook id: ruff', '- exit code: 1', '', *ruff, verdicts[0], '[*] 200 fixable with the `--fix` option.', '',
            hooks['format'],
            hooks['mypy'], '- hook id: mypy', '- exit code: 1', '', *mypy, verdicts[1], '',
            hooks['yaml'],
            hooks['print'], '- hook id: no-print', '- exit code: 1', '', 'src/shop/cli.py:12:    print(order)', '',
        ]
    )  # fmt: skip
    assert detect_kind(text) is ContentKind.SHELL
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 20)
    needed = [hooks['ruff'], hooks['mypy'], hooks['print'], *verdicts]
    assert [line for line in needed if line not in kept] == []
    for index, line in enumerate(kept):
        if ': error: ' in line:
            assert next(above for above in kept[index::-1] if above.endswith(('Failed', 'Passed'))) == hooks['mypy']


def test_a_type_checkers_findings_of_one_rule_each_say_their_own() -> None:
    """Three `[arg-type]` findings in one file name three functions and types: with room for them, none is folded."""
    text = '\n'.join(  # noqa: FLY002
        [
            '$ mypy --show-column-numbers app.py',
            'app.py:12:9: error: Argument 1 to "charge" has incompatible type "str"; expected "int"  [arg-type]',
            'app.py:40:9: error: Argument 2 to "refund" has incompatible type "None"; expected "Decimal"  [arg-type]',
            'app.py:77:5: error: Argument 1 to "ship" has incompatible type "Order"; expected "Address"  [arg-type]',
            'Found 3 errors in 1 file (checked 1 source file)',
        ]
    )
    assert summarize(text, budget_tokens=500) == text


def test_a_checklist_in_words_is_no_pre_commit_run() -> None:
    """Leader dots and a status close a checklist's lines too: without pre-commit's `- hook id:`, no hook ran."""
    text = '\n'.join(  # noqa: FLY002
        [
            'QA sign-off for release 4.2, run on staging by the release team on Friday.',
            '',
            'Login.....................................................Passed',
            'Signup....................................................Passed',
            'Checkout..................................................Failed',
            'Invoices..................................................Passed',
            '',
            'Checkout fails on the last step with a 502 from the payment gateway; we ship 4.2 without it.',
        ]
    )
    assert detect_kind(text) is not ContentKind.SHELL


def test_a_type_checkers_finding_comes_with_what_it_is_in() -> None:
    """mypy's `--show-error-context`: a kept finding brings the `note: In function "x":` line it is under."""
    lines: list[str] = []
    contexts: dict[str, str] = {}
    for n in range(30):
        context = f'shop/orders.py: note: In function "handler_{n}":'
        finding = f'shop/orders.py:{21 + n * 11}: error: Name "total_{n}" is not defined  [name-defined]'
        other = f'shop/orders.py:{20 + n * 11}: error: Incompatible return value type  [return-value]'
        lines += [context, other, finding]
        contexts[finding] = context
    lines.append('Found 60 errors in 1 file (checked 4 source files)')
    text = '\n'.join(lines)
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 6)
    placed = [finding for finding in contexts if finding in kept]
    assert len(placed) > 1
    assert [finding for finding in placed if contexts[finding] not in kept] == []


def test_a_type_checkers_note_is_kept_for_its_findings_not_in_their_stead() -> None:
    """A short summary of mypy's `--show-error-context` report keeps findings under their notes, not notes alone.

    Each note names a function of its own, a name no finding holds: weighed for it, the notes took the budget
    and stood over `… 2 lines omitted …` each, saying where errors are and none of what they are.
    """
    lines: list[str] = []
    placed: dict[str, list[str]] = {}
    for n in range(30):
        context = f'mp/handlers.py: note: In function "handler_{n}":'
        assignment = 'Incompatible types in assignment (expression has type "str", variable has type "int")'
        placed[context] = [
            f'mp/handlers.py:{4 + n * 5}: error: {assignment}  [assignment]',
            f'mp/handlers.py:{5 + n * 5}: error: Argument 1 to "len" has incompatible type "int"; expected "Sized"  [arg-type]',
        ]
        lines += [context, *placed[context]]
    lines.append('Found 60 errors in 1 file (checked 1 source file)')
    text = '\n'.join(lines)
    assert detect_kind(text) is ContentKind.LISTING
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 3)
    notes = [context for context in placed if context in kept]
    assert len(notes) > 5
    assert [context for context in notes if not set(placed[context]) & set(kept)] == []


def test_a_type_checkers_note_ends_with_its_run() -> None:
    """A run of mypy starts at top level: a note of the run before places none of the next run's findings."""
    lines = [
        '$ mypy --show-error-context app.py',
        'app.py: note: In function "checkout":',
        'app.py:40: error: Incompatible return value type (got "int", expected "str")  [return-value]',
        'Found 1 error in 1 file (checked 1 source file)',
        '$ mypy --show-error-context app.py',
        'app.py:3: error: Module "os" has no attribute "frob"  [attr-defined]',
        'app.pyi:3: error: Module "os" has no attribute "frob"  [attr-defined]',
    ]
    chains = enclosing(detect_kind('\n'.join(lines)), lines)
    assert 1 in chains[2]
    assert chains[5] == chains[6] == ()


def test_a_failures_reason_is_not_crowded_out_by_facts_earlier_turns_named() -> None:
    """The facts the task named (the test's data, the frames' paths) are pinned, but the line saying why the test
    failed (`E   ValueError: ...`) is one a failure cannot be read without: it keeps its place in the budget's
    required share, as the verdict does, however many pinned facts compete for the rest."""
    frames = [
        (f'/srv/app/.venv/lib/python3.12/site-packages/tabular/io/{name}.py', line, func)
        for name, line, func in (
            ('connect', 62, '__call__'), ('registry', 218, 'read'), ('connect', 19, 'io_read'), ('ui', 426, 'read'),
            ('core', 1464, 'read'), ('core', 1183, '__call__'),
        )
    ]  # fmt: skip
    rows = [f'            "  {350 + 100 * n}.0      {n}.0    {n}",' for n in range(16)]
    reason = "E                   ValueError: could not convert string to float: 'float64'"
    text = '\n'.join(
        [
            '============================= test session starts ==============================',
            'rootdir: /srv/app/tests',
            'collected 4 items',
            '',
            'tests/test_rst.py ...F                                                   [100%]',
            '',
            '=================================== FAILURES ===================================',
            '__________________________ test_rst_with_header_rows ___________________________',
            '',
            '    def test_rst_with_header_rows():',
            '        lines = [',
            *rows,
            '        ]',
            '>       tbl = Table.read(lines, format="ascii.rst", header_rows=["name", "unit", "dtype"])',
            '',
            *(
                f'{path}:{line}: in {func}\n    out = self.{func}(*args, **kwargs)\n{"_ " * 40}'
                for path, line, func in frames
            ),
            '',
            '>                   raise ValueError(f"Column {col.name} failed to convert: {last_err}")',
            reason,
            '',
            '/srv/app/.venv/lib/python3.12/site-packages/tabular/io/core.py:1120: ValueError',
            '=========================== short test summary info ============================',
            'FAILED tests/test_rst.py::test_rst_with_header_rows',
            '========================= 1 failed, 3 passed in 0.40s ==========================',
        ]
    )
    named = (
        'header_rows', 'ascii.rst', *(row.split()[1] for row in rows), *(path for path, _, _ in frames),
    )  # fmt: skip
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 2, quoted=named)
    assert reason in kept
    assert 'FAILED tests/test_rst.py::test_rst_with_header_rows' in kept
    assert any('header_rows=' in line for line in kept)  # the named facts still have their lines


def test_the_failures_of_a_parametrized_test_are_read_once_and_the_others_keep_their_room() -> None:
    """Six cases of one parametrized test fail alike but for their parameter (`n = 10`, `E   AssertionError: bad
    10`): the first is read, the others fold to their banner and their last error line, so the tests that fail
    otherwise keep their reasons."""
    cases = [3, 10, 17, 24, 31, 38]
    sections = [
        line
        for n in cases
        for line in (
            f'{"_" * 33} test_many[{n}] {"_" * 33}',
            '',
            f'n = {n}',
            '',
            "    @pytest.mark.parametrize('n', range(40))",
            '    def test_many(n):',
            ">       assert n % 7 != 3, f'bad {n}'",
            f'E       AssertionError: bad {n}',
            f'E       assert ({n} % 7) != 3',
            '',
            'tests/test_many.py:6: AssertionError',
        )
    ]
    json_reason = 'E   json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 9'
    dict_reason = "E   AssertionError: assert {'a': 1, 'b': [1, 2, 3]} == {'a': 1, 'b': [1, 2, 4]}"
    text = '\n'.join(
        [
            '=================================== FAILURES ===================================',
            *sections,
            '__________________________________ test_json ___________________________________',
            '',
            '    def test_json():',
            '>       load(\'{"a": 1,}\')',
            json_reason,
            '',
            'tests/test_many.py:9: JSONDecodeError',
            '_____________________________ TestThing.test_attr ______________________________',
            '',
            "    def test_attr(self): assert {'a': 1, 'b': [1,2,3]} == {'a': 1, 'b': [1,2,4]}",
            dict_reason,
            '',
            'tests/test_many.py:12: AssertionError',
            '=========================== short test summary info ============================',
            *(f'FAILED tests/test_many.py::test_many[{n}] - AssertionError: bad {n}' for n in cases),
            'FAILED tests/test_many.py::test_json - json.decoder.JSONDecodeError: Expecting propert...',
            "FAILED tests/test_many.py::TestThing::test_attr - AssertionError: assert {'a': 1, 'b':...",
            '========================= 8 failed, 32 passed in 0.05s =========================',
        ]
    )
    lines = text.split('\n')
    repeated = repeated_failures(lines)
    second = lines.index(f'{"_" * 33} test_many[10] {"_" * 33}')
    assert not any(at < second for at in repeated)  # the first case is read whole
    assert lines.index('E       assert (10 % 7) != 3') not in repeated  # a repeat's last error line stays to offer
    assert lines.index('n = 10') in repeated and lines.index('E       AssertionError: bad 38') in repeated
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 3)
    assert json_reason in kept
    # the other test failing otherwise, at a third of the size: its reason as pytest's summary line gives it (its `E`
    # line, with the banner and source line a reason brings, fits at half the size)
    assert "FAILED tests/test_many.py::TestThing::test_attr - AssertionError: assert {'a': 1, 'b':..." in kept
    assert dict_reason in summary_lines(text, budget_tokens=estimate_tokens(text) // 2)
    assert [line for line in kept if line.startswith('E       AssertionError: bad ')] == [
        'E       AssertionError: bad 3'
    ]


def _parse_failure(test: str, version: str, got: str, want: str, diff: str) -> list[str]:
    return [
        f'{"_" * 32} {test} {"_" * 33}',
        '',
        f'    def {test}():',
        f'>       assert parse("{version}") == {want}',
        f'E       AssertionError: assert {got} == {want}',
        f'E         At index 2 diff: {diff}',
        'E         Use -v to get more diff',
        '',
        'tests/test_v.py:8: AssertionError',
    ]


def test_sections_alike_but_for_numbers_their_banners_do_not_name_are_no_repeats() -> None:
    """Two tests failing alike but for their numbers (`0 != 3`, `1 != 10`) failed two ways: the second's numbers are
    how it failed, which no banner names, and its last `E` line (`Use -v to get more diff`) does not say. Only a
    parametrized test's own parameters (`test_many[10]`) are masked."""
    lines = [
        '=================================== FAILURES ===================================',
        *_parse_failure('test_parse_v1', '1.2.3', '(1, 2, 0)', '(1, 2, 3)', '0 != 3'),
        *_parse_failure('test_parse_v2', '2.0.10', '(2, 0, 1)', '(2, 0, 10)', '1 != 10'),
        '========================= 2 failed, 1 passed in 0.05s ==========================',
    ]
    assert repeated_failures(lines) == set()
    kept = summary_lines('\n'.join(lines), budget_tokens=estimate_tokens('\n'.join(lines)))
    assert 'E         At index 2 diff: 1 != 10' in kept
