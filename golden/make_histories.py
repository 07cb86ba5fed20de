"""Generate the golden eval corpus: realistic pydantic-ai agent histories with oversized tool returns.

Run from the repo root:  python golden/make_histories.py
Every file under golden/histories/ is rewritten. Output is deterministic: fixed seeds, fixed
timestamps, no network. Each scenario declares the facts that later turns quote from earlier tool
returns; the script checks that each fact appears verbatim in an earlier tool return and in a later
turn (assistant text, tool-call args or user prompt), and writes them to golden/facts.json.
"""

from __future__ import annotations

import difflib
import json
import random
import re
import string
import sys
import textwrap
import uuid
import warnings
from collections import Counter
from collections.abc import Callable
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


# --------------------------------------------------------------------------------------------------
# coding-agent sessions (32+): the traffic a coding agent produces, as the real corpora record it
# --------------------------------------------------------------------------------------------------
#
# Real coding-agent histories are mostly file reads (numbered and plain), shell and test output,
# diffs, grep/find listings, a few Markdown docs and JSON text. Later turns reuse identifiers from
# anywhere in those returns, often many turns later: an edit's `old_str` is a run of lines from the
# middle of a file read, a final answer repeats the whole patch, a fix names the failing test and
# `file:line`, a listing's paths are read next. The sessions below are generated from small code
# bases written for this corpus (no recorded traffic is copied) and reuse facts the same way: which
# lines a turn quotes is drawn at random over the whole return, not planted.

PY_TEMPLATES = [
    '''@dataclass(frozen=True, slots=True)
class <<Cls>>:
    """<<doc>>"""

    <<attr>>: str
    <<attr2>>: int = <<num>>
    <<attr3>>: float = <<flt>>
    <<attr4>>: tuple[str, ...] = ()

    @property
    def <<prop>>(self) -> bool:
        return self.<<attr2>> > 0 and bool(self.<<attr4>>)
''',
    '''def <<fn>>(<<arg>>: <<Cls>>, *, <<kw>>: int = <<CONST>>) -> list[str]:
    """<<doc>>"""
    out: list[str] = []
    for index, item in enumerate(<<arg>>.<<attr4>>):
        if index >= <<kw>>:
            log.warning("<<fn>>: dropping %d items past %d", len(<<arg>>.<<attr4>>) - index, <<kw>>)
            break
        if not item.strip():
            continue
        out.append(<<fn2>>(item))
    return out
''',
    '''async def <<fn>>(client: httpx.AsyncClient, <<arg>>: str, *, timeout: float = <<flt>>) -> dict[str, Any]:
    """<<doc>>"""
    last: Exception | None = None
    for attempt in range(1, <<CONST>> + 1):
        try:
            response = await client.post(f"/<<route>>/{<<arg>>}", timeout=timeout)
            response.raise_for_status()
            return response.json()
        except (httpx.TransportError, httpx.HTTPStatusError) as exc:
            last = exc
            if isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code < 500:
                raise <<Exc>>(f"<<route>> rejected {<<arg>>}: {exc.response.status_code}") from exc
            await asyncio.sleep(<<fn2>>(attempt))
    raise <<Exc>>(f"<<route>> unreachable after <<CONST>> attempts") from last
''',
    '''class <<Cls>>:
    """<<doc>>"""

    def __init__(self, <<arg>>: str, <<kw>>: int = <<num>>) -> None:
        self.<<arg>> = <<arg>>
        self.<<kw>> = <<kw>>
        self._<<attr>>: dict[str, int] = {}
        self._lock = threading.Lock()

    def <<meth>>(self, key: str) -> int:
        with self._lock:
            count = self._<<attr>>.get(key, 0) + 1
            self._<<attr>>[key] = count
        if count > self.<<kw>>:
            raise <<Exc>>(f"{key} seen {count} times")
        return count

    def <<meth2>>(self) -> None:
        with self._lock:
            self._<<attr>>.clear()

    def __repr__(self) -> str:
        return f"<<Cls>>({self.<<arg>>!r})"
''',
    """class <<Cls>>(str, enum.Enum):
    <<E1>> = "<<e1>>"
    <<E2>> = "<<e2>>"
    <<E3>> = "<<e3>>"
    <<E4>> = "<<e4>>"

    @classmethod
    def <<meth>>(cls, value: str) -> <<Cls>>:
        try:
            return cls(value.lower())
        except ValueError:
            raise <<Exc>>(f"unknown <<attr>> {value!r}") from None
""",
    '''_<<CONST>>_RE = re.compile(r"^(?P<<<attr>>>[a-z][a-z0-9_.-]*)(?::(?P<<<attr2>>>\\d+))?$")


def <<fn>>(text: str) -> tuple[str, int | None]:
    """<<doc>>"""
    match = _<<CONST>>_RE.match(text.strip())
    if match is None:
        raise <<Exc>>(f"cannot parse {text!r}")
    <<attr2>> = match.group("<<attr2>>")
    return match.group("<<attr>>"), int(<<attr2>>) if <<attr2>> else None
''',
    '''@contextlib.contextmanager
def <<fn>>(path: Path, *, mode: int = 0o<<oct>>) -> Iterator[IO[str]]:
    """<<doc>>"""
    tmp = path.with_suffix(path.suffix + ".tmp")
    handle = tmp.open("w", encoding="utf-8")
    try:
        yield handle
        handle.flush()
        os.fsync(handle.fileno())
        handle.close()
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        handle.close()
        tmp.unlink(missing_ok=True)
        raise
''',
    '''def <<fn>>(rows: Sequence[Mapping[str, Any]], *, <<kw>>: str = "<<e1>>") -> dict[str, Any]:
    """<<doc>>"""
    payload: dict[str, Any] = {
        "<<attr>>": [row["<<attr>>"] for row in rows],
        "<<attr2>>": sum(int(row.get("<<attr2>>", 0)) for row in rows),
        "<<kw>>": <<kw>>,
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if len(rows) > <<CONST>>:
        payload["truncated"] = True
        payload["<<attr>>"] = payload["<<attr>>"][:<<CONST>>]
    return payload
''',
    '''class <<Exc>>(<<Base>>):
    """<<doc>>"""

    def __init__(self, message: str, *, <<attr>>: str | None = None, <<attr2>>: int = <<num>>) -> None:
        super().__init__(message)
        self.<<attr>> = <<attr>>
        self.<<attr2>> = <<attr2>>
''',
    '''def <<fn>>(func: Callable[P, R]) -> Callable[P, R]:
    """<<doc>>"""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        started = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            elapsed_ms = (time.perf_counter() - started) * 1000
            if elapsed_ms > <<CONST>>:
                log.info("%s took %.1f ms", func.__qualname__, elapsed_ms)

    return wrapper
''',
    '''def <<fn>>(conn: sqlite3.Connection, <<arg>>: str, *, limit: int = <<num>>) -> list[<<Cls>>]:
    """<<doc>>"""
    cursor = conn.execute(
        "SELECT <<attr>>, <<attr2>>, <<attr3>> FROM <<table>> WHERE <<arg>> = ? ORDER BY <<attr2>> DESC LIMIT ?",
        (<<arg>>, limit),
    )
    return [<<Cls>>(<<attr>>=row[0], <<attr2>>=row[1], <<attr3>>=row[2]) for row in cursor.fetchall()]
''',
    '''def <<fn>>(argv: Sequence[str] | None = None) -> int:
    """<<doc>>"""
    parser = argparse.ArgumentParser(prog="<<prog>> <<cmd>>")
    parser.add_argument("<<arg>>", help="<<help>>")
    parser.add_argument("--<<flag>>", type=int, default=<<CONST>>)
    parser.add_argument("--<<flag2>>", action="store_true")
    args = parser.parse_args(argv)
    try:
        result = <<fn2>>(args.<<arg>>, <<kw>>=args.<<flag_u>>)
    except <<Exc>> as exc:
        print(f"<<prog>>: {exc}", file=sys.stderr)
        return 2
    if args.<<flag2_u>>:
        print(json.dumps(result, indent=2, default=str))
    return 0
''',
    """<<CONST>>: Final[Mapping[str, int]] = MappingProxyType(
    {
        "<<e1>>": <<num>>,
        "<<e2>>": <<num2>>,
        "<<e3>>": <<num3>>,
        "<<e4>>": <<num4>>,
    }
)
""",
    '''def <<fn>>(paths: Iterable[Path], *, <<kw>>: str = "*.<<ext>>") -> Iterator[tuple[Path, int]]:
    """<<doc>>"""
    for root in paths:
        for path in sorted(root.rglob(<<kw>>)):
            if any(part.startswith(".") for part in path.parts):
                continue
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                continue
            if size > <<CONST>>:
                log.debug("<<fn>>: skipping %s (%d bytes)", path, size)
                continue
            yield path, size
''',
    '''def <<fn>>(<<arg>>: Sequence[<<Cls>>]) -> list[<<Cls>>]:
    """<<doc>>"""
    seen: set[str] = set()
    ordered = sorted(<<arg>>, key=lambda item: (-item.<<attr2>>, item.<<attr>>))
    unique: list[<<Cls>>] = []
    for item in ordered:
        if item.<<attr>> in seen:
            continue
        seen.add(item.<<attr>>)
        unique.append(item)
    return unique[:<<CONST>>]
''',
    '''    def <<meth>>(self, <<arg>>: <<Cls>>, *, force: bool = False) -> None:
        """<<doc>>"""
        if not force and <<arg>>.<<attr>> in self._<<attr3>>:
            return
        self._<<attr3>>[<<arg>>.<<attr>>] = <<arg>>
        self._dirty = True
        if len(self._<<attr3>>) > self.<<kw>>:
            oldest = min(self._<<attr3>>.values(), key=lambda v: v.<<attr2>>)
            del self._<<attr3>>[oldest.<<attr>>]
''',
]
"""Blocks of a Python module; `<<name>>` placeholders are filled per block from the module's vocabulary."""

PY_DOC_LINES = [
    'Called once per batch; the caller holds the lock.',
    'Kept small on purpose: the worker imports this module at start-up.',
    'Returns an empty result rather than raising when there is nothing to do.',
    'The order matters: later entries win.',
    'Mirrors the behaviour of the v1 endpoint so old clients keep working.',
    'Safe to call from several threads.',
    'Raises when the input cannot be read; never returns a partial result.',
    'Used by the CLI and by the scheduler.',
    'See docs/design.md for why this is not a database query.',
    'Only the first match is used.',
]

PY_HEADER = '''"""<<path>>: <<summary>>."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import enum
import functools
import json
import logging
import os
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, Final, ParamSpec, TypeVar

import httpx

from <<pkg>> import <<imports>>
from <<pkg>>.errors import <<Base>>

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")

<<consts>>
'''


def _fill_code(template: str, values: dict[str, str]) -> str:
    out = template
    for key, value in values.items():
        out = out.replace(f'<<{key}>>', value)
    assert '<<' not in out.replace('(?P<', ''), out
    return out


METHOD_BLOCK_SHARE = 0.75
"""Share of the function blocks written as a method of a class of their own, their first parameter the state its
`__init__` keeps (`_as_method`): in the dev corpus's file reads over 4,000 characters 88% of the def lines are methods,
and three hunk headers of a diff in four name a class (git's function context is the nearest line above that starts
with a letter); the generated reads had 43%, and their diffs' hunk headers named a top-level function, 75 characters
long at the mean against 50."""


def _place_block(
    rng: random.Random,
    blocks: list[str],
    template: str,
    block: str,
    *,
    new_class: Callable[[], str],
    method_share: float,
) -> bool:
    """Add a module's next block to `blocks`: a method template to the class before it (or nowhere, without one), a
    function as a method of a class of its own in `method_share` of the cases. True when it is a top-level function."""
    if template.startswith('    def'):
        if blocks and blocks[-1].startswith('class'):
            blocks[-1] = blocks[-1] + '\n' + block
        return False
    if not template.lstrip().startswith(('def', 'async def', '@contextlib')):
        blocks.append(block)
        return False
    method = _as_method(block, new_class) if method_share and rng.random() < method_share else None
    blocks.append(method or block)
    return method is None


def _as_method(block: str, new_class: Callable[[], str]) -> str | None:
    """A function block as a class of its own whose `__init__` keeps the function's first parameter, which the method
    then reads as `self.<name>`; None for a function without a first parameter of its own."""
    m = re.match(r'((?:@[^\n]*\n)*)((?:async )?def \w+\()', block)
    if m is None:
        return None
    depth, cut = 0, None
    for index, char in enumerate(block[m.end() :], m.end()):
        if char in '([{':
            depth += 1
        elif char in ')]}' and depth:
            depth -= 1
        elif char in ',)' and not depth:
            cut = index
            break
    first = block[m.end() : cut].strip() if cut is not None else ''
    name = re.match(r'([a-z_]\w*)(?=\s*(?::|=|$))', first)
    if name is None or first.startswith('*'):
        return None
    assert cut is not None
    header_end = block.find('\n', cut)
    header_end = len(block) if header_end < 0 else header_end
    others = ', ' + block[cut + 1 : header_end].lstrip(' ') if block[cut] == ',' else block[cut:header_end]
    signature = block[: m.end()] + 'self' + others
    body = _with_state(block[header_end:], name.group(1))
    method = ''.join(f'    {line}' if line.strip() else line for line in (signature + body).splitlines(keepends=True))
    return (
        f'class {new_class()}:\n    def __init__(self, {first}) -> None:\n        self.{name.group(1)} = {name.group(1)}\n\n'
        + method
    )


def _with_state(code: str, name: str) -> str:
    """`code` reading `name` as `self.<name>`: in the code and in f-strings' fields, not in the text of strings."""
    use = re.compile(rf'(?<![\w.]){name}\b(?!\s*=[^=])')

    def fields(m: re.Match[str]) -> str:
        return use.sub(f'self.{name}', m.group(0))

    out = []
    for piece in re.split(r'(f?"[^"\n]*"|f?\'[^\'\n]*\')', code):
        if piece[:1] in {'"', "'"}:
            out.append(piece)
        elif piece.startswith(('f"', "f'")):
            out.append(re.sub(r'\{[^{}]*\}', fields, piece))
        else:
            out.append(use.sub(f'self.{name}', piece))
    return ''.join(out)


def _camel(words: list[str]) -> str:
    return ''.join(w[:1].upper() + w[1:] for w in words)


class PyVocab:
    """The names one code base uses: verbs, nouns, classes, errors and routes of its domain."""

    def __init__(self, pkg: str, prog: str, verbs: list[str], nouns: list[str], attrs: list[str], tables: list[str]):
        self.pkg, self.prog, self.verbs, self.nouns, self.attrs, self.tables = pkg, prog, verbs, nouns, attrs, tables


MODULE_LOCALS = [
    ('log', ['log', 'logger', '_log', 'LOG']),
    ('handle', ['handle', 'fh', 'stream', 'fileobj']),
    ('tmp', ['tmp', 'tmp_file', 'scratch', 'staging']),
    ('unique', ['unique', 'deduped', 'kept', 'distinct']),
    ('elapsed_ms', ['elapsed_ms', 'took_ms', 'duration_ms', 'spent_ms']),
    ('response', ['response', 'resp', 'reply', 'http_response']),
    ('client', ['client', 'http', 'api', 'transport']),
    ('cursor', ['cursor', 'cur', 'rows_cursor', 'db_cursor']),
    ('func', ['func', 'wrapped', 'target', 'callee']),
    ('match', ['match', 'found', 'hit', 'mo']),
    ('out', ['out', 'collected', 'acc', 'buffer']),
    ('exc', ['exc', 'err', 'error', 'failure']),
    ('quantize_delay', ['quantize_delay', 'backoff_delay', 'retry_delay', 'delay_for']),
    ('self._lock', ['self._lock', 'self._mutex', 'self._guard', 'self._write_lock']),
]
"""Local names the templates share, and the names a module may use instead: the same boilerplate under the same names
in every module would make every edit reuse facts of every file, far more than in a real code base."""
MODULE_NOUNS = 10
"""How many of its code base's nouns a Python module names its functions, classes and constants after."""
MODULE_ATTRS = 8
"""How many of its code base's fields a Python module uses."""
HELPER_OWN_NAMES = 0.0
"""Share of the helpers added to a module that bring names of their own code base's other modules (new nouns, fields,
constants, errors); the others are written with the module's own names and define only their function or class. In
the dev corpus a diff's added lines hold 0.52 facts each not on an earlier line of the diff (1,000 tokens of a diff over
4,000 characters hold 73 facts); with every helper drawn from the whole code base's names the generated diffs had 0.80
(106 facts per 1,000 tokens)."""


def _nearest(names: list[str], least: int, near: str | None) -> list[str]:
    """The `names` that occur in `near` (all of them without `near`), topped up from the others to `least`."""
    if near is None:
        return names
    found = [n for n in names if re.search(rf'\b{re.escape(n)}\b', near)]
    if len(found) >= least or not found:
        return found or names
    return found + [n for n in names if n not in found][: least - len(found)]


def python_source(
    rng: random.Random,
    vocab: PyVocab,
    path: str,
    summary: str,
    n_blocks: int,
    *,
    module: str | None = None,
    near: str | None = None,
    method_share: float = METHOD_BLOCK_SHARE,
) -> str:
    """A plausible Python module of `vocab`'s code base: a header, constants, then `n_blocks` blocks.

    A module uses a part of the code base's nouns and fields, as a real module does: were they all in every module,
    a line edited in one file would name half the facts of every other file (golden/README.md).

    With `module` (the source of an existing module), the blocks are code written into it: they use its nouns, fields,
    constants, errors, classes, functions and local names, and define only their own new names (`HELPER_OWN_NAMES`);
    with `near` too (the code around where they go), they use the names found there first (`HELPER_NEAR_NAMES`).
    """

    own = module is not None and rng.random() >= HELPER_OWN_NAMES
    if own:
        assert module is not None
        nouns = [n for n in vocab.nouns if n in module]
        attrs = [a for a in vocab.attrs if re.search(rf'\b{re.escape(a)}\b', module)]
        vocab = PyVocab(
            vocab.pkg,
            vocab.prog,
            vocab.verbs,
            _nearest(nouns if len(nouns) >= 3 else vocab.nouns, 3, near),
            _nearest(attrs if len(attrs) >= 4 else vocab.attrs, 4, near),
            vocab.tables,
        )
    else:
        vocab = PyVocab(
            vocab.pkg,
            vocab.prog,
            vocab.verbs,
            rng.sample(vocab.nouns, min(len(vocab.nouns), MODULE_NOUNS)),
            rng.sample(vocab.attrs, min(len(vocab.attrs), MODULE_ATTRS)),
            vocab.tables,
        )
    used: set[str] = set(re.findall(r'^\s*(?:async )?(?:def|class) (\w+)', module or '', re.MULTILINE))

    def fresh(make) -> str:
        for _ in range(200):
            name = make()
            if name not in used:
                used.add(name)
                return name
        raise RuntimeError('vocabulary too small')

    def fn() -> str:
        return fresh(lambda: f'{rng.choice(vocab.verbs)}_{rng.choice(vocab.nouns)}')

    def cls() -> str:
        return fresh(
            lambda: _camel(
                [
                    rng.choice(vocab.nouns).split('_')[0],
                    rng.choice(['Spec', 'Record', 'State', 'Entry', 'Plan', 'Window', 'Batch', 'Options']),
                ]
            )
        )

    consts = [
        fresh(
            lambda: (
                f'{rng.choice(vocab.nouns).upper()}_{rng.choice(["LIMIT", "TIMEOUT", "MAX", "BATCH", "RETRIES", "THRESHOLD_MS", "WINDOW"])}'
            )
        )
        for _ in range(6)
    ]
    const_values = {c: str(rng.choice([3, 5, 8, 16, 30, 64, 120, 250, 500, 1000, 4096, 86400])) for c in consts}
    errors = [
        _camel([rng.choice(vocab.nouns).split('_')[0], rng.choice(['Error', 'Rejected', 'Timeout', 'Conflict'])])
        for _ in range(3)
    ]
    fns_done: list[str] = ['quantize_delay']
    classes: list[str] = []
    if own:  # what the module already has: its constants, errors, functions and classes
        assert module is not None
        consts = re.findall(r'^([A-Z][A-Z0-9_]+) = \d', module, re.MULTILINE) or consts
        errors = sorted(set(re.findall(r'raise ([A-Z]\w+)\(', module))) or errors
        fns_done = re.findall(r'^(?:async )?def ([a-z_]\w*)', module, re.MULTILINE) or fns_done
        classes = [c for c in re.findall(r'^class ([A-Z]\w*)', module, re.MULTILINE) if c not in errors]
        consts, errors, fns_done = _nearest(consts, 1, near), _nearest(errors, 1, near), _nearest(fns_done, 1, near)
    blocks: list[str] = []
    for _ in range(n_blocks):
        template = rng.choice(PY_TEMPLATES)
        attrs = rng.sample(vocab.attrs, 4)
        flag = rng.choice(['max-items', 'batch-size', 'limit', 'window', 'retries', 'workers'])
        flag2 = rng.choice(['json', 'dry-run', 'verbose', 'strict'])
        enum_vals = rng.sample(
            ['pending', 'queued', 'running', 'failed', 'retrying', 'done', 'cancelled', 'paused', 'expired', 'skipped'],
            4,
        )
        defines_class = template.lstrip().startswith(('class <<Cls>>', '@dataclass'))
        values = {
            'Cls': rng.choice(classes) if classes and not defines_class else cls(),
            'fn': fn(),
            'fn2': rng.choice(fns_done),
            'meth': fn(),
            'meth2': fn(),
            'prop': fresh(
                lambda: (
                    f'is_{rng.choice(["ready", "stale", "empty", "due", "active", "complete", "expired"])}_{rng.choice(vocab.nouns)}'
                )
            ),
            'arg': rng.choice(vocab.nouns),
            'kw': rng.choice(['max_items', 'batch_size', 'window', 'retries', 'capacity', 'limit_per_key']),
            'attr': attrs[0],
            'attr2': attrs[1],
            'attr3': attrs[2],
            'attr4': attrs[3],
            'CONST': rng.choice(consts),
            'Exc': rng.choice(errors),
            'Base': f'{_camel([vocab.pkg])}Error',
            'doc': rng.choice(PY_DOC_LINES),
            'route': rng.choice(['v1/' + n.replace('_', '-') for n in vocab.nouns]),
            'num': str(rng.randint(2, 60)),
            'num2': str(rng.randint(100, 999)),
            'num3': str(rng.randint(1000, 9999)),
            'num4': str(rng.randint(10, 99) * 100),
            'flt': f'{rng.randint(1, 30)}.{rng.choice([0, 5, 25])}',
            'oct': rng.choice(['600', '640', '644']),
            'table': rng.choice(vocab.tables),
            'prog': vocab.prog,
            'cmd': rng.choice(['sync', 'replay', 'prune', 'export', 'inspect']),
            'help': rng.choice(['what to process', 'the id to inspect', 'a file or folder']),
            'flag': flag,
            'flag_u': flag.replace('-', '_'),
            'flag2': flag2,
            'flag2_u': flag2.replace('-', '_'),
            'ext': rng.choice(['json', 'yaml', 'toml', 'ndjson']),
            'E1': enum_vals[0].upper(),
            'E2': enum_vals[1].upper(),
            'E3': enum_vals[2].upper(),
            'E4': enum_vals[3].upper(),
            'e1': enum_vals[0],
            'e2': enum_vals[1],
            'e3': enum_vals[2],
            'e4': enum_vals[3],
        }
        if 'class <<Exc>>' in template:
            if values['Exc'] in used:
                continue
            used.add(values['Exc'])
        if _place_block(rng, blocks, template, _fill_code(template, values), new_class=cls, method_share=method_share):
            fns_done.append(values['fn'])
    header = _fill_code(
        PY_HEADER,
        {
            'path': path,
            'summary': summary,
            'pkg': vocab.pkg,
            'imports': ', '.join(sorted(rng.sample(vocab.nouns, 3))),
            'Base': f'{_camel([vocab.pkg])}Error',
            'consts': '\n'.join(f'{c} = {v}' for c, v in const_values.items())
            + '\n\n\ndef quantize_delay(attempt: int) -> float:\n    return min(60.0, 0.5 * 2 ** attempt)\n',
        },
    )
    stdlib = [
        line
        for line in header.splitlines()
        if line.startswith(('import ', 'from collections', 'from types', 'from typing'))
    ]
    dropped = {line for line in stdlib if rng.random() < 0.4}
    header = '\n'.join(line for line in header.splitlines() if line not in dropped)
    source = _commented(rng, _documented(rng, header + '\n\n' + '\n\n'.join(blocks)))
    for name, choices in MODULE_LOCALS:  # each module's author names its locals their own way
        # (and code written into a module names them as the module does)
        taken = [c for c in choices if own and re.search(rf'(?<![\w.]){re.escape(c)}\b', module or '')]
        source = re.sub(rf'(?<![\w.]){re.escape(name)}\b', taken[0] if taken else rng.choice(choices), source)
    return source


