"""Names from the boundary data reach the page as text, never as HTML.

Usage: hostile_names_check.py PORT NAME. The server on PORT serves a boundary database whose one
country is called NAME (HTML: a link and an image with an onerror handler). Opens the page in a
headless Chromium, opens every unit's tooltip (Leaflet sets a string as innerHTML) and checks that
the tooltip shows NAME as its text and that no element of the name was made (no link to
evil.example, no image), nor any console error. Prints 'N passed, N failed'; exits 1 on a failure.
"""
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

port, name = int(sys.argv[1]), sys.argv[2]
results = []


def check(label, condition, detail=""):
    results.append(bool(condition))
    print(("ok   " if condition else "FAIL ") + label + ("" if condition else f" — {detail}"), flush=True)


options = webdriver.ChromeOptions()
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,860",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-default-apps", "--disable-extensions", "--lang=en-GB"]:
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
driver.set_page_load_timeout(30)
try:
    driver.get(f"http://127.0.0.1:{port}/")
    deadline = time.time() + 30
    opened = 0
    while time.time() < deadline and not opened:
        # The page's own objects (app.js is a classic script: its top-level names are global).
        opened = driver.execute_script("""
            if (typeof app === 'undefined' || !app.layers.length) return 0;
            let n = 0;
            for (const layer of app.layers) layer.eachLayer((unit) => { unit.openTooltip(); n++; });
            return n;""")
        time.sleep(0.1)
    check("the hostile unit is on the map with its tooltip open", opened > 0, opened)
    tooltips = driver.execute_script("return [...document.querySelectorAll('.leaflet-tooltip')].map((t) => t.textContent)")
    check("its tooltip shows the name as text", name in tooltips, tooltips)
    made = driver.execute_script("""return {
        links: document.querySelectorAll('a[href*="evil.example"]').length,
        inTooltips: document.querySelectorAll('.leaflet-tooltip *').length,
        images: [...document.querySelectorAll('img')].filter((i) => i.getAttribute('src') === 'x').length};""")
    check("no element of the name was made (link, image)", made == {"links": 0, "inTooltips": 0, "images": 0}, made)
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    check("no console errors", not errors, errors[:3])
finally:
    driver.quit()
failed = results.count(False)
print(f"{results.count(True)} passed, {failed} failed")
sys.exit(1 if failed else 0)
