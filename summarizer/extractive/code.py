"""Source code and numbered file reads (`cat -n`, `12: …`, `12→…`): the definitions stay.

A reader of a summarized file needs its outline (classes, functions with their
signatures) to know what is there, and the lines holding what the conversation quotes (pinned as
quoted facts) to edit them. A function the conversation names is one it is about to read or edit:
its body weighs as much as a definition (`defined_name` tells the tree which name a definition's
line defines). A numbered read keeps its numbers: kept lines are never rewritten.

What counts as a definition (`HIGH`), in the languages agents read most:

- a declaration by its keyword, after any modifiers (`export default`, `public abstract`, `sealed`,
  `data`, `pub(crate)`, `async`, an annotation on the same line): `class`, `interface`, `enum`,
  `struct`, `trait`, `impl`, `record`, `object`, `type X =`, `def`, `fn`, `fun`, `func` (Go's
  receivers too: `func (s *Server) Handle(`), `function`;
- a method without such a keyword: a name and its parameters after a modifier (`public Foo(int x)`,
  `public void Run()` with its block on the next line), after a return type where a block opens
  or the line ends in `);` (`public static List<String> parse(String s) throws IOException {`,
  `List<Order> find(String id);` in an interface), or alone where a block opens (a JS/TS class's or
  object literal's `async create(input: unknown) {`, `get total(): number {`,
  `constructor(private readonly x = 50) {}`);
- a function bound to a name: `export const handler = async (event) => {`, `onSave: function () {`.

Control flow is none (`if (`, `for (`, `while (`, `switch (`, `catch (`, `else if`, `return`, ...), nor
is a call (`foo(x);`, `withRetry(() => {`, Kotlin's `withContext(Dispatchers.IO) {`). A definition
like one above it but for its numbers (`formatLine3` after `formatLine0`), or the same again, weighs
half as much: generated or copied helpers do not crowd out the distinct definitions. The parameter
lines of a signature over several lines (`def __init__(` ... `):`) weigh half their definition: after
the outline, before the bodies. An import weighs `MID`: after the definitions (a file's imports can
take a whole budget's outline, and the marker over them says they are there), before plain lines; a route's registration
(`app.post('/orders', ...`, `router.get(`, `http.HandleFunc("/x"`, Django's `path(`) weighs as a
decorator (`@app.route(`, `@GetMapping(`): `MID`, what a reader looking for an endpoint searches for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .budget import current_deadline
from .lines import HIGH, LOW, MID, Joined

_AFTER_NUMBER = '|'.join(rf'(?<=[ \t]\d{{{digits}}})' for digits in range(1, 8))
"""Just past a line number of up to seven digits, a blank before it: looked back at, one width at a time."""
BLAME = (
    r'\^?[0-9a-f]{7,40}[ \t](?:[^\n(]*+\((?=[^\n)]*?\d{4}-\d\d-\d\d)[^\n)]*+|(?:[^\s(]++[ \t]++)?[ \t]*+\d++)'
    rf'(?:{_AFTER_NUMBER})\)'
)
"""`git blame`'s gutter, a numbered read's line number: the commit (`^` on the first), the file it came from (`-f`),
then the author and date in brackets that the line number closes (`-c`: tabs between; `-s`: the number alone, after
the file at most). A date or nothing but a file: a commit's subject (`c93b76a fix the parser (part 2)`) is no gutter.
Read in one pass whatever the line: each run is taken whole (`*+`), never given back to be tried again, and the
number before the bracket is looked back at (one look per width) rather than matched after a run that could end
anywhere (a lazy run before ` 12)` was tried again from each of its ends: minutes for a line of 100 KB)."""
_NUMBER = rf'^(?:[ \t]*\d+(?:\t|[:|→-] ?)|{BLAME})?'
"""The line number of a numbered read, read past."""
_CONTROL = (
    r'(?:if|else|elif|for|foreach|while|do|switch|case|when|catch|except|try|finally|with|using|lock|fixed'
    r'|synchronized|return|throw|raise|yield|await|new|delete|typeof|sizeof|instanceof|in|of|is|as|not|and|or'
    r'|assert|print|echo|puts|defer|go|goto|guard|until|unless|match|select|super|this)\b'
)
"""Words that start a statement, not a definition: `if (x) {`, `else if`, `return foo(x)`, `await save(x);`."""
_MODIFIER = (
    r'(?:export|default|declare|public|private|protected|internal|fileprivate|open|static|abstract|sealed|final'
    r'|data|value|inner|annotation|override|async|suspend|partial|readonly|virtual|unsafe|extern|native'
    r'|strictfp|operator|infix|tailrec|external|const|mutating|convenience|required|pub(?:\([\w:]+\))?'
    r'|@\w+(?:\([^)\n]*\))?) +'
)
"""A word before a definition saying how it may be used: any number of them, each followed by a space."""
_DECLARATION = (
    r'(?:(?:class|interface|enum|struct|union|trait|impl|mod|namespace|type|def|fn|fun|func|@interface)'
    r'(?:[ \t]+[\w$(<*]|<)|(?:object|record|module|extension|protocol)[ \t]+[A-Z\'"]|function\b)'
)
"""A definition by its keyword. Those also words of prose (`object`, `record`, `module`) want a name that
starts with a capital, as their names do, so a docstring's `    object to compare` is none."""
_TYPE = rf'(?!{_CONTROL})[\w$<][\w$.<>\[\],?*&]*+ +'
"""A word before a method's name: a modifier or its return type (`List<String>`, `char*`, `Task<int>`)."""
_NAME = rf'(?!{_CONTROL})[*#&]*+[\w$]++(?:<[^\n()]*>)?\?? *\('
"""A method's name, its type parameters and the bracket opening its parameters."""
_OPENS = r'[^\n]*(?:[\w\])?!]|[^=\s]>) *\{ *\}? *\r?$'
"""The rest of a line ending in the block it opens, not a callback's (`=> {`) nor an argument's (`({`, `, {`)."""
_BOUND = (
    r'(?:(?:const|let|var|val) +)?[\w$]++ *(?:(?:: *[^=\n]*)?=|:) *(?:async +)?'
    r'(?:function\b|lambda\b|\([^()\n]*\) *(?::[^=\n]*)?=>|[\w$]+ *=>)'
)
"""A function bound to a name, as a variable, a class field or an object's property: `const f = async (x) =>`."""
_ARGUMENT = r'(?![\d\'"`]|\.(?!\.\.)|[\w$]+\.[\w$])'
"""What a method's first parameter cannot start with, and a call's first argument often does: a number, a string, a
dotted name (`withContext(Dispatchers.IO) {`, `repeat(3) {`, `withAnimation(.easeIn) {`: Kotlin's and Swift's
trailing lambdas, calls with a block after them, not a JS method's `create(input) {` nor `constructor(...args) {`)."""
_DEFINITION = (
    rf'[ \t]*+(?!{_CONTROL})(?:(?:{_MODIFIER})*(?:{_DECLARATION}|{_BOUND})|(?:{_MODIFIER})+(?:{_TYPE}){{0,3}}{_NAME}'
    rf'|(?:{_TYPE}){{1,3}}{_NAME}(?:{_OPENS}|[^\n]*\) *; *\r?$)|(?![A-Z]){_NAME}{_ARGUMENT}{_OPENS})'
)
"""After a modifier, a name and its parameters are a definition whatever follows (`public void Run()`, its block on
the next line); after a return type, where a block opens or the line ends in `);` (an interface's method); alone,
where a block opens, unless it starts with a capital (a call taking a trailing closure: `VStack(spacing: 8) {`) or its
first argument reads as a call's (`_ARGUMENT`)."""
_ROUTE = (
    r'[ \t]*+(?:[\w$]+(?:\.[\w$]+)*(?:\.|::)(?i:get|post|put|patch|delete|del|head|options|all|use|route|any'
    r'|handle|handlefunc|match|group|mount|ws)\( *[\'"`]/|(?:re_)?path\( *r?[\'"])'
)
"""A route's registration: `app.post('/orders', ...`, `router.get("/x"`, `r.GET("/x"`, `Route::get('/x'`."""
_DEFINITION_LINE = re.compile(_NUMBER + _DEFINITION, re.MULTILINE)
DIFF_DEFINITION = re.compile(r'^[-+ ]' + _DEFINITION, re.MULTILINE)
"""A diff's line (its first column `-`, `+` or a space) that defines something: `+    def _cause(self, exc):`."""
_RULES = (
    (
        re.compile(
            _NUMBER + r'[ \t]*(?:from [\w.]+ import |import |#include |using \w|package |require\()', re.MULTILINE
        ),
        MID,
    ),
    (re.compile(_NUMBER + r'[ \t]*@\w', re.MULTILINE), MID),
    (re.compile(_NUMBER + _ROUTE, re.MULTILINE), MID),
    (re.compile(_NUMBER + r'[ \t]*(?:raise |throw )', re.MULTILINE), MID),
    (re.compile(_NUMBER + r'[ \t]*(?:return |yield )', re.MULTILINE), LOW),
)
"""Each pattern is anchored at a line start (see `shell._RULES`) and reads a line once: an indentation and a word are
read whole (`*+`, `++`: never given back to try the line again from inside them), the words before a name are each
followed by a space, so no two ways to split them compete, and each `[^\\n]*` is tried from one place."""
_ALIKE = HIGH / 2
"""A definition like one above it but for its numbers (`formatLine3` after `formatLine0`, `test_case_12`), or the
same again (`def __init__(self):` of another class): still above a body's line, below the distinct definitions it
would crowd out (each stays `HIGH`). In a read without numbers the tree then folds a line seen
before as a repeat, whose facts count and whose tokens do not; it still comes with a kept line it places."""
_DIGITS = re.compile(r'\d+')


