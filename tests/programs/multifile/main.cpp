// Host code in a .cpp: it includes the kernel files' generated headers and its own header,
// declares streams (one of a struct type kernels.br defines) and calls the kernels.
#include "kernels.hpp"
#include "more.hpp"
#include "params.h"

int main(int argc, char** argv) {
    float seeds[BODIES] = {0.0f, 1.0f, 2.0f, 3.0f};
    float s<BODIES>, e<BODIES>, h<BODIES>;
    Body bodies<BODIES>;
    streamRead(s, seeds);
    make_bodies(s, bodies);
    energy(bodies, SCALE, e);
    halve(e, h);
    streamPrint(h);
    float sum;
    total(e, sum);
    printf("total %.2f, %d argument(s)\n", sum, argc - 1);
    return 0;
}
