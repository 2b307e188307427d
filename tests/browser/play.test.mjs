// The browser view (/play, issue 20) in a real Chromium: Debian's chromium package driven by
// playwright-core, nothing downloaded. Starts its own tacticsd, plays an encounter through the
// API, and checks the page against the API's own answers:
//   - step to event N: the combatant list and the board's SVG are those of state?at=N and
//     map.svg?at=N, and the URL is /play?encounter=ID&at=N; the list names each token by its
//     label on the board, and no two labels are alike (issue 31: "the fighter" and "the
//     footpad" would both be "tf");
//   - a write posted by the test shows on the open page (timeline, table and board), brought by
//     the live feed (how soon: bench/play_live.mjs, against issue 20's 1 s);
//   - the playground, set up as a flank, shows the +2 flanking modifier;
//   - no console error on any page; the phone-width page does not scroll sideways, shows the
//     board first (above its controls, the combatants and the timeline), and its token labels
//     and legend at 11 CSS px or more (about 4 px before), the legend all on screen under the
//     board's frame when the board scrolls sideways;
//   - the page's Content-Security-Policy names its script by hash: an injected script is refused;
//   - axe-core (tests/browser/package-lock.json), injected into the page, finds no critical or
//     serious violation at 1366 and 390 px, light and dark, in the replay (at an event, at
//     the first with Previous off) and the playground (after an attack and after a move);
//     what axe leaves unmeasured (one-character text, the edges of controls) is measured
//     here: 4.5:1 for text, 3:1 for the edges of controls;
//   - the keyboard (issue 34): a skip link first; Previous and Next keep the focus when they
//     turn off at either end; the timeline and the grid are one Tab stop each, with arrow
//     keys inside; Left and Right move the replay only while it (or nothing) has the focus,
//     never from a playground square; the playground's result is announced (a live region).
// Every wait is for the page or the server to get there (Playwright's timeouts are off: 0), so a
// loaded machine makes the test slower, never failing; CTest's TIMEOUT bounds a hang.
// Screenshots (desktop 1280 px, phone 390 px, playground) go to SCREENSHOT_DIR.
//   node play.test.mjs TACTICSD_PATH [SCREENSHOT_DIR]
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const tacticsd = process.argv[2] || process.env.TACTICSD;
const shots = process.argv[3] || process.env.SCREENSHOT_DIR || null;
const browserPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!tacticsd) throw new Error('usage: node play.test.mjs TACTICSD_PATH [SCREENSHOT_DIR]');
// axe-core's browser build, injected into each page checked.
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

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
  const fighter = { id: 'fighter', name: 'the fighter', side: 'party', x: 4, y: 4, speeds: { walk: 30 }, defense: { armor: 5 },
    max_hp: 20, dex: 12, attacks: [{ name: 'longsword', attack_bonus: 8, damage: '1d8+3' }] };
  const rogue = { id: 'rogue', name: 'the footpad', side: 'party', x: 6, y: 4, speeds: { walk: 30 }, defense: { armor: 2 },
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

// Each creature's token label in an SVG board (id -> label): the text with a halo in its group.
const boardLabels = (svgText) => Object.fromEntries([...svgText.matchAll(
  /<g id="creature-[^"]*" data-id="([^"]*)" class="creature[^"]*">(?:(?!<\/g>)[\s\S])*?<text [^>]*stroke="[^"]*"[^>]*>([^<]*)<\/text>/g)]
  .map((m) => [m[1], m[2]]));

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
  // The board is the server's map.svg?at=N (at the size the page asked): the same creatures,
  // and the same picture.
  const src = await page.getAttribute('#board', 'data-src');
  assert.match(src, new RegExp(`^/v1/encounters/${enc.id}/map\\.svg\\?at=${n}&size=\\d+$`));
  const svg = await get(src);
  const shown = await page.$eval('#board svg', (el) => el.outerHTML);
  assert.deepEqual(creatureIds(shown), state.combatants.map((c) => c.id).sort());
  assert.deepEqual(creatureIds(shown), creatureIds(svg));
  const count = (text, re) => (text.match(re) || []).length;
  assert.equal(count(shown, /<(rect|path|circle|text|line)\b/g), count(svg, /<(rect|path|circle|text|line)\b/g));
  // Each row names its token as the board labels it, and no two tokens are labelled alike.
  const labels = boardLabels(svg);
  const tokens = await page.$$eval('#combatants tbody tr', (rows) => rows.map((tr) =>
    [tr.dataset.id, tr.querySelector('[data-col="token"]').textContent]));
  assert.deepEqual(Object.fromEntries(tokens), labels);
  assert.equal(new Set(Object.values(labels)).size, state.combatants.length, JSON.stringify(labels));
  assert.equal(labels.fighter, 'tfi');
  assert.equal(labels.rogue, 'tfo');
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
  // The board comes first: above its controls, the combatants and the timeline.
  const top = (sel) => page.$eval(sel, (e) => e.getBoundingClientRect().top);
  const boardTop = await top('#board');
  for (const other of ['#prev', '#combatants', '#timeline'])
    assert.ok(boardTop < await top(other), `the board (top ${boardTop}) is above ${other} (top ${await top(other)})`);
  // Its token labels and legend are drawn at 11 CSS px or more: each text's font size in the
  // picture times the picture's scale on the page.
  const small = await page.evaluate(() => {
    const svg = document.querySelector('#board svg');
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const px = (t) => parseFloat(t.getAttribute('font-size')) * scale;
    const texts = [...svg.querySelectorAll('g.creature > text[stroke]')]
      .concat([...svg.querySelectorAll('g.legend text')].filter((t) => t.textContent.length > 1));
    return { labels: svg.querySelectorAll('g.creature > text[stroke]').length,
      small: texts.filter((t) => px(t) < 11).map((t) => `"${t.textContent}" ${px(t).toFixed(1)} px`) };
  });
  assert.equal(small.labels, 3, 'the three tokens are labelled');
  assert.deepEqual(small.small, []);
  // The board scrolls sideways, its legend does not: every item of it is on the screen, at
  // 11 CSS px or more, under the frame (the legend flowed at the picture's width started
  // scrolled out of view).
  const legend = await page.evaluate(() => {
    const svg = document.querySelector('#board-legend svg');
    const frame = document.querySelector('#board-frame').getBoundingClientRect();
    if (!svg) return null;
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const items = [...svg.querySelectorAll('g.legend-item')].map((g) => {
      const r = g.getBoundingClientRect();
      return { text: g.querySelector('text:last-of-type').textContent, left: r.left, right: r.right,
        px: parseFloat(g.querySelector('text:last-of-type').getAttribute('font-size')) * scale };
    });
    return { items, below: svg.getBoundingClientRect().top >= frame.bottom - 1, width: window.innerWidth };
  });
  assert.ok(legend, 'the legend is under the board');
  assert.ok(legend.below, 'the legend is under the frame');
  assert.ok(legend.items.length >= 3, JSON.stringify(legend.items));
  for (const it of legend.items) {
    assert.ok(it.left >= 0 && it.right <= legend.width, `"${it.text}" at ${it.left}..${it.right} of ${legend.width} px`);
    assert.ok(it.px >= 11, `"${it.text}" at ${it.px} px`);
  }
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

// axe-core's violations of impact critical or serious on the page as it is now, each as
// "rule (impact): targets", over the rules of WCAG 2.0, 2.1 and 2.2 A and AA (2.2's
// target-size among them, which axe leaves out by default) and axe's best practices.
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice'];
async function axeViolations(page) {
  /* Through the DevTools protocol, which the page's policy does not govern: a script tag
   * would be refused, as any inline script not the page's own is. */
  await page.evaluate(axeSource);
  const result = await page.evaluate(async (tags) => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
  }, AXE_TAGS);
  return result.filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `${v.id} (${v.impact}): ${v.targets.slice(0, 5).join(', ')}`);
}