DOCSTRING_PROSE = [
    'This is the slow path; the common case returns before it gets here.',
    'The caller is expected to have checked the input already, so nothing is validated twice.',
    'An empty input gives an empty result, never an error, because the scheduler calls this on every tick.',
    'Entries are processed in the order they were received, and a failure stops the batch at that entry.',
    'The result is cached for the lifetime of the process; restart the worker after changing the settings.',
    'Nothing is written when this raises, so a retry starts from the same state.',
    'It used to take a lock here, which made every request wait behind the slowest one.',
    'Keep this cheap: it runs once for every item of every batch.',
    'The values come from the settings file and may be overridden on the command line.',
    'When two entries have the same key, the newer one wins and the older one is logged and dropped.',
    'Timeouts are counted as failures, but they do not use up the retry budget of the item.',
    'This mirrors what the old implementation did, including its handling of missing values.',
]
DOCSTRING_SHARE = 0.13
"""Share of the functions without a docstring in their template that are given one of a few lines of prose: real
modules explain themselves, and their lines are longer than code's (the dev corpus's file reads over 4,000 characters:
37 characters a line at the median, 132 lines; without docstrings the generated ones had 29 and 189)."""
TEMPLATE_DOC_SHARE = 0.27
"""Share of the docstrings the templates open their functions and classes with that a module keeps (the others have
none): the dev corpus's file reads over 4,000 characters hold about 20 docstrings per 1,000 lines, 87 def lines."""
ONE_LINE_DOC_SHARE = 0.35
"""Share of the kept docstrings that stay on one line; the others span lines, as most docstrings of real code bases do
(the dev corpus's file reads: 6 one-line docstrings per 1,000 lines, 28 lines opening or closing one that spans lines).
A one-line docstring is a quoted fact of its own, one that spans lines is not."""


def _doc_lines(rng: random.Random, indent: str, summary: str, prose: int) -> list[str]:
    """A docstring that spans lines: its summary on the opening line or on the line after lone opening quotes, then
    `prose` sentences of `DOCSTRING_PROSE` wrapped, then the closing quotes on a line of their own."""
    body = ' '.join(rng.sample(DOCSTRING_PROSE, prose))
    wrapped = [indent + piece for piece in textwrap.wrap(body, width=max(40, 88 - len(indent)))]
    if rng.random() < 0.6:
        return [f'{indent}"""{summary}', *([''] + wrapped if wrapped else []), f'{indent}"""']
    return [f'{indent}"""', f'{indent}{summary}', *([''] + wrapped if wrapped else []), f'{indent}"""']


def _documented(rng: random.Random, source: str) -> str:
    """`source` with the docstrings real code has: some of the templates' one-line docstrings kept (`TEMPLATE_DOC_SHARE`),
    most of those made to span lines (`ONE_LINE_DOC_SHARE`), the module's own spanning lines too, and a docstring of
    prose lines under some of the functions that have none (`DOCSTRING_SHARE`)."""
    lines = source.splitlines()
    out: list[str] = []
    one_line = re.compile(r'(\s*)"""(.+)"""$')
    skip: set[int] = set()
    for i, line in enumerate(lines):
        if i in skip:
            continue
        doc = one_line.match(line)
        if i == 0 and doc:  # the module's docstring: mostly a summary, then a few lines
            out += [line] if rng.random() < ONE_LINE_DOC_SHARE else _doc_lines(rng, '', doc.group(2), rng.randint(0, 2))
            continue
        previous = lines[i - 1] if i else ''
        if doc and re.match(r'\s*(?:async )?(?:def|class) ', previous):
            if rng.random() >= TEMPLATE_DOC_SHARE:
                if lines[i + 1 : i + 2] == ['']:  # no blank line left between the class line and its body
                    skip.add(i + 1)
                continue
            if rng.random() < ONE_LINE_DOC_SHARE:
                out.append(line)
            else:
                out += _doc_lines(rng, doc.group(1), doc.group(2), rng.randint(0, 2))
            continue
        out.append(line)
        m = re.match(r'(\s*)(?:async )?def \w+\(.*\)(?: -> .+)?:$', line)
        following = lines[i + 1].strip() if i + 1 < len(lines) else ''
        if not m or following.startswith('"""') or rng.random() >= DOCSTRING_SHARE:
            continue
        indent = m.group(1) + '    '
        out += _doc_lines(rng, indent, rng.choice(PY_DOC_LINES), rng.randint(1, 3))
    return '\n'.join(out) + ('\n' if source.endswith('\n') else '')


COMMENT_PROSE = [
    'Nothing to do for an empty input, so return before doing any work.',
    'This is cheaper than failing the whole batch and starting over.',
    'Keep the order the caller gave us; later entries win on a tie.',
    'The lock is held for as short a time as we can manage here.',
    'A missing value is not an error at this point, only a skipped entry.',
    'Check this before the loop, not inside it: it never changes.',
    'The upstream service is flaky, so treat a transport error as a retry.',
    'Do not log the whole payload here, it can hold personal data.',
    'We used to raise here, but the scheduler retried forever.',
    'Stop early once the limit is reached; the rest is dropped on purpose.',
    'Counting first and writing after keeps the common path fast.',
    'Anything past this point has already been checked by the caller.',
    'Write to a temporary file first so that a crash leaves the old one.',
    'The settings may override this default from the command line.',
    'Sorted so that the output is the same from one run to the next.',
    'Client errors are final; only server errors are worth another try.',
    'This mirrors the old behaviour, odd as it is, so that nothing breaks.',
    'Fall back to the default when the field is absent or blank.',
    'Both branches end up in the same place; the split is only for logging.',
    'The value is small and read often, so it is kept in memory.',
]
"""Comments written above a statement of a function body: what a line is for, in plain words (no facts)."""
COMMENT_NAMED = [
    '{name} can be empty here; that case is handled below.',
    'Read {name} once, before the loop, and reuse it after.',
    'Note that {name} is shared with the caller, so do not change it in place.',
    '{name} is checked again by the caller; this is only the fast path.',
    'Use {name} as it is: it was already cleaned up by the time we get here.',
    'If {name} is missing we keep going with what we have so far.',
]
"""Comments that name a name of the line below (a name the file already holds, so no new fact)."""
COMMENT_SHARE = 0.35
"""Share of a function body's statements (`if`, `for`, `return`, an assignment ...) given a comment line above them.
The dev corpus's file reads over 4,000 characters hold 110 facts per 1,000 tokens and 37 characters a line (median);
the generated ones, without comments, 109 and 30, and their diffs 98 facts per 1,000 tokens against 73."""
COMMENT_NAMED_SHARE = 0.3
"""Share of those comments that name a name of the line below them (agents' code bases repeat their names)."""

_STATEMENT = re.compile(
    r'(\s+)(?:if |for |while |return\b|raise |try:|with |yield |await |const |let |throw |'
    r'(?:self\.)?[a-z_][\w.]*(?:: [^=]+)? = )'
)


def _commented(rng: random.Random, source: str, *, mark: str = '#') -> str:
    """`source` with a comment line above some statements of its function bodies (`COMMENT_SHARE`)."""
    if COMMENT_SHARE <= 0:
        return source
    out: list[str] = []
    in_doc = False
    previous = ''
    for line in source.splitlines():
        m = _STATEMENT.match(line)
        if (
            m
            and not in_doc
            and not previous.strip().startswith((mark, '@'))
            and not previous.rstrip().endswith(('(', '[', '{', ','))
            and rng.random() < COMMENT_SHARE
        ):
            indent = m.group(1)
            names = [n.split('.')[-1] for n in identifiers(line)]
            if names and rng.random() < COMMENT_NAMED_SHARE:
                text = rng.choice(COMMENT_NAMED).format(name=rng.choice(names))
            else:
                text = rng.choice(COMMENT_PROSE)
            out.append(f'{indent}{mark} {text}')
        out.append(line)
        if line.count('"""') % 2 == 1:
            in_doc = not in_doc
        previous = line
    return '\n'.join(out) + ('\n' if source.endswith('\n') else '')


TS_TEMPLATES = [
    """export interface <<Cls>> {
  <<attr>>: string;
  <<attr2>>: number;
  <<attr3>>?: string | null;
  <<attr4>>: ReadonlyArray<<<Cls2>>>;
  updatedAt: string;
}
""",
    """export async function <<fn>>(<<arg>>: string, init?: RequestInit): Promise<<<Cls>>> {
  const res = await fetch(`${API_BASE}/<<route>>/${encodeURIComponent(<<arg>>)}`, {
    ...init,
    headers: { Accept: "application/json", ...(init?.headers ?? {}) },
  });
  if (!res.ok) {
    throw new <<Exc>>(`<<route>> ${<<arg>>} failed with ${res.status}`, res.status);
  }
  const body = (await res.json()) as unknown;
  return <<schema>>.parse(body);
}
""",
    """export const <<schema>> = z.object({
  <<attr>>: z.string().min(1),
  <<attr2>>: z.number().int().nonnegative(),
  <<attr3>>: z.string().nullable().optional(),
  <<attr4>>: z.array(<<schema2>>).default([]),
  updatedAt: z.string().datetime(),
});
export type <<Cls>>Input = z.infer<typeof <<schema>>>;
""",
    """export function <<fn>>(state: <<Cls>>State, action: <<Cls>>Action): <<Cls>>State {
  switch (action.type) {
    case "<<e1>>":
      return { ...state, <<attr>>: action.payload, status: "<<e2>>" };
    case "<<e3>>":
      return { ...state, status: "<<e4>>", error: action.error ?? null };
    case "reset":
      return INITIAL_<<CONST>>;
    default:
      return state;
  }
}
""",
    """export function <<Comp>>({ <<attr>>, <<attr2>>, on<<Evt>> }: <<Comp>>Props) {
  const [<<st>>, set<<St>>] = useState<<<Cls>> | null>(null);
  const rows = useMemo(() => <<fn2>>(<<attr>>), [<<attr>>]);

  useEffect(() => {
    if (!<<st>>) return;
    on<<Evt>>?.(<<st>>.<<attr>>);
  }, [<<st>>, on<<Evt>>]);

  return (
    <table className="<<css>>">
      <tbody>
        {rows.map((row) => (
          <tr key={row.<<attr>>} onClick={() => set<<St>>(row)}>
            <td>{row.<<attr>>}</td>
            <td className="num">{formatMoney(row.<<attr2>>, <<attr2>>)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
""",
    """export class <<Exc>> extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly <<attr>>?: string,
  ) {
    super(message);
    this.name = "<<Exc>>";
  }
}
""",
    """export function <<fn>>(items: ReadonlyArray<<<Cls>>>, limit = <<CONST>>): <<Cls>>[] {
  const seen = new Set<string>();
  const out: <<Cls>>[] = [];
  for (const item of [...items].sort((a, b) => b.<<attr2>> - a.<<attr2>>)) {
    if (seen.has(item.<<attr>>)) continue;
    seen.add(item.<<attr>>);
    out.push(item);
    if (out.length >= limit) break;
  }
  return out;
}
""",
    """export const <<CONST>>: Record<<<Cls>>Status, string> = {
  <<e1>>: "<<lab1>>",
  <<e2>>: "<<lab2>>",
  <<e3>>: "<<lab3>>",
  <<e4>>: "<<lab4>>",
};
""",
]

TS_HEADER = """import { useEffect, useMemo, useState } from "react";
import { z } from "zod";

import { API_BASE } from "<<alias>>/config";
import { formatMoney } from "<<alias>>/utils/money";
import type { <<imports>> } from "<<alias>>/types";

export const <<CONST0>> = <<n0>>;
export const <<CONST1>> = <<n1>>;
"""


def ts_source(rng: random.Random, vocab: PyVocab, n_blocks: int, *, jsx: bool) -> str:
    """A plausible TypeScript/React module of `vocab`'s front end."""
    used: set[str] = set()

    def fresh(make) -> str:
        for _ in range(200):
            name = make()
            if name not in used:
                used.add(name)
                return name
        raise RuntimeError('vocabulary too small')

    def camel_noun() -> str:
        return _camel(rng.choice(vocab.nouns).split('_'))

    def lower_noun() -> str:
        noun = camel_noun()
        return noun[:1].lower() + noun[1:]

    consts = [
        fresh(lambda: f'{rng.choice(vocab.nouns).upper()}_{rng.choice(["LIMIT", "PAGE_SIZE", "TTL_MS", "MAX"])}')
        for _ in range(2)
    ]
    errors = [fresh(lambda: camel_noun() + 'Error') for _ in range(3)]
    declared: set[str] = set()
    blocks = []
    fns = ['sortRows']
    for _ in range(n_blocks):
        template = rng.choice([t for t in TS_TEMPLATES if jsx or '<table' not in t])
        attrs = [_camel(a.split('_'))[:1].lower() + _camel(a.split('_'))[1:] for a in rng.sample(vocab.attrs, 4)]
        states = rng.sample(['idle', 'loading', 'loaded', 'failed', 'saving', 'saved', 'stale'], 4)
        cls = fresh(lambda: camel_noun() + rng.choice(['', 'Summary', 'Row', 'Detail', 'Page']))
        fn_name = fresh(
            lambda: (
                rng.choice(['fetch', 'load', 'select', 'dedupe', 'reduce', 'normalize', 'group'])
                + camel_noun()
                + rng.choice(['', 's', 'ById'])
            )
        )
        values = {
            'Cls': cls,
            'Cls2': camel_noun(),
            'fn': fn_name,
            'fn2': rng.choice(fns),
            'arg': rng.choice(['id', 'slug', 'accountId', 'invoiceId']),
            'attr': attrs[0],
            'attr2': attrs[1],
            'attr3': attrs[2],
            'attr4': attrs[3],
            'route': rng.choice(['api/v2/' + n.replace('_', '-') for n in vocab.nouns]),
            'schema': fresh(lambda: lower_noun() + rng.choice(['Schema', 'InputSchema', 'RowSchema', 'PatchSchema'])),
            'schema2': lower_noun() + 'Schema',
            'Exc': rng.choice(errors),
            'CONST': rng.choice(consts),
            'Comp': fresh(lambda: camel_noun() + rng.choice(['Table', 'Panel', 'List'])),
            'Evt': rng.choice(['Select', 'Open', 'Change']),
            'st': 'selected',
            'St': 'Selected',
            'css': f'{rng.choice(vocab.nouns).replace("_", "-")}-table',
            'e1': states[0],
            'e2': states[1],
            'e3': states[2],
            'e4': states[3],
            'lab1': states[0].title(),
            'lab2': states[1].title(),
            'lab3': states[2].title(),
            'lab4': states[3].title(),
        }
        if 'class <<Exc>>' in template:
            if values['Exc'] in declared:
                continue
            declared.add(values['Exc'])
        blocks.append(_fill_code(template, values))
        if 'function' in template:
            fns.append(fn_name)
    header = _fill_code(
        TS_HEADER,
        {
            'alias': '@',
            'imports': ', '.join(sorted({camel_noun() for _ in range(3)})),
            'CONST0': consts[0],
            'CONST1': consts[1],
            'n0': str(rng.choice([20, 50, 100, 250])),
            'n1': str(rng.choice([30_000, 60_000, 300_000])),
        },
    )
    return _commented(rng, header + '\n' + '\n'.join(blocks), mark='//')


# tool outputs ---------------------------------------------------------------------------------------


def cat_n(src: str, start: int = 1, *, mark: str = '\t') -> str:
    """`cat -n` of `src` (or of the lines from `start` on): six-wide line numbers and a tab.

    With `mark='→'`, the form agents' own read tools return (`     12→`), the dev corpus's form for nine reads in ten.
    """
    return '\n'.join(f'{i:>6}{mark}{line}' for i, line in enumerate(src.splitlines(), start))


def grep_n(files: dict[str, str], pattern: str, *, root: str = '', context: int = 0) -> str:
    """`grep -rn PATTERN` over `files` (paths under `root`), with `context` lines around each hit (`-C`) as grep
    prints them: `path-12-text` for a context line, `--` between groups."""
    regex = re.compile(pattern)
    out: list[str] = []
    for path, src in sorted(files.items()):
        lines = src.splitlines()
        hits = [i for i, line in enumerate(lines) if regex.search(line)]
        shown: list[int] = sorted(
            {j for i in hits for j in range(max(0, i - context), min(len(lines), i + context + 1))}
        )
        for j in shown:
            if context and out and (j == shown[0] or j - 1 not in shown):
                out.append('--')
            sep = ':' if j in hits else '-'
            out.append(f'{root}{path}{sep}{j + 1}{sep}{lines[j]}')
    return '\n'.join(out)


FUNCNAME = re.compile(r'^[A-Za-z$_]')
"""git's default hunk-header function context: the nearest line above the hunk that starts with a letter, `$` or `_`."""


def with_funcnames(hunks: list[str], old: list[str]) -> list[str]:
    """`hunks` (difflib's unified diff lines) with each `@@` header followed by the line git prints there: the nearest
    line of the old file above the hunk that starts with a letter (a top-level `def`, `class`, assignment), cut to 80
    bytes as git cuts it. In the dev corpus 92% of the hunk headers of diffs over 4,000 characters carry one."""
    out = []
    for line in hunks:
        m = re.match(r'^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@$', line)
        if m:
            above = old[: max(0, int(m.group(1)) - 1)]
            func = next((l for l in reversed(above) if FUNCNAME.match(l)), '')
            if func:
                line += ' ' + func.encode()[:80].decode(errors='ignore').rstrip()
        out.append(line)
    return out


def unified_diff(before: dict[str, str], after: dict[str, str], rng: random.Random) -> str:
    """`git diff` of every file that differs: `diff --git` and `index` headers, three lines of context, and git's
    function context after each hunk header."""
    out = []
    for path in sorted(after):
        old, new = before.get(path), after[path]
        if old == new:
            continue
        out.append(f'diff --git a/{path} b/{path}')
        if old is None:
            out += ['new file mode 100644', f'index 0000000..{sha1(rng)[:7]}']
        else:
            out.append(f'index {sha1(rng)[:7]}..{sha1(rng)[:7]} 100644')
        source = '/dev/null' if old is None else f'a/{path}'
        before_lines = (old or '').splitlines()
        out.extend(
            with_funcnames(
                list(difflib.unified_diff(before_lines, new.splitlines(), source, f'b/{path}', lineterm='', n=3)),
                before_lines,
            )
        )
    return '\n'.join(out)


def _swappable(line: str, name: str, comment: str = '#') -> bool:
    """Whether a fix may make `line` use another name in place of `name`: a name it reads or calls (not one it defines,
    binds or passes by keyword), outside its strings and its comment (`comment` opens one), on a line that defines
    nothing."""
    if '.' in name or re.match(r'\s*(?:async def|def|class|@)\b', line):
        return False
    return _read_at(line, name, comment) >= 0


def _code(line: str, comment: str = '#') -> str:
    """`line` with the text of its strings blanked (same length) and its comment cut off."""
    code = re.sub(r'(["\'])((?:(?!\1).)*)\1', lambda m: m.group(1) + ' ' * len(m.group(2)) + m.group(1), line)
    return code.split(comment, 1)[0]


def _read_at(line: str, name: str, comment: str = '#') -> int:
    """Where `line` first reads or calls `name` in its code: not in a string or its comment, nor where it binds it (an
    assignment or annotation target, a keyword, a loop or `as` target, a definition); -1 if nowhere."""
    code = _code(line, comment)
    for m in re.finditer(rf'(?<![\w.]){re.escape(name)}\b', code):
        before, after = code[: m.start()], code[m.end() :]
        if (
            re.match(r'\s*(?::[^=]*)?=(?!=)', after)  # `name = `, `name: T = `, `name=`
            or re.match(r'\s*,[\w\s,]*=(?!=)', after)  # `name, other = `
            or re.search(r'\b(?:for|as|def|class)\s+(?:[\w\s,]*,\s*)?$', before)
        ):
            continue
        return m.start()
    return -1


def _names_in_reach(lines: list[str], at: int, comment: str = '#') -> list[str]:
    """The names line `at` of `lines` can use: those the code of its function (of the module, outside one) names, and
    the module's top-level definitions and imports; never a name only a string, a comment or another function holds."""
    head = _enclosing_def(lines, at)
    scope, bound = lines, []
    if head is not None:
        end = next(
            (i for i in range(head + 1, len(lines)) if lines[i].strip() and _indent(lines[i]) <= _indent(lines[head])),
            len(lines),
        )
        scope, bound = lines[head:end], _bindings(lines, head, end)
    source = '\n'.join(lines)
    top = re.findall(r'^(?:async def|def|class) (\w+)|^([A-Za-z_]\w*)(?:: [^=]+)? = ', source, re.MULTILINE)
    imported = re.findall(r'^(?:from \S+ )?import (.+)$', source, re.MULTILINE)
    names = {
        n
        for line in scope
        for n in identifiers(_code(line, comment))
        if '.' not in n and (n in bound or _read_at(line, n, comment) >= 0)  # not a keyword or an attribute
    }
    names |= set(identifiers(' '.join([*(a or b for a, b in top), *imported])))
    return sorted(names)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _role(name: str, source: str) -> str:
    """What a name of `source` (its code: strings blanked, comments cut) is, by how it is written and used: a
    constant, an error class, another class, a function (called somewhere) or a value."""
    if name.isupper():
        return 'constant'
    if name[:1].isupper():
        return 'error' if re.search(r'(?:Error|Exception|Rejected|Timeout|Conflict)$', name) else 'class'
    return 'function' if re.search(rf'(?<![\w.]){re.escape(name)}\(', source) else 'value'


def identifiers(line: str) -> list[str]:
    """The code-like names of a line: with an underscore, a capital after a lowercase letter, or dotted."""
    names = re.findall(r'[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*', line)
    return [n for n in names if len(n) > 3 and ('_' in n.strip('_') or re.search(r'[a-z][A-Z]', n) or '.' in n)]


# Two in nine of the notes after a read, and one in four of those naming two of its names, cite a line number; notes
# on failures and type errors name the file, not `file:line`. In the dev corpus a later turn reuses 5.2 line numbers
# of a numbered read over 4,000 characters, 2.8 of them in assistant text (0.9 as "line N", almost never as
# `file:line`); with three notes in four citing one, and failures and mypy errors quoted as `file:line`, the
# generated reads had 7.1 and 5.4 (1.6 "line N", 1.7 `file:line`), counted with `LaterTurns` as the eval counts reuse.
NOTICE_TEMPLATES = [
    '`{a}` is at line {n} of {path}.',
    '`{a}` in {path} is the piece that matters here.',
    'So it goes through `{a}`.',
    '{path} defines the path through `{a}`.',
    '`{a}` happens in {path}.',
    'Line {n} of {path} uses `{a}`.',
    'So `{a}` ({path}) is the piece that matters here.',
    'Note `{a}` here.',
    '`{a}` looks relevant.',
]
NOTICE_PAIR_TEMPLATES = [
    '`{a}` is used there, and `{b}` right after it.',
    '`{b}` feeds `{a}`.',
    'Note `{a}`; `{b}` depends on it.',
    'In {path}, `{a}` calls `{b}` at line {n}.',
]
OPENERS = ['', 'OK. ', 'Now I see the structure. ', 'Got it. ', 'Interesting. ', 'Right. ', 'Hmm. ']

