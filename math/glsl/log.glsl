// x = m * 2^e with m in [sqrt(1/2), sqrt(2)): returns f = m - 1 (exact) and sets e. For
// finite x > 0; a denormal is scaled into the normal range first.
float brook_log_reduce(float x, out float e) {
    float scale = 0.0;
    if (x < 1.17549435e-38) { x *= 33554432.0; scale = 25.0; }
    int bits = floatBitsToInt(x);
    e = float((bits >> 23) - 127) - scale;
    float m = intBitsToFloat((bits & 0x007FFFFF) | 0x3F800000);
    if (m > 1.41421354) { m *= 0.5; e += 1.0; }
    return m - 1.0;
}
// log(1 + f) - f for f in [sqrt(1/2) - 1, sqrt(2) - 1], the part of the logarithm after its
// exact first term: with s = f / (2 + f), log(1 + f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + R(s^2)),
// R the series 2z/3 + 2z^2/5 + ... to z^5 (|s| <= 0.172: truncation below 2^-30).
float brook_log1p_tail(float f) {
    float s = f / (2.0 + f);
    float z = s * s;
    float r = z * (0.666666687 + z * (0.400000006 + z * (0.285714298 + z * (0.222222224 + z * 0.181818187))));
    float hfsq = 0.5 * f * f;
    return s * (hfsq + r) - hfsq;
}
// The special values C's log gives: -inf at 0, NaN below, inf at inf, NaN for NaN; or the
// value 0.0 when x is in the domain's interior (then the caller computes).
bool brook_log_special(float x, out float v) {
    v = 0.0;
    if (x > 0.0 && !brook_isinf(x)) return false;
    v = brook_isnan(x) || x < 0.0 ? brook_nan() : (x == 0.0 ? -brook_inf() : x);
    return true;
}
// Cg log: e ln 2 + log(1 + f), ln 2 in two parts (fdlibm's arrangement).
float brook_log(float x) {
    float v;
    if (brook_log_special(x, v)) return v;
    float e;
    float f = brook_log_reduce(x, e);
    return e * 0.693145752 + ((brook_log1p_tail(f) + e * 1.42860677e-06) + f);
}
// Cg log2: e + log(1 + f) / ln 2.
float brook_log2(float x) {
    float v;
    if (brook_log_special(x, v)) return v;
    float e;
    float f = brook_log_reduce(x, e);
    // f / ln 2 as an exact product of 12-bit halves (f = fh + fl, 1/ln 2 = IH + IL) plus small
    // terms, so the result is rounded about once.
    float fh = brook_split(f);
    return e + (fh * 1.44287109 + ((f - fh) * 1.44269502 + (fh * -0.000176052854 + brook_log1p_tail(f) * 1.44269502)));
}
// Cg log10: e log10(2) + log(1 + f) log10(e), log10(2) in two parts.
float brook_log10(float x) {
    float v;
    if (brook_log_special(x, v)) return v;
    float e;
    float f = brook_log_reduce(x, e);
    return e * 0.30103302 + (e * -3.02435546e-06 + (f + brook_log1p_tail(f)) * 0.434294492);
}
