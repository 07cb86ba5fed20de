"""Source code and numbered reads: definitions stay, indentation and numbers untouched, the quoted line kept."""

from __future__ import annotations

import time

from extractive_checks import summary_lines

from summarizer.core import estimate_tokens
from summarizer.extractive import code, summarize
from summarizer.extractive._kinds import ContentKind, detect_kind
from summarizer.extractive.lines import HIGH, LOW, MID, Joined
from summarizer.extractive.outline import bare, enclosing, indent

SOURCE = [
    'import json',
    'from pathlib import Path',
    '',
    '',
    'class InventoryStore:',
    '    """Keeps stock levels on disk."""',
    '',
    '    def __init__(self, root: Path) -> None:',
    '        self.root = root',
    '        self._cache: dict[str, int] = {}',
    '',
]
for n in range(30):
    SOURCE += [
        f'    def adjust_{n}(self, sku: str, delta: int) -> int:',
        f'        level = self._cache.get(sku, {n})',
        '        level  +=  delta   # aligned on purpose',
        '        if level < 0:',
        f'            raise ValueError(f"negative stock for {{sku}} in bucket {n}")',
        '        self._cache[sku] = level',
        '        return level',
        '',
    ]
NUMBERED = '\n'.join(f'{number:6}\t{line}' for number, line in enumerate(SOURCE, start=1))


def test_a_numbered_read_keeps_its_outline_and_the_quoted_line_verbatim() -> None:
    assert detect_kind(NUMBERED) is ContentKind.CODE
    kept = summary_lines(NUMBERED, budget_tokens=400, quoted=('adjust_17',))
    assert '     5\tclass InventoryStore:' in kept
    assert '     8\t    def __init__(self, root: Path) -> None:' in kept
    assert any(line.endswith('    def adjust_17(self, sku: str, delta: int) -> int:') for line in kept)
    definitions = [line for line in kept if '    def adjust_' in line]
    bodies = [line for line in kept if 'level' in line]
    assert len(definitions) >= 5 and len(definitions) > len(bodies)  # the outline before bodies


def _blamed(lines: list[str]) -> list[str]:
    """`git blame` of `lines`: each under the commit, author and date it came from, and its number."""
    authors = ['Ada Lovelace', 'Grace Hopper', 'Linus Torvalds']
    return [
        f'{"^" if n % 7 == 0 else ""}{(n * 2654435761) % (1 << 28):07x}{"" if n % 7 == 0 else "0"} '
        f'({authors[n % 3]:<14} 2024-0{n % 9 + 1}-1{n % 10} 1{n % 10}:0{n % 10}:00 +0200 {number:3}) {line}'
        for n, (number, line) in enumerate(enumerate(lines, start=1))
    ]


