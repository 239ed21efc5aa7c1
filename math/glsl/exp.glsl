// 2^r for |r| <= 0.5 (and a little beyond): Taylor series of e^(r ln 2) to degree 8, whose
// truncation error is below 2^-30 there.
float brook_exp2_poly(float r) {
    return 1.0 + r * (0.693147182 + r * (0.240226507 + r * (0.0555041097 + r * (0.00961812865
        + r * (0.00133335579 + r * (0.000154035297 + r * (1.52527336e-05 + r * 1.32154867e-06)))))));
}
// Cg exp2: 2^x = 2^n * 2^f with n = round(x) and f = x - n (exact).
float brook_exp2(float x) {
    if (brook_isnan(x)) return x;
    if (x >= 128.0) return brook_inf();
    if (x < -150.0) return 0.0;
    float n = floor(x + 0.5);
    return brook_scale(brook_exp2_poly(x - n), n);
}
// Cg exp: e^x = 2^k * e^r with k = round(x / ln 2) and r = x - k ln 2, ln 2 taken in two
// parts (Cody-Waite) so that k * LN2_HI is exact and r keeps its low bits; e^r by its
// Taylor series to degree 8 (|r| <= 0.35: truncation below 2^-30).
float brook_exp(float x) {
    if (brook_isnan(x)) return x;
    if (x > 88.7228317) return brook_inf();
    if (x < -103.972084) return 0.0;
    float k = floor(x * 1.44269502 + 0.5);
    float r = (x - k * 0.693145752) - k * 1.42860677e-06;
    float p = 1.0 + r + r * r * (0.5 + r * (0.166666672 + r * (0.0416666679 + r * (0.00833333377
        + r * (0.00138888892 + r * (0.000198412701 + r * (2.48015876e-05 + r * 2.75573188e-06)))))));
    return brook_scale(p, k);
}
// Cg ldexp: x 2^n. An integral n (any size: the result saturates to 0 or inf) in three exact
// steps, so ldexp(1e-38, 200) is 1.6e22 rather than 1e-38 times an overflowed 2^200;
// any other n (NaN too: `!(a == b)`, since naga's SPIR-V makes `a != b` false for NaN)
// through exp2.
float brook_ldexp(float x, float n) {
    if (!(floor(n) == n)) return x * brook_exp2(n);
    float k = clamp(n, -300.0, 300.0);
    float third = floor(k / 3.0);
    return brook_scale(brook_scale(x, third), k - third);
}
