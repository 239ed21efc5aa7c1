// Host code in a .cpp: it includes the kernel files' generated headers and its own header,
// declares streams (one of a struct type kernels.br defines, one made by the original's
// stream::create<T> of a struct no kernel uses) and calls the kernels.
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
    Snapshot snap[2] = {{1, float2(2, 3)}, {4, float2(5, 6)}}, back[2];
    brook::stream snaps = brook::stream::create<Snapshot>(2);
    snaps.read(snap);
    snaps.write(back);
    printf("snapshots %g %g %g, %g %g %g\n", back[0].time, back[0].where.x, back[0].where.y,
           back[1].time, back[1].where.x, back[1].where.y);
    return 0;
}