def test_a_blamed_file_is_read_as_code_its_gutter_kept() -> None:
    """`git blame` is a numbered read: its definitions stay, each line whole with its commit, author and number."""
    blamed = _blamed(SOURCE)
    text = '\n'.join(blamed)
    assert detect_kind(text) is ContentKind.CODE
    kept = summary_lines(text, budget_tokens=estimate_tokens(text) // 6, quoted=('bucket 17',))
    assert [blamed[SOURCE.index(line)] for line in ('class InventoryStore:',)] == [
        line for line in kept if line.endswith('class InventoryStore:')
    ]
    quoted = next(line for line in kept if 'bucket 17' in line)
    assert kept[kept.index(quoted) - 1].endswith('if level < 0:')  # placed by its block and its definition
    assert any(line.endswith('    def adjust_17(self, sku: str, delta: int) -> int:') for line in kept)
    definitions = [line for line in kept if '    def ' in line]
    assert len(definitions) >= 10 and len(definitions) > len([line for line in kept if 'level' in line])


def test_a_commit_subject_ending_in_a_number_in_brackets_is_no_blame_gutter() -> None:
    """`git log --oneline`: a hash, then a subject that may end `(part 2)`, read as a gutter, left the line empty."""
    log = [
        f'{(n * 2654435761) % (1 << 28):07x} shop: fix rounding of cart totals {n} (part {n % 3 + 1})'
        for n in range(99)
    ]
    assert detect_kind('\n'.join(log)) is not ContentKind.CODE
    assert [(indent(line), bare(line)) for line in log[:3]] == [(0, False)] * 3


def test_lines_that_almost_have_a_blame_gutter_are_read_at_once() -> None:
    """A run that could end at any ` N)` or date, tried again from each end: 100 KB lines took a minute or more."""
    texts = (
        'def f(x):\n    return x\n1234567 ' + 'a(b 1)' * 16_000,  # a gutter that ends anywhere
        '1234567 (2024-01-01' + ' ' * 100_000 + 'x\nhello',  # a date, then blanks that never close
        '1234567 (' + '2024-01-01 ' * 10_000,  # dates that never close
    )
    for text in texts:
        started = time.perf_counter()
        detect_kind(text)
        summary = summarize(text, budget_tokens=200)
        assert time.perf_counter() - started < 2, text[:40]
        assert isinstance(summary, str)


def test_plain_source_keeps_imports_and_signatures() -> None:
    text = '\n'.join(SOURCE)
    assert detect_kind(text) is ContentKind.CODE
    kept = summary_lines(text, budget_tokens=300)
    assert {'import json', 'from pathlib import Path', 'class InventoryStore:'} <= set(kept)


COMPILER = '\n'.join(
    [
        'from django.db import connection',
        '',
        '',
        'class InsertCompiler:',
        *[
            line
            for n in range(25)
            for line in (
                f'    def execute_batch_{n}(self, cursor, rows):',
                f'        if self.connection.features.can_return_rows_from_batch_{n}:',
                f'            return self.connection.ops.fetch_returned_rows_{n}(cursor)',
                f'        return [self.connection.ops.last_insert_id_{n}(cursor, self.query.meta.table_{n})]',
                '',
            )
        ],
    ]
)


def test_a_kept_code_line_brings_its_definitions() -> None:
    """`return self.connection.ops.fetch_returned_rows_3(cursor)` shows under its method and class, numbered."""
    numbered = '\n'.join(f'{number:>6}\t{line}' for number, line in enumerate(COMPILER.split('\n'), start=1))
    for text in (COMPILER, numbered):
        wanted = next(line for line in text.split('\n') if 'fetch_returned_rows_3(' in line)
        kept = summary_lines(text, budget_tokens=120, quoted=('self.connection.ops.fetch_returned_rows_3',))
        assert wanted in kept
        before = kept[: kept.index(wanted)]
        assert any('def execute_batch_3(' in line for line in before)
        assert any(line.lstrip(' \t0123456789').startswith('class ') for line in before)


def test_a_body_under_a_signature_over_several_lines_is_placed_by_its_def() -> None:
    """`) -> Optional[Node]:` closes the bracket `def check(` opened at its indentation: the body is placed by both,
    numbered or not, and the next method by its class alone."""
    source = [
        'class Rebuilder:',
        '    def check(',
        '        self,',
        '        node: Node,',
        '    ) -> Optional[Node]:',
        '        comment = node.comment',
        '        return parse(comment)',
        '',
        '    def visit(self, node: Node) -> None:',
        '        pass',
    ]
    numbered = [f'{number:>6}\t{line}' for number, line in enumerate(source, start=1)]
    for lines in (source, numbered):
        chains = enclosing(ContentKind.CODE, lines)
        assert chains[6] == (4, 1, 0)  # `return parse(...)`: the closing line, the `def`, the class
        assert chains[4] == (1, 0)
        assert chains[8] == (0,)  # `def visit` is the class's, not the first method's


def _numbered(lines: list[str]) -> str:
    return '\n'.join(f'{number:>6}\t{line}' for number, line in enumerate(lines, start=1))


CART_TS = [
    "import { randomUUID } from 'node:crypto';",
    "import type { APIGatewayProxyEvent } from 'aws-lambda';",
    "import { pool } from './db';",
    '',
    'export class CartService {',
    '  constructor(private readonly maxItems = 40, private readonly region = "eu-west-1") {}',
    '',
    '  async addItem(cartId: string, sku: string, quantity: number): Promise<void> {',
    *[
        f"    await pool.query('INSERT INTO cart_items_{n} (cart_id, sku, qty) VALUES ($1, $2, $3)', [cartId, sku, {n}]);"
        for n in range(8)
    ],
    '  }',
    '',
    '  get total(): number {',
    *[f'    const line{n} = this.lines[{n}].price * 1.{n}9 + {n * 7};' for n in range(8)],
    '    return 0;',
    '  }',
    '',
    '  static fromJSON(raw: string): CartService {',
    *[f"    const field{n} = JSON.parse(raw)['f{n}'] ?? 'default-{n}';" for n in range(8)],
    '    return new CartService();',
    '  }',
    '}',
    '',
    'export const handler = async (event: APIGatewayProxyEvent) => {',
    *[f"  const header{n} = event.headers['x-trace-{n}'] ?? randomUUID();" for n in range(8)],
    '  return { statusCode: 200 };',
    '};',
]


def test_a_typescript_class_read_keeps_its_class_and_methods_with_their_numbers() -> None:
    """`export class`, its methods without a `function` keyword (`async addItem(...)`, `get total()`, `static
    fromJSON(...)`, the constructor) and an arrow function bound to an exported name are its outline."""
    text = _numbered(CART_TS)
    assert detect_kind(text) is ContentKind.CODE
    kept = summary_lines(text, budget_tokens=260)
    for number, line in enumerate(CART_TS, start=1):
        if line.lstrip().startswith(('export ', 'async addItem(', 'get total(', 'static fromJSON(', 'constructor(')):
            assert f'{number:>6}\t{line}' in kept
    assert not any('INSERT INTO cart_items_5' in line for line in kept)  # bodies are what went


def _bodies(head: list[str], signatures: tuple[str, ...], body: str, close: str) -> list[str]:
    """`head`, then each signature over a body of six lines holding facts of their own, and its closing line."""
    lines = list(head)
    for m, signature in enumerate(signatures):
        lines += [signature, *(body.format(m=m, n=n) for n in range(6)), close, '']
    return lines


JAVA_METHODS = (
    '    public static List<String> parse(String s) throws IOException {',
    '    protected BigDecimal total(List<InvoiceLine> lines) {',
    '    Map<String, Integer> countByCustomer(List<Invoice> invoices) {',
    '    static String format(Invoice invoice) {',
    '    Optional<Invoice> findById(UUID id) {',
    '    final void archive(Invoice invoice, Instant at) {',
)
INVOICES_JAVA = [
    *_bodies(
        ['package com.example.billing;', '', 'import java.util.List;', '', 'public final class InvoiceParser {'],
        JAVA_METHODS,
        '        LOG.info("invoice-{m}{n} posted to ledger L-{m}{n}", ids.get({m}{n}));',
        '    }',
    ),
    '}',
]


def test_a_java_file_keeps_its_class_and_method_signatures() -> None:
    text = '\n'.join(INVOICES_JAVA)
    assert detect_kind(text) is ContentKind.CODE
    kept = summary_lines(text, budget_tokens=220)
    assert {'public final class InvoiceParser {', *JAVA_METHODS} <= set(kept)
    assert sum('LOG.info(' in line for line in kept) < 12  # of 36: the bodies are what went


KOTLIN_FUNS = (
    '    override fun onCreate(savedInstanceState: Bundle?) {',
    '    private suspend fun refresh(orderId: Long): Order {',
    '    fun render(state: UiState) {',
    '    internal fun <T> retry(times: Int, block: () -> T): T {',
)
GO_FUNCS = (
    'func (s *Server) Handle(w http.ResponseWriter, r *http.Request) {',
    'func (s *Server) Close() error {',
    'func NewServer(store *Store) *Server {',
    'func (s *Server) shard(key string) int {',
)


ACTIVITY_KT = [
    *_bodies(
        ['package com.example.shop', '', 'class OrdersActivity : AppCompatActivity() {'],
        KOTLIN_FUNS,
        '        total += api.fetchPart(orderId, "segment-{m}{n}")',
        '    }',
    ),
    '}',
]
SERVER_GO = _bodies(
    ['package server', ''], GO_FUNCS, '\tw.Header().Set("X-Shard-{m}{n}", strconv.Itoa(s.store.Shard({m}{n})))', '}'
)


def test_kotlin_funs_and_go_methods_on_receivers_are_kept() -> None:
    for source, wanted in ((ACTIVITY_KT, KOTLIN_FUNS), (SERVER_GO, GO_FUNCS)):
        text = '\n'.join(source)
        assert detect_kind(text) is ContentKind.CODE
        kept = summary_lines(text, budget_tokens=150)
        assert set(wanted) <= set(kept)


def test_definitions_rank_high_and_control_flow_and_calls_do_not() -> None:
    """Methods and classes in the languages agents read get `HIGH`, a route's registration `MID` (as a decorator);
    a block of control flow or a call no more than a `return` line's `LOW`: they look alike (`name(...) {`) but for
    their first word or their end."""
    definitions = [
        'export default class App extends React.Component {',
        'export abstract class Repository<T> implements Store<T> {',
        'sealed interface Shape',
        'data class User(val id: Int, val name: String)',
        'export type Handler = (event: Event) => void;',
        '    public record Point(int x, int y) {',
        '  static from(raw: string): Money {',
        '  set total(value: number) {',
        '  #validate(input) {',
        '  constructor(private readonly limit = 50) {}',
        '    public async Task<IActionResult> Get(int id)',
        '    List<Order> findByCustomer(String customerId);',
        '    @objc private func tap(_ sender: UIButton) {',
        '  handleClick = () => {',
        '  onSave: async (event) => {',
        'pub(crate) async fn run(&self) -> Result<()> {',
        '    12\t  async create(input: unknown) {',
        '  constructor(...args) {',
        '  log(...messages) {',
    ]
    statements = [
        '    if (x) {',
        '    } else if (retries > 3) {',
        '    else if (retries > 3) {',
        '    for (const item of items) {',
        '    while (running) {',
        '    switch (kind) {',
        '    catch (e) {',
        '    return render(view);',
        '    return new Comparator<Order>() {',
        '    await db.query(sql, [id]);',
        '    save(order);',
        '    withRetry(() => {',
        "    describe('orders', () => {",
        '    using (var connection = Open()) {',
        '    synchronized (lock) {',
        '    async with session.get(url) as response:',
        '    VStack(spacing: 8) {',
        '        withContext(Dispatchers.IO) {',
        '    repeat(3) {',
        '        withAnimation(.easeInOut) {',
        "    tasks.register('docs') {",
        '    assertThrows<IllegalStateException>("no stock") {',
    ]
    routes = ["app.post('/orders', async (req, res) => {", '  router.get("/health", health)', '\tr.GET("/ping", ping)']
    bonuses = code.line_bonuses(Joined([*definitions, *statements, *routes]))
    assert [line for line, bonus in zip(definitions, bonuses) if bonus < HIGH] == []
    assert [line for line, bonus in zip(statements, bonuses[len(definitions) :]) if bonus > LOW] == []  # `return`
    assert bonuses[-len(routes) :] == [MID] * len(routes)


INVOICE_CS = [
    'namespace Shop.Billing',
    '{',
    '    public sealed class InvoiceService',
    '    {',
    *[
        line
        for n in range(6)
        for line in (
            f'        public decimal Total{n}(IEnumerable<Line> lines)',
            '        {',
            f'            var sum = lines.Where(l => l.Region == "region-{n}").Sum(l => l.Amount * {n + 2});',
            f'            return Math.Round(sum, {n});',
            '        }',
            '',
        )
    ],
    '    }',
    '}',
]


def test_a_kept_body_line_brings_its_method_and_class_where_braces_stand_alone() -> None:
    """C#'s layout puts a block's `{` on a line of its own: the body under it is still placed by the signature above
    the brace and by the class, numbered or not."""
    for text in ('\n'.join(INVOICE_CS), _numbered(INVOICE_CS)):
        kept = summary_lines(text, budget_tokens=90, quoted=('region-4',))
        wanted = next(line for line in kept if 'region-4' in line)
        before = kept[: kept.index(wanted)]
        assert any(line.endswith('public decimal Total4(IEnumerable<Line> lines)') for line in before)
        assert any(line.endswith('public sealed class InvoiceService') for line in before)


FORMATTERS = [
    *[
        line
        for n in range(12)
        for line in (
            f'export function formatLine{n}(value: number, currency = "EUR"): string {{',
            f'  return `${{value.toFixed(2)}} ${{currency}} (line {n})`;',
            '}',
        )
    ],
    'const app = express();',
    "app.get('/ledger/:account', async (req, res) => {",
    '  res.json(await ledger.balance(req.params.account));',
    '});',
    "app.post('/ledger/entries', async (req, res) => {",
    '  res.status(201).json(await ledger.post(req.body));',
    '});',
]


def test_definitions_alike_but_for_a_number_leave_room_for_the_distinct_ones() -> None:
    """Twelve `formatLineN` helpers, then the routes: the first helper and the routes are kept, not every helper
    (each of which would otherwise weigh as much as the first, and more than a route)."""
    text = _numbered(FORMATTERS)
    kept = summary_lines(text, budget_tokens=180)
    for wanted in ('export function formatLine0(', "app.get('/ledger/:account'", "app.post('/ledger/entries'"):
        assert any(wanted in line for line in kept), wanted
    assert sum('export function formatLine' in line for line in kept) < 12


def test_a_line_of_brackets_alone_is_no_filler() -> None:
    """Left-over budget goes to no `))` or `else:` alone: a shell of syntax says nothing without the lines around it."""
    source = [
        'def related_objects(self, related_model, related_fields, objs):',
        '    predicate = reduce(operator.or_, (',
        "        query_utils.Q(**{'%s__in' % related_field.name: objs})",
        '        for related_field in related_fields',
        '    ))',
        '    if predicate:',
        '        return related_model._base_manager.using(self.using).filter(predicate)',
        '    else:',
        '        return None',
    ]
    for budget in range(20, 60, 4):
        kept = summary_lines('\n'.join(source), budget_tokens=budget)
        assert '    ))' not in kept or '        for related_field in related_fields' in kept
        assert '    else:' not in kept or '        return None' in kept


def test_a_kept_definition_brings_the_decorators_that_say_how_it_is_used() -> None:
    """`errors` read without its `@property` reads as a method to call; a setter without `@x.setter` as a second
    definition of the getter's name."""
    lines = ['import functools', '', '', '@deconstructible', 'class Form:']
    for n in range(40):
        lines += ['', '    @property', f'    def field_{n}(self):', f'        return self._values[{n}] * {n + 1}']
    lines += [
        '',
        '    @field_7.setter',
        '    def field_7(self, new_field_7_value):',
        '        self._values[7] = new_field_7_value',
    ]
    text = '\n'.join(f'{number:6d}\u2192{line}' for number, line in enumerate(lines, 1))
    kept = summary_lines(text, budget_tokens=120, quoted=('field_23', 'new_field_7_value'))
    numbered = text.split('\n')
    for definition in ('    def field_23(self):', '    def field_7(self, new_field_7_value):'):
        at = lines.index(definition)
        assert numbered[at] in kept and kept[kept.index(numbered[at]) - 1] == numbered[at - 1]  # its decorator


def test_a_signature_over_several_lines_is_kept_with_its_parameters() -> None:
    """`def __init__(` alone says nothing of what it takes: its parameters come with it, after the outline of
    definitions and before the bodies."""
    lines = ['class FixedWidth(Writer):', '    """A fixed-width table writer."""', '']
    for name in ('header', 'rows', 'footer', 'widths', 'borders', 'padding', 'titles', 'notes'):
        lines += [
            f'    def write_{name}(self, lines):',
            f'        return [line.rjust(self.{name}_width) for line in lines]',
            '',
        ]
    signature = [
        '    def __init__(',
        '        self,',
        '        col_starts=None,',
        '        delimiter_pad=" ",',
        '        header_rows=None,',
        '    ):',
    ]
    lines[15:15] = signature
    text = '\n'.join(f'{number:6d}\u2192{line}' for number, line in enumerate(lines, 1))
    kept = summary_lines(text, budget_tokens=260)
    numbered = text.split('\n')
    assert numbered[15:21] == [line for line in kept if line in numbered[15:21]]  # the whole signature
    bodies = [numbered[index + 1] for index, line in enumerate(lines) if line.startswith('    def write_')]
    assert sum(body in kept for body in bodies) < len(bodies)  # the bodies come after it


LEDGER = [
    'from decimal import Decimal',
    '',
    '',
    *[
        line
        for name in ('reconcile_ledger', 'close_period', 'post_refund', 'void_invoice', 'merge_accounts', 'audit_trail')
        for line in (
            f'def {name}(session, invoice):',
            f'    """Keep {name} in step with the invoice."""',
            f'    entries = session.rows("{name}", invoice.id)',
            '    total = sum((entry.amount for entry in entries), Decimal("0"))',
            f'    drift = invoice.total - total  # {name}',
            '    if abs(drift) > Decimal("0.01"):',
            f'        raise ValueError(f"{name}: drift {{drift}}")',
            '    return total',
            '',
            '',
        )
    ],
]


def test_the_body_of_a_definition_the_conversation_names_is_kept_whole() -> None:
    """A turn that names `post_refund` is about to read or edit its body: it is kept, under its def, before others'."""
    lines = _numbered(LEDGER).split('\n')
    start = next(index for index, line in enumerate(lines) if 'def post_refund(' in line)
    body = lines[start : start + 8]
    blind = summary_lines('\n'.join(lines), budget_tokens=240)
    named = summary_lines('\n'.join(lines), budget_tokens=240, quoted=('post_refund',))
    assert not set(body) <= set(blind)  # no room for a whole body unless one is named
    assert set(body) <= set(named)
    assert [line for line in named if 'def ' in line and 'post_refund' not in line]  # the outline of the rest stays
    assert not [line for line in named if 'raise' in line and 'post_refund' not in line]  # no other body comes


def test_a_name_defined_twice_brings_no_body() -> None:
    """`__init__` named by a turn could be any class's: no body is favoured over the outline."""
    lines = [
        line
        for cls in ('Ledger', 'Refund', 'Invoice', 'Period')
        for line in (
            f'class {cls}:',
            '    def __init__(self, session):',
            f'        self.session = session  # {cls.lower()}',
            f'        self.rows = session.rows("{cls.lower()}")',
            f'        self.total = sum(row.amount for row in self.rows)  # {cls}',
            '',
            f'    def describe_{cls.lower()}(self):',
            f'        return "{cls}"',
            '',
        )
    ]
    text = _numbered(lines)
    assert summary_lines(text, budget_tokens=120, quoted=('__init__',)) == summary_lines(text, budget_tokens=120)


def test_a_definition_line_of_one_long_word_is_read_at_once() -> None:
    """Looking for the name a def line defines once tried each letter of a word: a 200,000-letter line took minutes."""
    word = 'x' * 200_000
    text = _numbered([f'def {word} y', '    return 1', *LEDGER])
    started = time.perf_counter()
    summary = summarize(text, budget_tokens=200, quoted=('post_refund', 'y'))
    assert time.perf_counter() - started < 2
    assert isinstance(summary, str) and 'def post_refund(' in summary


def test_a_name_defined_again_in_the_same_words_brings_no_body() -> None:
    """A second `def __init__(self, session):` like the first weighs half (`_ALIKE`), but it defines `__init__` again:
    a turn naming `__init__` says nothing of which class it means, so the first class's body is no more named."""
    lines = [
        line
        for cls in ('Ledger', 'Refund', 'Invoice')
        for line in (
            f'class {cls}:',
            '    def __init__(self, session):',
            f'        self.session = session  # {cls.lower()}',
            f'        self.extra = compute_{cls.lower()}(self.rows, self.total)',
            '',
        )
    ]
    text = '\n'.join(lines)
    for budget in (40, 60):  # room for the outline and a little more: no class's body comes before the outline
        assert not [line for line in summary_lines(text, budget_tokens=budget, quoted=('__init__',)) if 'self.' in line]


def test_a_definition_is_named_by_its_name_not_its_return_type() -> None:
    """`public List<String> parse(` defines `parse`: `List` is its return type, `T` in `impl<T: Clone>` a parameter."""
    assert code.defined_name('    public static List<String> parse(String s) throws IOException {') == 'parse'
    assert code.defined_name('    public Map<String, List<Integer>> counts() {') == 'counts'
    assert code.defined_name('    public async Task<IActionResult> Get(int id)') == 'Get'
    assert code.defined_name('    Optional<Order> findById(String id);') == 'findById'
    assert code.defined_name('    public static <T> List<T> copyOf(T x) {') == 'copyOf'
    assert code.defined_name('impl<T: Clone> Store<T> {') == 'Store'
    assert code.defined_name('pub(crate) fn load_all(x: u32) -> Vec<u8> {') == 'load_all'
    assert code.defined_name('interface Repo<T> extends JpaRepository<T, Long> {') == 'Repo'
    assert code.defined_name('class Store<T> extends Base {') == 'Store'
    assert code.defined_name('function first<T>(xs: T[]): T {') == 'first'
    assert code.defined_name('    12→    def load(self, key: str) -> Dict[str, int]:') == 'load'


def test_a_named_body_of_one_line_again_and_again_leaves_room_for_the_outline() -> None:
    """A named function whose body repeats a line (`table.append((0, 0, 0))` 400 times) needs it read a few times:
    the other copies are no more of the body to weigh as a definition, so they do not crowd out the file's outline
    (before: one `def` kept of 61, and 77 copies of the line)."""
    lines = ['import os', '']
    for i in range(30):
        lines += [f'def helper_{chr(97 + i % 26)}{i}_{i * 7 % 11}(x):', f'    return os.path.join(x, "{i}")', '']
    lines += ['def build_table():', '    table = []', *['    table.append((0, 0, 0))'] * 400, '    return table', '']
    for i in range(30):
        lines += [f'def tail_{chr(97 + i % 26)}{i}_{i * 5 % 13}(y):', f'    return y * {i}', '']
    for text in ('\n'.join(lines), _numbered(lines)):
        kept = summary_lines(text, budget_tokens=600, quoted=('build_table',))
        assert len([line for line in kept if 'def ' in line]) >= 40
        assert 'table = []' in '\n'.join(kept) and len([line for line in kept if 'append' in line]) <= 3


def test_a_named_class_brings_no_body_of_a_method_defined_in_other_classes_too() -> None:
    """`__init__` of the class a turn names is its own innermost definition, named nowhere: its body is not favoured."""
    lines = [
        line
        for cls in ('Refund', 'Invoice', 'Period', 'Ledger')  # the named class's `__init__` is one like those above
        for line in (
            f'class {cls}:',
            '    def __init__(self, session):',
            f'        self.rows = session.rows("{cls.lower()}_rows")  # {cls} rows, loaded once',
            f'        self.total = sum(row.amount for row in self.rows)  # the {cls.lower()} total',
            '',
            f'    def describe_{cls.lower()}(self):',
            f'        return "{cls}"',
            '',
        )
    ]
    text = _numbered(lines)
    for budget in (70, 90, 130):
        kept = summary_lines(text, budget_tokens=budget, quoted=('Ledger',))
        assert any(line.endswith('class Ledger:') for line in kept)
        assert not [line for line in kept if 'ledger_rows' in line or 'the ledger total' in line], budget


def _account(cls: str) -> list[str]:
    """A class with a `balance` property (getter, setter, deleter), among methods of its own."""
    return [
        f'class {cls}:',
        '    @property',
        '    def balance(self):',
        f'        cents = self.ledger.sum_cents(account="{cls.lower()}")',
        '        return Decimal(cents) / 100',
        '',
        '    @balance.setter',
        '    def balance(self, value):',
        f'        self.ledger.adjust_to(account="{cls.lower()}", cents=int(value * 100))',
        '',
        '    @balance.deleter',
        '    def balance(self):',
        f'        self.ledger.close_account(account="{cls.lower()}")',
        '',
        *[
            line
            for name in ('open_statement', 'export_rows', 'merge_into')
            for line in (
                f'    def {name}_{cls.lower()}(self, period):',
                f'        rows = self.ledger.rows(period, kind="{name}")',
                f'        return [row for row in rows if row.account == "{cls.lower()}"]',
                '',
            )
        ],
    ]


def test_a_named_property_brings_the_body_of_each_of_its_accessors() -> None:
    """A turn naming `balance` means the property: its getter's, setter's and deleter's bodies come, though the three
    are defined under one name; the same property of two classes still says nothing of which class is meant."""
    text = _numbered(_account('Savings'))
    named = '\n'.join(summary_lines(text, budget_tokens=160, quoted=('balance',)))
    assert '.sum_cents(' in named and '.adjust_to(' in named and '.close_account(' in named
    blind = '\n'.join(summary_lines(text, budget_tokens=160))
    assert '.sum_cents(' not in blind and '.adjust_to(' not in blind  # no room for the bodies unless named
    twice = _numbered([*_account('Savings'), *_account('Checking')])
    assert summary_lines(twice, budget_tokens=160, quoted=('balance',)) == summary_lines(twice, budget_tokens=160)


def test_the_definitions_come_before_the_imports() -> None:
    """A module importing thirty names and defining a dozen functions: the outline of what it defines comes first; its
    imports take what room is left, the marker over the rest saying they are there."""
    lines = [f'from billing.{name} import {name.title()}Client' for name in (f'svc{n}' for n in range(30))]
    lines.append('')
    verbs = ('settle', 'refund', 'audit', 'close', 'reopen', 'export', 'merge', 'split', 'void', 'post', 'hold', 'sync')
    for n, verb in enumerate(verbs):
        lines += [f'def {verb}_ledger(ledger, period):', f'    return ledger.apply("{verb}", period, step={n})', '']
    text = _numbered(lines)
    kept = summary_lines(text, budget_tokens=260)
    assert len([line for line in kept if '_ledger(ledger, period):' in line]) == len(verbs)
    assert any('\tfrom billing.' in line for line in kept)  # room left over goes to the imports before the bodies


def _pyproject() -> str:
    """A `pyproject.toml` of six tables, some keys in several of them (`line-length`, `include`, `option_3`)."""
    tables = {
        'build-system': ['requires = ["hatchling>=1.24"]', 'build-backend = "hatchling.build"'],
        'project': ['name = "acme-sync"', 'version = "2.4.1"', 'requires-python = ">=3.11"'],
        'tool.black': ['line-length = 100', 'include = "\\\\.pyi?$"'],
        'tool.ruff': ['line-length = 120', 'target-version = "py311"', 'include = ["src/**/*.py"]'],
        'tool.ruff.lint': ['extend-select = ["I", "UP", "D"]', 'ignore = ["D100", "D104"]'],
        'tool.pytest.ini_options': ['addopts = "-q -n 4"', 'testpaths = ["tests"]', 'timeout = 300'],
    }
    lines: list[str] = []
    for table, keys in tables.items():
        lines += [f'[{table}]', *keys, *(f'option_{n} = "{table}-{n}"' for n in range(12)), '']
    return '\n'.join(lines)


def test_a_kept_toml_key_brings_its_table() -> None:
    """`line-length = 120` read without `[tool.ruff]` over it could be black's 100: a key's table is its section header,
    in no indentation. A line of code that is a list (`[1, 2]`) heads no section."""
    text = _pyproject()
    assert detect_kind(text) is ContentKind.CODE
    lines = summary_lines(text, budget_tokens=90, quoted=('120',))
    assert 'line-length = 120' in lines
    assert lines.index('[tool.ruff]') < lines.index('line-length = 120')
    code = '\n'.join(['def pairs():', '    return [', '[1, 2]', ']', *(f'x{n} = {n}' for n in range(40))])
    assert enclosing(ContentKind.CODE, code.split('\n'))[4] == ()