# How much later turns reuse, calibrated to the dev corpus's statistics (golden/reuse_stats.py prints both): there a
# later turn reuses about 24 facts of a file read, two thirds of them in tool-call arguments, a fifth from its first
# tenth (imports); 60 of a diff's facts, and repeats over 80% of the lines of two diffs in three (over 40% of seven in
# eight); 4 facts of a shell return, most from lines other than the failure's.
PAIR_NOTICE_SHARE = 0.3
SALIENT_NOTICE_SHARE = 0.5
"""Share of those notes that name the line's most frequent name in the return rather than any of its names: in the
dev corpus half the facts later turns take from a file read occur in it more than once, a sixth five times or more."""
"""Share of the notes after a read that name two identifiers of a line rather than one."""
IMPORT_EDIT_SHARE = 0.2
"""Share of the edits (not at a failing line) that add an import: their `old_str` is the file's first import lines."""
FINAL_CHECKS = [
    ('git status --short', ' M {path}'),
    ('ruff check .', 'All checks passed!'),
    ('python -m pytest -q', '{n} passed in {t:.2f}s'),
    ('git stash list', ''),
]
"""Commands run between the last `git diff` and a final answer that repeats it (dev corpus: 37% of the facts later
turns take from a diff are first reused in the next message, 29% 2-10 messages later; the generated diffs 70% and 25%)."""
FOCUSED_EDIT_SHARE = 0.97
"""Share of the further changes (after the failing lines are fixed) made to a file already changed: with 0.8 a session's
diff had half again as many file headers as the dev corpus's (109 tokens of headers per diff over 4,000 characters,
golden 162)."""
FIX_AT_FAILING_LINE_SHARE = 0.5
"""Share of the fixes made within three lines of the failing line; the others within fifteen."""
REVISE_AFTER_DIFF_SHARE = 0.5
"""Share of sessions whose agent, after reading its own `git diff`, revises one of its changes before finishing."""
READ_FOLLOW_UP_SHARE = 0.35
"""Share of the reads followed by a tool call that uses them: a read on from one of their line numbers, or a command
importing one of their names (dev corpus: 12% of the facts reused from a file read come back in a command, 6% as a
read's offset)."""
TESTS_PER_FILE = (4, 16)
"""How many tests each test file runs (a verbose run prints a line per test): the dev corpus's shell returns over 4,000
characters have 74 lines at the median, 1,300 tokens."""
SHORT_TRACEBACK_SHARE = 0.7
"""Share of the failing test runs made with `--tb=short` (one line per frame): in the dev corpus 1% of the facts
later turns take from shell output come back in an edit's `old_str` (the source lines of a long traceback would be
copied by the fix at the failing line)."""
RERUN_FAILED_SHARE = 0.6
"""Share of the fixed tests rerun alone by node id (dev corpus: 30% of the facts reused from shell output come back in
a command, 66% in assistant text)."""
LAST_COMMIT_SHARE = 0.15
"""Share of the drawn sessions that start from `git show HEAD` of someone else's commit: a diff later turns repeat
little of (4 of the dev corpus's 23 diffs over 4,000 characters; the others are the agent's own patch)."""
SAME_MODULE_FAILURE_SHARE = 0.85
"""Share of the further failures of the first test run (a second or third failing test) that fail in the same module as
the first: each failing module gets a fix, so each is a file of the session's diff. In the dev corpus a diff over 4,000
characters changes 2.3 files on average (2 at the median, 2.5 hunks each); with every failure in a module of its own the
generated diffs changed 3.3 (3), 2.0 hunks each."""
FIND_SHARE = 0.35
"""Share of the drawn sessions that start with `find` (a listing of paths) of the folders around the code, whose files
the session does not open: the dev corpus's listings over 4,000 characters are mostly grep output with the matched lines,
whose names later turns reuse, and its 6 `find` listings list an agent's notes, none of whose facts is reused. With three
in ten of them listing the code base the session then read, 35-40% of the facts later turns reused from a listing were
paths (dev corpus 12%); without, 27-31% (from grep and mypy output, whose paths a session reads next)."""
NOTICED_LINES = [0, 0, 1, 2]
"""How many lines of a read the next turn names facts of (drawn from this list), and how many changes follow the
failing tests' fixes (`FURTHER_EDITS`): with two or three lines and three to five changes later turns reused 37 facts of
a file read over 4,000 characters, the dev corpus's agents 24."""
FURTHER_EDITS = (1, 3)
NEAR_EARLIER_EDIT_SHARE = 0.6
"""Share of the further changes to a file already changed that go next to one of its earlier changes (within fifteen
lines; the others anywhere in the file): an agent finishes the change it is making. In the dev corpus a diff over 4,000
characters has 25 lines per hunk at the median and 11% of its lines are file or hunk headers; with every further change
anywhere in its file the generated diffs had 17 and 18%."""
REWRITE_LINE_SHARE = 0.4
"""Share of the edits that rewrite a line, one name it reads or calls replaced by another of the file's of the same kind
(a constant, an error, a class, a function, a value; never a name a line defines or assigns, nor one in a string or a
comment), the others changing a number or a comparison first: in the dev corpus 14% of the facts later turns take from
a diff are on its removed lines, in the generated diffs 2% before."""
CHANGED_LINES = [1, 1, 2, 3, 4, 6, 8, 12, 16, 20]
"""How many of an edit's lines it tries to rewrite (drawn from this list; a rewritten line is a removed and an added line
of the diff; a line changes once, and only where it reads a name or its code holds a number or a comparison, so a
window caps it). Counted over every `old_str`/`new_str` edit call, the dev corpus's remove 3.2 lines on average (1 at
the median, 7 at the 90th percentile); with one to four, the generated edits removed 1.1 (1, 3). This list was chosen
among three (docs/eval.md, round 10) as the one whose edit calls come nearest the dev corpus's."""
EDIT_TRIES = 8
"""How many windows an edit tries before it settles for one with nothing a fix could change (a comment, blank lines)."""
EDIT_LINES = [4, 5, 6, 6, 8, 10, 14, 20, 30, 40]
"""How many lines an edit replaces (drawn from this list): the dev corpus's edit calls replace 12.4 lines on average (6
at the median, 36 at the 90th percentile); drawn between 3 and 9, the generated ones replaced 5.0 (5, 8), and the
session's diff was many small hunks, 15.6% of its characters file or hunk headers (dev corpus 13.1%) and 92 facts per
1,000 tokens (76.5); drawn from this list, 11.0 (6, 30), 14.3% and 86.7 (four draws, docs/eval.md round 10)."""


MESSAGE_TAILS = [
    ', check the settings',
    ' (this is retried on the next run)',
    '; the rest of the batch is kept',
    ', which the caller should not see twice',
    ' before the lock was released',
    '; see the logs of the worker for the cause',
]
"""Words a fix adds to a log or error message it rewrites."""
MESSAGE_EDIT_SHARE = 0.15
"""Share of the rewritten lines of an edit that say more in a log or error message (when one of its lines has one)."""
FIX_COMMENTS = [
    'The old check let one more item through than the limit allows.',
    'This has to read the current value, not the one cached at start-up.',
    'Compare against the configured limit, which the caller may lower.',
    'Use the same name the rest of the module uses for this value.',
    'Off by one before: the last entry of a full batch was dropped.',
    'Keep this in step with the default in the settings file.',
    'The retry path needs the longer wait, or the next call fails the same way.',
    'Fixed after the regression in the last release; see the test below.',
]
"""Comments a fix writes above the line it changes, in plain words."""
FIX_COMMENT_SHARE = 0.4
"""Share of the line-rewriting edits that add a comment line saying why (dev corpus diffs: 43 characters a line and 73
facts per 1,000 tokens at the median, against 37 and 98 generated with bare rewrites)."""


class CodingSession:
    """Drives a coding agent's turns over a small code base, reusing facts as real agents do.

    After a return, the next response names facts from lines drawn at random over the whole return
    (a quarter of them with a line number); edits take their `old_str` from the middle of the current file; a
    test failure is followed by a read of the failing line and a fix; a diff can be repeated whole
    in the final answer.
    """

    def __init__(self, conv: Conv, files: dict[str, str], *, reader: str = 'read_file', shell: str = 'bash'):
        self.c = conv
        self.r = conv.rng
        self.files = dict(files)
        self.base = dict(files)
        self.reader = reader
        self.shell = shell
        self.notes: list[str] = []
        self.changed: list[tuple[str, str]] = []
        self.edited: list[tuple[str, int]] = []
        """The path and first line of each edit, for a revision after the diff."""
        self.structured_shell = False

    # one tool call and its return ---------------------------------------------------------------
    def step(self, tool: str, args: dict, content, *, say: str | None = None, think: str | None = None) -> None:
        c = self.c
        text = ' '.join([*self.notes, *([say] if say else [])])
        self.notes = []
        call = c.call(tool, args)
        parts = ([c.think(think)] if think else []) + ([c.text(self.r.choice(OPENERS) + text)] if text else []) + [call]
        c.respond(*parts)
        c.request(c.ret(call, content))

    def run(self, command: str, output: str, *, say: str | None = None, exit_code: int = 0) -> None:
        content = output
        if self.structured_shell:  # {stdout, stderr, exit_code}, as harnesses that keep the streams apart return it
            content = {
                'stdout': output,
                'stderr': '',
                'exit_code': exit_code,
                'duration_ms': self.r.randint(80, 90_000),
            }
        self.step(self.shell, {'command': command}, content, say=say)

    def notice(self, path: str, content_lines: list[tuple[int, str]], k: int) -> None:
        """Queue sentences naming facts of `k` lines drawn at random over the return."""
        candidates = [(n, line, names) for n, line in content_lines if (names := identifiers(line))]
        counts = Counter(name for _, _, names in candidates for name in names)
        for n, line, names in sorted(self.r.sample(candidates, min(k, len(candidates)))):
            # often the line's name the return keeps coming back to (a class, a field, a helper used throughout)
            salient = self.r.random() < SALIENT_NOTICE_SHARE
            a = max(names, key=lambda name: counts[name]) if salient else self.r.choice(names)
            others = [x for x in names if x != a]
            pair = others and self.r.random() < PAIR_NOTICE_SHARE
            template = self.r.choice(NOTICE_PAIR_TEMPLATES if pair else NOTICE_TEMPLATES)
            self.notes.append(template.format(a=a, b=self.r.choice(others or names), n=n, path=path))

    # file reads --------------------------------------------------------------------------------
    def read(
        self,
        path: str,
        *,
        numbered: bool = True,
        offset: int | None = None,
        limit: int | None = None,
        k: int = 3,
        say: str | None = None,
        via_shell: bool = False,
        follow_up: bool = True,
    ) -> None:
        lines = self.files[path].splitlines()
        start = offset or 1
        chosen = lines[start - 1 : start - 1 + limit] if limit else lines[start - 1 :]
        numbered_lines = list(enumerate(chosen, start))
        text = cat_n('\n'.join(chosen), start, mark='\t' if via_shell else '→') if numbered else '\n'.join(chosen)
        if via_shell:
            command = f'cat -n {path}' if numbered else f'cat {path}'
            if offset:
                command = f"sed -n '{start},{start + len(chosen) - 1}p' {path}" + (' | cat -n' if numbered else '')
            self.run(command, text, say=say)
        else:
            args: dict = {'path': path}
            if offset:
                args |= {'offset': offset, 'limit': limit}
            self.step(self.reader, args, text, say=say)
        self.notice(path, numbered_lines, k)
        if self.r.random() < 0.35:
            self.lookup(path, numbered_lines)
        if follow_up and self.r.random() < READ_FOLLOW_UP_SHARE:
            self.follow_up(path, numbered_lines, numbered=numbered)

    def follow_up(self, path: str, numbered_lines: list[tuple[int, str]], *, numbered: bool) -> None:
        """Use what a read showed in a tool call: read on from one of its line numbers, or import one of its names.

        In the dev corpus a fifth of the facts later turns take from a file read come back in a command or a read's
        `offset`, not in assistant text.
        """
        r = self.r
        far = [n for n, line in numbered_lines if n >= 100 and line.strip()]
        if numbered and far and r.random() < 0.5:
            self.read(path, offset=r.choice(far), limit=r.choice([20, 30, 40, 60]), k=0, follow_up=False)
            return
        defined = [m.group(1) for _, line in numbered_lines if (m := re.match(r'(?:async )?(?:def|class) (\w+)', line))]
        if not defined or not path.endswith('.py'):
            return
        name = r.choice(defined)
        module = path.removeprefix('src/').removesuffix('.py').replace('/', '.')
        self.run(
            f'python -c "from {module} import {name}; import inspect; print(inspect.signature({name}))"',
            f'({r.choice(["value", "batch", "self", "items"])}, *, {r.choice(["limit", "timeout", "strict"])}=None)',
            say=f'Checking the signature of `{name}`.',
        )

    def lookup(self, path: str, numbered_lines: list[tuple[int, str]]) -> None:
        """`grep -n NAME path` for a name on a random line of a read: agents check where else a name is used."""
        names = [name for _, line in numbered_lines for name in identifiers(line)]
        if not names:
            return
        name = self.r.choice(names).split('.')[-1]
        hits = '\n'.join(f'{n}:{line}' for n, line in enumerate(self.files[path].splitlines(), 1) if name in line)
        self.run(f'grep -n "{name}" {path}', hits or '(no output)', say=f'Where else is `{name}` used?')

    # edits -------------------------------------------------------------------------------------
    def edit(self, path: str, *, near: int | None = None, say: str | None = None) -> str:
        """Replace `EDIT_LINES` lines from the middle of `path` (or near line `near`); returns the enclosing function."""
        lines = self.files[path].splitlines()
        r = self.r
        body = [
            i
            for i, l in enumerate(lines)
            if l.startswith(('    ', '  ')) and l.strip() and not l.strip().startswith(('"""', '#', '//'))
        ]
        imports = [i for i, l in enumerate(lines[:40]) if l.startswith(('import ', 'from '))]
        if near is None and imports and r.random() < IMPORT_EDIT_SHARE:  # a fix that needs one more import
            count = min(len(imports), r.randint(2, 4))  # the project's own imports come last
            first = imports[-count]
            old = lines[first : first + count]
            new = [
                *old,
                'import contextlib' if path.endswith('.py') else 'import { strict as assert } from "node:assert";',
            ]
            return self._replace(path, lines, first, count, old, new, say=say or f'{path} needs one more import.')
        if near is not None:
            reach = 3 if r.random() < FIX_AT_FAILING_LINE_SHARE else 15  # or where the bad value comes from
            body = [i for i in body if abs(i + 1 - near) <= reach] or body
        else:
            body = [i for i in body if 0.1 * len(lines) < i < 0.9 * len(lines)]
        mark = '//' if path.endswith(('.ts', '.tsx')) else '#'
        for _ in range(EDIT_TRIES):  # a window with something a fix could change
            first = r.choice(body)
            count = r.choice(EDIT_LINES)
            old = lines[first : first + count]
            new, changed = self._rewritten(lines, first, old, mark)
            if changed:
                break
        if changed and r.random() < FIX_COMMENT_SHARE:  # the fix says why, above its first changed line
            j = min(changed)
            new.insert(j, f'{new[j][: _indent(new[j])]}{mark} {r.choice(FIX_COMMENTS)}')
        elif not changed:  # nothing in reach to change (none in the sessions as drawn): a note where it would go
            new.insert(0, f'{old[0][: _indent(old[0])]}{mark} TODO: {r.choice(FIX_COMMENTS)}')
        return self._replace(path, lines, first, count, old, new, say=say)

    def _rewritten(self, lines: list[str], first: int, old: list[str], mark: str) -> tuple[list[str], set[int]]:
        """`old` (the lines of `lines` from `first`) as a fix leaves them, and which of them it changed: `CHANGED_LINES`
        tries, each a longer message, a name read or called swapped for another in reach of the same kind, or a number
        or comparison changed."""
        r = self.r
        new = list(old)
        swaps = [(j, name) for j, line in enumerate(old) for name in identifiers(line) if _swappable(line, name, mark)]
        code = '\n'.join(_code(line, mark) for line in lines)
        roles: dict[str, str] = {}
        changed: set[int] = set()

        def role(name: str) -> str:
            """`_role` of a name of the file, worked out once per name (each is a search of the whole file)."""
            if name not in roles:
                roles[name] = _role(name, code)
            return roles[name]

        def swap(free: list[tuple[int, str]]) -> None:
            """A line uses another name in its reach, of the same kind, in place of one it reads or calls."""
            j, name = r.choice(free)
            kind = role(name)
            reach = [n for n in _names_in_reach(lines, first + j, mark) if n != name and role(n) == kind]
            other = r.choice(reach or [name])
            if other != name:
                at = _read_at(old[j], name, mark)
                new[j] = old[j][:at] + other + old[j][at + len(name) :]
                changed.add(j)

        for _ in range(r.choice(CHANGED_LINES)):
            free = [(j, name) for j, name in swaps if j not in changed]
            worded = [
                (j, m)
                for j, line in enumerate(old)
                if j not in changed and (m := re.search(r'(["`])([^"`\n]*\w \w[^"`\n]*)\1', line))
            ]
            if worded and r.random() < MESSAGE_EDIT_SHARE:  # the fix says more in a message
                j, m = r.choice(worded)
                new[j] = old[j][: m.end(2)] + r.choice(MESSAGE_TAILS) + old[j][m.end(2) :]
                changed.add(j)
                continue
            if free and r.random() < REWRITE_LINE_SHARE:  # the fix calls or reads something else
                swap(free)
                continue
            for j, line in enumerate(new):
                if j in changed:
                    continue
                text = _code(line, mark)  # a comparison or a number of the code, not of a string or a comment
                if ' > ' in text:
                    at = text.index(' > ')
                    new[j] = line[:at] + ' >= ' + line[at + 3 :]
                    changed.add(j)
                    break
                if (m := re.search(r'(?<![\w.])(\d{1,4})(?![\w.])', text)) and 'range' not in text:
                    new[j] = line[: m.start()] + str(int(m.group(1)) * 2 + 1) + line[m.end() :]
                    changed.add(j)
                    break
            else:  # no comparison or number to change: the fix names something else, if the lines name anything
                if free:
                    swap(free)
        return new, changed

    def _replace(
        self, path: str, lines: list[str], first: int, count: int, old: list[str], new: list[str], *, say: str | None
    ) -> str:
        """Apply an edit of `count` lines from `first` and record it as an `edit_file` call; returns the enclosing function."""
        func = next(
            (
                m.group(1)
                for l in reversed(lines[:first])
                if (
                    m := re.match(
                        r'\s*(?:async )?(?:def|class|function|export (?:async )?function|export class) (\w+)', l
                    )
                )
            ),
            'module',
        )
        # an edit leaves the rest of the file as it was, its last newline included (dropping it put a hunk removing the
        # last blank line of every edited file in the session's diff)
        ending = '\n' if self.files[path].endswith('\n') else ''
        self.files[path] = '\n'.join(lines[:first] + new + lines[first + count :]) + ending
        self.changed.append((path, func))
        self.moved(path, first + count, len(new) - count)
        self.edited.append((path, first + 1))
        old_str, new_str = '\n'.join(old), '\n'.join(new)
        call_args = {'path': path, 'old_str': old_str, 'new_str': new_str}
        self.step(
            'edit_file',
            call_args,
            f'Edited {path}: replaced {count} lines with {len(new)}.',
            say=say or f'Changing `{func}` in {path}.',
        )
        return func

    def moved(self, path: str, after: int, delta: int) -> None:
        """Keep the recorded first lines of earlier edits of `path` below line `after` where they now are: an edit above
        them added or removed `delta` lines."""
        self.edited = [(p, n + delta if p == path and n > after else n) for p, n in self.edited]

    # diffs -------------------------------------------------------------------------------------
    def diff(self, *, command: str = 'git diff', say: str | None = None, review: bool = False) -> str:
        """`git diff` of the session's edits; with `review`, the next turn repeats it whole, as agents do before finishing."""
        patch = unified_diff(self.base, self.files, self.r)
        self.run(command, patch + '\n', say=say)
        funcs = sorted({f for _, f in self.changed})
        self.notes.append('The diff touches ' + ', '.join(f'`{f}`' for f in funcs) + '.')
        if review:
            self.run(
                'python -m pytest -q -x 2>&1 | tail -n 1',
                f'{self.r.randint(150, 1400)} passed, {self.r.randint(0, 9)} skipped in {self.r.uniform(3, 90):.2f}s',
                say='The full change, for review:\n\n```diff\n'
                + patch
                + '\n```\n\nOne last quick run before I finish.',
            )
        return patch

    def final(self, text: str, *, patch: str | None = None) -> None:
        if patch:
            text += '\n\nFinal patch:\n\n```diff\n' + patch + '\n```'
        self.c.respond(self.c.text(' '.join(self.notes + [text]) if self.notes else text))
        self.notes = []


ERRORS = [
    ('TypeError', "unsupported operand type(s) for +: 'NoneType' and 'int'"),
    ('KeyError', "'{a}'"),
    ('AttributeError', "'NoneType' object has no attribute '{a}'"),
    ('AssertionError', 'assert {n} == {m}'),
    ('ValueError', "invalid literal for int() with base 10: '{a}'"),
    ('IndexError', 'list index out of range'),
]


def _def_before(lines: list[str], index: int) -> str:
    return next(
        (m.group(1) for l in reversed(lines[: index + 1]) if (m := re.match(r'\s*(?:async )?def (\w+)', l))), 'main'
    )


WARNINGS = [
    (
        'site-packages/httpx/_client.py:{n}',
        "DeprecationWarning: The 'app' shortcut is now deprecated. Use the explicit style 'transport=WSGITransport(app=...)' instead.",
    ),
    (
        'site-packages/dateutil/tz/tz.py:{n}',
        'DeprecationWarning: datetime.datetime.utcfromtimestamp() is deprecated and scheduled for removal in a future version.',
    ),
    (
        'site-packages/pytest_asyncio/plugin.py:{n}',
        'PytestDeprecationWarning: The configuration option "asyncio_default_fixture_loop_scope" is unset.',
    ),
    ('site-packages/_pytest/python.py:{n}', 'PytestReturnNotNoneWarning: Expected None, but {test} returned True.'),
    ('{path}:{n}', 'ResourceWarning: unclosed file <_io.TextIOWrapper name={file!r} mode="r" encoding="UTF-8">'),
]


def _warnings_summary(rng: random.Random, tests: list[str]) -> list[str]:
    """pytest's `warnings summary`: each warning with the tests that raised it, then the docs link."""
    out = ['=============================== warnings summary ===============================']
    for where, message in rng.sample(WARNINGS, rng.randint(2, len(WARNINGS))):
        test = rng.choice(tests)
        raised = sorted(
            {
                f'{test}::test_{rng.choice(["load", "roundtrip", "limits", "retry", "empty"])}_{i}'
                for i in range(rng.randint(1, 12))
            }
        )
        out += raised
        out.append(
            f'  /workspace/.venv/lib/python3.12/{where.format(n=rng.randint(20, 900), path=test)}: '
            + message.format(test=raised[0].split('::')[-1], file=f'tests/fixtures/sample_{rng.randint(1, 9)}.json')
        )
        out += ['', '']
    out += ['-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html', '']
    return out