for (const width of [1366, 390])
  for (const scheme of ['light', 'dark'])
    test(`axe finds no critical or serious violation at ${width} px, ${scheme}, in the replay and the playground`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme });
      watch(page);
      const found = [];
      // The replay at an event in the middle, and at the first (Previous turned off).
      await page.goto(`${base}/play?encounter=${enc.id}&at=4`);
      await page.waitForSelector('#board[data-at="4"] svg');
      found.push(...(await axeViolations(page)).map((v) => `replay at 4: ${v}`));
      await page.goto(`${base}/play?encounter=${enc.id}&at=1`);
      await page.waitForSelector('#board[data-at="1"] svg');
      assert.equal(await page.getAttribute('#prev', 'aria-disabled'), 'true');
      found.push(...(await axeViolations(page)).map((v) => `replay at 1: ${v}`));
      // The playground after an attack, then after a move.
      await page.goto(`${base}/play#playground`);
      await page.waitForSelector('#pg-preset option[value="d20-3.5"]', { state: 'attached' });
      await page.click('#pg-attack');
      await page.waitForSelector('#pg-modifiers li');
      await page.waitForSelector('#pg-picture svg');
      found.push(...(await axeViolations(page)).map((v) => `playground, attack: ${v}`));
      await page.check('input[name=place][value=path]');
      await page.click('#grid button[data-x="2"][data-y="2"]');
      await page.click('#pg-move');
      await page.waitForSelector('#pg-aoo li');
      found.push(...(await axeViolations(page)).map((v) => `playground, move: ${v}`));
      assert.deepEqual(found, []);
      await page.close();
    });

