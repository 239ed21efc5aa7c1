// Host code as the original's sample applications wrote it: the runtime's header by its
// original path, the kernels' generated header as "built/NAME.hpp", a kernel declared by hand
// in the original brcc's form (streams by value, constants by const reference), and macros
// from brcc's command line (-D).
#include <stdio.h>
#include "brook/brook.hpp"
#include "built/kernels.hpp"

extern void saxpy(const float& a, ::brook::stream x, ::brook::stream y, ::brook::stream r);

int main(int argc, char** argv) {
    using namespace brook;
    stream x = stream::create<float>(SIZE);
    stream y = stream::create<float>(SIZE);
    stream r = stream::create<float>(SIZE);
    float xs[SIZE], ys[SIZE], rs[SIZE];
    for (int i = 0; i < SIZE; i++) {
        xs[i] = (float)i;
        ys[i] = 1.0f;
    }
    x.read(xs);
    y.read(ys);
    saxpy(SCALE, x, y, r);
    r.write(rs);
    for (int i = 0; i < SIZE; i++) printf("%.2f ", rs[i]);
    printf("\n");
    float total = 0;
    sum(r, total);
    printf("total %.2f\n", total);
}
