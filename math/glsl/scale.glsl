// x * 2^n for an integral n in [-252, 254], in two exact steps so neither factor leaves the
// float range (a result below the normal range is a denormal, or zero where the driver
// flushes denormals).
float brook_scale(float x, float n) {
    int k = int(n);
    int h = k / 2;
    return (x * intBitsToFloat((h + 127) << 23)) * intBitsToFloat((k - h + 127) << 23);
}
// Positive infinity and a quiet NaN, from their bits: a driver may fold `1.0 / 0.0` or `x - x`.
float brook_inf() { return uintBitsToFloat(0x7F800000u); }
float brook_nan() { return uintBitsToFloat(0x7FC00000u); }
// Whether x is NaN or an infinity, from its bits: a driver may take `isnan(x)` to be false
// (fast math), and naga's WGSL writer has no `isnan` for the wgpu backend's traces.
bool brook_isnan(float x) { return (floatBitsToUint(x) & 0x7FFFFFFFu) > 0x7F800000u; }
bool brook_isinf(float x) { return (floatBitsToUint(x) & 0x7FFFFFFFu) == 0x7F800000u; }
// |v| with the sign of x (a zero's too: odd functions keep -0).
float brook_copysign(float v, float x) {
    return uintBitsToFloat((floatBitsToUint(v) & 0x7FFFFFFFu) | (floatBitsToUint(x) & 0x80000000u));
}
// x with the low 12 bits of its significand cleared: the product of two such values is exact.
float brook_split(float x) { return uintBitsToFloat(floatBitsToUint(x) & 0xFFFFF000u); }
