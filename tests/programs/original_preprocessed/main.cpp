// Host code including the generated header of kernels.bri as the original's did.
#include <brook/brook.hpp>
#include "built/kernels.hpp"

int main() {
    float2 data[3] = {float2(1, 2), float2(3, 4), float2(5, 6)};
    brook::stream p = brook::stream::create<float2>(3);
    brook::stream c = brook::stream::create<float2>(3);
    Pair pairs<3>;
    p.read(data);
    weigh(p, 4.0f, pairs);
    centre(pairs, c);
    streamPrint(c);
    return 0;
}
