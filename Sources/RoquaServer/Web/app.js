// Roqua's exploration page: the map from Roqua's own boundaries (no tiles), the fog of war,
// progress, profile, achievements and track import. Talks only to its own origin.
'use strict';

const TEXT = {
  tr: { timeline: 'Zaman çizelgesi', daysWithData: 'kayıtlı günler', day: 'gün', previousDay: 'önceki gün', nextDay: 'sonraki gün',
        noFixesThatDay: 'Bu gün için kayıt yok.', home: 'ev', work: 'iş', atSea: 'denizde',
        import: 'İçe aktar…', importing: 'İçe aktarma', progress: 'İlerleme', profile: 'Profil', achievements: 'Başarımlar',
        drop: 'Dosyaları buraya bırakın', world: 'Dünya', country: 'ülke', province: 'il', district: 'ilçe',
        countries: 'Ülkeler', area: 'Keşfedilen alan', worldShare: 'Keşfedilen dünya', daily: 'Günlük seri', weekend: 'Hafta sonu serisi',
        level: 'Seviye', next: 'sonraki seviye', badges: 'Rozetler', uploading: 'Yükleniyor', reading: 'Okunuyor ve kaydediliyor…',
        done: 'Bitti', failed: 'Başarısız', none: 'Henüz bir yer yok: bir iz dosyası içe aktarın.', current: 'şimdi', longest: 'en uzun',
        restarted: 'Sunucu yeniden başlatıldı: sayfayı yenileyip tekrar deneyin.',
        travel: 'Seyahat', showHeat: 'Tüm geçmişin ısı haritası', showTiles: 'Keşif karelerini haritada göster', countryLevel: 'ülke', provinceLevel: 'il',
        districtLevel: 'ilçe', place: 'Yer', days: 'Gün', daysNote: 'İki yerde geçen bir gün ikisinde de sayılır; uçuştaki konumlar hiçbir yerde sayılmaz.',
        tiles: 'keşif karesi (zoom 14)', maxCluster: 'en büyük küme', maxSquare: 'en büyük kare', flights: 'Uçuş', noFlights: 'Uçuş yok',
        over183: '183 gün veya fazla', noDays: 'Henüz yerde geçen gün yok.', daysPerYear: 'Yıllara göre gün',
        phones: 'Telefonlar', deviceName: 'Ad', deviceURL: 'Telefonun ulaştığı adres', addPhone: 'Telefon ekle',
        noPhones: 'Henüz telefon yok: canlı konum göndermek için birini ekleyin.', lastPosted: 'son gönderim', neverPosted: 'hiç göndermedi',
        positions: 'konum', skipped: 'atlandı (olanaksız değer)', revoke: 'İptal et', revoked: 'iptal edildi',
        revokeAsk: 'Bu telefonun anahtarı hemen çalışmayı bıraksın mı?', tokenOnce: 'Anahtar (yalnızca şimdi gösterilir; yalnızca konum gönderebilir, hiçbir şey okuyamaz):',
        scan: 'Uygulamayı kurmak için telefonun kamerasıyla tarayın', otherApps: 'Diğer uygulamalar',
        loopbackOnly: 'Sunucu yalnızca 127.0.0.1 üzerinde dinliyor: telefon ona ulaşamaz. Yerel ağ için: roqua serve --listen 0.0.0.0:8080 --token … --allow-host ADRES',
        fixesRead: 'konum okundu', droppedFixes: 'atıldı', newRegions: 'yeni bölge', revisits: 'yeniden ziyaret',
        firstTime: 'ilk kez', unlocked: 'kazanıldı', levelUp: 'seviye atlandı', importedBefore: 'daha önce içe aktarılmış; bir şey eklenmedi',
        passedOver: 'iz dosyası olmayan dosya atlandı', andMore: 've N tane daha', networkError: 'ağ hatası (sunucu kapalı mı?)',
        switchLanguage: 'English: sayfayı İngilizce göster', crumbs: 'harita düzeyi', map: 'harita', year: 'yıl', dayLevel: 'düzey',
        signOut: 'Çıkış' },
  en: { timeline: 'Timeline', daysWithData: 'days with data', day: 'day', previousDay: 'previous day', nextDay: 'next day',
        noFixesThatDay: 'Nothing recorded that day.', home: 'home', work: 'work', atSea: 'at sea',
        import: 'Import…', importing: 'Import', progress: 'Progress', profile: 'Profile', achievements: 'Achievements',
        drop: 'Drop track files here', world: 'World', country: 'countries', province: 'provinces', district: 'districts',
        countries: 'Countries', area: 'Explored area', worldShare: 'World explored', daily: 'Daily streak', weekend: 'Weekend streak',
        level: 'Level', next: 'next level at', badges: 'Badges', uploading: 'Uploading', reading: 'Reading and saving…',
        done: 'Done', failed: 'Failed', none: 'Nothing visited yet: import a track file.', current: 'current', longest: 'longest',
        restarted: 'The server was restarted: reload the page and try again.',
        travel: 'Travel', showHeat: 'Heat map of the whole history', showTiles: 'Show explorer tiles on the map', countryLevel: 'country', provinceLevel: 'province',
        districtLevel: 'district', place: 'Place', days: 'Days', daysNote: 'A day in two places counts for both; positions in flight count nowhere.',
        tiles: 'explorer tiles (zoom 14)', maxCluster: 'max cluster', maxSquare: 'max square', flights: 'Flights', noFlights: 'No flights',
        over183: '183 days or more', noDays: 'No days on the ground yet.', daysPerYear: 'Days per year',
        phones: 'Phones', deviceName: 'Name', deviceURL: 'Address the phone reaches', addPhone: 'Add phone',
        noPhones: 'No phones yet: add one to post positions live.', lastPosted: 'last posted', neverPosted: 'never posted',
        positions: 'positions', skipped: 'skipped (impossible values)', revoke: 'Revoke', revoked: 'revoked',
        revokeAsk: 'Make this phone\'s token stop working now?', tokenOnce: 'Token (shown only now; it can post positions and read nothing):',
        scan: 'Scan with the phone\'s camera to set up the app', otherApps: 'Other apps',
        loopbackOnly: 'The server listens on 127.0.0.1 only: a phone cannot reach it. For the LAN: roqua serve --listen 0.0.0.0:8080 --token … --allow-host ADDRESS',
        fixesRead: 'fixes read', droppedFixes: 'dropped', newRegions: 'new regions', revisits: 'revisits',
        firstTime: 'first time in', unlocked: 'unlocked', levelUp: 'level up', importedBefore: 'imported before; nothing added',
        passedOver: 'files passed over (not track files)', andMore: 'and N more', networkError: 'network error (is the server down?)',
        switchLanguage: 'Türkçe: show the page in Turkish', crumbs: 'map level', map: 'map', year: 'year', dayLevel: 'level',
        signOut: 'Sign out' }
};
const ICONS = { milestone: '★', city: '◼', district: '◆', province: '▲', country: '⚑', exploration: '✦', temporal: '◷',
                behavioral: '↻', regional: '✪', landmark: '♜' };

