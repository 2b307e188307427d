/* svc: the HTTP service. Internal interfaces shared by the files under service/.
 * Handlers see plain C structs, never libmicrohttpd types: the server decodes the request,
 * calls the handler, and encodes whatever it leaves in the response. */
#ifndef TACTICS_SVC_H
#define TACTICS_SVC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules/dice/dice.h"
#include "service/http/config.h"
#include "service/http/metrics.h"

struct db;

#define SVC_MAX_PARAMS  4
#define SVC_MAX_HEADERS 4

/* What every handler can reach: configuration, storage, counters. */
struct svc_state_cache;
struct svc_hub;
struct svc_stream;

struct svc_context {
    const struct svc_config *config;
    struct db *db;
    struct svc_metrics *metrics;
    struct svc_state_cache *states; /* may be NULL: no cache (state_cache.h) */
    /* Fold checkpoints (state_cache.h), one cache for /events pages and one for state?at, so
     * that a reader of either does not evict the other's; each may be NULL. */
    struct svc_state_cache *folds[2];
    /* The fold of each encounter at the last version a verify found whole (every event re-ruled
     * as stored, the fold the stored state), so the next verify re-rules only the events after
     * it; may be NULL. */
    struct svc_state_cache *verified;
    struct svc_hub *hub; /* the live feeds' subscribers (hub.h); may be NULL: none */
};

/* Looks up a request header; returns NULL when absent. */
typedef const char *(*svc_header_fn)(void *cookie, const char *name);

struct svc_request {
    const char *method;
    const char *path;
    const char *params[SVC_MAX_PARAMS]; /* path parameters, in pattern order */
    const char *body;                   /* NUL-terminated copy; body_len excludes the NUL */
    size_t body_len;
    svc_header_fn header;
    svc_header_fn query; /* the query string's arguments, by name (may be NULL) */
    void *header_cookie;
    struct svc_context *ctx;
    const char *client; /* the client's address as text ("" when unknown): per-address caps */
};

/* A response the handler fills in. body is owned (malloc) and freed by the server. */
struct svc_response {
    unsigned status;
    const char *content_type; /* a static string */
    char *body;
    size_t body_len;
    const unsigned char *static_body; /* used instead of body when set: never freed or copied */
    const char *allow;                /* static; sent as Allow when set */
    /* A live feed (encounter_stream.c), sent as text/event-stream instead of body: owned, the
     * server takes it (svc_response_clear frees one never sent). */
    struct svc_stream *stream;
    struct {
        const char *name; /* static */
        char *value;      /* owned */
    } headers[SVC_MAX_HEADERS];
    int header_count;
};

typedef void (*svc_handler)(const struct svc_request *req, struct svc_response *res);

/* Reads a header by name (case-insensitive), NULL when absent. */
const char *svc_request_header(const struct svc_request *req, const char *name);

/* Reads a query-string argument by name, NULL when absent. */
const char *svc_request_query(const struct svc_request *req, const char *name);

/* Sets status and a JSON body (compact, keys in insertion order). Steals `doc`. */
void svc_respond_json(struct svc_response *res, unsigned status, json_t *doc);

/* Sets status and a copied body with the given static content type. */
void svc_respond_raw(struct svc_response *res, unsigned status, const char *content_type,
                     const char *body, size_t len);

/* Sets status and a body the response now owns (malloc'd); text NULL (out of memory) gives a
 * 500 problem instead. */
void svc_respond_owned(struct svc_response *res, unsigned status, const char *content_type,
                       char *text, size_t len);

/* Adds a response header; value is copied. Silently ignores headers past SVC_MAX_HEADERS,
 * which is an internal invariant (asserted in debug builds). */
void svc_response_add_header(struct svc_response *res, const char *name, const char *value);

/* Frees what the response owns and resets it. */
void svc_response_clear(struct svc_response *res);

/* --- problem+json errors (RFC 9457), problem.c --- */