// What axe leaves to a person (it does not judge one-character text, such as a square's
// number, nor the edges of controls), measured from the computed colours by WCAG's formula:
// the grid's marks and the pictures' plain text (axis numbers, legend) at least 4.5:1, the
// edge of every field, button and grid square at least 3:1 against what surrounds it.
for (const scheme of ['light', 'dark'])
  test(`contrast axe cannot measure, ${scheme}: grid marks and picture text 4.5:1, control edges 3:1`, async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 }, colorScheme: scheme });
    watch(page);
    await page.goto(`${base}/play?encounter=${enc.id}&at=4#playground`);
    await page.waitForSelector('#board[data-at="4"] svg');
    await page.waitForSelector('#pg-preset option[value="d20-3.5"]', { state: 'attached' });
    await page.check('input[name=place][value=ally]');
    await page.click('#grid button[data-x="4"][data-y="3"]');
    await page.check('input[name=place][value=path]');
    await page.click('#grid button[data-x="2"][data-y="2"]');
    await page.click('#pg-move');
    await page.waitForSelector('#pg-aoo li');
    await page.waitForSelector('#pg-picture svg');
    const low = await page.evaluate(() => {
      const rgb = (c) => {
        const m = /rgba?\(([\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)(?:[ ,/]+([\d.]+))?/.exec(c);
        if (m) return { c: [+m[1], +m[2], +m[3]], a: m[4] === undefined ? 1 : +m[4] };
        const h = /^#([0-9a-f]{6})$/i.exec(c);
        return h ? { c: [0, 2, 4].map((i) => parseInt(h[1].slice(i, i + 2), 16)), a: 1 } : null;
      };
      const lum = ({ c }) => {
        const [r, g, b] = c.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
      // The colour behind an element: the nearest ancestor's opaque background.
      const behind = (el) => {
        for (let e = el.parentElement; e; e = e.parentElement) {
          const bg = rgb(getComputedStyle(e).backgroundColor);
          if (bg && bg.a > 0) return bg;
        }
        return rgb(getComputedStyle(document.documentElement).backgroundColor) || { c: [255, 255, 255], a: 1 };
      };
      const out = [];
      for (const b of document.querySelectorAll('#grid button[data-role]:not([data-role=""])')) {
        const st = getComputedStyle(b);
        const r = ratio(rgb(st.color), rgb(st.backgroundColor));
        if (r < 4.5) out.push(`grid ${b.dataset.role} mark ${r.toFixed(2)}:1`);
      }
      for (const svg of document.querySelectorAll('#board svg, #pg-picture svg')) {
        const canvas = rgb(svg.querySelector('rect').getAttribute('fill'));
        for (const t of svg.querySelectorAll('text:not([stroke])')) {
          const r = ratio(rgb(t.getAttribute('fill')), canvas);
          if (r < 4.5) out.push(`picture text "${t.textContent}" ${r.toFixed(2)}:1`);
        }
      }
      for (const el of document.querySelectorAll('input:not([type=radio]):not([type=range]):not([type=hidden]), select, button, fieldset')) {
        const st = getComputedStyle(el);
        if (st.borderTopStyle === 'none' || parseFloat(st.borderTopWidth) === 0 || el.offsetParent === null) continue;
        const r = ratio(rgb(st.borderTopColor), behind(el));
        if (r < 3) out.push(`edge of ${el.id ? '#' + el.id : el.tagName.toLowerCase() + (el.dataset.x ? ` ${el.dataset.x},${el.dataset.y}` : '')} ${r.toFixed(2)}:1`);
      }
      return out;
    });
    assert.deepEqual(low, []);
    await page.close();
  });

// The element that has the focus, as "#id" or "tag[data-x,data-y]".
const focused = (page) => page.evaluate(() => {
  const e = document.activeElement;
  if (!e || e === document.body) return 'body';
  if (e.dataset.x !== undefined) return `square ${e.dataset.x},${e.dataset.y}`;
  if (e.dataset.seq !== undefined) return `event ${e.dataset.seq}`;
  return e.id ? `#${e.id}` : e.tagName.toLowerCase() + (e.className ? `.${e.className}` : '');
});

test('the keyboard: a skip link, focus kept at the ends, one stop for the timeline and the grid, keys scoped to the focus', async () => {
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  watch(page);
  await page.goto(`${base}/play?encounter=${enc.id}&at=2`);
  await page.waitForSelector('#board[data-at="2"] svg');
  // The first Tab stop is the skip link; following it puts the focus on the content.
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'a.skip-link');
  await page.keyboard.press('Enter');
  assert.equal(await focused(page), '#main');
  // Tab through the whole page: the timeline and the grid are one stop each.
  const stops = [];
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    if (stops.includes(f) && f !== 'body') break;
    stops.push(f);
  }
  assert.deepEqual(stops.filter((f) => f.startsWith('event ')), ['event 2']);
  assert.deepEqual(stops.filter((f) => f.startsWith('square ')), ['square 0,0']);
  // Next at the last event turns off and keeps the focus; so does Previous at the first.
  const last = enc.version;
  await page.focus('#next');
  for (let n = 3; n <= last; n++) {
    await page.keyboard.press('Enter');
    await page.waitForSelector(`#board[data-at="${n}"] svg`);
  }
  assert.equal(await page.getAttribute('#next', 'aria-disabled'), 'true');
  assert.equal(await focused(page), '#next');
  await page.keyboard.press('Enter'); /* off: nothing moves */
  assert.equal(await page.inputValue('#scrubber'), String(last));
  await page.focus('#prev');
  for (let n = last - 1; n >= 1; n--) {
    await page.keyboard.press('Space');
    await page.waitForSelector(`#board[data-at="${n}"] svg`);
  }
  assert.equal(await page.getAttribute('#prev', 'aria-disabled'), 'true');
  assert.equal(await focused(page), '#prev');
  // In the timeline, Down and End move to an event and show it, the focus with it.
  await page.focus('#timeline button[data-seq="1"]');
  await page.keyboard.press('ArrowDown');
  await page.waitForSelector('#board[data-at="2"] svg');
  assert.equal(await focused(page), 'event 2');
  await page.keyboard.press('End');
  await page.waitForSelector(`#board[data-at="${last}"] svg`);
  assert.equal(await focused(page), `event ${last}`);
  // Left and Right from the replay move it...
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector(`#board[data-at="${last - 1}"] svg`);
  // ...but from a playground square they move within the grid, and the replay stays.
  await page.focus('#grid button[data-x="0"][data-y="0"]');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(page), 'square 2,1');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await focused(page), 'square 1,1');
  await page.keyboard.press('End');
  assert.equal(await focused(page), 'square 7,1');
  assert.equal(await page.inputValue('#scrubber'), String(last - 1));
  assert.equal(await page.getAttribute('#board', 'data-at'), String(last - 1));
  // The square reached is the grid's one stop now, and Enter places there.
  assert.deepEqual(await page.$$eval('#grid button[tabindex="0"]', (bs) => bs.map((b) => `${b.dataset.x},${b.dataset.y}`)), ['7,1']);
  await page.check('input[name=place][value=defender]');
  await page.focus('#grid button[data-x="7"][data-y="1"]');
  await page.keyboard.press('Enter');
  assert.equal(await page.inputValue('#pg-dx'), '7');
  assert.equal(await page.inputValue('#pg-dy'), '1');
  // A result is announced: the live region holds it.
  assert.equal(await page.getAttribute('#pg-announce', 'aria-live'), 'polite');
  await page.click('#pg-attack');
  await page.waitForFunction(() => /^Attack: total /.test(document.getElementById('pg-announce').textContent));
  await page.close();
});

