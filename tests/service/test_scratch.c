/* The worker's scratch for a stateless ruling's body (service/json/scratch.h, issue 33): the
 * value parsed there is the value the ordinary parse gives, lives in the thread's scratch and
 * is taken back by the next parse; what does not fit comes from malloc; and nothing given to
 * free() (a 400's text) is made there. Under AddressSanitizer a free() of scratch memory, or a
 * read of a value after its scratch was taken back, aborts the test. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "service/http/http.h"
#include "service/http/request.h"
#include "service/json/scratch.h"

static struct svc_request request_of(const char *body, size_t len)
{
    return (struct svc_request){.method = "POST", .path = "/", .body = body, .body_len = len};
}

static const char attack[] =
    "{\"rules\":{\"preset\":\"d20-3.5-facing\"},\"attacker\":{\"x\":5,\"y\":6,\"facing\":0,"
    "\"attack_bonus\":5,\"damage\":\"1d6+1\"},\"defender\":{\"x\":5,\"y\":5,\"facing\":0,"
    "\"defense\":{\"armor\":4,\"dex\":2}},\"allies\":[{\"x\":4,\"y\":5}],\"seed\":7}";

Test(scratch, holds_the_value_the_ordinary_parse_gives)
{
    struct svc_request req = request_of(attack, sizeof attack - 1);
    struct svc_response res = {0};
    json_t *plain = svc_parse_json_body(&req, &res);
    json_t *body = svc_parse_json_body_scratch(&req, &res);
    cr_assert_not_null(plain);
    cr_assert_not_null(body);
    cr_assert_eq(res.status, 0);
    cr_assert(svc_json_scratch_owns(body), "the body was not made in the scratch");
    cr_assert(!svc_json_scratch_owns(plain));
    cr_assert(svc_json_scratch_owns(json_object_get(json_object_get(body, "attacker"), "damage")));
    cr_assert(json_equal(plain, body));
    /* Made after the parse: from malloc, and free() takes it. */
    char *text = json_dumps(body, JSON_COMPACT);
    cr_assert(!svc_json_scratch_owns(text));
    free(text);
    svc_json_scratch_drop(body); /* nothing to give back */
    json_decref(plain);
}

Test(scratch, is_taken_back_by_the_next_parse)
{
    struct svc_request req = request_of(attack, sizeof attack - 1);
    struct svc_response res = {0};
    json_t *first = svc_parse_json_body_scratch(&req, &res);
    json_decref(first);
    json_t *second = svc_parse_json_body_scratch(&req, &res);
    cr_assert_eq(second, first, "the second body was not made where the first was");
    json_decref(second);
}

Test(scratch, spills_what_does_not_fit_to_malloc)
{
    /* A string of 100,000 bytes does not fit in 64 KB: it comes from malloc, the rest from the
     * scratch, and the value is whole. */
    size_t n = 100000;
    char *big = malloc(n + 32);
    cr_assert_not_null(big);
    size_t len = (size_t)sprintf(big, "{\"a\":1,\"s\":\"");
    memset(big + len, 'x', n);
    len += n;
    len += (size_t)sprintf(big + len, "\"}");
    struct svc_request req = request_of(big, len);
    struct svc_response res = {0};
    json_t *body = svc_parse_json_body_scratch(&req, &res);
    cr_assert_not_null(body);
    cr_assert(svc_json_scratch_owns(body));
    json_t *s = json_object_get(body, "s");
    cr_assert_eq(json_string_length(s), n);
    cr_assert(!svc_json_scratch_owns(json_string_value(s)));
    cr_assert_eq(json_integer_value(json_object_get(body, "a")), 1);
    /* Not wholly in the scratch: dropped with json_decref, which frees the spilled string
     * (LeakSanitizer reports it otherwise). */
    svc_json_scratch_drop(body);
    free(big);
}

Test(scratch, a_malformed_bodys_problem_is_not_made_there)
{
    static const char bad[] = "{\"a\":";
    struct svc_request req = request_of(bad, sizeof bad - 1);
    struct svc_response res = {0};
    cr_assert_null(svc_parse_json_body_scratch(&req, &res));
    cr_assert_eq(res.status, 400);
    cr_assert_not_null(res.body);
    cr_assert(!svc_json_scratch_owns(res.body));
    cr_assert_not_null(strstr(res.body, "byte offset"));
    svc_response_clear(&res); /* free()s the text */
}