def pytest_output(
    rng: random.Random,
    files: dict[str, str],
    tests: list[str],
    failures: list[tuple[str, int]],
    *,
    root: str,
    verbose: bool = False,
    tb: str | None = None,
) -> tuple[str, list[tuple[str, str, int]]]:
    """A `pytest` run: progress lines, one traceback per failure ending in `path:line`, the summary.

    With `tb='short'` (`--tb=short`) a traceback shows one line per frame, not the failing function's lines before it;
    without `tb`, a run is made with `--tb=short` at `SHORT_TRACEBACK_SHARE`.

    Returns the text and, per failure, (test node id, source path, line).
    """
    out = [
        '============================= test session starts ==============================',
        f'platform linux -- Python 3.12.{rng.randint(1, 8)}, pytest-8.{rng.randint(0, 3)}.{rng.randint(0, 4)}, pluggy-1.5.0',
        f'rootdir: {root}',
        'configfile: pyproject.toml',
        f'plugins: anyio-4.{rng.randint(2, 8)}.0, asyncio-0.{rng.randint(21, 24)}.0, cov-5.0.0',
    ]
    if tb is None:
        tb = 'short' if failures and rng.random() < SHORT_TRACEBACK_SHARE else 'long'
    nodes = []
    for path, line in failures:
        lines = files[path].splitlines()
        func = _def_before(lines, line - 1)
        test_file = rng.choice(tests)
        nodes.append(
            (
                f'{test_file}::test_{func.strip("_")}_{rng.choice(["edge_case", "handles_empty", "roundtrip", "limits", "retries", "unicode"])}',
                path,
                line,
                func,
                test_file,
            )
        )
    per_file = {t: rng.randint(*TESTS_PER_FILE) for t in tests}
    total = sum(per_file.values())
    out += [f'collected {total} items', '']
    failing_files = {n[4] for n in nodes}
    done = 0
    defs = sorted(
        {
            m.group(1).strip('_')
            for src in files.values()
            for m in re.finditer(r'^(?:async )?def (\w+)', src, re.MULTILINE)
        }
    )
    suffixes = [
        'ok',
        'empty',
        'none',
        'limit',
        'unicode',
        'large_batch',
        'retries',
        'timeout',
        'ordering',
        'roundtrip',
        'invalid',
    ]
    for test_file, count in per_file.items() if verbose else ():
        failing_here = [n[0] for n in nodes if n[4] == test_file]
        names = failing_here + [
            f'{test_file}::test_{rng.choice(defs)}_{rng.choice(suffixes)}' for _ in range(count - len(failing_here))
        ]
        rng.shuffle(names)
        for name in names:
            done += 1
            status = (
                'FAILED' if name in failing_here else rng.choice(['PASSED'] * 30 + ['SKIPPED (needs docker)', 'XFAIL'])
            )
            out.append(f'{name} {status} [{done * 100 // total:>3}%]')
    for test_file, count in per_file.items() if not verbose else ():
        done += count
        marks = ['.'] * count
        if test_file in failing_files:
            for _ in range(sum(n[4] == test_file for n in nodes)):
                marks[rng.randrange(count)] = 'F'
        if rng.random() < 0.2:
            marks[rng.randrange(count)] = 's'
        out.append(f'{test_file} {"".join(marks):<50} [{done * 100 // total:>3}%]')
    out += ['', '=================================== FAILURES ===================================']
    for node, path, line, func, test_file in nodes:
        lines = files[path].splitlines()
        name, message = rng.choice(ERRORS)
        names = identifiers(lines[line - 1]) or [func]
        message = message.format(a=rng.choice(names).split('.')[-1], n=rng.randint(100, 999), m=rng.randint(100, 999))
        test_name = node.split('::')[1]
        test_line = rng.randint(20, 300)
        if tb == 'short':
            out += [
                f'{"_" * 20} {test_name} {"_" * 20}',
                f'{test_file}:{test_line}: in {test_name}',
                f'    result = {func}({rng.choice(["payload", "spec", "make_batch(3)", "[]"])})',
                f'{path}:{line}: in {func}',
                f'    {lines[line - 1].strip()}',
                f'E   {name}: {message}',
            ]
            continue
        out += [
            f'{"_" * 20} {test_name} {"_" * 20}',
            '',
            f'    def {test_name}({rng.choice(["tmp_path", "client", "store", "monkeypatch"])}):',
            f'        result = {func}({rng.choice(["payload", "spec", "make_batch(3)", "[]"])})',
            f'>       assert result == {rng.choice(["expected", "[]", "{}", "snapshot"])}',
            '',
            f'{test_file}:{test_line}: ',
            '_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _',
            '',
        ]
        start = max((j for j in range(line - 1) if re.match(r'\s*(?:async )?def ', lines[j])), default=max(0, line - 4))
        for i in range(max(start, line - 4), line - 1):
            out.append(f'    {lines[i]}')
        out += [f'>   {lines[line - 1]}', f'E   {name}: {message}', '', f'{path}:{line}: {name}']
        if rng.random() < 0.5:
            out += [
                '----------------------------- Captured log call ------------------------------',
                f'WARNING  {path.removesuffix(".py").replace("/", ".").removeprefix("src.")}:{path.rsplit("/", 1)[-1]}:{line - 2} {func}: retrying after {rng.randint(100, 999)} ms',
            ]
        out.append('')
    if rng.random() < 0.6:  # most real runs print a warnings summary between the failures and the short summary
        out += _warnings_summary(rng, tests)
    out.append('=========================== short test summary info ============================')
    for node, path, line, func, _ in nodes:
        out.append(f'FAILED {node} - {rng.choice(ERRORS)[0]}')
    seconds = rng.uniform(2, 90)
    out.append(
        f'========= {len(nodes)} failed, {total - len(nodes)} passed, {rng.randint(0, 9)} warnings in {seconds:.2f}s ========='
    )
    return '\n'.join(out), [(n[0], n[1], n[2]) for n in nodes]


def unittest_output(
    rng: random.Random,
    files: dict[str, str],
    failures: list[tuple[str, int]],
    *,
    root: str,
    module: str,
    verbose: bool = False,
) -> tuple[str, list[tuple[str, str, int]]]:
    """A unittest/Django-style runner: dots, then `ERROR: test (module.Case.test)` tracebacks."""
    n_tests = rng.randint(180, 420)
    dots = ['.'] * n_tests
    out_fail = []
    found = []
    for path, line in failures:
        lines = files[path].splitlines()
        func = _def_before(lines, line - 1)
        case = _camel([w for w in func.split('_') if w]) + 'Tests'
        test = f'test_{func.strip("_")}_{rng.choice(["none", "empty_batch", "limit", "ordering"])}'
        label = f'{test} ({module}.{case}.{test})'
        name, message = rng.choice(ERRORS)
        message = message.format(
            a=rng.choice(identifiers(lines[line - 1]) or [func]).split('.')[-1],
            n=rng.randint(100, 999),
            m=rng.randint(100, 999),
        )
        dots[rng.randrange(n_tests)] = 'E'
        out_fail += [
            '======================================================================',
            f'ERROR: {label}',
            '----------------------------------------------------------------------',
            'Traceback (most recent call last):',
            f'  File "{root}/tests/{module.split(".")[-1]}.py", line {rng.randint(30, 400)}, in {test}',
            f'    self.assertEqual({func}(self.fixture), self.expected)',
            f'  File "{root}/{path}", line {line}, in {func}',
            f'    {lines[line - 1].strip()}',
            f'{name}: {message}',
            '',
        ]
        found.append((f'{module}.{case}.{test}', path, line))
    out = [f'Creating test database for alias {a!r}...' for a in ('default', 'replica')]
    out.append('System check identified no issues (0 silenced).')
    if verbose:
        defs = sorted(
            {
                m.group(1).strip('_')
                for src in files.values()
                for m in re.finditer(r'^(?:async )?def (\w+)', src, re.MULTILINE)
            }
        )
        failed = iter(
            label for label in (line.removeprefix('ERROR: ') for line in out_fail) if label.startswith('test_')
        )
        for mark in dots:
            if mark == 'E':
                out.append(f'{next(failed, "test_unknown (tests.Unknown.test_unknown)")} ... ERROR')
                continue
            test = f'test_{rng.choice(defs)}_{rng.choice(["ok", "empty", "none", "limit", "ordering", "unicode"])}'
            case = _camel(test.split('_')[1:3]) + 'Tests'
            result = rng.choice(['ok'] * 25 + ["skipped 'needs postgres'", 'expected failure'])
            out.append(f'{test} ({module}.{case}.{test}) ... {result}')
    else:
        out.append(''.join(dots))
    out += out_fail
    out += [
        '----------------------------------------------------------------------',
        f'Ran {n_tests} tests in {rng.uniform(3, 60):.3f}s',
        '',
        f'FAILED (errors={len(failures)}, skipped={rng.randint(0, 12)})',
        "Destroying test database for alias 'default'...",
    ]
    return '\n'.join(out), found


def mypy_output(rng: random.Random, files: dict[str, str], n: int) -> tuple[str, list[tuple[str, int, str]]]:
    """`mypy` errors at real lines of `files`; returns the text and (path, line, code) per error."""
    out, errors = [], []
    lines_of = {p: files[p].splitlines() for p in sorted(files) if p.endswith('.py')}
    candidates_of = {
        p: [i for i, l in enumerate(ls) if identifiers(l) and l.startswith('    ') and not l.lstrip().startswith('#')]
        for p, ls in lines_of.items()
    }
    paths = [p for p, candidates in candidates_of.items() if candidates]
    for _ in range(n):
        path = rng.choice(paths)
        lines = lines_of[path]
        i = rng.choice(candidates_of[path])
        name = rng.choice(identifiers(lines[i]))
        code, message = rng.choice(
            [
                (
                    'arg-type',
                    f'Argument 1 to "{name.split(".")[-1]}" has incompatible type "str | None"; expected "str"',
                ),
                (
                    'union-attr',
                    f'Item "None" of "{_camel(name.split("_")[:1])} | None" has no attribute "{name.split(".")[-1]}"',
                ),
                (
                    'return-value',
                    f'Incompatible return value type (got "list[{_camel(name.split("_")[:1])}]", expected "Sequence[str]")',
                ),
                ('attr-defined', f'Module has no attribute "{name.split(".")[-1]}"'),
                ('no-untyped-call', f'Call to untyped function "{name.split(".")[-1]}" in typed context'),
                ('index', f'Value of type "{_camel(name.split("_")[:1])} | None" is not indexable'),
            ]
        )
        out.append(f'{path}:{i + 1}: error: {message}  [{code}]')
        if rng.random() < 0.3:
            out.append(
                f'{path}:{i + 1}: note: See https://mypy.readthedocs.io/en/stable/_refs.html#code-{code} for more info'
            )
        errors.append((path, i + 1, code))
    out.sort(key=lambda l: (l.split(':')[0], int(l.split(':')[1])))
    out.append(
        f'Found {n} errors in {len({e[0] for e in errors})} files (checked {len(files) + rng.randint(20, 80)} source files)'
    )
    return '\n'.join(out), errors


def tsc_output(rng: random.Random, files: dict[str, str], n: int) -> tuple[str, list[tuple[str, int, str]]]:
    """`tsc --noEmit` errors at real lines of the TypeScript `files`."""
    out, errors = [], []
    paths = sorted(p for p in files if p.endswith(('.ts', '.tsx')))
    for _ in range(n):
        path = rng.choice(paths)
        lines = files[path].splitlines()
        i = rng.choice(
            [
                j
                for j, l in enumerate(lines)
                if (identifiers(l) or re.search(r'\w+\(', l)) and not l.lstrip().startswith('//')
            ]
        )
        names = identifiers(lines[i]) or re.findall(r'(\w+)\(', lines[i])
        name = rng.choice(names).split('.')[-1]
        col = max(1, lines[i].find(name) + 1)
        code, message = rng.choice(
            [
                ('TS2345', "Argument of type 'string | undefined' is not assignable to parameter of type 'string'."),
                ('TS2339', f"Property '{name}' does not exist on type 'never'."),
                ('TS2322', "Type 'number | null' is not assignable to type 'number'."),
                ('TS7006', f"Parameter '{name}' implicitly has an 'any' type."),
                ('TS2532', "Object is possibly 'undefined'."),
            ]
        )
        out.append(f'{path}({i + 1},{col}): error {code}: {message}')
        errors.append((path, i + 1, code))
    out.append('')
    out.append(f'Found {n} errors in {len({e[0] for e in errors})} files.')
    out.append('')
    out.append('Errors  Files')
    for path in sorted({e[0] for e in errors}):
        first = min(e[1] for e in errors if e[0] == path)
        out.append(f'{sum(e[0] == path for e in errors):>6}  {path}:{first}')
    return '\n'.join(out), errors


PIP_PACKAGES = [
    ('httpx', '0.27.2'),
    ('anyio', '4.6.2'),
    ('certifi', '2024.8.30'),
    ('h11', '0.14.0'),
    ('idna', '3.10'),
    ('sniffio', '1.3.1'),
    ('pydantic', '2.9.2'),
    ('pydantic-core', '2.23.4'),
    ('annotated-types', '0.7.0'),
    ('typing-extensions', '4.12.2'),
    ('pytest', '8.3.3'),
    ('pluggy', '1.5.0'),
    ('iniconfig', '2.0.0'),
    ('packaging', '24.1'),
    ('coverage', '7.6.4'),
    ('pytest-cov', '5.0.0'),
    ('mypy', '1.13.0'),
    ('mypy-extensions', '1.0.0'),
    ('ruff', '0.7.2'),
    ('rich', '13.9.3'),
    ('markdown-it-py', '3.0.0'),
    ('mdurl', '0.1.2'),
    ('pygments', '2.18.0'),
    ('click', '8.1.7'),
    ('pyyaml', '6.0.2'),
    ('sqlalchemy', '2.0.36'),
    ('greenlet', '3.1.1'),
    ('structlog', '24.4.0'),
    ('tenacity', '9.0.0'),
    ('orjson', '3.10.10'),
]


def pip_output(rng: random.Random, project: str, extra: list[tuple[str, str]]) -> str:
    """`pip install -e '.[dev]'`: collecting, downloading and the installed set."""
    out = [
        f'Obtaining file:///workspace/{project}',
        '  Installing build dependencies ... done',
        '  Checking if build backend supports build_editable ... done',
        '  Getting requirements to build editable ... done',
        '  Preparing editable metadata (pyproject.toml) ... done',
    ]
    packages = rng.sample(PIP_PACKAGES, 22) + extra
    for name, version in packages:
        wheel = f'{name.replace("-", "_")}-{version}-{rng.choice(["py3-none-any", "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64"])}.whl'
        size = rng.randint(12, 4800)
        out.append(f'Collecting {name}>={version.rsplit(".", 1)[0]} (from {project}==0.{rng.randint(3, 19)}.0)')
        out.append(
            f'  Downloading {wheel} ({size} kB)' if size < 1000 else f'  Downloading {wheel} ({size / 1000:.1f} MB)'
        )
        if size >= 1000:
            out.append(
                f'     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ {size / 1000:.1f}/{size / 1000:.1f} MB {rng.uniform(8, 60):.1f} MB/s eta 0:00:00'
            )
    out.append(f'Building wheels for collected packages: {project}')
    out.append(f'  Building editable for {project} (pyproject.toml) ... done')
    out.append(
        f'  Created wheel for {project}: filename={project}-0.{rng.randint(3, 19)}.0-0.editable-py3-none-any.whl size={rng.randint(3000, 9000)} sha256={sha256(rng)}'
    )
    out.append(f'Successfully built {project}')
    out.append('Installing collected packages: ' + ', '.join(n for n, _ in packages))
    out.append('Successfully installed ' + ' '.join(f'{n}-{v}' for n, v in packages))
    return '\n'.join(out)


def vitest_output(
    rng: random.Random, files: dict[str, str], failures: list[tuple[str, int]]
) -> tuple[str, list[tuple[str, str, int]]]:
    """A `vitest run`: a line per test file, the failures with a code frame at `path:line:col`."""
    out = ['', f' RUN  v2.1.{rng.randint(1, 5)} /workspace/web', '']
    specs = sorted({p.replace('src/', 'src/__tests__/').rsplit('.', 1)[0] + '.test.ts' for p in files})
    failing = {}
    found = []
    for path, line in failures:
        lines = files[path].splitlines()
        name = rng.choice(identifiers(lines[line - 1]) or re.findall(r'(\w+)\(', lines[line - 1]) or ['render'])
        spec = path.replace('src/', 'src/__tests__/').rsplit('.', 1)[0] + '.test.ts'
        title = f'{path.rsplit("/", 1)[-1].split(".")[0]} > {rng.choice(["handles an empty list", "keeps the order", "formats totals", "rejects a bad id"])}'
        failing.setdefault(spec, []).append((title, path, line, name))
        found.append((title, path, line))
    for spec in specs:
        n = rng.randint(3, 24)
        bad = len(failing.get(spec, []))
        mark = '❯' if bad else '✓'
        out.append(f' {mark} {spec} ({n} tests{f" | {bad} failed" if bad else ""}) {rng.randint(4, 900)}ms')
        for title, *_ in failing.get(spec, []):
            out.append(f'   × {title} {rng.randint(1, 60)}ms')
    out += ['', f'⎯⎯⎯⎯⎯⎯⎯ Failed Tests {len(found)} ⎯⎯⎯⎯⎯⎯⎯', '']
    for spec, items in failing.items():
        for title, path, line, name in items:
            lines = files[path].splitlines()
            out += [
                f' FAIL  {spec} > {title}',
                f"TypeError: Cannot read properties of undefined (reading '{name.split('.')[-1]}')",
                f' ❯ {name.split(".")[-1]} {path}:{line}:{max(1, lines[line - 1].find(name.split(".")[0]) + 1)}',
                '',
            ]
            for j in range(max(0, line - 3), min(len(lines), line + 2)):
                out.append(f'    {j + 1:>3}| {lines[j]}')
                if j == line - 1:
                    out.append('       | ' + ' ' * max(0, lines[j].find(name.split('.')[0])) + '^')
            out += ['', '⎯' * 40, '']
    passed = sum(rng.randint(3, 24) for _ in specs)
    out += [
        f' Test Files  {len(failing)} failed | {len(specs) - len(failing)} passed ({len(specs)})',
        f'      Tests  {len(found)} failed | {passed} passed ({passed + len(found)})',
        f'   Start at  {rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}',
        f'   Duration  {rng.uniform(2, 40):.2f}s (transform {rng.randint(100, 900)}ms, setup 0ms, collect {rng.uniform(1, 9):.2f}s, tests {rng.randint(100, 3000)}ms)',
    ]
    return '\n'.join(out), found


DOC_SENTENCES = [
    'The {noun} stage runs after validation and before anything is written, so a failure here leaves no partial state.',
    'Each {noun} is processed at most once per window; a second attempt inside the same window is dropped and logged.',
    'If you change `{const}`, restart the workers: the value is read once at start-up.',
    '`{fn}` in `{path}` is the only place that talks to the upstream API; everything else goes through it.',
    'Tests for this live in `{test}`; run them with `pytest {test} -q`.',
    'We keep the {noun} records for {days} days, then the nightly job prunes them.',
    'Batches larger than {n} items are split before they reach `{fn}`.',
    'The default of {n} was measured on the staging cluster in {month}; see the benchmark notes below.',
    "Errors are wrapped in `{exc}` so that callers can tell our failures from the transport's.",
    'Nothing in this path blocks the event loop: file I/O runs in a thread.',
    'Use `--{flag}` to override the configured value for a single run.',
    'The {noun} format is versioned; readers accept the current and the previous version.',
]


def markdown_doc(rng: random.Random, vocab: PyVocab, files: dict[str, str], title: str, *, sections: int) -> str:
    """A project document: overview, configuration table, CLI examples, design notes, a changelog."""
    defs = [(p, m.group(1)) for p, s in files.items() for m in re.finditer(r'^(?:async )?def (\w+)', s, re.MULTILINE)]
    consts = sorted({m.group(1) for s in files.values() for m in re.finditer(r'^([A-Z][A-Z_]+) = ', s, re.MULTILINE)})
    excs = sorted({m.group(1) for s in files.values() for m in re.finditer(r'raise (\w+)\(', s)}) or ['RuntimeError']

    def sentence() -> str:
        path, fn = rng.choice(defs)
        return rng.choice(DOC_SENTENCES).format(
            noun=rng.choice(vocab.nouns).replace('_', ' '),
            const=rng.choice(consts),
            fn=fn,
            path=path,
            test=f'tests/test_{rng.choice(vocab.nouns)}.py',
            days=rng.choice([7, 14, 30, 90]),
            n=rng.choice([50, 200, 500, 1000]),
            month=rng.choice(['March', 'June', 'September']),
            exc=rng.choice(excs),
            flag=rng.choice(['batch-size', 'dry-run', 'window', 'workers']),
        )

    out = [
        f'# {title}',
        '',
        ' '.join(sentence() for _ in range(4)),
        '',
        '## Configuration',
        '',
        '| setting | default | meaning |',
        '|---|---|---|',
    ]
    for const in consts[:10]:
        value = next(m.group(1) for s in files.values() if (m := re.search(rf'^{const} = (.+)$', s, re.MULTILINE)))
        out.append(f'| `{vocab.prog.upper()}_{const}` | `{value}` | {sentence().split(",")[0].rstrip(".")}. |')
    out += ['', '## Command line', '', '```bash']
    for _ in range(4):
        out.append(
            f'{vocab.prog} {rng.choice(["sync", "replay", "prune", "export", "inspect"])} {rng.choice(vocab.nouns)} --{rng.choice(["batch-size", "window", "workers"])} {rng.choice([8, 50, 200])}'
        )
    out += ['```', '']
    for s in range(sections):
        out += [
            f'## {rng.choice(["Design", "Failure handling", "Ordering", "Limits", "Storage", "Upgrading", "Observability"])} notes ({s + 1})',
            '',
        ]
        for _ in range(rng.randint(2, 3)):
            out += [' '.join(sentence() for _ in range(rng.randint(2, 4))), '']
        if rng.random() < 0.5:
            out += ['- ' + sentence() for _ in range(3)] + ['']
    out += ['## Changelog', '']
    major, minor = 0, rng.randint(8, 14)
    for i in range(6):
        out += [
            f'### {major}.{minor - i}.{rng.randint(0, 4)} ({2025 - i // 3}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d})',
            '',
        ]
        for _ in range(rng.randint(2, 4)):
            _, fn = rng.choice(defs)
            out.append(
                f'- {rng.choice(["Fixed", "Changed", "Added", "Removed"])} {f"`{fn}`" if rng.random() < 0.3 else "the " + rng.choice(vocab.nouns).replace("_", " ")} {rng.choice(["handling of empty batches", "retry timing", "ordering of results", "the default limit", "error messages"])} (#{rng.randint(800, 2400)}).'
            )
        out.append('')
    return '\n'.join(out)


def find_listing(
    rng: random.Random, files: dict[str, str], extra_dirs: list[str], n_extra: int, *, root: str = '.'
) -> str:
    """`find . -type f` of a repository: the code base's files among plausible others."""
    paths = {f'{root}/{p}' for p in files}
    kinds = {
        'test': (
            [
                'test_api',
                'test_models',
                'test_cli',
                'test_config',
                'test_errors',
                'test_utils',
                'conftest',
                'factories',
                'helpers',
            ],
            ['.py'],
        ),
        'fixture': (['sample', 'golden', 'payload', 'snapshot', 'response', 'request'], ['.json', '.yaml', '.txt']),
        'doc': (['index', 'usage', 'configuration', 'design', 'changelog', 'faq', 'upgrading', 'api'], ['.md', '.rst']),
        'migration': (
            ['0001_initial', '0002_add_index', '0003_backfill', '0004_drop_legacy', '0005_partition'],
            ['.sql', '.py'],
        ),
        'script': (['release', 'bootstrap', 'lint', 'bench', 'dump_schema'], ['.sh', '.py']),
        'src': (
            ['utils', 'types', 'constants', 'errors', 'base', 'compat', 'settings', 'schema'],
            ['.py', '.ts', '.tsx'],
        ),
    }
    while len(paths) < len(files) + n_extra:
        d = rng.choice(extra_dirs)
        kind = next((k for k in ('fixture', 'test', 'doc', 'migration', 'script') if k in d), 'src')
        stems, exts = kinds[kind]
        ext = (
            rng.choice(exts)
            if kind != 'src'
            else rng.choice(['.ts', '.tsx'] if any(p.endswith('.ts') for p in files) else ['.py'])
        )
        stem = rng.choice(stems)
        paths.add(
            f'{root}/{d}/{stem}_{rng.randint(1, 60)}{ext}'
            if kind in ('fixture', 'test') and rng.random() < 0.5
            else f'{root}/{d}/{stem}{ext}'
        )
    return '\n'.join(sorted(paths))