/* Problem types: the URI suffix, title and status of each kind of error we send. */
enum svc_problem_kind {
    SVC_PROBLEM_NOT_FOUND,
    SVC_PROBLEM_METHOD_NOT_ALLOWED,
    SVC_PROBLEM_MALFORMED_JSON,
    SVC_PROBLEM_UNSUPPORTED_MEDIA_TYPE,
    SVC_PROBLEM_BODY_TOO_LARGE,
    SVC_PROBLEM_VALIDATION,
    SVC_PROBLEM_NOT_READY,
    SVC_PROBLEM_INTERNAL,
    SVC_PROBLEM_UNAUTHORIZED,
    SVC_PROBLEM_FORBIDDEN,
    SVC_PROBLEM_PRECONDITION_FAILED,
    SVC_PROBLEM_PRECONDITION_REQUIRED,
    SVC_PROBLEM_CONFLICT,
    SVC_PROBLEM_BAD_REQUEST,
    SVC_PROBLEM_TOO_EXPENSIVE,
    SVC_PROBLEM_BUSY,
    SVC_PROBLEM_SUBSCRIBERS_FULL,
};

/* Fills res with an application/problem+json body. detail may be NULL. errors, when not NULL,
 * is an array of {pointer, message} objects and is stolen. */
void svc_problem(struct svc_response *res, enum svc_problem_kind kind, const char *detail,
                 json_t *errors);

/* 422 too-expensive: the request needs more than its work budget `limit` allows (README
 * "Limits and budgets"). The problem names the limit, the budget and the figure reached when
 * the work stopped, as members of the same names. */
void svc_problem_too_expensive(struct svc_response *res, const char *limit, long long budget,
                               long long reached);

/* Validation errors gathered while decoding a request: each names the field by JSON pointer
 * (RFC 6901). Append with svc_errors_add, then send with svc_errors_respond. */
struct svc_errors {
    json_t *list;
};

