// The browser view (/play, issue 20) in a real Chromium: Debian's chromium package driven by
// playwright-core, nothing downloaded. Starts its own tacticsd, plays an encounter through the
// API, and checks the page against the API's own answers:
//   - step to event N: the combatant list and the board's SVG are those of state?at=N and
//     map.svg?at=N, and the URL is /play?encounter=ID&at=N;
//   - a write posted by the test shows on the open page (timeline, table and board), brought by
//     the live feed (how soon: bench/play_live.mjs, against issue 20's 1 s);
//   - the playground, set up as a flank, shows the +2 flanking modifier;
//   - no console error on any page; the phone-width page does not scroll sideways.
// Every wait is for the page or the server to get there (Playwright's timeouts are off: 0), so a
// loaded machine makes the test slower, never failing; CTest's TIMEOUT bounds a hang.
// Screenshots (desktop 1280 px, phone 390 px, playground) go to SCREENSHOT_DIR.
//   node play.test.mjs TACTICSD_PATH [SCREENSHOT_DIR]
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const tacticsd = process.argv[2] || process.env.TACTICSD;
const shots = process.argv[3] || process.env.SCREENSHOT_DIR || null;
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!tacticsd) throw new Error('usage: node play.test.mjs TACTICSD_PATH [SCREENSHOT_DIR]');

let server, base, browser, dir;
const consoleErrors = [];

// Starts tacticsd on a free port with a fresh database; resolves with its base URL.
function startServer() {
  dir = mkdtempSync(join(tmpdir(), 'tactics-browser-'));
  server = spawn(tacticsd, ['--port', '0', '--db', join(dir, 't.db'), '--threads', '2'],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let log = '';
    server.stderr.on('data', (chunk) => {
      log += chunk;
      const m = /"event":"listening".*?"port":(\d+)/.exec(log);
      if (m && !base) {
        base = `http://127.0.0.1:${m[1]}`;
        resolve(base);
      }
    });
    server.on('exit', (code) => reject(new Error(`tacticsd exited ${code}: ${log}`)));
  });
}