// The page's policy (issue 28): /play runs its own inline script only, named by its SHA-256
// (computed from play.html at build time), never 'unsafe-inline'. Every test above runs the page
// under that policy with no console error, a violation included. Here a script injected into the
// page, as an element or as an event handler attribute, must not run, and the browser reports
// each as a violation of script-src. This page is not watched: those two reports are errors.
test('the policy names the page script by its hash and refuses an injected inline script', async () => {
  const r = await fetch(`${base}/play`);
  const policy = r.headers.get('Content-Security-Policy') || '';
  const html = await r.text();
  const scriptSrc = policy.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src '));
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)[1];
  const hash = createHash('sha256').update(script, 'utf8').digest('base64');
  assert.equal(scriptSrc, `script-src 'sha256-${hash}'`, policy);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // Before the page's own script: every violation the document reports, kept for the test.
  await page.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation',
      (e) => window.cspViolations.push(`${e.effectiveDirective} ${e.sample}`));
  });
  await page.goto(`${base}/play?encounter=${enc.id}&at=3`);
  await page.waitForSelector('#board[data-at="3"] svg'); /* the page's script ran */
  assert.deepEqual(await page.evaluate(() => window.cspViolations), []);
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.injected = "element";';
    document.body.append(s);
    const d = document.createElement('div');
    d.innerHTML = '<img alt="" src="data:," onerror="window.injected = \'handler\'">';
    document.body.append(d);
  });
  await page.waitForFunction(() => window.cspViolations.length >= 2);
  assert.equal(await page.evaluate(() => window.injected), undefined);
  const seen = (await page.evaluate(() => window.cspViolations)).map((v) => v.split(' ')[0]).sort();
  assert.deepEqual(seen, ['script-src-attr', 'script-src-elem']);
  await page.close();
});

test('no page logged a console error', () => {
  assert.deepEqual(consoleErrors, []);
});
