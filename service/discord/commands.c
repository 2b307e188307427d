/* The slash commands (commands.json), each the REST operation it names.
 *
 * Why commands call handlers: the style guide says no handler calls another handler, because
 * what two endpoints share belongs in rules/. This layer is not a second endpoint of the same
 * rules but a protocol adapter, as the router is: it turns a Discord interaction into the
 * request a REST client would send (the path, the body, Authorization: Bearer with the bound
 * encounter's token, If-Match with the version just read), matches it against the route table
 * (svc_context.routes, svc_route_match) and calls the handler found there, then turns the REST
 * answer into a Discord message. So authorization, validation, idempotency and every ruling
 * stay in one place, and a command can never rule differently from the API.
 *
 * Who may act: the channel's game master (who bound it) for everything; a combatant's owner
 * (its `owner`, a Discord user id) for that combatant's /attack and /move and for /turn when it
 * is that combatant's turn; anyone for the reads (/roll, /init list, /odds, /map). Everything
 * else is refused with an ephemeral message. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db/db.h"
#include "service/codec/names.h"
#include "service/discord/internal.h"
#include "service/http/router.h"
#include "service/json/reader.h"
#include "text/text.h"

#define EPHEMERAL   64 /* message flag: only the user who asked sees it */
#define CONTENT_MAX 2000

/* ---- one internal exchange through the route table ---- */

struct call {
    const char *method;
    char path[256];
    const char *query[6][2]; /* name, value */
    char *body;              /* owned, JSON */
    char auth[160];
    char if_match[32];
    struct svc_response res;
    json_t *doc; /* the answer parsed, when JSON */
};

static const char *call_header(void *cookie, const char *name)
{
    const struct call *c = cookie;
    if (strcasecmp(name, "Authorization") == 0 && c->auth[0] != '\0')
        return c->auth;
    if (strcasecmp(name, "If-Match") == 0 && c->if_match[0] != '\0')
        return c->if_match;
    if (strcasecmp(name, "Content-Type") == 0 && c->body != NULL)
        return "application/json";
    return NULL;
}

static const char *call_query(void *cookie, const char *name)
{
    const struct call *c = cookie;
    for (int i = 0; i < 6 && c->query[i][0] != NULL; i++)
        if (strcmp(c->query[i][0], name) == 0)
            return c->query[i][1];
    return NULL;
}

/* Runs c through the route table; returns the status (404 when no route matches). */
static unsigned call_run(struct svc_context *ctx, struct call *c)
{
    struct svc_match m;
    assert(c->method != NULL && c->doc == NULL); /* each call runs once */
    svc_route_match(ctx->routes, ctx->route_count, c->method, c->path, &m);
    if (m.route == NULL) {
        c->res.status = 404;
        return 404;
    }
    struct svc_request r = {.method = c->method,
                            .path = c->path,
                            .body = c->body != NULL ? c->body : "",
                            .body_len = c->body != NULL ? strlen(c->body) : 0,
                            .header = call_header,
                            .query = call_query,
                            .header_cookie = c,
                            .ctx = ctx};
    memcpy(r.params, m.params, sizeof r.params);
    m.route->handler(&r, &c->res);
    const char *ct = c->res.content_type;
    if (ct != NULL && strstr(ct, "json") != NULL && c->res.body != NULL)
        c->doc = jsonr_load(c->res.body, c->res.body_len);
    return c->res.status;
}

static void call_free(struct call *c)
{
    free(c->body);
    json_decref(c->doc);
    svc_response_clear(&c->res);
}

/* ---- replies ---- */

