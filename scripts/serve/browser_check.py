"""The exploration page in a real browser (Debian's chromium + chromedriver via python3-selenium).

Usage: browser_check.py PORT GPX SCREENSHOT_DIR. Opens the page on an empty store, uploads the GPX
through the file input, waits for "8/39" for İstanbul and the district layer with 39 shapes,
imports a second file (Ankara, then Berlin) by drag-and-drop, checks the travel panel (tiles, days per country, the
per-year chart, the tile layer), the day view (commute.csv beside the GPX, one day's stays and moves), adds a phone in the panel (QR codes drawn), posts as
that phone's OwnTracks and waits for the page to show the new province unprompted, revokes the
phone with its button, checks there were no console errors and that every
resource came from the page's own origin, measures the first load (median of 3), takes
screenshots (desktop and phone-sized), all with a Turkish browser; then a browser speaking English
sees the page in English (no Turkish words of the page's own, country and continent names in
English, numbers in English format), switches it (every panel redrawn in Turkish) and keeps the choice. Then attacks it from another site through the same
browser: a page on evil.example (mapped to 127.0.0.1 by the browser's resolver, as a DNS
rebinding page would be) posts a track and submits a wiping restore form, tries to read the
export, and the browser opens the server under that name. Prints 'N passed, N failed'.
"""
import http.server
import json
import re
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

port, gpx, shots = int(sys.argv[1]), sys.argv[2], sys.argv[3]
origin = f"http://127.0.0.1:{port}"
results = []


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f" — {detail}"), flush=True)


