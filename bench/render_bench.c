/* Issue 19's figures, in process (no HTTP): POST /v1/render of a 50 x 50 board with 20
 * creatures and every overlay (threatened, reach, flanking, a path with its attacks of
 * opportunity, cover lines, an area, a forced path), as PNG and as SVG, beside POST
 * /v1/movement/reach of the same map, creatures and mover in the same run: the best and the
 * median of `calls` calls each, in milliseconds.
 * Target: the PNG in under 20 ms, and under 3x the reach.
 * Usage: render_bench [bench/render_board.json] [calls]
 *        render_bench --reach-body [board.json]   prints the equivalent reach request
 *        render_bench --png-only [board.json] [calls]   only the PNG, for callgrind:
 *          valgrind --tool=callgrind --toggle-collect=svc_handle_render render_bench --png-only
 *          bench/render_board.json 5   (instructions a picture = the total Ir / 5) */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service/api/api.h"
#include "service/http/config.h"
#include "service/http/http.h"

/* The machine's load average over the last minute (/proc/loadavg), or -1. */
static double load_average(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double l = -1;
    if (f != NULL) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *no_env(const char *name)
{
    (void)name;
    return NULL;
}

static const char *format_query(void *cookie, const char *name)
{
    return strcmp(name, "format") == 0 ? cookie : NULL;
}

static const char *no_header(void *cookie, const char *name)
{
    (void)cookie, (void)name;
    return NULL;
}

struct call {
    const char *path;
    svc_handler handler;
    const char *body;
    const char *format; /* ?format=, or NULL */
    struct svc_context *ctx;
    size_t answer_len;
};

static void call_once(struct call *c)
{
    struct svc_request req = {.method = "POST",
                              .path = c->path,
                              .body = c->body,
                              .body_len = strlen(c->body),
                              .header = no_header,
                              .query = format_query,
                              .header_cookie = (void *)c->format,
                              .ctx = c->ctx};
    struct svc_response res;
    memset(&res, 0, sizeof res);
    c->handler(&req, &res);
    if (res.status != 200) {
        fprintf(stderr, "render_bench: %s: status %u: %.300s\n", c->path, res.status, res.body);
        exit(1);
    }
    c->answer_len = res.body_len;
    svc_response_clear(&res);
}

struct figure {
    double best, median;         /* milliseconds per call */
    double cpu_best, cpu_median; /* the thread's CPU milliseconds per call */
};

static double cpu_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* `calls` calls timed one by one (after one to warm fonts and caches): the best and the
 * median, of the wall time and of the thread's CPU time. On a shared machine the best is the
 * code, the median the code and the neighbours; the CPU time leaves out the time the thread
 * waited for a core. */
static struct figure measure(struct call *c, int calls)
{
    double *t = calloc((size_t)calls, sizeof *t), *cpu = calloc((size_t)calls, sizeof *cpu);
    call_once(c);
    for (int i = 0; i < calls; i++) {
        double start = now_s(), cpu_start = cpu_now_s();
        call_once(c);
        t[i] = (now_s() - start) * 1e3;
        cpu[i] = (cpu_now_s() - cpu_start) * 1e3;
    }
    qsort(t, (size_t)calls, sizeof *t, by_value);
    qsort(cpu, (size_t)calls, sizeof *cpu, by_value);
    struct figure f = {t[0], t[calls / 2], cpu[0], cpu[calls / 2]};
    free(t);
    free(cpu);
    return f;
}

int main(int argc, char **argv)
{
    bool print_reach = argc > 1 && strcmp(argv[1], "--reach-body") == 0;
    if (print_reach)
        argc--, argv++;
    bool png_only = argc > 1 && strcmp(argv[1], "--png-only") == 0;
    if (png_only)
        argc--, argv++;
    const char *file = argc > 1 ? argv[1] : "bench/render_board.json";
    int calls = argc > 2 ? atoi(argv[2]) : 100;
    calls = calls > 0 ? calls : 1;
    json_error_t err;
    json_t *board = json_load_file(file, 0, &err);
    if (board == NULL) {
        fprintf(stderr, "render_bench: %s: %s\n", file, err.text);
        return 2;
    }
    char *render_body = json_dumps(board, JSON_COMPACT);
    /* The equivalent reach request: the same map, creatures, mover and mode, without the
     * overlays and what only a picture shows. */
    json_t *reach = json_deep_copy(board);
    json_object_del(reach, "overlays");
    static const char *const looks[] = {"id", "label", "hp", "max_hp", "conditions"};
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(reach, "creatures"), i, c)
    {
        for (int k = 1; k < 5; k++) /* a creature keeps its id */
            json_object_del(c, looks[k]);
    }
    for (int k = 0; k < 5; k++)
        json_object_del(json_object_get(reach, "mover"), looks[k]);
    char *reach_body = json_dumps(reach, JSON_COMPACT);
    if (print_reach) {
        puts(reach_body);
        free(render_body);
        free(reach_body);
        json_decref(reach);
        json_decref(board);
        return 0;
    }
    struct svc_config cfg;
    char msg[256];
    char *args[] = {"render_bench", NULL};
    if (svc_config_parse(1, args, no_env, &cfg, msg, sizeof msg) != SVC_CONFIG_RUN) {
        fprintf(stderr, "render_bench: %s\n", msg);
        return 2;
    }
    struct svc_context ctx = {.config = &cfg};
    struct call r = {"/v1/movement/reach", svc_handle_move_reach, reach_body, NULL, &ctx, 0};
    struct call png = {"/v1/render", svc_handle_render, render_body, "png", &ctx, 0};
    struct call svg = {"/v1/render", svc_handle_render, render_body, "svg", &ctx, 0};
    if (png_only) { /* for an instruction count (callgrind): the picture alone */
        for (int k = 0; k < calls; k++)
            call_once(&png);
        free(render_body);
        free(reach_body);
        json_decref(reach);
        json_decref(board);
        return 0;
    }
    struct figure tr = measure(&r, calls), tp = measure(&png, calls), ts = measure(&svg, calls);
    json_t *cs = json_object_get(board, "creatures");
    printf("board: %s, %lld x %lld, %zu creatures and the mover, every overlay; %d calls each\n",
           file, json_integer_value(json_object_get(json_object_get(board, "map"), "width")),
           json_integer_value(json_object_get(json_object_get(board, "map"), "height")),
           json_array_size(cs), calls);
    printf("                     best ms  median ms  x reach (best)  CPU best / median ms\n");
    printf("/v1/movement/reach  %8.2f  %9.2f  baseline        %8.2f / %6.2f (%zu-byte answer)\n",
           tr.best, tr.median, tr.cpu_best, tr.cpu_median, r.answer_len);
    printf("/v1/render PNG      %8.2f  %9.2f  %6.1fx         %8.2f / %6.2f (%zu bytes; target < 20 "
           "ms, < 3x)\n",
           tp.best, tp.median, tp.best / tr.best, tp.cpu_best, tp.cpu_median, png.answer_len);
    printf("/v1/render SVG      %8.2f  %9.2f  %6.1fx         %8.2f / %6.2f (%zu bytes)\n", ts.best,
           ts.median, ts.best / tr.best, ts.cpu_best, ts.cpu_median, svg.answer_len);
    printf("load average %.2f at the end\n", load_average());
    free(render_body);
    free(reach_body);
    json_decref(reach);
    json_decref(board);
    return 0;
}
