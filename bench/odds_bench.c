/* Odds (issue 23) in process, beside the plain /v1/attacks/modifiers handler as the baseline
 * measured in the same run: an attack's full odds (1d8+3, 5d6 sneak attack, a 19-20/x2
 * critical confirmed by a second roll, damage reduction 2, hit points 20) through
 * rules_attack_odds and through the /v1/attacks/odds handler (which has no critical hits yet:
 * the rules object has no option for them), and 20d6kh10 exactly through rules_dist_of_expr
 * and the /v1/dice/odds handler. Each figure is the best of 40 batches (these machines are
 * shared and noisy), in microseconds and as a ratio to the baseline. Targets: the attack's
 * odds under 50 us, 20d6kh10 under 1 ms. Usage: odds_bench */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules/attack/odds.h"
#include "service/api/api.h"
#include "service/http/http.h"

#define SITUATION                                                                                  \
    "\"attacker\":{\"x\":5,\"y\":6,\"attack_bonus\":5,\"sneak_attack_dice\":5,"                    \
    "\"damage\":\"1d8+3\"},\"defender\":{\"x\":5,\"y\":5,\"defense\":{\"armor\":4,\"dex\":2},"     \
    "\"conditions\":[\"flat_footed\"],\"damage_reduction\":2"

static const char modifiers_body[] = "{" SITUATION "}}";
static const char odds_body[] = "{" SITUATION ",\"hp\":20}}";
static const char dice_body[] = "{\"expression\":\"20d6kh10\"}";

static struct rules_dice_expr weapon, keep10;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void call(svc_handler h, const char *path, const char *body, size_t len)
{
    struct svc_request req = {.method = "POST", .path = path, .body = body, .body_len = len};
    struct svc_response res;
    memset(&res, 0, sizeof res);
    h(&req, &res);
    if (res.status != 200) {
        fprintf(stderr, "odds_bench: %s: status %u: %s\n", path, res.status, res.body);
        exit(1);
    }
    svc_response_clear(&res);
}

static void modifiers(void)
{
    call(svc_handle_attack_modifiers, "/v1/attacks/modifiers", modifiers_body,
         sizeof modifiers_body - 1);
}

static void attack_handler(void)
{
    call(svc_handle_attack_odds, "/v1/attacks/odds", odds_body, sizeof odds_body - 1);
}

static void dice_handler(void)
{
    call(svc_handle_dice_odds, "/v1/dice/odds", dice_body, sizeof dice_body - 1);
}

static double sink;

static void attack_rules(void)
{
    /* +5 against AC 16 (10 + 4 armor + 2 dex, flat-footed: the dex is lost, so 14). */
    struct rules_attack_odds_in in = {
        .attack_total = 5,
        .target_number = 14,
        .damage = &weapon,
        .sneak_dice = 5,
        .damage_reduction = 2,
        .crit = {.threat_min = 19, .multiplier = 2, .confirm = true},
    };
    struct rules_odds_budget b = {100000000, 0};
    struct rules_attack_odds o;
    if (rules_attack_odds(&in, &b, &o) != RULES_ODDS_OK)
        exit(1);
    sink += rules_dist_at_least(&o.damage, 20) + o.expected_damage;
    rules_dist_free(&o.damage);
}

static void keep_rules(void)
{
    struct rules_odds_budget b = {100000000, 0};
    struct rules_dist d;
    if (rules_dist_of_expr(&keep10, &b, &d) != RULES_ODDS_OK)
        exit(1);
    sink += d.p[0];
    rules_dist_free(&d);
}

/* Best microseconds per call over 40 batches of `per` calls. */
static double measure(void (*fn)(void), int per)
{
    double best = 1e30;
    for (int b = 0; b < 40; b++) {
        double start = now_s();
        for (int i = 0; i < per; i++)
            fn();
        double us = (now_s() - start) * 1e6 / per;
        best = us < best ? us : best;
    }
    return best;
}

int main(void)
{
    size_t at = 0;
    if (rules_dice_parse("1d8+3", &weapon, &at) != RULES_DICE_OK ||
        rules_dice_parse("20d6kh10", &keep10, &at) != RULES_DICE_OK)
        return 1;
    double base = measure(modifiers, 2000);
    double ar = measure(attack_rules, 2000), ah = measure(attack_handler, 2000);
    double kr = measure(keep_rules, 200), kh = measure(dice_handler, 200);
    printf("/v1/attacks/modifiers handler (baseline)              %8.2f us\n", base);
    printf(
        "attack odds, rules (5d6 sneak, 19-20/x2 confirmed)    %8.2f us, %6.2fx (target < 50 us)\n",
        ar, ar / base);
    printf("/v1/attacks/odds handler (5d6 sneak, no crits yet)    %8.2f us, %6.2fx\n", ah,
           ah / base);
    printf("20d6kh10, rules                                       %8.2f us, %6.2fx (target < 1000 "
           "us)\n",
           kr, kr / base);
    printf("/v1/dice/odds handler, 20d6kh10                       %8.2f us, %6.2fx\n", kh,
           kh / base);
    return sink < 0.0;
}