def wait_for(driver, script, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    return None


EVIL_PAGE = """<!doctype html><html><body>
<form id="wipe" method="post" action="ORIGIN/api/restore?replace=1" enctype="text/plain" target="sink">
<input name='{"regions":' value='[],"x":1}'></form><iframe name="sink"></iframe>
<script>
(async () => {
  const results = {};
  try {
    await fetch('ORIGIN/api/tracks?name=evil.csv', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},
                body: 'lat,lon,time\\n48.8566,2.3522,2024-05-01T07:00:00Z\\n48.8570,2.3530,2024-05-01T07:05:00Z\\n'});
    results.post = 'sent';
  } catch (e) { results.post = 'error ' + e; }
  try { results.read = (await (await fetch('ORIGIN/api/export?format=json')).text()).slice(0, 100); }
  catch (e) { results.read = 'blocked'; }
  document.getElementById('wipe').submit();
  setTimeout(() => { document.body.dataset.done = JSON.stringify(results); }, 1500);
})();
</script></body></html>"""


def regions():
    with urllib.request.urlopen(origin + "/api/regions", timeout=10) as reply:
        return len(json.load(reply)["features"])


FOG_CLEAR = """const c = document.querySelector('canvas.fog'); if (!c || !c.width) return -1;
  const copy = document.createElement('canvas'); copy.width = c.width; copy.height = c.height;
  const context = copy.getContext('2d', { willReadFrequently: true }); context.drawImage(c, 0, 0);
  const d = context.getImageData(0, 0, c.width, c.height).data; let n = 0;
  for (let i = 3; i < d.length; i += 4) if (d[i] < 120) n++;  // the fog's alpha is 140
  return n;"""


def attack(driver):
    """Another site in the same browser: its writes are refused, its reads blocked, the store unchanged."""
    page = EVIL_PAGE.replace("ORIGIN", origin).encode()

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        before = regions()
        driver.get(f"http://evil.example:{evil.server_address[1]}/")
        done = wait_for(driver, "return document.body.dataset.done", timeout=30)
        results = json.loads(done or "{}")
        time.sleep(1)
        check("another site: its POST was sent (no-cors) and changed nothing", results.get("post") == "sent" and regions() == before,
              (results, before, regions()))
        check("another site: a text/plain restore form changed nothing", regions() == before, regions())
        check("another site: cannot read the export", results.get("read") == "blocked", results)
        driver.get(f"http://evil.example:{port}/api/export?format=json")
        body = driver.find_element(By.TAG_NAME, "body").text
        check("DNS rebinding: the server under another name answers 421 and nothing else",
              '"code":"misdirected_request"' in body.replace(" ", "") and "visit_count" not in body and "Kadıköy" not in body, body[:200])
    finally:
        evil.shutdown()


def travel(driver):
    """The travel panel after the imports: explorer tiles counted, days per country in a table and
    a per-year chart, the tile layer drawn on the map when asked for."""
    tiles = driver.find_element(By.ID, "travel-tiles").text
    check("travel panel: explorer tiles counted", "keşif karesi" in tiles and not tiles.startswith("0 "), tiles)
    rows = driver.execute_script("return [...document.querySelectorAll('#days-table tbody tr')].map(r => r.textContent)")
    check("travel panel: days per country for the year (Türkiye, Almanya)",
          any(row.startswith("Türkiye") for row in rows) and any(row.startswith("Almanya") for row in rows), rows)
    bars = driver.execute_script("return document.querySelectorAll('#days-chart svg rect').length")
    check("travel panel: the per-year bar chart drawn", bars >= 2, bars)
    driver.find_element(By.ID, "tiles-toggle").click()
    drawn = wait_for(driver, "return tileLayer.getLayers().length")
    check("the explorer tile layer drawn on the map", drawn and drawn >= 2, drawn)
    driver.execute_script("document.getElementById('travel').scrollIntoView()")
    time.sleep(1)  # the canvas draws on the next animation frames
    driver.save_screenshot(f"{shots}/serve-travel.png")
    driver.find_element(By.ID, "tiles-toggle").click()


def day_view(driver):
    """The day view: scripts/examples/commute.csv uploaded, 6 May 2024 picked in the date field: the
    night at home, the walks and the ferries, the office in Beyoğlu, in Turkish, and the stays on the map."""
    before = int(driver.execute_script("return document.body.dataset.imported || '0'"))
    driver.find_element(By.ID, "file").send_keys(gpx.rsplit("/", 1)[0] + "/commute.csv")
    wait_for(driver, f"return Number(document.body.dataset.imported) > {before}", timeout=60)
    driver.execute_script("const input = document.getElementById('day-date'); input.value = '2024-05-06';"
                          "input.dispatchEvent(new Event('change'));")
    count = wait_for(driver, "return document.querySelectorAll('#day-entries li').length == 9 && 9", timeout=30)
    text = driver.find_element(By.ID, "day-entries").text
    check("day view: 6 May 2024 has 9 entries (3 stays, 6 moves)", count == 9, text)
    # In the browser's zone (UTC here): the night began the evening before, 20:00 in İstanbul.
    check("day view: the night at home, from the evening before ('2024-05-05 17:00 ev · Kadıköy' in UTC)",
          text.startswith("2024-05-05 17:00–05:00 ev · Kadıköy"), text)
    check("day view: the ferry is 'vapur', the office 'iş · Beyoğlu'", "vapur 5,1 km" in text and "iş · Beyoğlu" in text, text)
    markers = driver.execute_script("return document.querySelectorAll('#map path[stroke=\"#f0b45b\"]').length")
    check("day view: the day's stays and their order drawn on the map", markers >= 4, markers)
    marked = wait_for(driver, "const days = [...document.querySelectorAll('#day-calendar button.recorded')].map(b => b.dataset.day);"
                              "return days.length ? days.join(' ') : null", timeout=20)
    marked = (marked or "").split()
    check("day view: the calendar marks the commute's days, 5–7 May (UTC), and not 4 May, a day without data",
          {"2024-05-05", "2024-05-06", "2024-05-07"} <= set(marked) and "2024-05-04" not in marked, marked)
    selected = driver.execute_script("return document.querySelector('#day-calendar button.selected')?.dataset.day")
    check("day view: the calendar shows the day picked", selected == "2024-05-06", selected)
    lines = wait_for(driver, "return [...document.querySelectorAll('.day-lines img')].filter(i => i.complete && "
                             "i.naturalWidth == 256 && i.src.includes('from=2024-05-06&to=2024-05-06')).length", timeout=20)
    check("day view: the day's lines drawn, as tiles of that day's fixes", bool(lines), lines)
    heat = wait_for(driver, "return [...document.querySelectorAll('.heat-layer img')].filter(i => i.complete && "
                            "i.naturalWidth == 256).length", timeout=20)
    check("the heat layer of the whole history is on by default, its tiles drawn", bool(heat), heat)
    driver.find_element(By.ID, "heat-toggle").click()
    hidden = wait_for(driver, "return document.querySelectorAll('.heat-layer img').length == 0", timeout=10)
    check("the heat toggle takes the layer off the map", hidden)
    driver.find_element(By.ID, "heat-toggle").click()
    driver.find_element(By.ID, "day-next").click()
    moved = wait_for(driver, "return document.getElementById('day-date').value == '2024-05-07' && "
                             "document.querySelector('#day-entries li') !== null", timeout=30)
    check("day view: the next-day button shows 7 May", moved, driver.find_element(By.ID, "day-date").get_attribute("value"))
    # Two days picked in a row while the first one's answer is slow: the second day stays shown
    # (the first answer, arriving last, used to draw its day over it). What the list shows is
    # noted 300 ms after the slow answer arrived, before anything else can ask the day again.
    entries = "[...document.querySelectorAll('#day-entries li')].map(li => li.textContent).join(' | ')"
    seventh = wait_for(driver, f"return {entries}", timeout=10)
    driver.execute_script(
        "const plain = window.fetch; window.fetch = (path, options) => String(path).includes('/api/timeline?date=2024-05-06') ?"
        " new Promise((done) => setTimeout(() => done(plain(path, options).then((response) => {"
        f"  setTimeout(() => {{ document.body.dataset.raced = {entries}; }}, 300); return response; }})), 1500))"
        " : plain(path, options);"
        "const input = document.getElementById('day-date'); input.value = '2024-05-06'; input.dispatchEvent(new Event('change'));"
        "setTimeout(() => { input.value = '2024-05-07'; input.dispatchEvent(new Event('change')); }, 100);"
        "setTimeout(() => { window.fetch = plain; }, 5000);")
    raced = wait_for(driver, "return document.body.dataset.raced", timeout=20) or ""
    check("day view: a slow answer for a day left behind does not replace the day picked after it",
          raced == seventh and driver.find_element(By.ID, "day-date").get_attribute("value") == "2024-05-07",
          f"7 May: {seventh[:60]}; after the race: {raced[:60]}")
    driver.execute_script("document.querySelector('#day-calendar button[data-day=\"2024-05-05\"]').click()")
    clicked = wait_for(driver, "return document.getElementById('day-date').value == '2024-05-05' && "
                               "document.querySelector('#day-calendar button.selected')?.dataset.day == '2024-05-05'", timeout=30)
    check("day view: a day of the calendar, clicked, is the day shown", clicked)
    driver.execute_script("document.getElementById('day').scrollIntoView()")
    driver.save_screenshot(f"{shots}/serve-day.png")


def phone(driver):
    """Adds a phone in the page's panel, posts as that phone's OwnTracks would, and watches the page
    show the new district within seconds (no reload); then revokes it with the page's button."""
    driver.find_element(By.ID, "device-name").send_keys("pixel")
    check("the phone's address defaults to the page's origin", driver.find_element(By.ID, "device-url").get_attribute("value") == origin)
    driver.find_element(By.CSS_SELECTOR, "#device-form button").click()
    drawn = wait_for(driver, "return [...document.querySelectorAll('#device-added img')].every(i => i.naturalWidth > 100) "
                             "&& document.querySelectorAll('#device-added img').length == 2", timeout=15)
    check("'add phone': the OwnTracks and Overland QR codes drawn", drawn)
    token = driver.find_element(By.CSS_SELECTOR, "#device-added .token").text
    check("'add phone': the token shown once", len(token) == 32, token)
    driver.execute_script("document.getElementById('phones').scrollIntoView()")
    driver.save_screenshot(f"{shots}/serve-phones.png")
    before = driver.find_element(By.ID, "progress-list").text
    fix = json.dumps({"_type": "location", "lat": 38.4192, "lon": 27.1287, "tst": int(time.time()) - 60, "acc": 10, "tid": "px"})
    request = urllib.request.Request(origin + "/api/ingest/owntracks", data=fix.encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=10) as reply:
        check("a live OwnTracks post with the shown token: 200 []", reply.status == 200 and reply.read() == b"[]")
    started = time.time()
    shown = wait_for(driver, "return document.getElementById('progress-list').textContent.includes('İzmir')", timeout=15)
    check(f"the page shows the live post's province without a reload ({time.time() - started:.1f} s)", shown and "İzmir" not in before,
          driver.find_element(By.ID, "progress-list").text)
    listed = wait_for(driver, "return document.querySelector('#device-list [data-device=\"pixel\"]').textContent.includes('1 konum')")
    check("the phone's line counts its position", listed, driver.find_element(By.ID, "device-list").text)
    driver.find_element(By.CSS_SELECTOR, "#device-list [data-device='pixel'] .revoke").click()
    driver.switch_to.alert.accept()
    revoked = wait_for(driver, "return document.querySelector('#device-list [data-device=\"pixel\"]').classList.contains('revoked')")
    try:
        urllib.request.urlopen(urllib.request.Request(origin + "/api/ingest/owntracks", data=fix.encode(), method="POST",
                                                      headers={"Authorization": "Bearer " + token}), timeout=10)
        status = 200
    except urllib.error.HTTPError as error:
        status = error.code
    check("revoked with the page's button: the token is refused (401)", revoked and status == 401, (revoked, status))


def browser(language):
    """A headless Chromium whose user speaks `language` (a BCP 47 tag: its UI, navigator.languages
    and Accept-Language)."""
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,860",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                     "--disable-default-apps", "--disable-extensions", f"--lang={language}",
                     # evil.example is this machine, as a rebinding attacker's name would be (no DNS is asked).
                     "--host-resolver-rules=MAP evil.example 127.0.0.1"]:
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"intl.accept_languages": f"{language},{language.split('-')[0]}"})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    made = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    made.set_page_load_timeout(30)
    return made