// The continents as the boundary data names them (Natural Earth's English), in both languages.
const CONTINENTS = {
  tr: { 'Africa': 'Afrika', 'Antarctica': 'Antarktika', 'Asia': 'Asya', 'Europe': 'Avrupa', 'North America': 'Kuzey Amerika',
        'Oceania': 'Okyanusya', 'South America': 'Güney Amerika', 'Seven seas (open ocean)': 'Açık denizler' },
  en: {}
};

// The page's language: the one chosen here before (kept in this browser), else the browser's
// first of Turkish or English, else English.
function initialLanguage() {
  try {
    const kept = window.localStorage.getItem('roqua.lang');
    if (kept === 'tr' || kept === 'en') return kept;
  } catch (ignored) { /* storage off: follow the browser */ }
  for (const tag of navigator.languages || [navigator.language || '']) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (base === 'tr' || base === 'en') return base;
  }
  return 'en';
}

// Names by unit code in both languages, learnt from every shape collection fetched (the world's
// countries and Türkiye's provinces at start). The statistics, travel and upload answers carry
// the data's own name (countries in English): the page shows the one of its language.
const NAMES = new Map();

function learnNames(collection) {
  for (const { properties: p } of collection.features) {
    NAMES.set(p.code, { en: p.name_en || p.name, tr: p.name_tr || p.name });
  }
  return collection;
}

function nameOf(code, fallback) {
  const names = NAMES.get(code);
  return (names && names[app.lang]) || fallback || code;
}

const app = {
  lang: initialLanguage(),
  visited: new Set(),
  drilled: new Set(),
  stack: [{ code: 'world', name: null }],
  layers: [],
  shapes: new Map(),
  stats: null,
  profile: null,
  achievements: null,
  regions: null,
  busy: false,
  units: {},
  home: null,
  devices: null,
  travel: null,
  year: null,
  // This visit's uploads (file name and answer or error) and the last status line: redrawn in
  // the other language when the switch is pressed.
  imports: [],
  importStatus: null
};

function t(key) { return TEXT[app.lang][key] || key; }

async function getJSON(path) {
  const response = await fetch(path, { credentials: 'same-origin' });
  if (!response.ok) {
    let message = response.status + ' ' + response.statusText;
    try { message = (await response.json()).error.message; } catch (ignored) { /* not JSON: keep the status line */ }
    throw new Error(message);
  }
  return response.json();
}

// A write: the server takes writes only from its own page, and this per-launch token proves it.
async function postJSON(path, body) {
  const response = await fetch(path, {
    method: 'POST', credentials: 'same-origin', body: JSON.stringify(body || {}),
    headers: { 'Content-Type': 'application/json', 'X-Roqua-CSRF': document.querySelector('meta[name="roqua-csrf"]').content }
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error((answer.error && answer.error.message) || `${response.status} ${response.statusText}`);
  return answer;
}

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (key === 'class') node.className = value; else if (key.startsWith('data-')) node.setAttribute(key, value); else node[key] = value;
  }
  for (const child of children) node.append(child);
  return node;
}

// The page's words before anything is drawn (app.css hides the HTML's until then).
applyLanguage();

// ---------- the map ----------

const map = L.map('map', { attributionControl: false, worldCopyJump: false, minZoom: 1, maxZoom: 16, zoomSnap: 0.25 });
map.fitBounds([[-56, -170], [80, 180]]);

function unitName(properties) {
  return app.lang === 'tr' ? (properties.name_tr || properties.name) : (properties.name_en || properties.name);
}

function styleFor(feature) {
  const visited = app.visited.has(feature.properties.code);
  // A unit whose children are drawn above it stays invisible: its coarser outline would show
  // through the gaps between its children.
  if (app.drilled.has(feature.properties.code)) {
    return { className: 'unit unit-' + feature.properties.level + ' drilled', stroke: false, fill: false };
  }
  return {
    className: 'unit unit-' + feature.properties.level + (visited ? ' visited' : ''),
    color: visited ? '#f7d58b' : '#50657d', weight: feature.properties.level === 'country' ? 0.6 : 0.9,
    fillColor: visited ? '#e8a33d' : '#34475c', fillOpacity: visited ? 0.75 : 0.35
  };
}

function shapesLayer(collection, onTop) {
  const layer = L.geoJSON(collection, {
    style: styleFor,
    onEachFeature: (feature, featureLayer) => {
      // A name comes from the boundary data (an added layer's file): Leaflet sets a string as
      // HTML (innerHTML), so it is handed over as a text node.
      featureLayer.bindTooltip(() => document.createTextNode(unitName(feature.properties)), { sticky: true });
      featureLayer.on('click', () => {
        if (feature.properties.has_children) drill(feature.properties.code, unitName(feature.properties));
        else featureLayer.openTooltip();
      });
    }
  });
  layer.roquaParent = collection.parent;
  if (onTop) layer.addTo(map); else layer.addTo(map).bringToBack();
  return layer;
}

async function shapes(code) {
  if (!app.shapes.has(code)) app.shapes.set(code, getJSON('/api/units/' + encodeURIComponent(code) + '/children').then(learnNames));
  return app.shapes.get(code);
}

