/* Prints the server's route table as JSON, for the contract's route-coverage check. */
#include <stdio.h>

#include "service/http/router.h"
#include "service/routes.h"

int main(void)
{
    int count = 0;
    const struct svc_route *routes = svc_routes(&count);
    printf("[");
    for (int i = 0; i < count; i++)
        printf("%s{\"method\":\"%s\",\"pattern\":\"%s\"}", i ? "," : "", routes[i].method,
               routes[i].pattern);
    printf("]\n");
    return 0;
}
