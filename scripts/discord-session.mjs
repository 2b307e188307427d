// Plays a short fight through POST /v1/discord/interactions as Discord would send it (signed
// with a key made here, shaped as Discord's "Receiving and Responding" documents), against a
// real tacticsd, and prints the channel as its members would read it: each slash command and
// the reply's content. The frames a move's and an attack's replies attach
// (map.png?at=N&overlay=event: what the action did) are written to OUT_DIR as
// discord-<n>-<command>.png. README's "A Discord channel session" is this script's output.
//   node scripts/discord-session.mjs TACTICSD_PATH OUT_DIR
// Tooling only (Node's own crypto signs Ed25519); the server needs none of it. It fails when
// a reply is a refusal or a move or an attack comes without its frame (CTest discord_session).
import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const [tacticsd, outDir] = process.argv.slice(2);
if (!tacticsd || !outDir) {
  console.error('usage: node scripts/discord-session.mjs TACTICSD_PATH OUT_DIR');
  process.exit(2);
}
const GM = '111111111111111111';
const PLAYER = '222222222222222222';
const CHANNEL = '333333333333333333';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const publicHex = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url').toString('hex');

// Discord's API as the server's followups reach it (--discord-api): a command that takes
// longer than --discord-defer-ms is answered DEFERRED (type 5) and finished by a PATCH of
// .../messages/@original, which comes here; command() then awaits it and reads its message.
const followups = [];
const awaiting = [];
const api = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{}');
    const f = { method: req.method, url: req.url, type: req.headers['content-type'] ?? '',
      bytes: Buffer.concat(chunks) };
    if (awaiting.length) awaiting.shift()(f);
    else followups.push(f);
  });
});
await new Promise((resolve) => api.listen(0, '127.0.0.1', resolve));
const nextFollowup = () => (followups.length ? Promise.resolve(followups.shift())
  : new Promise((resolve) => awaiting.push(resolve)));

const dir = mkdtempSync(join(tmpdir(), 'discord-session-'));
const server = spawn(tacticsd, ['--port', '0', '--db', join(dir, 'session.db'),
  '--discord-public-key', publicHex, '--discord-defer-ms', '2900',
  '--discord-api', `http://127.0.0.1:${api.address().port}/api/v10`],
{ stdio: ['ignore', 'ignore', 'pipe'] });
const stop = () => {
  server.kill('SIGTERM');
  api.close();
  rmSync(dir, { recursive: true, force: true });
};
// Ready when the server logs where it listens (or fails when it exits first).
const port = await new Promise((resolve, reject) => {
  server.on('exit', (code) => reject(new Error(`tacticsd exited ${code}`)));
  createInterface({ input: server.stderr }).on('line', (line) => {
    const m = /"listening".*"port":(\d+)/.exec(line);
    if (m) resolve(Number(m[1]));
  });
});
const base = `http://127.0.0.1:${port}`;