function restyle() {
  for (const layer of app.layers) layer.setStyle(styleFor);
}

// The world, then the current unit's children on top (Türkiye's provinces at first).
async function showLevel(fit) {
  const chain = app.stack.map((entry) => entry.code);
  const collections = await Promise.all(chain.map(shapes));
  app.drilled = new Set(chain.length === 1 && app.home ? [app.home] : chain);
  for (const layer of app.layers) map.removeLayer(layer);
  app.layers = collections.map((collection, index) => shapesLayer(collection, index > 0));
  if (chain.length === 1 && app.home) {
    app.layers.push(shapesLayer(await shapes(app.home), true));
  }
  const top = app.layers[app.layers.length - 1];
  if (fit && chain.length > 1 && top.getBounds().isValid()) map.fitBounds(top.getBounds(), { padding: [10, 10] });
  if (fit && chain.length === 1) map.fitBounds([[-56, -170], [80, 180]]);
  fog.bringToFront();
  renderCrumbs();
  document.body.dataset.level = chain[chain.length - 1];
  document.body.dataset.shapes = String(top.getLayers().length);
}

async function drill(code, name) {
  const known = app.stack.findIndex((entry) => entry.code === code);
  if (known >= 0) app.stack = app.stack.slice(0, known + 1);
  else {
    // A unit's parents come first, so the breadcrumb reads World › Türkiye › İstanbul.
    const path = [];
    let unit = app.units[code];
    while (unit && unit.parent) { path.unshift({ code: unit.parent, name: null }); unit = app.units[unit.parent]; }
    app.stack = [app.stack[0]].concat(path.filter((p) => p.code !== 'world'), [{ code, name }]);
  }
  await showLevel(true);
}

function renderCrumbs() {
  const nav = document.getElementById('crumbs');
  nav.replaceChildren();
  app.stack.forEach((entry, index) => {
    if (index > 0) nav.append(el('span', {}, '›'));
    const known = app.units[entry.code];
    const label = index === 0 ? t('world') : nameOf(entry.code, entry.name || (known && known.name));
    nav.append(el('button', { type: 'button', onclick: () => drill(entry.code, entry.name) }, label));
  });
}

// The fog of war: one canvas over the map, dark everywhere but each visited region's circle,
// cut out at its true radius (metres turned into pixels at the circle's latitude).
const Fog = L.Layer.extend({
  onAdd(target) {
    this._canvas = L.DomUtil.create('canvas', 'fog leaflet-zoom-hide');
    target.getPanes().overlayPane.appendChild(this._canvas);
    target.on('moveend zoomend resize viewreset', this._moved, this);
    this._draw();
  },
  onRemove(target) {
    L.DomUtil.remove(this._canvas);
    target.off('moveend zoomend resize viewreset', this._moved, this);
  },
  bringToFront() { if (this._canvas) this._canvas.parentNode.appendChild(this._canvas); return this; },
  setCircles(circles) { this._circles = circles; if (this._map) this._draw(); },
  // The circles of the view (a quarter beyond each edge), thinned by the server for the zoom: a
  // store of a million regions is a few hundred kilobytes here, not every region.
  async load() {
    const target = this._map;
    if (!target) return;
    const b = target.getBounds().pad(0.25), ticket = (this._ticket = (this._ticket || 0) + 1);
    const bbox = [b.getWest(), Math.max(-90, b.getSouth()), b.getEast(), Math.min(90, b.getNorth())].map((v) => v.toFixed(5)).join(',');
    const layer = await getJSON(`/api/fog?zoom=${Math.round(target.getZoom())}&bbox=${bbox}`);
    if (ticket === this._ticket) this.setCircles(layer.circles.map(([lon, lat, radius]) => ({ lon, lat, radius })));
  },
  _moved() {
    this._draw();
    clearTimeout(this._pending);
    this._pending = setTimeout(() => this.load().catch(() => { /* the next move asks again */ }), 150);
  },
  _draw() {
    const target = this._map, size = target.getSize(), canvas = this._canvas;
    L.DomUtil.setPosition(canvas, target.containerPointToLayerPoint([0, 0]));
    canvas.width = size.x; canvas.height = size.y;
    const context = canvas.getContext('2d');
    context.fillStyle = 'rgba(6, 10, 18, 0.55)';
    context.fillRect(0, 0, size.x, size.y);
    context.globalCompositeOperation = 'destination-out';
    for (const circle of this._circles || []) {
      const centre = target.latLngToContainerPoint([circle.lat, circle.lon]);
      const north = target.latLngToContainerPoint([circle.lat + circle.radius / 111320, circle.lon]);
      const radius = Math.max(1, Math.abs(centre.y - north.y));
      context.beginPath();
      context.arc(centre.x, centre.y, radius, 0, 2 * Math.PI);
      context.fill();
    }
    context.globalCompositeOperation = 'source-over';
  }
});
const fog = new Fog().addTo(map);

// ---------- the panel ----------

function renderProgress() {
  const list = document.getElementById('progress-list');
  list.replaceChildren();
  const stats = app.stats;
  if (!stats || stats.regions === 0) { list.append(el('li', {}, t('none'))); }
  if (stats) {
    for (const unit of stats.units) {
      const item = el('li', { 'data-code': unit.code, class: unit.level === 'country' ? '' : 'sub' },
        `${nameOf(unit.code, unit.name)} ${number(unit.visited)}/${number(unit.total)} ${t(unit.child_level)}`);
      item.onclick = () => drill(unit.code, unit.name);
      list.append(item);
    }
  }
  const figures = document.getElementById('figures');
  figures.replaceChildren();
  if (!stats) return;
  const rows = [
    [t('countries'), number(stats.countries.length) + (stats.continents.length
      ? ' — ' + stats.continents.map((c) => `${continentName(c.name)} ${number(c.visited)}/${number(c.total)}`).join(', ') : '')],
    [t('area'), `${number(stats.explored_square_kilometres, { maximumFractionDigits: 3 })} km²`],
    [t('worldShare'), worldShare(stats.world_percent)],
    [t('daily'), `${number(stats.streaks.current_daily)} ${t('current')}, `
      + `${number(stats.streaks.longest_daily ? stats.streaks.longest_daily.length : 0)} ${t('longest')}`],
    [t('weekend'), `${number(stats.streaks.current_weekend)} ${t('current')}, `
      + `${number(stats.streaks.longest_weekend ? stats.streaks.longest_weekend.length : 0)} ${t('longest')}`]
  ];
  for (const [label, value] of rows) figures.append(el('dt', {}, label), el('dd', {}, value));
}