def line_bonuses(lines: Joined) -> list[float]:
    """Per line, what keeping it is worth beyond the facts it holds (see the module's docstring)."""
    result = lines.bonuses(_RULES)
    current_deadline().check()
    shapes: set[str] = set()
    """The definitions seen, their digits left out (a numbered read's line number with the rest)."""
    for index in lines.matching(_DEFINITION_LINE):
        shape = _DIGITS.sub('', lines.lines[index])
        weight = _ALIKE if shape in shapes else HIGH
        result[index] = max(result[index], weight)
        shapes.add(shape)
        _parameters(lines.lines, index, weight / 2, result)
    return result


def _parameters(lines: Sequence[str], index: int, weight: float, result: list[float]) -> None:
    """Give the parameter lines of a signature over several lines (`def __init__(` ... `):`) `weight`.

    A definition whose line ends in its open bracket says nothing of what it takes: its parameters (`header_rows=None`)
    come on the lines under it, up to the line closing the bracket at its indentation, `_SIGNATURE_LINES` at most.
    """
    line = lines[index].rstrip()
    if not line.endswith('('):
        return
    body = _NUMBERED.sub('', line, count=1)
    depth = len(body) - len(body.lstrip(' \t'))
    for after in range(index + 1, min(index + 1 + _SIGNATURE_LINES, len(lines))):
        body = _NUMBERED.sub('', lines[after], count=1)
        stripped = body.lstrip(' \t')
        result[after] = max(result[after], weight)
        if len(body) - len(stripped) <= depth and stripped[:1] in ')]':
            return


