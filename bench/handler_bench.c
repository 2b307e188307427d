/* The /v1/attacks/resolve handler in process, without HTTP (issue 5): the request of
 * bench/attack_vs_healthz.sh decoded, ruled and answered, beside json_loadb and jsonr_parse of
 * the same body as baselines measured in the same process. Each figure is the best of 40
 * batches of 2,000 calls (these machines are shared and noisy), in microseconds and as a ratio
 * to json_loadb's parse. Usage: handler_bench
 * `handler_bench --calls N` runs the handler N times and nothing else, for an instruction count
 * that does not move with the machine's load:
 *   valgrind --tool=callgrind --toggle-collect=svc_handle_attack_resolve handler_bench --calls 2000
 * (instructions per call = the total Ir / N). `--minimal` first asks each answer with
 * Prefer: return=minimal. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "service/api/api.h"
#include "service/http/http.h"
#include "service/json/reader.h"

static const char body[] =
    "{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"attacker\":{\"x\":5,\"y\":6,\"facing\":0,"
    "\"attack_bonus\":5,\"sneak_attack_dice\":2,\"damage\":\"1d6+1\"},\"defender\":{\"x\":5,"
    "\"y\":5,\"facing\":0,\"defense\":{\"armor\":4,\"dex\":2},\"damage_reduction\":2},"
    "\"allies\":[{\"x\":4,\"y\":5}],\"cover\":\"quarter\",\"concealment\":[\"quarter\"],"
    "\"seed\":7}";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The request's headers: none, or Prefer: return=minimal with --minimal. */
static bool minimal;

static const char *header(void *cookie, const char *name)
{
    (void)cookie;
    return minimal && strcmp(name, "Prefer") == 0 ? "return=minimal" : NULL;
}

static void handler(void)
{
    struct svc_request req = {.method = "POST",
                              .path = "/v1/attacks/resolve",
                              .body = body,
                              .body_len = sizeof body - 1,
                              .header = header};
    struct svc_response res;
    memset(&res, 0, sizeof res);
    svc_handle_attack_resolve(&req, &res);
    if (res.status != 200) {
        fprintf(stderr, "handler_bench: status %u: %s\n", res.status, res.body);
        exit(1);
    }
    svc_response_clear(&res);
}

static void loadb(void)
{
    json_decref(json_loadb(body, sizeof body - 1, JSON_REJECT_DUPLICATES, NULL));
}

static void fast(void)
{
    json_t *v = jsonr_parse(body, sizeof body - 1);
    if (v == NULL) {
        fprintf(stderr, "handler_bench: the fast path declined the body\n");
        exit(1);
    }
    json_decref(v);
}

/* Best microseconds per call over 40 batches of 2,000. */
static double measure(void (*fn)(void))
{
    double best = 1e30;
    for (int b = 0; b < 40; b++) {
        double start = now_s();
        for (int i = 0; i < 2000; i++)
            fn();
        double us = (now_s() - start) * 1e6 / 2000;
        best = us < best ? us : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--minimal") == 0) {
        minimal = true;
        argc--, argv++;
    }
    if (argc == 3 && strcmp(argv[1], "--calls") == 0) {
        long n = strtol(argv[2], NULL, 10);
        for (long i = 0; i < n; i++)
            handler();
        return 0;
    }
    double base = measure(loadb), parse = measure(fast), whole = measure(handler);
    minimal = true;
    double less = measure(handler);
    printf("json_loadb of the %zu-byte body   %6.2f us (baseline)\n", sizeof body - 1, base);
    printf("jsonr_parse of the same body      %6.2f us, %.2fx the baseline\n", parse, parse / base);
    printf("attack handler (parse to answer)  %6.2f us, %.2fx the baseline\n", whole, whole / base);
    printf("the same, Prefer: return=minimal  %6.2f us, %.2fx the baseline\n", less, less / base);
    return 0;
}