RELAY = PyVocab(
    'relay',
    'relay',
    [
        'deliver',
        'sign',
        'verify',
        'schedule',
        'enqueue',
        'dequeue',
        'retry',
        'expire',
        'load',
        'store',
        'flush',
        'replay',
        'resolve',
        'render',
        'parse',
        'drain',
        'throttle',
        'rotate',
        'revoke',
        'register',
        'probe',
        'backfill',
        'compact',
        'archive',
        'notify',
        'route',
        'coalesce',
    ],
    [
        'webhook',
        'delivery',
        'endpoint',
        'signature',
        'attempt',
        'payload',
        'subscription',
        'secret',
        'batch',
        'dead_letter',
        'event_type',
        'backoff',
        'tenant',
        'cursor',
        'receipt',
        'header_set',
        'timeout_budget',
        'circuit',
        'outbox',
        'digest',
        'fanout',
        'topic_filter',
        'replay_window',
    ],
    [
        'endpoint_url',
        'event_id',
        'attempt_count',
        'next_attempt_at',
        'status_code',
        'signing_key',
        'tenant_id',
        'max_attempts',
        'created_at',
        'response_ms',
        'payload_hash',
        'topic',
        'last_error',
        'retry_after_s',
        'content_type',
        'delivered_at',
        'http_method',
        'region',
        'shard_key',
        'secret_version',
        'ack_deadline',
        'idempotency_key',
    ],
    ['deliveries', 'endpoints', 'attempts', 'subscriptions', 'outbox_events'],
)
QUILL = PyVocab(
    'quill',
    'quill',
    [
        'render',
        'parse',
        'collect',
        'resolve',
        'slugify',
        'load',
        'write',
        'highlight',
        'index',
        'link',
        'merge',
        'strip',
        'expand',
        'walk',
        'paginate',
        'minify',
        'fingerprint',
        'localize',
        'truncate',
        'embed',
        'inline',
        'sort',
        'bundle',
        'preload',
    ],
    [
        'page',
        'front_matter',
        'template',
        'asset',
        'heading',
        'toc',
        'permalink',
        'shortcode',
        'theme',
        'sitemap',
        'feed',
        'taxonomy',
        'draft',
        'section',
        'excerpt',
        'footnote',
        'image_set',
        'redirect',
        'menu',
        'partial',
        'locale',
        'search_doc',
        'breadcrumb',
    ],
    [
        'source_path',
        'slug',
        'title',
        'weight',
        'published_at',
        'template_name',
        'output_dir',
        'base_url',
        'lang',
        'tags',
        'word_count',
        'checksum',
        'reading_time',
        'canonical_url',
        'summary_len',
        'og_image',
        'draft_until',
        'sort_key',
        'layout_name',
        'alias_paths',
        'expiry_date',
    ],
    ['pages', 'assets', 'redirects', 'taxonomies'],
)
STOCKPILE = PyVocab(
    'stockpile',
    'stockpile',
    [
        'reserve',
        'release',
        'allocate',
        'count',
        'adjust',
        'transfer',
        'sync',
        'reconcile',
        'import',
        'export',
        'pick',
        'ship',
        'split',
        'load',
        'replenish',
        'quarantine',
        'relabel',
        'consolidate',
        'forecast',
        'audit',
        'backorder',
        'cancel',
        'merge',
        'batch',
    ],
    [
        'sku',
        'bin_location',
        'reservation',
        'stock_level',
        'shipment',
        'purchase_order',
        'warehouse',
        'pick_list',
        'supplier',
        'lot',
        'cycle_count',
        'carrier',
        'pallet',
        'tote',
        'wave',
        'dock_slot',
        'kit',
        'return_order',
        'safety_stock',
        'putaway_task',
    ],
    [
        'sku_code',
        'bin_id',
        'quantity_on_hand',
        'reserved_qty',
        'warehouse_id',
        'lot_number',
        'expires_on',
        'unit_cost',
        'order_ref',
        'picked_at',
        'carrier_code',
        'reorder_point',
        'pallet_id',
        'tote_barcode',
        'zone_code',
        'lead_time_days',
        'min_qty',
        'max_qty',
        'hazmat_class',
        'received_at',
        'serial_number',
    ],
    ['stock_levels', 'reservations', 'shipments', 'lots', 'pick_waves'],
)
LEDGER_WEB = PyVocab(
    'ledger',
    'ledger',
    ['fetch', 'load'],
    [
        'invoice',
        'line_item',
        'customer',
        'payment',
        'credit_note',
        'tax_rate',
        'account',
        'statement',
        'refund',
        'subscription',
        'payout',
    ],
    [
        'invoice_id',
        'amount_cents',
        'currency',
        'due_date',
        'customer_name',
        'status',
        'tax_total',
        'issued_at',
        'line_count',
        'balance_cents',
        'memo',
        'external_ref',
    ],
    [],
)


def py_project(seed: int, vocab: PyVocab, modules: list[tuple[str, str, int]]) -> dict[str, str]:
    """The modules of a Python code base: (path, one-line summary, number of blocks) each."""
    rng = random.Random(seed)
    return {path: python_source(rng, vocab, path, summary, n) + '\n' for path, summary, n in modules}


def ts_project(seed: int, vocab: PyVocab, modules: list[tuple[str, int]]) -> dict[str, str]:
    rng = random.Random(seed)
    return {path: ts_source(rng, vocab, n, jsx=path.endswith('.tsx')) for path, n in modules}


def _py_tests(files: dict[str, str]) -> list[str]:
    """The test file of each Python module of `files` (not of its docs or its tests)."""
    return sorted(
        {
            f'tests/test_{p.rsplit("/", 1)[-1]}'
            for p in files
            if p.endswith('.py') and not p.endswith('__init__.py') and not p.startswith('tests/')
        }
    )


def _fail_lines(rng: random.Random, files: dict[str, str], paths: list[str]) -> list[tuple[str, int]]:
    """A line inside a function body of each of `paths`, anywhere in the file."""
    out = []
    for path in paths:
        lines = files[path].splitlines()
        body = [
            i + 1
            for i, l in enumerate(lines)
            if l.startswith('        ') and identifiers(l) and not l.lstrip().startswith('#')
        ]
        out.append((path, rng.choice(body)))
    return out


def _answer_failures(s: CodingSession, found: list[tuple[str, str, int]]) -> None:
    """What an agent does with failing tests: name the first one's file, read around its line, fix it, rerun that test."""
    r = s.r
    node0, path0, _ = found[0]
    s.notes.append(f'{len(found)} failing; the first, `{node0}`, fails in {path0}.')
    for index, (node, path, line) in enumerate(found):
        if index:
            s.notes.append(f'Next: `{node.split("::")[-1]}`.')
        s.read(
            path,
            offset=max(1, line - r.randint(10, 30)),
            limit=r.choice([40, 60, 80]),
            k=1,
            say=f'Reading {path} around the failure.',
        )
        s.edit(path, near=line, say=f'The failure in `{node.split("::")[-1].split(".")[-1]}` comes from line {line}.')
        if '::' in node and r.random() < RERUN_FAILED_SHARE:
            s.run(f'python -m pytest {node} -q', f'.{" " * 40}[100%]\n1 passed in {r.uniform(0.1, 3):.2f}s')


@scenario('32_coding_webhook_retry_fix')
def s32():
    c = Conv(3232, '2025-10-02T08:14:00.000000', provider='anthropic')
    r = c.rng
    files = py_project(
        32,
        RELAY,
        [
            ('src/relay/delivery.py', 'sending webhook deliveries and recording attempts', 22),
            ('src/relay/retry.py', 'backoff schedules and dead-lettering', 12),
            ('src/relay/signing.py', 'HMAC signatures for outgoing webhooks', 9),
            ('src/relay/store.py', 'SQLite persistence of deliveries and attempts', 16),
            ('src/relay/api/routes.py', 'HTTP routes for endpoints and subscriptions', 14),
            ('src/relay/cli.py', 'the relay command line', 8),
        ],
    )
    s = CodingSession(c, files)
    c.request(
        c.sys(
            'You are a coding agent working in the relay repository (webhook delivery service). Use the tools to read, edit and test code. Keep changes minimal and run the tests before finishing.'
        ),
        c.user(
            'Deliveries to slow endpoints are retried forever instead of going to the dead-letter queue after max_attempts. Find out why and fix it. The tests in tests/ should pass.'
        ),
    )
    s.run(
        'find . -type f -not -path "./.git/*" | sort',
        find_listing(r, files, ['tests', 'tests/fixtures', 'docs', 'migrations', 'scripts', 'src/relay/api'], 150),
        say='Let me look at the layout first.',
    )
    s.notes.append('The retry logic is probably in src/relay/retry.py and src/relay/delivery.py.')
    s.read('src/relay/delivery.py', k=4)
    s.read('src/relay/retry.py', k=3)
    s.run('grep -rn "attempt" src/relay', grep_n(files, r'attempt'), say='Where are attempts counted?')
    s.notes += [
        f'{hit.split(":")[0]}:{hit.split(":")[1]} has `{identifiers(hit.split(":", 2)[2])[0]}`.'
        for hit in r.sample([h for h in grep_n(files, r'attempt').splitlines() if identifiers(h.split(':', 2)[2])], 3)
    ]
    s.read('src/relay/store.py', k=3)
    s.read('src/relay/signing.py', k=2)
    out, found = pytest_output(
        r,
        files,
        _py_tests(files),
        _fail_lines(r, files, ['src/relay/retry.py', 'src/relay/delivery.py', 'src/relay/store.py']),
        root='/workspace/relay',
        verbose=True,
    )
    s.run('python -m pytest tests/ -q', out, say='Running the tests before changing anything.', exit_code=1)
    _answer_failures(s, found)
    s.read('src/relay/api/routes.py', k=3, say='Checking how the API exposes dead letters.')
    s.edit('src/relay/api/routes.py')
    text, errors = mypy_output(r, s.files, 14)
    s.run('mypy src/relay', text, say='Type-checking.', exit_code=1)
    s.notes.append(
        'mypy: ' + '; '.join(f'[{code}] in {p}' for p, _, code in r.sample(errors, 3)) + ' are in code I did not touch.'
    )
    patch = s.diff()
    c.facts = [found[0][0], str(found[0][2]), 'src/relay/retry.py', s.changed[0][1]]
    s.final(
        'Fixed. The retry counter is now compared against the limit, so a delivery goes to the dead-letter queue after max_attempts. Changed: '
        + ', '.join(f'`{f}` ({p})' for p, f in s.changed)
        + '.',
        patch=patch,
    )
    return c


def _add_block(s: CodingSession, path: str, vocab: PyVocab, *, say: str) -> str:
    """Feature work: a new function written after an existing one (an edit whose `old_str` is that function's last lines)."""
    lines = s.files[path].splitlines()
    r = s.r
    ends = [  # the end of a top-level block (two blank lines after it): never inside a class or a docstring
        i
        for i in range(1, len(lines) - 2)
        if lines[i] == lines[i + 1] == ''
        and lines[i - 1].startswith('    ')
        and 0.2 * len(lines) < i < 0.95 * len(lines)
    ]
    ends = ends or [  # a file without two blank lines anywhere: after any indented block
        i
        for i in range(1, len(lines) - 1)
        if lines[i] == '' and lines[i - 1].startswith('    ') and 0.2 * len(lines) < i
    ]
    end = r.choice(ends)
    sub = random.Random(r.random())
    above = next((i for i in range(end - 1, -1, -1) if re.match(r'(?:async )?def |class ', lines[i])), 0)
    near = '\n'.join(lines[above:end]) if sub.random() < HELPER_NEAR_NAMES else None
    source = python_source(sub, vocab, path, 'x', 3, module=s.files[path], near=near, method_share=0.0)
    blocks = [b for b in source.split('\n\n\n')[1:] if not b.startswith('def quantize_delay')]  # not the header's
    block = blocks[-1].strip('\n')
    extract = sub.random() < HELPER_EXTRACT_SHARE
    if extract:  # a function, to take over the lines
        block = next((b.strip('\n') for b in reversed(blocks) if b.startswith(('def ', 'async def '))), block)
    name = re.search(r'(?:def|class) (\w+)', block)
    func = name.group(1) if name else 'module'
    old = lines[end - 2 : end]
    new = [*old]
    tail = _extractable_tail(lines, end, sub.randint(*HELPER_EXTRACT_LINES))
    head = re.match(r'def \w+\((.*)\)', block)  # (an async helper could not be called from a plain function)
    takes = [n for n, _, default, keyword in _params(head.group(1)) if default is None and not keyword] if head else []
    moved = lines[end - tail : end] if tail and extract and head else []
    reads = [n for n in _bound_before(lines, end - tail) if any(_read_at(line, n) >= 0 for line in moved)]
    if moved and len(reads) >= len(takes):
        # the function above's last lines move into the helper, which it now calls with what they read
        old = moved
        indent = old[0][: _indent(old[0])]
        returns = 'return ' if any(line.strip().startswith('return') for line in old) else ''
        new = [f'{indent}{returns}{func}({", ".join(reads[: len(takes)])})']
    new += ['', '', *block.splitlines()]
    first = end - len(old)
    ending = '\n' if s.files[path].endswith('\n') else ''  # the file's last newline stays (see CodingSession._replace)
    s.files[path] = '\n'.join(lines[:first] + new + lines[end:]) + ending
    s.changed.append((path, func))
    s.moved(path, end, len(new) - len(old))
    s.edited.append((path, first + 1))
    s.step(
        'edit_file',
        {'path': path, 'old_str': '\n'.join(old), 'new_str': '\n'.join(new)},
        f'Edited {path}: replaced {len(old)} lines with {len(new)}.',
        say=say,
    )
    return func


def _bound_before(lines: list[str], start: int) -> list[str]:
    """The names the function holding line `start` binds before it (see `_bindings`)."""
    head = _enclosing_def(lines, start)
    return [] if head is None else _bindings(lines, head, start)


def _enclosing_def(lines: list[str], at: int) -> int | None:
    """The index of the `def` line of the function holding line `at` (None at module level)."""
    depth = _indent(lines[at])
    return next(
        (i for i in range(at - 1, -1, -1) if re.match(r'\s*(?:async )?def ', lines[i]) and _indent(lines[i]) < depth),
        None,
    )


def _bindings(lines: list[str], head: int, end: int) -> list[str]:
    """The names the function whose `def` line is `head` binds before line `end`: its parameters (not `self`), then
    its assignments, loop variables and `as` targets."""
    m = re.match(r'\s*(?:async )?def \w+\((.*)\)', lines[head])
    bound = [name for name, _, _, _ in _params(m.group(1) if m else '')]
    for line in lines[head + 1 : end]:
        bound += re.findall(r'^\s*([a-z_]\w*)(?:: [^=]+?)? = ', line)
        bound += [n for pair in re.findall(r'\bfor ([a-z_]\w*)(?:, ([a-z_]\w*))? in\b', line) for n in pair if n]
        bound += re.findall(r'\bas ([a-z_]\w*)\b', line)
    return list(dict.fromkeys(bound))


HELPER_NEAR_NAMES = 0.8
"""Share of the helpers written with the names of the function above them first (its fields, constants, errors, the
functions it calls), those the diff shows next to the helper: in the dev corpus a diff's added lines hold 0.55 facts
each not on an earlier line of the diff (1.39 in all); helpers drawn from the whole module's names gave 0.69 (1.23)."""
HELPER_EXTRACT_SHARE = 0.7
"""Share of the new helper functions that replace the last lines of the function above them, which now calls the
helper with names those lines read (the helper does their work its own way): the edit removes those lines. In the dev
corpus 12% of the lines of a diff over 4,000 characters are removed lines, 41% added; with every helper only added after
a function the generated diffs had 3% and 44%."""
HELPER_EXTRACT_LINES = (3, 8)
"""How many lines of the function above a helper takes over (drawn between these; fewer when the function's tail is shorter)."""


def _extractable_tail(lines: list[str], end: int, most: int) -> int:
    """How many of the last lines before `end` (at most `most`, at least 2) are one function body's tail: non-blank,
    indented at least as deep as the first of them, no definition or docstring; 0 when not even 2 are."""
    for k in range(min(most, end), 1, -1):
        tail = lines[end - k : end]
        indent = _indent(tail[0])
        if (
            indent >= 4
            and not tail[0].strip().startswith((')', ']', '}', 'else', 'elif', 'except', 'finally'))
            and all(
                line.strip()
                and _indent(line) >= indent
                and not line.strip().startswith(('def ', 'async def ', 'class ', '"""', '@'))
                for line in tail
            )
        ):
            return k
    return 0


@scenario('33_coding_ts_invoice_types')
def s33():
    c = Conv(3333, '2025-10-06T13:40:00.000000', provider='openai')
    r = c.rng
    files = ts_project(
        33,
        LEDGER_WEB,
        [
            ('src/api/invoices.ts', 14),
            ('src/api/payments.ts', 10),
            ('src/components/InvoiceTable.tsx', 9),
            ('src/components/PaymentPanel.tsx', 8),
            ('src/store/invoiceSlice.ts', 12),
            ('src/utils/money.ts', 7),
        ],
    )
    s = CodingSession(c, files, reader='read_file', shell='shell')
    s.structured_shell = True
    c.request(
        c.sys(
            'You are a coding assistant in the ledger-web repository (React, TypeScript, zod, vitest). You can run shell commands and edit files.'
        ),
        c.user(
            'After the zod upgrade `pnpm typecheck` fails and two vitest suites are red. Please get both green without weakening types.'
        ),
    )
    text, errors = tsc_output(r, files, 34)
    s.run('pnpm typecheck', text, say='Running the type check.', exit_code=2)
    s.notes.append('The first errors: ' + '; '.join(f'{p}({n}) {code}' for p, n, code in errors[:3]) + '.')
    for path in [
        'src/api/invoices.ts',
        'src/store/invoiceSlice.ts',
        'src/components/InvoiceTable.tsx',
        'src/api/payments.ts',
    ]:
        s.read(path, numbered=False, via_shell=True, k=r.randint(2, 4))
    for path, line, code in r.sample(errors, 3):
        s.edit(path, near=line, say=f'Fixing {code} at {path}:{line}.')
    out, found = vitest_output(
        r, s.files, _fail_lines_ts(r, s.files, ['src/components/PaymentPanel.tsx', 'src/utils/money.ts'])
    )
    s.run('pnpm vitest run', out, say='Now the tests.', exit_code=1)
    s.notes.append('Failing: ' + '; '.join(f'"{t}" at {p}:{n}' for t, p, n in found) + '.')
    for title, path, line in found:
        s.read(path, numbered=False, via_shell=True, k=2)
        s.edit(path, near=line, say=f'{path}:{line} reads a property of undefined.')
    if 'src/utils/money.ts' not in [f[1] for f in found]:
        s.read('src/utils/money.ts', numbered=False, via_shell=True, k=2)
    text2, errors2 = tsc_output(r, s.files, 19)
    s.run('pnpm typecheck', text2, say='Type check again.', exit_code=2)
    s.notes.append(
        f'{len(errors2)} errors left, all outside the files this task touches, e.g. {errors2[0][0]}({errors2[0][1]}) {errors2[0][2]}.'
    )
    patch = s.diff()
    c.facts = [errors[0][0], errors[0][2], found[0][1], s.changed[0][1]]
    s.final(
        'Both suites are green again and the changed files type-check. Changes: '
        + ', '.join(f'`{f}` in {p}' for p, f in s.changed)
        + '.',
        patch=patch,
    )
    return c


def _fail_lines_ts(rng: random.Random, files: dict[str, str], paths: list[str]) -> list[tuple[str, int]]:
    out = []
    for path in paths:
        lines = files[path].splitlines()
        body = [
            i + 1
            for i, l in enumerate(lines)
            if l.startswith('    ') and (identifiers(l) or re.search(r'\w+\(', l)) and not l.lstrip().startswith('//')
        ]
        out.append((path, rng.choice(body)))
    return out


@scenario('34_coding_site_generator_refactor')
def s34():
    c = Conv(3434, '2025-10-08T10:05:00.000000', provider='anthropic')
    r = c.rng
    files = py_project(
        34,
        QUILL,
        [
            ('quill/render.py', 'turning parsed pages into HTML', 24),
            ('quill/frontmatter.py', 'YAML and TOML front matter', 10),
            ('quill/toc.py', 'tables of contents from headings', 8),
            ('quill/collect.py', 'walking the content folder', 13),
            ('quill/plugins/feeds.py', 'RSS and Atom feeds', 11),
            ('quill/plugins/sitemap.py', 'sitemap.xml', 7),
            ('quill/cli.py', 'the quill command line', 9),
        ],
    )
    s = CodingSession(c, files, reader='read')
    c.request(
        c.sys(
            'You are an autonomous software engineer. Work in /workspace/quill. Read before you edit; run the test suite before you finish.'
        ),
        c.user(
            'Drafts leak into the RSS feed and the sitemap when `--drafts` is not passed. Fix it, and document the behaviour in docs/configuration.md.'
        ),
    )
    s.run(
        "pip install -e '.[dev]'",
        pip_output(r, 'quill', [('markdown-it-py', '3.0.0'), ('jinja2', '3.1.4'), ('tomli-w', '1.1.0')]),
        say='Setting up the environment.',
    )
    out, found = unittest_output(
        r,
        files,
        _fail_lines(r, files, ['quill/plugins/feeds.py', 'quill/collect.py']),
        root='/workspace/quill',
        module='tests.test_build',
    )
    s.run('python -m unittest discover -s tests', out, say='Baseline test run.', exit_code=1)
    s.notes.append('Errors: ' + '; '.join(f'{t} raises at {p}:{n}' for t, p, n in found) + '.')
    s.run('grep -rn "draft" quill/', grep_n(files, r'draft|page'), say='Where are drafts handled?')
    s.notes += [
        f'{h.split(":")[0]}:{h.split(":")[1]}' + ' matters.'
        for h in r.sample(grep_n(files, r'draft|page').splitlines(), 3)
    ]
    for path in [
        'quill/collect.py',
        'quill/plugins/feeds.py',
        'quill/render.py',
        'quill/plugins/sitemap.py',
        'quill/frontmatter.py',
    ]:
        s.read(path, numbered=path != 'quill/render.py', k=r.randint(2, 5))
    for _, path, line in found:
        s.edit(path, near=line)
    _add_block(s, 'quill/plugins/sitemap.py', QUILL, say='The sitemap needs the same filter.')
    s.edit('quill/render.py')
    doc = markdown_doc(r, QUILL, files, 'Configuration', sections=3)
    s.files['docs/configuration.md'] = doc
    s.base['docs/configuration.md'] = doc
    s.read('docs/configuration.md', numbered=False, via_shell=True, k=2, say='Now the docs.')
    doc_lines = doc.splitlines()
    i = next(j for j, l in enumerate(doc_lines) if l.startswith('## Command line'))
    s.files['docs/configuration.md'] = '\n'.join(
        doc_lines[: i - 1]
        + [
            '',
            'Drafts (`draft: true` in the front matter) are left out of the build, the feeds and the sitemap unless `--drafts` is passed.',
        ]
        + doc_lines[i - 1 :]
    )
    s.step(
        'edit_file',
        {
            'path': 'docs/configuration.md',
            'old_str': doc_lines[i - 2] + '\n\n' + doc_lines[i],
            'new_str': doc_lines[i - 2]
            + '\n\nDrafts (`draft: true` in the front matter) are left out of the build, the feeds and the sitemap unless `--drafts` is passed.\n\n'
            + doc_lines[i],
        },
        'The file was edited.',
        say='Documenting the draft rule.',
    )
    out2, _ = pytest_output(r, s.files, _py_tests(s.files), [], root='/workspace/quill', verbose=True)
    s.run('python -m pytest -v tests/', out2, say='Full suite, verbose.')
    patch = s.diff()
    c.facts = [found[0][0], 'quill/plugins/feeds.py', 'docs/configuration.md', s.changed[0][1]]
    s.final(
        'Drafts are now filtered in the collection step and again in the feed and sitemap plugins; documented in docs/configuration.md. '
        + 'Touched: '
        + ', '.join(f'`{f}` ({p})' for p, f in s.changed)
        + '. Key hunk:\n\n```diff\n'
        + '\n'.join(patch.splitlines()[:40])
        + '\n```'
    )
    return c


