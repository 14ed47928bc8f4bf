"""geopy's Nominatim geocoder against `roqua serve` on 127.0.0.1: a real client no one here wrote.

Usage: geopy_check.py PORT. Prints one line per check and 'N passed, N failed'; exits non-zero on
any failure.
"""
import sys
import warnings

from geopy.exc import GeocoderQueryError
from geopy.geocoders import Nominatim

port = int(sys.argv[1])
geolocator = Nominatim(domain=f"127.0.0.1:{port}", scheme="http", user_agent="roqua-geopy-test", timeout=10)
results = []


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f" — {detail}"))


kadikoy = geolocator.reverse((40.9879, 29.0281), language="tr")
check("Kadıköy: a Location", kadikoy is not None)
if kadikoy is not None:
    address = kadikoy.raw.get("address", {})
    check("Kadıköy: address as Nominatim names it in Türkiye",
          address == {"town": "Kadıköy", "province": "İstanbul", "ISO3166-2-lvl4": "TR-34",
                      "country": "Türkiye", "country_code": "tr"}, address)
    check("Kadıköy: display name", kadikoy.address == "Kadıköy, İstanbul, Türkiye", kadikoy.address)
    check("Kadıköy: a point inside the district", abs(kadikoy.latitude - 40.98) < 0.1 and abs(kadikoy.longitude - 29.06) < 0.15,
          (kadikoy.latitude, kadikoy.longitude))

# Where GeoNames has a place the district does not name, geopy sees it as Nominatim would put it:
# a neighbourhood of Çankaya as a village, Cape Town (no districts in South Africa) as a city.
anitkabir = geolocator.reverse((39.9251, 32.8369), language="tr")
check("Anıtkabir: the locality in the address, the district as the town",
      anitkabir is not None and anitkabir.raw["address"].get("village") == "Mebusevleri"
      and anitkabir.raw["address"].get("town") == "Çankaya", anitkabir and anitkabir.raw)
check("Anıtkabir: display name from the locality up", anitkabir is not None
      and anitkabir.address == "Mebusevleri, Çankaya, Ankara, Türkiye", anitkabir and anitkabir.address)
cape = geolocator.reverse((-33.9249, 18.4241), language="en")
check("Cape Town: a city in a country without districts", cape is not None and cape.raw["address"].get("city") == "Cape Town"
      and cape.raw["address"].get("state") == "Western Cape", cape and cape.raw)
# A locality of a unit without districts (Zehlendorf in Berlin) leads the display name; a name is
# said once: Esenyurt the city is the district Esenyurt (the town), Berlin the city is the state.
zehlendorf = geolocator.reverse((52.4300, 13.2300), language="en")
check("Zehlendorf: the locality in the address (city/town/village), Berlin the state",
      zehlendorf is not None and "Zehlendorf" in [zehlendorf.raw["address"].get(k) for k in ("city", "town", "village")]
      and zehlendorf.raw["address"].get("state") == "Berlin" and zehlendorf.address == "Zehlendorf, Berlin, Germany",
      zehlendorf and zehlendorf.raw)
esenyurt = geolocator.reverse((41.0224, 28.6757), language="tr")
check("Esenyurt: the town named once", esenyurt is not None and esenyurt.raw["address"].get("town") == "Esenyurt"
      and esenyurt.address == "Esenyurt, İstanbul, Türkiye", esenyurt and esenyurt.raw)
berlin_city = geolocator.reverse((52.5200, 13.4050), language="en")
check("Berlin: the city Berlin in the address, said once in the display name", berlin_city is not None
      and berlin_city.raw["address"].get("city") == "Berlin" and berlin_city.address == "Berlin, Germany", berlin_city and berlin_city.raw)
places = (kadikoy, anitkabir, cape, zehlendorf, esenyurt, berlin_city)
check("every answer carries a boundingbox around its point (geopy, Ruby's geocoder read it)",
      all(place is not None and len(place.raw.get("boundingbox", [])) == 4 for place in places)
      and all(float(p.raw["boundingbox"][0]) <= float(p.raw["lat"]) <= float(p.raw["boundingbox"][1]) for p in places if p))

english = geolocator.reverse("40.9879, 29.0281", language="en", zoom=5)
check("Kadıköy at zoom 5 in English: the province only",
      english is not None and english.address == "Istanbul, Türkiye" and "town" not in english.raw["address"],
      english and english.raw)

berlin = geolocator.reverse((52.5200, 13.4050), language="en")
check("Berlin: a German state", berlin is not None and berlin.raw["address"].get("state") == "Berlin"
      and berlin.raw["address"].get("country_code") == "de", berlin and berlin.raw)

bare = geolocator.reverse((52.5200, 13.4050), addressdetails=False)
check("addressdetails=False leaves the address out", bare is not None and "address" not in bare.raw, bare and bare.raw)

sea = geolocator.reverse((0.0, -30.0))
check("open sea: None (Nominatim's 'Unable to geocode')", sea is None, sea)

try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # geopy warns about normalisation before it refuses
        geolocator.reverse((91.0, 0.0))
    check("latitude 91: refused by geopy itself", False, "no error")
except ValueError as error:
    check("latitude 91: refused by geopy itself", True)

# geopy checks coordinates before sending, so the server's answer to an invalid one is asked
# through geopy's own request path: a 400 must become geopy's GeocoderQueryError.
try:
    geolocator._call_geocoder(f"http://127.0.0.1:{port}/reverse?lat=91&lon=0&format=json", lambda page: page)
    check("latitude 91 sent anyway: GeocoderQueryError", False, "no error")
except GeocoderQueryError as error:
    # geopy's message is the HTTP status line; the answer's body stays on the adapter's error.
    body = getattr(error.__cause__, "text", "") or ""
    check("latitude 91 sent anyway: GeocoderQueryError carrying Nominatim's error",
          "400" in str(error) and '"message":"Invalid coordinates."' in body, (error, body))

passed = sum(results)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if passed == len(results) else 1)