// The API, as a client of the encounter: its token and version.
const enc = { id: null, token: null, version: 0 };
async function call(method, path, body) {
  const headers = { Authorization: `Bearer ${enc.token}`, 'If-Match': `"v${enc.version}"` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(`${base}/v1/encounters/${enc.id}${path}`,
    { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const doc = await r.json();
  assert.ok(r.ok, `${method} ${path}: ${r.status} ${JSON.stringify(doc)}`);
  enc.version = doc.version;
  return doc;
}
const get = async (path) => {
  const r = await fetch(`${base}${path}`);
  assert.equal(r.status, 200, path);
  return (r.headers.get('Content-Type') || '').includes('json') ? r.json() : r.text();
};

// create, three combatants, initiative, the first turn, an attack, a 5-foot step: 7 events or
// more (a hit may add its own).
async function playEncounter() {
  const r = await fetch(`${base}/v1/encounters`, { method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Browser test', map: { width: 10, height: 8 }, seed: 11 }) });
  const doc = await r.json();
  assert.equal(r.status, 201);
  Object.assign(enc, { id: doc.id, token: doc.token, version: 1 });
  const fighter = { id: 'fighter', side: 'party', x: 4, y: 4, speeds: { walk: 30 }, defense: { armor: 5 },
    max_hp: 20, dex: 12, attacks: [{ name: 'longsword', attack_bonus: 8, damage: '1d8+3' }] };
  const rogue = { id: 'rogue', side: 'party', x: 6, y: 4, speeds: { walk: 30 }, defense: { armor: 2 },
    max_hp: 12, dex: 16, attacks: [{ name: 'rapier', attack_bonus: 6, damage: '1d6+1' }] };
  const goblin = { id: 'goblin', side: 'monsters', x: 5, y: 4, speeds: { walk: 30 }, defense: { armor: 2 },
    max_hp: 9, dex: 13, attacks: [{ name: 'morningstar', attack_bonus: 2, damage: '1d6' }] };
  for (const c of [fighter, rogue, goblin]) await call('POST', '/combatants', c);
  await call('POST', '/initiative');
  const turn = await call('POST', '/next-turn');
  const state = turn.state;
  const actor = state.order[state.turn];
  const target = actor === 'goblin' ? 'fighter' : 'goblin';
  await call('POST', '/actions', { type: 'attack', actor, target });
  const me = state.combatants.find((c) => c.id === actor);
  await call('POST', '/actions', { type: 'five_foot_step', actor, path: [{ x: me.x, y: me.y + 1 }] });
  return enc.version;
}

function watch(page) {
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`); });
  page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
}

before(async () => {
  await startServer();
  browser = await chromium.launch({ executablePath: browserPath, headless: true, timeout: 0,
    args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  if (shots) mkdirSync(shots, { recursive: true });
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// A page whose waits (selectors, navigation) wait as long as it takes.
async function newPage(options) {
  const page = await browser.newPage(options);
  page.setDefaultTimeout(0);
  return page;
}

// What the page shows in its combatant table, row by row.
const tableRows = (page) => page.$$eval('#combatants tbody tr', (rows) => rows.map((tr) => {
  const cell = (c) => tr.querySelector(`[data-col="${c}"]`).textContent;
  return { id: tr.dataset.id, hp: cell('hp'), conditions: cell('conditions'), square: cell('square'), left: cell('left') };
}));

// What state?at=N says the table must show.
function expectedRows(state) {
  return state.combatants.map((c) => ({
    id: c.id,
    hp: `${c.hp} / ${c.max_hp}` + (c.hp_state ? ` (${c.hp_state})` : ''),
    conditions: (c.conditions || []).join(', ') || 'none',
    square: `${c.x}, ${c.y}`,
    left: c.turn && c.turn.left
      ? (Object.entries(c.turn.left).filter(([, v]) => v).map(([k]) => k.replace(/_/g, ' ')).join(', ') || 'none')
      : '-',
  }));
}

const creatureIds = (svgText) => [...svgText.matchAll(/<g id="creature-[^"]*" data-id="([^"]*)" class="creature"/g)]
  .map((m) => m[1]).sort();

test('stepping to event N shows state?at=N and map.svg?at=N, and the URL names it', async () => {
  const version = await playEncounter();
  assert.ok(version >= 7, `version ${version}`);
  const page = await newPage({ viewport: { width: 1280, height: 900 } });
  watch(page);
  await page.goto(`${base}/play?encounter=${enc.id}`);
  await page.waitForSelector(`#board[data-at="${version}"] svg`);
  assert.equal(await page.locator('#timeline li').count(), version);
  // Step back three events with the arrow key and one forward with the button: the first turn,
  // before the attack, or the attack when a hit made an event of its own.
  const n = version - 2;
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.click('#next');
  await page.waitForSelector(`#board[data-at="${n}"] svg`);
  await page.waitForSelector(`#combatants[data-at="${n}"]`);
  assert.equal(new URL(page.url()).search, `?encounter=${enc.id}&at=${n}`);
  assert.equal(await page.inputValue('#scrubber'), String(n));
  const state = (await get(`/v1/encounters/${enc.id}/state?at=${n}`)).state;
  assert.deepEqual(await tableRows(page), expectedRows(state));
  // The board is the server's map.svg?at=N: the same creatures, and the same picture.
  const svg = await get(`/v1/encounters/${enc.id}/map.svg?at=${n}`);
  const shown = await page.$eval('#board svg', (el) => el.outerHTML);
  assert.deepEqual(creatureIds(shown), state.combatants.map((c) => c.id).sort());
  assert.deepEqual(creatureIds(shown), creatureIds(svg));
  const count = (text, re) => (text.match(re) || []).length;
  assert.equal(count(shown, /<(rect|path|circle|text|line)\b/g), count(svg, /<(rect|path|circle|text|line)\b/g));
  // The selected event is marked in the timeline, with its explanation.
  assert.equal(await page.getAttribute('#timeline button[aria-current="step"]', 'data-seq'), String(n));
  // A shared link opens the same event.
  const again = await newPage({ viewport: { width: 1280, height: 900 } });
  watch(again);
  await again.goto(`${base}/play?encounter=${enc.id}&at=3`);
  await again.waitForSelector('#board[data-at="3"] svg');
  assert.deepEqual(await tableRows(again),
    expectedRows((await get(`/v1/encounters/${enc.id}/state?at=3`)).state));
  await again.close();
  if (shots) await page.screenshot({ path: join(shots, 'play-desktop.png'), fullPage: true });
  await page.close();
});

test('a write posted by the test shows on the open page, brought by the live feed', async () => {
  const page = await newPage({ viewport: { width: 1280, height: 900 } });
  watch(page);
  await page.goto(`${base}/play?encounter=${enc.id}`);
  await page.waitForSelector(`#board[data-at="${enc.version}"] svg`);
  await page.waitForSelector('#live-badge.live');
  const before = enc.version;
  await call('PATCH', '/combatants/goblin', { hp: 3 });
  await page.waitForSelector(`#timeline button[data-seq="${before + 1}"]`);
  await page.waitForSelector(`#combatants[data-at="${before + 1}"]`);
  const goblin = (await tableRows(page)).find((r) => r.id === 'goblin');
  assert.match(goblin.hp, /^3 \/ 9/);
  await page.waitForSelector(`#board[data-at="${before + 1}"] svg`);
  await page.close();
});

test('at phone width the page fits and still shows the encounter', async () => {
  const page = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  watch(page);
  await page.goto(`${base}/play?encounter=${enc.id}&at=6`);
  await page.waitForSelector('#board[data-at="6"] svg');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
  if (shots) await page.screenshot({ path: join(shots, 'play-phone.png'), fullPage: true });
  await page.close();
});

test('the playground set up as a flank shows the +2 flanking modifier and the picture', async () => {
  const page = await newPage({ viewport: { width: 1280, height: 900 } });
  watch(page);
  await page.goto(`${base}/play#playground`);
  await page.waitForSelector('#pg-preset option[value="d20-3.5"]', { state: 'attached' });
  await page.selectOption('#pg-preset', 'd20-3.5');
  const cell = (x, y) => page.click(`#grid button[data-x="${x}"][data-y="${y}"]`);
  await page.check('input[name=place][value=attacker]');
  await cell(2, 3);
  await page.check('input[name=place][value=defender]');
  await cell(3, 3);
  await page.check('input[name=place][value=ally]');
  await cell(4, 3);
  assert.equal(await page.getAttribute('#grid button[data-x="4"][data-y="3"]', 'data-role'), 'ally');
  await page.click('#pg-attack');
  const flank = page.locator('#pg-modifiers li', { hasText: 'flanking' });
  await flank.waitFor();
  assert.match(await flank.textContent(), /^\+2 attack: flanking the defender \(004 Flanking\)/);
  await page.waitForSelector('#pg-picture svg');
  // The same squares without the ally: no flanking modifier.
  await cell(4, 3);
  await page.click('#pg-attack');
  await page.waitForFunction(() => ![...document.querySelectorAll('#pg-modifiers li')]
    .some((li) => li.textContent.includes('flanking')));
  await cell(4, 3);
  await page.click('#pg-attack');
  await flank.waitFor();
  // A move past the defender: its path, cost and attack of opportunity.
  await page.check('input[name=place][value=path]');
  await cell(2, 2);
  await cell(3, 2);
  await page.click('#pg-move');
  await page.waitForSelector('#pg-aoo li');
  assert.match(await page.textContent('#pg-cost'), /^Cost 10 ft/);
  assert.match(await page.textContent('#pg-aoo'), /defender attacks on step/);
  await page.click('#pg-attack');
  await flank.waitFor();
  if (shots) await page.locator('#playground').screenshot({ path: join(shots, 'playground.png') });
  await page.close();
});

test('no page logged a console error', () => {
  assert.deepEqual(consoleErrors, []);
});
