// sin and cos of r in [-pi/4, pi/4]: their Taylor series to degree 11 and 12 (truncation below
// 2^-36 there).
float brook_sin_poly(float r) {
    float z = r * r;
    return r + r * z * (-0.166666672 + z * (0.00833333377 + z * (-0.000198412701 + z * (2.75573188e-06 + z * -2.50521079e-08))));
}
float brook_cos_poly(float r) {
    float z = r * r;
    return 1.0 - 0.5 * z + z * z * (0.0416666679 + z * (-0.00138888892 + z * (2.48015876e-05 + z * (-2.75573200e-07 + z * 2.08767559e-09))));
}
// The 96-bit product of a and b as hi:lo words, from 16-bit halves (GLSL 3.30 has no
// umulExtended).
void brook_mul32(uint a, uint b, out uint hi, out uint lo) {
    uint a0 = a & 0xFFFFu, a1 = a >> 16, b0 = b & 0xFFFFu, b1 = b >> 16;
    uint p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0;
    uint mid = (p00 >> 16) + (p01 & 0xFFFFu) + (p10 & 0xFFFFu);
    lo = (mid << 16) | (p00 & 0xFFFFu);
    hi = a1 * b1 + (p01 >> 16) + (p10 >> 16) + (mid >> 16);
}
// Bits of 2/pi, 32 to a word, after one word of zeros: bit i of 2/pi (the coefficient of
// 2^-i) is bit 31 - (i + 31) % 32 of word (i + 31) / 32.
const uint BROOK_TWO_OVER_PI[9] = uint[9](0u, 0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u,
    0xF534DDC0u, 0xDB629599u, 0x3C439041u, 0xFE5163ABu, 0xDEBBC561u);
// Payne-Hanek reduction of a finite |x| >= 2^-7: x = M 2^E exactly (M the 24-bit significand),
// so x 2/pi mod 4 needs only the 96 bits of 2/pi from bit E - 1 on: the low 96 bits of M times
// that window are x 2/pi mod 4 in fixed point with 94 fractional bits. Returns the quadrant
// and sets r = x - quadrant pi/2 in [-pi/4, pi/4].
int brook_reduce_large(float x, out float r) {
    uint bits = floatBitsToUint(x);
    uint m = (bits & 0x007FFFFFu) | 0x00800000u;
    int p = int((bits >> 23) & 0xFFu) - 150 + 30;
    int j = p >> 5, s = p & 31;
    uint w0 = BROOK_TWO_OVER_PI[j], w1 = BROOK_TWO_OVER_PI[j + 1], w2 = BROOK_TWO_OVER_PI[j + 2];
    if (s != 0) {
        uint w3 = BROOK_TWO_OVER_PI[j + 3];
        w0 = (w0 << s) | (w1 >> (32 - s));
        w1 = (w1 << s) | (w2 >> (32 - s));
        w2 = (w2 << s) | (w3 >> (32 - s));
    }
    uint h0, l0, h1, l1, h2, l2;
    brook_mul32(m, w0, h0, l0);
    brook_mul32(m, w1, h1, l1);
    brook_mul32(m, w2, h2, l2);
    uint p2 = l2;
    uint p1 = h2 + l1;
    uint p0 = h1 + l0 + (p1 < h2 ? 1u : 0u);
    // Integer part mod 4 in p0's top two bits; the fraction as a signed 64-bit value hi:lo in
    // units of 2^-64, rounded to the nearest quadrant (a negative fraction when above 1/2).
    int quadrant = int(p0 >> 30);
    int hi = int((p0 << 2) | (p1 >> 30));
    uint lo = (p1 << 2) | (p2 >> 30);
    if (hi < 0) quadrant += 1;
    // The fraction as fh + fl, fh exact (hi's top 24 bits), fl the rest; r = (fh + fl) pi/2 with
    // pi/2 in two parts, rounded about once.
    float fh = float(hi & ~0xFF) * 2.32830644e-10;
    float fl = (float(hi & 0xFF) + float(lo) * 2.32830644e-10) * 2.32830644e-10;
    r = fh * 1.57079637 + (fl * 1.57079637 + fh * -4.37113883e-08);
    if (x < 0.0) { r = -r; quadrant = -quadrant; }
    return quadrant & 3;
}
// x reduced by multiples of pi/2 to r in [-pi/4, pi/4] (a little beyond near the edges):
// returns the multiple mod 4. Below 4096 by Cody-Waite with pi/2 in four parts (the first
// three of 12 bits, so k times each is exact), above by Payne-Hanek.
int brook_reduce_pio2(float x, out float r) {
    float ax = abs(x);
    if (ax <= 0.785398185) { r = x; return 0; }
    if (brook_isinf(x) || brook_isnan(x)) { r = brook_nan(); return 0; }
    if (ax < 4096.0) {
        float k = floor(x * 0.636619747 + 0.5);
        r = (((x - k * 1.57080078) - k * -4.45358455e-06) - k * -8.70613803e-10) - k * 6.22337197e-14;
        return int(k) & 3;
    }
    return brook_reduce_large(x, r);
}
float brook_sin(float x) {
    if (x == 0.0) return x;
    float r;
    int q = brook_reduce_pio2(x, r);
    float v = (q & 1) == 0 ? brook_sin_poly(r) : brook_cos_poly(r);
    return q >= 2 ? -v : v;
}
float brook_cos(float x) {
    float r;
    int q = brook_reduce_pio2(x, r);
    float v = (q & 1) == 0 ? brook_cos_poly(r) : brook_sin_poly(r);
    return (q == 1 || q == 2) ? -v : v;
}
float brook_tan(float x) {
    if (x == 0.0) return x;
    float r;
    int q = brook_reduce_pio2(x, r);
    float s = brook_sin_poly(r), c = brook_cos_poly(r);
    return (q & 1) == 0 ? s / c : -c / s;
}