function continentName(name) { return CONTINENTS[app.lang][name] || name; }

function number(value, options) { return Number(value).toLocaleString(app.lang, options); }

// Two significant digits however small, with the km² it stands for (never a row of zeros); the
// language's percent sign ("%0,0012" in Turkish, "0.0012%" in English).
function worldShare(percent) {
  if (!(percent > 0)) return number(0, { style: 'percent' });
  const km2 = percent / 100 * 510065622;
  return `${number(percent / 100, { style: 'percent', maximumSignificantDigits: 2 })} (${number(km2, { maximumSignificantDigits: 3 })} km²)`;
}

function renderProfile() {
  const profile = app.profile;
  if (!profile) return;
  const level = profile.level;
  const span = Math.max(1, level.next_level_xp - level.level_start_xp);
  document.getElementById('level').textContent = `${t('level')} ${number(level.level)}`;
  document.getElementById('level-bar').style.width = `${Math.round(100 * (level.xp - level.level_start_xp) / span)}%`;
  document.getElementById('xp').textContent = `${number(level.xp)} XP (${t('next')} ${number(level.next_level_xp)})`;
  const titles = profile.badges.map((badge) => (app.lang === 'tr' ? badge.title.tr : badge.title.en));
  document.getElementById('badges').textContent = `${t('badges')}: ${number(profile.badges.length)}/${number(profile.achievement_count)}`
    + (titles.length ? ' — ' + titles.slice(0, 6).join(', ') : '')
    + (titles.length > 6 ? `, … ${t('andMore').replace('N', number(titles.length - 6))}` : '');
}

function renderAchievements() {
  const data = app.achievements;
  if (!data) return;
  document.getElementById('achievement-count').textContent = `${number(data.unlocked)}/${number(data.total)}`;
  const grid = document.getElementById('grid');
  grid.replaceChildren();
  for (const item of data.achievements) {
    const card = el('div', { class: `card rarity-${item.rarity}` + (item.unlocked ? ' unlocked' : '') + (item.hidden ? ' hidden' : ''),
                             title: item.description },
      el('div', { class: 'icon' }, item.hidden ? '?' : (ICONS[item.category] || '●')),
      el('div', { class: 'title' }, item.title));
    if (!item.unlocked && !item.hidden) {
      const mini = el('div', { class: 'mini' }, el('div'));
      mini.firstChild.style.width = `${Math.round(item.progress * 100)}%`;
      card.append(mini);
    }
    grid.append(card);
  }
}

// The page's own words in its language (the HTML carries Turkish ones, hidden by app.css until
// this has run). The switch names the other language, in that language.
function applyLanguage() {
  document.documentElement.lang = app.lang;
  const other = app.lang === 'tr' ? 'en' : 'tr';
  const button = document.getElementById('lang');
  button.textContent = other.toUpperCase();
  button.lang = other;
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll('[data-i18n-label]')) {
    node.setAttribute('aria-label', t(node.dataset.i18nLabel));
    if (node === button) node.title = t(node.dataset.i18nLabel);
  }
  document.documentElement.dataset.language = app.lang;
}

async function refresh() {
  const zone = encodeURIComponent(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const level = document.getElementById('days-level').value;
  // The fog first: the map and its fog are what the page shows at once, and the panels' answers
  // (statistics and achievements of every region) would keep the server's cores from it.
  await fog.load();
  const [visited, stats, profile, achievements, devices, travel] = await Promise.all([
    getJSON('/api/visited'), getJSON('/api/stats?tz=' + zone), getJSON('/api/profile'),
    getJSON('/api/achievements?lang=' + app.lang), getJSON('/api/devices'), getJSON(`/api/travel?tz=${zone}&level=${level}`)
  ]);
  app.visited = new Set(visited);
  app.stats = stats; app.profile = profile; app.achievements = achievements; app.devices = devices; app.travel = travel;
  renderDevices(); renderTravel();
  // The history changed: the tiles are asked again (the server answers 304 where they did not).
  heatLayer.redraw();
  restyle();
  renderProgress(); renderProfile(); renderAchievements();
  learnUnits();
  // The day shown may have changed (an import, a phone): asked again after the panels, not before.
  app.calendar = null;
  loadDay();
}

// Positions posted live by a phone (or an import elsewhere) change the store: redraw within seconds.
// `mark` is the store's change mark read before the first refresh: a change made while the page
// was drawing is not missed.
async function watchChanges(mark) {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, document.hidden ? 30000 : 4000));
    if (app.busy) continue;
    try {
      const next = (await getJSON('/api/changes')).mark;
      if (next !== mark) await refresh();
      mark = next;
    } catch (error) { /* the server is restarting: try again later */ }
  }
}

// District codes of visited provinces (from the statistics), for the breadcrumb and the post-import focus.
function learnUnits() {
  for (const unit of (app.stats && app.stats.units) || []) {
    for (const child of unit.visited_children.concat(unit.not_visited_children)) {
      if (!app.units[child.code]) app.units[child.code] = { parent: unit.code, name: child.name };
    }
  }
}

// ---------- travel: days per place, explorer tiles, flights ----------

const tileLayer = L.layerGroup();
// Above the fog (which lies in the overlay pane): a tile is ground covered, drawn whatever the fog hides.
map.createPane('tiles').style.zIndex = 450;
const tileRenderer = L.canvas({ padding: 0.2, pane: 'tiles' });

function tileBounds(x, y, zoom) {
  const n = 2 ** zoom;
  const lat = (row) => Math.atan(Math.sinh(Math.PI * (1 - 2 * row / n))) * 180 / Math.PI;
  return [[lat(y + 1), x / n * 360 - 180], [lat(y), (x + 1) / n * 360 - 180]];
}

