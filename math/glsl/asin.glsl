// asin(t) - t for |t| <= 1/2: t^3 P(t^2), P a Chebyshev fit of degree 6 (error below 2^-33
// relative to asin there).
float brook_asin_tail(float t) {
    float z = t * t;
    return t * z * (0.166666672 + z * (0.0749999210 + z * (0.0446476638 + z * (0.0302691385 + z * (0.0236118175 + z * (0.0105744153 + z * 0.0309745409))))));
}
// asin(s) for s = sqrt((1 - |x|) / 2) in [0, 1/2], so that asin(|x|) = pi/2 - 2 asin(s) and
// acos(|x|) = 2 asin(s) for |x| > 1/2.
float brook_asin_half(float a) {
    float s = sqrt(0.5 * (1.0 - a));
    return s + brook_asin_tail(s);
}
// Cg asin: the series within 1/2, the half-angle identity beyond.
float brook_asin(float x) {
    float a = abs(x);
    if (!(a <= 1.0)) return brook_nan();
    float v = a <= 0.5 ? a + brook_asin_tail(a) : 1.57079637 - (2.0 * brook_asin_half(a) - -4.37113883e-08);
    return brook_copysign(v, x);
}
// Cg acos: pi/2 - asin(x) within 1/2, 2 asin(s) or pi - 2 asin(s) beyond.
float brook_acos(float x) {
    float a = abs(x);
    if (!(a <= 1.0)) return brook_nan();
    if (a <= 0.5) return 1.57079637 - (x + (brook_asin_tail(x) - -4.37113883e-08));
    float w = 2.0 * brook_asin_half(a);
    return x > 0.0 ? w : 3.14159274 - (w - -8.74227766e-08);
}