static void say(struct discord_reply *r, bool ephemeral, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(struct discord_reply *r, bool ephemeral, const char *fmt, ...)
{
    char text[CONTENT_MAX + 1];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    json_decref(r->data);
    r->type = 4;
    r->data = json_pack("{s:s}", "content", text);
    if (ephemeral)
        json_object_set_new(r->data, "flags", json_integer(EPHEMERAL));
}

/* A refused REST answer as an ephemeral message: its detail, and each error. */
static void say_refused(struct discord_reply *r, const struct call *c)
{
    const char *detail = json_string_value(json_object_get(c->doc, "detail"));
    say(r, true, "Refused (%u): %s", c->res.status, detail ? detail : "the request failed");
}

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* The name a combatant goes by in messages. */
static const char *display(json_t *c)
{
    const char *name = str(c, "name");
    return *name ? name : str(c, "id");
}

/* ---- the interaction ---- */

struct ctx {
    struct svc_context *svc;
    json_t *in;
    const char *user;    /* who asked */
    const char *channel; /* where */
    const char *command;
    json_t *options; /* the command's (or its subcommand's) options */
    const char *sub; /* the subcommand, or "" */
    struct db_channel bound;
    bool has_binding;
    json_t *state; /* the bound encounter's, with the token's view */
    long long version;
};

static json_t *option(const struct ctx *x, const char *name)
{
    size_t i;
    json_t *o;
    json_array_foreach(x->options, i, o)
    {
        if (strcmp(str(o, "name"), name) == 0)
            return json_object_get(o, "value");
    }
    return NULL;
}

static const char *option_text(const struct ctx *x, const char *name)
{
    return json_string_value(option(x, name));
}

static void bearer(const struct ctx *x, struct call *c)
{
    snprintf(c->auth, sizeof c->auth, "Bearer %s", x->bound.token);
}

/* Reads the bound encounter's state (x->state, x->version); false after a reply. */
static bool load_state(struct ctx *x, struct discord_reply *r)
{
    assert(x->state == NULL); /* loaded once per interaction */
    if (!x->has_binding) {
        say(r, true,
            "This channel plays no encounter yet: the game master binds one with `/encounter "
            "new` or `/encounter join`.");
        return false;
    }
    struct call c = {.method = "GET"};
    snprintf(c.path, sizeof c.path, "/v1/encounters/%s", x->bound.encounter_id);
    bearer(x, &c);
    bool ok = call_run(x->svc, &c) == 200 && json_is_object(c.doc);
    if (ok) {
        x->state = json_incref(json_object_get(c.doc, "state"));
        x->version = json_integer_value(json_object_get(c.doc, "version"));
    } else if (c.res.status == 404) {
        say(r, true, "The encounter this channel played is gone: bind another with `/encounter`.");
    } else {
        say_refused(r, &c);
    }
    call_free(&c);
    return ok;
}

static json_t *combatant(json_t *state, const char *id)
{
    size_t i;
    json_t *c;
    assert(id != NULL);
    json_array_foreach(json_object_get(state, "combatants"), i, c)
    {
        if (strcmp(str(c, "id"), id) == 0)
            return c;
    }
    return NULL;
}

/* Whether what is typed begins s, in any case and any script (as svc_combatant_named reads a
 * name). */
static bool prefix_of(const char *p, const char *s)
{
    return text_begins_ignoring_case(p, strlen(p), s, strlen(s));
}

/* The combatant a player named: an id or a name, any case, or a unique prefix of one, as the
 * REST actions read it (svc_combatant_named). NULL after a reply naming the candidates
 * (ambiguous) or saying none matched. */
static json_t *named(const struct ctx *x, const char *text, const char *what,
                     struct discord_reply *r)
{
    assert(what != NULL);
    if (text == NULL || *text == '\0') {
        say(r, true, "Name the %s.", what);
        return NULL;
    }
    json_t *found = NULL;
    char who[480];
    switch (svc_combatant_named(json_object_get(x->state, "combatants"), text, &found, who,
                                sizeof who)) {
    case SVC_NAMED_ONE:
        return found;
    case SVC_NAMED_AMBIGUOUS:
        say(r, true, "\"%s\" could be %s: say which.", text, who);
        return NULL;
    default:
        say(r, true, "No combatant here is called \"%s\".", text);
        return NULL;
    }
}

/* Whether the asking user may act for combatant c: the game master, or c's owner. */
static bool may_act_for(const struct ctx *x, json_t *c)
{
    assert(x->has_binding); /* only bound commands ask, after load_state */
    return strcmp(x->user, x->bound.game_master) == 0 ||
           (c != NULL && strcmp(str(c, "owner"), x->user) == 0);
}

static bool is_game_master(const struct ctx *x, struct discord_reply *r)
{
    assert(x->has_binding);
    if (strcmp(x->user, x->bound.game_master) == 0)
        return true;
    say(r, true, "Only this channel's game master (<@%s>) may do that.", x->bound.game_master);
    return false;
}

/* The board into r's attachment, shown in its embed: as it is now (event 0), or the frame of
 * event `event` with what it did drawn on it (GET map.png?at=N&overlay=event: a move's path and
 * the attacks it provoked, an attack's line with hit or miss). */
static void attach_map(struct ctx *x, struct discord_reply *r, long long event)
{
    assert(x->has_binding && event >= 0);
    struct call c = {.method = "GET"};
    snprintf(c.path, sizeof c.path, "/v1/encounters/%s/map.png", x->bound.encounter_id);
    char at[24];
    if (event > 0) {
        snprintf(at, sizeof at, "%lld", event);
        c.query[0][0] = "at", c.query[0][1] = at;
        c.query[1][0] = "overlay", c.query[1][1] = "event";
    }
    bearer(x, &c);
    if (call_run(x->svc, &c) != 200 || c.res.body == NULL) {
        call_free(&c);
        return;
    }
    r->png = c.res.body;
    r->png_len = c.res.body_len;
    c.res.body = NULL;
    call_free(&c);
    json_t *embeds = json_object_get(r->data, "embeds");
    json_t *embed = json_array_get(embeds, 0);
    if (embed != NULL)
        json_object_set_new(embed, "image", json_pack("{s:s}", "url", "attachment://map.png"));
    json_object_set_new(
        r->data, "attachments",
        json_pack("[{s:i, s:s, s:s}]", "id", 0, "filename", "map.png", "description", "The board"));
}

/* The embed of a state: the encounter, the round, whose turn. */
static json_t *state_embed(json_t *state)
{
    json_t *turn_of = json_object_get(state, "turn_of");
    json_t *who = json_is_string(turn_of) ? combatant(state, json_string_value(turn_of)) : NULL;
    char desc[256];
    if (who != NULL)
        snprintf(desc, sizeof desc, "Round %lld: **%s**'s turn",
                 json_integer_value(json_object_get(state, "round")), display(who));
    else
        snprintf(desc, sizeof desc, "Initiative not rolled yet");
    const char *name = str(state, "name");
    return json_pack("{s:s, s:s, s:i}", "title", *name ? name : "Encounter", "description", desc,
                     "color", 0x8b0000);
}

/* A write's answer as a message: its event's explain_markdown, and the state's embed. */
static void say_event(struct discord_reply *r, const struct call *c)
{
    json_t *ev = json_object_get(c->doc, "event");
    say(r, false, "%s", str(ev, "explain_markdown"));
    json_t *state = json_object_get(c->doc, "state");
    if (json_is_object(state))
        json_object_set_new(r->data, "embeds", json_pack("[o]", state_embed(state)));
}

/* POSTs body (stolen; NULL: none) to the bound encounter's suffix with its token and version,
 * and replies with the event (and the board, when map). */
static void write_encounter(struct ctx *x, const char *suffix, json_t *body, bool map,
                            struct discord_reply *r)
{
    struct call c = {.method = "POST"};
    snprintf(c.path, sizeof c.path, "/v1/encounters/%s%s", x->bound.encounter_id, suffix);
    bearer(x, &c);
    snprintf(c.if_match, sizeof c.if_match, "\"v%lld\"", x->version);
    if (body != NULL) {
        c.body = json_dumps(body, JSON_COMPACT);
        json_decref(body);
    }
    unsigned status = call_run(x->svc, &c);
    if (status == 200 || status == 201) {
        say_event(r, &c);
        if (map)
            attach_map(x, r,
                       json_integer_value(json_object_get(json_object_get(c.doc, "event"), "seq")));
    } else if (status == 412) {
        say(r, true, "The encounter changed meanwhile: look again and retry.");
    } else {
        say_refused(r, &c);
    }
    call_free(&c);
}

/* ---- the commands ---- */

static void cmd_roll(struct ctx *x, struct discord_reply *r)
{
    struct call c = {.method = "POST", .path = "/v1/dice/roll"};
    json_t *body =
        json_pack("{s:s}", "expression", option_text(x, "dice") ? option_text(x, "dice") : "");
    c.body = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    if (call_run(x->svc, &c) == 200)
        say(r, false, "<@%s> %s", x->user, str(c.doc, "explain_markdown"));
    else
        say_refused(r, &c);
    call_free(&c);
}

static void cmd_encounter(struct ctx *x, struct discord_reply *r)
{
    struct db_channel b = {0};
    snprintf(b.channel_id, sizeof b.channel_id, "%s", x->channel);
    snprintf(b.game_master, sizeof b.game_master, "%s", x->user);
    struct call c = {0};
    if (strcmp(x->sub, "new") == 0) {
        json_t *w = option(x, "width"), *h = option(x, "height");
        json_t *body = json_pack("{s:{s:I, s:I}}", "map", "width",
                                 json_is_integer(w) ? json_integer_value(w) : 20, "height",
                                 json_is_integer(h) ? json_integer_value(h) : 20);
        if (option_text(x, "name") != NULL)
            json_object_set_new(body, "name", json_string(option_text(x, "name")));
        c.method = "POST";
        snprintf(c.path, sizeof c.path, "/v1/encounters");
        c.body = json_dumps(body, JSON_COMPACT);
        json_decref(body);
        if (call_run(x->svc, &c) != 201) {
            say_refused(r, &c);
            call_free(&c);
            return;
        }
        snprintf(b.encounter_id, sizeof b.encounter_id, "%s", str(c.doc, "id"));
        snprintf(b.token, sizeof b.token, "%s", str(c.doc, "token"));
    } else { /* join: the token must own the encounter (its owner's read shows the seed) */
        const char *id = option_text(x, "id"), *token = option_text(x, "token");
        c.method = "GET";
        snprintf(c.path, sizeof c.path, "/v1/encounters/%s", id ? id : "");
        snprintf(c.auth, sizeof c.auth, "Bearer %s", token ? token : "");
        unsigned status = call_run(x->svc, &c);
        json_t *st = json_object_get(c.doc, "state");
        if (status != 200) {
            say_refused(r, &c);
            call_free(&c);
            return;
        }
        if (json_object_get(st, "seed") == NULL || json_is_true(json_object_get(st, "revealed"))) {
            say(r, true,
                json_is_true(json_object_get(st, "revealed"))
                    ? "That encounter is finished (its seed was revealed)."
                    : "That token does not own the encounter.");
            call_free(&c);
            return;
        }
        snprintf(b.encounter_id, sizeof b.encounter_id, "%s", id);
        snprintf(b.token, sizeof b.token, "%s", token);
    }
    call_free(&c);
    if (db_channel_put(x->svc->db, &b) != DB_OK) {
        say(r, true, "The binding could not be stored; try again.");
        return;
    }
    /* Ephemeral: the write token is the game master's alone (for REST calls, adding
     * combatants). */
    say(r, true,
        "This channel now plays encounter `%s`, and you are its game master. Its write token "
        "(for the REST API: add combatants, give each an `owner`) is `%s`; this server keeps it "
        "to write for the channel.",
        b.encounter_id, b.token);
}

/* /init list: the order, whose turn, hit points and states (Avrae's !init list). */
static void say_order(struct ctx *x, struct discord_reply *r)
{
    char text[CONTENT_MAX + 1];
    size_t used = 0;
    json_t *order = json_object_get(x->state, "order");
    const char *now = json_string_value(json_object_get(x->state, "turn_of"));
    used += (size_t)snprintf(text, sizeof text, "```md\nRound %lld\n",
                             json_integer_value(json_object_get(x->state, "round")));
    size_t i;
    json_t *id;
    json_array_foreach(order, i, id)
    {
        json_t *c = combatant(x->state, json_string_value(id));
        if (c == NULL || used >= sizeof text)
            continue;
        const char *hs = str(c, "hp_state");
        used +=
            (size_t)snprintf(text + used, sizeof text - used, "%s %zu: %s <%lld/%lld HP>%s%s\n",
                             now && strcmp(now, str(c, "id")) == 0 ? "#" : " ", i + 1, display(c),
                             json_integer_value(json_object_get(c, "hp")),
                             json_integer_value(json_object_get(c, "max_hp")),
                             *hs && strcmp(hs, "up") != 0 ? " " : "", strcmp(hs, "up") ? hs : "");
    }
    if (json_array_size(order) == 0 && used < sizeof text)
        used += (size_t)snprintf(text + used, sizeof text - used, "(no initiative yet)\n");
    if (used < sizeof text)
        snprintf(text + used, sizeof text - used, "```");
    say(r, false, "%s", text);
    json_object_set_new(r->data, "embeds", json_pack("[o]", state_embed(x->state)));
}

static void cmd_init(struct ctx *x, struct discord_reply *r)
{
    if (strcmp(x->sub, "list") == 0)
        say_order(x, r);
    else if (is_game_master(x, r))
        write_encounter(x, "/initiative", NULL, false, r);
}

static void cmd_turn(struct ctx *x, struct discord_reply *r)
{
    const char *now = json_string_value(json_object_get(x->state, "turn_of"));
    json_t *c = now != NULL ? combatant(x->state, now) : NULL;
    if (!may_act_for(x, c)) {
        say(r, true, "Only the game master, or the player of whoever's turn it is, ends a turn.");
        return;
    }
    write_encounter(x, "/next-turn", NULL, false, r);
}

static void cmd_attack(struct ctx *x, struct discord_reply *r)
{
    json_t *actor = named(x, option_text(x, "actor"), "attacker", r);
    json_t *target = actor ? named(x, option_text(x, "target"), "target", r) : NULL;
    if (target == NULL)
        return;
    if (!may_act_for(x, actor)) {
        say(r, true, "Only the game master or %s's player may act for it.", display(actor));
        return;
    }
    json_t *body = json_pack("{s:s, s:s, s:s}", "type", "attack", "actor", str(actor, "id"),
                             "target", str(target, "id"));
    if (option_text(x, "attack") != NULL)
        json_object_set_new(body, "attack", json_string(option_text(x, "attack")));
    write_encounter(x, "/actions", body, true, r);
}

static void cmd_move(struct ctx *x, struct discord_reply *r)
{
    json_t *actor = named(x, option_text(x, "actor"), "mover", r);
    if (actor == NULL)
        return;
    if (!may_act_for(x, actor)) {
        say(r, true, "Only the game master or %s's player may act for it.", display(actor));
        return;
    }
    char to[80];
    json_t *vx = option(x, "x"), *vy = option(x, "y");
    if (option_text(x, "toward") != NULL) {
        json_t *t = named(x, option_text(x, "toward"), "combatant to move toward", r);
        if (t == NULL)
            return;
        snprintf(to, sizeof to, "%s", str(t, "id"));
    } else if (json_is_integer(vx) && json_is_integer(vy)) {
        snprintf(to, sizeof to, "%lld,%lld", json_integer_value(vx), json_integer_value(vy));
    } else {
        say(r, true, "Give a square (x and y) or a combatant to move toward.");
        return;
    }
    /* The route query's best path (GET .../route), as far as this move's budget goes. */
    struct call c = {.method = "GET"};
    snprintf(c.path, sizeof c.path, "/v1/encounters/%s/route", x->bound.encounter_id);
    c.query[0][0] = "actor", c.query[0][1] = str(actor, "id");
    c.query[1][0] = "to", c.query[1][1] = to;
    bearer(x, &c);
    if (call_run(x->svc, &c) != 200) {
        say_refused(r, &c);
        call_free(&c);
        return;
    }
    json_t *steps = json_object_get(c.doc, "steps");
    long long n = json_integer_value(json_object_get(c.doc, "steps_in_budget"));
    json_t *refused = json_object_get(c.doc, "refused");
    if (json_is_object(refused)) { /* the move action would be refused now: the action's why */
        say(r, true, "%s", json_string_value(json_object_get(refused, "why")));
        call_free(&c);
        return;
    }
    if (json_is_true(json_object_get(c.doc, "found")) && json_array_size(steps) == 0) {
        /* The route's end is where it stands: nothing to move (and no move action spent). */
        say(r, true, "%s is there already: no move needed.", display(actor));
        call_free(&c);
        return;
    }
    if (!json_is_true(json_object_get(c.doc, "found")) || n <= 0) {
        say(r, true, "%s finds no way there this move.", display(actor));
        call_free(&c);
        return;
    }
    json_t *path = json_array();
    for (size_t i = 0; i < (size_t)n && i < json_array_size(steps); i++) {
        json_t *s = json_array_get(steps, i);
        json_array_append_new(path, json_pack("{s:O, s:O}", "x", json_object_get(s, "x"), "y",
                                              json_object_get(s, "y")));
    }
    call_free(&c);
    write_encounter(x, "/actions",
                    json_pack("{s:s, s:s, s:s, s:o}", "type", "move", "actor", str(actor, "id"),
                              "mode", "move", "path", path),
                    true, r);
}

static void cmd_odds(struct ctx *x, struct discord_reply *r)
{
    json_t *actor = named(x, option_text(x, "actor"), "attacker", r);
    json_t *target = actor ? named(x, option_text(x, "target"), "target", r) : NULL;
    if (target == NULL)
        return;
    struct call c = {.method = "GET"};
    snprintf(c.path, sizeof c.path, "/v1/encounters/%s/odds", x->bound.encounter_id);
    c.query[0][0] = "actor", c.query[0][1] = str(actor, "id");
    c.query[1][0] = "target", c.query[1][1] = str(target, "id");
    bearer(x, &c);
    if (call_run(x->svc, &c) == 200)
        say(r, false, "%s", str(c.doc, "explain_markdown"));
    else
        say_refused(r, &c);
    call_free(&c);
}

static void cmd_map(struct ctx *x, struct discord_reply *r)
{
    say(r, false, "The board, round %lld.", json_integer_value(json_object_get(x->state, "round")));
    json_object_set_new(r->data, "embeds", json_pack("[o]", state_embed(x->state)));
    attach_map(x, r, 0);
}

static void cmd_undo(struct ctx *x, struct discord_reply *r)
{
    if (is_game_master(x, r))
        write_encounter(x, "/undo", NULL, true, r);
}

/* Autocomplete: the channel's combatants whose name or id starts with what is typed. */
static void autocomplete(struct ctx *x, json_t *focused, struct discord_reply *r)
{
    const char *typed = json_string_value(json_object_get(focused, "value"));
    json_t *choices = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(x->state, "combatants"), i, c)
    {
        if (json_array_size(choices) >= 25) /* Discord's most */
            break;
        if (typed != NULL && !prefix_of(typed, str(c, "id")) && !prefix_of(typed, str(c, "name")))
            continue;
        char label[120];
        snprintf(label, sizeof label, "%s (%s)", display(c), str(c, "id"));
        json_array_append_new(choices,
                              json_pack("{s:s, s:s}", "name", label, "value", str(c, "id")));
    }
    r->type = 8;
    json_decref(r->data);
    r->data = json_pack("{s:o}", "choices", choices);
}