function drawTiles() {
  tileLayer.clearLayers();
  const layer = app.travel && app.travel.tiles;
  if (!layer) return;
  const zoom = layer.stats.zoom, cluster = new Set(layer.cluster.map(([x, y]) => `${x},${y}`));
  for (const [x, y] of layer.tiles) {
    const inCluster = cluster.has(`${x},${y}`);
    L.rectangle(tileBounds(x, y, zoom), { renderer: tileRenderer, weight: 1, color: '#9fc3ff', fillColor: inCluster ? '#1d4f91' : '#4f8ad6',
                                          fillOpacity: inCluster ? 0.6 : 0.4, interactive: false }).addTo(tileLayer);
  }
  const square = layer.stats.square;
  if (square && square.size > 0) {
    const a = tileBounds(square.x, square.y, zoom), b = tileBounds(square.x + square.size - 1, square.y + square.size - 1, zoom);
    L.rectangle([a[0].map((v, i) => i === 0 ? b[0][0] : v), [a[1][0], b[1][1]]],
                { renderer: tileRenderer, weight: 2.5, color: '#e0457b', fill: false, interactive: false }).addTo(tileLayer);
  }
}

function renderTravel() {
  const travel = app.travel;
  if (!travel) return;
  const stats = travel.tiles.stats;
  document.getElementById('travel-tiles').textContent = `${number(stats.tiles)} ${t('tiles')} · ${t('maxCluster')} `
    + `${number(stats.max_cluster)} · ${t('maxSquare')} ${number(stats.max_square)}×${number(stats.max_square)}`;
  const km = Math.round(travel.flights.reduce((sum, flight) => sum + flight.km, 0));
  const last = travel.flights[travel.flights.length - 1];
  document.getElementById('travel-flights').textContent = travel.flights.length
    ? `${t('flights')}: ${number(travel.flights.length)} (${number(km)} km) — `
      + `${last.from ? nameOf(last.from_code, last.from) : '?'} → ${last.to ? nameOf(last.to_code, last.to) : '?'}`
    : t('noFlights');
  const select = document.getElementById('days-year');
  const years = travel.years.map((report) => report.year);
  if (!years.includes(app.year)) app.year = years[0] ?? null;
  select.replaceChildren(...years.map((year) => el('option', { value: String(year), selected: year === app.year }, String(year))));
  select.hidden = !years.length;
  const body = document.querySelector('#days-table tbody');
  body.replaceChildren();
  const report = travel.years.find((entry) => entry.year === app.year);
  if (!report) body.append(el('tr', {}, el('td', { colSpan: 2 }, t('noDays'))));
  for (const unit of (report && report.units) || []) {
    body.append(el('tr', { class: unit.days >= 183 ? 'over' : '' }, el('td', {}, nameOf(unit.code, unit.name)),
      el('td', { title: unit.days >= 183 ? t('over183') : '' }, number(unit.days) + (unit.days >= 183 ? ' ⚠' : ''))));
  }
  renderDaysChart(travel.years);
  if (map.hasLayer(tileLayer)) drawTiles();
}

// Days per year, stacked by place: the five places with the most days in all, the rest as one.
function renderDaysChart(years) {
  const box = document.getElementById('days-chart');
  box.replaceChildren();
  if (!years.length) return;
  const totals = new Map();
  const named = (unit) => nameOf(unit.code, unit.name);
  for (const report of years) for (const unit of report.units) totals.set(named(unit), (totals.get(named(unit)) || 0) + unit.days);
  const top = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([name]) => name);
  const colours = ['#f2b544', '#4f8ad6', '#e0457b', '#5cb85c', '#b267e6', '#6b7c90'];
  const ordered = [...years].sort((a, b) => a.year - b.year), barHeight = 18, width = 320, labelWidth = 42;
  const most = Math.max(...ordered.map((report) => report.units.reduce((sum, unit) => sum + unit.days, 0)), 1);
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(ordered.length * (barHeight + 6) + 30));
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('daysPerYear'));
  const add = (tag, attributes, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  ordered.forEach((report, row) => {
    const y = row * (barHeight + 6);
    add('text', { x: 0, y: y + 13, class: 'axis' }, String(report.year));
    let x = labelWidth;
    const parts = new Map();
    for (const unit of report.units) {
      const key = top.includes(named(unit)) ? named(unit) : '…';
      parts.set(key, (parts.get(key) || 0) + unit.days);
    }
    for (const [name, days] of parts) {
      const w = (width - labelWidth - 4) * days / most;
      add('rect', { x, y, width: Math.max(w, 1), height: barHeight, fill: colours[name === '…' ? 5 : top.indexOf(name)] })
        .append(Object.assign(document.createElementNS(ns, 'title'), { textContent: `${name}: ${number(days)}` }));
      x += w;
    }
  });
  const legendY = ordered.length * (barHeight + 6) + 14;
  let x = 0;
  for (const [index, name] of top.entries()) {
    add('rect', { x, y: legendY - 9, width: 10, height: 10, fill: colours[index] });
    add('text', { x: x + 13, y: legendY, class: 'axis' }, name);
    x += 18 + name.length * 7;
  }
  box.append(svg);
}

// The lifetime map: every kept fix as heat, tiles drawn by the server from the pyramid its
// imports keep (never the fixes themselves sent to the page), shown by default.
// Its own pane, above the fog and the regions (Leaflet puts tiles below every overlay), and no
// target for the mouse: the regions under it keep their tooltips.
map.createPane('history');
map.getPane('history').style.zIndex = 450;
map.getPane('history').style.pointerEvents = 'none';
const heatLayer = L.tileLayer('/api/tiles/heat/{z}/{x}/{y}.png', { maxZoom: 18, pane: 'history', className: 'heat-layer' }).addTo(map);
document.getElementById('heat-toggle').addEventListener('change', (event) => {
  if (event.target.checked) heatLayer.addTo(map); else map.removeLayer(heatLayer);
});