# The page's own words in each language (continents from a table, countries from the data's
# names): none of one may show in the other.
TURKISH_WORDS = ["İlerleme", "Profil", "Başarımlar", "Seyahat", "Telefonlar", "İçe aktar", "Seviye", "Asya", "Avrupa", "Almanya",
                 "Keşfedilen alan", "Rozetler", "Yer", "Gün"]
ENGLISH_WORDS = ["Progress", "Profile", "Achievements", "Travel", "Phones", "Import…", "Level", "Asia", "Europe", "Germany",
                 "Explored area", "Badges", "Place", "Days"]
PICKED = [".fit", ".tcx", ".kml", ".kmz", ".zip", ".gz", ".gpx", ".csv", ".geojson", ".json"]


def page_text(driver):
    return driver.execute_script("return document.body.innerText")


def words_in(text, words):
    """Those of `words` that stand in `text` as words ("Profil" is not in "Profile")."""
    return [w for w in words if re.search(r"(?<!\w)" + re.escape(w) + r"(?!\w)", text)]


def speaks(driver, language, own, other):
    """The page shows every one of its words in `language` and none of the other language's."""
    text = page_text(driver)
    check(f"{language} browser: the page in {language}", len(words_in(text, own)) == len(own), set(own) - set(words_in(text, own)))
    check(f"{language} browser: none of the page's own words in the other language", not words_in(text, other), words_in(text, other))


