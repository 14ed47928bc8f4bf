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
             district layer), empty elsewhere or when that district is of another province;
  part_of  - outside Türkiye, the geonameid of the city the place is part of (see PART_RATIO):
             the resolver names the city, not its borough.
The resolver uses both to keep a locality inside the country and province it has decided.
"""
import collections
import json
import math

import numpy as np
import shapely

# A GeoNames admin-1 unit stands for one Roqua province when this share of its places lie in
# it; below that (France: GeoNames has regions, Natural Earth départements) each place keeps the
# province its own point lies in.
VOTE_SHARE = 0.8
COLUMNS = ('geonameid', 'name', 'latitude', 'longitude', 'population', 'country', 'province', 'district', 'part_of')
# A place is part of a city (GeoNames lists Berlin's boroughs, Mitte and Charlottenburg, as places
# of their own) when it lies within half the city's reach, in its country and province, and the
# city has at least PART_RATIO times its people. Only cities of PARENT_MIN people are looked at.
PART_RATIO = 5
PARENT_MIN = 100_000
EARTH_RADIUS = 6_371_008.8


def reach(population):
    """The same reach as the resolver's LocalityIndex.reach, metres."""
    return min(30_000.0, max(2_000.0, 15.0 * math.sqrt(max(population, 0))))


def parts_of_cities(places, countries, provinces):
    """For each place, the geonameid of the city it is part of, or 0."""
    parents = [i for i, p in enumerate(places) if (p['population'] or 0) >= PARENT_MIN and countries[i] != 'TR']
    tree = shapely.STRtree(shapely.points([(places[i]['longitude'], places[i]['latitude']) for i in parents]))
    points = shapely.points([(p['longitude'], p['latitude']) for p in places])
    pairs = tree.query(points, predicate='dwithin', distance=0.4)  # degrees: 15 km east-west up to 70°; haversine decides
    best = {}
    for child, k in zip(pairs[0], pairs[1]):
        parent = parents[k]
        c, q = places[child], places[parent]
        if child == parent or countries[child] != countries[parent] or provinces[child] != provinces[parent]:
            continue
        if (q['population'] or 0) < PART_RATIO * (c['population'] or 0):
            continue
        φ1, φ2 = math.radians(c['latitude']), math.radians(q['latitude'])
        h = math.sin((φ2 - φ1) / 2) ** 2 + math.cos(φ1) * math.cos(φ2) * math.sin(math.radians(q['longitude'] - c['longitude']) / 2) ** 2
        meters = 2 * EARTH_RADIUS * math.asin(min(1, math.sqrt(h)))
        if meters > reach(q['population']) / 2:
            continue
        if child not in best or q['population'] > places[best[child]]['population']:
            best[child] = parent
    return [places[best[i]]['geonameid'] if i in best else 0 for i in range(len(places))]


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
    provinces = []
    for country, key, own in zip(countries, admin1, point_province):
        province = own if key[1] in ('', '00') else by_admin1.get(key, own)
        provinces.append(province if province_country.get(province) == country else '')
    part_of = parts_of_cities(places, countries, provinces)
    written = collections.Counter()
    with open(out_path, 'w', encoding='utf-8', newline='\n') as f:
        f.write('\t'.join(COLUMNS) + '\n')
        for p, country, province, district, part in zip(places, countries, provinces, point_district, part_of):
            if not country:
                written['dropped'] += 1
                continue
            district = district['CODE'] if district and province and district['PROVINCE'] == province else ''
            name = ' '.join(p['name'].split())
            f.write(f"{p['geonameid']}\t{name}\t{p['latitude']}\t{p['longitude']}\t{int(p['population'] or 0)}"
                    f"\t{country}\t{province}\t{district}\t{part or ''}\n")
            written['places'] += 1
            written['with_province'] += bool(province)
            written['parts'] += bool(part)
    return written