document.getElementById('tiles-toggle').addEventListener('change', (event) => {
  if (event.target.checked) { tileLayer.addTo(map); drawTiles(); } else { map.removeLayer(tileLayer); }
});
document.getElementById('days-year').addEventListener('change', (event) => { app.year = Number(event.target.value); renderTravel(); });
document.getElementById('days-level').addEventListener('change', async () => {
  const zone = encodeURIComponent(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  app.travel = await getJSON(`/api/travel?tz=${zone}&level=${document.getElementById('days-level').value}`);
  renderTravel();
});

// ---------- the day ----------

// How each move was made, in the page's language.
const MODES = {
  tr: { walk: 'yürüyüş', cycle: 'bisiklet', road: 'karayolu', rail: 'tren', boat: 'vapur', flight: 'uçuş', unknown: 'bilinmiyor' },
  en: { walk: 'walk', cycle: 'cycle', road: 'road', rail: 'rail', boat: 'boat', flight: 'flight', unknown: 'unknown' }
};
const dayLayer = L.layerGroup().addTo(map);

function browserZone() { return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'; }

// YYYY-MM-DD of an instant in the browser's zone (Sweden writes dates that way).
function localDay(date) { return date.toLocaleDateString('sv-SE', { timeZone: browserZone() }); }

function shiftDay(text, days) {
  const [year, month, day] = text.split('-').map(Number);
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

// 09:12, or the date too when the instant is on another day than the one shown.
function clock(iso, day) {
  const date = new Date(iso);
  const time = date.toLocaleTimeString(app.lang, { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: browserZone() });
  return localDay(date) === day ? time : `${localDay(date)} ${time}`;
}

function stayName(entry) {
  const names = [entry.locality && entry.locality.name, entry.district && entry.district.name, entry.province && entry.province.name,
    entry.country && nameOf(entry.country.code, entry.country.name)].filter(Boolean);
  const unique = names.filter((name, index) => names.indexOf(name) === index).slice(0, 2);
  return unique.length ? unique.join(', ') : t('atSea');
}

// The month of the day shown, its days with data marked (asked once a month and zone).
async function renderCalendar(day) {
  const month = day.slice(0, 7);
  const key = `${month} ${browserZone()}`;
  if (app.calendar?.key !== key) {
    try {
      const answer = await getJSON(`/api/timeline/days?month=${month}&tz=${encodeURIComponent(browserZone())}`);
      app.calendar = { key, recorded: new Set(answer.days) };
    } catch (error) {
      app.calendar = { key, recorded: new Set() };
    }
    // Another month was picked while this one was asked: that one draws the grid.
    if (document.getElementById('day-date').value.slice(0, 7) !== month) return;
  }
  const [year, number] = month.split('-').map(Number);
  const first = new Date(Date.UTC(year, number - 1, 1));
  const length = new Date(Date.UTC(year, number, 0)).getUTCDate();
  const weekdays = [...Array(7)].map((_, index) =>
    el('span', { class: 'weekday' }, new Date(Date.UTC(2024, 0, 1 + index)).toLocaleDateString(app.lang, { weekday: 'narrow', timeZone: 'UTC' })));
  const blanks = [...Array((first.getUTCDay() + 6) % 7)].map(() => el('span'));
  const days = [...Array(length)].map((_, index) => {
    const text = `${month}-${String(index + 1).padStart(2, '0')}`;
    const recorded = app.calendar.recorded.has(text);
    const button = el('button', { type: 'button', class: [recorded ? 'recorded' : '', text === day ? 'selected' : ''].join(' ').trim() },
      String(index + 1));
    button.dataset.day = text;
    button.addEventListener('click', () => { document.getElementById('day-date').value = text; loadDay(); });
    return button;
  });
  document.getElementById('day-calendar').replaceChildren(...weekdays, ...blanks, ...days);
}

async function loadDay() {
  const day = document.getElementById('day-date').value;
  if (!day) return;
  renderCalendar(day);
  let answer;
  try {
    answer = await getJSON(`/api/timeline?date=${day}&tz=${encodeURIComponent(browserZone())}`);
  } catch (error) {
    answer = { date: day, entries: [], error: error.message };
  }
  // Another day was picked while this one was asked (two clicks on "next"): that one is shown.
  if (document.getElementById('day-date').value !== day) return;
  app.day = answer;
  renderDay(true);
}

// The previews of the photos taken during an entry (at most eight), read by the server from each
// photo's file; a photo moved, deleted or without a preview shows as a placeholder with its name.
function photoStrip(photos) {
  if (!photos || !photos.length) return '';
  return el('div', { class: 'photos' }, ...photos.slice(0, 8).map((photo) => {
    const image = el('img', { loading: 'lazy', alt: photo.path, title: photo.path, src: `/api/photos/preview?path=${encodeURIComponent(photo.path)}` });
    image.addEventListener('error', () => image.replaceWith(el('span', { class: 'photo-missing', title: photo.path }, '▧')));
    return image;
  }));
}

// The day's entries in the panel (names as text, never markup), its stays on the map joined in
// the order they were visited.
function renderDay(fit) {
  const answer = app.day;
  const list = document.getElementById('day-entries');
  if (!answer) { list.replaceChildren(); return; }
  list.replaceChildren(...answer.entries.map((entry) => {
    const when = el('span', { class: 'when' }, `${clock(entry.start, answer.date)}–${clock(entry.end, answer.date)}`);
    const what = entry.type === 'stay'
      ? [entry.label ? t(entry.label) : null, stayName(entry)].filter(Boolean).join(' · ')
      : `${MODES[app.lang][entry.mode] || entry.mode} ${number(entry.distance_km, { maximumFractionDigits: 1, minimumFractionDigits: 1 })} km`;
    return el('li', { class: entry.type }, when, ' ', el('span', { class: 'what' }, what), photoStrip(entry.photos));
  }));
  // Photos of the day taken in no stay or move (a day of photos alone).
  if (answer.photos && answer.photos.length) list.append(el('li', { class: 'photos-only' }, photoStrip(answer.photos)));
  const empty = document.getElementById('day-empty');
  empty.hidden = answer.entries.length > 0;
  if (answer.error) empty.textContent = answer.error; else empty.textContent = t('noFixesThatDay');
  dayLayer.clearLayers();
  // The day's lines, drawn by the server from that day's fixes alone.
  if (answer.entries.length) {
    const span = `from=${answer.date}&to=${answer.date}&tz=${encodeURIComponent(browserZone())}`;
    L.tileLayer(`/api/tiles/lines/{z}/{x}/{y}.png?${span}`, { maxZoom: 18, pane: 'history', zIndex: 2, className: 'day-lines' }).addTo(dayLayer);
  }
  const stays = answer.entries.filter((entry) => entry.type === 'stay').map((entry) => [entry.lat, entry.lon]);
  if (stays.length > 1) L.polyline(stays, { color: '#f0b45b', weight: 2, dashArray: '4 6', interactive: false }).addTo(dayLayer);
  for (const point of stays) {
    L.circleMarker(point, { radius: 6, color: '#f0b45b', weight: 2, fillColor: '#f0b45b', fillOpacity: 0.5, interactive: false })
      .addTo(dayLayer);
  }
  if (fit && stays.length) map.fitBounds(L.latLngBounds(stays), { padding: [40, 40], maxZoom: 13, animate: false });
}

document.getElementById('day-date').value = localDay(new Date());
document.getElementById('day-date').addEventListener('change', loadDay);
document.getElementById('day-prev').addEventListener('click', () => {
  const input = document.getElementById('day-date');
  input.value = shiftDay(input.value || localDay(new Date()), -1);
  loadDay();
});
document.getElementById('day-next').addEventListener('click', () => {
  const input = document.getElementById('day-date');
  input.value = shiftDay(input.value || localDay(new Date()), 1);
  loadDay();
});

// ---------- phones ----------

function renderDevices() {
  const data = app.devices;
  if (!data) return;
  const hint = document.getElementById('phones-hint');
  hint.hidden = data.reachable_from_network;
  hint.textContent = t('loopbackOnly');
  const list = document.getElementById('device-list');
  list.replaceChildren();
  const live = data.devices.filter((device) => !device.revoked_at);
  if (!live.length) list.append(el('li', {}, t('noPhones')));
  for (const device of data.devices) {
    const when = (date) => new Date(date).toLocaleString(app.lang);
    let line = device.last_seen ? `${t('lastPosted')} ${when(device.last_seen)}` : t('neverPosted');
    if (device.fixes_posted + device.fixes_skipped > 0) {
      line += ` · ${device.fixes_posted.toLocaleString(app.lang)} ${t('positions')}`;
      if (device.fixes_skipped) line += `, ${device.fixes_skipped.toLocaleString(app.lang)} ${t('skipped')}`;
    }
    const item = el('li', { class: device.revoked_at ? 'revoked' : '', 'data-device': device.name },
      el('strong', {}, device.name), ' ', el('span', {}, device.revoked_at ? t('revoked') : line));
    if (!device.revoked_at) {
      const button = el('button', { type: 'button', class: 'revoke' }, t('revoke'));
      button.addEventListener('click', () => revokeDevice(device.name));
      item.append(' ', button);
    }
    list.append(item);
  }
}

async function revokeDevice(name) {
  if (!window.confirm(`${name}: ${t('revokeAsk')}`)) return;
  try {
    await postJSON(`/api/devices/${encodeURIComponent(name)}/revoke`);
    document.getElementById('device-added').hidden = true;
  } catch (error) { showDeviceError(error); }
  app.devices = await getJSON('/api/devices');
  renderDevices();
}

function showDeviceError(error) {
  const node = document.getElementById('device-error');
  node.textContent = error ? error.message : '';
  node.hidden = !error;
}

async function addDevice(event) {
  event.preventDefault();
  showDeviceError(null);
  const name = document.getElementById('device-name').value.trim(), url = document.getElementById('device-url').value.trim();
  let added;
  try { added = await postJSON('/api/devices', { name, url }); } catch (error) { return showDeviceError(error); }
  const box = document.getElementById('device-added');
  const codes = [['owntracks', 'OwnTracks'], ['overland', 'Overland']].map(([key, title]) => el('figure', {},
    el('img', { src: 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(added.qr[key]), alt: `${title} QR`, 'data-app': key }),
    el('figcaption', {}, title)));
  const others = [['Traccar Client', added.urls.traccar], ['OsmAnd', added.urls.osmand], ['GPSLogger', added.urls.gpslogger]]
    .map(([title, url]) => el('li', {}, el('strong', {}, title), ' ', el('code', {}, url)));
  box.replaceChildren(el('p', {}, t('tokenOnce')), el('code', { class: 'token' }, added.token), el('p', {}, t('scan')),
    el('div', { class: 'qr' }, ...codes), el('p', {}, t('otherApps')), el('ul', {}, ...others));
  box.hidden = false;
  document.getElementById('device-name').value = '';
  app.devices = await getJSON('/api/devices');
  renderDevices();
}

document.getElementById('device-form').addEventListener('submit', addDevice);
document.getElementById('device-url').value = window.location.origin;

// ---------- import ----------

function upload(file) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', '/api/tracks?name=' + encodeURIComponent(file.name));
    // The server takes writes only from its own page: this per-launch token proves it.
    request.setRequestHeader('X-Roqua-CSRF', document.querySelector('meta[name="roqua-csrf"]').content);
    const bar = document.getElementById('import-bar'), status = document.getElementById('import-status');
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) bar.style.width = `${Math.round(100 * event.loaded / event.total)}%`;
      status.textContent = `${t('uploading')} ${file.name}: ${Math.round(event.loaded / 1024)} KB`;
    };
    request.upload.onload = () => { bar.parentNode.classList.add('busy'); status.textContent = `${file.name}: ${t('reading')}`; };
    request.onload = () => {
      bar.parentNode.classList.remove('busy');
      let body = null;
      try { body = JSON.parse(request.responseText); } catch (ignored) { /* reported below with the status */ }
      if (request.status === 200 && body) resolve(body);
      // The page's token is the server's launch's: after a restart only a reload brings the new one.
      else if (request.status === 403) reject(new Error(t('restarted')));
      else reject(new Error(body && body.error ? body.error.message : `HTTP ${request.status}`));
    };
    request.onerror = () => { bar.parentNode.classList.remove('busy'); reject(new Error(t('networkError'))); };
    request.send(file);
  });
}