def english():
    """A second user whose browser speaks English, on the store the Turkish run filled: the page
    in English throughout, the switch to Turkish, and the choice kept on reload."""
    driver = browser("en-US")
    try:
        driver.get(origin + "/")
        wait_for(driver, "return document.body.dataset.ready")
        view = driver.execute_script("const b = map.getBounds(); return [b.getSouth(), b.getWest(), b.getNorth(), b.getEast(), "
                                     + "document.body.dataset.level]")
        with urllib.request.urlopen(origin + "/api/view", timeout=10) as reply:
            asked = reply.read().decode()
        check("places in two countries: the page opens on the world level, framing İstanbul to Berlin",
              view[4] == "world" and view[0] < 39.9 and view[1] < 13.4 and view[2] > 52.5 and view[3] > 29.1 and view[3] - view[1] < 60,
              (view, asked))
        speaks(driver, "English", ENGLISH_WORDS, TURKISH_WORDS)
        progress = driver.find_element(By.ID, "progress-list").text
        check("English browser: 'Istanbul 8/39 districts', 'Germany 1/16 provinces'",
              "Istanbul 8/39 districts" in progress and "Germany 1/16 provinces" in progress, progress)
        figures = driver.find_element(By.ID, "figures").text
        check("English browser: the continents as 'Asia', 'Europe'", "Asia 1/" in figures and "Europe 1/" in figures, figures)
        check("English browser: the world share as '0.0…%'", re.search(r"World explored\s+0\.0[0-9]*% \(", figures), figures)
        xp = driver.find_element(By.ID, "xp").text
        check("English browser: numbers in English format ('1,234 XP')", re.match(r"\d,\d{3} XP", xp), xp)
        tiles = driver.find_element(By.ID, "travel-tiles").text
        check("English browser: the travel panel in English", "explorer tiles" in tiles, tiles)
        check("English browser: the switch offers Turkish", driver.find_element(By.ID, "lang").text == "TR"
              and driver.find_element(By.ID, "lang").get_attribute("aria-label").startswith("Türkçe"))
        accept = driver.find_element(By.ID, "file").get_attribute("accept").split(",")
        check("the file picker offers every format the importer reads", all(ext in accept for ext in PICKED), accept)
        driver.find_element(By.ID, "lang").click()
        switched = wait_for(driver, "return document.documentElement.lang == 'tr' && document.body.innerText.includes('İlerleme')")
        check("the switch turns the page Turkish", switched and "8/39 ilçe" in driver.find_element(By.ID, "progress-list").text)
        speaks(driver, "switched to Turkish", TURKISH_WORDS, ENGLISH_WORDS)
        check("switched: the travel panel and numbers redrawn in Turkish", "keşif karesi" in driver.find_element(By.ID, "travel-tiles").text
              and re.match(r"\d\.\d{3} XP", driver.find_element(By.ID, "xp").text), driver.find_element(By.ID, "xp").text)
        driver.get(origin + "/")
        wait_for(driver, "return document.body.dataset.ready")
        check("the choice is kept on reload", driver.execute_script("return document.documentElement.lang") == "tr"
              and "Başarımlar" in page_text(driver))
        driver.find_element(By.ID, "lang").click()  # back to English for the screenshot
        wait_for(driver, "return document.documentElement.lang == 'en'")
        driver.save_screenshot(f"{shots}/serve-page-en.png")
        with urllib.request.urlopen(urllib.request.Request(origin + "/login", headers={"Accept-Language": "en-US,en"}), timeout=10) as reply:
            check("the sign-in form in English for an English browser", "Sign in" in reply.read().decode())
    finally:
        driver.quit()