/* The focused option of an autocomplete interaction, or NULL. */
static json_t *focused_option(json_t *options)
{
    size_t i;
    json_t *o;
    json_array_foreach(options, i, o)
    {
        if (json_is_true(json_object_get(o, "focused")))
            return o;
    }
    return NULL;
}

void discord_run(struct svc_context *svc, json_t *in, struct discord_reply *r)
{
    memset(r, 0, sizeof *r);
    json_t *data = json_object_get(in, "data");
    json_t *member_user = json_object_get(json_object_get(in, "member"), "user");
    json_t *user = member_user != NULL ? member_user : json_object_get(in, "user");
    struct ctx x = {.svc = svc,
                    .in = in,
                    .user = str(user, "id"),
                    .channel = str(in, "channel_id"),
                    .command = str(data, "name"),
                    .options = json_object_get(data, "options"),
                    .sub = ""};
    json_t *first = json_array_get(x.options, 0);
    if (json_integer_value(json_object_get(first, "type")) == 1) { /* SUB_COMMAND */
        x.sub = str(first, "name");
        x.options = json_object_get(first, "options");
    }
    bool complete = json_integer_value(json_object_get(in, "type")) == 4;
    if (*x.user == '\0' || *x.channel == '\0') {
        say(r, true, "This interaction names no user or channel.");
        return;
    }
    x.has_binding = db_channel_get(svc->db, x.channel, &x.bound) == DB_OK;
    static const struct {
        const char *name;
        void (*run)(struct ctx *, struct discord_reply *);
        bool bound; /* needs the channel's encounter */
    } table[] = {
        {"roll", cmd_roll, false},    {"encounter", cmd_encounter, false},
        {"init", cmd_init, true},     {"turn", cmd_turn, true},
        {"attack", cmd_attack, true}, {"move", cmd_move, true},
        {"odds", cmd_odds, true},     {"map", cmd_map, true},
        {"undo", cmd_undo, true},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, x.command) != 0)
            continue;
        if (complete) {
            json_t *f = focused_option(x.options);
            if (f != NULL && x.has_binding && load_state(&x, r))
                autocomplete(&x, f, r);
            else { /* nothing to offer: an empty list, as Discord expects an answer */
                discord_reply_free(r);
                r->type = 8;
                r->data = json_pack("{s:[]}", "choices");
            }
        } else if (!table[i].bound || load_state(&x, r)) {
            table[i].run(&x, r);
        }
        json_decref(x.state);
        return;
    }
    say(r, true, "Unknown command /%s.", x.command);
}