void svc_errors_init(struct svc_errors *e);
void svc_errors_add(struct svc_errors *e, const char *pointer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool svc_errors_any(const struct svc_errors *e);

/* For a request built from query parameters: each error whose pointer is a member map[k].member
 * (or inside it) is named by its parameter, "?param", instead. map ends with {NULL, NULL}. */
struct svc_query_member {
    const char *member, *param;
};
void svc_errors_as_query(struct svc_errors *e, const struct svc_query_member *map);
/* Sends 422 with every gathered error and releases the list. */
void svc_errors_respond(struct svc_errors *e, struct svc_response *res);
void svc_errors_free(struct svc_errors *e);

/* Parses the request body as one JSON value: rejects duplicate keys and trailing data.
 * Returns the value, or NULL after filling res with a 400 that gives jansson's position. */
json_t *svc_parse_json_body(const struct svc_request *req, struct svc_response *res);

/* --- live feeds, encounter_stream.c (the hub of subscribers: hub.h) --- */

/* What svc_stream_read returns besides a byte count. */
#define SVC_STREAM_END   (-1) /* the feed ends cleanly (server stopping, encounter deleted) */
#define SVC_STREAM_ERROR (-2) /* the client is gone, or the database failed: close at once */

/* Attaches an open feed to its connection: wake(cookie) resumes it once parked, fd is its
 * socket (watched for a hang-up while parked). */
void svc_stream_attach(struct svc_stream *st, void (*wake)(void *), void *cookie, int fd);

/* Fills buf (max bytes) with the feed's next bytes: a byte count > 0, SVC_STREAM_END or
 * SVC_STREAM_ERROR; 0 only after parking the feed through park(cookie) (which suspends the
 * connection), until the hub wakes it. */
long svc_stream_read(struct svc_stream *st, char *buf, size_t max, void (*park)(void *),
                     void *cookie);

/* Leaves the hub and frees the feed. NULL is accepted. */
void svc_stream_free(struct svc_stream *st);

/* Reads the version of every encounter with subscribers from the database and tells the hub:
 * how a feed sees events written by another process on the same database. */
void svc_stream_poll(struct svc_context *ctx);

/* --- routing, router.c --- */

/* What a route takes as its body; the server answers 415 to anything else. */
enum svc_body {
    SVC_BODY_IGNORED,  /* GET and DELETE: whatever is sent is not read */
    SVC_BODY_JSON,     /* application/json, required */
    SVC_BODY_OPTIONAL, /* nothing, or application/json */
    SVC_BODY_NONE,     /* nothing: a POST that acts on the path alone */
};

struct svc_route {
    const char *method;
    const char *pattern; /* "/v1/encounters/{id}"; also the metrics label */
    svc_handler handler;
    enum svc_body body; /* what the request may carry */
};

/* The outcome of matching a method and path against the route table. */
struct svc_match {
    const struct svc_route *route; /* NULL when nothing matched */
    int route_index;               /* index into the table, or -1 */
    bool path_known;               /* some route has this path under another method */
    char allow[96];                /* methods the path accepts, for Allow */
    const char *params[SVC_MAX_PARAMS];
    char param_buf[512];
};

/* Matches method and path; GET routes also answer HEAD. */
void svc_route_match(const char *method, const char *path, struct svc_match *m);

/* The table itself, for metrics labels and the route-coverage test. */
const struct svc_route *svc_routes(int *count);

/* --- handlers --- */
void svc_handle_healthz(const struct svc_request *req, struct svc_response *res);
void svc_handle_readyz(const struct svc_request *req, struct svc_response *res);
void svc_handle_metrics(const struct svc_request *req, struct svc_response *res);
void svc_handle_openapi(const struct svc_request *req, struct svc_response *res);
void svc_handle_docs(const struct svc_request *req, struct svc_response *res);
void svc_handle_play(const struct svc_request *req, struct svc_response *res);
void svc_handle_presets(const struct svc_request *req, struct svc_response *res);
void svc_handle_distance(const struct svc_request *req, struct svc_response *res);
void svc_handle_flanking(const struct svc_request *req, struct svc_response *res);
void svc_handle_areas(const struct svc_request *req, struct svc_response *res);
void svc_handle_sizes(const struct svc_request *req, struct svc_response *res);
void svc_handle_sources(const struct svc_request *req, struct svc_response *res);
void svc_handle_falling(const struct svc_request *req, struct svc_response *res);
void svc_handle_collisions(const struct svc_request *req, struct svc_response *res);
void svc_handle_dropped(const struct svc_request *req, struct svc_response *res);
void svc_handle_travel(const struct svc_request *req, struct svc_response *res);
void svc_handle_move_path(const struct svc_request *req, struct svc_response *res);
void svc_handle_move_reach(const struct svc_request *req, struct svc_response *res);
void svc_handle_move_route(const struct svc_request *req, struct svc_response *res);
void svc_handle_move_forced(const struct svc_request *req, struct svc_response *res);
void svc_handle_move_speed(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_create(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_list(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_import(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_get(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_delete(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_add_combatant(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_update_combatant(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_remove_combatant(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_initiative(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_next_turn(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_action(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_events(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_stream(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_state(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_verify(const struct svc_request *req, struct svc_response *res);
/* Decodes a movement map (the "map" member of body: {width, height, rows?, squares?}) as the
 * movement endpoints do, within --max-map-side and the map_squares budget. 0, or -1 after
 * adding errors under /map. out is the caller's to free with rules_map_free. */
struct rules_map;
int svc_decode_map(json_t *body, const struct svc_config *cfg, bool hex_grid, struct rules_map *out,
                   struct svc_errors *e);

/* The state of the encounter req->params[0] after event ?at (default: the latest), as the
 * request's reader may see it (the seed only for the owner or once revealed): for handlers
 * that show an encounter in another form (pictures, feeds). *at_out and *version get the event
 * number and the encounter's version. NULL after answering (404, 422 for a bad ?at, 503). */
json_t *svc_encounter_state_at(const struct svc_request *req, struct svc_response *res,
                               int64_t *at_out, int64_t *version);

/* The refusals of a stored board's reads (encounter/refusals.c): a read of the board after
 * event `at` with the same query is refused 422 too-expensive again, so it is answered from
 * the first refusal's text rather than from the work. key: the read's path, `at` and the query
 * parameters named by params (NULL-terminated) into out; false when it does not fit (then
 * nothing is kept). get answers res (true) when the key was refused; put keeps res when it is a
 * 422 too-expensive. release frees them all (at exit). */
bool svc_refusal_key(const struct svc_request *req, int64_t at, const char *const *params,
                     char *out, size_t n);
bool svc_refusal_get(const char *key, struct svc_response *res);
void svc_refusal_put(const char *key, const struct svc_response *res);
void svc_refusals_release(void);
/* How many answers came from a refusal kept (for /metrics). */
uint64_t svc_refusals_replayed(void);
void svc_handle_encounter_reveal(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_hp(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_export(const struct svc_request *req, struct svc_response *res);
/* Decodes a creature at ptr (geometry_api.c): its place and size, and with `combat` its
 * reach, threat, facing and flanking fields; extra_keys (NULL-terminated, may be NULL) are
 * further members the caller reads itself. Problems go to e. */
struct rules_options;
struct rules_creature;
/* A Defense object {armor, shield, ..., size, other, total?} at ptr into ac. */
struct rules_defense;
void svc_decode_defense(json_t *def, const char *ptr, struct rules_defense *ac,
                        struct svc_errors *e);

/* obj's damage (dice notation, parsed into expr; *damage NULL when absent or refused),
 * crit_range and crit_multiplier (the SRD's 20 and x2 when absent), errors under ptr. */
struct rules_dice_expr;
void svc_decode_damage(json_t *obj, const char *ptr, const char **damage,
                       struct rules_dice_expr *expr, int *crit_range, int *crit_multiplier,
                       struct svc_errors *e);
void svc_decode_creature(json_t *obj, const char *ptr, const struct rules_options *o, bool combat,
                         const char *const *extra_keys, struct rules_creature *out,
                         struct svc_errors *e);
/* Decodes body[key] as a creature (as svc_decode_creature), reporting it missing with an
 * "is required" error at /key and a default Medium creature in *out. Returns the member when
 * it is an object, so the caller can read its extra_keys; NULL otherwise. */
json_t *svc_decode_member(json_t *body, const char *key, const struct rules_options *o, bool combat,
                          const char *const *extra_keys, struct rules_creature *out,
                          struct svc_errors *e);
/* Pictures of the board (render_api.c). */
void svc_handle_render(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_map_png(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_map_svg(const struct svc_request *req, struct svc_response *res);
void svc_handle_attack_modifiers(const struct svc_request *req, struct svc_response *res);
void svc_handle_attack_resolve(const struct svc_request *req, struct svc_response *res);

void svc_handle_dice_roll(const struct svc_request *req, struct svc_response *res);
/* Odds before rolling (odds_api.c, issue 23). */
void svc_handle_dice_odds(const struct svc_request *req, struct svc_response *res);
void svc_handle_attack_odds(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_odds(const struct svc_request *req, struct svc_response *res);
/* Asking in encounter terms (encounter_queries.c, issue 18). */
void svc_handle_encounter_reach(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_route(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_threats(const struct svc_request *req, struct svc_response *res);
void svc_handle_encounter_flanking(const struct svc_request *req, struct svc_response *res);

/* A stored encounter's attack whose odds are asked for (GET /v1/encounters/{id}/odds). */
struct svc_odds_context {
    const char *id, *actor, *target, *attack;
    long long at;
    bool full_attack;
};

/* Answers /v1/attacks/odds's body (decoded, its members checked) into res: the odds, or the
 * errors in e with those the body adds. ctx, when not NULL, is written as "encounter". The
 * caller frees e and body. */
void svc_attack_odds_answer(const struct svc_request *req, json_t *body,
                            const struct svc_odds_context *ctx, struct svc_errors *e,
                            struct svc_response *res);

/* Where a ruling's dice come from: "seed" (given, or drawn and reported so the ruling can be
 * reproduced) or "results" the caller rolled at the table, used in order. */
struct svc_dice_source {
    long long seed; /* -1 until known */
    int results[RULES_DICE_MAX_DRAWS];
    size_t count;
    bool supplied;
};

/* Parses a request's "expression"; on a refusal adds an error at /expression that names the
 * refused part, and returns false. */
bool svc_parse_dice(const char *text, struct rules_dice_expr *expr, struct svc_errors *e);

/* Reads body's "seed" and "results" (mutually exclusive); problems go to e. */
void svc_decode_dice_source(json_t *body, struct svc_dice_source *src, struct svc_errors *e);

/* Prepares d from src, drawing a seed when none was given. */
void svc_dice_source_open(struct svc_dice_source *src, struct rules_dice *d);

/* Adds "source" and, for a seed, "seed" to doc. */
void svc_dice_source_describe(const struct svc_dice_source *src, json_t *doc);

/* The stateless answers told for a human (explain.c): each sets `explain` (plain text, no
 * markup) and `explain_markdown` (Discord markdown) on the answer document doc, from the
 * figures doc already holds. */
void svc_explain_roll(json_t *doc);
/* With the creatures' names when the request gives them (NULL: "the two", "the target"). */
void svc_explain_distance(json_t *doc, const char *from, const char *to);
void svc_explain_flanking(json_t *doc, const char *attacker, const char *target, const char *by);
void svc_explain_areas(json_t *doc);
void svc_explain_falling(json_t *doc);
void svc_explain_collision(json_t *doc);
void svc_explain_dropped(json_t *doc);
void svc_explain_travel(json_t *doc);
/* Writes "explain" (plain) and "explain_markdown" (the same in Discord markdown: markdown's
 * characters escaped, each figure and the verdicts Legal/Illegal in bold) as members of the
 * open object; for answers whose sentence is written as plain text. */
struct jw;
void svc_write_explains(struct jw *w, const char *plain);

/* User text (a name, a dice label, anything a request supplied) escaped for Discord markdown,
 * so that it shows as written and never formats, links or mentions: a backslash before each of
 * \ * _ ~ ` | > # [ ] ( ) < @ : and, at the start of the text or of one of its lines, before a
 * '-' or '+' or the '.' after a number (a list). Writes at most cap bytes, NUL included, never
 * cutting an escape from its character; returns the length written. */
size_t svc_md_escape(const char *text, char *out, size_t cap);

/* One answer's sentence, built once as both texts a human reads: `plain` (explain: no markup)
 * and `md` (explain_markdown: Discord markdown). Each append goes to both, so that the two
 * cannot drift; a text that does not fit its buffer is cut, never overrun, and nothing is
 * appended to it after the cut (its length is then its buffer's less one). The buffers are the
 * caller's (svc_told_init); give md room for escapes (twice plain's is enough). */
struct svc_told {
    char *plain, *md;
    size_t plain_cap, md_cap;
    size_t pl, ml; /* lengths so far */
};
void svc_told_init(struct svc_told *t, char *plain, size_t plain_cap, char *md, size_t md_cap);
/* The answer's own words, the same in both (no markup characters in them; never user text). */
void svc_told_text(struct svc_told *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* To one of the two only (markup in md, its words in plain). */
void svc_told_plain(struct svc_told *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void svc_told_md(struct svc_told *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A figure: bare in plain, in bold in md. */
void svc_told_bold(struct svc_told *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* User text: as written in plain, escaped (svc_md_escape) in md. */
void svc_told_user(struct svc_told *t, const char *text);
void svc_told_usern(struct svc_told *t, const char *text, size_t n);
/* The answer's own sentence, marked up as svc_write_explains does: in md each figure and the
 * verdicts Legal/Illegal bold, markdown's characters escaped. */
void svc_told_figures(struct svc_told *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Writes "explain" and "explain_markdown" as members of the open object. */
void svc_write_told(struct jw *w, const struct svc_told *t);

/* Encodes a roll: each term, each die (value, kept), term totals, total, min and max. */
struct rules_dice_expr;
struct rules_roll;
json_t *svc_encode_roll(const char *text, const struct rules_dice_expr *expr,
                        const struct rules_roll *roll);

#endif
