"""Match Natural Earth admin-1 units to ISO 3166-2 codes (Debian iso-codes' iso_3166-2.json).

Used by build_data.py. A unit gets the ISO code whose name matches one of its names (NE's
`name`, then its GeoNames name `gn_name`; not `woe_name`, which often names the parent
region) within the same country, after folding case,
diacritics and generic words ("Province", "Oblast", "Län" …); failing that, the only ISO
name that starts with the unit's name (or the reverse). Where several codes match, the
top-level one wins (ISO lists e.g. Lithuanian counties and municipalities under one name);
a code that several units claim goes to the surest match alone (to all of them, merged,
where they share their name: NE splits a few units in parts); the others, and
still ambiguous or unmatched units, keep their synthetic code unless the checked-in
exceptions table (scripts/data/iso3166_2_exceptions.csv) names one.
"""
import collections
import csv
import json
import unicodedata

# Generic words that one source writes and the other leaves out.
GENERIC = {
    'PROVINCE', 'PROVINCIA', 'REGION', 'STATE', 'ESTADO', 'OF', 'THE', 'DE', 'DEL', 'LA', 'LE', 'DU', 'DES',
    'AND', 'Y', 'ET', 'DEPARTMENT', 'DEPARTEMENT', 'DEPARTAMENTO', 'COUNTY', 'OBLAST', 'OBLYSY', 'GOVERNORATE',
    'GOUVERNORAT', 'MOHAFAZAT', 'MUHAFAZAT', 'PREFECTURE', 'PREFEKTURA', 'KEN', 'DISTRICT', 'DIVISION',
    'MUNICIPALITY', 'MUNICIPIO', 'COMMUNE', 'KOMMUNE', 'KOMMUNIA', 'OPSTINA', 'NOVADS', 'APSKRITIS', 'MAAKUNTA',
    'ZUPANIJA', 'AUTONOMOUS', 'AVTONOMNYY', 'OKRUG', 'KRAI', 'KRAY', 'REPUBLIC', 'REPUBLIKA', 'RESPUBLIKA',
    'CITY', 'CAPITAL', 'TERRITORY', 'VOIVODESHIP', 'WOJEWODZTWO', 'AIMAG', 'REGIAO', 'ILI', 'EMIRATE', 'PARISH',
    'ISLAND', 'ISLANDS', 'LAN', 'LAEN', 'FYLKE', 'KHETT', 'ATHOLHU', 'SHENG', 'ZIZHIQU', 'RAYONU', 'SAHARI',
    'VILOYATI', 'WILAYA', 'WILAYAH', 'ZONE', 'AREA',
}
LETTERS = str.maketrans({'İ': 'I', 'ı': 'i', 'ß': 'ss', 'ø': 'o', 'Ø': 'O', 'đ': 'd', 'Đ': 'D', 'ł': 'l',
                         'Ł': 'L', 'æ': 'ae', 'Æ': 'AE', 'ə': 'e', 'Ə': 'E', "'": '', '’': '', '`': ''})


def words(text):
    text = unicodedata.normalize('NFKD', text.translate(LETTERS).upper())
    text = ''.join(c if c.isalnum() else ' ' for c in text if not unicodedata.combining(c))
    return text.split()


def exact_key(text):
    return ''.join(words(text))


def loose_key(text):
    return ''.join(w for w in words(text) if w not in GENERIC)


class Matcher:
    def __init__(self, iso_json, exceptions_csv):
        entries = json.load(open(iso_json, encoding='utf-8'))['3166-2']
        self.entries = {e['code']: e for e in entries}
        self.by_country = collections.defaultdict(list)
        for e in entries:
            self.by_country[e['code'][:2]].append(e)
        self.exceptions = {}
        with open(exceptions_csv, encoding='utf-8') as f:
            for row in csv.DictReader(line for line in f if not line.startswith('#')):
                self.exceptions[(row['country'], row['ne_name'])] = row['iso_code']
        self.used_exceptions = set()
        self.indexes = {}

    def index(self, country, key):
        if (country, key) not in self.indexes:
            idx = collections.defaultdict(set)
            for e in self.by_country.get(country, []):
                for n in [e['name'], e.get('official_name', '')] + e['name'].split(','):
                    if n.strip():
                        idx[key(n)].add(e['code'])
            self.indexes[(country, key)] = idx
        return self.indexes[(country, key)]

    def pick(self, hits):
        top = {h for h in hits if 'parent' not in self.entries[h]}
        if len(hits) > 1 and len(top) == 1:
            hits = top
        return next(iter(hits)) if len(hits) == 1 else None

    def match(self, country, names):
        """The ISO 3166-2 code for a unit of `country` called `names` (best first), or None.
        Returns (code, how, rank): how is exception / name / prefix; a lower rank is a surer match
        (0 exception, 1-2 the unit's own name, 3-4 its other names, 5 prefix)."""
        primary = names[0] if names else ''
        if (country, primary) in self.exceptions:
            self.used_exceptions.add((country, primary))
            code = self.exceptions[(country, primary)]
            return (code or None), 'exception', 0
        for i, name in enumerate(names):
            for j, key in enumerate((exact_key, loose_key)):
                hits = self.index(country, key).get(key(name), set())
                if hits:
                    code = self.pick(hits)
                    if code:
                        return code, 'name', min(i, 1) * 2 + j + 1
        for name in names:
            k = loose_key(name)
            if len(k) < 4:
                continue
            hits = {c for kk, cs in self.index(country, loose_key).items() if len(kk) >= 4
                    and (kk.startswith(k) or k.startswith(kk)) for c in cs}
            if len(hits) == 1:
                return hits.pop(), 'prefix', 5
        return None, None, 9

    def unused_exceptions(self):
        return sorted(set(self.exceptions) - self.used_exceptions)