def _pr_files(rng: random.Random, before: dict[str, str], after: dict[str, str]) -> list[dict]:
    """GitHub's `pulls/{n}/files` items for the files that differ: one `patch` string each."""
    out = []
    for path in sorted(after):
        if before.get(path) == after[path]:
            continue
        before_lines = before.get(path, '').splitlines()
        hunks = with_funcnames(
            list(difflib.unified_diff(before_lines, after[path].splitlines(), lineterm='', n=3))[2:], before_lines
        )
        adds = sum(1 for h in hunks if h.startswith('+'))
        dels = sum(1 for h in hunks if h.startswith('-'))
        blob = sha1(rng)
        out.append(
            {
                'sha': blob,
                'filename': path,
                'status': 'modified' if path in before else 'added',
                'additions': adds,
                'deletions': dels,
                'changes': adds + dels,
                'blob_url': f'https://github.com/northwind-ops/stockpile/blob/{blob[:12]}/{path}',
                'raw_url': f'https://github.com/northwind-ops/stockpile/raw/{blob[:12]}/{path}',
                'contents_url': f'https://api.github.com/repos/northwind-ops/stockpile/contents/{path}?ref={blob[:12]}',
                'patch': '\n'.join(hunks),
            }
        )
    return out


STOCKPILE_MODULES = [
    ('src/stockpile/reservations.py', 'reserving and releasing stock for orders', 20),
    ('src/stockpile/levels.py', 'stock levels per bin and warehouse', 15),
    ('src/stockpile/picking.py', 'pick lists and wave picking', 17),
    ('src/stockpile/shipments.py', 'shipments and carrier hand-off', 12),
    ('src/stockpile/importers/suppliers.py', 'supplier CSV and EDI imports', 10),
    ('src/stockpile/cycle_counts.py', 'cycle counts and adjustments', 9),
]


@scenario('35_coding_pr_review_mcp')
def s35():
    c = Conv(3535, '2025-10-09T15:20:00.000000', provider='gemini')
    r = c.rng
    files = py_project(35, STOCKPILE, STOCKPILE_MODULES)
    s = CodingSession(c, files, reader='read_file', shell='run_command')
    c.request(
        c.sys(
            'You review pull requests for northwind-ops/stockpile. Tools: the GitHub MCP server (JSON results) and a checkout of the repository.'
        ),
        c.user(
            'Review PR #1432 (lot expiry during picking). Leave inline comments where something is wrong and summarize.'
        ),
    )
    # the PR's changes, made before the session starts
    pr = CodingSession(Conv(353535, '2025-10-09T00:00:00.000000'), files)
    for path in ['src/stockpile/picking.py', 'src/stockpile/reservations.py', 'src/stockpile/levels.py']:
        pr.edit(path)
    _add_block(pr, 'src/stockpile/picking.py', STOCKPILE, say='x')
    _add_block(pr, 'src/stockpile/reservations.py', STOCKPILE, say='x')
    pr.edit('src/stockpile/shipments.py')
    head = sha1(r)
    meta = {
        'number': 1432,
        'title': 'Skip expired lots when building pick lists',
        'state': 'open',
        'draft': False,
        'user': {'login': 'mkowalczyk', 'id': 58213377, 'type': 'User'},
        'body': 'Expired lots were still picked when no other lot had stock.\n\n- filter expired lots in the picking path\n- release reservations on expired lots\n- log the skipped lots\n\nCloses #1398.',
        'head': {'ref': 'fix/expired-lots', 'sha': head},
        'base': {'ref': 'main', 'sha': sha1(r)},
        'created_at': '2025-10-08T17:02:44Z',
        'updated_at': '2025-10-09T09:12:03Z',
        'mergeable_state': 'clean',
        'additions': 0,
        'deletions': 0,
        'changed_files': 0,
        'commits': 4,
        'labels': [{'name': 'bug'}, {'name': 'warehouse'}],
        'requested_reviewers': [{'login': 'review-bot'}],
    }
    files_json = _pr_files(r, files, pr.files)
    meta['additions'] = sum(f['additions'] for f in files_json)
    meta['deletions'] = sum(f['deletions'] for f in files_json)
    meta['changed_files'] = len(files_json)
    s.step(
        'github_get_pull_request',
        {'owner': 'northwind-ops', 'repo': 'stockpile', 'pull_number': 1432},
        json.dumps(meta, indent=2),
    )
    s.notes.append(
        f'PR #1432 by mkowalczyk, head {head[:7]}, {meta["changed_files"]} files (+{meta["additions"]} -{meta["deletions"]}).'
    )
    s.step(
        'github_get_pull_request_files',
        {'owner': 'northwind-ops', 'repo': 'stockpile', 'pull_number': 1432},
        json.dumps(files_json, indent=2),
    )
    for f in r.sample(files_json, 2):
        hunk_lines = [l for l in f['patch'].splitlines() if l.startswith('+') and identifiers(l)]
        if hunk_lines:
            s.notes.append(f'{f["filename"]} adds `{r.choice(identifiers(r.choice(hunk_lines)))}`.')
    comments = [
        {
            'id': 2391000000 + r.randint(0, 999_999),
            'user': {'login': login},
            'path': f['filename'],
            'line': r.randint(20, 300),
            'body': body,
            'created_at': f'2025-10-09T0{r.randint(0, 9)}:{r.randint(10, 59)}:00Z',
        }
        for login, f, body in [
            ('review-bot', files_json[0], 'Consider a test for the empty pick list.'),
            ('akhan', files_json[-1], 'Is this used anywhere else?'),
            ('mkowalczyk', files_json[0], 'Added in the last commit.'),
        ]
    ]
    s.step(
        'github_get_pull_request_comments',
        {'owner': 'northwind-ops', 'repo': 'stockpile', 'pull_number': 1432},
        json.dumps(comments),
    )
    s.run(
        'git fetch origin pull/1432/head && git diff main...FETCH_HEAD',
        unified_diff(files, pr.files, r),
        say='Reading the whole diff locally.',
    )
    s.notes.append('Changed functions: ' + ', '.join(f'`{f}`' for _, f in pr.changed) + '.')
    s.files = dict(pr.files)
    for path in ['src/stockpile/picking.py', 'src/stockpile/reservations.py', 'src/stockpile/levels.py']:
        s.read(path, k=r.randint(3, 5), say=f'Reading {path} at the PR head for context.')
    out, found = pytest_output(
        r,
        s.files,
        _py_tests(s.files),
        _fail_lines(r, s.files, ['src/stockpile/picking.py']),
        root='/workspace/stockpile',
        verbose=True,
    )
    s.run('python -m pytest -v tests/', out, say='Running the suite on the PR head.', exit_code=1)
    node, path, line = found[0]
    lines = s.files[path].splitlines()
    review_comments = [
        {
            'path': path,
            'line': line,
            'body': f'`{node}` fails here: `{lines[line - 1].strip()}` does not handle an expired lot.',
        },
    ]
    for f, (p2, fn) in zip(files_json[1:3], pr.changed[1:3]):
        review_comments.append(
            {
                'path': f['filename'],
                'line': r.randint(10, 200),
                'body': f'`{fn}` should release the reservation before returning.',
            }
        )
    call = c.call(
        'github_create_pull_request_review',
        {
            'owner': 'northwind-ops',
            'repo': 'stockpile',
            'pull_number': 1432,
            'commit_id': head,
            'event': 'REQUEST_CHANGES',
            'body': 'See inline comments.',
            'comments': review_comments,
        },
    )
    c.respond(c.text(' '.join(s.notes) + f' One test fails on the PR head: `{node}` at {path}:{line}.'), call)
    s.notes = []
    c.request(
        c.ret(
            call,
            json.dumps(
                {
                    'id': 2391877612,
                    'state': 'CHANGES_REQUESTED',
                    'html_url': 'https://github.com/northwind-ops/stockpile/pull/1432#pullrequestreview-2391877612',
                }
            ),
        )
    )
    c.facts = ['1432', head[:7], node, f'{path}:{line}']
    c.respond(
        c.text(
            f'Requested changes on #1432: `{node}` fails at {path}:{line}, and '
            + ', '.join(f'`{fn}`' for _, fn in pr.changed[1:3])
            + ' keep reservations on expired lots. The rest of the diff looks right.'
        )
    )
    return c


@scenario('36_coding_inventory_debug')
def s36():
    c = Conv(3636, '2025-10-13T09:02:00.000000', provider='anthropic')
    r = c.rng
    files = py_project(36, STOCKPILE, STOCKPILE_MODULES)
    s = CodingSession(c, files, reader='read')
    c.request(
        c.sys(
            'You are a senior engineer pair-programming in the stockpile repository. Investigate before changing code; explain what you find.'
        ),
        c.user(
            'Cycle counts sometimes leave negative quantity_on_hand after a transfer between bins. Reproduce it with the tests and fix the root cause.'
        ),
    )
    out, found = pytest_output(
        r,
        files,
        _py_tests(files),
        _fail_lines(
            r,
            files,
            [
                'src/stockpile/cycle_counts.py',
                'src/stockpile/levels.py',
                'src/stockpile/reservations.py',
                'src/stockpile/picking.py',
            ],
        ),
        root='/workspace/stockpile',
        verbose=True,
    )
    s.run('python -m pytest -v tests/ 2>&1 | tail -n 400', out, say='Reproducing first.', exit_code=1)
    s.notes.append('Failing: ' + '; '.join(f'`{n}` ({p}:{l})' for n, p, l in found) + '.')
    s.run(
        'grep -rn "quantity_on_hand\\|reserved_qty\\|bin_id" src/',
        grep_n(files, r'quantity_on_hand|reserved_qty|bin_id|sku_code'),
        say='Who writes quantities?',
    )
    s.notes += [
        f'{h.split(":")[0]}:{h.split(":")[1]} touches `{identifiers(h.split(":", 2)[2])[0]}`.'
        for h in r.sample(
            [
                h
                for h in grep_n(files, r'quantity_on_hand|reserved_qty|bin_id|sku_code').splitlines()
                if identifiers(h.split(':', 2)[2])
            ],
            4,
        )
    ]
    for path in [
        'src/stockpile/cycle_counts.py',
        'src/stockpile/levels.py',
        'src/stockpile/reservations.py',
        'src/stockpile/shipments.py',
        'src/stockpile/picking.py',
    ]:
        s.read(path, k=r.randint(2, 6))
    for _, path, line in found:
        s.edit(path, near=line, say=f'Root cause around {path}:{line}.')
    _add_block(s, 'src/stockpile/levels.py', STOCKPILE, say='Adding a guard helper for transfers.')
    s.edit('src/stockpile/levels.py')
    text, errors = mypy_output(r, s.files, 38)
    s.run('mypy --strict src/stockpile', text, say='Type-checking strictly.', exit_code=1)
    mine = [e for e in errors if e[0] in {p for p, _ in s.changed}]
    s.notes.append('mypy: ' + '; '.join(f'[{code}] in {p}' for p, _, code in (mine or errors)[:3]) + '.')
    out2, _ = pytest_output(r, s.files, _py_tests(s.files), [], root='/workspace/stockpile')
    s.run('python -m pytest -q tests/', out2, say='Rerunning.')
    patch = s.diff(review=True)
    c.facts = [found[0][0], f'{found[0][1]}:{found[0][2]}', 'src/stockpile/levels.py', s.changed[-1][1]]
    s.final(
        'The negative quantities came from transfers that released the source bin before the destination was reserved. Fixed in '
        + ', '.join(f'`{f}` ({p})' for p, f in s.changed)
        + '; all tests pass.',
        patch=patch,
    )
    return c


@scenario('37_coding_docs_update')
def s37():
    c = Conv(3737, '2025-10-15T14:30:00.000000', provider='openai')
    r = c.rng
    files = py_project(
        37,
        QUILL,
        [
            ('quill/render.py', 'turning parsed pages into HTML', 18),
            ('quill/shortcodes.py', 'shortcode expansion', 12),
            ('quill/config.py', 'loading quill.toml', 10),
            ('quill/plugins/search_index.py', 'the client-side search index', 9),
        ],
    )
    docs = {
        'docs/usage.md': markdown_doc(r, QUILL, files, 'Using quill', sections=4),
        'docs/design.md': markdown_doc(r, QUILL, files, 'Design', sections=5),
        'docs/plugins.md': markdown_doc(r, QUILL, files, 'Writing plugins', sections=3),
    }
    files |= docs
    s = CodingSession(c, files, reader='read_file')
    c.request(
        c.sys(
            'You are a documentation-minded coding agent for the quill static site generator. Keep docs and code in sync.'
        ),
        c.user(
            'The docs are out of date since the shortcode rewrite. Check docs/ against the code, fix what is wrong, and list what you changed.'
        ),
    )
    s.run(
        'find . -name "*.md" -o -name "*.py" | grep -v node_modules | sort',
        find_listing(
            r, files, ['docs', 'docs/plugins', 'tests', 'tests/fixtures', 'quill/themes', 'examples/blog'], 170
        ),
        say='Inventory first.',
    )
    s.notes.append('Docs to check: ' + ', '.join(docs) + '.')
    for path in docs:
        s.read(path, numbered=False, k=r.randint(2, 4))
    for path in ['quill/shortcodes.py', 'quill/config.py', 'quill/render.py']:
        s.read(path, k=r.randint(2, 5))
    for path in ['docs/usage.md', 'docs/design.md']:
        lines = s.files[path].splitlines()
        i = r.choice([j for j, l in enumerate(lines) if l.startswith('| `')])
        new = lines[i].replace('`', '`', 1).rsplit('|', 2)[0] + '| Changed in 0.14: read once per build. |'
        s.files[path] = '\n'.join(lines[:i] + [new] + lines[i + 1 :]) + ('\n' if s.files[path].endswith('\n') else '')
        s.changed.append((path, 'configuration table'))
        s.step(
            'edit_file',
            {'path': path, 'old_str': lines[i], 'new_str': new},
            'ok',
            say=f'{path} line {i + 1} describes an old default.',
        )
    s.edit('quill/shortcodes.py')
    s.edit('quill/config.py')
    patch = s.diff()
    c.facts = ['docs/usage.md', 'docs/design.md', 'quill/shortcodes.py', s.changed[-1][1]]
    s.final(
        'Updated the configuration tables in docs/usage.md and docs/design.md and fixed two code paths the docs described correctly but the code did not.',
        patch=patch,
    )
    return c