_NUMBERED = re.compile(_NUMBER)
_SIGNATURE_LINES = 12
_NAMED = re.compile(r'(?<![\w$])([A-Za-z_$][\w$]*+)(?= *+(?:\(|<|:|=|\{|\r?$))')
"""A word a definition's line may define: followed by its parameters, type parameters, a colon, a `=` or a block.
Tried only at a word's start and never given back, so a line of one long word is read once, not once per letter."""
_NOT_NAMES = frozenset({
    'def', 'class', 'function', 'fn', 'fun', 'func', 'async', 'static', 'public', 'private', 'protected', 'export',
    'default', 'const', 'let', 'var', 'val', 'struct', 'enum', 'trait', 'interface', 'impl', 'type', 'override',
    'final', 'abstract', 'self', 'this', 'pub',
})  # fmt: skip
"""Keywords and modifiers a definition's line holds before its name, and the receivers it may take first."""


def line_text(line: str) -> str:
    """`line` without a numbered read's line number and its indentation: what the same line again shares."""
    return _NUMBERED.sub('', line, count=1).strip()


def defined_name(line: str) -> str | None:
    """The name a definition's line defines: `load` in `def load(self):`, `Order` in `class Order:`.

    None for a line that defines nothing (an import, a signature's parameter line: `    session: Session,`).
    """
    if not _DEFINITION_LINE.match(line):
        return None
    body = _NUMBERED.sub('', line[:_NAME_WITHIN], count=1)  # a generated line of a megabyte is read no further
    depth, read = 0, 0
    for match in _NAMED.finditer(body):
        start = match.start()
        depth = max(0, depth + body.count('<', read, start) - body.count('>', read, start))
        read = start
        if depth or match.group(1) in _NOT_NAMES:
            continue  # a type parameter (`T` in `impl<T: Clone>`), or a keyword
        if _RETURN_TYPE.match(body, match.end()) and not _AFTER_KEYWORD.search(body, max(0, start - 16), start):
            continue  # `List` in `public List<String> parse(`: a word after its type arguments is the name
        return match.group(1)
    return None


def accessor_of(line: str) -> str | None:
    """The property a decorator line gives another accessor of (`value` in `@value.setter`): no name defined anew.

    A property's setter and deleter are defined under its getter's name: a turn naming `value` means all of them.
    """
    match = _ACCESSOR.match(_NUMBERED.sub('', line, count=1))
    return match.group(1) if match else None


_ACCESSOR = re.compile(r'[ \t]*@(\w+)\.(?:setter|getter|deleter)[ \t]*\r?$')
"""A Python property's accessor decorator, alone on its line (a CRLF file's `\r` after it)."""
_NAME_WITHIN = 1000
"""Where a definition's line names what it defines: in its first characters, after its modifiers and return type."""
_RETURN_TYPE = re.compile(r'<(?:[^<>\n]|<[^<>\n]*+>)*+> *+[A-Za-z_$]')
"""Type arguments followed by a word: what they follow is a return type (`List<String> parse`), not a name."""
_AFTER_KEYWORD = re.compile(r'\b(?:class|interface|struct|enum|trait|type|record|union) +$')
"""A declaration's keyword: what follows is the name, whatever follows it (`class Store<T> extends Base {`)."""
