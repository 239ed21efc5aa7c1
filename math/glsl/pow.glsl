// |x|^y for finite |x| > 0 and finite y != 0, as 2^(y log2 |x|). With |x| = (1 + f) 2^e,
// log2 |x| = e + (f - f^2/2 + b) / ln 2 where b is log(1 + f) - f + f^2/2. The exponent is a sum
// of products of 12-bit halves (y = yh + yl, 1/ln 2 = IH + IL, f = fh + fl, ...), the large ones
// exact; each exact product is split into an integer and a fraction before anything is added,
// so no rounding of y log2|x| as a whole is magnified by the exponential. What is left is the
// rounding of the small terms, about 2^-29 of y log2|x| (README: "Limits and guarantees").
float brook_pow_core(float ax, float y) {
    float e;
    float f = brook_log_reduce(ax, e);
    float fh = brook_split(f), fl = f - fh;
    float g = 0.5 * fh * fh;
    float gh = brook_split(g), gl = g - gh;
    float cross = fh * fl + 0.5 * fl * fl;
    // s = f / (2 + f) to about 2^-34: 2 + f exactly as dh + dl, s's remainder from exact
    // products of halves, then the correction s_lo.
    float dh = brook_split(2.0 + f), dl = (2.0 - dh) + f;
    float s = f / (dh + dl);
    float sh = brook_split(s);
    float s_lo = (((f - sh * dh) - (s - sh) * dh) - s * dl) / (dh + dl);
    float z = s * s;
    float r = z * (0.666666687 + z * (0.400000006 + z * (0.285714298 + z * (0.222222224 + z * 0.181818187))));
    float hfsq_r = (g + cross) + r;
    float b = (s * hfsq_r - cross) + s_lo * hfsq_r;
    float p1 = fh * 1.44287109, p2 = gh * 1.44287109;
    float small = (fh - gh) * -0.000176052854 + ((fl - gl) + b) * 1.44269502;
    float yh = brook_split(y), yl = y - yh;
    float p1h = brook_split(p1), p2h = brook_split(p2);
    float t1 = yh * e, t2 = yl * e, t3 = yh * p1h, t4 = yh * p2h;
    float n1 = floor(t1 + 0.5), n2 = floor(t2 + 0.5), n3 = floor(t3 + 0.5), n4 = floor(t4 + 0.5);
    float rest = (yh * (p1 - p1h) + yl * p1) - (yh * (p2 - p2h) + yl * p2) + y * small;
    float frac = ((t1 - n1) + (t2 - n2)) + (((t3 - n3) - (t4 - n4)) + rest);
    float n = (n1 + n2) + (n3 - n4);
    float k = floor(frac + 0.5);
    n += k;
    frac -= k;
    if (n >= 129.0) return brook_inf();
    if (n < -151.0) return 0.0;
    return brook_scale(brook_exp2_poly(frac), n);
}
// Cg pow with C's (IEEE 754's) meaning where a base is negative or a value special: a negative
// base takes an integral exponent (the sign from its parity) and gives NaN for any other;
// pow(x, 0) = pow(1, y) = 1 even for NaN; zeros and infinities as C99 Annex F.
float brook_pow(float x, float y) {
    if (y == 0.0 || x == 1.0) return 1.0;
    if (brook_isnan(x) || brook_isnan(y)) return brook_nan();
    float ax = abs(x);
    // |y| >= 2^32 takes y log2|x| past any float's exponent unless |x| = 1 (an even integer
    // when finite, so the sign is +).
    if (abs(y) >= 4294967296.0) {
        if (ax == 1.0) return 1.0;
        return (ax > 1.0) == (y > 0.0) ? brook_inf() : 0.0;
    }
    bool y_int = floor(y) == y;
    bool y_odd = y_int && abs(y) < 16777216.0 && fract(0.5 * y) != 0.0;
    bool x_neg = (floatBitsToUint(x) >> 31) != 0u;
    float v;
    if (ax == 0.0 || brook_isinf(ax)) {
        v = (ax == 0.0) == (y < 0.0) ? brook_inf() : 0.0;
    } else if (x_neg && !y_int) {
        return brook_nan();
    } else {
        v = brook_pow_core(ax, y);
    }
    return x_neg && y_odd ? -v : v;
}
