// The contract through a second generator (issue 34): @hey-api/openapi-ts makes an SDK from
// openapi/dist/openapi.json (one function per operation, with typed bodies, answers and
// errors, composed types as intersections of the components), `tsc --strict` must accept this
// program against it, and it runs against a real tacticsd: dice seeded, supplied and refused
// (the 422's typed problem), an encounter created with its combatants and initiative, a turn,
// an attack whose ruling is read through the event union (kind) and the action union (type),
// the event log's union, the odds of an attack (members of both parts of AttackOdds), an
// attack resolved with dice from the table (AttackSituation and DiceSource in one body), and
// an export imported again.
import { createClient, createConfig } from "./gen/client/index.js";
import * as sdk from "./gen/sdk.gen.js";
import type {
  AttackActionResult,
  AttackOdds,
  EncounterEventAnswer,
  EncounterState,
  Event,
} from "./gen/types.gen.js";

declare const process: { argv: string[] };

const base = process.argv[2];
if (!base) throw new Error("usage: node sdk.js http://127.0.0.1:PORT");
const client = createClient(createConfig({ baseUrl: base }));

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`sdk: ${what}`);
}
function must<T>(what: string, r: { data?: T; error?: unknown; response?: Response }): T {
  if (r.data === undefined)
    throw new Error(`${what}: ${r.response?.status} ${JSON.stringify(r.error)}`);
  return r.data;
}
const etagOf = (r: { response?: Response }): string => {
  const v = r.response?.headers.get("ETag");
  if (!v) throw new Error("no ETag");
  return v;
};

// Dice: a seed reproduces the roll; faces from the table are used as given; a bad expression
// is a 422 whose problem names /expression.
const a = must("roll", await sdk.rollDice({ client, body: { expression: "4d6kh3+2", seed: 42 } }));
const b = must("roll again", await sdk.rollDice({ client, body: { expression: "4d6kh3+2", seed: 42 } }));
check(a.total === b.total && a.text === b.text && a.seed === 42, "a seeded roll is reproducible");
const table = must("roll from the table",
  await sdk.rollDice({ client, body: { expression: "1d20+5", results: [17] } }));
check(table.total === 22 && table.source === "supplied", `17 + 5 is 22, not ${table.total}`);
const refused = await sdk.rollDice({ client, body: { expression: "1d1" } });
check(refused.response.status === 422, `1d1 is refused: ${refused.response.status}`);
check(refused.error?.errors?.some((e) => e.pointer === "/expression") === true,
  "the refusal names /expression");

// An encounter created whole: two combatants and initiative in one call.
const fighter = { id: "fighter", side: "party", x: 2, y: 2, speeds: { walk: 30 }, defense: { armor: 5 },
  max_hp: 20, dex: 12, attacks: [{ name: "longsword", attack_bonus: 8, damage: "1d8+3" }] };
const goblin = { id: "goblin", side: "monsters", x: 3, y: 2, speeds: { walk: 30 }, defense: { armor: 2 },
  max_hp: 9, dex: 13, attacks: [{ name: "morningstar", attack_bonus: 2, damage: "1d6" }] };
const created = await sdk.createEncounter({ client, body: {
  name: "sdk", map: { width: 8, height: 8 }, seed: 5, combatants: [fighter, goblin], initiative: {} } });
const enc = must("create", created);
check(created.response.status === 201 && enc.version === 4, `create logs 4 events, not ${enc.version}`);
check(typeof enc.token === "string", "a token is minted");
const token = enc.token ?? "";
const kinds = (enc.events ?? []).map((e: EncounterEventAnswer) => e.kind).join(",");
check(kinds === "combatant_added,combatant_added,initiative", `the creation's events: ${kinds}`);
let etag = etagOf(created);

// The first turn, then the acting combatant attacks the other.
const turn = await sdk.nextTurn({ client, auth: token, path: { id: enc.id }, headers: { "If-Match": etag } });
const state: EncounterState | undefined = must("next turn", turn).state;
check(state !== undefined && state.turn_of !== null, "the turn is someone's");
etag = etagOf(turn);
const actor = state?.turn_of ?? "";
const target = actor === "fighter" ? "goblin" : "fighter";
const acted = await sdk.act({ client, auth: token, path: { id: enc.id }, headers: { "If-Match": etag },
  body: { type: "attack", actor, target } });
const event = must("attack", acted).event;
if (event.kind !== "action") throw new Error(`not an action: ${event.kind}`);
const ruling = event.result;
if (ruling.type !== "attack") throw new Error(`not an attack ruling: ${ruling.type}`);
const attack: AttackActionResult = ruling;
// Members of each part of the intersection: the breakdown, the roll, the action's own.
check(attack.roll_total === attack.d20 + attack.attack_total, "roll_total is the d20 plus attack_total");
check(attack.hit === (attack.struck === "defender"), "hit means the defender was struck");
check(attack.modifiers.every((m) => typeof m.applied === "boolean"), "every modifier says if it applied");

// The log as the Event union, each narrowed by kind.
const log = must("events", await sdk.listEvents({ client, path: { id: enc.id }, query: { after: 0, limit: 100 } }));
const seqs = log.events.map((e: Event) => e.seq);
check(seqs.join(",") === "1,2,3,4,5,6", `the log is events 1 to 6: ${seqs.join(",")}`);
const last = log.events[log.events.length - 1];
if (last.kind !== "action") throw new Error(`event 6 is ${last.kind}`);
check("engine" in last.payload && last.payload.engine === 4, "the attack was ruled by engine 4 (rules/encounter/engine.h)");

// The odds of an attack: the chances (AttackChances) and the rest (AttackOddsFields).
const odds: AttackOdds = must("odds", await sdk.attackOdds({ client, body: {
  attacker: { x: 0, y: 0, attack_bonus: 5, damage: "1d8" }, defender: { x: 1, y: 0, defense: { armor: 4 }, hp: 6 } } }));
check(odds.hit > 0 && odds.hit < 1, `a +5 against AC 14 hits sometimes: ${odds.hit}`);
check(odds.explain.length > 0 && odds.damage !== null && odds.damage.expected > 0, "the odds explain and price the damage");

// An attack resolved with dice from the table: the d20 is the first face given.
const rolled = must("resolve", await sdk.resolveAttack({ client, body: {
  attacker: { x: 0, y: 0, attack_bonus: 5, damage: "1d8" }, defender: { x: 1, y: 0, defense: { armor: 4 } },
  results: [15, 6] } }));
check(rolled.d20 === 15 && rolled.roll_total === 20, `d20 15 + 5: ${rolled.d20}, ${rolled.roll_total}`);

// The export imports again as a new encounter with the same log.
const exported = must("export", await sdk.exportEncounter({ client, auth: token, path: { id: enc.id } }));
const imported = await sdk.importEncounter({ client, auth: token, body: exported });
check(imported.response.status === 201, `import: ${imported.response.status} ${JSON.stringify(imported.error)}`);
check(must("import", imported).version === 7, "the import has the six events and its own, imported");

console.log("sdk: dice, an encounter, its log and odds through @hey-api/openapi-ts's SDK");