driver = browser("tr-TR")
try:
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    # First load, three times with the cache off: the time until the world and Türkiye layers
    # are drawn and the panel is filled (body[data-ready] is set by the page then).
    loads = []
    for _ in range(3):
        driver.get(origin + "/")
        ready = wait_for(driver, "return document.body.dataset.ready")
        loads.append(int(ready) if ready and ready.isdigit() else None)
    check("page ready (world + Türkiye layers drawn) three times", all(v is not None for v in loads), loads)
    first_load = statistics.median([v for v in loads if v is not None] or [0])
    print(f"first load: {loads} ms, median {first_load} ms")
    check("first load under 1 s (median of 3)", 0 < first_load < 1000, first_load)

    progress = driver.find_element(By.ID, "progress-list").text
    check("empty store: nothing visited yet", "8/39" not in progress and "Henüz" in progress, progress)
    check("world layer drawn", driver.execute_script("return document.querySelectorAll('path.unit-country').length") > 200)
    check("empty store: the fog covers everything", driver.execute_script(FOG_CLEAR) == 0, driver.execute_script(FOG_CLEAR))
    check("Türkiye's 81 provinces drawn", driver.execute_script("return document.querySelectorAll('path.unit-province').length") == 81)

    driver.find_element(By.ID, "file").send_keys(gpx)
    imported = wait_for(driver, "return document.body.dataset.imported == '1'", timeout=60)
    check("upload through the file input finished", imported)
    summary = driver.find_element(By.ID, "import-summary").text
    check("import summary shown, in Turkish", "8 yeni bölge" in summary and "Kadıköy" in summary, summary)
    check("the served page is marked Turkish for a Turkish browser",
          '<html lang="tr">' in urllib.request.urlopen(urllib.request.Request(origin + "/", headers={"Accept-Language": "tr-TR,tr"}),
                                                       timeout=10).read().decode())
    progress = driver.find_element(By.ID, "progress-list").text
    check("'İstanbul 8/39 ilçe' in the progress panel", "İstanbul 8/39 ilçe" in progress, progress)
    check("'Türkiye 1/81 il' in the progress panel", "Türkiye 1/81 il" in progress, progress)
    level = wait_for(driver, "return document.body.dataset.level == 'TR-34' && document.body.dataset.level")
    districts = driver.execute_script("return document.querySelectorAll('path.unit-district').length")
    visited = driver.execute_script("return document.querySelectorAll('path.unit-district.visited').length")
    check("İstanbul's district layer: 39 shapes", level and districts == 39, (level, districts))
    check("8 districts filled as visited", visited == 8, visited)
    # The fog is asked for the view after the map moved to İstanbul (/api/fog): lit where the regions are.
    lit = wait_for(driver, f"const n = (() => {{ {FOG_CLEAR} }})(); return n > 8 ? n : null", timeout=15)
    circles = driver.execute_script("return fog._circles && fog._circles.length")
    check("the fog is lit over İstanbul's regions (8 circles from /api/fog)", lit and circles == 8, (driver.execute_script(FOG_CLEAR), circles))
    unlocked = driver.execute_script("return document.querySelectorAll('#grid .card.unlocked').length")
    hidden = driver.execute_script("return [...document.querySelectorAll('#grid .card.hidden')].map(c => c.textContent)")
    check("achievements grid: unlocked cards", unlocked >= 3, unlocked)
    check("achievements grid: hidden ones as ???", hidden and all("???" in text for text in hidden), hidden)
    check("profile: level 5", "5" in driver.find_element(By.ID, "level").text, driver.find_element(By.ID, "level").text)
    driver.save_screenshot(f"{shots}/serve-page.png")

    # A newcomer who imported a walk in İstanbul opens the page on it, not on the whole world.
    second = browser("tr-TR")
    try:
        second.get(origin + "/")
        wait_for(second, "return document.body.dataset.ready")
        view = second.execute_script("const c = map.getCenter(); return [c.lat, c.lng, map.getZoom(), document.body.dataset.level]")
        check("reloaded: the page opens on İstanbul's districts, zoomed to the walk",
              view[3] == "TR-34" and 40.95 < view[0] < 41.1 and 28.85 < view[1] < 29.15 and view[2] >= 11, view)
    finally:
        second.quit()

    # Drag and drop: a CSV dropped on the window goes through the same import.
    driver.execute_script("""
        const text = 'lat,lon,time\\n39.9251,32.8369,2024-05-02T10:00:00Z\\n39.9253,32.8371,2024-05-02T10:01:00Z\\n'
                   + '52.5200,13.4050,2024-05-03T10:00:00Z\\n52.5202,13.4052,2024-05-03T10:01:00Z\\n';
        const transfer = new DataTransfer();
        transfer.items.add(new File([text], 'ankara.csv', { type: 'text/csv' }));
        window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: transfer }));
        window.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer }));
    """)
    dropped = wait_for(driver, "return document.body.dataset.imported == '2'", timeout=60)
    progress = driver.find_element(By.ID, "progress-list").text
    check("drag-and-drop import: Ankara 1/25 ilçe, Almanya 1/16 il",
          dropped and "Ankara 1/25 ilçe" in progress and "Almanya 1/16 il" in progress, progress)
    summary = driver.find_element(By.ID, "import-summary").text
    check("the import summary names the country in Turkish (Almanya)", "Almanya" in summary and "Germany" not in summary, summary)
    figures = driver.find_element(By.ID, "figures").text
    check("Turkish: continents 'Asya', 'Avrupa'; the world share as '%0,0…'; numbers in Turkish format ('1.234 XP')",
          "Asya 1/" in figures and "Avrupa 1/" in figures and re.search(r"Keşfedilen dünya\s+%0,0[0-9]* \(", figures)
          and re.match(r"\d\.\d{3} XP", driver.find_element(By.ID, "xp").text), (figures, driver.find_element(By.ID, "xp").text))
    speaks(driver, "Turkish", TURKISH_WORDS, ENGLISH_WORDS)

    travel(driver)
    day_view(driver)
    phone(driver)

    entries = driver.execute_script(
        "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')).map(e => e.name)")
    foreign = [name for name in entries if not name.startswith(origin + "/")]
    check(f"every loaded resource same-origin ({len(entries)} loaded)", entries and not foreign, foreign)
    logs = driver.get_log("browser")
    errors = [entry for entry in logs if entry["level"] in ("SEVERE", "WARNING")]
    check("no console errors or warnings", not errors, json.dumps(errors, ensure_ascii=False)[:800])

    attack(driver)

    driver.set_window_size(390, 844)
    driver.get(origin + "/")
    wait_for(driver, "return document.body.dataset.ready")
    layout = driver.execute_script("""
        const map = document.getElementById('map').getBoundingClientRect();
        const panel = document.getElementById('panel').getBoundingClientRect();
        const width = document.documentElement.clientWidth;
        return {mapWidth: map.width, panelTop: panel.top, mapBottom: map.bottom, width,
                scroll: document.documentElement.scrollWidth};
    """)
    # clientWidth: the window's 390 px less the scroll bar.
    check("phone-sized: the panel below the map, no sideways scrolling",
          layout["panelTop"] >= layout["mapBottom"] - 1 and layout["scroll"] <= layout["width"]
          and layout["mapWidth"] >= layout["width"] - 1 and layout["width"] >= 360, layout)
    driver.save_screenshot(f"{shots}/serve-phone.png")
finally:
    driver.quit()
english()

passed = sum(results)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if passed == len(results) else 1)