@scenario('38_coding_relay_feature')
def s38():
    c = Conv(3838, '2025-10-20T11:11:00.000000', provider='anthropic')
    r = c.rng
    files = py_project(
        38,
        RELAY,
        [
            ('src/relay/delivery.py', 'sending webhook deliveries and recording attempts', 16),
            ('src/relay/retry.py', 'backoff schedules and dead-lettering', 10),
            ('src/relay/ratelimit.py', 'per-endpoint rate limits', 8),
            ('src/relay/store.py', 'SQLite persistence of deliveries and attempts', 13),
            ('src/relay/tenants.py', 'tenant settings and quotas', 9),
        ],
    )
    design = markdown_doc(r, RELAY, files, 'Design: per-tenant delivery quotas', sections=4)
    files['docs/design/quotas.md'] = design
    s = CodingSession(c, files, reader='read_file', shell='bash')
    c.request(
        c.sys('You are a coding agent. Implement features test-first where practical; keep the public API stable.'),
        c.user('Implement per-tenant delivery quotas as described in docs/design/quotas.md.'),
    )
    s.read('docs/design/quotas.md', numbered=False, k=3)
    s.read('src/relay/tenants.py', k=3)
    s.read('src/relay/ratelimit.py', k=3)
    lines = files['src/relay/delivery.py'].splitlines()
    for start in (1, len(lines) // 2):
        s.read('src/relay/delivery.py', offset=start, limit=len(lines) // 2 + 5, k=2, via_shell=True)
    s.read('src/relay/store.py', k=3)
    _add_block(s, 'src/relay/tenants.py', RELAY, say='Adding the quota record.')
    _add_block(s, 'src/relay/ratelimit.py', RELAY, say='And the check.')
    s.edit('src/relay/delivery.py')
    s.edit('src/relay/store.py')
    out, found = pytest_output(
        r,
        s.files,
        _py_tests(s.files),
        _fail_lines(r, s.files, ['src/relay/ratelimit.py', 'src/relay/delivery.py']),
        root='/workspace/relay',
        verbose=True,
    )
    s.run('python -m pytest -v tests/', out, say='Running the tests.', exit_code=1)
    _answer_failures(s, found)
    out2, _ = pytest_output(r, s.files, _py_tests(s.files), [], root='/workspace/relay')
    s.run('python -m pytest -q tests/', out2, say='Again.')
    s.run(
        'git log --oneline -n 30',
        '\n'.join(
            f'{sha1(r)[:7]} {r.choice(["fix", "feat", "chore", "refactor", "docs"])}({r.choice(["delivery", "retry", "store", "api", "cli"])}): {r.choice(["handle", "drop", "add", "rename", "speed up"])} {r.choice(RELAY.nouns).replace("_", " ")} {r.choice(["checks", "paths", "limits", "logging", "tests"])} (#{r.randint(300, 990)})'
            for _ in range(30)
        ),
        say='Recent history, for the commit message style.',
    )
    patch = s.diff(review=True)
    c.facts = [found[0][0], str(found[0][2]), s.changed[0][1]]
    s.final(
        'Per-tenant quotas are in: ' + ', '.join(f'`{f}` ({p})' for p, f in s.changed) + '. Tests pass.', patch=patch
    )
    return c


PROJECTS = {
    'relay': (
        RELAY,
        [
            ('src/relay/delivery.py', 'sending webhook deliveries and recording attempts'),
            ('src/relay/retry.py', 'backoff schedules and dead-lettering'),
            ('src/relay/signing.py', 'HMAC signatures for outgoing webhooks'),
            ('src/relay/store.py', 'SQLite persistence of deliveries and attempts'),
            ('src/relay/api/routes.py', 'HTTP routes for endpoints and subscriptions'),
            ('src/relay/tenants.py', 'tenant settings and quotas'),
            ('src/relay/cli.py', 'the relay command line'),
        ],
    ),
    'quill': (
        QUILL,
        [
            ('quill/render.py', 'turning parsed pages into HTML'),
            ('quill/frontmatter.py', 'YAML and TOML front matter'),
            ('quill/toc.py', 'tables of contents from headings'),
            ('quill/collect.py', 'walking the content folder'),
            ('quill/plugins/feeds.py', 'RSS and Atom feeds'),
            ('quill/shortcodes.py', 'shortcode expansion'),
            ('quill/config.py', 'loading quill.toml'),
        ],
    ),
    'stockpile': (STOCKPILE, [(p, d) for p, d, _ in STOCKPILE_MODULES]),
}
TASKS = [
    'A customer reports that {noun} handling breaks when the batch is empty. Reproduce with the tests, find the cause, fix it.',
    'The nightly job crashed with a {exc} in {path}. Investigate and fix; add a regression test if one is missing.',
    'Refactor {path} so that {fn} no longer does I/O itself; behaviour must not change and the tests must pass.',
    'Tests started failing after the last merge to main. Get the suite green again without skipping tests.',
    'Add a `--{flag}` option to the CLI that limits how many {noun} records are processed, and document it.',
]


def _last_commit(s: CodingSession, vocab: PyVocab, paths: list[str], *, seed: int, start: str) -> tuple[str, list[str]]:
    """A commit made to `paths` just before the session (`s` starts from it): its `git show HEAD`, the functions it changed."""
    r = s.r
    commit = CodingSession(Conv(seed, start), s.files)
    for path in r.sample(paths, 3):
        _add_block(commit, path, vocab, say='x')
    for path in r.sample(paths, 3):
        commit.edit(path)
    s.files = dict(commit.files)
    s.base = dict(commit.files)
    author = r.choice(
        [
            'Dana Whitfield <dana@northwind.dev>',
            'Kenji Morita <kmorita@northwind.dev>',
            'Priya Raman <priya.raman@northwind.dev>',
        ]
    )
    show = '\n'.join(
        [
            f'commit {sha1(r)}',
            f'Author: {author}',
            f'Date:   {r.choice(["Mon", "Tue", "Wed", "Thu"])} Nov {r.randint(3, 20)} {r.randint(9, 18)}:{r.randint(10, 59)}:{r.randint(10, 59)} 2025 +0100',
            '',
            f'    {r.choice(["Speed up", "Simplify", "Rework"])} {r.choice(vocab.nouns).replace("_", " ")} handling (#{r.randint(300, 990)})',
            '',
            unified_diff(commit.base, commit.files, r),
        ]
    )
    return show, [f for _, f in commit.changed]


def _issue_thread(s: CodingSession, vocab: PyVocab, project: str, path0: str) -> None:
    """The comments of the issue the task comes from, as the GitHub MCP server returns them: JSON text."""
    r = s.r
    number = r.randint(400, 2400)
    lines = s.files[path0].splitlines()
    quoted = [l for l in lines if identifiers(l) and l.startswith('    ')]
    comments = [
        {
            'id': 1_900_000_000 + r.randint(0, 99_999_999),
            'user': {
                'login': r.choice(['dwhitfield', 'kmorita', 'praman', 'ops-bot', 'jlaurent', 'hsato']),
                'type': 'User',
            },
            'created_at': f'2025-11-{r.randint(1, 20):02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z',
            'author_association': r.choice(['MEMBER', 'CONTRIBUTOR', 'NONE']),
            'body': r.choice(
                [
                    f'Still happens on main. The stack ends in `{path0}`:\n```\n{r.choice(quoted).strip()}\n```',
                    f'I think `{r.choice(identifiers(r.choice(quoted)))}` is the culprit, it runs before the lock is taken.',
                    f'+1, we see this in production every night around 02:{r.randint(10, 59)} UTC ({r.randint(3, 40)} failures).',
                    f'Workaround: set `{vocab.prog.upper()}_{r.choice(vocab.attrs).upper()}` to {r.randint(2, 500)} until this is fixed.',
                    'Could this be related to the retry change last month?',
                ]
            ),
            'reactions': {'total_count': r.randint(0, 6), '+1': r.randint(0, 4)},
        }
        for _ in range(r.randint(9, 16))
    ]
    s.step(
        'github_list_issue_comments',
        {'owner': 'northwind-ops', 'repo': project, 'issue_number': number},
        json.dumps(comments, indent=2),
        say=f'Reading the discussion on issue #{number} first.',
    )
    picked = r.choice(comments)
    named = ', '.join(f'`{x}`' for x in identifiers(picked['body'])[:2])
    s.notes.append(
        f'{picked["user"]["login"]} commented on {picked["created_at"][:10]}'
        + (f'; {named} come up in the thread.' if named else '.')
    )


def _quote_commit_file(s: CodingSession, show: str) -> None:
    """Quote the part of the last commit's diff that touches one file, as an agent does with the part it suspects."""
    lines = show.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith('diff --git')] + [len(lines)]
    if len(starts) > 2:
        first = s.r.randrange(len(starts) - 1)
        part = '\n'.join(lines[starts[first] : starts[first + 1]])
        s.notes.append(f'This part looks suspicious:\n\n```diff\n{part}\n```\n')


def _edit_target(s: CodingSession, paths: list[str]) -> str:
    """The file the next change goes to: mostly one already changed, as an agent reads many files but edits a few."""
    touched = sorted({path for path, _ in s.edited if path in paths})
    return s.r.choice(touched if touched and s.r.random() < FOCUSED_EDIT_SHARE else paths)


def _note_run(s: CodingSession, text: str) -> None:
    """Sometimes name what a test run printed besides its failures: the versions it ran with, a test that passed.

    In the dev corpus most facts later turns take from shell output come from such lines, not from the failure's.
    """
    r = s.r
    if r.random() < 0.5 and (m := re.search(r'Python (\S+), pytest-(\S+),', text)):
        s.notes.append(f'(Python {m.group(1)}, pytest {m.group(2)}.)')
    passed = [line.split()[0] for line in text.splitlines() if line.endswith('%]') and ' PASSED ' in line]
    if passed and r.random() < 0.5:
        s.notes.append(f'`{r.choice(passed)}` passes.')
    if len(passed) > 2 and r.random() < RERUN_FAILED_SHARE:  # a few tests of the run, alone, by node id
        picked = r.sample(passed, r.randint(1, 3))
        s.run(
            'python -m pytest ' + ' '.join(picked) + ' -q',
            f'{"." * len(picked)}{" " * 40}[100%]\n{len(picked)} passed in {r.uniform(0.1, 3):.2f}s',
            say='Those again, alone.',
        )
    by_file = Counter(node.split('::')[0] for node in passed)
    if by_file and r.random() < 0.5:  # a test file's path is printed on each of its tests' lines
        test_file, count = by_file.most_common(1)[0]
        s.notes.append(f'{test_file} has the most tests ({count} passing).')


def _first_test_run(
    s: CodingSession, files: dict[str, str], paths: list[str], project: str
) -> list[tuple[str, str, int]]:
    """The test run that shows the bug: pytest (often verbose) or a unittest runner, 1-3 failures."""
    r = s.r
    failing = [r.choice(paths)]
    for _ in range(r.choice([0, 0, 0, 1, 1, 2])):  # a bug breaks a few tests, mostly of the same module
        others = [p for p in paths if p not in failing]
        failing.append(failing[0] if not others or r.random() < SAME_MODULE_FAILURE_SHARE else r.choice(others))
    if r.random() < 0.8:
        tb = 'short' if r.random() < SHORT_TRACEBACK_SHARE else 'long'
        out, found = pytest_output(
            r,
            files,
            _py_tests(files),
            _fail_lines(r, files, failing),
            root=f'/workspace/{project}',
            verbose=r.random() < 0.6,
            tb=tb,
        )
        s.run(
            r.choice(['python -m pytest -v tests/', 'pytest -x -v', 'python -m pytest tests/ -v'])
            + (' --tb=short' if tb == 'short' else ''),
            out,
            say='Reproducing first.',
            exit_code=1,
        )
    else:
        out, found = unittest_output(
            r,
            files,
            _fail_lines(r, files, failing),
            root=f'/workspace/{project}',
            module=f'tests.test_{project}',
            verbose=r.random() < 0.6,
        )
        s.run('python -m unittest -v', out, say='Reproducing first.', exit_code=1)
    _note_run(s, out)
    return found


def _grep_step(s: CodingSession, vocab: PyVocab, files: dict[str, str], project: str) -> None:
    """`grep -rn` for a field name, from the repository's absolute path and often with context lines (`-C`); the next
    turn names a few names of the matched lines, sometimes with their file.

    In the dev corpus three quarters of the facts later turns take from a grep listing are names in its matched text,
    15% its paths, 9% its line numbers.
    """
    r = s.r
    word = r.choice(vocab.attrs)
    context = r.choice([0, 0, 0, 2])
    root = f'/workspace/{project}/'
    listing = grep_n(files, re.escape(word) + '|' + re.escape(r.choice(vocab.nouns)), root=root, context=context)
    s.run(f'grep -rn{f" -C {context}" if context else ""} "{word}" {root}', listing, say=f'Where is `{word}` used?')
    matched = [m for line in listing.splitlines() if (m := GREP_HIT.match(line)) and identifiers(m['text'])]
    for m in r.sample(matched, min(r.randint(1, 3), len(matched))):
        name = r.choice(identifiers(m['text']))
        where = r.random()
        if where < 0.15:
            s.notes.append(f'{m["path"].removeprefix(root)} uses `{name}`.')
        elif where < 0.25:
            s.notes.append(f'`{name}` at line {m["line"]} of {m["path"].removeprefix(root)}.')
        else:
            s.notes.append(f'`{name}` looks related.')


GREP_HIT = re.compile(r'^(?P<path>[^:\s]+):(?P<line>\d+):(?P<text>.*)$')
"""A matched line of `grep -rn`: `path:line:text`."""


def _project_doc(r: random.Random, vocab: PyVocab, files: dict[str, str]) -> str | None:
    """Most repositories have a Markdown document the task touches on; added to `files`, its path returned."""
    if r.random() >= 0.75:
        return None
    path = f'docs/{r.choice(["design", "operations", "configuration", "architecture", "runbook"])}.md'
    title = r.choice(['Operations guide', 'Architecture', 'Configuration reference', 'Runbook'])
    files[path] = markdown_doc(r, vocab, files, title, sections=r.randint(2, 5))
    return path


NEW_TEST_FILE_SHARE = 0.15
"""Share of the regression tests written as a new file; the others are appended to the module's existing test file (an
edit). In the dev corpus 3 of the 53 files the diffs over 4,000 characters change are new files (a third are test
files); with every regression test a new file, 25 of the generated diffs' 104 were."""


def _existing_tests(r: random.Random, module: str, source: str) -> str:
    """The test module a code base already has for `module`: its imports and a few tests of the module's functions."""
    names = re.findall(r'^def ([a-z]\w+)', source, re.MULTILINE)[:3] or ['main']
    lines = [f'"""Tests for {module}."""', '', 'import pytest', '', f'from {module} import {", ".join(names)}', '']
    for name in names:
        lines += [
            '',
            f'def test_{name}_{r.choice(["defaults", "empty_input", "round_trip", "rejects_bad_input"])}():',
            f'    assert {name} is not None',
        ]
    return '\n'.join(lines) + '\n'


REGRESSION_DOCS = [
    'This used to fail when the batch was exactly as large as the limit.',
    'The old code dropped the last item of a full batch without a word.',
    'A retried item must not be counted twice against the limit.',
    'Make sure an empty input gives an empty result instead of an error.',
    'Two entries with the same key: the newer one has to win.',
]
"""Docstrings of a regression test: what broke, in plain words."""
REGRESSION_DOC_SHARE = 0.6
"""Share of the regression tests appended to a test file that say in a docstring what broke."""
RAISES_TEST_SHARE = 0.6
"""Share of the regression tests of a function that raises one of its module's errors that test that path too."""
BOUNDS_TEST_SHARE = 0.6
"""Share of the regression tests of a function with a limit (a keyword `int` parameter) that test it at its bounds."""


STRING_LITERAL = re.compile(r'"[^"]*"')
"""A double-quoted string literal (a test's values; the failure-path test empties the first of its call)."""


def _params(text: str) -> list[tuple[str, str, str | None, bool]]:
    """The `(name, annotation, default, keyword-only)` of each parameter in a def line's parentheses (not `self`,
    `cls`, `*`)."""
    pieces, depth, start = [], 0, 0
    for index, char in enumerate(text + ','):
        if char in '([{':
            depth += 1
        elif char in ')]}':
            depth -= 1
        elif char == ',' and not depth:
            pieces.append(text[start:index].strip())
            start = index + 1
    out = []
    keyword = False  # after a bare `*` or `*args`, parameters are keyword-only
    for piece in pieces:
        if piece.startswith('*'):
            keyword = True
            continue
        m = re.fullmatch(r'(\w+)(?:\s*:\s*([^=]+?))?(?:\s*=\s*(.+))?', piece)
        if m and m.group(1) not in {'self', 'cls'}:
            out.append((m.group(1), m.group(2) or '', m.group(3), keyword))
    return out


def _definition(source: str, name: str, *, within: str | None = None) -> tuple[str, str, str, str | None, bool] | None:
    """The def line of function or method `name` in `source` (its parameters and return annotation), its body, the
    class it is a method of (None for a function) and whether it is async; None when `source` defines no function of
    that name (in class `within`, when given)."""
    lines = source.splitlines()
    for index, line in enumerate(lines):
        m = re.match(rf'^(\s*)(async )?def {name}\((.*)\)(?: -> (.+))?:$', line)
        if m is None:
            continue
        indent = len(m.group(1))
        body = []
        for later in lines[index + 1 :]:
            if later.strip() and _indent(later) <= indent:
                break
            body.append(later)
        owner = None
        if indent:  # a method, or a function nested in one (not something a test can call)
            pattern = rf'\s{{0,{indent - 1}}}(?:async |def |class )'
            above = next((l for l in reversed(lines[:index]) if re.match(pattern, l)), '')
            if not above.startswith('class '):
                continue
            owner = re.match(r'class (\w+)', above).group(1)
        if within is not None and owner != within:
            continue
        return m.group(3), m.group(4) or 'None', '\n'.join(body), owner, bool(m.group(2))
    return None


def _test_value(r: random.Random, name: str, annotation: str, body: str) -> tuple[str, list[str]]:
    """The value a regression test passes for parameter `name: annotation` (of a function with `body`), and the lines
    that set it up."""
    if annotation == 'Path':
        return f'tmp_path / "{name}.json"', []
    if annotation == 'Iterable[Path]':
        files = r.sample(['a.json', 'b.yaml', 'c.toml', 'big.ndjson', '.hidden.json'], 3)
        return '[tmp_path]', [f'(tmp_path / "{f}").write_text("{{}}", encoding="utf-8")' for f in files]
    if annotation == 'Sequence[str] | None':
        return f'["{r.choice(["sample", "batch-7", "a.json"])}"]', []
    if annotation.startswith('Sequence[Mapping'):
        keys = list(dict.fromkeys(re.findall(r'row(?:\["|\.get\(")(\w+)"', body)))

        def cell(key: str, row: int) -> str:  # a number or a string, as the rows of a test's fixture mix them
            return r.choice([str(r.randint(1, 40)), '"' + f'{key}-{row}' + '"'])

        rows = ['    {' + ', '.join(f'"{k}": {cell(k, i)}' for k in keys) + '},' for i in range(r.randint(2, 4))]
        return name, [f'{name} = [', *rows, ']']
    if annotation == 'sqlite3.Connection':
        m = re.search(r'SELECT (.+?) FROM (\w+) WHERE (\w+) = \?', body)
        columns = [*m.group(1).split(', '), m.group(3)] if m else ['id']
        table = m.group(2) if m else 'items'
        row = ', '.join(f'"{r.choice(TEST_WORDS)}"' if i < len(columns) - 1 else '"key"' for i in range(len(columns)))
        return 'conn', [
            'conn = sqlite3.connect(":memory:")',
            f'conn.execute("CREATE TABLE {table} ({", ".join(columns)})")',
            f'conn.execute("INSERT INTO {table} VALUES ({", ".join("?" * len(columns))})", ({row}{"," * (len(columns) == 1)}))',
        ]
    if annotation == 'httpx.AsyncClient':
        return 'client', [
            'transport = httpx.MockTransport(lambda request: httpx.Response(200, json={"status": "ok"}))',
            'client = httpx.AsyncClient(transport=transport, base_url="http://test")',
        ]
    if annotation.startswith('Callable'):
        return 'double', ['def double(value: int) -> int:', '    return value * 2', '']
    if annotation == 'int':
        return str(r.randint(1, 9)), []
    if annotation == 'float':
        return '0.5', []
    # one of the module's classes, or a sequence of them: the fields the code reads
    if re.fullmatch(r'(?:Sequence\[)?[A-Z]\w*\]?', annotation):
        fields = list(dict.fromkeys(re.findall(rf'(?:{name}|item)\.([a-z]\w*)\b(?!\()', body))) or ['name']
        values = [f'    {f}=["{r.choice(TEST_WORDS)}", " ", "{r.choice(TEST_WORDS)}"],' for f in fields[:3]]
        if annotation.startswith('Sequence'):
            return name, [f'{name} = [', '    SimpleNamespace(', *(f'    {v}' for v in values), '    ),', ']']
        return name, [f'{name} = SimpleNamespace(', *values, ')']
    return f'"{r.choice(TEST_WORDS)}"', []


def _result_checks(returns: str, call: str, body: str) -> list[str]:
    """What a regression test asserts about `call`, by the function's return annotation."""
    if returns == 'Iterator[IO[str]]':
        return [f'with {call} as handle:', '    handle.write("{}")', 'assert path.read_text(encoding="utf-8") == "{}"']
    if returns.startswith('Iterator'):
        return [f'found = list({call})', 'assert found', 'assert all(size >= 0 for _, size in found)']
    if returns.startswith('Callable'):
        return [f'wrapped = {call}', 'assert wrapped(21) == 42', 'assert wrapped.__name__ == "double"']
    if returns == 'tuple[str, int | None]':
        return [f'name, number = {call}', 'assert name', 'assert number is None or number >= 0']
    keys = list(dict.fromkeys(re.findall(r'^\s+"(\w+)": ', body, re.MULTILINE)))
    if returns.startswith('dict') and keys:
        return [
            f'result = {call}',
            f'assert set(result) >= {{{", ".join(f"{k!r}" for k in keys[:3])}}}'.replace("'", '"'),
        ]
    if returns.startswith('dict') and re.search(r'\.json\(\)', body):  # what the mock transport answers
        return [f'result = {call}', 'assert result == {"status": "ok"}']
    checks = {
        'int': ['assert result == 0'],
        'None': ['assert result is None'],
        'bool': ['assert isinstance(result, bool)'],
        'str': ['assert result'],
    }
    if returns.startswith('list'):
        return [f'result = {call}', 'assert isinstance(result, list)', 'assert len(result) <= 3']
    return [f'result = {call}', *checks.get(returns, ['assert result is not None'])]


def _regression_test(r: random.Random, source: str, module: str, func: str, doc: list[str]) -> list[str] | None:
    """Regression tests of `func` (a function or method of `module`, whose code is `source`) that call it as its
    signature says: arguments of its annotated types set up first, its result checked by its return type; sometimes
    its failure path and its limit too. None for a name `source` defines no function of."""
    if re.search(rf'^class {func}\b', source, re.MULTILINE):  # the fix is in a class: the test builds one
        return _class_test(r, source, module, func, doc)
    found = _definition(source, func)
    if found is None:  # a function nested in another (a decorator's `wrapper`): the test calls the one outside
        lines = source.splitlines()
        at = next((i for i, line in enumerate(lines) if re.match(rf'\s+(?:async )?def {func}\(', line)), None)
        outer = _enclosing_def(lines, at) if at is not None else None
        name = re.match(r'\s*(?:async )?def (\w+)', lines[outer]) if outer is not None else None
        return _regression_test(r, source, module, name.group(1), doc) if name else None
    params, returns, body, owner, is_async = found
    if owner and func == '__init__':  # the fix is in how the object is built
        return _class_test(r, source, module, owner, doc)
    setup, args = _arguments(r, params, body)
    target = func
    if owner:  # a method: the object first, built with its class's __init__ parameters
        init = _definition(source, '__init__', within=owner)
        init_setup, init_args = _arguments(r, init[0], init[2]) if init else ([], [])
        setup += [*init_setup, f'subject = {owner}({", ".join(init_args)})']
        target = f'subject.{func}'
    call = f'{"await " if is_async else ""}{target}({", ".join(args)})'
    if returns == 'Iterator[IO[str]]':  # the file it writes, which the test reads back
        setup = ['path = tmp_path / "out.json"', *(line.replace('tmp_path / "path.json"', 'path') for line in setup)]
        call = call.replace('tmp_path / "path.json"', 'path')
    imported = owner or func
    stem = f'test_{func.strip("_")}'
    tests = [
        _test_function(
            f'{stem}_{r.choice(TEST_CASES)}',
            _test_opening(doc, module, [imported], setup),
            setup,
            _result_checks(returns, call, body),
            is_async=is_async,
        )
    ]
    errors = [e for e in dict.fromkeys(re.findall(r'raise ([A-Z]\w+)\(', body)) if f'class {e}(' in source]
    if errors and STRING_LITERAL.search(call) and r.random() < RAISES_TEST_SHARE:  # the failure path: an empty value
        tests.append(
            _test_function(
                f'{stem}_rejects_bad_input',
                _test_opening([], module, [errors[0], imported], setup),
                setup,
                [f'with pytest.raises({errors[0]}):', '    ' + STRING_LITERAL.sub('""', call, count=1)],
                is_async=is_async,
            )
        )
    bounds = [(n, d) for n, a, d, keyword in _params(params) if keyword and a == 'int' and d is not None]
    if bounds and returns.startswith('list') and r.random() < BOUNDS_TEST_SHARE:  # the limit the fix is about
        kw, default = bounds[0]  # a module constant as the default: its value (the decorator runs before the import)
        value = re.search(rf'^{re.escape(default)} = (\d+)$', source, re.MULTILINE)
        default = value.group(1) if value else default if default.isdigit() else '8'
        tests.append(
            _test_function(
                f'{stem}_respects_{kw}',
                _test_opening([], module, [imported], setup),
                setup,
                [f'result = {call[:-1]}{", " if args else ""}{kw}={kw})', f'assert len(result) <= {kw}'],
                is_async=is_async,
                parameter=(kw, ', '.join(dict.fromkeys(['0', '1', default]))),
            )
        )
    return [line for test in tests for line in (*test, '', '')][:-2]


def _class_test(r: random.Random, source: str, module: str, cls: str, doc: list[str]) -> list[str]:
    """A regression test of class `cls` of `module` (code `source`) that builds one as it is built and reads it back:
    an enum from its values, a dataclass from its fields, an error from a message, another class through `__init__`."""
    head = re.search(rf'^class {cls}\b.*$', source, re.MULTILINE)
    assert head is not None
    end = re.search(r'^\S', source[head.end() :], re.MULTILINE)
    body = source[head.end() : head.end() + end.start() if end else len(source)]
    stem = f'test_{_snake(cls)}_{r.choice(TEST_CASES)}'
    members = re.findall(r'^    ([A-Z][A-Z0-9_]*) = "([^"]+)"$', body, re.MULTILINE)
    if 'enum.Enum' in head.group(0) and members:
        checks = [f'assert {cls}("{value}") is {cls}.{name}' for name, value in members[:2]]
        checks += ['with pytest.raises(ValueError):', f'    {cls}("{r.choice(TEST_WORDS)}-unknown")']
        return _test_function(stem, _test_opening(doc, module, [cls], []), [], checks, is_async=False)
    if re.search(r'(?:Error|Exception|Rejected|Timeout|Conflict)\b', head.group(0)):  # raised with a message
        message = f'{r.choice(TEST_WORDS)} failed'
        checks = [
            f'error = {cls}("{message}")',
            f'assert str(error) == "{message}"',
            'assert isinstance(error, Exception)',
        ]
        return _test_function(stem, _test_opening(doc, module, [cls], []), [], checks, is_async=False)
    init = _definition(source, '__init__', within=cls)
    if init is not None:
        params, init_body = init[0], init[2]
    else:  # a dataclass: its fields without a default, before its first method
        fields = re.findall(r'^    (\w+): ([^=\n]+)$', body.split('\n    def ', 1)[0], re.MULTILINE)
        params, init_body = ', '.join(f'{n}: {a}' for n, a in fields), body
    setup, args = _arguments(r, params, init_body)
    names = [n for n, _, default, keyword in _params(params) if default is None and not keyword]
    values = dict(zip(names, args, strict=False))
    stored = re.findall(r'^\s+self\.(\w+) = (\w+)$', init_body, re.MULTILINE) or [(n, n) for n in names]
    checks = [f'assert subject.{a} == {values[b]}' for a, b in stored if b in values][:3]
    setup = [*setup, f'subject = {cls}({", ".join(args)})']
    checks = checks or [f'assert isinstance(subject, {cls})']
    return _test_function(stem, _test_opening(doc, module, [cls], setup), setup, checks, is_async=False)


def _snake(name: str) -> str:
    """`FeedRecord` as a test names it: `feed_record`."""
    return re.sub(r'(?<=[a-z0-9])([A-Z])', r'_\1', name).lower()


TEST_WORDS = ['alpha', 'beta', 'gamma', 'primary', 'default', 'example', 'first', 'second']
"""The strings a regression test passes: plain words, as tests mostly use (not ids, which would be facts of their own)."""
TEST_CASES = ['empty_batch', 'retried_item', 'duplicate_key', 'limit', 'round_trip']
"""What a regression test's name says it covers."""


def _arguments(r: random.Random, params: str, body: str) -> tuple[list[str], list[str]]:
    """The lines a test sets its arguments up with, and the arguments, for the required parameters `params` of a
    function with `body`."""
    setup: list[str] = []
    args = []
    for name, annotation, default, keyword in _params(params):
        if default is None:
            value, lines = _test_value(r, name, annotation, body)
            setup += lines
            args.append(f'{name}={value}' if keyword else value)
    return setup, args


def _test_opening(doc: list[str], module: str, names: list[str], setup: list[str]) -> list[str]:
    """A test's docstring and imports: what `setup` uses, then `names` from `module`."""
    used = sorted({m for line in setup for m in re.findall(r'\b(SimpleNamespace|sqlite3|httpx)\b', line)})
    imports = [f'from types import {n}' if n == 'SimpleNamespace' else f'import {n}' for n in used]
    return [*doc, *(f'    {line}' for line in imports), f'    from {module} import {", ".join(sorted(set(names)))}']


def _test_function(
    name: str,
    opening: list[str],
    setup: list[str],
    checks: list[str],
    *,
    is_async: bool,
    parameter: tuple[str, str] | None = None,
) -> list[str]:
    """A test function's lines: `opening` (docstring, imports), then `setup` and `checks` as its body; with
    `parameter` (a name and its values), parametrized over it."""
    fixtures = ['tmp_path'] if any('tmp_path' in line for line in setup + checks) else []
    if parameter:
        fixtures.append(parameter[0])
    setup = list(setup)
    while setup and not setup[-1]:
        setup.pop()
    return [
        *([f'@pytest.mark.parametrize("{parameter[0]}", [{parameter[1]}])'] if parameter else []),
        *(['@pytest.mark.anyio'] if is_async else []),
        f'{"async " if is_async else ""}def {name}({", ".join(fixtures)}):',
        *opening,
        '',
        *(f'    {line}' if line else '' for line in setup),
        *([''] if setup else []),
        *(f'    {line}' for line in checks),
    ]


def _add_regression_test(s: CodingSession, path: str, func: str) -> None:
    """A regression test for the fix: most fixes come with one, mostly appended to the module's test file (an edit),
    sometimes written as a new file (`write_file`)."""
    r = s.r
    module = path.removeprefix('src/').removesuffix('.py').replace('/', '.')
    doc = (
        ['    """Regression test for the fix above.', '', f'    {r.choice(REGRESSION_DOCS)}', '    """']
        if r.random() < REGRESSION_DOC_SHARE
        else []
    )
    test = _regression_test(r, s.files[path], module, func, doc)
    if test is None:  # a change outside the failing module: the test only imports what it changed
        cases = [(r.randint(0, 50), r.choice(['[]', '{}', 'None', '"x"'])) for _ in range(r.randint(2, 4))]
        test = [
            f'@pytest.mark.parametrize(("limit", "value"), [{", ".join(f"({n}, {v})" for n, v in cases)}])',
            f'def test_{func.strip("_")}_{r.choice(["empty_batch", "retried_item", "duplicate_key"])}(limit, value):',
            *doc,
            f'    from {module} import {func}',
            '',
            f'    assert {func}(value) is None or limit >= 0',
        ]
    if r.random() < NEW_TEST_FILE_SHARE:
        test_path = f'tests/regression/test_{func.strip("_")}_{r.randint(100, 999)}.py'
        what = r.choice(['an empty batch', 'a retried item', 'a duplicate key', 'a unicode name'])
        imports = ['import pytest', ''] if any('pytest.' in line for line in test) else []
        s.files[test_path] = '\n'.join([f'"""Regression test: {func} with {what}."""', '', *imports, '', *test]) + '\n'
        s.step(
            'write_file',
            {'path': test_path, 'content': s.files[test_path]},
            f'Wrote {len(s.files[test_path])} bytes to {test_path}.',
            say=f'Adding a regression test for `{func}`.',
        )
        return
    test_path = f'tests/test_{path.rsplit("/", 1)[-1]}'
    existing = s.files.get(test_path) or _existing_tests(r, module, s.files[path])
    s.base.setdefault(test_path, existing)
    added = ['', '', *test]
    old = existing.rstrip('\n').splitlines()[-3:]
    s.files[test_path] = existing.rstrip('\n') + '\n' + '\n'.join(added) + '\n'
    s.changed.append((test_path, f'test_{func.strip("_")}'))
    s.step(
        'edit_file',
        {'path': test_path, 'old_str': '\n'.join(old), 'new_str': '\n'.join(old + added)},
        f'Edited {test_path}: replaced {len(old)} lines with {len(old) + len(added)}.',
        say=f'Adding a regression test for `{func}` to {test_path}.',
    )


def quoted_facts(c: Conv, candidates: list[str]) -> list[str]:
    """The `candidates` a later turn quotes after a tool return holding them (the check `main` makes), deduplicated."""
    data = json.loads(c.dump())
    return [f for f in dict.fromkeys(candidates) if not any('is not quoted' in p for p in check_facts('', data, [f]))]


def _finish(s: CodingSession) -> None:
    """`git diff`, then the answer: the diff repeated whole for review, or in the final answer, or one hunk of it, or not at all.

    Sometimes the agent revises one of its changes after reading the diff (an `old_str` copied from it) and reruns the
    tests first.
    """
    r = s.r
    ending = r.choice(['review'] * 4 + ['final'] * 4 + ['hunk', 'none'])
    revise = bool(s.edited) and r.random() < REVISE_AFTER_DIFF_SHARE
    command = r.choice(['git diff', 'git diff HEAD', 'git --no-pager diff'])
    patch = s.diff(command=command, review=ending == 'review' and not revise)
    if revise:
        path, line = r.choice(s.edited)
        s.edit(path, near=line, say=f'Reading the diff again, the change in {path} needs one more tweak.')
        s.run(
            'python -m pytest -q',
            f'{r.randint(150, 1400)} passed, {r.randint(0, 9)} skipped in {r.uniform(3, 90):.2f}s',
            say='Rerunning after the tweak.',
        )
        # the diff again, as the agents of the dev corpus look at their patch more than once before finishing
        patch = s.diff(command=command, say='The diff after the tweak.', review=ending == 'review')
    summary = 'Done. ' + ', '.join(f'`{f}` in {p}' for p, f in s.changed) + ' changed; the suite passes.'
    if ending == 'final':
        # a last check or two before the answer, so the patch comes back a few messages after the diff, not in the next
        for command, output in r.sample(FINAL_CHECKS, r.randint(1, 3)):
            s.run(command, output.format(n=r.randint(150, 1400), t=r.uniform(3, 90), path=s.changed[0][0]))
        s.final(summary, patch=patch)
    elif ending == 'hunk':
        lines = patch.splitlines()  # the first files' hunks: half to three quarters of the diff
        s.final(
            summary
            + ' The main hunks:\n\n```diff\n'
            + '\n'.join(lines[: int(len(lines) * r.uniform(0.5, 0.75))])
            + '\n```'
        )
    else:  # 'review' repeated it already; 'none' never does
        s.final(summary)


def _read_some(s: CodingSession, paths: list[str], *, numbered: bool) -> None:
    """Read 3-5 of `paths`: a long file often as a window (`offset`, `limit`), the others whole."""
    r = s.r
    for path in r.sample(paths, min(len(paths), r.randint(3, 5))):
        n = len(s.files[path].splitlines())
        if n > 220 and r.random() < 0.6:  # a window of a long file, as `read(offset, limit)` tools return it
            limit = r.randint(120, 200)
            offset = r.randint(1, n - limit)
            s.read(
                path,
                numbered=numbered,
                offset=offset,
                limit=limit,
                k=r.choice(NOTICED_LINES),
                via_shell=r.random() < 0.3,
            )
        else:
            s.read(path, numbered=numbered, k=r.choice(NOTICED_LINES))


def _find_step(s: CodingSession, project: str) -> None:
    """`find` at the start of a session, of the folders around the code: fixtures, scripts, docs the session does not go
    on to open."""
    r = s.r
    folders = ['tests/fixtures', r.choice(['docs', 'scripts', 'migrations'])]
    s.run(
        f'find {" ".join(f"/workspace/{project}/{d}" for d in folders)} -type f | sort',
        find_listing(r, {}, folders, r.randint(110, 220), root=f'/workspace/{project}'),
        say='What else is in the repository?',
    )


def coding_session(
    seed: int,
    project: str,
    *,
    provider: str,
    reader: str,
    shell: str,
    numbered: bool,
    structured: bool,
    start: str,
) -> Conv:
    """One coding session over `project` with a plan drawn from `seed`: tests, reads, edits, a diff."""
    c = Conv(seed, start, provider=provider)
    r = c.rng
    vocab, modules = PROJECTS[project]
    chosen = r.sample(modules, r.randint(4, min(6, len(modules))))
    files = py_project(seed, vocab, [(p, d, r.randint(8, 30)) for p, d in chosen])
    paths = list(files)
    doc_path = _project_doc(r, vocab, files)
    s = CodingSession(c, files, reader=reader, shell=shell)
    s.structured_shell = structured
    last_commit = _last_commit(s, vocab, paths, seed=seed + 1, start=start) if r.random() < LAST_COMMIT_SHARE else None
    files = s.files
    defs = [(p, m.group(1)) for p in paths for m in re.finditer(r'^def (\w+)', files[p], re.MULTILINE)]
    path0, fn0 = r.choice(defs)
    excs = sorted({m.group(1) for src in files.values() for m in re.finditer(r'raise (\w+)\(', src)}) or ['ValueError']
    task = r.choice(TASKS).format(
        noun=r.choice(vocab.nouns).replace('_', ' '),
        exc=r.choice(excs),
        path=path0,
        fn=fn0,
        flag=r.choice(['limit', 'max-items', 'since']),
    )
    c.request(
        c.sys(
            r.choice(
                [
                    f'You are a coding agent working in the {project} repository. Use the tools to inspect, edit and test code.',
                    f'You are an autonomous software engineer. The repository is checked out at /workspace/{project}. Run the tests before you finish.',
                    'You are a careful senior engineer. Read code before editing it, keep diffs small, explain your reasoning briefly.',
                ]
            )
        ),
        c.user(task),
    )
    if last_commit:  # the last commit on main, which the task may be about
        show, changed = last_commit
        s.run('git show HEAD', show, say='Looking at the last merge first.')
        s.notes.append('That commit changed ' + ', '.join(f'`{f}`' for f in changed) + '.')
        if r.random() < 0.5:
            _quote_commit_file(s, show)
    if r.random() < 0.35:  # the issue, through the GitHub MCP server: JSON text
        _issue_thread(s, vocab, project, path0)
    if r.random() < FIND_SHARE:
        _find_step(s, project)
    found = _first_test_run(s, files, paths, project)
    if r.random() < 0.5:
        _, path, line = found[0]
        s.run(
            r.choice(['python repro.py', 'python scripts/repro.py 2>&1', 'python -X dev repro.py']),
            repro_output(r, files, vocab, path, line),
            say='Writing a minimal reproduction outside the test suite.',
            exit_code=1,
        )
        s.notes.append(f'Reproduced: the traceback ends in {path} line {line}.')
    if r.random() < 0.7:
        _grep_step(s, vocab, files, project)
    _read_some(s, paths, numbered=numbered)
    if doc_path:
        s.read(
            doc_path,
            numbered=False,
            k=r.randint(0, 1),
            via_shell=r.random() < 0.5,
            say=f'Checking what {doc_path} promises.',
        )
    _answer_failures(s, found)
    if r.random() < 0.6:
        tb = 'short' if r.random() < SHORT_TRACEBACK_SHARE else 'long'
        again, found2 = pytest_output(
            r,
            s.files,
            [found[0][0].split('::')[0] if '::' in found[0][0] else _py_tests(s.files)[0]],
            _fail_lines(r, s.files, [found[0][1]]),
            root=f'/workspace/{project}',
            verbose=True,
            tb=tb,
        )
        s.run(
            f'python -m pytest {found[0][0].split("::")[0] if "::" in found[0][0] else "tests/"} -vv --tb={tb}',
            again,
            say='Rerunning that file.',
            exit_code=1,
        )
        _answer_failures(s, found2)
    for _ in range(r.randint(1, 2)):
        _add_block(s, _edit_target(s, paths), vocab, say='Adding a helper for this.')
    for _ in range(r.randint(*FURTHER_EDITS)):
        path = _edit_target(s, paths)
        earlier = [line for p, line in s.edited if p == path]
        s.edit(path, near=r.choice(earlier) if earlier and r.random() < NEAR_EARLIER_EDIT_SHARE else None)
    _add_regression_test(s, found[0][1], s.changed[0][1])
    if r.random() < 0.5:
        text, errors = mypy_output(r, s.files, r.randint(12, 40))
        s.run('mypy src' if project != 'quill' else 'mypy quill', text, say='Type check.', exit_code=1)
        s.notes.append('mypy: ' + '; '.join(f'[{code}] in {p}' for p, _, code in errors[:2]) + '.')
    if r.random() < 0.3:
        s.run("pip install -e '.[dev]'", pip_output(r, project, []), say='The environment was stale; reinstalling.')
    verbose = r.random() < 0.7
    out2, _ = pytest_output(r, s.files, _py_tests(s.files), [], root=f'/workspace/{project}', verbose=verbose)
    s.run('python -m pytest -v' if verbose else 'python -m pytest -q', out2, say='Full run.')
    _note_run(s, out2)
    _finish(s)
    c.facts = quoted_facts(c, [found[0][0], found[0][1], s.changed[0][0], *(f for _, f in s.changed)])[:6]
    if seed % 2:
        c.indent = None
    return c


CODING_SESSIONS = [
    (39, 'relay', 'anthropic', 'read', 'bash', True, False),
    (40, 'quill', 'openai', 'read_file', 'shell', True, True),
    (41, 'stockpile', 'anthropic', 'read_text_file', 'bash_execute', True, True),
    (42, 'relay', 'gemini', 'view_file', 'run_shell', False, False),
    (43, 'stockpile', 'openai', 'read_file', 'bash', True, False),
    (44, 'quill', 'anthropic', 'read', 'bash', True, True),
    (45, 'relay', 'mistral', 'read_file', 'terminal', False, False),
    (46, 'stockpile', 'openrouter', 'read', 'bash', True, False),
    (47, 'quill', 'gemini', 'read_file', 'bash_execute', True, True),
    (48, 'relay', 'anthropic', 'read', 'bash', True, False),
    (49, 'stockpile', 'openai', 'read_text_file', 'shell', False, True),
    (50, 'relay', 'anthropic', 'read_file', 'bash', True, False),
    # more sessions so that coding traffic weighs in golden/ as in the dev corpus (by count of returns and by tokens)
    (51, 'quill', 'anthropic', 'read', 'bash', True, False),
    (52, 'stockpile', 'anthropic', 'read_text_file', 'bash_execute', True, True),
    (53, 'relay', 'openai', 'read_file', 'shell', True, True),
    (54, 'quill', 'anthropic', 'read', 'bash_execute', True, True),
    (55, 'stockpile', 'gemini', 'read_file', 'bash', True, False),
    (56, 'relay', 'anthropic', 'read', 'bash', True, False),
    (57, 'quill', 'openai', 'read_text_file', 'bash', False, False),
    (58, 'stockpile', 'anthropic', 'read', 'bash_execute', True, True),
    (59, 'relay', 'anthropic', 'read_text_file', 'bash_execute', True, True),
    (60, 'quill', 'mistral', 'read_file', 'terminal', True, False),
    (61, 'stockpile', 'anthropic', 'read', 'bash', True, False),
    (62, 'relay', 'openrouter', 'read_file', 'bash', True, False),
    # and more, so that 01-31's largest return (file 20's 1 MB log) weighs less: it was 22% of golden/'s tokens over
    # 4,000 characters, where the dev corpus's largest return is 3.4% of its tokens
    (63, 'quill', 'anthropic', 'read', 'bash', True, False),
    (64, 'stockpile', 'openai', 'read_file', 'shell', True, True),
    (65, 'relay', 'anthropic', 'read_text_file', 'bash_execute', True, True),
    (66, 'quill', 'gemini', 'read_file', 'run_shell', True, False),
    (67, 'stockpile', 'anthropic', 'read', 'bash', True, False),
    (68, 'relay', 'openai', 'read_file', 'bash', False, False),
    (69, 'quill', 'anthropic', 'read_text_file', 'bash_execute', True, True),
    (70, 'stockpile', 'mistral', 'read_file', 'terminal', True, False),
    (71, 'relay', 'anthropic', 'read', 'bash', True, False),
    (72, 'quill', 'openrouter', 'read', 'bash', True, False),
    (73, 'stockpile', 'anthropic', 'read_text_file', 'bash_execute', True, True),
    (74, 'relay', 'gemini', 'read_file', 'bash', True, False),
    (75, 'quill', 'anthropic', 'read', 'bash', True, False),
]
for _number, _project, _provider, _reader, _shell, _numbered, _structured in CODING_SESSIONS:

    def _make(
        number=_number,
        project=_project,
        provider=_provider,
        reader=_reader,
        shell=_shell,
        numbered=_numbered,
        structured=_structured,
    ):
        return coding_session(
            number * 101,
            project,
            provider=provider,
            reader=reader,
            shell=shell,
            numbered=numbered,
            structured=structured,
            start=f'2025-11-{number - 30:02d}T09:30:00.000000'
            if number <= 50
            else f'2025-12-{number - 50:02d}T09:30:00.000000',
        )

    scenario(f'{_number}_coding_{_project}_session')(_make)


def repro_output(rng: random.Random, files: dict[str, str], vocab: PyVocab, path: str, line: int) -> str:
    """A reproduction script's output: debug prints of records, then a traceback through real lines of `files`."""
    classes = sorted(
        {m.group(1) for src in files.values() for m in re.finditer(r'^class (\w+)\(?', src, re.MULTILINE)}
    ) or ['Record']
    out = []
    # debug prints of one or two record types, each with its own fields, as a script printing a batch shows them
    schemas = {cls: rng.sample(vocab.attrs, 3) for cls in rng.sample(classes, min(len(classes), rng.randint(1, 2)))}
    for i in range(rng.randint(45, 90)):
        cls = rng.choice(sorted(schemas))
        attrs = schemas[cls]
        values = [
            repr(
                rng.choice(
                    [
                        f'{a[:3]}_{rng.randint(1000, 99999)}',
                        rng.randint(0, 5000),
                        None,
                        f'2025-11-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00Z',
                    ]
                )
            )
            for a in attrs
        ]
        out.append(f'[{i:03d}] {cls}(' + ', '.join(f'{a}={v}' for a, v in zip(attrs, values)) + ')')
    lines = files[path].splitlines()
    func = _def_before(lines, line - 1)
    other = rng.choice([p for p in files if p.endswith('.py')])
    other_lines = files[other].splitlines()
    j = rng.choice([k for k, l in enumerate(other_lines) if l.startswith('    ') and identifiers(l)])
    name, message = rng.choice(ERRORS)
    message = message.format(
        a=rng.choice(identifiers(lines[line - 1]) or [func]).split('.')[-1],
        n=rng.randint(100, 999),
        m=rng.randint(100, 999),
    )
    out += [
        'Traceback (most recent call last):',
        '  File "/workspace/repro.py", line 41, in <module>',
        '    main()',
        '  File "/workspace/repro.py", line 33, in main',
        f'    result = {_def_before(other_lines, j)}(batch)',
        f'  File "/workspace/{other}", line {j + 1}, in {_def_before(other_lines, j)}',
        f'    {other_lines[j].strip()}',
        f'  File "/workspace/{path}", line {line}, in {func}',
        f'    {lines[line - 1].strip()}',
        f'{name}: {message}',
    ]
    return '\n'.join(out)


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
    '32_coding_webhook_retry_fix': 'coding agent, Python: find, numbered reads, grep -rn, pytest -v failures answered by file:line reads and edits (old_str from mid-file), mypy, git diff repeated in the final answer',
    '33_coding_ts_invoice_types': 'coding agent, TypeScript/React: tsc errors, plain cat reads via a shell tool returning {stdout, stderr, exit_code}, edits, vitest failures, git diff repeated in the final answer',
    '34_coding_site_generator_refactor': 'coding agent, Python: pip install, unittest errors, grep -rn, numbered and plain reads, new functions added, Markdown docs read and edited, pytest -v, diff hunk in the final answer',
    '35_coding_pr_review_mcp': 'PR review through GitHub MCP tools: pull request, files with patches and comments as JSON text, git diff, numbered reads, pytest -v, review comments naming path and line',
    '36_coding_inventory_debug': 'coding agent, Python: pytest -v failures, grep -rn, five numbered reads, fixes at the failing lines, new helper, mypy --strict, git diff repeated in the final answer',
    '37_coding_docs_update': 'coding agent keeping docs in sync: find, three Markdown docs and three modules read, table rows and code edited, git diff repeated in the final answer',
    '38_coding_relay_feature': 'coding agent, feature work: design doc, numbered reads (whole and sed -n halves), new functions, pytest -v failure and fix, git log, git diff repeated in the final answer',
}
for _number, _project, _provider, _reader, _shell, _numbered, _structured in CODING_SESSIONS:
    DESCRIPTIONS[f'{_number}_coding_{_project}_session'] = (
        f'coding agent on {_project} ({_provider}; `{_reader}` {"numbered" if _numbered else "plain"} reads, `{_shell}`'
        f'{" returning {stdout, stderr, exit_code}" if _structured else ""}): plan drawn from its seed (last commit, issue thread as JSON text, '
        'find, test run, repro, grep, reads, fixes, new functions, mypy, pip, git diff, often repeated in the final answer)'
    )


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