// An upload's answer in the page's language, from its fields (the server's `text` is the CLI's English).
function summaryLines(result) {
  if (result.format === 'archive') {
    return result.files.flatMap(summaryLines)
      .concat(result.failed.map((f) => `${f.file}: ${f.error}`))
      .concat(result.passed_over ? [`${number(result.passed_over)} ${t('passedOver')}`] : []);
  }
  if (result.already_imported) return [`${result.file}: ${t('importedBefore')}`];
  const lines = [`${result.file} (${result.format}): ${number(result.fixes_read)} ${t('fixesRead')}`
    + (result.dropped ? `, ${number(result.dropped)} ${t('droppedFixes')}` : ''),
  `  ${number(result.new_regions)} ${t('newRegions')}, ${number(result.revisits)} ${t('revisits')}`];
  for (const [key, level] of [['first_districts', 'district'], ['first_provinces', 'province'], ['first_countries', 'country']]) {
    if (result[key] && result[key].length) {
      lines.push(`  ${t('firstTime')} (${t(level)}): ${result[key].map((u) => nameOf(u.code, u.name)).join(', ')}`);
    }
  }
  for (const unlock of result.unlocked || []) lines.push(`  ${t('unlocked')}: ${unlock.title[app.lang] || unlock.id} (+${number(unlock.xp)} XP)`);
  if (result.level_up) lines.push(`  ${t('levelUp')}: ${number(result.level_up.from)} → ${number(result.level_up.to)}`);
  return lines;
}

