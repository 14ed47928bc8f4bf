"""Build data/localities.tsv: GeoNames populated places (cities500) tied to Roqua's own units.

Used by build_data.py. Each place keeps GeoNames' name, position and population, and gets
  country  - GeoNames' country code, except that a place inside one of Roqua's user-coded
             countries (Northern Cyprus XN, …) takes that code, and a GeoNames country Roqua
             does not have (French Guiana GF, …) takes the Roqua country most of its places lie
             in (FR);
  province - the Roqua province at least 80 % of the places of its GeoNames admin-1 unit lie in
             (a vote, so a generalised border that cuts a town off its province does not move
             it), or else the province its own point lies in (GeoNames' unit is wider than
             Roqua's: France's regions against Natural Earth's départements, or it has none);
             empty when that province belongs to another country;
  district - the Roqua district its point lies in (Türkiye only: the other countries have no
             district layer), empty elsewhere or when that district is of another province.
The resolver uses both to keep a locality inside the country and province it has decided.
"""
import collections
import json

import numpy as np
import shapely

# A GeoNames admin-1 unit stands for one Roqua province when this share of its places lie in
# it; below that (France: GeoNames has regions, Natural Earth départements) each place keeps the
# province its own point lies in.
VOTE_SHARE = 0.8
COLUMNS = ('geonameid', 'name', 'latitude', 'longitude', 'population', 'country', 'province', 'district')


def containing(points, rows):
    """For each point, the index of the first row whose geometry covers it, or -1."""
    tree = shapely.STRtree([g for _, g in rows])
    pairs = tree.query(points, predicate='within')
    found = np.full(len(points), -1)
    for p, g in zip(pairs[0], pairs[1]):
        if found[p] == -1 or g < found[p]:
            found[p] = g
    return found


def vote(keys, values, share=0.0):
    """The most common non-empty value per key (ties: the smaller value), for the keys where it
    has at least `share` of the votes."""
    counts = collections.defaultdict(collections.Counter)
    for k, v in zip(keys, values):
        if v:
            counts[k][v] += 1
    winners = {k: min(c, key=lambda v: (-c[v], v)) for k, c in counts.items()}
    return {k: v for k, v in winners.items() if counts[k][v] >= share * sum(counts[k].values())}


def build(cities_path, country_rows, province_rows, district_rows, user_codes, out_path):
    places = sorted(json.load(open(cities_path, encoding='utf-8')).values(), key=lambda p: p['geonameid'])
    points = shapely.points([(p['longitude'], p['latitude']) for p in places])
    in_country = containing(points, country_rows)
    in_province = containing(points, province_rows)
    codes = {rec['CODE'] for rec, _ in country_rows}
    point_country = [country_rows[i][0]['CODE'] if i >= 0 else '' for i in in_country]
    foreign = vote([p['countrycode'] for p in places], point_country)
    countries = []
    for p, here in zip(places, point_country):
        cc = p['countrycode']
        if here in user_codes:
            countries.append(here)  # Roqua's user-coded countries: GeoNames files them elsewhere
        elif cc in codes:
            countries.append(cc)
        else:
            countries.append(foreign.get(cc, ''))
    in_district = containing(points, district_rows)
    point_district = [district_rows[i][0] if i >= 0 else None for i in in_district]
    point_province = [province_rows[i][0]['CODE'] if i >= 0 else '' for i in in_province]
    province_country = {rec['CODE']: rec['COUNTRY'] for rec, _ in province_rows}
    admin1 = [(p['countrycode'], p['admin1code']) for p in places]
    by_admin1 = vote(admin1, point_province, share=VOTE_SHARE)
    written = collections.Counter()
    with open(out_path, 'w', encoding='utf-8', newline='\n') as f:
        f.write('\t'.join(COLUMNS) + '\n')
        for p, country, key, own, district in zip(places, countries, admin1, point_province, point_district):
            if not country:
                written['dropped'] += 1
                continue
            province = own if key[1] in ('', '00') else by_admin1.get(key, own)
            if province_country.get(province) != country:
                province = ''
            district = district['CODE'] if district and province and district['PROVINCE'] == province else ''
            name = ' '.join(p['name'].split())
            f.write(f"{p['geonameid']}\t{name}\t{p['latitude']}\t{p['longitude']}\t{int(p['population'] or 0)}"
                    f"\t{country}\t{province}\t{district}\n")
            written['places'] += 1
            written['with_province'] += bool(province)
    return written