def main(arguments: list[str]) -> int:
    """Write every history, or with `--from N` only those numbered N or more (facts.json and README.md cover all).

    `--from 32` leaves 01-31 as they are: the pydantic-ai serializer of the day adds fields to the current-format
    files (2.68: `context_id`, `model_id`, `canonical_system`), and those files' bytes are what tests depend on.
    """
    start = int(arguments[arguments.index('--from') + 1]) if '--from' in arguments else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob('*.json'):
        if int(old.name[:2]) >= start:
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
        if data[0]['kind'] != 'request':
            problems.append(f'{name}: the history does not start with a request')
        if int(name[:2]) >= start:
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
        'python golden/make_histories.py --from 32   # rewrites golden/histories/32-*.json, golden/facts.json and this README',
        'summarizer eval golden/histories --update-golden   # golden/expected/',
        '```',
        '',
        'Deterministic (fixed seeds and timestamps, no network). Output depends on the installed pydantic-ai serializer for the',
        'current-format files: without `--from` every file is rewritten, and pydantic-ai 2.68 adds fields 01-31 were written',
        'without (`context_id`, `model_id`, `canonical_system`; 32-75 have them), so regenerate those only after upgrading',
        'pydantic-ai on purpose, and review the diff.',
        '',
        'Round trips: `validate_json` then `dump_json` reproduces the current-format files byte for byte, except 10 and 11, which',
        'store `retry-prompt` parts (as histories saved by earlier pydantic-ai versions do); pydantic-ai 2.62 loads those as',
        '`ToolReturnPart(outcome="retried")`. File 31 holds that newer form directly. Files 01-04 (older schema) never round-trip',
        'through the adapter, so they exercise the byte-exact rewrite path.',
        '',
        '## Coding-agent sessions (32-75)',
        '',
        'Files 01-31 test formats and edge cases, and are mostly JSON records, search results and logs whose later turns quote',
        'a few hand-picked salient facts in the very next turn. Real agent traffic (the dev corpus, `../shared/dev-corpus`) is',
        "mostly a coding agent's: file reads, test and shell output, diffs, grep/find listings, Markdown. Files 32-75 are such",
        'sessions over four small code bases written for this corpus (`relay`, `quill`, `stockpile` in Python, `ledger-web` in',
        'TypeScript; nothing is copied from recorded traffic; most Python functions are methods of a class, as most of the',
        "dev corpus's are, so a diff's hunk headers mostly name a class), and their later turns reuse facts the way real",
        'agents do:',
        '',
        "- reads come back numbered as agents' read tools number them (`     12→`; `cat -n`'s tab through a shell), and",
        '  after a read the next turn names identifiers from lines drawn at random over the whole return (citing a line',
        '  number in about a quarter of its notes; failures and type errors are named by file, not `file:line`), reads on',
        '  from one of its line numbers (`offset`) or imports one of its names in a command, and sometimes greps for one;',
        "- an edit's `old_str` is a run of 4 to 40 lines from the middle of the current file (6 at the median, as the dev",
        "  corpus's edits); it makes a few of them read or call another name of the file of the same kind, or change a",
        '  number or a comparison; the failing line of a test run is read (`offset`/`limit`) and fixed, and the fixed test',
        '  is often rerun alone by its node id;',
        '- most failing runs use `--tb=short`; grep listings are absolute `path:line:text` lines (with `-C` context in a',
        "  quarter of them) whose matched names the next turn repeats; the drawn sessions' `find` listings list the folders",
        '  around the code (fixtures, docs, scripts), which the session does not open (32 and 37 list the code base);',
        '- the `git diff` at the end is usually repeated whole by a later turn (for review, or in the final answer after a',
        '  last check or two), and shown again after a last tweak in half the sessions, as most diffs in the dev corpus are;',
        '  a bug breaks tests mostly of one module, nine further changes in ten go to a file already changed (six in ten',
        '  next to an earlier change), and a regression test that calls the fixed function as its signature says is added',
        "  before the diff, mostly to the module's test file; hunk headers carry git's function context",
        '  (`@@ -120,7 +120,8 @@ def name(...)`);',
        '- some sessions take JSON text from GitHub MCP tools (pull request files with patches, issue comments) and shell',
        '  results as `{stdout, stderr, exit_code}` objects.',
        '',
        '32-38 follow a scripted plan each; 39-75 are drawn by `coding_session` from their seed (which steps, which tools, numbered',
        'or plain reads; 51-75 were added so that coding traffic weighs in golden/ about as in the dev corpus: with 63-75, file',
        "20's 1 MB log is 19% of golden/'s tokens over 4,000 characters, not 22%). Among all returns over 4,000 characters the",
        "kind mix is close to the dev corpus's: code 41% (dev corpus 40%), shell 14% (20%), prose 12% (8%), diffs 14% (10%),",
        'listings 9% (7%), records 7% (12%); figures per kind in docs/eval.md. A helper an edit adds to a module is written',
        "with that module's names, those of the function above it first, and mostly replaces the last lines of that",
        'function, which then calls it (`HELPER_EXTRACT_SHARE`). A third of the statements of function bodies have a comment line in plain words',
        'above them (`COMMENT_SHARE`), and some fixes say why in a comment or a longer message, so that code and diffs hold',
        "about as many facts per token as the dev corpus's (round 5 in docs/eval.md). Most docstrings span lines (a summary,",
        'then prose, then the closing quotes on a line of their own) and a function has one less often than the templates',
        'give it (`TEMPLATE_DOC_SHARE`, `ONE_LINE_DOC_SHARE`, `DOCSTRING_SHARE`), and log and error messages are short, as',
        "in the dev corpus's code (round 7: one-line docstrings and quoted strings of 40+ characters per token).",
        '`facts.json` lists for',
        'them a few of the facts later turns quote; the eval scores every fact a later turn holds, not only these.',
        '',
        "How much later turns reuse, and which facts, is calibrated to the dev corpus's statistics, never to what a summarizer",
        'keeps: `golden/reuse_stats.py` prints them per content kind: facts reused per return, where in the return they first',
        'occur and how often, how many messages later and whether in tool-call arguments, failure lines of shell output, diffs',
        'repeated; then, per kind, the sizes (tokens, lines, line length, facts per 1,000 tokens, numbered-read format) and, of',
        'the reused facts, the role of their line (a line number of a numbered read, a defined name, an import, a body line;',
        "a diff's header, hunk header, added, removed or context line; a listing's path, line number or matched text), their",
        "kind (identifier, number, dotted name, path ...), and the argument or text the first later use is in (an edit's",
        "`old_str`, a read's `offset`, a command, assistant text). Run it on both corpora after a change to the generator.",
        '`tests/test_golden_generator.py` checks that the committed sessions are what the generator writes, that no edit',
        'leaves a module that parsed unable to parse, and that every regression test a session writes checks something. The',
        'knobs are the constants next to `OPENERS` (each says which dev-corpus figure it follows) and `MODULE_NOUNS`,',
        '`MODULE_ATTRS`, `MODULE_LOCALS`. Still off (see docs/eval.md): later turns reuse more facts of a code return (31',
        'against 24, more of them in tool-call arguments, about as many per token: 10 per 1,000 at the median), a file',
        'read holds twice as many def lines and longer ones (14% of its characters against 6%: short annotated functions),',
        'a diff is denser in facts (83 per 1,000 tokens against 73 at the median, lines 38 characters against 43: an added',
        'line brings more facts the diff has not shown yet, and a diff changes more files, in smaller hunks) so a diff',
        'repeated whole puts more reused facts in each 1,000 tokens (60 against 41 at the median), an edit removes fewer lines,',
        "shell facts come more from `path:line` lines, and a listing's reused facts are more often paths (a grep",
        'matches a few modules the session reads); any change to the generator redraws the sessions, which',
        'moves these figures by a few points.',
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
    sys.exit(main(sys.argv[1:]))
