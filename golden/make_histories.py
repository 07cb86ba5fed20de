"""Generate the golden eval corpus: realistic pydantic-ai agent histories with oversized tool returns.

Run from the repo root:  python golden/make_histories.py
Every file under golden/histories/ is rewritten. Output is deterministic: fixed seeds, fixed
timestamps, no network. Each scenario declares the facts that later turns quote from earlier tool
returns; the script checks that each fact appears verbatim in an earlier tool return and in a later
turn (assistant text, tool-call args or user prompt), and writes them to golden/facts.json.
"""

from __future__ import annotations

import json
import random
import string
import sys
import uuid
import warnings
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    RetryInfo,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

warnings.filterwarnings('ignore', message='.*RetryPromptPart.*is deprecated')

HERE = Path(__file__).resolve().parent
OUT = HERE / 'histories'

SCENARIOS: list[tuple[str, Any]] = []


def scenario(name: str):
    def deco(fn):
        SCENARIOS.append((name, fn))
        return fn

    return deco


# --------------------------------------------------------------------------------------------------
# small deterministic helpers
# --------------------------------------------------------------------------------------------------


def sha256(rng: random.Random) -> str:
    return f'{rng.getrandbits(256):064x}'


def md5(rng: random.Random) -> str:
    return f'{rng.getrandbits(128):032x}'


def sha1(rng: random.Random) -> str:
    return f'{rng.getrandbits(160):040x}'


def uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def alnum(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return ''.join(rng.choice(alphabet) for _ in range(n))


def ip(rng: random.Random, private: bool = False) -> str:
    if private:
        return f'10.{rng.randint(0, 40)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}'
    first = rng.choice([23, 31, 45, 62, 77, 91, 104, 139, 146, 172, 185, 193, 198, 203, 212])
    return f'{first}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}'


def pick(rng: random.Random, seq, k: int | None = None):
    if k is None:
        return rng.choice(seq)
    return rng.sample(list(seq), k)


def fmt_ts(dt: datetime, micro: bool = True) -> str:
    if micro:
        return dt.strftime('%Y-%m-%dT%H:%M:%S.%fZ')
    return dt.strftime('%Y-%m-%dT%H:%M:%SZ')


def fill(rng: random.Random, template: str, pools: dict[str, list[str]]) -> str:
    """Fill {key} placeholders from pools (a fresh choice per occurrence)."""
    out = []
    i = 0
    while i < len(template):
        j = template.find('{', i)
        if j < 0:
            out.append(template[i:])
            break
        k = template.find('}', j)
        out.append(template[i:j])
        key = template[j + 1 : k]
        val = pools[key]
        out.append(str(val() if callable(val) else rng.choice(val)))
        i = k + 1
    return ''.join(out)


def paragraphs(
    rng: random.Random, templates: list[str], pools: dict, n: int, per: tuple[int, int] = (2, 5)
) -> list[str]:
    paras = []
    for _ in range(n):
        k = rng.randint(*per)
        paras.append(' '.join(fill(rng, t, pools) for t in rng.sample(templates, min(k, len(templates)))))
    return paras


def insert_at(items: list, pos: float, value) -> None:
    """Insert value at a relative position (0.0 first, 1.0 last) of a list."""
    idx = min(len(items), max(0, round(pos * len(items))))
    items.insert(idx, value)


# --------------------------------------------------------------------------------------------------
# current-format conversation builder (pydantic-ai objects)
# --------------------------------------------------------------------------------------------------

PROVIDERS = {
    'anthropic': ('claude-sonnet-4-5-20250929', 'anthropic', 'https://api.anthropic.com'),
    'openai': ('gpt-4.1-2025-04-14', 'openai', 'https://api.openai.com/v1/'),
    'gemini': ('gemini-2.5-flash', 'google-gla', None),
    'mistral': ('mistral-large-latest', 'mistral', 'https://api.mistral.ai'),
    'openrouter': ('google/gemini-2.5-pro', 'openrouter', 'https://openrouter.ai/api/v1'),
}


class Conv:
    def __init__(self, seed: int, start: str, provider: str = 'anthropic'):
        self.rng = random.Random(seed)
        self.t = datetime.fromisoformat(start).replace(tzinfo=UTC)
        self.msgs: list = []
        self.model_name, self.provider_name, self.provider_url = PROVIDERS[provider]
        self.provider = provider
        self.ncalls = 0
        self.tokens = 0
        self.facts: list[str] = []

    # time -------------------------------------------------------------------------------------
    def tick(self, lo: float = 0.05, hi: float = 2.5) -> datetime:
        self.t += timedelta(microseconds=int(self.rng.uniform(lo, hi) * 1_000_000))
        return self.t

    # ids --------------------------------------------------------------------------------------
    def call_id(self, name: str) -> str:
        self.ncalls += 1
        r = self.rng
        if self.provider == 'anthropic':
            return 'toolu_01' + alnum(r, 22)
        if self.provider == 'openai':
            return 'call_' + alnum(r, 24)
        if self.provider == 'mistral':
            return alnum(r, 9)
        return f'pyd_ai_{uuid.UUID(int=r.getrandbits(128)).hex}'

    def response_id(self) -> str | None:
        r = self.rng
        if self.provider == 'anthropic':
            return 'msg_01' + alnum(r, 22)
        if self.provider == 'openai':
            return 'chatcmpl-' + alnum(r, 29)
        if self.provider == 'openrouter':
            return f'gen-{int(self.t.timestamp())}-{alnum(r, 20)}'
        if self.provider == 'mistral':
            return md5(r)
        return alnum(r, 22, string.ascii_letters + string.digits + '-_')

    # parts ------------------------------------------------------------------------------------
    def sys(self, text: str) -> SystemPromptPart:
        return SystemPromptPart(content=text, timestamp=self.tick(0, 0.001))

    def user(self, content) -> UserPromptPart:
        return UserPromptPart(content=content, timestamp=self.tick(0, 0.001))

    def call(self, name: str, args: dict | str, call_id: str | None = None) -> ToolCallPart:
        return ToolCallPart(tool_name=name, args=args, tool_call_id=call_id or self.call_id(name))

    def ret(self, call: ToolCallPart | tuple[str, str], content, metadata=None) -> ToolReturnPart:
        name, cid = (call.tool_name, call.tool_call_id) if isinstance(call, ToolCallPart) else call
        self.tokens += (
            len(json.dumps(content, ensure_ascii=False)) // 4 if not isinstance(content, str) else len(content) // 4
        )
        return ToolReturnPart(
            tool_name=name, content=content, tool_call_id=cid, timestamp=self.tick(0.3, 6), metadata=metadata
        )

    def retry(self, call: ToolCallPart, content) -> RetryPromptPart:
        return RetryPromptPart(
            content=content, tool_name=call.tool_name, tool_call_id=call.tool_call_id, timestamp=self.tick(0.1, 2)
        )

    # messages ---------------------------------------------------------------------------------
    def request(self, *parts, instructions: str | None = None) -> ModelRequest:
        for p in parts:
            if isinstance(p, (UserPromptPart, SystemPromptPart)):
                self.tokens += len(p.content) // 4 if isinstance(p.content, str) else 50
        msg = ModelRequest(parts=list(parts), instructions=instructions, timestamp=self.tick(0, 0.01))
        self.msgs.append(msg)
        return msg

    def respond(self, *parts) -> ModelResponse:
        r = self.rng
        out_tok = sum(
            len(p.content) // 4 if isinstance(p, (TextPart, ThinkingPart)) else 40 for p in parts
        ) + r.randint(5, 40)
        in_tok = 900 + self.tokens + r.randint(0, 60)
        cache_read = 0
        if self.provider == 'anthropic' and len(self.msgs) > 2:
            cache_read = min(in_tok - 10, 900 + r.randint(0, 400))
        usage = RequestUsage(input_tokens=in_tok, output_tokens=out_tok, cache_read_tokens=cache_read)
        self.tokens += out_tok
        has_call = any(isinstance(p, ToolCallPart) for p in parts)
        finish = 'tool_call' if has_call else 'stop'
        msg = ModelResponse(
            parts=list(parts),
            usage=usage,
            model_name=self.model_name,
            timestamp=self.tick(1.0, 14.0),
            provider_name=self.provider_name,
            provider_url=self.provider_url,
            provider_response_id=self.response_id(),
            finish_reason=finish,
        )
        self.msgs.append(msg)
        return msg

    def text(self, s: str) -> TextPart:
        return TextPart(content=s)

    def think(self, s: str) -> ThinkingPart:
        sig = alnum(self.rng, 88, string.ascii_letters + string.digits + '+/') if self.provider == 'anthropic' else None
        return ThinkingPart(content=s, signature=sig, provider_name=self.provider_name if sig else None)

    def dump(self, indent: int | None = 2) -> bytes:
        return ModelMessagesTypeAdapter.dump_json(self.msgs, indent=indent)


# --------------------------------------------------------------------------------------------------
# older stored schema (seed 003): plain dicts, args as JSON string, tool_{i}_{name} ids, vendor_id
# --------------------------------------------------------------------------------------------------


class OldConv:
    def __init__(self, seed: int, start: str, model: str = 'google/gemini-2.5-pro'):
        self.rng = random.Random(seed)
        self.t = datetime.fromisoformat(start).replace(tzinfo=UTC)
        self.msgs: list[dict] = []
        self.model = model
        self.tokens = 3200
        self.facts: list[str] = []

    def tick(self, lo: float = 0.0, hi: float = 0.001) -> str:
        self.t += timedelta(microseconds=max(1, int(self.rng.uniform(lo, hi) * 1_000_000)))
        return fmt_ts(self.t)

    def sys(self, text: str) -> dict:
        return {'content': text, 'timestamp': self.tick(), 'dynamic_ref': None, 'part_kind': 'system-prompt'}

    def user(self, text: str) -> dict:
        self.tokens += len(text) // 4
        return {'content': text, 'timestamp': self.tick(), 'part_kind': 'user-prompt'}

    @staticmethod
    def call(i: int, name: str, args: dict) -> dict:
        return {
            'tool_name': name,
            'args': json.dumps(args, separators=(',', ':'), ensure_ascii=False),
            'tool_call_id': f'tool_{i}_{name}',
            'part_kind': 'tool-call',
        }

    def ret(self, call: dict, content) -> dict:
        self.tokens += len(json.dumps(content, ensure_ascii=False)) // 4
        return {
            'tool_name': call['tool_name'],
            'content': content,
            'tool_call_id': call['tool_call_id'],
            'timestamp': self.tick(2, 30),
            'part_kind': 'tool-return',
        }

    def retry(self, call: dict, content) -> dict:
        return {
            'content': content,
            'tool_name': call['tool_name'],
            'tool_call_id': call['tool_call_id'],
            'timestamp': self.tick(0.2, 2),
            'part_kind': 'retry-prompt',
        }

    @staticmethod
    def text(s: str) -> dict:
        return {'content': s, 'part_kind': 'text'}

    def request(self, *parts) -> dict:
        msg = {'parts': list(parts), 'instructions': None, 'kind': 'request'}
        self.msgs.append(msg)
        return msg

    def respond(self, *parts) -> dict:
        r = self.rng
        out_tok = sum(len(p['content']) // 4 if p['part_kind'] == 'text' else 35 for p in parts) + r.randint(10, 300)
        in_tok = self.tokens + r.randint(0, 80)
        self.tokens += out_tok
        self.t += timedelta(seconds=r.uniform(3, 20))
        secs = self.t.replace(microsecond=0)
        msg = {
            'parts': list(parts),
            'usage': {
                'requests': 1,
                'request_tokens': in_tok,
                'response_tokens': out_tok,
                'total_tokens': in_tok + out_tok,
                'details': {},
            },
            'model_name': self.model,
            'timestamp': fmt_ts(secs, micro=False),
            'kind': 'response',
            'vendor_details': None,
            'vendor_id': f'gen-{int(secs.timestamp())}-{alnum(r, 20)}',
        }
        self.msgs.append(msg)
        return msg

    def dump(self) -> bytes:
        return json.dumps(self.msgs, indent=2, ensure_ascii=False).encode('utf-8')


# --------------------------------------------------------------------------------------------------
# web search / research results
# --------------------------------------------------------------------------------------------------

WEB_NOISE = [
    'Advertisement',
    'Share this article: Twitter · LinkedIn · Email',
    'Sign up for our weekly briefing — no spam, unsubscribe anytime.',
    'Related: {related}',
    'Read more: {related}',
    'This article was updated with additional details after publication.',
    '(Story continues below)',
    'Photo: Reuters / file image',
    'We use cookies to improve your experience. By continuing you agree to our cookie policy.',
]


def make_article(rng, bank, title, url, date, target_len, inserts=()) -> str:
    pools = bank['pools']
    paras: list[str] = []
    while sum(len(p) for p in paras) < target_len:
        paras += paragraphs(rng, bank['sentences'], pools, 1, per=(2, 5))
    for pos, sentence in inserts:
        pi = min(len(paras) - 1, max(0, round(pos * (len(paras) - 1))))
        sents = paras[pi].split('. ')
        si = rng.randint(0, len(sents))
        sents.insert(si, sentence.rstrip('.'))
        paras[pi] = '. '.join(sents)
        if not paras[pi].endswith(('.', '!', '?', ')', '`')):
            paras[pi] += '.'
    body: list[str] = []
    for p in paras:
        body.append(p)
        if rng.random() < 0.22:
            body.append(fill(rng, rng.choice(WEB_NOISE), {'related': bank['titles']}))
    byline = fill(rng, '{author}', pools) if 'author' in pools else 'Staff'
    return f'Title: {title}\nURL: {url}\nPublished: {date}\nAuthor: {byline}\n\n' + '\n\n'.join(body)


def web_results(
    rng, bank, n, inserts: dict[int, list[tuple[float, str]]], dup: int = 1, start='2025-01-01', end_days=200
) -> list[str]:
    """n articles (1-4 KB); inserts maps item index (negative = from the end) to (relpos, sentence)."""
    base = datetime.fromisoformat(start)
    titles = rng.sample(bank['titles'], min(n, len(bank['titles'])))
    while len(titles) < n:
        titles.append(rng.choice(bank['titles']) + ' (updated)')
    items = []
    norm = {(k % n): v for k, v in inserts.items()}
    for i in range(n):
        domain = rng.choice(bank['domains'])
        d = base + timedelta(days=rng.randint(0, end_days))
        slug = ''.join(c if c.isalnum() else '-' for c in titles[i].lower())[:60].strip('-')
        url = f'https://{domain}/{d:%Y/%m}/{slug}'
        items.append(make_article(rng, bank, titles[i], url, f'{d:%Y-%m-%d}', rng.randint(900, 3600), norm.get(i, ())))
    for _ in range(dup):  # syndicated duplicates, as real search APIs return them
        k = rng.randrange(len(items))
        src = items[k]
        if rng.random() < 0.5:
            other = rng.choice(bank['domains'])
            head, _, rest = src.partition('\nPublished:')
            t, _, _ = head.partition('\nURL: ')
            src = f'{t}\nURL: https://{other}/syndication/{rng.randint(100000, 999999)}\nPublished:{rest}'
        items.insert(rng.randint(k + 1, len(items)), src)
    return items


THREAT_BANK = {
    'titles': [
        'APT groups step up espionage against European ministries',
        'Inside the latest wave of energy-sector intrusions',
        'Phishing lures impersonating NATO summits return',
        'State-backed hackers abuse edge devices for initial access',
        'Threat landscape report: first half of 2025',
        'How ClickFix social engineering became a favourite of espionage crews',
        'Wiper attacks on critical infrastructure: what changed this year',
        'Russian-nexus actors pivot to cloud identity abuse',
        'CERT advisory: ongoing campaign against diplomatic entities',
        'Ransomware and espionage overlap in new intrusion set',
        'Edge VPN exploitation timeline and defender guidance',
        'Analysts track resurgence of credential-phishing infrastructure',
        'Quarterly APT trends: targeting, tooling and tradecraft',
        'Energy grid operators warned of persistent reconnaissance',
        'From spear-phishing to domain admin in 48 hours: a case study',
        'Threat actors exploit Outlook flaw in targeted campaigns',
    ],
    'domains': [
        'therecord.media',
        'bleepingcomputer.com',
        'securityweek.com',
        'thehackernews.com',
        'cert.europa.eu',
        'welivesecurity.com',
        'cloud.google.com/blog/topics/threat-intelligence',
        'darkreading.com',
        'cyberscoop.com',
    ],
    'sentences': [
        'Researchers at {vendor} attributed the intrusion set to {actor}, a group also tracked as {alias}.',
        'The campaign primarily targeted {sector} organizations in {country}, with initial access obtained through {technique}.',
        '{actor} has historically relied on {malware} for persistence, but recent samples show a shift toward living-off-the-land binaries.',
        'According to the report, activity peaked between {month} and {month}, before the operators went quiet for several weeks.',
        'Telemetry from {vendor} shows a {pct}% increase in activity compared with the same period last year.',
        'Analysts caution that attribution remains tentative because of infrastructure overlaps with {actor}.',
        'Indicators of compromise, including domains and file hashes, were shared with national CERTs in {country}.',
        'Victims received spear-phishing emails impersonating {lure}.',
        'Once inside, operators used {tool} to move laterally and harvest credentials from LSASS memory.',
        'Command-and-control traffic was tunnelled over HTTPS to infrastructure hosted on {hosting}.',
        'The malware checks the system locale and exits if it detects a keyboard layout associated with {country}.',
        '{vendor} published YARA rules and Sigma detections alongside the advisory.',
        'Defenders are advised to patch exposed edge devices, enforce phishing-resistant MFA, and monitor for anomalous use of {tool}.',
        'Government officials declined to comment on the attribution but confirmed that incident response was ongoing.',
        'The operators demonstrated disciplined operational security, rotating infrastructure every {small} days.',
        'A second-stage payload was loaded reflectively into memory, leaving few artifacts on disk.',
        'In several cases the attackers maintained access for more than {small} months before detection.',
        'The lure documents were written in fluent {language} and referenced real upcoming events.',
        'Some of the infrastructure had previously been used in campaigns attributed to {actor}.',
        'Security teams in the {sector} sector were urged to review VPN logs going back to {month}.',
        'The exploit chain did not require user interaction beyond opening a preview of the message.',
        'The {vendor} team noted that the tooling is under active development, with new builds appearing weekly.',
    ],
    'pools': {
        'vendor': [
            'Mandiant',
            'ESET',
            'Microsoft Threat Intelligence',
            'Recorded Future',
            'CERT-UA',
            'Check Point Research',
            'Proofpoint',
            'Cisco Talos',
            'Sekoia',
            'WithSecure',
            'SentinelLabs',
        ],
        'actor': [
            'APT29',
            'Turla',
            'Gamaredon',
            'UNC5812',
            'Star Blizzard',
            'Ghostwriter',
            'APT41',
            'Kimsuky',
            'Mustang Panda',
        ],
        'alias': [
            'Midnight Blizzard',
            'Secret Blizzard',
            'UAC-0010',
            'Callisto',
            'UNC1151',
            'Earth Preta',
            'Aqua Blizzard',
        ],
        'sector': [
            'government',
            'energy',
            'defense',
            'telecommunications',
            'logistics',
            'think-tank',
            'diplomatic',
            'healthcare',
        ],
        'country': [
            'Poland',
            'Ukraine',
            'Germany',
            'the Baltic states',
            'Romania',
            'Czechia',
            'the Netherlands',
            'France',
            'Moldova',
        ],
        'technique': [
            'spear-phishing attachments',
            'password spraying against Microsoft 365',
            'exploitation of Ivanti Connect Secure',
            'malicious OAuth applications',
            'compromised VPN credentials',
            'ClickFix fake CAPTCHA pages',
            'watering-hole websites',
            'trojanized installers',
        ],
        'malware': [
            'SNAKEKEY',
            'PteroLNK',
            'GooseEgg',
            'LOSTKEYS',
            'CHERRYSPY',
            'Cobalt Strike',
            'Sliver',
            'PlugX',
            'WINELOADER',
        ],
        'month': ['January', 'February', 'March', 'April', 'May', 'June', 'July'],
        'pct': ['12', '18', '23', '31', '37', '44', '52', '61'],
        'lure': [
            'a ministry of foreign affairs',
            'a European Commission working group',
            'a NATO exercise invitation',
            'a wine-tasting event at an embassy',
            'a software update notice',
            'a HR benefits portal',
            'a procurement tender',
        ],
        'tool': ['Impacket', 'PsExec', 'Rclone', 'AnyDesk', 'Mimikatz', 'SharpHound', 'WMI', 'Chisel'],
        'hosting': [
            'Cloudflare Workers',
            'compromised WordPress sites',
            'bulletproof hosting in Moldova',
            'Microsoft Azure',
            'residential proxy networks',
            'Telegram bots',
            'Dropbox',
            'OneDrive',
        ],
        'small': ['3', '4', '6', '9', '11', '14'],
        'language': ['Polish', 'Ukrainian', 'English', 'German', 'Romanian', 'French'],
        'author': [
            'Bill Toulas',
            'Alexander Martin',
            'Ravie Lakshmanan',
            'Eduard Kovacs',
            'Jonathan Greig',
            'Tim Starks',
        ],
    },
}

EV_BANK = {
    'titles': [
        'European cell makers struggle as Chinese LFP imports surge',
        'Sodium-ion batteries move from pilot lines to production',
        'Lithium prices: is the bottom finally in?',
        "Gigafactory tracker: where Europe's battery plants stand",
        'Automakers sign long-term offtake deals for cathode materials',
        'Battery recycling capacity set to triple by 2030',
        'Inside the race for manganese-rich cathodes',
        'EU Battery Regulation: what the passport requirement means for suppliers',
        'Solid-state battery timelines slip again',
        'Why LFP won the mass-market EV',
        'Q2 earnings: battery suppliers report thinner margins',
        'Nickel glut weighs on Indonesian producers',
        'Startups bet on dry-electrode manufacturing',
        'Grid storage demand cushions EV slowdown for cell makers',
    ],
    'domains': [
        'reuters.com',
        'electrive.com',
        'ft.com',
        'bloomberg.com',
        'batteriesnews.com',
        'benchmarkminerals.com',
        'handelsblatt.com',
        'lesechos.fr',
        'spglobal.com',
        'insideevs.com',
    ],
    'sentences': [
        '{company} said it expects to reach {gwh} GWh of annual cell capacity at its {plant} site by {year}.',
        'LFP chemistry accounted for {pct}% of new EV battery installations in {region} during {quarter}.',
        'Analysts at {bank} cut their price target on {company}, citing weaker-than-expected demand from European automakers.',
        'Lithium carbonate spot prices in China slipped to {price} yuan per tonne, extending a slide that began in late 2023.',
        '{person}, head of procurement at {oem}, said the company would prioritize suppliers able to localize cathode production.',
        'The plant in {plant} will initially produce cells for {oem}, with deliveries scheduled to start in {year}.',
        'Average pack prices fell to ${packprice} per kilowatt-hour, according to the latest industry survey.',
        'Executives warned that permitting delays could push commissioning back by twelve to eighteen months.',
        'The European Commission has proposed local-content rules that would favour cells assembled inside the bloc.',
        '{company} shares fell {pct}% in Frankfurt trading after the announcement.',
        'Sodium-ion cells remain roughly {pct}% cheaper to produce but lag on energy density.',
        'The company reported an EBITDA margin of {pct}% for the quarter, down from a year earlier.',
        'Industry groups estimate that Europe will need more than 1,000 GWh of capacity by 2030 to meet EV targets.',
        'Recycled nickel and cobalt could cover {pct}% of European demand by the end of the decade.',
        '{person} told reporters that the joint venture was "on track, but not on the original timeline".',
        'Chinese suppliers including {cn} continue to expand in Hungary and Spain.',
        'Several projects announced in 2022 have since been paused or cancelled outright.',
        'The deal covers supply through {year} and includes price-adjustment clauses tied to lithium indices.',
    ],
    'pools': {
        'company': [
            'Northvolt',
            'ACC',
            'Verkor',
            'PowerCo',
            'InoBat',
            'Freyr',
            'Morrow Batteries',
            'Britishvolt successor West Midlands Gigafactory',
        ],
        'gwh': ['16', '20', '32', '40', '48', '60'],
        'plant': [
            'Skellefteå',
            'Douvrin',
            'Dunkirk',
            'Salzgitter',
            'Valencia',
            'Arendal',
            'Voderady',
            'Kaiserslautern',
        ],
        'year': ['2026', '2027', '2028', '2029', '2030'],
        'pct': ['4', '7', '9', '11', '14', '19', '22', '28', '35'],
        'region': ['Europe', 'China', 'North America', 'the EU', 'Germany'],
        'quarter': ['Q1 2025', 'Q2 2025', 'the first half of 2025', 'Q4 2024'],
        'bank': ['Goldman Sachs', 'UBS', 'BNP Paribas Exane', 'Bernstein', 'Jefferies', 'Morgan Stanley'],
        'price': ['72,500', '74,800', '69,900', '76,200'],
        'person': [
            'Maja Ekström',
            'Étienne Marchal',
            'Jürgen Pfeiffer',
            'Zuzana Nováková',
            'Peter Carlsson',
            'Yann Vincent',
        ],
        'oem': ['Volkswagen', 'Stellantis', 'Renault', 'BMW', 'Volvo Cars', 'Mercedes-Benz', 'Scania'],
        'packprice': ['115', '111', '108', '104'],
        'cn': ['CATL', 'Gotion', 'EVE Energy', 'Envision AESC', 'SVOLT', 'BYD'],
        'author': ['Marie Mawad', 'Nick Carey', 'Christoph Steitz', 'Camille Grandjean', 'Jürgen Pfeiffer'],
    },
}

SQLA_BANK = {
    'titles': [
        'Migrating to SQLAlchemy 2.0 — SQLAlchemy 2.0 Documentation',
        "What's New in SQLAlchemy 2.0?",
        'How do I replace session.query() with select() in SQLAlchemy 2.0? - Stack Overflow',
        'Lessons learned upgrading a 200k-line codebase to SQLAlchemy 2',
        'AsyncSession pitfalls: lazy loading and MissingGreenlet',
        'Typed ORM models with Mapped[] and mapped_column()',
        'SQLAlchemy 1.4 to 2.0: a practical checklist',
        'Alembic autogenerate after switching to DeclarativeBase',
        'Why does my relationship raise DetachedInstanceError after commit?',
        'Flask-SQLAlchemy 3.1 and SQLAlchemy 2.0 compatibility notes',
        'Performance: bulk inserts with insertmanyvalues',
        'RemovedIn20Warning explained: turning on SQLALCHEMY_WARN_20',
    ],
    'domains': [
        'docs.sqlalchemy.org/en/20',
        'stackoverflow.com/questions',
        'blog.miguelgrinberg.com',
        'medium.com/@pyeng',
        'github.com/sqlalchemy/sqlalchemy/discussions',
        'testdriven.io/blog',
        'realpython.com',
    ],
    'sentences': [
        'The `Query` object is considered legacy in 2.0; new code should construct statements with `select()` and execute them through `Session.execute()`.',
        'Setting `SQLALCHEMY_WARN_20=1` while still on 1.4 surfaces every deprecated pattern as a `RemovedIn20Warning`.',
        'Autocommit mode has been removed, so every unit of work now needs an explicit `session.commit()` or a `with session.begin():` block.',
        'The new `DeclarativeBase` class replaces `declarative_base()`, and columns are declared with `Mapped[int] = mapped_column(primary_key=True)`.',
        'If you see `MissingGreenlet`, you are almost certainly triggering a lazy load inside an async context; use `selectinload()` instead.',
        '`Session.get(User, 5)` replaces the old `session.query(User).get(5)` call.',
        'Results from `session.execute(select(User))` are `Row` objects, so call `.scalars()` when you want ORM instances back.',
        'We ran the test suite with warnings turned into errors (`-W error::sqlalchemy.exc.RemovedIn20Warning`) and fixed {count} call sites over two sprints.',
        'String-based `text()` fragments are no longer coerced automatically, which broke a surprising number of raw `filter("id > 5")` calls.',
        'Engine-level `execute()` is gone; acquire a connection with `with engine.connect() as conn:` and commit explicitly.',
        'The `future=True` flag on `create_engine()` in 1.4 opts in to most 2.0 behaviour early, which makes the final bump much smaller.',
        'Alembic {alembic} works with the new typing style, but you may need to regenerate the `env.py` template.',
        'In our benchmarks the `insertmanyvalues` feature made bulk inserts on PostgreSQL about {pct}% faster.',
        'Remember that `expire_on_commit=True` is still the default, which is what causes `DetachedInstanceError` after commit in background jobs.',
        'Flask-SQLAlchemy {fsa} supports 2.0 style queries via `db.session.execute(db.select(User))`.',
        'Answered by {user} ({rep} reputation): the short version is to replace `.all()` on a query with `.scalars().all()` on a result.',
        'Our CI matrix pinned `SQLAlchemy>=2.0.{patch},<2.1` to avoid surprises from minor releases.',
        'Type checkers such as mypy understand `Mapped[]` annotations natively, so the old sqlalchemy2-stubs plugin should be uninstalled.',
    ],
    'pools': {
        'count': ['143', '212', '388', '57', '96'],
        'alembic': ['1.13', '1.14', '1.15'],
        'pct': ['30', '45', '60', '75'],
        'fsa': ['3.1.1', '3.1.0'],
        'user': ['zzzeek', 'snakecharmerb', 'Gord Thompson', 'CaselIT', 'davidism'],
        'rep': ['8,412', '52,339', '118,004', '27,760'],
        'patch': ['25', '30', '32', '36'],
        'author': ['Mike Bayer', 'Miguel Grinberg', 'Priya Raman', 'Tomasz Kowalczyk'],
    },
}


# ==================================================================================================
# scenarios
# ==================================================================================================

CTI_SYSTEM = (
    'You are a cyber threat intelligence analyst assistant working for a European CERT. Use the tools to '
    'gather open-source reporting and indicator data. Always cite concrete indicators (domains, IP addresses, '
    'hashes, CVE identifiers) exactly as they appear in the sources, and flag uncertain attributions.'
)


@scenario('01_web_search_apt')
def s01():
    c = OldConv(101, '2025-06-26T18:10:48.672781')
    r = c.rng
    h = sha256(r)
    c.facts = [
        'APT28',
        'HATVIBE',
        '185.225.17.43',
        'check-ms-update.top',
        'CVE-2024-21413',
        '47 organizations',
        'Kapeka',
        h,
    ]
    c.request(
        c.sys(CTI_SYSTEM),
        c.user(
            'Which threat actor groups have been most active against European government and energy targets since '
            'January 2025? I need names, their main malware, and any notable IOCs we can hunt for.'
        ),
    )
    a0 = c.call(
        0,
        'deep_research',
        {
            'date_filter': True,
            'start_date': '2025-01-01',
            'prompt': 'most active state-sponsored threat actor groups targeting European governments 2025',
        },
    )
    a1 = c.call(
        1,
        'deep_research',
        {
            'date_filter': True,
            'start_date': '2025-01-01',
            'prompt': 'threat actors attacking European energy sector 2025 malware indicators',
        },
    )
    c.respond(
        c.text("I'll research this from two angles: government-focused espionage and energy-sector intrusions."), a0, a1
    )
    res0 = web_results(
        r,
        THREAT_BANK,
        12,
        {
            0: [
                (
                    0.0,
                    'APT28, the GRU-linked group also known as Fancy Bear, remained the most prolific actor against EU government networks in the first half of 2025',
                )
            ],
            3: [
                (
                    0.5,
                    'In total, 47 organizations across nine member states confirmed compromises linked to the campaign',
                )
            ],
            6: [
                (
                    0.6,
                    'The loader, which CERT-UA tracks as HATVIBE, is delivered as an HTA file and beacons to 185.225.17.43 over port 443 every 30 minutes',
                )
            ],
            -2: [
                (
                    0.8,
                    'Phishing pages were hosted on check-ms-update.top and several look-alike domains registered through the same reseller',
                )
            ],
            -1: [
                (
                    0.9,
                    'Most of the initial-access emails exploited CVE-2024-21413, the Outlook MonikerLink flaw, to leak NTLM hashes',
                )
            ],
        },
        dup=2,
    )
    res1 = web_results(
        r,
        THREAT_BANK,
        9,
        {
            2: [
                (
                    0.3,
                    'Sandworm, the unit responsible for the 2015 and 2016 Ukrainian blackouts, was again observed probing SCADA gateways of regional distribution operators',
                )
            ],
            -1: [
                (
                    0.7,
                    'The backdoor, named Kapeka ("little drop" in Russian), was found on the network of a Baltic transmission operator and shares code with GreyEnergy',
                )
            ],
        },
        dup=1,
    )
    c.request(c.ret(a0, res0), c.ret(a1, res1))
    c.respond(
        c.text(
            '## Most active groups against European targets (Jan 2025 – present)\n\n'
            '1. **APT28 (Fancy Bear)** – the most prolific actor against EU government networks. Its HTA-based loader '
            '**HATVIBE** beacons to `185.225.17.43`; phishing infrastructure included `check-ms-update.top`. Initial '
            'access frequently abused **CVE-2024-21413** (Outlook MonikerLink). Reporting counts 47 organizations '
            'confirmed compromised across nine member states.\n'
            '2. **Sandworm** – probing SCADA gateways of regional distribution operators in the energy sector.\n'
            '3. **Kapeka** backdoor activity at a Baltic transmission operator, with code overlaps to GreyEnergy.\n\n'
            'Attribution for the energy intrusions is less certain than for the government campaigns.'
        )
    )
    c.request(
        c.user(
            'Good. Can you find the SHA256 of the HATVIBE loader and confirm the C2 IP so I can add both to the blocklist?'
        )
    )
    b0 = c.call(
        0,
        'deep_research',
        {
            'date_filter': True,
            'start_date': '2025-01-01',
            'prompt': 'HATVIBE loader SHA256 hash 185.225.17.43 indicators of compromise',
        },
    )
    c.respond(b0)
    res2 = web_results(
        r,
        THREAT_BANK,
        8,
        {
            4: [
                (
                    0.5,
                    f'The HATVIBE sample analysed by the team (SHA256 {h}) still points to 185.225.17.43, although a fallback domain was added in May',
                )
            ],
        },
        dup=1,
    )
    c.request(c.ret(b0, res2))
    c.respond(
        c.text(
            f'Confirmed. Add these to the blocklist:\n\n- SHA256 `{h}` (HATVIBE loader)\n- C2 IP `185.225.17.43` (HTTPS, port 443)\n'
            '- Phishing domain `check-ms-update.top`\n\nNote that one report mentions a fallback domain added in May that '
            'was not published, so IP blocking alone may not be sufficient.'
        )
    )
    return c


AV_VENDORS = [
    'Kaspersky',
    'ESET-NOD32',
    'BitDefender',
    'Sophos',
    'Fortinet',
    'CrowdStrike',
    'SentinelOne',
    'Microsoft',
    'Avast',
    'AVG',
    'McAfee',
    'TrendMicro',
    'Symantec',
    'Malwarebytes',
    'Emsisoft',
    'G-Data',
    'DrWeb',
    'Ikarus',
    'Cynet',
    'Elastic',
    'Google',
    'Lionic',
    'Webroot',
    'Zillya',
    'VIPRE',
    'ClamAV',
    'Acronis',
    'Arcabit',
    'Alibaba',
    'Baidu',
    'Tencent',
    'Rising',
    'Jiangmin',
    'K7AntiVirus',
    'Panda',
    'Xcitium',
    'Yandex',
    'Zoner',
]
TLDS = ['com', 'net', 'org', 'info', 'top', 'xyz', 'online', 'site', 'live', 'cloud', 'eu', 'io']
WORDS = [
    'secure',
    'login',
    'portal',
    'update',
    'cdn',
    'mail',
    'office',
    'account',
    'verify',
    'docs',
    'share',
    'auth',
    'sync',
    'gov',
    'cloud',
    'drive',
    'service',
    'support',
    'static',
    'api',
    'files',
    'meet',
    'vpn',
    'check',
    'web',
    'app',
]


def fake_domain(rng) -> str:
    return f'{rng.choice(WORDS)}-{rng.choice(WORDS)}{rng.choice(["", str(rng.randint(1, 99))])}.{rng.choice(TLDS)}'


def rdate(rng, start='2024-06-01', days=420, fmt='%Y-%m-%dT%H:%M:%SZ') -> str:
    d = datetime.fromisoformat(start) + timedelta(seconds=rng.randint(0, days * 86400))
    return d.strftime(fmt)


def indicator_details(rng, value: str, kind: str, plant: dict[str, Any] | None = None) -> dict:
    """A VirusTotal/OTX-style indicator report (~10-30 KB). plant: path -> value overrides for facts."""
    plant = plant or {}
    n_dns = rng.randint(35, 70)
    n_files = rng.randint(15, 35)
    malicious = rng.randint(8, 31)
    report: dict[str, Any] = {
        'indicator': value,
        'type': kind,
        'reputation': -rng.randint(10, 90),
        'first_seen': rdate(rng, '2024-01-01', 200),
        'last_seen': rdate(rng, '2025-05-01', 60),
        'last_analysis_stats': {
            'malicious': malicious,
            'suspicious': rng.randint(0, 4),
            'undetected': 60 - malicious,
            'harmless': rng.randint(0, 6),
            'timeout': 0,
        },
        'asn': {
            'asn': rng.randint(9000, 212000),
            'as_owner': rng.choice(
                [
                    'Stark Industries Solutions Ltd',
                    'AEZA GROUP LLC',
                    'Hetzner Online GmbH',
                    'DigitalOcean, LLC',
                    'OVH SAS',
                    'M247 Europe SRL',
                    'Limenet',
                ]
            ),
            'network': f'{value.rsplit(".", 1)[0]}.0/24' if kind == 'IPv4' else None,
        },
        'geo': {
            'country': rng.choice(['NL', 'DE', 'MD', 'RO', 'FR', 'SE', 'LV']),
            'city': None,
            'latitude': round(rng.uniform(44, 58), 4),
            'longitude': round(rng.uniform(4, 28), 4),
        },
        'whois': {
            'registrar': rng.choice(['NameSilo, LLC', 'Namecheap, Inc.', 'PDR Ltd.', 'REG.RU LLC', None]),
            'created': rdate(rng, '2024-01-01', 365, '%Y-%m-%d'),
            'privacy': True,
            'raw': 'Registrant Organization: Privacy service provided by Withheld for Privacy ehf\nRegistrant Country: IS\n'
            'Name Server: ns1.dnsowl.com\nName Server: ns2.dnsowl.com\nDNSSEC: unsigned',
        },
        'tags': rng.sample(
            [
                'phishing',
                'c2',
                'apt',
                'self-signed',
                'cobalt-strike',
                'malware-distribution',
                'tor-exit',
                'vpn',
                'scanner',
                'credential-harvesting',
                'ransomware',
            ],
            4,
        ),
        'passive_dns': [
            {
                'hostname': fake_domain(rng),
                'first_seen': rdate(rng, '2024-03-01', 300, '%Y-%m-%d'),
                'last_seen': rdate(rng, '2025-01-01', 150, '%Y-%m-%d'),
                'record_type': rng.choice(['A', 'A', 'AAAA', 'CNAME']),
            }
            for _ in range(n_dns)
        ],
        'communicating_files': [
            {
                'sha256': sha256(rng),
                'md5': md5(rng),
                'name': rng.choice(['invoice_', 'update_', 'setup_', 'doc_', 'scan_', 'report_'])
                + alnum(rng, 6).lower()
                + rng.choice(['.exe', '.dll', '.hta', '.lnk', '.js', '.zip', '.iso']),
                'detections': f'{rng.randint(0, 58)}/72',
                'first_submission': rdate(rng, '2024-09-01', 250),
                'type_tag': rng.choice(['peexe', 'pedll', 'html', 'lnk', 'javascript', 'zip', 'iso']),
            }
            for _ in range(n_files)
        ],
        'ssl_certificates': [
            {
                'serial': alnum(rng, 32, '0123456789abcdef'),
                'subject_cn': fake_domain(rng),
                'issuer': rng.choice(
                    ["Let's Encrypt R11", "Let's Encrypt E6", 'self-signed', 'ZeroSSL RSA Domain Secure Site CA']
                ),
                'not_before': rdate(rng, '2024-10-01', 200, '%Y-%m-%d'),
                'sha1': sha1(rng),
            }
            for _ in range(rng.randint(3, 8))
        ],
        'threat_actors': [],
        'vendors': {
            v: {
                'category': 'malicious' if i < malicious else 'undetected',
                'result': rng.choice(['malware', 'phishing', 'malicious', 'C2']) if i < malicious else 'clean',
                'method': 'blacklist',
                'engine_update': rdate(rng, '2025-06-01', 20, '%Y%m%d'),
            }
            for i, v in enumerate(rng.sample(AV_VENDORS, len(AV_VENDORS)))
        },
        'comments': [
            {
                'author': rng.choice(['drb_ra', 'JAMESWT_WT', 'Gi7w0rm', 'malwrhunterteam', 'RexorVc0']),
                'date': rdate(rng, '2025-02-01', 140, '%Y-%m-%d'),
                'text': rng.choice(
                    [
                        '#c2 observed in recent campaign',
                        'Part of the same cluster as the phishing kit shared yesterday',
                        'Serves a fake CAPTCHA page when visited with a Windows UA',
                        'Still alive as of today, redirects to a login lure',
                        'Cobalt Strike team server, default watermark removed',
                    ]
                ),
            }
            for _ in range(rng.randint(2, 7))
        ],
    }
    for path, val in plant.items():
        keys = path.split('.')
        tgt = report
        for k in keys[:-1]:
            tgt = tgt[int(k)] if isinstance(tgt, list) else tgt[k]
        last = keys[-1]
        if isinstance(tgt, list):
            tgt[int(last)] = val
        else:
            tgt[last] = val
    return report


@scenario('02_threat_intel_indicators_old')
def s02():
    c = OldConv(202, '2025-07-29T18:37:10.118204', model='openai/gpt-4.1')
    r = c.rng
    c2 = '91.215.85.142'
    h_last = sha256(r)
    dom_mid = 'owa-secure-mail.online'
    c.facts = ['secure-login-portal.info', c2, 'Stark Industries Solutions Ltd', dom_mid, h_last, '44477', 'UNC5812']
    c.request(
        c.sys(CTI_SYSTEM),
        c.user(
            'We got a phishing report pointing to secure-login-portal.info. Pivot on the infrastructure and tell me what else '
            'is related, which hosting provider is used, and whether it is tied to a known actor.'
        ),
    )
    e0 = c.call(
        0,
        'explore',
        {'indicator': 'secure-login-portal.info', 'depth': 2, 'relations': ['resolutions', 'siblings', 'files']},
    )
    d1 = c.call(1, 'get_indicator_details', {'indicator': 'secure-login-portal.info', 'type': 'domain'})
    c.respond(
        c.text(
            'Starting with a relationship graph around the reported domain plus a full report on the domain itself.'
        ),
        e0,
        d1,
    )
    nodes = []
    for i in range(70):
        kind = r.choice(['IPv4', 'domain', 'domain', 'file', 'url'])
        val = (
            ip(r)
            if kind == 'IPv4'
            else sha256(r)
            if kind == 'file'
            else fake_domain(r)
            if kind == 'domain'
            else f'https://{fake_domain(r)}/{alnum(r, 8)}/login.php'
        )
        nodes.append(
            {
                'id': i + 1,
                'type': kind,
                'value': val,
                'relation': r.choice(['resolves_to', 'sibling', 'downloaded_from', 'contacted', 'redirects_to']),
                'hops': r.randint(1, 2),
                'score': r.randint(0, 100),
                'first_seen': rdate(r, '2025-01-01', 180, '%Y-%m-%d'),
            }
        )
    nodes[3] = {
        'id': 4,
        'type': 'IPv4',
        'value': c2,
        'relation': 'resolves_to',
        'hops': 1,
        'score': 97,
        'first_seen': '2025-04-17',
    }
    nodes[38] = {
        'id': 39,
        'type': 'domain',
        'value': dom_mid,
        'relation': 'sibling',
        'hops': 2,
        'score': 88,
        'first_seen': '2025-05-02',
    }
    graph = {
        'root': 'secure-login-portal.info',
        'depth': 2,
        'node_count': len(nodes),
        'edges_truncated': False,
        'nodes': nodes,
        'clusters': [
            {'label': 'phishing-kit-owa', 'members': [4, 39] + r.sample(range(5, 70), 9)},
            {'label': 'parked', 'members': r.sample(range(5, 70), 14)},
        ],
    }
    dom_report = indicator_details(r, 'secure-login-portal.info', 'domain')
    c.request(c.ret(e0, graph), c.ret(d1, dom_report))
    g0 = c.call(0, 'get_indicator_details', {'indicator': c2, 'type': 'IPv4'})
    g1 = c.call(1, 'get_indicator_details', {'indicator': dom_mid, 'type': 'domain'})
    g2 = c.call(2, 'get_indicator_details', {'indicator': 'hxxps://secure-login-portal[.]info/owa/auth', 'type': 'url'})
    c.respond(
        c.text(
            f'The domain resolves to {c2} and has a sibling {dom_mid} in the same phishing-kit cluster. Pulling details on both.'
        ),
        g0,
        g1,
        g2,
    )
    ip_report = indicator_details(r, c2, 'IPv4', {'asn.asn': 44477, 'asn.as_owner': 'Stark Industries Solutions Ltd'})
    ip_report['threat_actors'] = [
        {
            'name': 'UNC5812',
            'confidence': 'medium',
            'source': 'Google Threat Intelligence',
            'first_linked': '2025-05-09',
        }
    ]
    ip_report['communicating_files'][-1]['sha256'] = h_last
    ip_report['communicating_files'][-1]['name'] = 'OWA_Update_KB5034441.hta'
    sib_report = indicator_details(r, dom_mid, 'domain')
    c.request(
        c.ret(g0, ip_report),
        c.ret(g1, sib_report),
        c.retry(
            g2,
            'Invalid indicator format: defanged URLs are not accepted. Pass the URL with "https://" and "." restored.',
        ),
    )
    c.respond(
        c.text(
            f'**Findings for secure-login-portal.info**\n\n- Resolves to `{c2}`, announced by AS44477 (Stark Industries Solutions Ltd), a '
            f'provider heavily abused for phishing and C2.\n- Sibling domain `{dom_mid}` sits in the same OWA phishing-kit cluster.\n'
            f'- A file contacting the IP, `OWA_Update_KB5034441.hta` (SHA256 `{h_last}`), is the likely second stage.\n'
            '- Google Threat Intelligence links the IP to **UNC5812** with medium confidence.\n\n'
            'The URL lookup failed because I passed a defanged URL; the domain-level data is sufficient for blocking.'
        )
    )
    return c


@scenario('03_ransomware_research_old')
def s03():
    c = OldConv(303, '2025-08-04T09:02:31.550917')
    r = c.rng
    c.facts = ['Akira', 'CVE-2024-40766', 'SonicWall', 'RansomHub', '$3.2 million', 'CVE-2025-0282', '9.0']
    c.request(
        c.sys(CTI_SYSTEM + ' You also advise the vulnerability management team on patch priorities.'),
        c.user(
            'Which ransomware crews are exploiting edge VPN appliances right now, and which CVEs should we patch first?'
        ),
    )
    a0 = c.call(
        0,
        'deep_research',
        {
            'date_filter': True,
            'start_date': '2025-03-01',
            'prompt': 'ransomware groups exploiting VPN appliances CVE 2025',
        },
    )
    c.respond(a0)
    res = web_results(
        r,
        THREAT_BANK,
        11,
        {
            0: [
                (
                    0.2,
                    'Akira affiliates continue to break in through SonicWall SSL VPN devices that were never patched for CVE-2024-40766',
                )
            ],
            5: [
                (
                    0.55,
                    'RansomHub, which absorbed many former ALPHV affiliates, demanded $3.2 million from a German logistics firm after entering through an Ivanti Connect Secure gateway',
                )
            ],
            -1: [
                (
                    0.85,
                    'Incident responders also saw exploitation of CVE-2025-0282, a stack-based buffer overflow in Ivanti Connect Secure, as early as mid-December',
                )
            ],
        },
        dup=2,
        start='2025-03-01',
        end_days=140,
    )
    c.request(c.ret(a0, res))
    b0 = c.call(0, 'get_cve_details', {'cve_id': 'CVE-2024-40766'})
    b1 = c.call(1, 'get_cve_details', {'cve_id': 'CVE-2025-0282'})
    b2 = c.call(2, 'get_cve_details', {'cve_id': 'CVE-2025-22457'})
    c.respond(
        c.text(
            'Two CVEs stand out in the reporting (Akira via SonicWall, and the Ivanti flaw). Looking up their details.'
        ),
        b0,
        b1,
        b2,
    )

    def cve(cid, vendor, product, score, desc, refs):
        return {
            'id': cid,
            'published': rdate(r, '2024-08-01', 200),
            'lastModified': rdate(r, '2025-04-01', 90),
            'vulnStatus': 'Analyzed',
            'cisaExploitAdd': rdate(r, '2024-09-01', 200, '%Y-%m-%d'),
            'cisaRequiredAction': 'Apply mitigations per vendor instructions or discontinue use of the product if mitigations are unavailable.',
            'descriptions': [{'lang': 'en', 'value': desc}],
            'metrics': {
                'cvssMetricV31': [
                    {
                        'source': 'nvd@nist.gov',
                        'type': 'Primary',
                        'cvssData': {
                            'version': '3.1',
                            'vectorString': 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
                            'baseScore': score,
                            'baseSeverity': 'CRITICAL',
                            'attackVector': 'NETWORK',
                            'attackComplexity': 'LOW',
                            'privilegesRequired': 'NONE',
                            'userInteraction': 'NONE',
                            'scope': 'UNCHANGED',
                        },
                        'exploitabilityScore': 3.9,
                        'impactScore': 5.9,
                    }
                ]
            },
            'weaknesses': [
                {
                    'source': 'nvd@nist.gov',
                    'type': 'Primary',
                    'description': [{'lang': 'en', 'value': r.choice(['CWE-284', 'CWE-121', 'CWE-787'])}],
                }
            ],
            'configurations': [
                {
                    'nodes': [
                        {
                            'operator': 'OR',
                            'negate': False,
                            'cpeMatch': [
                                {
                                    'vulnerable': True,
                                    'criteria': f'cpe:2.3:o:{vendor}:{product}:{maj}.{mi}.{p}:*:*:*:*:*:*:*',
                                    'matchCriteriaId': uid(r).upper(),
                                }
                                for maj in (7, 8, 22)
                                for mi in range(4)
                                for p in range(3)
                            ],
                        }
                    ]
                }
            ],
            'references': [{'url': u, 'source': 'psirt@' + vendor + '.com', 'tags': ['Vendor Advisory']} for u in refs],
            'epss': {'score': round(r.uniform(0.4, 0.97), 5), 'percentile': round(r.uniform(0.95, 0.999), 5)},
        }

    cve1 = cve(
        'CVE-2024-40766',
        'sonicwall',
        'sonicos',
        9.3,
        'An improper access control vulnerability has been identified in the SonicWall SonicOS management access and SSLVPN, potentially leading to unauthorized resource access and in specific conditions, causing the firewall to crash.',
        ['https://psirt.global.sonicwall.com/vuln-detail/SNWLID-2024-0015'],
    )
    cve2 = cve(
        'CVE-2025-0282',
        'ivanti',
        'connect_secure',
        9.0,
        'A stack-based buffer overflow in Ivanti Connect Secure before version 22.7R2.5, Ivanti Policy Secure before version 22.7R1.2, and Ivanti Neurons for ZTA gateways before version 22.7R2.3 allows a remote unauthenticated attacker to achieve remote code execution.',
        [
            'https://forums.ivanti.com/s/article/Security-Advisory-Ivanti-Connect-Secure-Policy-Secure-ZTA-Gateways-CVE-2025-0282-CVE-2025-0283'
        ],
    )
    c.request(
        c.ret(b0, cve1),
        c.ret(b1, cve2),
        c.ret(
            b2, {'id': 'CVE-2025-22457', 'status': 'RESERVED', 'detail': 'Record not yet enriched by NVD; retry later.'}
        ),
    )
    c.respond(
        c.text(
            'Patch priority:\n\n1. **CVE-2025-0282** (Ivanti Connect Secure, CVSS 9.0) – pre-auth RCE; fixed in 22.7R2.5. RansomHub '
            'used an Ivanti gateway in the $3.2 million extortion case.\n2. **CVE-2024-40766** (SonicWall SonicOS SSLVPN, CVSS 9.3) – '
            'the main entry point for **Akira** affiliates; also reset all SSLVPN local-account passwords.\n3. CVE-2025-22457 is not '
            'enriched yet – track it but treat it as a lower-confidence item for now.'
        )
    )
    c.request(c.user('Which version fixes the Ivanti one again, and is the SonicWall one on the CISA KEV list?'))
    c.respond(
        c.text(
            f'The Ivanti flaw CVE-2025-0282 is fixed in Connect Secure 22.7R2.5. CVE-2024-40766 is on CISA KEV (added {cve1["cisaExploitAdd"]}), '
            'with the required action to apply vendor mitigations or discontinue use.'
        )
    )
    c.facts.append(cve1['cisaExploitAdd'])
    return c


AWS_SERVICES = [
    'Amazon Elastic Compute Cloud - Compute',
    'EC2 - Other',
    'Amazon Relational Database Service',
    'Amazon Simple Storage Service',
    'Amazon Elastic Kubernetes Service',
    'Amazon CloudFront',
    'AWS Lambda',
    'Amazon DynamoDB',
    'Amazon ElastiCache',
    'Amazon OpenSearch Service',
    'Amazon Virtual Private Cloud',
    'AmazonCloudWatch',
    'AWS Key Management Service',
    'Amazon Route 53',
    'AWS Secrets Manager',
    'Amazon Simple Queue Service',
    'Amazon Elastic Container Registry (ECR) ',
    'Amazon Elastic Load Balancing',
    'AWS WAF',
    'Amazon Kinesis',
    'Amazon Athena',
    'AWS Glue',
    'Tax',
]


@scenario('04_cloud_billing_old')
def s04():
    c = OldConv(404, '2025-07-02T07:45:12.002211', model='anthropic/claude-3.7-sonnet')
    r = c.rng
    accts = {'493817264051': 'prod-platform', '220468351907': 'data-analytics', '718204937716': 'staging'}
    anomaly_id = uid(r)
    c.facts = [
        '493817264051',
        'Amazon Elastic Compute Cloud - Compute',
        '18423.77',
        '6120.45',
        anomaly_id,
        '212.4',
        'eu-central-1',
    ]
    c.request(
        c.sys(
            'You are a FinOps assistant with read-only access to AWS Cost Explorer for the organization. Be precise with '
            'dollar figures and always say which account and service a cost belongs to.'
        ),
        c.user(
            'Our AWS bill jumped in June. Break down the last six months by service and account and find what changed.'
        ),
    )
    a0 = c.call(
        0,
        'get_cost_and_usage',
        {
            'time_period': {'start': '2025-01-01', 'end': '2025-07-01'},
            'granularity': 'MONTHLY',
            'metrics': ['UnblendedCost', 'UsageQuantity'],
            'group_by': ['SERVICE', 'LINKED_ACCOUNT'],
        },
    )
    a1 = c.call(1, 'get_budget', {'budget_name': 'org-monthly-total'})
    c.respond(a0, a1)
    results = []
    for m in range(6):
        groups = []
        for acct in accts:
            for svc in r.sample(AWS_SERVICES, r.randint(14, 19)):
                amt = round(r.uniform(3, 4200) * (1.6 if m == 5 else 1.0), 2)
                groups.append(
                    {
                        'Keys': [svc, acct],
                        'Metrics': {
                            'UnblendedCost': {'Amount': f'{amt:.10f}'.rstrip('0'), 'Unit': 'USD'},
                            'UsageQuantity': {'Amount': f'{r.uniform(10, 900000):.6f}', 'Unit': 'N/A'},
                        },
                    }
                )
        results.append(
            {
                'TimePeriod': {'Start': f'2025-{m + 1:02d}-01', 'End': f'2025-{m + 2:02d}-01'},
                'Total': {},
                'Groups': groups,
                'Estimated': m == 5,
            }
        )
    june = results[5]['Groups']
    june.insert(
        len(june) // 3,
        {
            'Keys': ['Amazon Elastic Compute Cloud - Compute', '493817264051'],
            'Metrics': {
                'UnblendedCost': {'Amount': '18423.77', 'Unit': 'USD'},
                'UsageQuantity': {'Amount': '41288.000000', 'Unit': 'N/A'},
            },
        },
    )
    june.append(
        {
            'Keys': ['EC2 - Other', '493817264051'],
            'Metrics': {
                'UnblendedCost': {'Amount': '6120.45', 'Unit': 'USD'},
                'UsageQuantity': {'Amount': '136010.223000', 'Unit': 'N/A'},
            },
        }
    )
    ce = {
        'GroupDefinitions': [{'Type': 'DIMENSION', 'Key': 'SERVICE'}, {'Type': 'DIMENSION', 'Key': 'LINKED_ACCOUNT'}],
        'ResultsByTime': results,
        'DimensionValueAttributes': [{'Value': k, 'Attributes': {'description': v}} for k, v in accts.items()],
        'ResponseMetadata': {'RequestId': uid(r), 'HTTPStatusCode': 200, 'RetryAttempts': 0},
    }
    budget = {
        'BudgetName': 'org-monthly-total',
        'BudgetLimit': {'Amount': '60000.0', 'Unit': 'USD'},
        'CalculatedSpend': {'ActualSpend': {'Amount': '71882.13', 'Unit': 'USD'}},
        'TimeUnit': 'MONTHLY',
    }
    c.request(c.ret(a0, ce), c.ret(a1, budget))
    b0 = c.call(
        0, 'get_anomalies', {'date_interval': {'start': '2025-06-01', 'end': '2025-06-30'}, 'total_impact_gte': 500}
    )
    c.respond(
        c.text(
            'June EC2 spend in prod-platform (493817264051) is far above prior months. Checking Cost Anomaly Detection for root causes.'
        ),
        b0,
    )
    anomalies = []
    for i in range(7):
        anomalies.append(
            {
                'AnomalyId': uid(r),
                'AnomalyStartDate': f'2025-06-{r.randint(1, 28):02d}',
                'AnomalyEndDate': None,
                'DimensionValue': r.choice(AWS_SERVICES[:10]),
                'RootCauses': [
                    {
                        'Service': r.choice(AWS_SERVICES[:10]),
                        'Region': r.choice(['us-east-1', 'eu-west-1', 'eu-central-1']),
                        'LinkedAccount': r.choice(list(accts)),
                        'LinkedAccountName': None,
                        'UsageType': r.choice(
                            ['BoxUsage:m6i.2xlarge', 'DataTransfer-Out-Bytes', 'TimedStorage-ByteHrs']
                        ),
                    }
                ],
                'AnomalyScore': {
                    'MaxScore': round(r.uniform(0.2, 0.95), 2),
                    'CurrentScore': round(r.uniform(0.1, 0.9), 2),
                },
                'Impact': {
                    'MaxImpact': round(r.uniform(120, 900), 2),
                    'TotalActualSpend': round(r.uniform(300, 2000), 2),
                    'TotalExpectedSpend': round(r.uniform(200, 800), 2),
                    'TotalImpact': round(r.uniform(100, 900), 2),
                    'TotalImpactPercentage': round(r.uniform(10, 90), 1),
                },
                'MonitorArn': 'arn:aws:ce::493817264051:anomalymonitor/' + uid(r),
                'Feedback': r.choice([None, 'YES', 'PLANNED_ACTIVITY']),
            }
        )
    anomalies.insert(
        5,
        {
            'AnomalyId': anomaly_id,
            'AnomalyStartDate': '2025-06-11',
            'AnomalyEndDate': None,
            'DimensionValue': 'EC2 - Other',
            'RootCauses': [
                {
                    'Service': 'EC2 - Other',
                    'Region': 'eu-central-1',
                    'LinkedAccount': '493817264051',
                    'LinkedAccountName': 'prod-platform',
                    'UsageType': 'EUC1-NatGateway-Bytes',
                }
            ],
            'AnomalyScore': {'MaxScore': 0.97, 'CurrentScore': 0.93},
            'Impact': {
                'MaxImpact': 301.22,
                'TotalActualSpend': 6120.45,
                'TotalExpectedSpend': 1960.1,
                'TotalImpact': 4160.35,
                'TotalImpactPercentage': 212.4,
            },
            'MonitorArn': 'arn:aws:ce::493817264051:anomalymonitor/' + uid(r),
            'Feedback': None,
        },
    )
    c.request(c.ret(b0, {'Anomalies': anomalies, 'NextPageToken': None}))
    c.respond(
        c.text(
            'Two things drive the June increase in account 493817264051 (prod-platform):\n\n'
            '1. **Amazon Elastic Compute Cloud - Compute**: $18423.77 in June, well above the monthly run-rate.\n'
            '2. **NAT Gateway data processing** (EC2 - Other, usage type EUC1-NatGateway-Bytes in eu-central-1): $6120.45 against an '
            f'expected ~$1,960, i.e. +212.4%. Cost Anomaly Detection flagged it as anomaly `{anomaly_id}` starting 2025-06-11.\n\n'
            'The org budget of $60,000 was exceeded (actual $71,882.13). I would look at what started sending traffic through the '
            'NAT gateway on June 11 — typically image pulls or S3 traffic without a VPC endpoint.'
        )
    )
    c.facts.append('2025-06-11')
    return c


@scenario('05_web_search_ev_batteries')
def s05():
    c = Conv(505, '2025-09-03T14:20:05.118000', provider='openai')
    r = c.rng
    c.facts = ['1.2 GWh', 'Åsa Lindqvist', '€75 per kWh', 'Debrecen', '100 GWh', '145 Wh/kg', 'François Dubreuil']
    c.request(
        c.sys(
            'You are a market research assistant for a European automotive supplier. Use web_search and cite figures '
            'with their source. Answer in concise bullet points.'
        ),
        c.user(
            'What is the state of European battery cell manufacturing right now? Which plants are actually producing?'
        ),
    )
    s1 = c.call(
        'web_search', {'query': 'European gigafactory production status 2025 Northvolt ACC PowerCo', 'num_results': 12}
    )
    c.respond(s1)
    res = web_results(
        r,
        EV_BANK,
        12,
        {
            0: [
                (
                    0.1,
                    "Northvolt's bankruptcy administrator said on 12 March that the Skellefteå plant produced only 1.2 GWh of cells in 2024, a fraction of its nameplate capacity",
                )
            ],
            6: [
                (
                    0.5,
                    'Åsa Lindqvist, head of battery procurement at Volvo Cars, said European LFP cells would only be competitive "at around €75 per kWh at cell level"',
                )
            ],
            -1: [
                (
                    0.8,
                    'CATL confirmed that the first phase of its Debrecen plant in Hungary is on track, with a planned capacity of 100 GWh once fully built out',
                )
            ],
        },
        dup=2,
        start='2025-01-10',
        end_days=230,
    )
    c.request(c.ret(s1, res))
    c.respond(
        c.text(
            '- **Northvolt** is effectively stalled: Skellefteå produced only 1.2 GWh in 2024 (administrator statement, 12 March).\n'
            '- **Chinese capacity is what is actually ramping**: CATL says Debrecen phase one is on track toward 100 GWh.\n'
            '- **Cost gap**: Åsa Lindqvist (Volvo Cars) puts the competitive threshold for European LFP at around €75 per kWh at cell level.\n'
            '- ACC, PowerCo and Verkor are producing at pilot or early-ramp volumes; several 2022-era projects are paused.'
        )
    )
    c.request(c.user('And sodium-ion — is anyone in Europe close to production? Who is quoted on that?'))
    s2 = c.call('web_search', {'query': 'sodium-ion battery Europe production 2025 energy density', 'num_results': 10})
    c.respond(c.text('Searching for recent sodium-ion coverage.'), s2)
    res2 = web_results(
        r,
        EV_BANK,
        10,
        {
            4: [
                (
                    0.3,
                    'The latest commercial sodium-ion cells reach about 145 Wh/kg, roughly on par with early LFP, according to François Dubreuil of the French battery alliance',
                )
            ],
        },
        dup=1,
        start='2025-03-01',
        end_days=180,
    )
    c.request(c.ret(s2, res2))
    c.respond(
        c.text(
            '- Sodium-ion is still pre-volume in Europe; the best commercial cells reach about **145 Wh/kg** (François Dubreuil, French '
            'battery alliance), comparable to early LFP.\n- The cost advantage is real but small, so it is positioned for storage and '
            'entry-level EVs rather than replacing LFP.'
        )
    )
    return c


@scenario('06_web_research_sqlalchemy_migration')
def s06():
    c = Conv(606, '2025-08-19T10:02:44.000000', provider='anthropic')
    r = c.rng
    c.facts = [
        'MissingGreenlet',
        'AsyncAttrs.awaitable_attrs',
        '2.0.41',
        'expire_on_commit=False',
        '12047',
        'Ilja Everilä',
    ]
    c.request(
        c.sys(
            'You are a senior Python engineer helping a team upgrade a Flask service from SQLAlchemy 1.4 to 2.0. '
            'Use the tools to check documentation and current package versions before giving advice.'
        ),
        c.user(
            'We still use session.query() everywhere and some async workers. What do we need to change to get to SQLAlchemy 2.0, '
            'and what version should we pin?'
        ),
    )
    s1 = c.call(
        'web_search', {'query': 'migrate session.query to select SQLAlchemy 2.0 async workers', 'max_results': 10}
    )
    p1 = c.call('pypi_latest', {'package': 'SQLAlchemy'})
    c.respond(
        c.think(
            'The user needs a migration plan. I should search docs and also check latest version on PyPI. Both calls are independent so run in parallel.'
        ),
        s1,
        p1,
    )
    res = web_results(
        r,
        SQLA_BANK,
        10,
        {
            1: [
                (
                    0.0,
                    'Start by running your test suite on 1.4 with `SQLALCHEMY_WARN_20=1` so that every legacy call emits a `RemovedIn20Warning`',
                )
            ],
            5: [
                (
                    0.6,
                    'The `MissingGreenlet` error means an attribute was lazy-loaded outside the greenlet spawned by `AsyncSession`; eager-load with `selectinload` or use `AsyncAttrs.awaitable_attrs`',
                )
            ],
            -1: [
                (
                    0.9,
                    "See the maintainers' answer in discussion #12047 — for background workers create the sessionmaker with `expire_on_commit=False` so objects stay usable after commit (answer by Ilja Everilä)",
                )
            ],
        },
        dup=1,
        start='2024-10-01',
        end_days=300,
    )
    c.request(
        c.ret(s1, res),
        c.ret(
            p1,
            {
                'name': 'SQLAlchemy',
                'version': '2.0.41',
                'requires_python': '>=3.7',
                'yanked': False,
                'upload_time': '2025-05-14T17:10:32Z',
            },
        ),
    )
    c.respond(
        c.text(
            '**Plan**\n\n1. Stay on 1.4 first and run the tests with `SQLALCHEMY_WARN_20=1`; fix every `RemovedIn20Warning`.\n'
            '2. Replace `session.query(X)...all()` with `session.execute(select(X)).scalars().all()` and `.get()` with `session.get()`.\n'
            '3. For the async workers, `MissingGreenlet` will show up wherever relationships lazy-load: use `selectinload` in the queries, or `AsyncAttrs.awaitable_attrs` for one-off access.\n'
            "4. Background jobs should use a sessionmaker with `expire_on_commit=False` (maintainers' advice in discussion #12047, answer by Ilja Everilä).\n"
            '5. Pin `SQLAlchemy>=2.0.41,<2.1` — 2.0.41 is the current release on PyPI.'
        )
    )
    c.request(c.user('Can you pull the full discussion 12047 so I can link it in the ticket?'))
    f1 = c.call('fetch_url', {'url': 'https://github.com/sqlalchemy/sqlalchemy/discussions/12047'})
    c.respond(f1)
    page = make_article(
        r,
        SQLA_BANK,
        'expire_on_commit with background workers · sqlalchemy/sqlalchemy · Discussion #12047',
        'https://github.com/sqlalchemy/sqlalchemy/discussions/12047',
        '2024-11-02',
        7000,
        [
            (
                0.4,
                'Ilja Everilä: if the worker reads attributes after `session.commit()`, pass `expire_on_commit=False` to the sessionmaker; otherwise every access triggers a refresh query',
            )
        ],
    )
    page = (
        page
        + '\n\n'
        + '\n'.join(f'👍 {r.randint(1, 40)}  · reply from {pick(r, SQLA_BANK["pools"]["user"])}' for _ in range(25))
    )
    c.request(c.ret(f1, page))
    c.respond(
        c.text(
            'Here is the link for the ticket: https://github.com/sqlalchemy/sqlalchemy/discussions/12047 — the accepted answer '
            'by Ilja Everilä recommends `expire_on_commit=False` for worker sessions, exactly as in step 4.'
        )
    )
    return c


GH_USERS = [
    'mkaraman',
    'sofia-lind',
    'dependabot[bot]',
    'jpwhite',
    'nguyen-thao',
    'rkapoor',
    'emil-b',
    'tanaka-h',
    'octavia-r',
    'lbarros',
    'dwebb',
    'fzhang',
    'cmoreau',
    'github-actions[bot]',
    'kwame-a',
    'pablo-sz',
]
GH_LABELS = [
    ('bug', 'd73a4a'),
    ('regression', 'b60205'),
    ('enhancement', 'a2eeef'),
    ('needs-triage', 'ededed'),
    ('area/cli', '1d76db'),
    ('area/sync', '5319e7'),
    ('good first issue', '7057ff'),
    ('dependencies', '0366d6'),
    ('priority/p1', 'e11d21'),
    ('windows', 'fbca04'),
    ('docs', '0075ca'),
    ('wontfix', 'ffffff'),
]
GH_TITLES = [
    'lattice sync hangs after network change on macOS',
    'Panic: nil pointer dereference in watcher.go:214',
    'Support for SSH agent forwarding in remote profiles',
    'CLI ignores --config when LATTICE_HOME is set',
    'Memory usage grows unbounded during large initial sync',
    'Bump golang.org/x/net from 0.26.0 to 0.33.0',
    'Docs: clarify conflict resolution order',
    'Windows: path too long error for nested node_modules',
    'Regression in 2.8.1: sync fails with ECONNRESET behind corporate proxy',
    'Add --dry-run to prune command',
    'Flaky test TestReconnectBackoff on CI',
    'Feature request: exclude patterns per profile',
    'Checksum mismatch on files with trailing whitespace',
    'Homebrew formula outdated',
    'Crash when remote disk is full',
    'Progress bar shows >100% for resumed transfers',
    'TLS handshake timeout with self-hosted relay',
]
GH_BODY = [
    '### Steps to reproduce\n1. Run `lattice sync --profile {profile}`\n2. {step}\n3. Observe the log output\n\n### Expected\nSync completes.\n\n### Actual\n{actual}',
    'After upgrading to {version} I see this on every run:\n\n```\n{err}\n```\n\nOS: {os}\nInstall method: {install}',
    'It would be great if {feature}. Right now we work around it with a shell wrapper, which is fragile.',
    "Bumps [golang.org/x/net](https://github.com/golang/net) from 0.26.0 to 0.33.0.\n- [Commits](https://github.com/golang/net/compare/v0.26.0...v0.33.0)\n\nDependabot will resolve any conflicts with this PR as long as you don't alter it yourself.",
]
GH_POOLS = {
    'profile': ['work', 'nas', 'default', 'laptop-backup'],
    'step': [
        'Switch Wi-Fi networks',
        'Suspend the machine for 10 minutes',
        'Kill the relay process',
        'Add 20k files to the watched folder',
    ],
    'actual': [
        'It hangs forever with no error.',
        'The CPU goes to 100% and stays there.',
        'A panic is printed and the daemon restarts.',
        'Files are re-uploaded from scratch.',
    ],
    'version': ['2.7.4', '2.8.0', '2.8.1'],
    'err': [
        'error: sync: read tcp 10.0.4.12:51234->52.18.77.3:443: read: connection reset by peer',
        'panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x10a2f4c]',
        'level=error msg="walk failed" err="lstat /Users/x/Library/Caches: permission denied"',
    ],
    'os': ['macOS 14.5', 'Ubuntu 24.04', 'Windows 11 23H2', 'Fedora 40'],
    'install': ['Homebrew', 'deb package', 'go install', 'scoop'],
    'feature': [
        'profiles could define their own exclude patterns',
        'the CLI supported a --json output flag',
        'we could limit bandwidth per profile',
        'prune had a dry-run mode',
    ],
}


def gh_user(rng, login):
    i = rng.randint(1000, 99999999)
    return {
        'login': login,
        'id': i,
        'node_id': 'MDQ6VXNlcj' + alnum(rng, 6),
        'avatar_url': f'https://avatars.githubusercontent.com/u/{i}?v=4',
        'url': f'https://api.github.com/users/{login}',
        'html_url': f'https://github.com/{login}',
        'type': 'Bot' if 'bot' in login else 'User',
        'site_admin': False,
    }


@scenario('07_github_issues_api')
def s07():
    c = Conv(707, '2025-09-08T08:15:00.000000', provider='openai')
    r = c.rng
    repo = 'orbitalhq/lattice'
    sha = sha1(r)
    c.facts = ['4821', 'mkaraman', 'ECONNRESET', '2.8.1', sha, 'HTTPS_PROXY', '4790', 'v2.8.2']
    c.request(
        c.sys(
            'You are a triage assistant for the orbitalhq/lattice repository. You can search issues, read comments and post comments. '
            'Be concise and reference issues by number.'
        ),
        c.user(
            'Give me an overview of open bugs labeled regression or priority/p1 and tell me which one is the most urgent.'
        ),
    )
    s1 = c.call(
        'github_search_issues',
        {'repo': repo, 'state': 'open', 'labels': ['regression', 'priority/p1', 'bug'], 'per_page': 40},
    )
    c.respond(s1)
    items = []
    nums = r.sample(range(4300, 4900), 38)
    for n in sorted(nums, reverse=True):
        login = r.choice(GH_USERS)
        labels = r.sample(GH_LABELS, r.randint(1, 3))
        body = fill(r, r.choice(GH_BODY), GH_POOLS)
        created = rdate(r, '2025-05-01', 120)
        items.append(
            {
                'url': f'https://api.github.com/repos/{repo}/issues/{n}',
                'repository_url': f'https://api.github.com/repos/{repo}',
                'html_url': f'https://github.com/{repo}/issues/{n}',
                'id': r.randint(2000000000, 3200000000),
                'node_id': 'I_kwDO' + alnum(r, 14),
                'number': n,
                'title': r.choice(GH_TITLES),
                'user': gh_user(r, login),
                'labels': [
                    {
                        'id': r.randint(10**9, 9 * 10**9),
                        'name': nm,
                        'color': col,
                        'default': nm == 'bug',
                        'description': None,
                    }
                    for nm, col in labels
                ],
                'state': 'open',
                'locked': False,
                'assignee': None,
                'assignees': [],
                'milestone': None,
                'comments': r.randint(0, 23),
                'created_at': created,
                'updated_at': rdate(r, created[:10], 15),
                'closed_at': None,
                'author_association': r.choice(['NONE', 'CONTRIBUTOR', 'MEMBER']),
                'active_lock_reason': None,
                'body': body,
                'reactions': {
                    'url': f'https://api.github.com/repos/{repo}/issues/{n}/reactions',
                    'total_count': r.randint(0, 30),
                    '+1': r.randint(0, 25),
                    '-1': 0,
                    'laugh': 0,
                    'hooray': 0,
                    'confused': r.randint(0, 2),
                    'heart': 0,
                    'rocket': 0,
                    'eyes': r.randint(0, 3),
                },
                'timeline_url': f'https://api.github.com/repos/{repo}/issues/{n}/timeline',
                'performed_via_github_app': None,
                'state_reason': None,
                'score': 1.0,
            }
        )
    target = {**items[17]}
    target.update(
        {
            'number': 4821,
            'title': 'Regression in 2.8.1: sync fails with ECONNRESET behind corporate proxy',
            'user': gh_user(r, 'mkaraman'),
            'comments': 31,
            'labels': [
                {
                    'id': 5123450012,
                    'name': 'regression',
                    'color': 'b60205',
                    'default': False,
                    'description': 'Worked in a previous release',
                },
                {'id': 5123450077, 'name': 'priority/p1', 'color': 'e11d21', 'default': False, 'description': None},
            ],
            'body': 'Since upgrading from 2.8.0 to 2.8.1 every sync through our proxy fails:\n\n```\nerror: sync: read tcp 10.0.4.12:51234->52.18.77.3:443: read: '
            'connection reset by peer (ECONNRESET)\n```\n\n`HTTPS_PROXY` is set to our Zscaler endpoint. Downgrading to 2.8.0 fixes it. '
            'Affects ~400 seats at our company.',
            'html_url': f'https://github.com/{repo}/issues/4821',
            'url': f'https://api.github.com/repos/{repo}/issues/4821',
        }
    )
    items[17] = target
    items[-1].update(
        {
            'number': 4790,
            'title': 'TLS handshake timeout with self-hosted relay',
            'body': 'Possibly the same root cause as the proxy problems: relay handshake times out after 2.8.1.',
        }
    )
    c.request(c.ret(s1, {'total_count': len(items), 'incomplete_results': False, 'items': items}))
    g1 = c.call('get_issue_comments', {'repo': repo, 'issue_number': 4821, 'per_page': 50})
    c.respond(
        c.text(
            '#4821 (regression in 2.8.1, ECONNRESET behind proxy, reported by mkaraman) looks like the most urgent. Reading its comments.'
        ),
        g1,
    )
    comments = []
    lines = [
        'Same here on {os}, 2.8.0 works fine.',
        '+1, we are also behind a proxy. Any workaround?',
        'Can you run with `--log-level debug` and attach the output?',
        'Attached debug log. The CONNECT request never gets a 200 back.',
        'Confirmed on Windows too.',
        'Is there an ETA for a fix? This blocks our rollout.',
        'Setting `NO_PROXY` for the relay host did not help.',
        'Looks related to the HTTP/2 change in 2.8.1.',
    ]
    for i in range(30):
        login = r.choice(GH_USERS)
        comments.append(
            {
                'id': r.randint(2 * 10**9, 3 * 10**9),
                'user': gh_user(r, login),
                'created_at': rdate(r, '2025-08-20', 18),
                'author_association': r.choice(['NONE', 'CONTRIBUTOR', 'MEMBER']),
                'body': fill(r, r.choice(lines), GH_POOLS),
                'reactions': {'total_count': r.randint(0, 9), '+1': r.randint(0, 9)},
            }
        )
    comments[21]['body'] = (
        f'Bisected it: the regression comes from {sha} ("transport: enable HTTP/2 for relay connections"). With HTTP/2 the client '
        'no longer honours `HTTPS_PROXY` for the relay dial. Reverting that commit on top of 2.8.1 fixes it for me.'
    )
    comments[21]['user'] = gh_user(r, 'sofia-lind')
    comments[21]['author_association'] = 'MEMBER'
    comments[-1]['body'] = (
        'Fix is merged and will ship in v2.8.2. Also closes the relay timeout report if it is the same root cause.'
    )
    c.request(c.ret(g1, comments))
    post = c.call(
        'create_issue_comment',
        {
            'repo': repo,
            'issue_number': 4821,
            'body': f'Triage summary: bisected to {sha} (HTTP/2 for relay connections ignores HTTPS_PROXY). Fix merged for v2.8.2. '
            'Linking #4790 as a probable duplicate. Workaround until then: stay on 2.8.0.',
        },
    )
    c.respond(c.text('Posting a triage summary on the issue.'), post)
    c.request(
        c.ret(
            post,
            {
                'id': 2941177310,
                'html_url': f'https://github.com/{repo}/issues/4821#issuecomment-2941177310',
                'created_at': '2025-09-08T08:17:42Z',
            },
        )
    )
    c.respond(
        c.text(
            f'**Most urgent: #4821** – regression in 2.8.1, sync fails with ECONNRESET behind a corporate proxy (mkaraman, ~400 seats affected).\n'
            f'- Root cause bisected to `{sha}`: HTTP/2 relay dialing ignores `HTTPS_PROXY`.\n- Fix merged, shipping in v2.8.2.\n'
            '- #4790 (TLS handshake timeout with self-hosted relay) is probably the same root cause.\n\nI posted a triage summary on #4821.'
        )
    )
    return c


CITIES = [
    ('ZRH', 'Zürich', 'Zurich Airport'),
    ('GRU', 'São Paulo', 'Guarulhos International'),
    ('LIS', 'Lisbon', 'Humberto Delgado'),
    ('MAD', 'Madrid', 'Adolfo Suárez Madrid–Barajas'),
    ('FRA', 'Frankfurt', 'Frankfurt am Main'),
    ('CDG', 'Paris', 'Charles de Gaulle'),
    ('GIG', 'Rio de Janeiro', 'Galeão'),
    ('AMS', 'Amsterdam', 'Schiphol'),
]
CARRIERS = [
    ('LX', 'Swiss'),
    ('TP', 'TAP Air Portugal'),
    ('IB', 'Iberia'),
    ('LH', 'Lufthansa'),
    ('AF', 'Air France'),
    ('LA', 'LATAM Airlines Brasil'),
    ('KL', 'KLM'),
]


def airport(code):
    for c_, city, name in CITIES:
        if c_ == code:
            return {
                'type': 'airport',
                'iata_code': code,
                'name': name,
                'city_name': city,
                'time_zone': 'Europe/Zurich'
                if code == 'ZRH'
                else 'America/Sao_Paulo'
                if code == 'GRU'
                else 'Europe/Lisbon',
            }


@scenario('08_flight_search_deferred_booking')
def s08():
    c = Conv(808, '2025-09-10T19:40:00.000000', provider='gemini')
    r = c.rng
    best_id = 'off_0000Aw' + alnum(r, 16)
    c.facts = ['São Paulo', best_id, '612.48', 'LX92', '2025-10-14T22:35:00', 'Guarulhos International']
    c.request(
        c.sys(
            'You are a corporate travel assistant. Search flights, compare offers and book only after the traveller confirms. '
            'Company policy: economy class for flights under 12 hours, premium economy allowed above that.'
        ),
        c.user(
            'I need to fly from Zürich to São Paulo on 14 October, back on 24 October. Cheapest option that follows policy please.'
        ),
    )
    f1 = c.call(
        'search_flights',
        {
            'origin': 'ZRH',
            'destination': 'GRU',
            'departure_date': '2025-10-14',
            'return_date': '2025-10-24',
            'cabin_class': 'economy',
            'passengers': 1,
            'max_offers': 30,
        },
    )
    c.respond(f1)
    offers = []
    for i in range(28):
        segs_out = []
        via = r.choice(['LIS', 'MAD', 'FRA', 'CDG', 'AMS', None])
        legs = [('ZRH', via), (via, 'GRU')] if via else [('ZRH', 'GRU')]
        for o, d in legs:
            code, name = r.choice(CARRIERS)
            dep = datetime(2025, 10, 14, r.randint(6, 22), r.choice([0, 5, 15, 35, 50]))
            segs_out.append(
                {
                    'id': 'seg_0000Aw' + alnum(r, 14),
                    'origin': airport(o) or {'iata_code': o},
                    'destination': airport(d) or {'iata_code': d},
                    'departing_at': dep.strftime('%Y-%m-%dT%H:%M:%S'),
                    'arriving_at': (dep + timedelta(hours=r.randint(2, 12))).strftime('%Y-%m-%dT%H:%M:%S'),
                    'marketing_carrier': {'iata_code': code, 'name': name},
                    'marketing_carrier_flight_number': str(r.randint(80, 1900)),
                    'operating_carrier': {'iata_code': code, 'name': name},
                    'aircraft': {'iata_code': r.choice(['343', '77W', '359', '32N', '788'])},
                    'duration': f'PT{r.randint(2, 12)}H{r.choice([5, 20, 45])}M',
                    'distance': None,
                    'passengers': [
                        {
                            'cabin_class': 'economy',
                            'cabin_class_marketing_name': 'Economy',
                            'baggages': [{'type': 'checked', 'quantity': r.choice([0, 1])}],
                        }
                    ],
                }
            )
        amt = round(r.uniform(640, 2100), 2)
        offers.append(
            {
                'id': 'off_0000Aw' + alnum(r, 16),
                'total_amount': f'{amt:.2f}',
                'total_currency': 'CHF',
                'base_amount': f'{amt * 0.82:.2f}',
                'tax_amount': f'{amt * 0.18:.2f}',
                'expires_at': '2025-09-10T20:10:00Z',
                'owner': segs_out[0]['marketing_carrier'],
                'slices': [
                    {
                        'id': 'sli_' + alnum(r, 18),
                        'fare_brand_name': r.choice(['Economy Light', 'Economy Classic', 'Basic']),
                        'segments': segs_out,
                        'duration': f'PT{r.randint(13, 24)}H{r.choice([10, 30, 55])}M',
                    },
                    {
                        'id': 'sli_' + alnum(r, 18),
                        'fare_brand_name': 'Economy Classic',
                        'segments': [],
                        'duration': f'PT{r.randint(12, 22)}H',
                    },
                ],
                'conditions': {
                    'refund_before_departure': {
                        'allowed': r.random() < 0.3,
                        'penalty_amount': '150.00' if r.random() < 0.5 else None,
                    },
                    'change_before_departure': {'allowed': True, 'penalty_amount': f'{r.choice([0, 70, 120])}.00'},
                },
                'total_emissions_kg': str(r.randint(900, 1500)),
                'passenger_identity_documents_required': True,
            }
        )
    best = offers[22]
    best.update(
        {
            'id': best_id,
            'total_amount': '612.48',
            'base_amount': '498.20',
            'tax_amount': '114.28',
            'owner': {'iata_code': 'LX', 'name': 'Swiss'},
        }
    )
    seg = best['slices'][0]['segments'] = [best['slices'][0]['segments'][0]]
    seg[0].update(
        {
            'origin': airport('ZRH'),
            'destination': airport('GRU'),
            'departing_at': '2025-10-14T22:35:00',
            'arriving_at': '2025-10-15T06:20:00',
            'marketing_carrier': {'iata_code': 'LX', 'name': 'Swiss'},
            'marketing_carrier_flight_number': '92',
            'flight_designator': 'LX92',
            'duration': 'PT12H45M',
        }
    )
    c.request(
        c.ret(
            f1,
            {
                'data': {
                    'offers': offers,
                    'slices_requested': 2,
                    'cabin_class': 'economy',
                    'live_mode': True,
                    'client_key': alnum(r, 40),
                },
                'meta': {'limit': 30, 'after': None},
            },
        )
    )
    c.respond(
        c.text(
            'The cheapest compliant option is the Swiss nonstop **LX92**, departing Zürich 2025-10-14T22:35:00 and arriving at '
            f'Guarulhos International (São Paulo) the next morning, for **CHF 612.48** (offer `{best_id}`). It is over 12 hours, so premium '
            'economy would also be allowed, but this economy fare is the cheapest. Shall I book it?'
        )
    )
    c.request(c.user('Yes, book it.'))
    b = c.call(
        'book_flight',
        {
            'offer_id': best_id,
            'passenger_id': 'emp_48213',
            'payment': 'corporate_card',
            'total_amount': '612.48',
            'currency': 'CHF',
        },
    )
    c.respond(c.text('Submitting the booking; it needs travel-desk approval before it is ticketed.'), b)
    # book_flight raised CallDeferred (awaiting approval): the call is left unanswered at the end of the history.
    return c


@scenario('09_weather_forecast_api')
def s09():
    c = Conv(909, '2025-09-15T05:58:10.400000', provider='mistral')
    r = c.rng
    c.facts = ['45.7485', 'orange', '87.1', '42.6', '2025-09-17', 'Rhône']
    c.request(
        c.sys('You are a logistics weather assistant. Warn dispatchers about conditions that affect road transport.'),
        c.user('We have 14 trucks leaving our Lyon depot on Wednesday. Any weather problems this week?'),
    )
    g = c.call('geocode', {'name': 'Lyon', 'country': 'FR'})
    c.respond(g)
    c.request(
        c.ret(
            g,
            {
                'name': 'Lyon',
                'latitude': 45.7485,
                'longitude': 4.8467,
                'elevation': 173.0,
                'timezone': 'Europe/Paris',
                'admin1': 'Auvergne-Rhône-Alpes',
                'population': 522969,
            },
        )
    )
    f = c.call(
        'forecast',
        {
            'latitude': 45.7485,
            'longitude': 4.8467,
            'hourly': ['temperature_2m', 'precipitation', 'wind_gusts_10m', 'weather_code', 'visibility'],
            'daily': ['precipitation_sum', 'wind_gusts_10m_max', 'temperature_2m_max', 'temperature_2m_min'],
            'forecast_days': 7,
        },
    )
    w = c.call('weather_warnings', {'country': 'FR', 'region': 'Rhône'})
    c.respond(f, w)
    hours = [(datetime(2025, 9, 15) + timedelta(hours=i)).strftime('%Y-%m-%dT%H:%M') for i in range(168)]
    temp = [round(14 + 6 * __import__('math').sin((i - 9) / 24 * 6.283) + r.uniform(-1.5, 1.5), 1) for i in range(168)]
    prec = [round(max(0.0, r.gauss(0.2, 0.6)) if not 48 <= i < 72 else r.uniform(0.5, 4.8), 1) for i in range(168)]
    gust = [round(r.uniform(8, 30) if not 50 <= i < 66 else r.uniform(45, 80), 1) for i in range(168)]
    gust[58] = 87.1
    code = [r.choice([0, 1, 2, 3]) if not 48 <= i < 72 else r.choice([63, 65, 81, 95]) for i in range(168)]
    vis = [
        r.choice([24140.0, 24140.0, 18800.0, 12300.0]) if not 48 <= i < 72 else r.choice([2100.0, 3400.0, 800.0])
        for i in range(168)
    ]
    daily_prec = [round(sum(prec[d * 24 : (d + 1) * 24]), 1) for d in range(7)]
    daily_prec[2] = 42.6
    fc = {
        'latitude': 45.75,
        'longitude': 4.8499994,
        'generationtime_ms': 0.1189708709716797,
        'utc_offset_seconds': 7200,
        'timezone': 'Europe/Paris',
        'timezone_abbreviation': 'CEST',
        'elevation': 173.0,
        'hourly_units': {
            'time': 'iso8601',
            'temperature_2m': '°C',
            'precipitation': 'mm',
            'wind_gusts_10m': 'km/h',
            'weather_code': 'wmo code',
            'visibility': 'm',
        },
        'hourly': {
            'time': hours,
            'temperature_2m': temp,
            'precipitation': prec,
            'wind_gusts_10m': gust,
            'weather_code': code,
            'visibility': vis,
        },
        'daily_units': {
            'time': 'iso8601',
            'precipitation_sum': 'mm',
            'wind_gusts_10m_max': 'km/h',
            'temperature_2m_max': '°C',
            'temperature_2m_min': '°C',
        },
        'daily': {
            'time': [f'2025-09-{15 + d}' for d in range(7)],
            'precipitation_sum': daily_prec,
            'wind_gusts_10m_max': [max(gust[d * 24 : (d + 1) * 24]) for d in range(7)],
            'temperature_2m_max': [max(temp[d * 24 : (d + 1) * 24]) for d in range(7)],
            'temperature_2m_min': [min(temp[d * 24 : (d + 1) * 24]) for d in range(7)],
        },
    }
    warns = {
        'country': 'FR',
        'source': 'Météo-France Vigilance',
        'updated': '2025-09-15T04:00:00+02:00',
        'warnings': [
            {
                'department': dep,
                'code': code_,
                'phenomena': [
                    {'type': ph, 'level': lvl, 'start': '2025-09-17T06:00:00+02:00', 'end': '2025-09-18T00:00:00+02:00'}
                    for ph, lvl in phs
                ],
            }
            for dep, code_, phs in [
                ('Ain', '01', [('pluie-inondation', 'jaune')]),
                ('Isère', '38', [('orages', 'jaune')]),
                ('Loire', '42', [('vent violent', 'jaune')]),
                ('Rhône', '69', [('orages', 'orange'), ('pluie-inondation', 'orange')]),
                ('Savoie', '73', [('avalanches', 'vert')]),
                ('Drôme', '26', [('orages', 'jaune')]),
            ]
        ],
    }
    c.request(c.ret(f, fc), c.ret(w, warns))
    c.respond(
        c.text(
            '⚠️ **Wednesday 2025-09-17 is the problem day for the Lyon depot** (45.7485 N):\n'
            '- Météo-France has the Rhône department on **orange** alert for thunderstorms and flooding rain from 06:00 to midnight.\n'
            '- Forecast rainfall: **42.6 mm** for the day, visibility dropping below 1 km in heavy showers.\n'
            '- Gusts peak at **87.1 km/h** around 10:00 — a risk for high-sided trucks.\n\n'
            'Recommendation: move the 14 departures to Tuesday evening or Thursday, or at least after 18:00 on Wednesday.'
        )
    )
    return c


FIRST = [
    'Emma',
    'Lukas',
    'Sofía',
    'Mateo',
    'Chloé',
    'Jonas',
    'Aylin',
    'Noah',
    'Zoë',
    'Mia',
    'Oliver',
    'Léa',
    'Björn',
    'Ines',
    'Kenji',
    'Priya',
    'Tomás',
    'Ana',
    'Mehmet',
    'Hannah',
    'Dmitri',
    'Grace',
    'Amara',
    'Luca',
]
LAST = [
    'Schmidt',
    'García',
    'Dubois',
    'Rossi',
    'Novak',
    'Johansson',
    'Yılmaz',
    'Kowalski',
    'Müller',
    'Okafor',
    'Silva',
    'Smith',
    'Nakamura',
    'Patel',
    'Fernández',
    'Larsen',
    'Ivanova',
    'Brown',
    'Costa',
    'Østergaard',
]
PRODUCTS = [
    ('TRL-2241', 'Trail running shoe "Kestrel 3"', 139.0),
    ('JKT-0930', 'Packable rain jacket', 89.5),
    ('BPK-1120', 'Daypack 22L', 74.0),
    ('SOC-0042', 'Merino hiking socks (3-pack)', 29.9),
    ('BTL-0750', 'Insulated bottle 750 ml', 34.0),
    ('HDL-0300', 'Headlamp 300 lm', 42.0),
    ('PLS-1810', 'Trekking poles, carbon', 119.0),
    ('TNT-0202', 'Ultralight tent 2P', 389.0),
    ('GLV-0115', 'Softshell gloves', 39.0),
]


def order(rng, oid, status=None):
    lines = []
    for sku, name, price in rng.sample(PRODUCTS, rng.randint(1, 4)):
        q = rng.randint(1, 3)
        lines.append(
            {
                'id': rng.randint(10**12, 10**13),
                'sku': sku,
                'title': name,
                'quantity': q,
                'price': f'{price:.2f}',
                'total_discount': '0.00',
                'fulfillment_status': rng.choice(['fulfilled', None]),
                'requires_shipping': True,
                'tax_lines': [{'title': 'VAT', 'rate': 0.19, 'price': f'{price * q * 0.19:.2f}'}],
            }
        )
    total = sum(float(l['price']) * l['quantity'] for l in lines)
    fn, ln = rng.choice(FIRST), rng.choice(LAST)
    events = [
        {'at': rdate(rng, '2025-08-01', 30), 'type': t, 'message': m}
        for t, m in [
            ('order_created', 'Order was placed via online store'),
            ('payment', 'Payment of EUR captured via card ending ' + str(rng.randint(1000, 9999))),
            ('fulfillment', 'Label created with DHL Paket'),
            ('tracking', 'Shipment handed over to carrier'),
            ('tracking', 'Arrived at parcel centre ' + rng.choice(['Bremen', 'Köln', 'Leipzig', 'Hamburg'])),
            ('tracking', 'Out for delivery'),
        ]
    ]
    return {
        'id': oid,
        'name': f'#{oid}',
        'email': f'{fn.lower()}.{ln.lower()}@example.com'.replace('ü', 'ue').replace('ø', 'oe').replace('ı', 'i'),
        'created_at': rdate(rng, '2025-08-01', 30),
        'financial_status': 'paid',
        'fulfillment_status': status or rng.choice(['fulfilled', 'partial', None]),
        'currency': 'EUR',
        'total_price': f'{total * 1.19:.2f}',
        'subtotal_price': f'{total:.2f}',
        'total_tax': f'{total * 0.19:.2f}',
        'customer': {
            'id': rng.randint(10**12, 10**13),
            'first_name': fn,
            'last_name': ln,
            'orders_count': rng.randint(1, 14),
            'tags': rng.sample(['vip', 'newsletter', 'wholesale', 'returns-abuse-check', 'b2c'], 2),
            'note': None,
        },
        'shipping_address': {
            'name': f'{fn} {ln}',
            'address1': f'{rng.choice(["Hauptstraße", "Bahnhofstraße", "Lindenweg", "Gartenstraße"])} {rng.randint(1, 120)}',
            'city': rng.choice(['Berlin', 'München', 'Köln', 'Düsseldorf', 'Graz', 'Zürich']),
            'zip': str(rng.randint(10000, 99999)),
            'country_code': rng.choice(['DE', 'AT', 'CH']),
        },
        'line_items': lines,
        'shipping_lines': [{'title': 'Standard (DHL)', 'price': '4.95'}],
        'fulfillments': [
            {
                'id': rng.randint(10**12, 10**13),
                'status': 'success',
                'tracking_company': 'DHL',
                'tracking_number': str(rng.randint(10**11, 10**12)),
                'tracking_url': 'https://www.dhl.de/de/privatkunden/pakete-empfangen/verfolgen.html?piececode='
                + str(rng.randint(10**11, 10**12)),
            }
        ],
        'refunds': [],
        'events': events,
        'note_attributes': [{'name': 'gift_wrap', 'value': rng.choice(['yes', 'no'])}],
    }


@scenario('10_ecommerce_parallel_retry_deferred')
def s10():
    c = Conv(1010, '2025-09-01T11:12:00.000000', provider='openai')
    r = c.rng
    c.facts = ['100457', '100462', 'Kestrel 3', '278.00', 'Yılmaz', '00340434161094042557', 'TNT-0202']
    c.request(
        c.sys(
            'You are a customer-service agent for an outdoor gear shop. You can look up orders and issue refunds. Refunds above EUR 100 '
            'require supervisor approval (the refund tool defers them).'
        ),
        c.user(
            'Customer Aylin Yılmaz says orders 100457, 100462, 10O470 and 100481 have problems: two arrived damaged and one never arrived. '
            'Check all four and refund the damaged ones.'
        ),
    )
    calls = [c.call('get_order', {'order_id': o}) for o in ['100457', '100462', '10O470', '100481']]
    c.respond(c.text('Looking up all four orders in parallel.'), *calls)
    o1 = order(r, 100457, 'fulfilled')
    o1['customer'].update({'first_name': 'Aylin', 'last_name': 'Yılmaz'})
    o1['line_items'][0].update(
        {'sku': 'TRL-2241', 'title': 'Trail running shoe "Kestrel 3"', 'quantity': 2, 'price': '139.00'}
    )
    o1['events'].append(
        {
            'at': '2025-08-22T15:02:11Z',
            'type': 'customer_message',
            'message': 'Both boxes arrived crushed, one shoe sole is torn. Photos attached.',
        }
    )
    o2 = order(r, 100462, 'fulfilled')
    o2['customer'].update({'first_name': 'Aylin', 'last_name': 'Yılmaz'})
    o2['line_items'].append(
        {
            'id': 7718820011345,
            'sku': 'TNT-0202',
            'title': 'Ultralight tent 2P',
            'quantity': 1,
            'price': '389.00',
            'total_discount': '111.00',
            'fulfillment_status': 'fulfilled',
            'requires_shipping': True,
            'tax_lines': [{'title': 'VAT', 'rate': 0.19, 'price': '52.82'}],
            'properties': [
                {'name': 'damage_report', 'value': 'pole segment snapped in transit; net price after discount 278.00'}
            ],
        }
    )
    o4 = order(r, 100481, None)
    o4['customer'].update({'first_name': 'Aylin', 'last_name': 'Yılmaz'})
    o4['fulfillments'][0].update({'status': 'in_transit', 'tracking_number': '00340434161094042557'})
    o4['events'].append(
        {
            'at': '2025-08-30T09:40:00Z',
            'type': 'tracking',
            'message': 'Shipment 00340434161094042557 could not be delivered: recipient not found, returned to depot',
        }
    )
    # each order is padded with the customer's full order history, as the real API does with ?include=history
    for o in (o1, o2, o4):
        o['customer']['recent_orders'] = [order(r, r.randint(90000, 100400)) for _ in range(r.randint(5, 8))]
    c.request(
        c.ret(calls[0], o1),
        c.ret(calls[1], o2),
        c.retry(
            calls[2],
            [
                {
                    'type': 'string_pattern_mismatch',
                    'loc': ['order_id'],
                    'msg': "String should match pattern '^[0-9]{6}$'",
                    'input': '10O470',
                }
            ],
        ),
        c.ret(calls[3], o4),
    )
    rf1 = c.call(
        'refund_order_items',
        {'order_id': '100457', 'sku': 'TRL-2241', 'quantity': 2, 'reason': 'damaged in transit (Kestrel 3)'},
    )
    rf2 = c.call(
        'refund_order_items',
        {
            'order_id': '100462',
            'sku': 'TNT-0202',
            'quantity': 1,
            'amount': '278.00',
            'reason': 'tent pole snapped in transit',
        },
    )
    g3 = c.call('get_order', {'order_id': '100470'})
    c.respond(
        c.text(
            'Order 10O470 had a typo (letter O instead of zero); retrying as 100470. Issuing the two damage refunds.'
        ),
        rf1,
        rf2,
        g3,
    )
    o3 = order(r, 100470, 'fulfilled')
    o3['customer'].update({'first_name': 'Aylin', 'last_name': 'Yılmaz'})
    # both refunds are above EUR 100 and were deferred for approval: only the order lookup returns
    c.request(
        c.ret(g3, o3), c.user('[system] 2 refund requests are awaiting supervisor approval: refund_order_items x2.')
    )
    c.respond(
        c.text(
            'Summary for Aylin Yılmaz:\n\n- **#100457** – 2× "Kestrel 3" trail shoes arrived crushed → refund of 2 × EUR 139.00 submitted, awaiting supervisor approval.\n'
            '- **#100462** – Ultralight tent (TNT-0202), pole snapped → refund of EUR 278.00 (net after discount) submitted, awaiting approval.\n'
            '- **#100470** – delivered normally, no issue found.\n- **#100481** – never arrived: DHL shipment 00340434161094042557 was returned to the depot '
            '(recipient not found). I suggest confirming the address and reshipping.'
        )
    )
    return c


@scenario('11_threat_intel_parallel_deferred_approved')
def s11():
    c = Conv(1111, '2025-09-12T02:14:09.000000', provider='anthropic')
    r = c.rng
    ips = [ip(r) for _ in range(5)]
    bad = ips[1]
    h = sha256(r)
    c.facts = [bad, 'Cobalt Strike', 'AEZA GROUP LLC', h, 'beacon_x64.dll', ips[4], 'CHG-20931']
    c.request(
        c.sys(
            'You are a SOC tier-2 assistant. Enrich alerts with threat-intel lookups. Blocking at the perimeter firewall requires '
            'human approval; the block tool defers until an analyst approves.'
        ),
        c.user(
            f'EDR alert on host FIN-WS-0231: outbound connections to {", ".join(ips)}. Enrich all five and block anything malicious.'
        ),
    )
    calls = [c.call('lookup_ip', {'ip': x}) for x in ips]
    c.respond(c.think('Five independent lookups, run them in parallel.'), *calls)
    reps = []
    for i, x in enumerate(ips):
        rep = indicator_details(r, x, 'IPv4')
        if i == 1:
            rep['asn'].update({'asn': 210644, 'as_owner': 'AEZA GROUP LLC'})
            rep['tags'] = ['c2', 'cobalt-strike', 'apt']
            rep['comments'].insert(
                1,
                {
                    'author': 'drb_ra',
                    'date': '2025-09-09',
                    'text': f'Cobalt Strike C2 on {bad}:443, watermark 987654321, serves beacon_x64.dll',
                },
            )
            rep['communicating_files'][len(rep['communicating_files']) // 2].update(
                {'sha256': h, 'name': 'beacon_x64.dll', 'detections': '51/72'}
            )
        reps.append(rep)
    tiny = {
        'ip': ips[3],
        'error': None,
        'verdict': 'benign',
        'owner': 'Microsoft Corporation',
        'note': 'Office 365 front door range',
    }
    c.request(
        c.ret(calls[0], reps[0]),
        c.ret(calls[1], reps[1]),
        c.ret(calls[2], reps[2]),
        c.ret(calls[3], tiny),
        c.retry(calls[4], 'Rate limit exceeded for lookup_ip (60/min). Retry this indicator in the next turn.'),
    )
    again = c.call('lookup_ip', {'ip': ips[4]})
    blk = c.call(
        'block_ip',
        {
            'ip': bad,
            'direction': 'both',
            'ttl_hours': 720,
            'reason': f'Cobalt Strike C2 (beacon_x64.dll, AEZA GROUP LLC, sha256 {h})',
        },
    )
    c.respond(
        c.text(
            f'{bad} is a Cobalt Strike C2 hosted at AEZA GROUP LLC. Requesting a block (needs approval) and retrying the rate-limited lookup for {ips[4]}.'
        ),
        again,
        blk,
    )
    c.request(
        c.ret(
            again,
            {
                'ip': ips[4],
                'verdict': 'unknown',
                'first_seen': None,
                'asn': {'asn': 16509, 'as_owner': 'Amazon.com, Inc.'},
                'tags': [],
            },
        )
    )
    c.respond(c.text(f'{ips[4]} has no reputation (AWS range). The block for {bad} is waiting for analyst approval.'))
    # next run: the analyst approved the deferred call; its result is delivered in a new request
    c.request(
        c.ret(
            blk,
            {
                'status': 'applied',
                'rule_id': 'fw-edge-88231',
                'change_ticket': 'CHG-20931',
                'approved_by': 'j.okafor',
                'expires': '2025-10-12T02:31:00Z',
            },
        ),
        c.user('Approved. Write the incident note.'),
    )
    c.respond(
        c.text(
            f'**Incident note – FIN-WS-0231**\n\n- Malicious: `{bad}` – Cobalt Strike C2 (AEZA GROUP LLC), payload `beacon_x64.dll` '
            f'(SHA256 `{h}`). Blocked at the edge, change CHG-20931, 30-day TTL.\n- `{ips[3]}` benign (Microsoft 365), `{ips[4]}` unknown (AWS), '
            f'`{ips[0]}` and `{ips[2]}` low reputation, no action.\n- Next step: isolate FIN-WS-0231 and hunt for the DLL hash across the fleet.'
        )
    )
    c.indent = None
    return c


# --------------------------------------------------------------------------------------------------
# file reads, logs, shell output
# --------------------------------------------------------------------------------------------------

PY_VERBS = [
    'load',
    'compute',
    'apply',
    'sync',
    'validate',
    'render',
    'collect',
    'resolve',
    'export',
    'merge',
    'refresh',
    'schedule',
    'void',
    'post',
]
PY_NOUNS = [
    'invoice',
    'line_items',
    'tax_rates',
    'credit_notes',
    'payment_terms',
    'dunning_level',
    'ledger_batch',
    'fx_rates',
    'customer_balance',
    'usage_records',
    'proration',
    'discounts',
    'webhook_events',
    'statement',
    'payout',
]
PY_MODELS = ['Invoice', 'LineItem', 'TaxRate', 'CreditNote', 'LedgerEntry', 'Customer', 'UsageRecord', 'Payment']
PY_FUNC_TEMPLATES = [
    '''def {name}(session: Session, {arg}: int, *, dry_run: bool = False) -> list[{model}]:
    """{doc}"""
    log.debug("{name} start", extra={{"{arg}": {arg}, "dry_run": dry_run}})
    stmt = (
        select({model})
        .where({model}.{arg} == {arg})
        .where({model}.deleted_at.is_(None))
        .order_by({model}.created_at.desc())
    )
    rows = list(session.execute(stmt).scalars())
    if not rows:
        log.info("{name}: nothing to do for %s", {arg})
        return []
    if not dry_run:
        for row in rows:
            row.updated_at = utcnow()
        session.flush()
    return rows
''',
    '''def {name}(items: Iterable[{model}], currency: str = DEFAULT_CURRENCY) -> Decimal:
    """{doc}"""
    total = Decimal("0")
    for item in items:
        if item.currency != currency:
            rate = fx.get_rate(item.currency, currency, on=item.created_at.date())
            total += quantize(item.amount * rate)
        else:
            total += item.amount
    return quantize(total)
''',
    '''async def {name}(client: httpx.AsyncClient, {arg}: str) -> dict[str, Any]:
    """{doc}"""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            resp = await client.get(f"/v2/{path}/{{{arg}}}", timeout=REQUEST_TIMEOUT)
            resp.raise_for_status()
            return resp.json()
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code < 500:
                raise
            delay = min(MAX_RETRY_BACKOFF_SECONDS, 2 ** attempt)
            log.warning("{name}: %s on attempt %d, sleeping %ss", exc, attempt, delay)
            await asyncio.sleep(delay)
    raise UpstreamUnavailable("{path}")
''',
    '''class {cls}(BaseModel):
    """{doc}"""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: UUID
    {arg}: int
    amount: Decimal = Field(ge=0, decimal_places=2)
    currency: str = Field(min_length=3, max_length=3)
    memo: str | None = None

    @field_validator("currency")
    @classmethod
    def _upper(cls, v: str) -> str:
        return v.upper()
''',
]
PY_DOCS = [
    'Return the rows that still need processing.',
    'Sum amounts converted to the target currency.',
    'Fetch the upstream record, retrying 5xx responses.',
    'Immutable payload exchanged with the ledger service.',
    'Used by the nightly job; keep it idempotent.',
    'Kept for backwards compatibility with the v1 API.',
    'See ADR-0042 for why this is not done in SQL.',
]


def python_module(rng, path: str, n_blocks: int, specials: list[tuple[float, str]]) -> str:
    head = f'''"""{path} — invoice lifecycle helpers for the billing service.

Owned by team-billing. Do not import from web handlers directly; go through billing.api.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any
from uuid import UUID

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import select
from sqlalchemy.orm import Session

from billing import fx
from billing.models import Customer, CreditNote, Invoice, LedgerEntry, LineItem, Payment, TaxRate, UsageRecord
from billing.time import utcnow

log = logging.getLogger(__name__)

DEFAULT_CURRENCY = "EUR"
MAX_ATTEMPTS = 5
REQUEST_TIMEOUT = 10.0
MAX_RETRY_BACKOFF_SECONDS = 37


class UpstreamUnavailable(RuntimeError):
    pass


def quantize(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)

'''
    blocks = []
    used = set()
    for _ in range(n_blocks):
        t = rng.choice(PY_FUNC_TEMPLATES)
        name = f'{rng.choice(PY_VERBS)}_{rng.choice(PY_NOUNS)}'
        while name in used:
            name = f'{rng.choice(PY_VERBS)}_{rng.choice(PY_NOUNS)}'
        used.add(name)
        cls = ''.join(p.title() for p in name.split('_')) + 'Payload'
        blocks.append(
            t.format(
                name=name,
                arg=rng.choice(['customer_id', 'invoice_id', 'batch_id', 'account_id']),
                model=rng.choice(PY_MODELS),
                doc=rng.choice(PY_DOCS),
                path=rng.choice(['invoices', 'ledger/entries', 'customers', 'payouts']),
                cls=cls,
            )
        )
    for pos, block in specials:
        insert_at(blocks, pos, block)
    src = head + '\n\n'.join(blocks)
    return '\n'.join(f'{i:>5}\t{line}' for i, line in enumerate(src.splitlines(), 1))


@scenario('12_read_file_python_source')
def s12():
    c = Conv(1212, '2025-09-04T13:30:00.000000', provider='anthropic')
    r = c.rng
    special = '''class LedgerDriftError(Exception):
    """Raised when the invoice total and the ledger disagree by more than one cent."""


def reconcile_ledger_entries(session: Session, invoice: Invoice) -> None:
    """Make the ledger match the invoice total (called from the nightly close)."""
    entries = session.execute(select(LedgerEntry).where(LedgerEntry.invoice_id == invoice.id)).scalars().all()
    ledger_total = sum((e.amount for e in entries), Decimal("0"))
    # TODO(BILL-1184): credit notes issued in another currency are summed without FX conversion here
    drift = invoice.total - ledger_total
    if abs(drift) > Decimal("0.01"):
        raise LedgerDriftError(f"invoice {invoice.id}: drift {drift}")
'''
    src = python_module(r, 'src/billing/invoices.py', 46, [(0.55, special)])
    line = next(l for l in src.splitlines() if 'TODO(BILL-1184)' in l).split('\t')[0].strip()
    c.facts = [
        'src/billing/invoices.py',
        'reconcile_ledger_entries',
        'BILL-1184',
        'LedgerDriftError',
        'MAX_RETRY_BACKOFF_SECONDS = 37',
    ]
    c.request(
        c.sys(
            'You are a coding agent working in the billing-service repository. Read files before editing them. Keep diffs minimal.'
        ),
        c.user(
            'Nightly close failed again with LedgerDriftError for invoices that have EUR credit notes on USD invoices. Find the bug and fix it.'
        ),
    )
    g = c.call('grep', {'pattern': 'LedgerDriftError', 'path': 'src/'})
    c.respond(g)
    hits = '\n'.join(
        [
            f'src/billing/{f}:{r.randint(10, 400)}:' + rng_line
            for f, rng_line in [
                ('invoices.py', 'class LedgerDriftError(Exception):'),
                ('invoices.py', '        raise LedgerDriftError(f"invoice {invoice.id}: drift {drift}")'),
                ('jobs/nightly_close.py', '    except LedgerDriftError as exc:'),
                ('jobs/nightly_close.py', 'from billing.invoices import LedgerDriftError, reconcile_ledger_entries'),
            ]
        ]
    )
    c.request(c.ret(g, hits))
    rf = c.call('read_file', {'path': 'src/billing/invoices.py'})
    c.respond(c.text('The error is raised in src/billing/invoices.py. Reading the whole file.'), rf)
    c.request(c.ret(rf, src))
    ed = c.call(
        'edit_file',
        {
            'path': 'src/billing/invoices.py',
            'old': '    ledger_total = sum((e.amount for e in entries), Decimal("0"))\n    # TODO(BILL-1184): credit notes issued in another currency are summed without FX conversion here',
            'new': '    ledger_total = sum(\n        (e.amount if e.currency == invoice.currency else quantize(e.amount * fx.get_rate(e.currency, invoice.currency, on=e.created_at.date())) for e in entries),\n        Decimal("0"),\n    )',
        },
    )
    c.respond(
        c.think(
            'reconcile_ledger_entries sums entries regardless of currency: exactly the TODO BILL-1184. Convert with fx.get_rate like the other helpers do.'
        ),
        c.text(
            f'Found it: `reconcile_ledger_entries` (line {line} has the TODO(BILL-1184) note) sums ledger entries without FX conversion. Fixing.'
        ),
        ed,
    )
    c.request(c.ret(ed, 'Applied 1 edit to src/billing/invoices.py (+4 -2).'))
    t = c.call('run_tests', {'args': ['tests/billing/test_invoices.py', '-q']})
    c.respond(t)
    c.request(
        c.ret(
            t, '........................................                                   [100%]\n40 passed in 3.12s'
        )
    )
    c.respond(
        c.text(
            'Fixed. In `src/billing/invoices.py`, `reconcile_ledger_entries` now converts each ledger entry into the invoice currency before '
            'summing, so EUR credit notes on USD invoices no longer trigger `LedgerDriftError`. This resolves TODO BILL-1184. Unrelated, but note '
            'the retry helper caps backoff via `MAX_RETRY_BACKOFF_SECONDS = 37`, an odd value you may want to revisit.'
        )
    )
    return c


def k8s_pod_name(rng, app):
    return f'{app}-{alnum(rng, 9, "0123456789abcdef")[: rng.choice([9, 10])]}-{alnum(rng, 5, "bcdfghjklmnpqrstvwxz2456789")}'


@scenario('13_k8s_config_kubectl')
def s13():
    c = Conv(1313, '2025-09-09T16:05:30.000000', provider='openai')
    r = c.rng
    bad_pod = 'checkout-api-7d9f8b6c4-x2kqp'
    node = 'ip-10-42-3-17.eu-west-1.compute.internal'
    digest = 'sha256:' + sha256(r)
    c.facts = [bad_pod, 'OOMKilled', '137', '512Mi', node, digest, 'JAVA_TOOL_OPTIONS']
    c.request(
        c.sys(
            'You are an SRE assistant with kubectl and read-only repository access for the shop platform (EKS, eu-west-1).'
        ),
        c.user('checkout is flapping in production since the 14:00 deploy. What is going on?'),
    )
    k1 = c.call('kubectl', {'args': 'get pods -A -o wide'})
    c.respond(k1)
    apps = [
        'cart-api',
        'catalog-api',
        'search-indexer',
        'payments-gateway',
        'recommendations',
        'inventory-sync',
        'notification-worker',
        'auth-service',
        'coredns',
        'aws-node',
        'kube-proxy',
        'ebs-csi-node',
        'cert-manager',
        'ingress-nginx-controller',
        'prometheus-node-exporter',
        'fluent-bit',
        'grafana',
        'loki-write',
        'keda-operator',
        'external-dns',
    ]
    nss = {
        'coredns': 'kube-system',
        'aws-node': 'kube-system',
        'kube-proxy': 'kube-system',
        'ebs-csi-node': 'kube-system',
        'cert-manager': 'cert-manager',
        'ingress-nginx-controller': 'ingress-nginx',
        'prometheus-node-exporter': 'monitoring',
        'fluent-bit': 'logging',
        'grafana': 'monitoring',
        'loki-write': 'logging',
        'keda-operator': 'keda',
        'external-dns': 'kube-system',
    }
    nodes = [f'ip-10-42-{r.randint(0, 9)}-{r.randint(10, 250)}.eu-west-1.compute.internal' for _ in range(9)] + [node]
    rows = [
        'NAMESPACE            NAME                                              READY   STATUS             RESTARTS        AGE     IP             NODE                                          NOMINATED NODE   READINESS GATES'
    ]
    pods = []
    for a in apps:
        for _ in range(r.randint(2, 6)):
            pods.append(
                (
                    nss.get(a, 'shop'),
                    k8s_pod_name(r, a),
                    f'{1}/{1}',
                    'Running',
                    str(r.choice([0, 0, 0, 1, 2])),
                    f'{r.randint(1, 40)}d',
                )
            )
    for i in range(3):
        pods.insert(r.randint(0, len(pods)), ('shop', k8s_pod_name(r, 'checkout-api'), '1/1', 'Running', '0', '2h4m'))
    pods.insert(len(pods) * 2 // 3, ('shop', bad_pod, '0/1', 'CrashLoopBackOff', '9 (2m11s ago)', '2h3m'))
    for ns, name, ready, st, rs, age in pods:
        rows.append(
            f'{ns:<20} {name:<49} {ready:<7} {st:<18} {rs:<15} {age:<7} {ip(r, True):<14} {(node if name == bad_pod else r.choice(nodes)):<45} <none>           <none>'
        )
    c.request(c.ret(k1, '\n'.join(rows)))
    k2 = c.call('kubectl', {'args': f'describe pod {bad_pod} -n shop'})
    rv = c.call('read_file', {'path': 'deploy/helm/checkout-api/values-production.yaml'})
    c.respond(
        c.text(
            f'{bad_pod} is in CrashLoopBackOff with 9 restarts. Describing it and reading the production Helm values in parallel.'
        ),
        k2,
        rv,
    )
    events = '\n'.join(
        f'  {t:<8} {reason:<16} {age:<22} {src:<17} {msg}'
        for t, reason, age, src, msg in [
            ('Normal', 'Scheduled', '2h3m', 'default-scheduler', f'Successfully assigned shop/{bad_pod} to {node}'),
            (
                'Normal',
                'Pulled',
                '2h3m',
                'kubelet',
                'Container image "123456789012.dkr.ecr.eu-west-1.amazonaws.com/checkout-api:4.18.0" already present on machine',
            ),
        ]
        + [
            ('Normal', 'Created', f'{m}m (x{k} over 2h3m)', 'kubelet', 'Created container: checkout-api')
            for k, m in [(9, 3)]
        ]
        + [
            (
                'Warning',
                'BackOff',
                '2m11s (x212 over 2h)',
                'kubelet',
                f'Back-off restarting failed container checkout-api in pod {bad_pod}_shop({uid(r)})',
            ),
            (
                'Warning',
                'Unhealthy',
                '2m40s (x31 over 2h)',
                'kubelet',
                'Readiness probe failed: Get "http://10.42.3.88:8080/actuator/health/readiness": dial tcp 10.42.3.88:8080: connect: connection refused',
            ),
        ]
    )
    describe = f"""Name:             {bad_pod}
Namespace:        shop
Priority:         0
Service Account:  checkout-api
Node:             {node}/10.42.3.17
Start Time:       Tue, 09 Sep 2025 14:02:41 +0000
Labels:           app.kubernetes.io/instance=checkout-api
                  app.kubernetes.io/name=checkout-api
                  pod-template-hash=7d9f8b6c4
                  version=4.18.0
Annotations:      checksum/config: {sha256(r)}
                  kubectl.kubernetes.io/restartedAt: 2025-09-09T14:01:58Z
Status:           Running
IP:               10.42.3.88
Controlled By:    ReplicaSet/checkout-api-7d9f8b6c4
Containers:
  checkout-api:
    Container ID:   containerd://{sha256(r)}
    Image:          123456789012.dkr.ecr.eu-west-1.amazonaws.com/checkout-api:4.18.0
    Image ID:       123456789012.dkr.ecr.eu-west-1.amazonaws.com/checkout-api@{digest}
    Port:           8080/TCP
    Host Port:      0/TCP
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
      Started:      Tue, 09 Sep 2025 16:01:12 +0000
      Finished:     Tue, 09 Sep 2025 16:02:49 +0000
    Ready:          False
    Restart Count:  9
    Limits:
      cpu:     1
      memory:  512Mi
    Requests:
      cpu:      250m
      memory:   512Mi
    Liveness:   http-get http://:8080/actuator/health/liveness delay=60s timeout=2s period=10s #success=1 #failure=3
    Readiness:  http-get http://:8080/actuator/health/readiness delay=20s timeout=2s period=5s #success=1 #failure=3
    Environment Variables from:
      checkout-api-config  ConfigMap  Optional: false
      checkout-api-secrets Secret     Optional: false
    Environment:
      JAVA_TOOL_OPTIONS:  -XX:MaxRAMPercentage=90.0 -XX:+ExitOnOutOfMemoryError
      SPRING_PROFILES_ACTIVE: production
    Mounts:
      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-{alnum(r, 5).lower()} (ro)
Conditions:
  Type                        Status
  PodReadyToStartContainers   True
  Initialized                 True
  Ready                       False
  ContainersReady             False
  PodScheduled                True
QoS Class:                   Burstable
Node-Selectors:              karpenter.sh/capacity-type=on-demand
Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Type     Reason           Age                    From               Message
  ----     ------           ----                   ----               -------
{events}"""
    values = [
        '# Production values for checkout-api. Managed by platform team; see docs/runbooks/checkout.md',
        'replicaCount: 4',
        '',
        'image:',
        '  repository: 123456789012.dkr.ecr.eu-west-1.amazonaws.com/checkout-api',
        '  tag: "4.18.0"',
        '  pullPolicy: IfNotPresent',
        '',
    ]
    for section in [
        'podAnnotations',
        'podLabels',
        'service',
        'ingress',
        'autoscaling',
        'pdb',
        'probes',
        'config',
        'featureFlags',
        'tracing',
        'kafka',
        'db',
        'redis',
        'topologySpreadConstraints',
    ]:
        values.append(f'{section}:')
        for _ in range(r.randint(5, 16)):
            k = r.choice(
                [
                    'enabled',
                    'timeoutSeconds',
                    'maxReplicas',
                    'minReplicas',
                    'host',
                    'port',
                    'poolSize',
                    'topic',
                    'groupId',
                    'sampleRate',
                    'path',
                    'className',
                    'targetCPUUtilizationPercentage',
                    'maxUnavailable',
                    'url',
                    'ttl',
                    'retries',
                ]
            ) + r.choice(['', 'Ms', 'Override', str(r.randint(1, 9))])
            v = r.choice(
                [
                    'true',
                    'false',
                    str(r.randint(1, 300)),
                    f'"{fake_domain(r)}"',
                    '"checkout-events.v3"',
                    '0.25',
                    '"/api/checkout"',
                    'null',
                ]
            )
            values.append(f'  {k}: {v}')
        values.append('')
    values[len(values) // 2 : len(values) // 2] = [
        'resources:',
        '  requests:',
        '    cpu: 250m',
        '    memory: 512Mi',
        '  limits:',
        '    cpu: "1"',
        '    memory: 512Mi   # lowered from 1Gi in PR #2291 (cost review)',
        '',
        'env:',
        '  JAVA_TOOL_OPTIONS: "-XX:MaxRAMPercentage=90.0 -XX:+ExitOnOutOfMemoryError"',
        '  SPRING_PROFILES_ACTIVE: production',
        '',
    ]
    c.request(c.ret(k2, describe), c.ret(rv, '\n'.join(values)))
    c.respond(
        c.text(
            f'Root cause: `{bad_pod}` on {node} is being **OOMKilled** (exit code 137). The production values set the memory limit to '
            '**512Mi** (lowered from 1Gi in PR #2291) while `JAVA_TOOL_OPTIONS` lets the heap use 90% of it, leaving too little for metaspace, '
            'threads and direct buffers. Image digest for the record: `'
            + digest
            + '`.\n\nFix: restore the limit to 1Gi, or set '
            '`-XX:MaxRAMPercentage=70.0`. The other three checkout pods are up but will likely hit the same limit under load.'
        )
    )
    c.indent = None
    return c


CSV_CUSTOMERS = [
    '株式会社ミドリ電機',
    '上海华联贸易有限公司',
    'Müller & Söhne GmbH',
    'Café Lumière SARL',
    'Øresund Logistik ApS',
    'Łódź Metal Sp. z o.o.',
    'Açaí Brasil Ltda.',
    'Nordic Snø AS',
    'Håkansson Bygg AB',
    'Ibérica Distribución S.L.',
    '서울테크 주식회사',
    'Zürcher Feinmechanik AG',
    'Acme Corp',
    'Globex Ltd',
    'Initech LLC',
    'Umbrella Trading',
    'Stark Components',
    'Δέλτα Εμπορική Α.Ε.',
]


@scenario('14_read_csv_sales_unicode')
def s14():
    c = Conv(1414, '2025-09-02T08:00:00.000000', provider='openai')
    r = c.rng
    c.facts = [
        'SO-2025-08-11873',
        '株式会社ミドリ電機',
        '18240.00',
        'Håkansson Bygg AB',
        'JPY',
        '2025-08-29',
        '서울테크 주식회사',
    ]
    c.request(
        c.sys(
            'You are a data analyst assistant. You can read files from the shared drive and run Python in a sandbox.'
        ),
        c.user('Open exports/sales_2025-08.csv and tell me the largest order of the month and anything unusual.'),
    )
    rf = c.call('read_file', {'path': 'exports/sales_2025-08.csv'})
    c.respond(rf)
    lines = ['order_id,order_date,customer,country,sales_rep,sku,qty,unit_price,currency,total,status,notes']
    reps = ['J. Fernández', 'K. Sato', 'M. Weiß', 'A. Nowak', 'L. Chen', 'S. Olsen']
    for i in range(520):
        cust = r.choice(CSV_CUSTOMERS)
        qty = r.randint(1, 40)
        price = round(r.uniform(4, 480), 2)
        cur = 'JPY' if 'ミドリ' in cust else 'KRW' if '서울' in cust else r.choice(['EUR', 'EUR', 'USD', 'CHF', 'SEK'])
        note = r.choice(['', '', '', '', 'rush', 'partial shipment', '"backorder, ship with next PO"', 'discount 5%'])
        lines.append(
            f'SO-2025-08-{10000 + i * 3 + r.randint(0, 2)},2025-08-{r.randint(1, 31):02d},"{cust}",{r.choice(["JP", "CN", "DE", "FR", "DK", "PL", "BR", "NO", "SE", "ES", "KR", "CH", "US", "GR"])},'
            f'{r.choice(reps)},{r.choice([p[0] for p in PRODUCTS])},{qty},{price:.2f},{cur},{qty * price:.2f},{r.choice(["shipped", "shipped", "invoiced", "cancelled", "open"])},{note}'
        )
    lines.insert(
        291,
        'SO-2025-08-11873,2025-08-29,"株式会社ミドリ電機",JP,K. Sato,TNT-0202,48,380.00,JPY,18240.00,invoiced,"price entered in EUR, currency field says JPY"',
    )
    lines.append(
        'SO-2025-08-11561,2025-08-31,"Håkansson Bygg AB",SE,S. Olsen,PLS-1810,-12,119.00,SEK,-1428.00,shipped,negative qty?'
    )
    csv_text = '\n'.join(lines)
    c.request(c.ret(rf, csv_text))
    py = c.call(
        'run_python',
        {
            'code': "import pandas as pd\ndf = pd.read_csv('exports/sales_2025-08.csv')\n"
            "print(df.sort_values('total', ascending=False).head(3)[['order_id','customer','total','currency']])\n"
            "print(df[df.customer == '서울테크 주식회사'].shape[0])"
        },
    )
    c.respond(c.text('The file has ~520 rows. Let me sort by total to double-check.'), py)
    c.request(
        c.ret(
            py,
            '            order_id           customer     total currency\n291  SO-2025-08-11873  株式会社ミドリ電機  18240.00      JPY\n'
            f'88   SO-2025-08-10262  Acme Corp  {r.randint(15000, 18000)}.40      USD\n412  SO-2025-08-11236  Globex Ltd  14977.20      EUR\n31',
        )
    )
    c.respond(
        c.text(
            'Largest order: **SO-2025-08-11873** from 株式会社ミドリ電機 on 2025-08-29, total 18240.00 — but it is flagged as **JPY** while the note '
            'says the price was entered in EUR. As JPY it would be ~€110, as EUR it is the biggest order of the month, so it needs correcting.\n\n'
            'Other anomalies:\n- Håkansson Bygg AB has an order with quantity -12 (SO-2025-08-11561), probably a return booked as a sale.\n'
            '- 서울테크 주식회사 has 31 orders, all in KRW — check they are converted in the monthly report.'
        )
    )
    return c


@scenario('15_build_log_typescript')
def s15():
    c = Conv(1515, '2025-09-11T09:12:00.000000', provider='anthropic')
    r = c.rng
    c.facts = [
        'TS2345',
        'src/components/checkout/CheckoutForm.tsx',
        '@stripe/stripe-js',
        '4.10.0',
        'ELIFECYCLE',
        'PaymentIntentResult',
        '5.6.2',
    ]
    c.request(
        c.sys(
            'You are a CI assistant for the storefront monorepo (pnpm workspaces, Next.js, TypeScript). Diagnose failing builds.'
        ),
        c.user('The main branch build #8812 is red. Why?'),
    )
    b = c.call('get_ci_log', {'pipeline': 'storefront', 'build': 8812, 'step': 'build'})
    c.respond(b)
    t0 = datetime(2025, 9, 11, 8, 57, 3)

    def ts(i):
        return (t0 + timedelta(milliseconds=i * 137)).strftime('%H:%M:%S.%f')[:-3]

    pkgs = [
        'react@18.3.1',
        'next@14.2.15',
        'typescript@5.6.2',
        '@stripe/stripe-js@4.10.0',
        'zod@3.23.8',
        '@tanstack/react-query@5.59.0',
        'date-fns@4.1.0',
        'eslint@8.57.1',
        'tailwindcss@3.4.14',
        'postcss@8.4.47',
        'sharp@0.33.5',
        '@sentry/nextjs@8.35.0',
        'i18next@23.16.4',
        'clsx@2.1.1',
    ]
    out = [
        'Running on runner gha-ubuntu-22-04-x64-7 (ephemeral)',
        '$ corepack enable && pnpm -v',
        '9.12.2',
        '$ pnpm install --frozen-lockfile',
        'Lockfile is up to date, resolution step is skipped',
        'Progress: resolved 1, reused 0, downloaded 0, added 0',
    ]
    for i in range(1, 60):
        out.append(f'Progress: resolved {i * 37}, reused {i * 35}, downloaded {i * 2}, added {i * 31}')
    out += [
        ' WARN  deprecated inflight@1.0.6: This module is not supported, and leaks memory.',
        ' WARN  deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported',
        'Packages: +2184',
        '++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++',
    ]
    out += [f'+ {p}' for p in pkgs]
    out += [
        'Done in 41.8s',
        '$ pnpm -r --filter ./apps/web run build',
        '',
        '> @storefront/web@0.0.0 build /home/runner/work/storefront/apps/web',
        '> next build',
        '',
        '  ▲ Next.js 14.2.15',
        '  - Environments: .env.production',
        '',
        '   Creating an optimized production build ...',
    ]
    for i in range(140):
        out.append(
            f'[{ts(i)}] '
            + r.choice(
                [
                    f'compiled client chunk {r.randint(100, 999)} ({r.randint(3, 400)} kB)',
                    (
                        f'warn  - ./src/{r.choice(["lib", "hooks", "components/ui"])}/{r.choice(["useCart", "format", "Button", "Modal", "analytics"])}.ts: '
                        f"React Hook useEffect has a missing dependency: '{r.choice(['locale', 'cartId', 'onClose'])}'"
                    ),
                    f'info  - Collecting page data for /{r.choice(["products", "cart", "account", "search", "checkout"])}/[slug]',
                    'Browserslist: caniuse-lite is outdated. Please run: npx update-browserslist-db@latest',
                ]
            )
        )
    out += [' ✓ Compiled successfully', '   Linting and checking validity of types  ...', '']
    errors = []
    for i in range(9):
        f = r.choice(
            [
                'src/lib/api/orders.ts',
                'src/hooks/useCheckout.ts',
                'src/components/cart/CartSummary.tsx',
                'src/pages/account/orders.tsx',
            ]
        )
        errors.append(
            f"./{f}:{r.randint(10, 300)}:{r.randint(2, 40)}\nType error: Property '{r.choice(['lineItems', 'taxTotal', 'discountCode'])}' "
            f"does not exist on type '{r.choice(['Order', 'Cart', 'CheckoutSession'])}'. (TS2339)\n"
        )
    errors.insert(
        5,
        "./src/components/checkout/CheckoutForm.tsx:142:17\nType error: Argument of type 'PaymentIntentResult' is not assignable to parameter "
        "of type 'ConfirmPaymentResult'.\n  Property 'paymentIntent' is optional in type 'PaymentIntentResult' but required in type "
        '\'ConfirmPaymentResult\'. (TS2345)\n\n  140 |   const result = await stripe.confirmPayment({ elements, redirect: "if_required" });\n'
        '  141 |   if (result.error) return setError(result.error.message);\n> 142 |   onPaymentConfirmed(result);\n      |                 ^\n'
        '  143 |   router.push(`/checkout/success?order=${orderId}`);\n',
    )
    out += ['Failed to compile.', ''] + errors
    out += [
        'Static worker exited with code: 1 and signal: null',
        '/home/runner/work/storefront/apps/web:',
        ' ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @storefront/web@0.0.0 build: `next build`',
        'Exit status 1',
        ' ELIFECYCLE  Command failed with exit code 1.',
        '##[error]Process completed with exit code 1.',
        f'Post job cleanup. Cache saved with key: pnpm-store-{sha256(r)[:16]}',
    ]
    log = '\n'.join(out)
    c.request(c.ret(b, log))
    d = c.call('git_log', {'path': 'pnpm-lock.yaml', 'n': 3})
    c.respond(
        c.text(
            'Type errors in the Next.js build. The TS2345 in CheckoutForm looks like an API change. Checking recent dependency bumps.'
        ),
        d,
    )
    c.request(
        c.ret(
            d,
            'a81c9e2 chore(deps): bump @stripe/stripe-js from 4.8.0 to 4.10.0 (#1942)\n5f0d113 chore(deps): bump next from 14.2.14 to 14.2.15 (#1938)\n'
            '0c2e7aa chore(deps): bump zod to 3.23.8 (#1931)',
        )
    )
    c.respond(
        c.text(
            'Build #8812 fails in `next build` type checking (pnpm then reports `ELIFECYCLE`, exit code 1). The blocking error is:\n\n'
            '- **TS2345** in `src/components/checkout/CheckoutForm.tsx:142:17` — `PaymentIntentResult` is no longer assignable to '
            '`ConfirmPaymentResult` because `paymentIntent` became optional.\n\nThis started with the Dependabot bump of **@stripe/stripe-js** '
            'to **4.10.0** (#1942). TypeScript 5.6.2 itself is unchanged. Fix: narrow `result.paymentIntent` before calling '
            '`onPaymentConfirmed`, or pin @stripe/stripe-js to 4.8.0 until the form is updated. The TS2339 errors in the other files are separate '
            'and worth re-checking once this one is fixed.'
        )
    )
    return c


@scenario('16_java_stacktrace_logs')
def s16():
    c = Conv(1616, '2025-09-09T16:20:00.000000', provider='gemini')
    r = c.rng
    trace = alnum(r, 32, '0123456789abcdef')
    c.facts = [
        'org.postgresql.util.PSQLException',
        'remaining connection slots are reserved',
        'HikariPool-1',
        'OrderRepository.java:88',
        trace,
        '30000ms',
    ]
    c.request(
        c.sys('You are an on-call assistant. You can fetch logs from Loki and query Postgres metrics.'),
        c.user('orders-service is throwing 500s for some requests. Pull the last 15 minutes of error logs.'),
    )
    q = c.call('loki_query', {'query': '{app="orders-service", level=~"ERROR|WARN"}', 'since': '15m', 'limit': 400})
    c.respond(q)
    frames = [
        '\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:885)',
        '\tat jakarta.servlet.http.HttpServlet.service(HttpServlet.java:658)',
        '\tat org.apache.catalina.core.ApplicationFilterChain.internalDoFilter(ApplicationFilterChain.java:195)',
        '\tat org.apache.catalina.core.ApplicationFilterChain.doFilter(ApplicationFilterChain.java:140)',
        '\tat org.springframework.web.filter.OncePerRequestFilter.doFilter(OncePerRequestFilter.java:116)',
        '\tat io.micrometer.tracing.otel.bridge.OtelTracer.withSpan(OtelTracer.java:64)',
        '\tat org.apache.coyote.http11.Http11Processor.service(Http11Processor.java:399)',
        '\tat org.apache.tomcat.util.net.NioEndpoint$SocketProcessor.doRun(NioEndpoint.java:1789)',
        '\tat java.base/java.lang.Thread.run(Thread.java:1583)',
    ]
    lines = []
    t0 = datetime(2025, 9, 9, 16, 5, 0)
    for i in range(70):
        t = (t0 + timedelta(seconds=i * 12.7)).strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3] + 'Z'
        tid = alnum(r, 32, '0123456789abcdef')
        kind = r.random()
        if kind < 0.45:
            lines.append(
                f'{t} WARN  [orders-service,{tid},{alnum(r, 16, "0123456789abcdef")}] 1 --- [nio-8080-exec-{r.randint(1, 200)}] com.zaxxer.hikari.pool.HikariPool : '
                f'HikariPool-1 - Connection is not available, request timed out after 30000ms (total={r.choice([20, 20, 19])}, active=20, idle=0, waiting={r.randint(3, 60)})'
            )
        elif kind < 0.8:
            lines.append(
                f'{t} ERROR [orders-service,{tid},{alnum(r, 16, "0123456789abcdef")}] 1 --- [nio-8080-exec-{r.randint(1, 200)}] o.a.c.c.C.[.[.[/].[dispatcherServlet] : '
                'Servlet.service() for servlet [dispatcherServlet] threw exception\norg.springframework.dao.DataAccessResourceFailureException: '
                'Unable to acquire JDBC Connection [HikariPool-1 - Connection is not available, request timed out after 30000ms]\n'
                '\tat com.acme.orders.repository.OrderRepository.findOpenOrdersByCustomer(OrderRepository.java:'
                + str(r.randint(40, 140))
                + ')\n'
                '\tat com.acme.orders.service.OrderService.listOpenOrders(OrderService.java:'
                + str(r.randint(50, 200))
                + ')\n'
                + '\n'.join(frames[: r.randint(4, 9)])
            )
        else:
            lines.append(
                f'{t} WARN  [orders-service,,] 1 --- [   scheduling-1] c.a.o.jobs.ReconciliationJob : reconciliation batch {r.randint(1000, 9999)} '
                f'took {r.randint(1200, 9000)} ms (threshold 1000 ms)'
            )
    special = (
        f'2025-09-09T16:12:44.031Z ERROR [orders-service,{trace},{alnum(r, 16, "0123456789abcdef")}] 1 --- [nio-8080-exec-17] '
        'c.a.o.web.GlobalExceptionHandler : Unhandled exception on GET /api/v2/orders?customerId=88123&status=OPEN\n'
        'org.springframework.transaction.CannotCreateTransactionException: Could not open JPA EntityManager for transaction\n'
        '\tat org.springframework.orm.jpa.JpaTransactionManager.doBegin(JpaTransactionManager.java:466)\n'
        '\tat com.acme.orders.repository.OrderRepository.findOpenOrdersByCustomer(OrderRepository.java:88)\n'
        + '\n'.join(frames)
        + '\nCaused by: org.hibernate.exception.JDBCConnectionException: Unable to open JDBC Connection for DDL execution\n'
        '\tat org.hibernate.exception.internal.SQLStateConversionDelegate.convert(SQLStateConversionDelegate.java:100)\n\t... 54 common frames omitted\n'
        'Caused by: org.postgresql.util.PSQLException: FATAL: remaining connection slots are reserved for roles with the SUPERUSER attribute\n'
        '\tat org.postgresql.core.v3.ConnectionFactoryImpl.doAuthentication(ConnectionFactoryImpl.java:698)\n'
        '\tat org.postgresql.core.v3.ConnectionFactoryImpl.tryConnect(ConnectionFactoryImpl.java:207)\n'
        '\tat com.zaxxer.hikari.pool.HikariPool.createPoolEntry(HikariPool.java:477)\n\t... 12 common frames omitted'
    )
    lines.insert(int(len(lines) * 0.62), special)
    c.request(c.ret(q, '\n'.join(lines)))
    m = c.call('pg_stat_activity_summary', {'cluster': 'orders-pg-prod'})
    c.respond(
        c.text(
            f'Trace {trace} shows the root cause: org.postgresql.util.PSQLException "remaining connection slots are reserved". Checking connection usage on the database.'
        ),
        m,
    )
    c.request(
        c.ret(
            m,
            {
                'max_connections': 200,
                'superuser_reserved_connections': 3,
                'total': 197,
                'by_application': {'orders-service': 160, 'reporting-etl': 31, 'psql': 2, 'pg_cron': 4},
                'idle_in_transaction': 58,
            },
        )
    )
    c.respond(
        c.text(
            'Diagnosis:\n- Requests fail at `OrderRepository.java:88` because HikariPool-1 cannot get a connection within 30000ms.\n'
            '- The underlying error (trace `'
            + trace
            + '`) is `org.postgresql.util.PSQLException: FATAL: remaining connection slots are reserved '
            'for roles with the SUPERUSER attribute` — Postgres is at 197/200 connections.\n- orders-service holds 160 of them and 58 sessions are idle in transaction.\n\n'
            'Short term: restart the reporting-etl job and terminate idle-in-transaction sessions. Long term: cap the Hikari pool size per replica and add PgBouncer.'
        )
    )
    return c


@scenario('17_journalctl_sshd_postgres')
def s17():
    c = Conv(1717, '2025-09-13T07:31:00.000000', provider='openai')
    r = c.rng
    attacker = '203.0.113.77'
    c.facts = [
        attacker,
        'postgresql@16-main.service',
        'Address already in use',
        'status=1/FAILURE',
        '48213',
        'listen_port = 5432',
        'pgbouncer',
    ]
    c.request(
        c.sys(
            'You are a Linux operations assistant with SSH access to the fleet (read-only commands unless told otherwise).'
        ),
        c.user('Postgres on db-02 did not come back after the reboot last night. Check the journal.'),
    )
    j = c.call(
        'ssh_exec',
        {
            'host': 'db-02',
            'command': 'journalctl -b --no-pager -u postgresql@16-main -u sshd -u pgbouncer --since "2025-09-13 02:00"',
        },
    )
    c.respond(j)
    t0 = datetime(2025, 9, 13, 2, 14, 0)
    users = ['root', 'admin', 'ubuntu', 'postgres', 'oracle', 'test', 'git', 'deploy', 'user', 'pi', 'ftpuser', 'guest']
    out = []
    tt = t0
    for i in range(380):
        tt += timedelta(seconds=r.uniform(0.2, 9))
        stamp = tt.strftime('%b %d %H:%M:%S')
        pid = r.randint(40000, 60000)
        src = attacker if r.random() < 0.55 else ip(r)
        u = r.choice(users)
        kind = r.random()
        if kind < 0.5:
            out.append(
                f'{stamp} db-02 sshd[{pid}]: Failed password for invalid user {u} from {src} port {r.randint(30000, 65000)} ssh2'
            )
        elif kind < 0.7:
            out.append(
                f'{stamp} db-02 sshd[{pid}]: Connection closed by authenticating user {u} {src} port {r.randint(30000, 65000)} [preauth]'
            )
        elif kind < 0.85:
            out.append(
                f'{stamp} db-02 sshd[{pid}]: pam_unix(sshd:auth): authentication failure; logname= uid=0 euid=0 tty=ssh ruser= rhost={src}  user={u}'
            )
        elif kind < 0.93:
            out.append(
                f'{stamp} db-02 sshd[{pid}]: error: maximum authentication attempts exceeded for invalid user {u} from {src} port {r.randint(30000, 65000)} ssh2 [preauth]'
            )
        else:
            out.append(
                f'{stamp} db-02 sshd[{pid}]: Accepted publickey for deploy from 10.20.0.{r.randint(5, 30)} port {r.randint(30000, 65000)} ssh2: ED25519 SHA256:{alnum(r, 43)}'
            )
    block = [
        'Sep 13 02:41:07 db-02 systemd[1]: Starting pgbouncer.service - connection pooler for PostgreSQL...',
        'Sep 13 02:41:07 db-02 pgbouncer[1187]: 2025-09-13 02:41:07.512 UTC [1187] LOG kernel file descriptor limit: 65536 (hard: 65536); max_client_conn: 2000, max expected fd use: 2312',
        'Sep 13 02:41:07 db-02 pgbouncer[1187]: 2025-09-13 02:41:07.513 UTC [1187] LOG listening on 0.0.0.0:5432',
        'Sep 13 02:41:07 db-02 systemd[1]: Started pgbouncer.service - connection pooler for PostgreSQL.',
        'Sep 13 02:41:08 db-02 systemd[1]: Starting postgresql@16-main.service - PostgreSQL Cluster 16-main...',
        'Sep 13 02:41:08 db-02 postgresql@16-main[48213]: 2025-09-13 02:41:08.201 UTC [48213] LOG:  starting PostgreSQL 16.4 (Ubuntu 16.4-1.pgdg22.04+1) on x86_64-pc-linux-gnu',
        'Sep 13 02:41:08 db-02 postgresql@16-main[48213]: 2025-09-13 02:41:08.202 UTC [48213] LOG:  could not bind IPv4 address "0.0.0.0": Address already in use',
        'Sep 13 02:41:08 db-02 postgresql@16-main[48213]: 2025-09-13 02:41:08.202 UTC [48213] HINT:  Is another postmaster already running on port 5432? If not, wait a few seconds and retry.',
        'Sep 13 02:41:08 db-02 postgresql@16-main[48213]: 2025-09-13 02:41:08.202 UTC [48213] WARNING:  could not create listen socket for "*"',
        'Sep 13 02:41:08 db-02 postgresql@16-main[48213]: 2025-09-13 02:41:08.202 UTC [48213] FATAL:  could not create any TCP/IP sockets',
        'Sep 13 02:41:08 db-02 postgresql@16-main[48213]: 2025-09-13 02:41:08.204 UTC [48213] LOG:  database system is shut down',
        'Sep 13 02:41:08 db-02 postgresql@16-main[48209]: pg_ctl: could not start server',
        "Sep 13 02:41:08 db-02 systemd[1]: postgresql@16-main.service: Can't open PID file /run/postgresql/16-main.pid (yet?) after start: No such file or directory",
        'Sep 13 02:41:08 db-02 systemd[1]: postgresql@16-main.service: Control process exited, code=exited, status=1/FAILURE',
        "Sep 13 02:41:08 db-02 systemd[1]: postgresql@16-main.service: Failed with result 'exit-code'.",
        'Sep 13 02:41:08 db-02 systemd[1]: Failed to start postgresql@16-main.service - PostgreSQL Cluster 16-main.',
    ]
    out[len(out) // 3 : len(out) // 3] = block
    c.request(c.ret(j, '\n'.join(out)))
    cf = c.call('ssh_exec', {'host': 'db-02', 'command': 'grep -n listen_port /etc/pgbouncer/pgbouncer.ini'})
    c.respond(
        c.text(
            'PostgreSQL (PID 48213) failed with "Address already in use": pgbouncer grabbed 0.0.0.0:5432 first. Checking its config.'
        ),
        cf,
    )
    c.request(c.ret(cf, '14:listen_port = 5432'))
    c.respond(
        c.text(
            'Findings on db-02:\n\n1. `postgresql@16-main.service` failed at 02:41:08 with `status=1/FAILURE`: PID 48213 could not bind 0.0.0.0:5432 '
            '(**Address already in use**) because **pgbouncer** started one second earlier and is configured with `listen_port = 5432`.\n'
            '   Fix: move pgbouncer to 6432 (and update clients), or make Postgres listen only on localhost on a different port.\n'
            f'2. Unrelated but important: the journal is full of SSH brute-force attempts, most from **{attacker}**. Password auth should be disabled '
            'and that address blocked.'
        )
    )
    return c


@scenario('18_pytest_output')
def s18():
    c = Conv(1818, '2025-09-05T15:44:00.000000', provider='anthropic')
    r = c.rng
    c.facts = [
        'tests/pricing/test_discounts.py::test_bulk_discount_tiers[enterprise-250]',
        "Decimal('1349.10')",
        "Decimal('1349.01')",
        'discounts.py:212',
        '3 failed, 1184 passed',
        'test_vat_reverse_charge_eu',
    ]
    c.request(
        c.sys(
            'You are a coding agent for the pricing service. Run tests, read failures carefully, and fix the code, not the tests.'
        ),
        c.user('Run the full test suite and fix whatever is failing.'),
    )
    t = c.call('bash', {'command': 'pytest -q -p no:cacheprovider', 'timeout': 600})
    c.respond(t)
    mods = [
        'tests/api/test_quotes.py',
        'tests/api/test_catalog.py',
        'tests/pricing/test_discounts.py',
        'tests/pricing/test_tax.py',
        'tests/pricing/test_rounding.py',
        'tests/billing/test_proration.py',
        'tests/billing/test_invoices.py',
        'tests/integration/test_checkout_flow.py',
        'tests/test_currency.py',
        'tests/test_feature_flags.py',
    ]
    out = [
        '============================= test session starts ==============================',
        'platform linux -- Python 3.12.5, pytest-8.3.3, pluggy-1.5.0',
        'rootdir: /workspace/pricing-service',
        'configfile: pyproject.toml',
        'plugins: anyio-4.6.0, xdist-3.6.1, cov-5.0.0, hypothesis-6.112.1',
        'collected 1187 items',
        '',
    ]
    total = 0
    for m_ in mods * 3:
        n = r.randint(20, 70)
        total += n
        dots = ''.join('F' if (m_ == 'tests/pricing/test_discounts.py' and k == 11) else '.' for k in range(n))
        out.append(f'{m_} {dots:<60} [{min(100, total * 100 // 1187):>3}%]')
    out += ['', '=================================== FAILURES ===================================']
    fail1 = """___________________ test_bulk_discount_tiers[enterprise-250] ___________________

tier = 'enterprise', qty = 250

    @pytest.mark.parametrize(("tier", "qty"), TIER_CASES)
    def test_bulk_discount_tiers(tier, qty):
        quote = build_quote(tier=tier, sku="SKU-PRO-ANNUAL", qty=qty)
>       assert quote.total == EXPECTED_TOTALS[(tier, qty)]
E       AssertionError: assert Decimal('1349.01') == Decimal('1349.10')
E        +  where Decimal('1349.01') = Quote(sku='SKU-PRO-ANNUAL', qty=250, tier='enterprise', currency='EUR', total=Decimal('1349.01')).total

tests/pricing/test_discounts.py:88: AssertionError
----------------------------- Captured log call ------------------------------
DEBUG    pricing.discounts:discounts.py:205 tier=enterprise qty=250 base=Decimal('1499.00')
DEBUG    pricing.discounts:discounts.py:212 applying 10% then rounding with ROUND_DOWN"""
    fail2 = """________________________ test_vat_reverse_charge_eu ________________________

    def test_vat_reverse_charge_eu():
        q = build_quote(country="AT", vat_id="ATU12345678", sku="SKU-PRO-ANNUAL", qty=1)
>       assert q.tax == Decimal("0.00")
E       AssertionError: assert Decimal('1.20') == Decimal('0.00')

tests/pricing/test_tax.py:141: AssertionError"""
    noise = [
        f'{r.choice(mods)}::test_{r.choice(["quote", "catalog", "rounding", "proration", "currency"])}_{alnum(r, 6).lower()}'
        for _ in range(40)
    ]
    out += [
        fail1,
        '',
        fail2,
        '',
        """________________ test_checkout_flow_applies_coupon[COUPON10] _________________

    async def test_checkout_flow_applies_coupon(client, coupon):
        resp = await client.post("/v1/checkout", json={"sku": "SKU-PRO-ANNUAL", "coupon": coupon})
>       assert resp.json()["total"] == "1349.10"
E       AssertionError: assert '1349.01' == '1349.10'

tests/integration/test_checkout_flow.py:57: AssertionError""",
    ]
    out += ['=============================== warnings summary ===============================']
    for n_ in noise:
        out.append(
            f'{n_}\n  /workspace/pricing-service/.venv/lib/python3.12/site-packages/pydantic/_internal/_config.py:291: PydanticDeprecatedSince20: '
            'Support for class-based `config` is deprecated, use ConfigDict instead.'
        )
    out += [
        '',
        '-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html',
        '=========================== short test summary info ============================',
        "FAILED tests/pricing/test_discounts.py::test_bulk_discount_tiers[enterprise-250] - AssertionError: assert Decimal('1349.01') == Decimal('1349.10')",
        "FAILED tests/pricing/test_tax.py::test_vat_reverse_charge_eu - AssertionError: assert Decimal('1.20') == Decimal('0.00')",
        "FAILED tests/integration/test_checkout_flow.py::test_checkout_flow_applies_coupon[COUPON10] - AssertionError: assert '1349.01' == '1349.10'",
        '=========== 3 failed, 1184 passed, 40 warnings in 97.43s (0:01:37) ============',
    ]
    c.request(c.ret(t, '\n'.join(out)))
    rd = c.call('read_file', {'path': 'src/pricing/discounts.py', 'start_line': 195, 'end_line': 225})
    c.respond(
        c.think(
            "test_bulk_discount_tiers expects Decimal('1349.10') but gets Decimal('1349.01'); the log shows ROUND_DOWN at discounts.py:212. "
            '1499.00 * 0.9 = 1349.10 exactly, so 1349.01 suggests digits swapped or a wrong quantize. Read the code.'
        ),
        c.text(
            'Three failures. Two of them (1349.01 vs 1349.10) share a cause in src/pricing/discounts.py:212; the reverse-charge VAT one is separate.'
        ),
        rd,
    )
    code = '\n'.join(
        f'{i}\t{l}'
        for i, l in enumerate(
            [
                'def apply_tier_discount(base: Decimal, tier: str, qty: int) -> Decimal:',
                '    pct = TIER_PCT[tier]',
                '    log.debug("tier=%s qty=%s base=%r", tier, qty, base)',
                '    discounted = base * (1 - pct)',
                '    cents = int(discounted * 100)',
                '    # keep cents stable across currencies',
                '    log.debug("applying %d%% then rounding with ROUND_DOWN", pct * 100)',
                '    return Decimal(str(cents)[::-1][:2]).scaleb(-2) + Decimal(cents // 100)',
            ],
            205,
        )
    )
    c.request(c.ret(rd, code))
    e = c.call(
        'edit_file',
        {
            'path': 'src/pricing/discounts.py',
            'old': '    return Decimal(str(cents)[::-1][:2]).scaleb(-2) + Decimal(cents // 100)',
            'new': '    return discounted.quantize(Decimal("0.01"), rounding=ROUND_DOWN)',
        },
    )
    c.respond(e)
    c.request(c.ret(e, 'ok'))
    c.respond(
        c.text(
            'Fixed `apply_tier_discount` (src/pricing/discounts.py:212): the cents were rebuilt with string slicing, which turned '
            "Decimal('1349.10') into Decimal('1349.01'). It now uses `quantize(..., ROUND_DOWN)`. That resolves "
            'tests/pricing/test_discounts.py::test_bulk_discount_tiers[enterprise-250] and the coupon checkout test.\n\n'
            'Remaining from the original run (3 failed, 1184 passed): test_vat_reverse_charge_eu still expects 0.00 VAT for an Austrian VAT ID — '
            'that looks like a real bug in reverse-charge detection; want me to look at it next?'
        )
    )
    return c


@scenario('19_sentry_event_json')
def s19():
    c = Conv(1919, '2025-09-06T12:00:00.000000', provider='openai')
    r = c.rng
    event_id = uuid.UUID(int=r.getrandbits(128)).hex
    c.facts = [
        event_id,
        "KeyError: 'currency_code'",
        'web@4.12.0+a1b2c3d',
        'app/payments/webhooks.py',
        'evt_3QxR2bLkdIwHu7ix0Tq9pLmN',
        '1284',
    ]
    c.request(
        c.sys('You are a debugging assistant with access to the Sentry API for the "web" project.'),
        c.user("What is the top new issue since yesterday's release? Show me the latest event."),
    )
    li = c.call(
        'sentry_list_issues', {'project': 'web', 'query': 'is:unresolved firstSeen:-24h', 'sort': 'freq', 'limit': 5}
    )
    c.respond(li)
    issues = [
        {
            'id': str(r.randint(5 * 10**9, 6 * 10**9)),
            'shortId': f'WEB-{r.randint(1000, 9999)}',
            'title': t,
            'culprit': cu,
            'count': str(n),
            'userCount': r.randint(1, 300),
            'firstSeen': rdate(r, '2025-09-05T10:00:00', 1),
            'level': 'error',
            'status': 'unresolved',
        }
        for t, cu, n in [
            ("KeyError: 'currency_code'", 'app.payments.webhooks in handle_charge_succeeded', '1284'),
            ('OperationalError: canceling statement due to statement timeout', 'app.reports.views in export_csv', 211),
            ('TimeoutError: Redis command timed out', 'app.cache in get_or_set', 97),
        ]
    ]
    issues[0]['count'] = '1284'
    issues[0]['metadata'] = {
        'type': 'KeyError',
        'value': "'currency_code'",
        'filename': 'app/payments/webhooks.py',
        'function': 'handle_charge_succeeded',
    }
    c.request(c.ret(li, issues))
    ev = c.call('sentry_latest_event', {'issue_id': issues[0]['id']})
    c.respond(
        c.text(
            "The top new issue is KeyError: 'currency_code' in the Stripe webhook handler (1284 events). Fetching the latest event."
        ),
        ev,
    )
    frames = []
    for i in range(24):
        fn = r.choice(
            [
                'dispatch',
                'view',
                '_get_response',
                'inner',
                'wrapped_view',
                'handle',
                'process_request',
                '__call__',
                'sentry_wrapped',
                'run',
            ]
        )
        mod = r.choice(
            [
                'django.core.handlers.base',
                'django.core.handlers.exception',
                'django.views.decorators.csrf',
                'rest_framework.views',
                'sentry_sdk.integrations.django',
                'app.middleware.tenant',
                'app.middleware.audit',
            ]
        )
        frames.append(
            {
                'filename': mod.replace('.', '/') + '.py',
                'abs_path': f'/app/.venv/lib/python3.12/site-packages/{mod.replace(".", "/")}.py',
                'function': fn,
                'module': mod,
                'lineno': r.randint(20, 600),
                'in_app': mod.startswith('app.'),
                'context_line': f'        response = {fn}(request, *args, **kwargs)',
                'pre_context': ['    def inner(request, *args, **kwargs):', '        try:'],
                'post_context': ['        except Exception as exc:', '            raise'],
                'vars': {'request': "<WSGIRequest: POST '/webhooks/stripe/'>", 'args': '()', 'kwargs': '{}'},
            }
        )
    frames.append(
        {
            'filename': 'app/payments/webhooks.py',
            'abs_path': '/app/app/payments/webhooks.py',
            'function': 'handle_charge_succeeded',
            'module': 'app.payments.webhooks',
            'lineno': 143,
            'in_app': True,
            'context_line': "    currency = payload['data']['object']['metadata']['currency_code']",
            'pre_context': [
                'def handle_charge_succeeded(payload: dict) -> None:',
                "    charge_id = payload['data']['object']['id']",
                '    order = Order.objects.get(charge_id=charge_id)',
            ],
            'post_context': ['    order.mark_paid(currency=currency)', '    send_receipt.delay(order.id)'],
            'vars': {
                'charge_id': "'ch_3QxR2bLkdIwHu7ix0mZ8Yq4T'",
                'payload': {
                    'id': "'evt_3QxR2bLkdIwHu7ix0Tq9pLmN'",
                    'type': "'charge.succeeded'",
                    'data': {'object': {'metadata': {'order_ref': "'ORD-88213'"}}},
                },
            },
        }
    )
    crumbs = [
        {
            'timestamp': 1757160000 + i * 0.37,
            'type': r.choice(['http', 'query', 'default']),
            'category': r.choice(['httplib', 'query', 'django.request', 'celery']),
            'level': 'info',
            'message': r.choice(
                [
                    'SELECT "orders_order"."id", "orders_order"."status" FROM "orders_order" WHERE "orders_order"."charge_id" = %s LIMIT 21',
                    'POST https://api.stripe.com/v1/charges/ch_3QxR2bLkdIwHu7ix0mZ8Yq4T [200]',
                    'SELECT 1',
                    'task send_receipt queued',
                    'GET https://hooks.slack.com/services/T000/B000 [200]',
                ]
            ),
            'data': {'duration_ms': round(r.uniform(0.3, 80), 2)},
        }
        for i in range(60)
    ]
    event = {
        'eventID': event_id,
        'groupID': issues[0]['id'],
        'dateCreated': '2025-09-06T11:58:21.337Z',
        'platform': 'python',
        'message': '',
        'title': "KeyError: 'currency_code'",
        'release': {'version': 'web@4.12.0+a1b2c3d', 'dateCreated': '2025-09-05T09:12:00Z'},
        'environment': 'production',
        'user': {'id': '88213', 'email': None, 'ip_address': '{{auto}}'},
        'tags': [
            {'key': k, 'value': v}
            for k, v in [
                ('browser', 'Stripe/1.0'),
                ('environment', 'production'),
                ('handled', 'no'),
                ('level', 'error'),
                ('mechanism', 'django'),
                ('release', 'web@4.12.0+a1b2c3d'),
                ('server_name', 'web-6f7c9d-2xk8p'),
                ('transaction', '/webhooks/stripe/'),
                ('url', 'https://shop.example.com/webhooks/stripe/'),
            ]
        ],
        'contexts': {
            'runtime': {'name': 'CPython', 'version': '3.12.5'},
            'os': {'name': 'Linux', 'kernel_version': '6.1.0-25-cloud-amd64'},
            'trace': {
                'trace_id': uuid.UUID(int=r.getrandbits(128)).hex,
                'span_id': alnum(r, 16, '0123456789abcdef'),
                'op': 'http.server',
                'status': 'internal_error',
            },
        },
        'entries': [
            {
                'type': 'exception',
                'data': {
                    'values': [
                        {
                            'type': 'KeyError',
                            'value': "'currency_code'",
                            'module': None,
                            'mechanism': {'type': 'django', 'handled': False},
                            'stacktrace': {'frames': frames},
                        }
                    ]
                },
            },
            {'type': 'breadcrumbs', 'data': {'values': crumbs}},
            {
                'type': 'request',
                'data': {
                    'method': 'POST',
                    'url': 'https://shop.example.com/webhooks/stripe/',
                    'headers': [
                        ['Content-Type', 'application/json; charset=utf-8'],
                        ['Stripe-Signature', 't=1757159901,v1=' + sha256(r)],
                        ['User-Agent', 'Stripe/1.0 (+https://stripe.com/docs/webhooks)'],
                    ],
                    'data': '{"id": "evt_3QxR2bLkdIwHu7ix0Tq9pLmN", "type": "charge.succeeded", ...}',
                },
            },
        ],
        'sdk': {'name': 'sentry.python.django', 'version': '2.14.0'},
    }
    c.request(c.ret(ev, event))
    c.respond(
        c.text(
            f"**KeyError: 'currency_code'** (1284 events since release web@4.12.0+a1b2c3d). Latest event `{event_id}`:\n\n"
            "- Raised in `handle_charge_succeeded` at app/payments/webhooks.py line 143, reading `metadata['currency_code']` from the Stripe payload.\n"
            '- The failing webhook (evt_3QxR2bLkdIwHu7ix0Tq9pLmN) only has `order_ref` in its metadata — charges created before the release never had '
            '`currency_code` set.\n\nFix: fall back to `payload["data"]["object"]["currency"]` when the metadata key is missing, then replay failed webhooks from the Stripe dashboard.'
        )
    )
    return c


@scenario('20_huge_nginx_access_log')
def s20():
    c = Conv(2020, '2025-09-14T06:00:00.000000', provider='gemini')
    r = c.rng
    scanner = '45.148.10.242'
    c.facts = [
        scanner,
        '/wp-login.php',
        '/.env',
        'python-requests/2.31.0',
        '/api/v1/export?format=csv&all=1',
        '91.203.5.18',
        '14/Sep/2025:03:17:52',
        '185.191.171.13',
    ]
    c.request(
        c.sys('You are a web security assistant. You can read server logs and manage the WAF.'),
        c.user('Our shop was slow overnight. Read the nginx access log for 14 Sep and tell me who was hammering us.'),
    )
    rd = c.call('read_file', {'path': '/var/log/nginx/access.log.1'})
    c.respond(rd)
    paths = [
        '/',
        '/products/trail-runner-kestrel-3',
        '/products/packable-rain-jacket',
        '/cart',
        '/checkout',
        '/api/v1/cart',
        '/api/v1/products?page=2',
        '/static/js/app.4f9c2e.js',
        '/static/css/main.a81b.css',
        '/favicon.ico',
        '/search?q=tent',
        '/account/orders',
        '/robots.txt',
        '/sitemap.xml',
        '/images/products/kestrel3-blue-800.webp',
        '/api/v1/recommendations?sku=TRL-2241',
    ]
    uas = [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Safari/537.36',
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1',
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
        'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
        'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
        'Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0',
    ]
    clients = [ip(r) for _ in range(300)]
    lines = []
    t0 = datetime(2025, 9, 14, 0, 0, 0)
    i = 0
    size = 0
    while size < 1_060_000:
        t = t0 + timedelta(seconds=i * 16.2 + r.random() * 10)
        stamp = t.strftime('%d/%b/%Y:%H:%M:%S') + ' +0000'
        hour = t.hour
        roll = r.random()
        if 2 <= hour < 5 and roll < 0.45:
            line = (
                f'{scanner} - - [{stamp}] "GET {r.choice(["/wp-login.php", "/.env", "/.git/config", "/xmlrpc.php", "/phpmyadmin/", "/wp-admin/setup-config.php", "/server-status", "/vendor/phpunit/phpunit/src/Util/PHP/eval-stdin.php"])} HTTP/1.1" '
                f'{r.choice([404, 404, 403, 301])} {r.randint(150, 600)} "-" "python-requests/2.31.0" rt={r.uniform(0.001, 0.02):.3f}'
            )
        elif 3 <= hour < 4 and roll < 0.6:
            line = (
                f'91.203.5.18 - - [{stamp}] "GET /api/v1/export?format=csv&all=1 HTTP/1.1" 200 {r.randint(4_000_000, 9_000_000)} "-" '
                f'"Mozilla/5.0 (compatible; DataHarvester/3.2)" rt={r.uniform(8, 29):.3f}'
            )
        else:
            st = r.choices([200, 304, 301, 404, 500, 502], [80, 8, 4, 5, 1, 2])[0]
            line = (
                f'{r.choice(clients)} - - [{stamp}] "{r.choice(["GET", "GET", "GET", "POST"])} {r.choice(paths)} HTTP/{r.choice(["1.1", "2.0"])}" {st} '
                f'{r.randint(200, 90000)} "{r.choice(["-", "https://www.google.com/", "https://shop.example.com/"])}" "{r.choice(uas)}" rt={r.uniform(0.005, 0.9 if hour != 3 else 6.5):.3f}'
            )
        lines.append(line)
        size += len(line) + 1
        i += 1
    # a specific request quoted later
    k = next(j for j, l in enumerate(lines) if '14/Sep/2025:03:17:' in l)
    lines[k] = (
        '91.203.5.18 - - [14/Sep/2025:03:17:52 +0000] "GET /api/v1/export?format=csv&all=1 HTTP/1.1" 502 166 "-" "Mozilla/5.0 (compatible; DataHarvester/3.2)" rt=60.001'
    )
    k2 = len(lines) - 25
    stamp2 = lines[k2].split('[', 1)[1].split(']', 1)[0]
    lines[k2] = (
        '185.191.171.13 - - [' + stamp2 + '] "POST /api/v1/auth/reset-password HTTP/1.1" 429 74 "-" '
        '"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Safari/537.36" rt=0.004'
    )
    c.request(c.ret(rd, '\n'.join(lines)))
    w = c.call(
        'waf_block',
        {
            'ips': [scanner, '91.203.5.18'],
            'duration': '7d',
            'comment': 'scanner (python-requests/2.31.0) + export scraping of /api/v1/export?format=csv&all=1',
        },
    )
    c.respond(
        c.text(
            'Two clients caused the overnight load:\n\n'
            f'1. **91.203.5.18** repeatedly pulled `/api/v1/export?format=csv&all=1` between 03:00 and 04:00 — multi-megabyte responses taking 8–29 s each; '
            'one request at 14/Sep/2025:03:17:52 hit the 60 s upstream timeout (502).\n'
            f'2. **{scanner}** ran a vulnerability scanner (user agent python-requests/2.31.0) from 02:00 to 05:00, probing `/wp-login.php`, `/.env`, `/.git/config` and similar.\n\n'
            'Blocking both at the WAF for 7 days. The export endpoint should also require authentication and rate limiting. Late in the day '
            '185.191.171.13 also got a 429 on /api/v1/auth/reset-password; the rate limiter handled it, so no block for now.'
        ),
        w,
    )
    c.request(c.ret(w, {'blocked': 2, 'rule_ids': ['waf-7713', 'waf-7714'], 'expires': '2025-09-21T06:04:00Z'}))
    c.respond(c.text('Done: both addresses are blocked until 2025-09-21 (rules waf-7713 and waf-7714).'))
    c.indent = None
    return c


@scenario('21_all_tiny_calendar')
def s21():
    c = Conv(2121, '2025-09-15T08:45:00.000000', provider='openai')
    c.facts = [
        'evt_7Hq2kLm9',
        'Room Matterhorn',
        '2025-09-16T14:00:00+02:00',
        'Lena Vogt',
        'https://meet.example.com/xyz-pqrs-tuv',
    ]
    c.request(
        c.sys("You are a scheduling assistant with access to the user's calendar (Europe/Zurich)."),
        c.user('Book 45 minutes with Lena Vogt tomorrow afternoon for the Q4 roadmap review, in a room if possible.'),
    )
    a = c.call('find_contact', {'name': 'Lena Vogt'})
    b = c.call(
        'get_free_busy',
        {'attendees': ['me', 'lena.vogt@example.com'], 'date': '2025-09-16', 'window': ['13:00', '18:00']},
    )
    c.respond(a, b)
    c.request(
        c.ret(
            a,
            {'name': 'Lena Vogt', 'email': 'lena.vogt@example.com', 'title': 'Head of Product', 'tz': 'Europe/Zurich'},
        ),
        c.ret(
            b,
            {
                'free': [
                    ['2025-09-16T14:00:00+02:00', '2025-09-16T15:00:00+02:00'],
                    ['2025-09-16T16:30:00+02:00', '2025-09-16T18:00:00+02:00'],
                ]
            },
        ),
    )
    rm = c.call('find_room', {'start': '2025-09-16T14:00:00+02:00', 'duration_min': 45, 'capacity': 2})
    c.respond(c.text('Both of you are free at 14:00. Looking for a room.'), rm)
    c.request(
        c.ret(
            rm,
            [
                {'room': 'Room Matterhorn', 'floor': 3, 'capacity': 6, 'video': True},
                {'room': 'Room Pilatus', 'floor': 2, 'capacity': 4, 'video': False},
            ],
        )
    )
    ce = c.call(
        'create_event',
        {
            'title': 'Q4 roadmap review',
            'start': '2025-09-16T14:00:00+02:00',
            'duration_min': 45,
            'attendees': ['lena.vogt@example.com'],
            'room': 'Room Matterhorn',
            'video': True,
        },
    )
    c.respond(ce)
    c.request(
        c.ret(ce, {'id': 'evt_7Hq2kLm9', 'status': 'confirmed', 'meet_url': 'https://meet.example.com/xyz-pqrs-tuv'})
    )
    c.respond(
        c.text(
            'Booked: "Q4 roadmap review" with Lena Vogt on 2025-09-16T14:00:00+02:00 for 45 minutes in Room Matterhorn (event evt_7Hq2kLm9). '
            'Video link: https://meet.example.com/xyz-pqrs-tuv'
        )
    )
    c.request(c.user('Actually add a 10 minute buffer before it.'))
    up = c.call(
        'create_event',
        {'title': 'Buffer', 'start': '2025-09-16T13:50:00+02:00', 'duration_min': 10, 'attendees': [], 'busy': True},
    )
    c.respond(up)
    c.request(c.ret(up, {'id': 'evt_9Pz0aQw1', 'status': 'confirmed'}))
    c.respond(c.text('Added a 10-minute busy block at 13:50, right before evt_7Hq2kLm9.'))
    c.indent = None
    return c


@scenario('22_support_tickets_rtl_unicode')
def s22():
    c = Conv(2222, '2025-09-10T07:05:00.000000', provider='anthropic')
    r = c.rng
    c.facts = ['91544', 'ليلى حداد', 'נועה כהן', 'E-4012', '3.2.7', 'Router X7 Pro', '91602']
    c.request(
        c.sys(
            'You are a support operations assistant for a consumer networking brand operating in the Middle East and Europe. '
            'Summarize ticket trends for the support lead; quote customer names exactly as written.'
        ),
        c.user('What are customers in the MENA region complaining about this week? Any pattern?'),
    )
    s = c.call(
        'zendesk_search',
        {'query': 'created>2025-09-03 region:mena status<solved', 'sort_by': 'created_at', 'per_page': 60},
    )
    c.respond(s)
    names = [
        'محمد العلي',
        'فاطمة الزهراء',
        'יוסי לוי',
        'شيرين منصور',
        'عمر خالد',
        'Dana Haddad',
        'אורי פרץ',
        'Youssef Benali',
        'سارة يوسف',
        'מיכל אברהם',
    ]
    texts = [
        'الراوتر ينقطع عن الإنترنت كل ساعة تقريبًا ويجب إعادة تشغيله. هل هناك حل؟',
        'הנתב מתנתק כל כמה דקות מאז העדכון האחרון 😡',
        'لا أستطيع الدخول إلى لوحة التحكم، تظهر رسالة خطأ.',
        'My mesh satellite shows a red light after the update.',
        'السرعة أقل بكثير من الباقة المشتركة فيها',
        'שלום, הזמנתי נתב חדש ועדיין לא הגיע. מספר הזמנה בפנים.',
        'Wi-Fi 6 band disappears at night, 2.4 GHz is fine.',
        'التطبيق لا يتعرف على الجهاز بعد إعادة الضبط 🙏',
    ]
    tickets = []
    for i in range(42):
        tid = 91500 + i * 3 + r.randint(0, 2)
        nm = r.choice(names)
        desc = r.choice(texts)
        tickets.append(
            {
                'id': tid,
                'url': f'https://support.example.com/api/v2/tickets/{tid}.json',
                'subject': desc[:40],
                'description': desc,
                'status': r.choice(['new', 'open', 'pending']),
                'priority': r.choice(['low', 'normal', 'normal', 'high']),
                'requester': {
                    'id': r.randint(10**11, 10**12),
                    'name': nm,
                    'locale': 'ar'
                    if any('\u0600' <= ch <= '\u06ff' for ch in nm)
                    else 'he'
                    if any('\u0590' <= ch <= '\u05ff' for ch in nm)
                    else 'en-US',
                },
                'tags': r.sample(
                    ['router', 'mesh', 'firmware', 'billing', 'delivery', 'app', 'speed', 'vip', 'mena'], 3
                ),
                'custom_fields': [
                    {'id': 360001, 'value': r.choice(['Router X7', 'Router X7 Pro', 'Mesh M3', 'Extender E1'])},
                    {'id': 360002, 'value': r.choice(['3.2.5', '3.2.6', '3.2.7', None])},
                    {'id': 360003, 'value': r.choice(['AE', 'SA', 'IL', 'JO', 'MA', 'EG'])},
                ],
                'created_at': rdate(r, '2025-09-03', 6),
                'satisfaction_rating': None,
                'comments': [
                    {
                        'author': r.choice(['agent:Rania', 'agent:Eitan', 'end-user']),
                        'body': r.choice(
                            texts
                            + [
                                'شكراً لتواصلك معنا، هل يمكنك إرسال صورة للأضواء على الجهاز؟',
                                'תודה, העברנו את הפנייה לצוות הטכני.',
                                'Please try a factory reset and report back.',
                            ]
                        ),
                    }
                    for _ in range(r.randint(1, 4))
                ],
            }
        )
    t1 = tickets[4]
    t1.update(
        {
            'id': 91544,
            'url': 'https://support.example.com/api/v2/tickets/91544.json',
            'subject': 'خطأ E-4012 بعد التحديث',
            'requester': {'id': 381120044512, 'name': 'ليلى حداد', 'locale': 'ar'},
            'description': 'بعد تحديث البرنامج الثابت إلى 3.2.7 يظهر الخطأ E-4012 ولا يعمل الإنترنت إطلاقًا. الجهاز Router X7 Pro.',
            'custom_fields': [
                {'id': 360001, 'value': 'Router X7 Pro'},
                {'id': 360002, 'value': '3.2.7'},
                {'id': 360003, 'value': 'AE'},
            ],
        }
    )
    t2 = tickets[-3]
    t2.update(
        {
            'id': 91602,
            'url': 'https://support.example.com/api/v2/tickets/91602.json',
            'subject': 'E-4012 אחרי עדכון קושחה',
            'requester': {'id': 381120099871, 'name': 'נועה כהן', 'locale': 'he'},
            'description': 'מאז העדכון לגרסה 3.2.7 הנתב Router X7 Pro מציג שגיאה E-4012 ואין חיבור לאינטרנט. ניסיתי איפוס, לא עזר.',
            'custom_fields': [
                {'id': 360001, 'value': 'Router X7 Pro'},
                {'id': 360002, 'value': '3.2.7'},
                {'id': 360003, 'value': 'IL'},
            ],
        }
    )
    c.request(c.ret(s, {'results': tickets, 'count': len(tickets), 'next_page': None, 'previous_page': None}))
    c.respond(
        c.text(
            '**Pattern: firmware 3.2.7 on the Router X7 Pro**\n\n'
            '- Several tickets report error **E-4012** and total loss of connectivity right after the 3.2.7 update, e.g. #91544 from ليلى حداد (UAE) '
            'and #91602 from נועה כהן (Israel); a factory reset does not help.\n'
            '- Other recurring themes: hourly disconnects, 5 GHz band dropping at night, and delivery delays.\n\n'
            'Recommendation: pause the 3.2.7 rollout for the X7 Pro and open an engineering incident referencing #91544 and #91602.'
        )
    )
    c.request(c.user('Reply to ليلى حداد in Arabic that we are investigating and offer the rollback instructions.'))
    rp = c.call(
        'zendesk_reply',
        {
            'ticket_id': 91544,
            'public': True,
            'body': 'مرحباً ليلى حداد، نعتذر عن الإزعاج. نحن نحقق في الخطأ E-4012 الذي ظهر بعد التحديث 3.2.7. '
            'يمكنك الرجوع إلى الإصدار 3.2.6 من خلال: الإعدادات ← النظام ← استعادة البرنامج الثابت.',
        },
    )
    c.respond(rp)
    c.request(c.ret(rp, {'ticket': {'id': 91544, 'status': 'pending', 'updated_at': '2025-09-10T07:09:12Z'}}))
    c.respond(c.text('Replied on #91544 in Arabic with the rollback path to 3.2.6; the ticket is now pending.'))
    return c


@scenario('23_slack_search_cjk_emoji')
def s23():
    c = Conv(2323, '2025-09-08T01:30:00.000000', provider='gemini')
    r = c.rng
    c.facts = ['山田 太郎', 'v5.3.0', 'release-jp', '李伟', '灰度发布 20%', '1757294512.339109', 'INC-7781']
    c.request(
        c.sys(
            'You are an internal assistant with Slack search access for a company with offices in Tokyo, Shanghai and Berlin. '
            'Reply in English unless asked otherwise; keep names in their original script.'
        ),
        c.user('What happened with the mobile app release over the weekend? I was offline 🏖️'),
    )
    s = c.call(
        'slack_search_messages',
        {'query': 'release OR リリース OR 发布 after:2025-09-05', 'count': 80, 'sort': 'timestamp'},
    )
    c.respond(s)
    users = [
        ('U04JD8K2M', '山田 太郎'),
        ('U03ZZ1QAB', '佐藤 花子'),
        ('U05LQ7WPE', '李伟'),
        ('U02KX9RTT', '王芳'),
        ('U06AB2CDE', 'Jonas Becker'),
        ('U01MN3OPQ', '鈴木 一郎'),
        ('U07RS4TUV', '陈静'),
        ('U08WX5YZA', 'Mia Schäfer'),
    ]
    chans = ['#release-jp', '#mobile-dev', '#cn-ops', '#general', '#incidents', '#qa-automation']
    msgs_pool = [
        'リリース前の最終チェック完了しました ✅',
        'iOS のビルドが通りません…😢 証明書の期限切れかも',
        'QA 回归测试全部通过 👍',
        'Android 版本已提交审核',
        'Can someone review PR #2231 before the freeze? 🙏',
        'クラッシュ率が少し上がっています、様子見します',
        '服务器端已经准备好了 🚀',
        'Release notes draft is in Confluence, please add your items',
        '明日の朝 9 時にストア公開予定です',
        'Rollback plan attached, 見ておいてください',
        '监控面板上错误率正常',
        'Pushing the feature flag config now ⚙️',
        'お疲れ様でした！🍻',
        'Crashlytics 上出现新的 ANR，正在看',
    ]
    matches = []
    ts = 1757030000.0
    for i in range(75):
        ts += r.uniform(200, 3600)
        uid_, nm = r.choice(users)
        ch = r.choice(chans)
        tss = f'{ts:.6f}'
        matches.append(
            {
                'type': 'message',
                'user': uid_,
                'username': nm,
                'text': r.choice(msgs_pool),
                'ts': tss,
                'channel': {
                    'id': 'C0' + alnum(r, 9, string.ascii_uppercase + string.digits),
                    'name': ch.lstrip('#'),
                    'is_private': False,
                },
                'permalink': f'https://example.slack.com/archives/C0{alnum(r, 9, string.ascii_uppercase + string.digits)}/p{tss.replace(".", "")}',
                'reactions': [
                    {
                        'name': r.choice(['+1', 'eyes', 'tada', 'pray', 'white_check_mark', 'rocket']),
                        'count': r.randint(1, 9),
                    }
                    for _ in range(r.randint(0, 3))
                ],
                'reply_count': r.randint(0, 12),
            }
        )
    matches[2].update(
        {
            'username': '山田 太郎',
            'user': 'U04JD8K2M',
            'channel': {'id': 'C04RELJP1', 'name': 'release-jp', 'is_private': False},
            'text': '🚀 v5.3.0 を App Store と Google Play に公開しました！ 段階的リリースは 10% から開始します。',
        }
    )
    matches[40].update(
        {
            'username': '李伟',
            'user': 'U05LQ7WPE',
            'text': '中国区灰度发布 20% 后支付页面出现白屏，已暂停灰度。详情见 INC-7781 😥',
        }
    )
    matches[-1].update(
        {
            'username': '山田 太郎',
            'user': 'U04JD8K2M',
            'ts': '1757294512.339109',
            'channel': {'id': 'C04RELJP1', 'name': 'release-jp', 'is_private': False},
            'text': 'INC-7781 の原因は CDN の設定ミスでした。修正済み、v5.3.0 の段階的リリースを 50% に再開します 🙇‍♂️',
            'permalink': 'https://example.slack.com/archives/C04RELJP1/p1757294512339109',
        }
    )
    c.request(
        c.ret(
            s,
            {
                'ok': True,
                'query': 'release OR リリース OR 发布 after:2025-09-05',
                'messages': {
                    'total': 75,
                    'matches': matches,
                    'pagination': {'total_count': 75, 'page': 1, 'per_page': 80, 'page_count': 1},
                },
            },
        )
    )
    c.respond(
        c.text(
            'Weekend summary of the mobile release:\n\n'
            '1. 山田 太郎 shipped **v5.3.0** to the App Store and Google Play (announced in #release-jp), starting a staged rollout at 10% 🚀\n'
            '2. In China, 李伟 reported a blank payment page after the 灰度发布 20% stage and paused it — tracked as **INC-7781**.\n'
            '3. Root cause was a CDN misconfiguration; it was fixed and the staged rollout resumed at 50% (山田 太郎, message ts 1757294512.339109).\n\n'
            'Nothing else blocking. 🙂'
        )
    )
    c.indent = None
    return c


PROVIDERS['ollama'] = ('qwen2.5-coder:32b', 'ollama', 'http://127.0.0.1:11434/v1/')


@scenario('24_messy_reused_ids_unanswered_sql')
def s24():
    c = Conv(2424, '2025-09-07T22:10:00.000000', provider='ollama')
    r = c.rng
    c.facts = [
        'public.order_events',
        '41 GB',
        '1902331',
        'order_events_order_id_idx',
        'Seq Scan on order_events',
        '18734.221 ms',
    ]
    c.request(
        c.sys(
            'You are a PostgreSQL DBA assistant connected to the production replica (read-only) through run_sql. DDL is executed on the '
            'primary via run_sql_primary and is slow; always use CONCURRENTLY for indexes.'
        ),
        c.user('The nightly reporting query got very slow. Find out why.'),
    )
    # this OpenAI-compatible local server numbers tool calls per response: "call_0", "call_1", ... (ids repeat across turns)
    q1 = c.call(
        'run_sql',
        {
            'query': 'SELECT schemaname, relname, n_live_tup, seq_scan, idx_scan, pg_size_pretty(pg_total_relation_size(relid)) AS size FROM pg_stat_user_tables ORDER BY pg_total_relation_size(relid) DESC LIMIT 200'
        },
        'call_0',
    )
    c.respond(q1)
    rows = []
    for i in range(180):
        rows.append(
            [
                r.choice(['public', 'public', 'reporting', 'audit']),
                (
                    f'{r.choice(["customer", "product", "invoice", "shipment", "payment", "session", "cart", "coupon", "review", "inventory"])}_'
                    f'{r.choice(["items", "log", "history", "snapshots", "links", "events", "attributes", "archive"])}{r.choice(["", "_2023", "_2024", "_v2"])}'
                ),
                r.randint(1000, 90_000_000),
                r.randint(0, 50000),
                r.randint(0, 90_000_000),
                f'{r.randint(1, 900)} {r.choice(["MB", "MB", "GB", "kB"])}',
            ]
        )
    rows.insert(0, ['public', 'order_events', 612_004_118, 1902331, 88120, '41 GB'])
    res = {
        'columns': ['schemaname', 'relname', 'n_live_tup', 'seq_scan', 'idx_scan', 'size'],
        'rows': rows,
        'rowcount': len(rows),
        'elapsed_ms': 184.2,
    }
    c.request(c.ret(q1, res))
    q2 = c.call(
        'run_sql',
        {
            'query': "EXPLAIN (ANALYZE, BUFFERS) SELECT date_trunc('day', created_at) d, count(*) FROM order_events WHERE created_at >= now() - interval '7 days' GROUP BY 1"
        },
        'call_0',
    )
    q3 = c.call(
        'run_sql', {'query': "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'order_events'"}, 'call_1'
    )
    c.respond(
        c.text(
            'public.order_events is the largest table (41 GB) with 1902331 sequential scans. Checking the plan and its indexes.'
        ),
        q2,
        q3,
    )
    plan = [
        'Finalize GroupAggregate  (cost=9120344.11..9120391.66 rows=190 width=16) (actual time=18610.118..18733.904 rows=8 loops=1)',
        "  Group Key: (date_trunc('day'::text, created_at))",
        '  Buffers: shared hit=2213 read=5291104',
    ]
    for w in range(4):
        plan += [
            f'  ->  Gather Merge  (cost=9120344.11..9120387.86 rows=380 width=16) (actual time=18600.{r.randint(100, 999)}..18733.{r.randint(100, 999)} rows={r.randint(20, 40)} loops=1)',
            '        Workers Planned: 2',
            '        Workers Launched: 2',
            f'        Buffers: shared hit={r.randint(100, 900)} read={r.randint(10**6, 6 * 10**6)}',
            f'        ->  Sort  (cost=9119344.09..9119344.56 rows=190 width=16) (actual time=185{r.randint(10, 99)}.1..185{r.randint(10, 99)}.2 rows={r.randint(5, 12)} loops=3)',
            '              Sort Method: quicksort  Memory: 25kB',
            f'              Worker {w}:  Sort Method: quicksort  Memory: 25kB',
        ]
    plan += [
        '              ->  Partial HashAggregate  (cost=9119330.47..9119337.12 rows=190 width=16) (actual time=18590.002..18590.010 rows=8 loops=3)',
        '                    ->  Parallel Seq Scan on order_events  (cost=0.00..9031151.90 rows=17635714 width=8) (actual time=14031.822..18101.334 rows=4201874 loops=3)',
        "                          Filter: (created_at >= (now() - '7 days'::interval))",
        '                          Rows Removed by Filter: 199799832',
        '                          Buffers: shared hit=2213 read=5291104',
        'Planning:',
        '  Buffers: shared hit=31',
        'Planning Time: 0.412 ms',
        'JIT:',
        '  Functions: 21',
        '  Options: Inlining true, Optimization true, Expressions true, Deforming true',
        '  Timing: Generation 2.1 ms, Inlining 88.0 ms, Optimization 140.2 ms, Emission 96.8 ms, Total 327.1 ms',
        'Execution Time: 18734.221 ms',
    ]
    plan_text = '\n'.join(plan)
    idx = {
        'columns': ['indexname', 'indexdef'],
        'rows': [
            ['order_events_pkey', 'CREATE UNIQUE INDEX order_events_pkey ON public.order_events USING btree (id)'],
            [
                'order_events_order_id_idx',
                'CREATE INDEX order_events_order_id_idx ON public.order_events USING btree (order_id)',
            ],
        ],
        'rowcount': 2,
        'elapsed_ms': 2.1,
    }
    c.request(c.ret(q2, plan_text), c.ret(q3, idx))
    c.respond(
        c.text(
            'Cause: the 7-day report does a Parallel Seq Scan on order_events (the Seq Scan on order_events removes ~200M rows per worker) and takes '
            '18734.221 ms, because there is no index on `created_at` — only the primary key and order_events_order_id_idx. I will create '
            '`idx_order_events_created_at` concurrently on the primary.'
        )
    )
    c.request(c.user('ok go ahead'))
    ddl = c.call(
        'run_sql_primary',
        {
            'query': 'CREATE INDEX CONCURRENTLY idx_order_events_created_at ON public.order_events USING btree (created_at)'
        },
        'call_0',
    )
    c.respond(
        c.text('Creating idx_order_events_created_at on public.order_events (41 GB) — this will take a while.'), ddl
    )
    # the session was killed while the index build was running: the last call never got an answer
    return c


@scenario('25_messy_two_responses_terraform')
def s25():
    c = Conv(2525, '2025-09-11T17:00:00.000000', provider='openai')
    r = c.rng
    c.facts = [
        'aws_db_instance.orders',
        'forces replacement',
        '14 to add, 3 to change, 2 to destroy',
        '13.14',
        '16.4',
        'module.vpc.aws_nat_gateway.this[1]',
    ]
    c.request(
        c.sys(
            'You are an infrastructure review assistant. Run terraform plan in CI and explain risky changes before anyone applies.'
        ),
        c.user('Review the plan for PR #512 (postgres upgrade) before we apply.'),
    )
    p = c.call('terraform_plan', {'workspace': 'prod-eu', 'pr': 512})
    c.respond(p)
    res_types = [
        ('aws_security_group_rule', 'ingress_{}'),
        ('aws_iam_role_policy_attachment', 'attach_{}'),
        ('aws_cloudwatch_metric_alarm', 'alarm_{}'),
        ('aws_route53_record', 'rec_{}'),
        ('aws_s3_bucket_lifecycle_configuration', 'lc_{}'),
        ('aws_ssm_parameter', 'param_{}'),
    ]
    blocks = []
    for i in range(14):
        t, n = r.choice(res_types)
        name = n.format(alnum(r, 5).lower())
        attrs = '\n'.join(
            f'      + {k:<24} = {v}'
            for k, v in [
                ('arn', '(known after apply)'),
                ('id', '(known after apply)'),
                ('name', f'"{name}"'),
                ('tags_all', '{\n          + "env"     = "prod"\n          + "owner"   = "platform"\n        }'),
                ('description', f'"managed by terraform ({r.choice(["orders", "payments", "shared"])})"'),
            ]
            + [(alnum(r, 8).lower(), f'"{alnum(r, 12)}"') for _ in range(r.randint(3, 10))]
        )
        blocks.append(f'  # {t}.{name} will be created\n  + resource "{t}" "{name}" {{\n{attrs}\n    }}\n')
    blocks.insert(
        7,
        """  # aws_db_instance.orders must be replaced
-/+ resource "aws_db_instance" "orders" {
      ~ address                               = "orders-prod.c9akciq32.eu-west-1.rds.amazonaws.com" -> (known after apply)
      ~ arn                                   = "arn:aws:rds:eu-west-1:123456789012:db:orders-prod" -> (known after apply)
      ~ endpoint                              = "orders-prod.c9akciq32.eu-west-1.rds.amazonaws.com:5432" -> (known after apply)
      ~ engine_version                        = "13.14" -> "16.4"
      ~ id                                    = "db-4KQ3ZQ7N2XG5P6V7W8Y9ABCDE" -> (known after apply)
      ~ identifier                            = "orders-prod" -> (known after apply)
      ~ parameter_group_name                  = "orders-pg13" -> "orders-pg16" # forces replacement
      ~ snapshot_identifier                   = null -> "orders-prod-pre-upgrade" # forces replacement
        # (41 unchanged attributes hidden)
    }
""",
    )
    blocks.append("""  # module.vpc.aws_nat_gateway.this[1] will be destroyed
  # (because index [1] is out of range for count)
  - resource "aws_nat_gateway" "this" {
      - allocation_id = "eipalloc-0a1b2c3d4e5f67890" -> null
      - id            = "nat-0f1e2d3c4b5a69788" -> null
      - subnet_id     = "subnet-0aa11bb22cc33dd44" -> null
    }
""")
    refresh = '\n'.join(
        f'{t}.{n.format(alnum(r, 5).lower())}: Refreshing state... [id={alnum(r, 17).lower()}]'
        for t, n in (r.choice(res_types) for _ in range(160))
    )
    plan = (
        refresh
        + '\n\nTerraform used the selected providers to generate the following execution plan. Resource actions are indicated with the following symbols:\n'
        '  + create\n  ~ update in-place\n  - destroy\n-/+ destroy and then create replacement\n\nTerraform will perform the following actions:\n\n'
        + '\n'.join(blocks)
        + '\nPlan: 14 to add, 3 to change, 2 to destroy.\n\nChanges to Outputs:\n  ~ orders_db_endpoint = "orders-prod.c9akciq32.eu-west-1.rds.amazonaws.com:5432" -> (known after apply)\n'
    )
    c.request(c.ret(p, plan))
    # the first response was cut off at max_tokens; the client stored it and asked the model to continue without a new request
    first = c.respond(
        c.text(
            '**Plan summary: 14 to add, 3 to change, 2 to destroy.**\n\n⚠️ The risky change is `aws_db_instance.orders`: the engine_version '
            'moves from 13.14 to 16.4, but the plan also changes `parameter_group_name` and `snapshot_identifier`, and both'
        )
    )
    first.finish_reason = 'length'
    c.respond(
        c.text(
            ' are marked "forces replacement". That means Terraform will **destroy and recreate** the orders database instead of doing an '
            'in-place major version upgrade. The endpoint output changes too.\n\nAlso `module.vpc.aws_nat_gateway.this[1]` will be destroyed '
            '(count reduced), which removes NAT redundancy in one AZ.\n\nDo not apply as is.'
        )
    )
    c.request(c.user('How do we avoid the replacement?'))
    c.respond(
        c.text(
            'Remove `snapshot_identifier` from aws_db_instance.orders (it only applies at creation), set `allow_major_version_upgrade = true` and '
            '`apply_immediately = false`, and create the orders-pg16 parameter group in a separate apply first. Then engine_version 13.14 → 16.4 '
            'becomes an in-place modify during the maintenance window.'
        )
    )
    return c


KB_BANK = {
    'titles': [
        'Configure SAML single sign-on with Okta',
        'Troubleshooting SSO login loops',
        'SCIM user provisioning FAQ',
        'Resetting two-factor authentication',
        'Workspace roles and permissions',
        'Azure AD (Entra ID) SSO setup',
        'Why am I seeing "Invalid SAML response"?',
        'Session timeouts and idle logout',
        'Audit log export',
        'Just-in-time provisioning explained',
        'Domain verification for SSO',
        'Billing seats and SSO-only users',
    ],
    'domains': ['help.tasklane.io/articles', 'community.tasklane.io/t'],
    'sentences': [
        'Go to **Settings → Security → Single sign-on** and choose {idp}.',
        'Only workspace owners can change SSO settings.',
        'Copy the ACS URL and Entity ID into your identity provider exactly as shown.',
        'If users are stuck in a login loop, clear cookies for app.tasklane.io and try again in a private window.',
        'The NameID format must be `emailAddress`; other formats are rejected.',
        'SCIM tokens expire after {days} days and must be rotated by an owner.',
        'Changes can take up to {mins} minutes to propagate to all regions.',
        'Make sure the clock on your IdP server is in sync; assertions older than 5 minutes are rejected.',
        'Enterprise plans include SAML SSO; Business plans can add it for an extra fee.',
        'Users provisioned via SCIM cannot change their email address themselves.',
        'If the error persists, contact support with the timestamp of the failed attempt and your workspace ID.',
        'Posted by {user} · {n} replies · solved',
    ],
    'pools': {
        'idp': ['Okta', 'Azure AD', 'Google Workspace', 'OneLogin', 'JumpCloud'],
        'days': ['90', '180', '365'],
        'mins': ['5', '10', '15'],
        'user': ['mara_k', 'ops-dan', 'Tasklane Support', 'jules.r'],
        'n': ['3', '7', '12'],
        'author': ['Tasklane Support', 'Community'],
    },
}


@scenario('26_messy_support_bot_all')
def s26():
    c = Conv(2626, '2025-09-09T10:30:00.000000', provider='mistral')
    r = c.rng
    c.facts = ['KB-2291', 'AADSTS50105', 'acct_5521', 'it-admin@contoso.example', 'clock skew', 'ws_88f2c1']
    c.request(
        c.sys(
            'You are the Tasklane support bot. Search the help center, look up the customer account, and escalate to a human when needed.'
        ),
        c.user('Our users get AADSTS50105 when logging in via SSO since this morning. Workspace ws_88f2c1.'),
    )
    k = c.call('kb_search', {'query': 'AADSTS50105 SSO Azure AD login error', 'limit': 10}, call_id='kbsrch001')
    a = c.call('get_account', {'workspace_id': 'ws_88f2c1'}, call_id='acctlk001')
    c.respond(k, a)
    arts = web_results(
        r,
        KB_BANK,
        10,
        {
            3: [
                (
                    0.5,
                    'KB-2291: AADSTS50105 means the signed-in user is not assigned to a role for the Tasklane enterprise application in Entra ID; assign the user or group under Enterprise applications → Users and groups',
                )
            ],
            -1: [
                (
                    0.6,
                    'A second common cause of failed assertions is clock skew between the IdP and our servers; we reject assertions that are more than 5 minutes old',
                )
            ],
        },
        dup=2,
        start='2024-06-01',
        end_days=400,
    )
    acct = {
        'id': 'acct_5521',
        'workspace_id': 'ws_88f2c1',
        'plan': 'Enterprise',
        'seats': 420,
        'sso': {
            'provider': 'azure_ad',
            'enforced': True,
            'last_config_change': '2025-09-09T06:12:44Z',
            'changed_by': 'it-admin@contoso.example',
        },
        'owner': 'Grace Okafor',
        'csm': 'Tomás Fernández',
    }
    c.request(c.ret(k, arts), c.ret(a, acct))
    # two responses in a row: the bot's answer was sent, then the model emitted a follow-up without a new request
    c.respond(
        c.text(
            'AADSTS50105 comes from Entra ID (Azure AD): the users are not assigned to the Tasklane enterprise application (help article KB-2291). '
            'Your SSO configuration was changed this morning at 06:12 UTC by it-admin@contoso.example, which matches the start of the problem.'
        )
    )
    c.respond(
        c.text('Since your workspace (acct_5521) is on the Enterprise plan, I can also open a priority ticket for you.')
    )
    c.request(c.user('yes please open one, and check if it could be clock skew too'))
    # the server reuses call ids from its own counter and it wrapped around: "kbsrch001" again
    k2 = c.call('kb_search', {'query': 'SAML clock skew assertion rejected', 'limit': 5}, call_id='kbsrch001')
    t = c.call(
        'create_ticket',
        {
            'account_id': 'acct_5521',
            'priority': 'high',
            'subject': 'AADSTS50105 on SSO login for ws_88f2c1 after config change',
            'body': 'Customer on Enterprise plan. KB-2291 suggests missing app role assignment; also checking clock skew.',
        },
        call_id='tkt000001',
    )
    c.respond(k2, t)
    arts2 = web_results(
        r,
        KB_BANK,
        8,
        {
            5: [
                (
                    0.3,
                    'clock skew of more than 5 minutes between the IdP and Tasklane produces "Invalid SAML response" rather than an AADSTS error',
                )
            ]
        },
        dup=1,
    )
    c.request(c.ret(k2, arts2))
    # create_ticket never returned (the tool timed out and the conversation was saved as is)
    c.respond(
        c.text(
            'Clock skew is unlikely: it produces "Invalid SAML response", not AADSTS50105. The ticket is being created; a support engineer will follow up. '
            'Meanwhile, ask your IT admin to assign the affected users to the Tasklane app in Entra ID (KB-2291).'
        )
    )
    e = c.call(
        'escalate_to_human',
        {
            'workspace_id': 'ws_88f2c1',
            'reason': 'create_ticket timed out; Enterprise customer acct_5521 with SSO outage',
        },
        call_id='esc000001',
    )
    c.respond(e)
    return c


@scenario('27_crm_contacts_accented')
def s27():
    c = Conv(2727, '2025-09-02T09:15:00.000000', provider='anthropic')
    r = c.rng
    c.facts = ['Østergaard', 'Brøndby Logistik A/S', '482000', 'Lefèvre', 'closedwon', '2025-10-31', '3847261905']
    c.request(
        c.sys('You are a sales assistant with HubSpot CRM access. Help account executives prepare for meetings.'),
        c.user(
            'I meet the Nordics logistics prospects next week. Which deals are open there, who are the contacts, and what was the biggest deal we won in the region?'
        ),
    )
    s = c.call(
        'hubspot_search_deals',
        {
            'filters': [{'propertyName': 'region', 'operator': 'EQ', 'value': 'Nordics'}],
            'properties': ['dealname', 'amount', 'dealstage', 'closedate', 'hubspot_owner_id'],
            'associations': ['contacts', 'companies'],
            'limit': 100,
        },
    )
    c.respond(s)
    companies = [
        'Brøndby Logistik A/S',
        'Göteborgs Hamnfrakt AB',
        'Tromsø Kyl & Frys AS',
        'Åland Shipping Ab',
        'Järvenpää Kuljetus Oy',
        'Malmö Lager AB',
        'Ålesund Fisk AS',
        'Reykjavík Freight ehf.',
        'Odense Cold Chain ApS',
        'Örebro Terminal AB',
    ]
    firsts = ['Zoë', 'Søren', 'Björk', 'Åsa', 'Mikaël', 'Renée', 'Jörg', 'Eerik', 'Þóra', 'Niklas', 'Ingrid', 'Elçin']
    lasts = [
        'Østergaard',
        'Ångström',
        'Lefèvre',
        'Järvinen',
        'Sigurðardóttir',
        'Nyström',
        'Dahl',
        'Håland',
        'Lindqvist',
        'Kähkönen',
    ]
    deals = []
    for i in range(60):
        comp = r.choice(companies)
        contacts = [
            {
                'id': str(r.randint(10**10, 10**11)),
                'properties': {
                    'firstname': r.choice(firsts),
                    'lastname': r.choice(lasts),
                    'jobtitle': r.choice(
                        ['Head of Operations', 'CFO', 'Logistics Manager', 'IT Director', 'Procurement Lead']
                    ),
                    'email': f'{alnum(r, 6).lower()}@{comp.split()[0].lower().encode("ascii", "ignore").decode() or "firma"}.example',
                    'phone': f'+45 {r.randint(20, 99)} {r.randint(10, 99)} {r.randint(10, 99)} {r.randint(10, 99)}',
                    'hs_lead_status': r.choice(['OPEN', 'IN_PROGRESS', 'CONNECTED', None]),
                },
            }
            for _ in range(r.randint(1, 3))
        ]
        deals.append(
            {
                'id': str(r.randint(10**9, 10**10)),
                'properties': {
                    'dealname': f'{comp} – {r.choice(["WMS rollout", "Fleet telematics", "Cold-chain sensors", "Renewal 2026", "Pilot"])}',
                    'amount': str(r.randint(12, 350) * 1000),
                    'dealstage': r.choice(
                        [
                            'appointmentscheduled',
                            'qualifiedtobuy',
                            'presentationscheduled',
                            'contractsent',
                            'closedwon',
                            'closedlost',
                        ]
                    ),
                    'closedate': rdate(r, '2024-06-01', 500),
                    'pipeline': 'default',
                    'hubspot_owner_id': str(r.randint(10**7, 10**8)),
                    'region': 'Nordics',
                    'hs_lastmodifieddate': rdate(r, '2025-07-01', 60),
                },
                'associations': {
                    'companies': [{'id': str(r.randint(10**9, 10**10)), 'name': comp}],
                    'contacts': contacts,
                },
                'createdAt': rdate(r, '2024-01-01', 400),
                'archived': False,
            }
        )
    deals[9].update(
        {
            'id': '3847261905',
            'properties': {
                **deals[9]['properties'],
                'dealname': 'Brøndby Logistik A/S – Cold-chain sensors',
                'amount': '482000',
                'dealstage': 'closedwon',
                'closedate': '2025-03-28T00:00:00Z',
            },
            'associations': {
                'companies': [{'id': '9912034471', 'name': 'Brøndby Logistik A/S'}],
                'contacts': [
                    {
                        'id': '51120034981',
                        'properties': {
                            'firstname': 'Zoë',
                            'lastname': 'Østergaard',
                            'jobtitle': 'COO',
                            'email': 'zoe.ostergaard@brondby-logistik.example',
                            'phone': '+45 43 96 12 00',
                            'hs_lead_status': 'CONNECTED',
                        },
                    }
                ],
            },
        }
    )
    for d_ in deals:
        if d_['properties']['dealstage'] == 'closedwon' and d_['id'] != '3847261905':
            d_['properties']['amount'] = str(min(int(d_['properties']['amount']), 300000))
    deals[-4].update(
        {
            'properties': {
                **deals[-4]['properties'],
                'dealname': 'Malmö Lager AB – WMS rollout',
                'amount': '265000',
                'dealstage': 'contractsent',
                'closedate': '2025-10-31T00:00:00Z',
            },
            'associations': {
                'companies': [{'id': '9912035512', 'name': 'Malmö Lager AB'}],
                'contacts': [
                    {
                        'id': '51120099120',
                        'properties': {
                            'firstname': 'Renée',
                            'lastname': 'Lefèvre',
                            'jobtitle': 'Head of Operations',
                            'email': 'renee.lefevre@malmo-lager.example',
                            'phone': '+46 40 12 34 56',
                            'hs_lead_status': 'IN_PROGRESS',
                        },
                    }
                ],
            },
        }
    )
    c.request(c.ret(s, {'total': len(deals), 'results': deals, 'paging': None}))
    c.respond(
        c.text(
            '**Biggest win in the Nordics:** Brøndby Logistik A/S – Cold-chain sensors, 482000 (dealstage closedwon, deal 3847261905). Champion: **Zoë Østergaard** (COO) — '
            'a good reference for next week.\n\n**Most advanced open deal:** Malmö Lager AB – WMS rollout, 265000, contract sent, close date 2025-10-31; contact '
            '**Renée Lefèvre** (Head of Operations).\n\nThe remaining open deals are early-stage; I can list them per company if useful.'
        )
    )
    c.indent = None
    return c


@scenario('28_s3_inventory_large_list')
def s28():
    c = Conv(2828, '2025-09-12T13:00:00.000000', provider='openai')
    r = c.rng
    big_key = 'exports/2024/q4/orders_full_dump_2024-12-31.parquet'
    etag = md5(r)
    c.facts = [big_key, '38.7 GiB', etag, 'GLACIER_IR', 'tmp/spark-staging/', 'tmp/athena-results/']
    c.request(
        c.sys('You are a cloud cost assistant with read access to S3 inventories.'),
        c.user(
            'Our acme-datalake-prod bucket grew a lot. List the objects under exports/ and tmp/ and tell me what we can clean up.'
        ),
    )
    l = c.call('s3_list_objects', {'bucket': 'acme-datalake-prod', 'prefixes': ['exports/', 'tmp/'], 'max_keys': 2000})
    c.respond(l)
    objs = []
    for i in range(1400):
        pre = r.choice(
            [
                'exports/2024/q3/',
                'exports/2024/q4/',
                'exports/2025/q1/',
                'exports/2025/q2/',
                'tmp/spark-staging/',
                'tmp/athena-results/',
            ]
        )
        key = pre + (
            f'part-{i:05d}-{uuid.UUID(int=r.getrandbits(128))}.c000.snappy.parquet'
            if 'spark' in pre
            else f'{uuid.UUID(int=r.getrandbits(128))}.csv'
            if 'athena' in pre
            else f'{r.choice(["customers", "orders", "events", "inventory"])}_{i:04d}.parquet'
        )
        objs.append(
            {
                'Key': key,
                'Size': r.randint(10**5, 9 * 10**8),
                'LastModified': rdate(r, '2024-07-01', 430),
                'ETag': f'"{md5(r)}"',
                'StorageClass': r.choice(['STANDARD', 'STANDARD', 'STANDARD', 'INTELLIGENT_TIERING', 'GLACIER_IR']),
            }
        )
    objs.insert(
        1111,
        {
            'Key': big_key,
            'Size': 41553424588,
            'SizeHuman': '38.7 GiB',
            'LastModified': '2025-01-02T03:12:55Z',
            'ETag': f'"{etag}-4953"',
            'StorageClass': 'STANDARD',
        },
    )
    c.request(c.ret(l, objs))
    c.respond(
        c.text(
            f'Cleanup candidates in acme-datalake-prod:\n\n1. `{big_key}` alone is **38.7 GiB** in STANDARD (multipart ETag {etag}-4953). If it is only an archive, '
            'move it to GLACIER_IR or delete it — the quarterly exports already exist as smaller files.\n2. `tmp/spark-staging/` holds hundreds of orphaned Spark '
            'part files; add a lifecycle rule expiring `tmp/` after 7 days.\n3. Athena results under `tmp/athena-results/` can also expire after 7 days.'
        )
    )
    c.indent = None
    return c


@scenario('29_contract_pdf_extract')
def s29():
    c = Conv(2929, '2025-09-03T15:20:00.000000', provider='anthropic')
    r = c.rng
    c.facts = [
        'Northwind Analytics GmbH',
        '€214,500',
        '14.3 Liability Cap',
        '90 days',
        '2026-01-31',
        'Landgericht München I',
        '0.5%',
    ]
    c.request(
        c.sys(
            'You are a contract review assistant for the legal team. Quote clause numbers exactly. You are not giving legal advice.'
        ),
        c.user(
            'Extract the key commercial terms from the MSA with Northwind in contracts/northwind_msa_2025.pdf: fees, termination, liability cap, SLA credits.'
        ),
    )
    p = c.call('read_pdf', {'path': 'contracts/northwind_msa_2025.pdf', 'pages': 'all'})
    c.respond(p)
    clause_templates = [
        'The Supplier shall provide the Services with the degree of skill, care and diligence reasonably expected of a leading provider of similar services.',
        'Each Party shall keep the Confidential Information of the other Party strictly confidential and use it solely for the purposes of this Agreement.',
        'Any amendment to this Agreement must be made in writing and signed by authorised representatives of both Parties.',
        'The Customer shall provide timely access to personnel, systems and information reasonably required by the Supplier.',
        'Neither Party shall be liable for any delay or failure to perform caused by events beyond its reasonable control (Force Majeure).',
        'The Supplier shall process Personal Data only on documented instructions from the Customer in accordance with the Data Processing Agreement in Annex 4.',
        'Invoices are payable within thirty (30) days of receipt. Late payments bear interest at the statutory rate.',
        'The Supplier may engage subcontractors with the prior written consent of the Customer, which shall not be unreasonably withheld.',
        'All Intellectual Property Rights in the Deliverables shall vest in the Customer upon full payment of the applicable Fees.',
        'The Parties shall first attempt to resolve any dispute through good-faith negotiations between senior executives.',
    ]
    text = [
        'MASTER SERVICES AGREEMENT',
        '',
        'between',
        'Northwind Analytics GmbH, Leopoldstraße 31, 80802 München ("Supplier")',
        'and',
        'Contoso Retail AG, Bahnhofplatz 4, 8001 Zürich ("Customer")',
        '',
        'Effective Date: 1 February 2025',
        '',
    ]
    for sec in range(1, 21):
        text.append(
            f'§ {sec} {r.choice(["Definitions", "Scope of Services", "Service Levels", "Fees and Payment", "Term and Termination", "Liability", "Confidentiality", "Data Protection", "Warranties", "Governing Law", "Miscellaneous", "Audit", "Insurance", "Change Control"])}'
        )
        for sub in range(1, r.randint(3, 7)):
            text.append(f'{sec}.{sub} ' + ' '.join(r.sample(clause_templates, r.randint(1, 3))))
        text.append(f'--- page {sec + 1} of 22 ---')

    def put(after_prefix, line):
        idx = next(i for i, t in enumerate(text) if t.startswith(after_prefix))
        text.insert(idx + 1, line)

    put(
        '§ 4 ',
        '4.0 Fees. The Customer shall pay an annual fixed fee of €214,500 (net), invoiced quarterly in advance. Fees may be adjusted once per year by no more than the change in the German consumer price index.',
    )
    put(
        '§ 9 ',
        '9.0 Service Credits. For each full 0.1% by which monthly availability falls below 99.9%, the Customer is entitled to a service credit of 0.5% of the monthly fee, capped at 15% of the monthly fee.',
    )
    put(
        '§ 14 ',
        "14.3 Liability Cap. Save for intent and gross negligence, each Party's aggregate liability under this Agreement shall not exceed 100% of the Fees paid in the twelve (12) months preceding the event giving rise to the claim.",
    )
    put(
        '§ 17 ',
        '17.2 Termination for Convenience. Either Party may terminate this Agreement for convenience with 90 days\' written notice, but not with effect before 2026-01-31 (the "Minimum Term").',
    )
    text += [
        '§ 21 Governing Law and Jurisdiction',
        '21.1 This Agreement is governed by the laws of the Federal Republic of Germany, excluding the UN Convention on Contracts for the International Sale of Goods.',
        '21.2 Exclusive place of jurisdiction is Landgericht München I.',
        '',
        'Signed: ______________________  Dr. Katharina Brenner, Managing Director, Northwind Analytics GmbH',
        'Signed: ______________________  Luca Bernasconi, CFO, Contoso Retail AG',
    ]
    c.request(c.ret(p, '\n'.join(text)))
    c.respond(
        c.text(
            'Key terms of the Northwind Analytics GmbH MSA (effective 1 February 2025):\n\n'
            '- **Fees:** €214,500 net per year, invoiced quarterly in advance; CPI-capped annual adjustment (clause 4.0).\n'
            '- **SLA credits:** 0.5% of the monthly fee per full 0.1% below 99.9% availability, capped at 15% (clause 9.0).\n'
            '- **Liability cap:** clause 14.3 Liability Cap — 100% of fees paid in the preceding 12 months, except intent and gross negligence.\n'
            "- **Termination:** for convenience with 90 days' notice, not effective before 2026-01-31 (clause 17.2).\n"
            '- **Law / venue:** German law, exclusive jurisdiction Landgericht München I.'
        )
    )
    return c


@scenario('30_metrics_mixed_content_types')
def s30():
    c = Conv(3030, '2025-09-14T20:00:00.000000', provider='gemini')
    r = c.rng
    c.facts = ['api-gateway-5f7d8c9b4-kq2lw', '0.973', '1757878920', '4.87', 'p99']
    c.request(
        c.sys('You are an observability assistant with Prometheus access.'),
        c.user('Was there a latency spike on the API gateway in the last hour? Which pod?'),
    )
    q = c.call(
        'prometheus_query_range',
        {
            'query': 'histogram_quantile(0.99, sum by (pod, le) (rate(http_request_duration_seconds_bucket{job="api-gateway"}[1m])))',
            'start': '2025-09-14T19:00:00Z',
            'end': '2025-09-14T20:00:00Z',
            'step': '15s',
        },
    )
    avail = c.call('prometheus_query', {'query': 'avg_over_time(slo:availability:ratio[1h])'})
    alert = c.call('alert_is_firing', {'name': 'APIGatewayHighLatency'})
    c.respond(q, avail, alert)
    pods = [f'api-gateway-5f7d8c9b4-{alnum(r, 5, "bcdfghjklmnpqrstvwxz2456789")}' for _ in range(5)] + [
        'api-gateway-5f7d8c9b4-kq2lw'
    ]
    result = []
    t0 = int(datetime(2025, 9, 14, 19, 0, tzinfo=UTC).timestamp())
    for pod in pods:
        vals = []
        for k in range(241):
            v = r.uniform(0.08, 0.35)
            if pod.endswith('kq2lw') and 160 <= k <= 190:
                v = r.uniform(2.5, 4.6)
            vals.append([t0 + k * 15, f'{v:.6f}'])
        if pod.endswith('kq2lw'):
            vals[168][1] = '4.87'
        result.append(
            {'metric': {'pod': pod, 'namespace': 'edge', 'job': 'api-gateway', 'quantile': 'p99'}, 'values': vals}
        )
    c.request(
        c.ret(q, {'status': 'success', 'data': {'resultType': 'matrix', 'result': result}}),
        c.ret(avail, 0.973),
        c.ret(alert, True),
    )
    c.respond(
        c.text(
            'Yes. The p99 latency of pod **api-gateway-5f7d8c9b4-kq2lw** spiked to **4.87 s** at 19:42 UTC (sample timestamp 1757878920) and stayed above 2.5 s for about 8 minutes; '
            'the other five pods stayed under 0.35 s. The APIGatewayHighLatency alert is still firing, and availability over the last hour is 0.973, '
            'below the 99.5% SLO. I would cordon that pod and check its node.'
        )
    )
    c.indent = None
    return c


@scenario('31_current_retried_outcome_advisory')
def s31():
    c = Conv(3131, '2025-09-13T09:00:00.000000', provider='anthropic')
    r = c.rng
    c2 = ip(r)
    c.facts = ['AA25-212A', 'Volt Typhoon', 'CVE-2024-3400', c2, 'KV-botnet', 'PAN-OS 11.1.2-h3']
    c.request(
        c.sys(CTI_SYSTEM), c.user('Summarize the new joint advisory AA25-212A and extract the network indicators.')
    )
    f1 = c.call('fetch_url', {'url': 'https://www.cisa.gov/news-events/cybersecurity-advisories/aa25-212a'})
    c.respond(f1)
    # pydantic-ai 2.x stores a ModelRetry raised by the tool as a tool return with outcome="retried"
    c.request(
        ToolReturnPart(
            tool_name='fetch_url',
            tool_call_id=f1.tool_call_id,
            timestamp=c.tick(0.3, 2),
            outcome='retried',
            content='HTTP 403 Forbidden (bot protection). Try the PDF mirror or a different source.',
            retry=RetryInfo(cause='model_retry', attempt=1, max_retries=3),
        )
    )
    f2 = c.call(
        'fetch_url',
        {'url': 'https://www.cisa.gov/sites/default/files/2025-07/aa25-212a-joint-advisory.pdf', 'as_text': True},
    )
    c.respond(c.text('The HTML page is blocked; trying the PDF version of AA25-212A.'), f2)
    page = make_article(
        r,
        THREAT_BANK,
        'Joint Cybersecurity Advisory AA25-212A: PRC state-sponsored actors compromise edge devices',
        'https://www.cisa.gov/sites/default/files/2025-07/aa25-212a-joint-advisory.pdf',
        '2025-07-31',
        16000,
        [
            (
                0.05,
                'The authoring agencies assess that Volt Typhoon continues to pre-position on US and allied critical infrastructure networks',
            ),
            (
                0.5,
                'Initial access was frequently gained through CVE-2024-3400 on Palo Alto Networks GlobalProtect gateways; devices running PAN-OS 11.1.2-h3 or later are not affected',
            ),
            (
                0.95,
                'Traffic was relayed through end-of-life SOHO routers that form the KV-botnet, which the FBI disrupted in early 2024 but which has since been rebuilt',
            ),
        ],
    )
    iocs = '\n'.join(
        f'{ip(r)}\t{pick(r, ["C2", "proxy node", "exploitation source", "scanner"])}\t{rdate(r, "2025-03-01", 140, "%Y-%m-%d")}'
        for _ in range(60)
    )
    iocs_lines = iocs.split('\n')
    iocs_lines.insert(47, f'{c2}\tC2\t2025-07-02')
    page += '\n\nAppendix A – Network indicators (IP, role, last seen)\n' + '\n'.join(iocs_lines)
    c.request(c.ret(f2, page))
    c.respond(
        c.text(
            '**AA25-212A in brief**\n- Actor: **Volt Typhoon** (PRC), pre-positioning on critical infrastructure.\n- Initial access: **CVE-2024-3400** in GlobalProtect; '
            'PAN-OS 11.1.2-h3 and later are not affected.\n- Relay infrastructure: the rebuilt **KV-botnet** of end-of-life SOHO routers.\n'
            f'- Appendix A lists 61 IPs; the only one marked C2 with activity in July is `{c2}` — block it first.'
        )
    )
    return c


# ==================================================================================================
# checks, output, README
# ==================================================================================================

DESCRIPTIONS = {
    '01_web_search_apt': 'CTI deep_research, 2 parallel calls + follow-up; list of 8-15 articles; tool_0_* ids reused across turns',
    '02_threat_intel_indicators_old': 'explore graph + parallel get_indicator_details (nested VT/OTX-style dicts) + retry-prompt',
    '03_ransomware_research_old': 'deep_research list + 3 parallel NVD CVE lookups (one tiny) + follow-up question',
    '04_cloud_billing_old': 'AWS Cost Explorer grouped by service/account, budget (tiny), cost anomalies',
    '05_web_search_ev_batteries': 'market research web_search lists (accented names), two rounds',
    '06_web_research_sqlalchemy_migration': 'docs/StackOverflow search list + tiny PyPI return + fetched discussion page (thinking part)',
    '07_github_issues_api': 'GitHub search issues API (38 issues) + comments list + tiny create-comment return',
    '08_flight_search_deferred_booking': 'Duffel-style flight offers (nested); final book_flight call deferred, never answered',
    '09_weather_forecast_api': 'Open-Meteo hourly arrays + Météo-France warnings + tiny geocode',
    '10_ecommerce_parallel_retry_deferred': '4 parallel get_order, validation-error retry-prompt (list content), 2 deferred refunds never answered, user part from tool',
    '11_threat_intel_parallel_deferred_approved': '5 parallel IP lookups, rate-limit retry-prompt, deferred block_ip approved later (return in a later request)',
    '12_read_file_python_source': 'grep + read_file of a ~33 KB numbered Python module + edit + tiny test output',
    '13_k8s_config_kubectl': 'kubectl get pods -A, describe pod (OOMKilled), Helm values YAML',
    '14_read_csv_sales_unicode': '~57 KB CSV with CJK/Korean/Greek/accented customers + tiny run_python output',
    '15_build_log_typescript': 'pnpm/Next.js CI build log with TS errors + tiny git log',
    '16_java_stacktrace_logs': 'Loki query: Spring Boot / Hikari / PSQLException stack traces + tiny pg stats dict',
    '17_journalctl_sshd_postgres': 'journalctl with sshd brute force noise and a postgres bind failure + tiny grep',
    '18_pytest_output': 'pytest -q run with 3 failures and warnings + small read_file + edit (thinking part)',
    '19_sentry_event_json': 'Sentry issues list + latest event (frames, breadcrumbs, request)',
    '20_huge_nginx_access_log': '>1 MB nginx access log (24 h) + tiny WAF return',
    '21_all_tiny_calendar': 'calendar scheduling; every tool return is tiny (must stay untouched)',
    '22_support_tickets_rtl_unicode': 'Zendesk tickets in Arabic/Hebrew/English with emoji + tiny reply return',
    '23_slack_search_cjk_emoji': 'Slack search results in Japanese/Chinese with emoji',
    '24_messy_reused_ids_unanswered_sql': 'local model, per-response ids call_0/call_1 reused; pg_stat table list, EXPLAIN ANALYZE; final DDL call never answered',
    '25_messy_two_responses_terraform': 'terraform plan output; two responses in a row (first cut at max_tokens)',
    '26_messy_support_bot_all': 'help-center search lists; two responses in a row, reused call id, unanswered create_ticket and final escalate call',
    '27_crm_contacts_accented': 'HubSpot deals with associated contacts (Nordic/accented names)',
    '28_s3_inventory_large_list': 'S3 listing as a top-level list of 1,401 objects',
    '29_contract_pdf_extract': 'read_pdf of a 20 KB MSA contract text',
    '30_metrics_mixed_content_types': 'Prometheus matrix (nested lists) + float and bool tool returns',
    '31_current_retried_outcome_advisory': 'current 2.x retry form: ToolReturnPart outcome="retried" (403 page), then a long advisory page and an IOC list',
}


def turn_texts(part: dict) -> str | None:
    """Text of a part that can quote facts (anything but a tool return / retry prompt)."""
    kind = part['part_kind']
    if kind in ('text', 'thinking', 'user-prompt'):
        return part['content'] if isinstance(part['content'], str) else json.dumps(part['content'], ensure_ascii=False)
    if kind == 'tool-call':
        args = part['args']
        return args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    return None


def return_text(content) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


def check_facts(name: str, data: list[dict], facts: list[str]) -> list[str]:
    """Each fact must appear in a tool return and, later, in a turn part. Returns problems."""
    problems = []
    seen = ''
    quoted_after = {f: False for f in facts}
    for msg in data:
        for part in msg['parts']:
            if part['part_kind'] == 'tool-return':
                seen += '\n' + return_text(part['content'])
                continue
            t = turn_texts(part)
            if t is None:
                continue
            for f in facts:
                if not quoted_after[f] and f in t and f in seen:
                    quoted_after[f] = True
    for f, ok in quoted_after.items():
        if not ok:
            problems.append(f'{name}: fact {f!r} is not quoted after a tool return containing it')
    if not 3 <= len(facts) <= 8:
        problems.append(f'{name}: {len(facts)} facts (want 3-8)')
    return problems


def largest_return(data: list[dict]) -> int:
    sizes = [
        len(return_text(p['content']).encode('utf-8'))
        for m in data
        for p in m['parts']
        if p['part_kind'] == 'tool-return'
    ]
    return max(sizes, default=0)


def human(n: int) -> str:
    return f'{n / 1024 / 1024:.2f} MB' if n >= 1024 * 1024 else f'{n / 1024:.1f} KB' if n >= 1024 else f'{n} B'


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob('*.json'):
        old.unlink()
    problems: list[str] = []
    facts_out: dict[str, list[str]] = {}
    rows = []
    for name, fn in SCENARIOS:
        conv = fn()
        if isinstance(conv, OldConv):
            raw, fmt = conv.dump(), 'older schema, indent=2'
        else:
            indent = getattr(conv, 'indent', 2)
            raw = conv.dump(indent)
            fmt = 'current, indent=2' if indent else 'current, compact'
        ModelMessagesTypeAdapter.validate_json(raw)
        data = json.loads(raw)
        problems += check_facts(name, data, conv.facts)
        (OUT / f'{name}.json').write_bytes(raw)
        facts_out[name] = conv.facts
        rows.append((name, fmt, largest_return(data), len(raw)))
    (HERE / 'facts.json').write_text(json.dumps(facts_out, indent=2, ensure_ascii=False) + '\n', encoding='utf-8')
    write_readme(rows)
    total = 0
    for name, fmt, big, size in rows:
        total += size
        print(f'{name + ".json":<52} {size:>10,d} B  largest return {human(big):>9}  ({fmt})')
    print(f'{len(rows)} files, {total:,d} bytes')
    for p in problems:
        print('PROBLEM:', p, file=sys.stderr)
    return 1 if problems else 0


def write_readme(rows) -> None:
    lines = [
        '# Golden eval corpus',
        '',
        'Realistic pydantic-ai agent histories (`golden/histories/*.json`, one JSON array of messages per file) whose oversized',
        '`ToolReturnPart.content` values the summarizer must compact without losing the facts later turns depend on.',
        '',
        'Every file validates with `pydantic_ai.messages.ModelMessagesTypeAdapter.validate_json`. Files 01-04 use the older',
        'stored schema (`dynamic_ref`, `request_tokens`/`response_tokens` usage, `vendor_details`, `vendor_id`, `tool_{i}_{name}` ids, JSON-string',
        'args) pretty-printed with `json.dumps(indent=2)`; the rest are `ModelMessagesTypeAdapter.dump_json` output, pretty or compact.',
        '',
        '`golden/facts.json` lists, per history, the 3-8 facts (ids, names, numbers, hashes, paths, ...) that appear verbatim in an earlier',
        'tool return and are quoted verbatim by a later assistant text, tool-call argument or user prompt; the generator checks this.',
        '',
        '## Regenerate',
        '',
        '```',
        '. .venv/bin/activate',
        'python golden/make_histories.py   # rewrites golden/histories/*.json, golden/facts.json and this README',
        '```',
        '',
        'Deterministic (fixed seeds and timestamps, no network). Output depends on the installed pydantic-ai serializer for the',
        'current-format files, so regenerate after upgrading pydantic-ai and review the diff.',
        '',
        'Round trips: `validate_json` then `dump_json` reproduces the current-format files byte for byte, except 10 and 11, which',
        'store `retry-prompt` parts (as histories saved by earlier pydantic-ai versions do); pydantic-ai 2.62 loads those as',
        '`ToolReturnPart(outcome="retried")`. File 31 holds that newer form directly. Files 01-04 (older schema) never round-trip',
        'through the adapter, so they exercise the byte-exact rewrite path.',
        '',
        '## Files',
        '',
        '| file | scenario | format | largest return |',
        '|---|---|---|---|',
    ]
    for name, fmt, big, _ in rows:
        lines.append(f'| `{name}.json` | {DESCRIPTIONS.get(name, "")} | {fmt} | {human(big)} |')
    (HERE / 'README.md').write_text('\n'.join(lines) + '\n', encoding='utf-8')


if __name__ == '__main__':
    sys.exit(main())
