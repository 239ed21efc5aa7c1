// e^a / 2 for a >= 9, where sinh and cosh are that to within an ulp: past 88.72, where e^a
// overflows but e^a / 2 does not yet, as (e^(a/2) / 2) e^(a/2).
float brook_exp_half(float a) {
    if (a <= 88.7228317) return 0.5 * brook_exp(a);
    float h = brook_exp(0.5 * a);
    return (0.5 * h) * h;
}
// Cg sinh: the odd Taylor series within 1 (degree 11, truncation below 2^-32), (e^|x| - e^-|x|)/2
// up to 9, and e^|x| / 2 beyond.
float brook_sinh(float x) {
    float a = abs(x);
    float v;
    if (a < 1.0) {
        float z = a * a;
        v = a + a * z * (0.166666672 + z * (0.00833333377 + z * (0.000198412701 + z * (2.75573188e-06 + z * 2.50521079e-08))));
    } else if (a < 9.0) {
        float e = brook_exp(a);
        v = 0.5 * (e - 1.0 / e);
    } else {
        v = brook_exp_half(a);
    }
    return brook_copysign(v, x);
}
// Cg cosh: (e^|x| + e^-|x|)/2, and e^|x| / 2 beyond 9.
float brook_cosh(float x) {
    float a = abs(x);
    if (brook_isnan(x)) return x;
    if (a < 9.0) {
        float e = brook_exp(a);
        return 0.5 * (e + 1.0 / e);
    }
    return brook_exp_half(a);
}
// Cg tanh: t + t^3 P(t^2) within 0.55 (Chebyshev fit of degree 5, error below 2^-33 relative),
// 1 - 2 / (e^(2|x|) + 1) up to 9, and 1 beyond (where 1 - tanh is below half an ulp).
float brook_tanh(float x) {
    if (brook_isnan(x)) return x;
    float a = abs(x);
    float v;
    if (a < 0.55) {
        float z = a * a;
        v = a + a * z * (-0.333333343 + z * (0.133333236 + z * (-0.0539647005 + z * (0.0218184497 + z * (-0.00852633268 + z * 0.00252639060)))));
    } else if (a < 9.0) {
        v = 1.0 - 2.0 / (brook_exp(2.0 * a) + 1.0);
    } else {
        v = 1.0;
    }
    return brook_copysign(v, x);
}
