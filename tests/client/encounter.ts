// A whole encounter played through a client generated from the contract (issue 18): the types
// come from openapi-typescript over openapi/dist/openapi.json, the calls from openapi-fetch,
// and `tsc --strict` must accept every request and every field read here. Then it runs against
// a real tacticsd: create, two combatants, initiative, turns, attacks and a move, the state
// after an event, the odds, verify, reveal and export; then an encounter created with its
// combatants and initiative in one call, a write answered minimal (Prefer: return=minimal), and
// the list with whose turn it is.
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

// Node's process, without @types/node: only what this program uses.
declare const process: { argv: string[]; exit(code: number): never };

type State = components["schemas"]["EncounterState"];
type Combatant = components["schemas"]["EncounterCombatant"];
type EventAnswer = components["schemas"]["EncounterEventAnswer"];
type AttackResult = components["schemas"]["AttackActionResult"];
type MoveResult = components["schemas"]["MoveActionResult"];

const base = process.argv[2];
if (!base) throw new Error("usage: node encounter.js http://127.0.0.1:PORT");

const api = createClient<paths>({ baseUrl: base });

function must<T>(what: string, r: { data?: T; error?: unknown; response: Response }): T {
  if (r.data === undefined)
    throw new Error(`${what}: ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

function etag(r: { response: Response }): string {
  const v = r.response.headers.get("ETag");
  if (v === null) throw new Error("no ETag");
  return v;
}

// A write's state, absent only when the request asked Prefer: return=minimal.
function stateOf(w: { state?: State }): State {
  if (w.state === undefined) throw new Error("no state in a full answer");
  return w.state;
}

// An action's ruling, narrowed by kind (the event union's discriminator), then by type (the
// ActionResult union's): tsc proves the fields read are typed, not unknown.
function attackResult(e: EventAnswer): AttackResult {
  if (e.kind !== "action") throw new Error(`not an action: ${e.kind}`);
  const r = e.result;
  if (r.type !== "attack") throw new Error(`not an attack ruling: ${JSON.stringify(r)}`);
  return r;
}

function moveResult(e: EventAnswer): MoveResult {
  if (e.kind !== "action") throw new Error(`not an action: ${e.kind}`);
  const r = e.result;
  if (r.type !== "move") throw new Error(`not a move ruling: ${JSON.stringify(r)}`);
  return r;
}

function combatant(state: State, id: string): Combatant {
  const c = state.combatants.find((x: Combatant) => x.id === id);
  if (c === undefined) throw new Error(`no combatant ${id}`);
  return c;
}

async function main(): Promise<void> {
  const created = await api.POST("/v1/encounters", {
    body: { name: "Typed client skirmish", map: { width: 12, height: 12 }, seed: 7 },
  });
  const enc = must("create", created);
  if (enc.token === undefined) throw new Error("no token minted");
  const auth = { Authorization: `Bearer ${enc.token}` };
  const id = enc.id;
  let tag = etag(created);

  const add = async (body: components["schemas"]["CombatantInput"]): Promise<void> => {
    const r = await api.POST("/v1/encounters/{id}/combatants", {
      params: { path: { id }, header: { "If-Match": tag } },
      headers: auth,
      body,
    });
    must(`add ${body.id}`, r);
    tag = etag(r);
  };
  await add({
    id: "fighter", name: "Kroh", side: "party", x: 5, y: 5, speeds: { walk: 30 },
    defense: { armor: 5 }, max_hp: 20, dex: 12, base_attack_bonus: 6,
    attacks: [{ name: "longsword", attack_bonus: 6, damage: "1d8+3" }],
  });
  await add({
    id: "goblin", name: "the goblin", side: "monsters", x: 6, y: 5, speeds: { walk: 30 },
    defense: { armor: 2, dex: 1, size: 1 }, max_hp: 6, dex: 13,
    attacks: [{ name: "morningstar", attack_bonus: 2, damage: "1d6" }],
  });

  // The goblin wins initiative: d20 14 + 1 against Kroh's 10 + 1 (a d20 then a coin each).
  let r = await api.POST("/v1/encounters/{id}/initiative", {
    params: { path: { id }, header: { "If-Match": tag } },
    headers: auth,
    body: { results: [10, 1, 14, 1] },
  });
  must("initiative", r);
  tag = etag(r);

  const next = async (): Promise<string> => {
    const n = await api.POST("/v1/encounters/{id}/next-turn", {
      params: { path: { id }, header: { "If-Match": tag } },
      headers: auth,
    });
    const w = must("next turn", n);
    tag = etag(n);
    const s = stateOf(w);
    if (s.turn === null || s.turn_of === null) throw new Error("no one's turn after next-turn");
    if (s.order[s.turn] !== s.turn_of) throw new Error("turn_of is not order[turn]");
    return s.turn_of;
  };
  const act = async (body: components["schemas"]["ActionRequest"]) => {
    const a = await api.POST("/v1/encounters/{id}/actions", {
      params: { path: { id }, header: { "If-Match": tag } },
      headers: auth,
      body,
    });
    const w = must(`action ${body.type}`, a);
    tag = etag(a);
    return w;
  };

  if ((await next()) !== "goblin") throw new Error("the goblin acts first");
  await act({ type: "attack", actor: "goblin", target: "fighter" });
  if ((await next()) !== "fighter") throw new Error("then Kroh");

  // Before swinging, the odds from the stored state.
  const o = must("odds", await api.GET("/v1/encounters/{id}/odds", {
    params: { path: { id }, query: { actor: "fighter", target: "goblin" } },
  }));
  if (!(o.hit > 0 && o.hit < 1)) throw new Error(`odds: hit ${o.hit}`);

  const hit = await act({ type: "attack", actor: "fighter", target: "goblin" });
  const goblin = combatant(stateOf(hit), "goblin");
  // The typed ruling agrees with the state: the damage dealt is what the goblin lost (max_hp 6).
  const swing = attackResult(hit.event);
  const dealt = swing.damage === null ? 0 : swing.damage.dealt;
  if (swing.hit !== (swing.damage !== null) || goblin.hp !== 6 - dealt)
    throw new Error(`attack: hit ${swing.hit}, damage ${JSON.stringify(swing.damage)}, hp ${goblin.hp}`);
  const moved = moveResult((await act({ type: "move", actor: "fighter", path: [{ x: 5, y: 6 }] })).event);
  // One square straight down: 5 ft (001 Types of Movement), of a 30-ft move.
  if (moved.total_ft !== 5 || !moved.legal) throw new Error(`move: ${JSON.stringify(moved)}`);

  const at = must("state at 4", await api.GET("/v1/encounters/{id}/state", {
    params: { path: { id }, query: { at: 4 } },
  }));
  if (combatant(at.state, "fighter").x !== 5) throw new Error("state?at=4");

  const v = must("verify", await api.POST("/v1/encounters/{id}/verify", {
    params: { path: { id } },
  }));
  if (!v.ok) throw new Error(`verify: ${JSON.stringify(v)}`);

  r = await api.POST("/v1/encounters/{id}/reveal", {
    params: { path: { id }, header: { "If-Match": tag } },
    headers: auth,
  });
  must("reveal", r);
  const exp = must("export", await api.GET("/v1/encounters/{id}/export", {
    params: { path: { id } }, headers: auth,
  }));

  // The same fight set up in one call, then a turn answered without the state.
  const key = "0123456789abcdef0123456789abcdef";
  const one = await api.POST("/v1/encounters", {
    headers: { Authorization: `Bearer ${key}` },
    body: {
      name: "One call", map: { width: 12, height: 12 }, seed: 7,
      combatants: [
        { id: "fighter", name: "Kroh", side: "party", x: 5, y: 5, speeds: { walk: 30 },
          defense: { armor: 5 }, max_hp: 20, dex: 12 },
        { id: "goblin", side: "monsters", x: 6, y: 5, speeds: { walk: 30 },
          defense: { armor: 2 }, max_hp: 6, dex: 13 },
      ],
      initiative: { results: [10, 1, 14, 1] },
    },
  });
  const made = must("create with combatants", one);
  if (made.version !== 4 || made.events === undefined || made.events.length !== 3)
    throw new Error(`create with combatants: ${JSON.stringify(made)}`);
  const small = await api.POST("/v1/encounters/{id}/next-turn", {
    params: { path: { id: made.id }, header: { "If-Match": etag(one), Prefer: "return=minimal" } },
    headers: { Authorization: `Bearer ${key}` },
  });
  const m = must("minimal next turn", small);
  if (m.state !== undefined || small.response.headers.get("Preference-Applied") !== "return=minimal")
    throw new Error("return=minimal was not applied");
  const list = must("list", await api.GET("/v1/encounters", {
    headers: { Authorization: `Bearer ${key}` },
  }));
  const listed = list.encounters.find((e) => e.id === made.id);
  if (listed === undefined || listed.turn_of === null || listed.turn_of.id !== "goblin")
    throw new Error(`list: ${JSON.stringify(list)}`);
  // The log's items are the same union: the initiative event's payload has typed rolls.
  const log = must("events", await api.GET("/v1/encounters/{id}/events", { params: { path: { id } } }));
  const init = log.events.find((e) => e.kind === "initiative");
  if (init === undefined || init.kind !== "initiative" || init.payload.result.rolls[0].d20 !== 14)
    throw new Error(`log: ${JSON.stringify(init)}`);
  console.log(`typed client: ${exp.events.length} events, the goblin at ${goblin.hp} hp ` +
    `(${swing.hit ? "hit" : "missed"}, d20 ${swing.d20}), a ${moved.total_ft}-ft move, ` +
    `hit chance ${o.hit}, verify ok; ${m.event.explain}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
