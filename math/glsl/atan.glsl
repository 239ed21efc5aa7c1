// atan(t) - t for |t| <= 7/16: t^3 P(t^2), P a Chebyshev fit of degree 5 (error below 2^-32
// relative to atan there).
float brook_atan_tail(float t) {
    float z = t * t;
    return t * z * (-0.333333343 + z * (0.199999630 + z * (-0.142833993 + z * (0.110582277 + z * (-0.0853212774 + z * 0.0482230298)))));
}
// Cg atan: atan(|x|) = atan(c) + atan(t) with c in {0, 1/2, 1, 3/2, inf} nearest |x| and
// t = (|x| - c) / (1 + c |x|) within 7/16 (fdlibm's reduction); atan(c) in two parts.
float brook_atan(float x) {
    if (brook_isnan(x)) return x;
    float a = abs(x);
    float hi = 0.0, lo = 0.0, t = a;
    if (a >= 0.4375) {
        if (a < 0.6875) { hi = 0.463647604; lo = 5.01215869e-09; t = (2.0 * a - 1.0) / (2.0 + a); }
        else if (a < 1.1875) { hi = 0.785398185; lo = -2.18556941e-08; t = (a - 1.0) / (a + 1.0); }
        else if (a < 2.4375) { hi = 0.982793748; lo = -2.51314241e-08; t = (a - 1.5) / (1.0 + 1.5 * a); }
        else { hi = 1.57079637; lo = -4.37113883e-08; t = -1.0 / a; }
    }
    float v = hi + (t + (brook_atan_tail(t) + lo));
    return brook_copysign(v, x);
}
// Cg atan2(y, x): the angle of (x, y) in [-pi, pi], with C's values at zeros and infinities
// (the sign of a zero counts: atan2(+0, -0) = pi).
float brook_atan2(float y, float x) {
    if (brook_isnan(x) || brook_isnan(y)) return brook_nan();
    bool y_neg = (floatBitsToUint(y) >> 31) != 0u;
    bool x_neg = (floatBitsToUint(x) >> 31) != 0u;
    float a;
    if (y == 0.0) {
        a = x_neg ? 3.14159274 : 0.0;
    } else if (x == 0.0 || (brook_isinf(y) && !brook_isinf(x))) {
        a = 1.57079637;
    } else if (brook_isinf(x)) {
        a = brook_isinf(y) ? (x_neg ? 2.35619450 : 0.785398185) : (x_neg ? 3.14159274 : 0.0);
    } else {
        a = brook_atan(abs(y / x));
        if (x_neg) a = 3.14159274 - (a - -8.74227766e-08);
    }
    return y_neg ? -a : a;
}