// The uploads of the last import, each as its summary or its error, and how the last one ended.
function renderImports() {
  document.getElementById('import-summary').textContent = app.imports
    .map((entry) => (entry.result ? summaryLines(entry.result).join('\n') : `${entry.file}: ${entry.error}`) + '\n').join('');
  if (app.importStatus) document.getElementById('import-status').textContent = `${app.importStatus.file}: ${t(app.importStatus.key)}`;
}

async function importFiles(files) {
  if (app.busy || !files.length) return;
  app.busy = true;
  document.getElementById('import').hidden = false;
  app.imports = [];
  renderImports();
  let focus = null;
  for (const file of files) {
    document.getElementById('import-bar').style.width = '0';
    try {
      const result = await upload(file);
      app.imports.push({ file: file.name, result });
      if (result.first_districts.length) focus = result.first_districts;
      app.importStatus = { file: file.name, key: 'done' };
    } catch (error) {
      app.imports.push({ file: file.name, error: error.message });
      app.importStatus = { file: file.name, key: 'failed' };
    }
    renderImports();
  }
  document.getElementById('import-bar').style.width = '100%';
  await refresh();
  if (focus) {
    // Show where the new districts are: the province holding most of them.
    const counts = new Map();
    for (const first of focus) {
      const parent = app.units[first.code] && app.units[first.code].parent;
      if (parent) counts.set(parent, (counts.get(parent) || 0) + 1);
    }
    const best = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
    if (best) {
      const unit = (app.stats.units || []).find((u) => u.code === best[0]);
      await drill(best[0], unit ? unit.name : best[0]);
    }
  }
  app.busy = false;
  document.body.dataset.imported = String(Number(document.body.dataset.imported || 0) + 1);
}

document.getElementById('file').addEventListener('change', (event) => {
  importFiles([...event.target.files]);
  event.target.value = '';
});
let dragDepth = 0;
window.addEventListener('dragenter', (event) => { event.preventDefault(); dragDepth += 1; document.getElementById('drop').hidden = false; });
window.addEventListener('dragover', (event) => event.preventDefault());
window.addEventListener('dragleave', () => { dragDepth = Math.max(0, dragDepth - 1); if (!dragDepth) document.getElementById('drop').hidden = true; });
window.addEventListener('drop', (event) => {
  event.preventDefault();
  dragDepth = 0;
  document.getElementById('drop').hidden = true;
  importFiles([...event.dataTransfer.files]);
});
document.getElementById('lang').addEventListener('click', async () => {
  app.lang = app.lang === 'tr' ? 'en' : 'tr';
  try { window.localStorage.setItem('roqua.lang', app.lang); } catch (ignored) { /* storage off: this page only */ }
  applyLanguage();
  renderProgress(); renderProfile(); renderCrumbs(); renderDevices(); renderTravel(); renderImports(); renderDay(false);
  if (app.day) renderCalendar(app.day.date);
  app.achievements = await getJSON('/api/achievements?lang=' + app.lang);
  renderAchievements();
});

// ---------- start ----------

async function start() {
  // Parent links for the breadcrumb: from the shapes already fetched (world → countries → provinces).
  const world = await shapes('world');
  for (const feature of world.features) app.units[feature.properties.code] = { parent: null, name: feature.properties.name };
  app.home = world.features.some((f) => f.properties.code === 'TR') ? 'TR' : null;
  if (app.home) {
    const provinces = await shapes('TR');
    for (const feature of provinces.features) app.units[feature.properties.code] = { parent: 'TR', name: feature.properties.name };
  }
  const mark = (await getJSON('/api/changes')).mark;
  // Open on the user's own places (the whole world only for an empty store), drilled into the
  // deepest unit that holds them all.
  const view = await getJSON('/api/view');
  if (view.bounds) {
    app.stack = [app.stack[0]].concat(view.units.map((code) => ({ code, name: null })));
    const [south, west, north, east] = view.bounds;
    // Not animated: the page opens there (an animated zoom of four levels or fewer would leave
    // the world in view for a quarter second after the page said it was ready).
    map.fitBounds([[south, west], [north, east]], { padding: [20, 20], maxZoom: 14, animate: false });
  }
  await Promise.all([showLevel(false), refresh()]);
  document.body.dataset.ready = String(Math.round(performance.now()));
  watchChanges(mark);
}

start().catch((error) => {
  document.getElementById('progress-list').replaceChildren(el('li', {}, error.message));
  document.body.dataset.ready = 'error';
});