async function rest(method, path, body, headers = {}) {
  const r = await fetch(base + path, {
    method, headers: { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const doc = await r.json();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(doc)}`);
  return doc;
}

let sent = 0;
// One slash command, signed; returns {data, png} (the reply's message and its attached frame).
async function command(user, name, options = []) {
  sent++;
  const body = JSON.stringify({
    type: 2, id: `10${String(sent).padStart(16, '0')}`, application_id: '123456789012345678',
    token: `session-${sent}`, version: 1, guild_id: '555555555555555555', channel_id: CHANNEL,
    member: { user: { id: user, username: user === GM ? 'gm' : 'player' }, roles: [] },
    data: { id: '777777777777777777', name, type: 1, options },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = sign(null, Buffer.from(timestamp + body), privateKey).toString('hex');
  const r = await fetch(`${base}/v1/discord/interactions`, {
    method: 'POST', body,
    headers: { 'Content-Type': 'application/json', 'X-Signature-Ed25519': signature,
      'X-Signature-Timestamp': timestamp },
  });
  if (r.status !== 200) throw new Error(`/${name}: ${r.status} ${await r.text()}`);
  const reply = parse(r.headers.get('content-type') ?? '', Buffer.from(await r.arrayBuffer()));
  if (reply.json.type !== 5) return { data: reply.json.data, png: reply.png };
  // Deferred: the reply is the followup's message (with its frame, when it has one).
  const f = await nextFollowup();
  const path = `/api/v10/webhooks/123456789012345678/session-${sent}/messages/@original`;
  if (f.method !== 'PATCH' || f.url !== path) throw new Error(`/${name}: ${f.method} ${f.url}`);
  const followup = parse(f.type, f.bytes);
  return { data: followup.json, png: followup.png };
}

// A reply's or a followup's body: its JSON, and the frame attached (Discord's "Uploading
// Files": payload_json, then files[0]).
function parse(type, bytes) {
  if (!type.startsWith('multipart/form-data; boundary=')) return { json: JSON.parse(bytes) };
  const delim = Buffer.from(`--${type.slice('multipart/form-data; boundary='.length)}`);
  const parts = [];
  for (let at = bytes.indexOf(delim); at >= 0;) {
    const next = bytes.indexOf(delim, at + delim.length);
    if (next < 0) break;
    const part = bytes.subarray(at + delim.length + 2, next - 2);
    const head = part.indexOf('\r\n\r\n');
    parts.push({ head: part.subarray(0, head).toString(), body: part.subarray(head + 4) });
    at = next;
  }
  const payload = parts.find((p) => p.head.includes('name="payload_json"'));
  const file = parts.find((p) => p.head.includes('name="files[0]"'));
  return { json: JSON.parse(payload.body), png: file?.body };
}

const option = (name, value) => ({ type: 3, name, value });
const said = [];
async function say(user, name, options = [], shown = '') {
  const { data, png } = await command(user, name, options);
  // Every reply is for the channel (no refusal only its asker sees) but the binding's, which
  // holds the write token; a move's and an attack's carry their frame.
  if ((data.flags ?? 0) & 64 && name !== 'encounter') throw new Error(`/${name}: ${data.content}`);
  if ((name === 'move' || name === 'attack') && !png) throw new Error(`/${name}: no frame`);
  const who = user === GM ? 'gm' : 'player';
  said.push(`**${who}**: \`/${name}${shown ? ' ' + shown : ''}\``);
  if (data.content) said.push(data.content.split('\n').map((l) => `> ${l}`).join('\n'));
  if (png && (name === 'move' || name === 'attack')) { // what the action did, drawn
    const file = `discord-${sent}-${name}.png`;
    writeFileSync(join(outDir, file), png);
    said.push(`> ![${name}](docs/images/${file})`);
  } else if (png) {
    said.push('> *(the board attached)*');
  }
  said.push('');
  return data;
}

try {
  // The game master sets the fight up over REST (the bot has no command for stat blocks).
  const enc = await rest('POST', '/v1/encounters', {
    name: 'Gnoll ambush', map: { width: 10, height: 8 },
    combatants: [
      { id: 'kroh', name: 'Kroh', owner: PLAYER, side: 'party', x: 2, y: 3, speeds: { walk: 30 },
        ac: 15, max_hp: 20, dex: 12,
        attacks: [{ name: 'longsword', attack_bonus: 6, damage: '1d8+3' }] },
      { id: 'gnoll', name: 'the gnoll', side: 'monsters', x: 7, y: 3, speeds: { walk: 30 },
        ac: 15, max_hp: 11, attacks: [{ name: 'battleaxe', attack_bonus: 3, damage: '1d8+2' }] },
    ],
  });
  await say(GM, 'encounter', [{ type: 1, name: 'join', options: [option('id', enc.id),
    option('token', enc.token)] }], 'join id:… token:…');
  await say(GM, 'init', [{ type: 1, name: 'roll', options: [] }], 'roll');
  let turn = await say(GM, 'turn');
  for (let i = 0; i < 2; i++) { // each side's first turn: close in if need be, then strike
    const kroh = (turn.content ?? '').includes("Kroh's turn");
    const user = kroh ? PLAYER : GM;
    const [me, foe] = kroh ? ['kroh', 'gnoll'] : ['gnoll', 'Kroh'];
    const { state } = await rest('GET', `/v1/encounters/${enc.id}/state`);
    const [a, b] = ['kroh', 'gnoll'].map((id) => state.combatants.find((c) => c.id === id));
    if (Math.max(Math.abs(a.x - b.x), Math.abs(a.y - b.y)) > 1) {
      await say(user, 'move', [option('actor', me), option('toward', foe)],
        `actor:${me} toward:${foe}`);
    }
    await say(user, 'odds', [option('actor', me), option('target', foe)],
      `actor:${me} target:${foe}`);
    await say(user, 'attack', [option('actor', me), option('target', foe)],
      `actor:${me} target:${foe}`);
    turn = await say(user, 'turn');
  }
  await say(GM, 'init', [{ type: 1, name: 'list', options: [] }], 'list');
  await say(GM, 'undo');
  await say(GM, 'map');
  console.log(said.join('\n'));
} finally {
  stop();
}
