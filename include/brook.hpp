// brook.hpp — the host side of Brook programs compiled by brcc.
//
// Host vector types (float2..float4, int2..int4), the stream class, streamRead/streamWrite,
// streamSwap, streamPrint, domains (also as kernel arguments), kernel calls and reductions to
// values and streams, all thin wrappers over the C ABI the Rust runtime exports (src/capi/). No Brook
// semantics live here: shapes, layouts, kernels and errors are the runtime's. A runtime error
// prints `brook: error: …` and exits with status 1.
#ifndef BROOK_HPP
#define BROOK_HPP

#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>
// What the original's headers brought in, so programs may call printf, fabsf, sqrtf, rand,
// memset, assert, use INT_MAX, FLT_MAX or std::cout, … without including the headers
// themselves (the C forms: global names).
#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <iostream>

extern "C" {
typedef struct BrookProgram BrookProgram;
typedef struct BrookStream BrookStream;
typedef struct BrookArg {
    const BrookStream* stream;
    const float* values;
    size_t count;
    const long long* lo;
    const long long* hi;
    size_t rank;
} BrookArg;

BrookProgram* brook_program_new(const char* source, const char* name);
int brook_program_defines(const BrookProgram* program, const char* type_name);
void brook_program_free(BrookProgram* program);
BrookStream* brook_stream_new(const BrookProgram* program, const char* type_name,
                              const long long* extents, size_t rank);
BrookStream* brook_iter_new(unsigned components, const long long* extents, size_t rank,
                            const float* start, const float* end);
void brook_stream_free(BrookStream* stream);
void brook_stream_name(const BrookStream* stream, const char* name);
size_t brook_stream_shape(const BrookStream* stream, long long* extents);
void brook_stream_read(const BrookStream* stream, const float* data, const long long* lo,
                       const long long* hi, size_t rank);
void brook_stream_write(const BrookStream* stream, float* out, const long long* lo,
                        const long long* hi, size_t rank);
void brook_kernel_run(const BrookProgram* program, const char* kernel, const BrookArg* args,
                      size_t count);
void brook_kernel_run_vout(const BrookProgram* program, const char* kernel, const BrookArg* args,
                           size_t count, BrookStream** replaced);
void brook_reduce_value(const BrookProgram* program, const char* reduction,
                        const BrookArg* input, const BrookArg* args, size_t count, float* out,
                        size_t floats, const char* host);
void brook_reduce_stream(const BrookProgram* program, const char* reduction,
                         const BrookArg* input, const BrookArg* args, size_t count,
                         const BrookStream* output);
void brook_stream_scatter(const BrookStream* dst, const BrookStream* index, const BrookStream* data, int op);
void brook_stream_scatter_reduce(const BrookStream* dst, const BrookStream* index,
                                 const BrookStream* data, const BrookProgram* program,
                                 const char* reduction);
void brook_stream_gather_op(const BrookStream* dst, const BrookStream* index, const BrookStream* data, int op);
void brook_stream_gather_reduce(const BrookStream* dst, const BrookStream* index,
                                const BrookStream* data, const BrookProgram* program,
                                const char* reduction);
void brook_write_mask_set(const BrookStream* mask);
void brook_write_mask_enable(int on);
typedef struct BrookWriteMask BrookWriteMask;
BrookWriteMask* brook_write_mask_new(long long h, long long w);
void brook_write_mask_free(BrookWriteMask* mask);
void brook_write_mask_bind(const BrookWriteMask* mask);
void brook_write_mask_unbind(void);
void brook_write_mask_clear(const BrookWriteMask* mask);
void brook_write_mask_setting(int on);
void brook_write_query_begin(void);
unsigned long long brook_write_query_end(void);
void brook_stream_print(const BrookStream* stream);
void brook_finish(void);
void brook_flush_stdout(void);
void brook_initialize(const char* name);
void brook_finalize(void);
const char* brook_runtime_target(size_t i);
#if defined(__GNUC__)
__attribute__((noreturn))
#endif
void brook_fail(const char* message);
}

// ---------------------------------------------------------------- host vector types

#define BROOK_VECTOR_OPS(T, S)                                                            \
    inline T operator+(T a, const T& b) { return a += b; }                                \
    inline T operator-(T a, const T& b) { return a -= b; }                                \
    inline T operator*(T a, const T& b) { return a *= b; }                                \
    inline T operator/(T a, const T& b) { return a /= b; }                                \
    inline T operator+(T a, S b) { return a += T(b); }                                    \
    inline T operator-(T a, S b) { return a -= T(b); }                                    \
    inline T operator*(T a, S b) { return a *= T(b); }                                    \
    inline T operator/(T a, S b) { return a /= T(b); }                                    \
    inline T operator+(S a, const T& b) { return T(a) + b; }                              \
    inline T operator-(S a, const T& b) { return T(a) - b; }                              \
    inline T operator*(S a, const T& b) { return T(a) * b; }                              \
    inline T operator/(S a, const T& b) { return T(a) / b; }                              \
    inline T operator-(const T& a) { return T(S(0)) - a; }

#define BROOK_VECTOR2(T, S)                                                               \
    struct T {                                                                            \
        S x, y;                                                                           \
        T() : x(0), y(0) {}                                                               \
        explicit T(S v) : x(v), y(v) {}                                                   \
        T(S x_, S y_) : x(x_), y(y_) {}                                                   \
        T& operator+=(const T& o) { x += o.x; y += o.y; return *this; }                   \
        T& operator-=(const T& o) { x -= o.x; y -= o.y; return *this; }                   \
        T& operator*=(const T& o) { x *= o.x; y *= o.y; return *this; }                   \
        T& operator/=(const T& o) { x /= o.x; y /= o.y; return *this; }                   \
    };                                                                                    \
    BROOK_VECTOR_OPS(T, S)

#define BROOK_VECTOR3(T, S)                                                               \
    struct T {                                                                            \
        S x, y, z;                                                                        \
        T() : x(0), y(0), z(0) {}                                                         \
        explicit T(S v) : x(v), y(v), z(v) {}                                             \
        T(S x_, S y_, S z_) : x(x_), y(y_), z(z_) {}                                      \
        T& operator+=(const T& o) { x += o.x; y += o.y; z += o.z; return *this; }         \
        T& operator-=(const T& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }         \
        T& operator*=(const T& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }         \
        T& operator/=(const T& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }         \
    };                                                                                    \
    BROOK_VECTOR_OPS(T, S)

#define BROOK_VECTOR4(T, S)                                                               \
    struct T {                                                                            \
        S x, y, z, w;                                                                     \
        T() : x(0), y(0), z(0), w(0) {}                                                   \
        explicit T(S v) : x(v), y(v), z(v), w(v) {}                                       \
        T(S x_, S y_, S z_, S w_) : x(x_), y(y_), z(z_), w(w_) {}                         \
        T& operator+=(const T& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; } \
        T& operator-=(const T& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; } \
        T& operator*=(const T& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; } \
        T& operator/=(const T& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; } \
    };                                                                                    \
    BROOK_VECTOR_OPS(T, S)

BROOK_VECTOR2(float2, float)
BROOK_VECTOR3(float3, float)
BROOK_VECTOR4(float4, float)
BROOK_VECTOR2(int2, int)
BROOK_VECTOR3(int3, int)
BROOK_VECTOR4(int4, int)

#undef BROOK_VECTOR_OPS
#undef BROOK_VECTOR2
#undef BROOK_VECTOR3
#undef BROOK_VECTOR4

// Cg's matrices on the host, laid out as kernels see them: R rows of C floats, row-major.
// Built from R*C floats row by row (`float2x2 m(1, 2, 3, 4)`); m[i] is row i, m[i][j] an
// element. A kernel's `floatRxC` constant takes one. The original had no host matrices and
// its programs may name functions `float2x2`: brcc then defines BROOK_NO_MATRIX_TYPES and
// only `brook::matrix<R, C>` is declared.
namespace brook {
template <int R, int C> struct matrix {
    float m[R][C];
    matrix() { std::memset(m, 0, sizeof m); }
    template <class... T> matrix(T... v) {
        static_assert(sizeof...(T) == R * C, "a floatRxC is built from R*C floats");
        const float f[] = {float(v)...};
        std::memcpy(m, f, sizeof m);
    }
    float* operator[](int i) { return m[i]; }
    const float* operator[](int i) const { return m[i]; }
};
}  // namespace brook
#ifndef BROOK_NO_MATRIX_TYPES
typedef ::brook::matrix<2, 2> float2x2;
typedef ::brook::matrix<2, 3> float2x3;
typedef ::brook::matrix<2, 4> float2x4;
typedef ::brook::matrix<3, 2> float3x2;
typedef ::brook::matrix<3, 3> float3x3;
typedef ::brook::matrix<3, 4> float3x4;
typedef ::brook::matrix<4, 2> float4x2;
typedef ::brook::matrix<4, 3> float4x3;
typedef ::brook::matrix<4, 4> float4x4;
#endif

// The original's host element types for `char`, `uchar`, `fixed` and `shortfixed` streams
// (a `fixed` is an unsigned byte standing for x / 255, as in its brt.hpp). A host array of
// them is read into and written from the stream's floats by the runtime, which converts
// each component (HostScalar in brook-core).
typedef unsigned char uchar;
#define BROOK_HOST_VECTOR2(T, S) struct T { S x, y; T() {} T(S x_, S y_) : x(x_), y(y_) {} };
#define BROOK_HOST_VECTOR3(T, S)                                                          \
    struct T {                                                                            \
        S x, y, z;                                                                        \
        T() {}                                                                            \
        T(S x_, S y_, S z_) : x(x_), y(y_), z(z_) {}                                      \
    };
#define BROOK_HOST_VECTOR4(T, S)                                                          \
    struct T {                                                                            \
        S x, y, z, w;                                                                     \
        T() {}                                                                            \
        T(S x_, S y_, S z_, S w_) : x(x_), y(y_), z(z_), w(w_) {}                         \
    };
BROOK_HOST_VECTOR2(char2, char)
BROOK_HOST_VECTOR3(char3, char)
BROOK_HOST_VECTOR4(char4, char)
BROOK_HOST_VECTOR2(uchar2, uchar)
BROOK_HOST_VECTOR3(uchar3, uchar)
BROOK_HOST_VECTOR4(uchar4, uchar)
BROOK_HOST_VECTOR2(fixed2, uchar)
BROOK_HOST_VECTOR3(fixed3, uchar)
BROOK_HOST_VECTOR4(fixed4, uchar)
BROOK_HOST_VECTOR2(shortfixed2, unsigned short)
BROOK_HOST_VECTOR3(shortfixed3, unsigned short)
BROOK_HOST_VECTOR4(shortfixed4, unsigned short)
#undef BROOK_HOST_VECTOR2
#undef BROOK_HOST_VECTOR3
#undef BROOK_HOST_VECTOR4
// The scalar fixed types, also made from a float in [0, 1] as the original's were.
struct fixed {
    uchar x;
    fixed() {}
    fixed(uchar v) : x(v) {}
    fixed(float v) : x(uchar((v > 1 ? 1 : v < 0 ? 0 : v) * 255)) {}
};
struct shortfixed {
    unsigned short x;
    shortfixed() {}
    shortfixed(unsigned short v) : x(v) {}
    shortfixed(float v) : x((unsigned short)(.5f + (v > 1 ? 1 : v < 0 ? 0 : v) * 65535)) {}
};

// The original runtime's allocation helpers: plain heap memory for host arrays.
inline void* brmalloc(size_t bytes) { return std::malloc(bytes); }
inline void* brcalloc(size_t count, size_t bytes) { return std::calloc(count, bytes); }
inline void brfree(void* p) { std::free(p); }

// The original's portability macros and its 64-bit integer.
#ifndef BRTALIGNED
#define BRTALIGNED __attribute__((aligned(16)))
#endif
#ifndef BRTTLS
#define BRTTLS __thread
#endif
typedef long long brint64;
namespace brook { typedef brint64 int64; }

// The original's C forms of isfinite, isnan and isinf, as 1.0 or 0.0.
inline float finite_float(double x) { return std::isfinite(x) ? 1.0f : 0.0f; }
inline float isnan_float(double x) { return std::isnan(x) ? 1.0f : 0.0f; }
inline float isinf_float(double x) { return std::isinf(x) ? 1.0f : 0.0f; }

namespace brook {

// ---------------------------------------------------------------- values as floats

// A value's components, as the runtime takes constants and iterator bounds.
inline void lanes(float v, float* out) { out[0] = v; }
inline void lanes(const float2& v, float* out) { out[0] = v.x; out[1] = v.y; }
inline void lanes(const float3& v, float* out) { out[0] = v.x; out[1] = v.y; out[2] = v.z; }
inline void lanes(const float4& v, float* out) { out[0] = v.x; out[1] = v.y; out[2] = v.z; out[3] = v.w; }
inline void lanes(int v, float* out) { out[0] = float(v); }
inline void lanes(const int2& v, float* out) { lanes(float2(float(v.x), float(v.y)), out); }
inline void lanes(const int3& v, float* out) { lanes(float3(float(v.x), float(v.y), float(v.z)), out); }
inline void lanes(const int4& v, float* out) {
    lanes(float4(float(v.x), float(v.y), float(v.z), float(v.w)), out);
}

template <class T> struct components { enum { value = sizeof(T) / 4 }; };

// ---------------------------------------------------------------- programs and streams

// The kernels of one .br file, made at first use (on any thread: `get` is thread-safe) and
// compiled by each thread's runtime at its first use there. Nothing here calls the runtime
// before `get`: file-scope streams and programs are constructed while the program is being
// loaded, when the runtime must not be called (brcc reports a call then).
class program;
// Every program of the files linked together (one per .br file), so that a stream declared in
// one file may have an element type another file's kernels define.
inline program*& program_list() {
    static program* head = 0;
    return head;
}

class program {
    const char* source_;
    const char* name_;
    mutable BrookProgram* handle_;
    mutable std::once_flag made_;
    program* next_;
    program(const program&);
    program& operator=(const program&);

public:
    program(const char* source, const char* name)
        : source_(source), name_(name), handle_(0), next_(program_list()) {
        program_list() = this;
    }
    ~program() {
        for (program** p = &program_list(); *p; p = &(*p)->next_)
            if (*p == this) {
                *p = next_;
                break;
            }
        brook_program_free(handle_);
    }
    BrookProgram* get() const {
        std::call_once(made_, [this] { handle_ = brook_program_new(source_, name_); });
        return handle_;
    }
    // The program defining element type `type_name`: this one, else another linked one (else
    // this one, and the runtime reports the unknown type).
    const BrookProgram* defining(const char* type_name) const {
        if (brook_program_defines(get(), type_name)) return get();
        for (const program* p = program_list(); p; p = p->next_)
            if (p != this && brook_program_defines(p->get(), type_name)) return p->get();
        return get();
    }
};

// Stream extents (first dimension first), evaluated at run time.
struct extent_list {
    long long values[4];
    size_t rank;
};

inline extent_list extents(long long a) { extent_list e = {{a, 0, 0, 0}, 1}; return e; }
inline extent_list extents(long long a, long long b) { extent_list e = {{a, b, 0, 0}, 2}; return e; }
inline extent_list extents(long long a, long long b, long long c) {
    extent_list e = {{a, b, c, 0}, 3};
    return e;
}
inline extent_list extents(long long a, long long b, long long c, long long d) {
    extent_list e = {{a, b, c, d}, 4};
    return e;
}

class stream;

// `s.domain(lo, hi)`: a region of a stream, `.x` = column first, `hi` exclusive.
struct stream_domain {
    const stream* target;
    long long lo[4];
    long long hi[4];
    size_t rank;
};

// The original's element type codes (`brook::getStreamType((float4*)0)`), for streams made
// by `stream::create<T>(…)` or `stream(type, extents…, -1)`; int, fixed, shortfixed and char
// streams are float streams whose host arrays hold that type, as declared ones are.
enum StreamType {
    __BRTNONE = -1, __BRTSTREAM = 0, __BRTFLOAT = 1, __BRTFLOAT2 = 2, __BRTFLOAT3 = 3,
    __BRTFLOAT4 = 4, __BRTFIXED = 5, __BRTFIXED2 = 6, __BRTFIXED3 = 7, __BRTFIXED4 = 8,
    __BRTSHORTFIXED = 9, __BRTSHORTFIXED2 = 10, __BRTSHORTFIXED3 = 11, __BRTSHORTFIXED4 = 12,
    __BRTDOUBLE = 13, __BRTDOUBLE2 = 14, __BRTCHAR = 15, __BRTCHAR2 = 16, __BRTCHAR3 = 17,
    __BRTCHAR4 = 18, __BRTINT = 19
};
template <class T> const StreamType* getStreamType(T* = 0);
#define BROOK_STREAM_TYPE(T, CODE)                                                        \
    template <> inline const StreamType* getStreamType(T*) {                              \
        static const StreamType result[] = {CODE, __BRTNONE};                             \
        return result;                                                                    \
    }
BROOK_STREAM_TYPE(float, __BRTFLOAT)
BROOK_STREAM_TYPE(float2, __BRTFLOAT2)
BROOK_STREAM_TYPE(float3, __BRTFLOAT3)
BROOK_STREAM_TYPE(float4, __BRTFLOAT4)
BROOK_STREAM_TYPE(int, __BRTINT)
BROOK_STREAM_TYPE(unsigned int, __BRTINT)
BROOK_STREAM_TYPE(fixed, __BRTFIXED)
BROOK_STREAM_TYPE(fixed2, __BRTFIXED2)
BROOK_STREAM_TYPE(fixed3, __BRTFIXED3)
BROOK_STREAM_TYPE(fixed4, __BRTFIXED4)
BROOK_STREAM_TYPE(shortfixed, __BRTSHORTFIXED)
BROOK_STREAM_TYPE(shortfixed2, __BRTSHORTFIXED2)
BROOK_STREAM_TYPE(shortfixed3, __BRTSHORTFIXED3)
BROOK_STREAM_TYPE(shortfixed4, __BRTSHORTFIXED4)
BROOK_STREAM_TYPE(char, __BRTCHAR)
BROOK_STREAM_TYPE(char2, __BRTCHAR2)
BROOK_STREAM_TYPE(char3, __BRTCHAR3)
BROOK_STREAM_TYPE(char4, __BRTCHAR4)
#undef BROOK_STREAM_TYPE

// The Brook element type a one-field type list names, or 0.
inline const char* stream_type_name(const StreamType* t) {
    if (!t || t[0] == __BRTNONE || t[1] != __BRTNONE) return 0;
    switch (t[0]) {
    case __BRTFLOAT: return "float";
    case __BRTFLOAT2: return "float2";
    case __BRTFLOAT3: return "float3";
    case __BRTFLOAT4: return "float4";
    case __BRTFIXED: return "fixed";
    case __BRTFIXED2: return "fixed2";
    case __BRTFIXED3: return "fixed3";
    case __BRTFIXED4: return "fixed4";
    case __BRTSHORTFIXED: return "shortfixed";
    case __BRTSHORTFIXED2: return "shortfixed2";
    case __BRTSHORTFIXED3: return "shortfixed3";
    case __BRTSHORTFIXED4: return "shortfixed4";
    case __BRTCHAR: return "char";
    case __BRTCHAR2: return "char2";
    case __BRTCHAR3: return "char3";
    case __BRTCHAR4: return "char4";
    case __BRTINT: return "int";
    default: return 0;
    }
}

// The Brook element type name of host type T, for `stream::create<T>(…)`: float..float4,
// int, fixed, shortfixed and char (their StreamType), or a struct of a kernel file, for which
// brcc specialises this after the struct's definition.
template <class T> struct element_name {
    static const char* get() { return stream_type_name(getStreamType(static_cast<T*>(0))); }
};
// The original gave `unsigned int` its `int` type code; its host arrays hold unsigned ints.
template <> struct element_name<unsigned int> {
    static const char* get() { return "uint"; }
};

// Ends the program with `brook: error: WHAT is not supported …`, as a runtime error does.
inline void refuse(const char* what) {
    std::string message(what);
    message += " is not supported by this Brook runtime";
    brook_fail(message.c_str());
}

// Where host code passed a stream to a kernel call: its `.br` file and line (the generated
// code's `#line` directives make the compiler's __builtin_FILE and __builtin_LINE give them),
// for the errors only the call can find (a placeholder passed). No file: not known.
struct call_site {
    const char* file;
    int line;
};

// A stream: a handle on storage that copies share, as the original's `brook::stream` was
// (a stream passed by value, or assigned, is the same stream). The runtime's stream is made
// at the first `get` for a stream declared lazily (at file scope), at once otherwise.
class stream {
    struct state {
        int references;
        BrookStream* handle;
        const program* owner;  // 0: any linked program (built-in element types)
        const char* type_name;
        extent_list extents;
        unsigned iter_components;  // non-zero: an iterator stream over [start, end)
        float start[4], end[4];
        const char* name;  // the host variable, for element histories (`brcc why`); or 0
    };
    state* s_;
    // Where this copy was made: a stream passed by value to a kernel stub is copied at the
    // call, so this is the call's place there (see stream_arg::passed).
    call_site copied_at_ = {0, 0};

    static state* fresh(const program* p, const char* type_name, const extent_list& e) {
        state* s = new state;
        s->references = 1;
        s->handle = 0;
        s->owner = p;
        s->type_name = type_name;
        s->extents = e;
        s->iter_components = 0;
        s->name = 0;
        return s;
    }
    void release() {
        if (s_ && --s_->references == 0) {
            brook_stream_free(s_->handle);
            delete s_;
        }
        s_ = 0;
    }
    stream_domain make_domain(const int* lo, const int* hi, size_t rank) const {
        stream_domain d;
        d.target = this;
        d.rank = rank;
        for (size_t k = 0; k < rank; ++k) {
            d.lo[k] = lo[k];
            d.hi[k] = hi[k];
        }
        return d;
    }
    // `stream(type, e0, e1, …, -1)`: the extents up to the -1.
    void from_type(const StreamType* type, va_list extents) {
        const char* name = stream_type_name(type);
        if (!name) refuse("a stream of this StreamType list (only float, fixed, shortfixed, char, their vectors, and int)");
        from_name(name, extents_until_end(extents));
    }
    void from_name(const char* name, const extent_list& e) {
        s_ = fresh(0, name, e);
        if (!placeholder()) get();
    }

protected:
    // Extents given as varargs up to a -1, as the original's constructors take them.
    static extent_list extents_until_end(va_list extents) {
        extent_list e = {{0, 0, 0, 0}, 0};
        for (int v = va_arg(extents, int); v != -1; v = va_arg(extents, int)) {
            if (e.rank == 4) refuse("a stream of more than 4 dimensions");
            e.values[e.rank++] = v;
        }
        return e;
    }

public:
    // An empty stream, to be assigned one later.
    stream() : s_(0) {}
    // `T s<e0, e1, …>;` (`name`: the variable's)
    stream(const program& p, const char* type_name, const extent_list& e, bool lazy = false,
           const char* name = 0)
        : s_(fresh(&p, type_name, e)) {
        s_->name = name;
        if (!lazy && !placeholder()) get();
    }
    // `iter T s<…> = iter(start, end);` (`start` and `end` hold 4 floats)
    stream(unsigned components, const extent_list& e, const float* start, const float* end,
           bool lazy, const char* name = 0)
        : s_(fresh(0, 0, e)) {
        s_->name = name;
        s_->iter_components = components;
        std::memcpy(s_->start, start, sizeof s_->start);
        std::memcpy(s_->end, end, sizeof s_->end);
        if (!lazy) get();
    }
    // The original's `brook::stream(brook::getStreamType((float4*)0), h, w, -1)`.
    explicit stream(const StreamType* type, ...) : s_(0) {
        va_list extents;
        va_start(extents, type);
        from_type(type, extents);
        va_end(extents);
    }
    // The original's `stream::create<float4>(h, w)`, also of a kernel file's struct.
    template <class T> static stream create(int e0) {
        return created(element_name<T>::get(), extents(e0));
    }
    template <class T> static stream create(int e0, int e1) {
        return created(element_name<T>::get(), extents(e0, e1));
    }
    static stream created(const char* name, const extent_list& e) {
        if (!name) refuse("stream::create of this type (only float, fixed, shortfixed, char, their vectors, int, and a kernel file's structs)");
        stream s;
        s.from_name(name, e);
        return s;
    }
    stream(const stream& o, const char* file = __builtin_FILE(), int line = __builtin_LINE())
        : s_(o.s_) {
        copied_at_.file = file;
        copied_at_.line = line;
        if (s_) ++s_->references;
    }
    const call_site& copied_at() const { return copied_at_; }
    stream& operator=(const stream& o) {
        if (o.s_) ++o.s_->references;
        release();
        s_ = o.s_;
        return *this;
    }
    ~stream() { release(); }
    // After a vout call: this stream (and every copy) becomes `h` (exactly the values pushed).
    void replace(BrookStream* h) const {
        brook_stream_free(s_->handle);
        s_->handle = h;
    }
    // A stream with a zero extent (`float3 s<0, 0>`): the original's placeholder, declared to
    // be swapped or assigned a stream later. It has no storage; only its size may be asked.
    bool placeholder() const {
        if (!s_ || s_->iter_components) return false;
        for (size_t k = 0; k < s_->extents.rank; ++k)
            if (s_->extents.values[k] == 0) return true;
        return false;
    }
    // The extents (first dimension first) into `e` (4 values); the rank.
    size_t shape(long long* e) const {
        if (!placeholder()) return brook_stream_shape(get(), e);
        for (size_t k = 0; k < s_->extents.rank; ++k) e[k] = s_->extents.values[k];
        return s_->extents.rank;
    }
    // The runtime's stream, made now if it is not yet; a kernel call passes where it is.
    const BrookStream* get(const call_site& at = call_site()) const {
        if (s_ && !s_->handle) {
            if (placeholder()) {
                std::string message;
                if (at.file) message = std::string(at.file) + ":" + std::to_string(at.line) + ": ";
                if (s_->name) message += std::string("stream `") + s_->name + "`: ";
                message += "a stream with a zero extent is a placeholder: swap or assign a stream "
                           "into it before a kernel call, read or write uses it";
                brook_fail(message.c_str());
            }
            if (s_->iter_components)
                s_->handle = brook_iter_new(s_->iter_components, s_->extents.values,
                                            s_->extents.rank, s_->start, s_->end);
            else {
                const program* p = s_->owner ? s_->owner : program_list();
                if (!p) refuse("a stream in a program without a .br file");
                s_->handle = brook_stream_new(p->defining(s_->type_name), s_->type_name,
                                              s_->extents.values, s_->extents.rank);
            }
            if (s_->name) brook_stream_name(s_->handle, s_->name);
        }
        return s_ ? s_->handle : 0;
    }
    // The original's stream.read(p) and stream.write(p): streamRead and streamWrite.
    void read(const void* data) const {
        brook_stream_read(get(), static_cast<const float*>(data), 0, 0, 0);
    }
    void write(void* data) const { brook_stream_write(get(), static_cast<float*>(data), 0, 0, 0); }
    // The original's stream.swap(other): the two handles trade what they name.
    void swap(stream& o) {
        state* t = s_;
        s_ = o.s_;
        o.s_ = t;
        // The names stay with the variables: histories (`brcc why`) name each stream after
        // the variable that holds it now.
        if (s_ && o.s_) {
            const char* name = s_->name;
            s_->name = o.s_->name;
            o.s_->name = name;
            if (s_->handle && s_->name) brook_stream_name(s_->handle, s_->name);
            if (o.s_->handle && o.s_->name) brook_stream_name(o.s_->handle, o.s_->name);
        }
    }

    stream_domain domain(int lo, int hi) const { return make_domain(&lo, &hi, 1); }
    stream_domain domain(const int2& lo, const int2& hi) const {
        return make_domain(&lo.x, &hi.x, 2);
    }
    stream_domain domain(const int3& lo, const int3& hi) const {
        return make_domain(&lo.x, &hi.x, 3);
    }
    stream_domain domain(const int4& lo, const int4& hi) const {
        return make_domain(&lo.x, &hi.x, 4);
    }
};

// The original's `brook::iter(type, e0, …, -1, start…, end…)`: an iterator stream of
// float..float4 (the type's width), its bounds as the varargs after the extents' -1, the
// start's components first (the original's runtime read them so).
class iter : public stream {
public:
    explicit iter(StreamType type, ...) {
        if (type < __BRTFLOAT || type > __BRTFLOAT4) refuse("a brook::iter of other than float..float4");
        va_list args;
        va_start(args, type);
        extent_list e = extents_until_end(args);
        float start[4] = {0, 0, 0, 0}, end[4] = {0, 0, 0, 0};
        for (int k = 0; k < int(type); ++k) start[k] = float(va_arg(args, double));
        for (int k = 0; k < int(type); ++k) end[k] = float(va_arg(args, double));
        va_end(args);
        stream::operator=(stream(unsigned(type), e, start, end, false));
    }
};

// `iter T s<…> = iter(start, end);`
template <class T>
stream iter_stream(const extent_list& e, const T& start, const T& end, bool lazy = false,
                   const char* name = 0) {
    float a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
    lanes(start, a);
    lanes(end, b);
    return stream(components<T>::value, e, a, b, lazy, name);
}

// ---------------------------------------------------------------- kernel calls

// A stream parameter of a kernel stub: a whole stream, or `s.domain(lo, hi)` of one.
// Made where host code calls the kernel (the default arguments are the call's place), or by
// `passed` from a stream the stub took by value (copied at the call).
class stream_arg {
    const stream* stream_;
    stream_domain domain_;
    bool whole_;
    call_site at_;

public:
    stream_arg(const stream& s, const char* file = __builtin_FILE(), int line = __builtin_LINE())
        : stream_(&s), whole_(true) {
        domain_.rank = 0;
        at_.file = file;
        at_.line = line;
    }
    stream_arg(const stream_domain& d, const char* file = __builtin_FILE(),
               int line = __builtin_LINE())
        : stream_(d.target), domain_(d), whole_(false) {
        at_.file = file;
        at_.line = line;
    }
    static stream_arg passed(const stream& s) {
        return stream_arg(s, s.copied_at().file, s.copied_at().line);
    }
    const stream& whole() const { return *stream_; }

    BrookArg abi() const {
        BrookArg a = {stream_->get(at_), 0, 0, 0, 0, 0};
        if (!whole_) {
            a.lo = domain_.lo;
            a.hi = domain_.hi;
            a.rank = domain_.rank;
        }
        return a;
    }
};

// One argument of a kernel call: a stream (or domain), or a constant's floats.
class arg {
    BrookArg stream_;
    std::vector<float> values_;

    void no_stream() {
        BrookArg none = {0, 0, 0, 0, 0, 0};
        stream_ = none;
    }

public:
    arg(const stream_arg& s) : stream_(s.abi()) {}
    arg(float v) : values_(1) { no_stream(); lanes(v, &values_[0]); }
    arg(int v) : values_(1) { no_stream(); lanes(v, &values_[0]); }
    arg(bool v) : values_(1, v ? 1.0f : 0.0f) { no_stream(); }
    arg(const float2& v) : values_(2) { no_stream(); lanes(v, &values_[0]); }
    arg(const float3& v) : values_(3) { no_stream(); lanes(v, &values_[0]); }
    arg(const float4& v) : values_(4) { no_stream(); lanes(v, &values_[0]); }
    arg(const int2& v) : values_(2) { no_stream(); lanes(v, &values_[0]); }
    arg(const int3& v) : values_(3) { no_stream(); lanes(v, &values_[0]); }
    arg(const int4& v) : values_(4) { no_stream(); lanes(v, &values_[0]); }
    // A matrix, row by row.
    template <int R, int C> arg(const matrix<R, C>& v) : values_(R * C) {
        no_stream();
        std::memcpy(&values_[0], v.m, sizeof v.m);
    }

    // A struct of floats, member by member (brcc only passes structs of float..float4).
    template <class T> static arg of_struct(const T& v) {
        arg a(0.0f);
        a.values_.resize(sizeof(T) / sizeof(float));
        std::memcpy(&a.values_[0], &v, a.values_.size() * sizeof(float));
        return a;
    }

    BrookArg abi() const {
        BrookArg a = stream_;
        if (!a.stream) {
            a.values = values_.empty() ? 0 : &values_[0];
            a.count = values_.size();
        }
        return a;
    }
};

inline std::vector<BrookArg> abi(std::initializer_list<arg> args) {
    std::vector<BrookArg> out;
    for (const arg* a = args.begin(); a != args.end(); ++a) out.push_back(a->abi());
    return out;
}

inline void run(const program& p, const char* kernel, std::initializer_list<arg> args) {
    std::vector<BrookArg> a = abi(args);
    brook_kernel_run(p.get(), kernel, a.empty() ? 0 : &a[0], a.size());
}

// A kernel with `vout` parameters: `vouts` has the stream of each vout parameter (null
// elsewhere); after the call each holds exactly the values pushed, as in the original.
inline void run_vout(const program& p, const char* kernel, std::initializer_list<arg> args,
                     std::initializer_list<const stream*> vouts) {
    std::vector<BrookArg> a = abi(args);
    std::vector<BrookStream*> replaced(a.size() + 1, 0);
    brook_kernel_run_vout(p.get(), kernel, a.empty() ? 0 : &a[0], a.size(), &replaced[0]);
    const stream* const* v = vouts.begin();
    for (size_t k = 0; k < a.size(); ++k)
        if (replaced[k]) v[k]->replace(replaced[k]);
}

// The host type of a reduction's result that is not made of floats: an `int`..`int4` or
// `unsigned int` reduced from `int` streams (float streams, converted as streamWrite converts
// them); 0 for floats and structs of them.
template <class T> struct reduce_host { static const char* name() { return 0; } };
template <> struct reduce_host<int> { static const char* name() { return "int"; } };
template <> struct reduce_host<int2> { static const char* name() { return "int"; } };
template <> struct reduce_host<int3> { static const char* name() { return "int"; } };
template <> struct reduce_host<int4> { static const char* name() { return "int"; } };
template <> struct reduce_host<unsigned int> { static const char* name() { return "uint"; } };

// `reduction(s, result)` with `result` a host variable (a float..float4 or a struct of floats,
// or an int of an int reduction); `s` a stream or `s.domain(lo, hi)`.
template <class T>
void reduce_to_value(const program& p, const char* reduction, const stream_arg& input,
                     T& result, std::initializer_list<arg> args) {
    std::vector<BrookArg> a = abi(args);
    BrookArg in = input.abi();
    brook_reduce_value(p.get(), reduction, &in, a.empty() ? 0 : &a[0], a.size(),
                       reinterpret_cast<float*>(&result), sizeof(T) / sizeof(float),
                       reduce_host<T>::name());
}

// `reduction(s, result)` with `result` a smaller stream.
inline void reduce_to_stream(const program& p, const char* reduction,
                             const stream_arg& input, const stream& result,
                             std::initializer_list<arg> args) {
    std::vector<BrookArg> a = abi(args);
    BrookArg in = input.abi();
    brook_reduce_stream(p.get(), reduction, &in, a.empty() ? 0 : &a[0], a.size(),
                        result.get());
}

// ---------------------------------------------------------------- reduce functions as operators

// `streamScatterOp(dst, index, data, add)` names a reduce function: brcc registers each
// two-parameter reduction's stream form here (before main, calling nothing), and the operator
// overload finds its program and name by the function's address.
typedef void (*reduce_fn)(const stream_arg&, const stream&);

struct reducer {
    reduce_fn fn;
    const program* owner;
    const char* name;
    reducer* next;
    reducer(reduce_fn f, const program& p, const char* n)
        : fn(f), owner(&p), name(n), next(list()) {
        list() = this;
    }
    static reducer*& list() {
        static reducer* head = 0;
        return head;
    }
    static const reducer* find(reduce_fn f) {
        for (const reducer* r = list(); r; r = r->next)
            if (r->fn == f) return r;
        return 0;
    }
};

// ---------------------------------------------------------------- the original's runtime calls

// Each thread has a runtime of its own, as in the original. brcc chooses the main thread's
// before `main` (--backend, else BRT_RUNTIME): it exists already, as the original's did after
// its first `initialize`, which then returned it. So on the main thread `initialize` and
// `createRuntime` return that one whatever they are asked for, and `finalize` finishes its
// work (brcc ends it when the program ends). On another thread `initialize(name)` makes the
// thread's runtime on backend `name` (`cpu`, `gl`, `wgpu`, or the original's `ogl`, `gles`,
// `dx9`, `ctm`, which mean brcc's backend), unless it has one, and `finalize` ends it; a
// thread calling Brook without `initialize` runs on brcc's backend. `bind`/`unbind` do
// nothing (the GL context is the runtime's own), and `runtimeTargets` lists `cpu` and brcc's
// backend.
class Runtime;
inline Runtime* runtime() {
    static char the_runtime;
    return reinterpret_cast<Runtime*>(&the_runtime);
}
inline Runtime* initialize(const char* name, void* = 0) {
    brook_initialize(name);
    return runtime();
}
inline Runtime* createRuntime(bool) { return initialize(0); }
inline void setRuntime(Runtime*) {}
inline void finish() { brook_finish(); }
inline void finalize() { brook_finalize(); }
inline void bind() {}
inline void unbind() {}
inline const char** runtimeTargets() {
    static const char** targets = [] {
        static const char* listed[4] = {0, 0, 0, 0};
        for (size_t i = 0; i < 3; i++) listed[i] = brook_runtime_target(i);
        return listed;
    }();
    return targets;
}
// A microsecond counter, for timing.
inline int64 microseconds() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
// The original's marker value, and a <1, …, 1> float stream of `dim` dimensions holding +inf
// (what its vout code padded with).
inline float getSentinel() { return -1844632.18612444856320f; }
inline stream* sentinelStream(int dim) {
    static stream* made[5] = {0, 0, 0, 0, 0};
    if (dim < 1 || dim > 4) refuse("a sentinel stream of other than 1 to 4 dimensions");
    if (!made[dim]) {
        int e[4] = {1, 1, 1, 1};
        made[dim] = dim == 1   ? new stream(getStreamType(static_cast<float*>(0)), e[0], -1)
                    : dim == 2 ? new stream(getStreamType(static_cast<float*>(0)), e[0], e[1], -1)
                    : dim == 3 ? new stream(getStreamType(static_cast<float*>(0)), e[0], e[1], e[2], -1)
                               : new stream(getStreamType(static_cast<float*>(0)), e[0], e[1], e[2], e[3], -1);
        float inf = HUGE_VALF;
        made[dim]->read(&inf);
    }
    return made[dim];
}

// ---------------------------------------------------------------- the program's main

inline int call_main(int (*f)(), int, char**) { return f(); }
inline int call_main(void (*f)(), int, char**) { f(); return 0; }
inline int call_main(int (*f)(int, char**), int argc, char** argv) { return f(argc, argv); }
inline int call_main(int (*f)(int, const char**), int argc, char** argv) {
    return f(argc, const_cast<const char**>(argv));
}
inline int call_main(void (*f)(int, char**), int argc, char** argv) { f(argc, argv); return 0; }

}  // namespace brook

// ---------------------------------------------------------------- Brook's host operators

inline void streamRead(const brook::stream& s, const void* data) {
    brook_stream_read(s.get(), static_cast<const float*>(data), 0, 0, 0);
}
inline void streamRead(const brook::stream_domain& d, const void* data) {
    brook_stream_read(d.target->get(), static_cast<const float*>(data), d.lo, d.hi, d.rank);
}
inline void streamWrite(const brook::stream& s, void* data) {
    brook_stream_write(s.get(), static_cast<float*>(data), 0, 0, 0);
}
inline void streamWrite(const brook::stream_domain& d, void* data) {
    brook_stream_write(d.target->get(), static_cast<float*>(data), d.lo, d.hi, d.rank);
}

// streamSize(s): the extents as the original gave them, last dimension (the row's length)
// in .x, then .y, .z; a fourth and higher dimension adds its extent to .w.
inline float4 streamSize(const brook::stream& s) {
    long long e[4] = {0, 0, 0, 0};
    size_t rank = s.shape(e);
    float out[4] = {0, 0, 0, 0};
    for (size_t k = 0; k < rank && k < 3; ++k) out[k] = float(e[rank - 1 - k]);
    for (size_t k = 3; k < rank; ++k) out[3] += float(e[rank - 1 - k]);
    return float4(out[0], out[1], out[2], out[3]);
}

// streamSwap(a, b): the two names trade the streams they refer to, as the original's
// `x.swap(y)` did, so the streams may differ in shape (its programs swap a vout buffer for a
// longer one); a copy of either keeps the stream it had.
inline void streamSwap(brook::stream& a, brook::stream& b) { a.swap(b); }
// streamScatterOp(dst, index, data, op): for every element i of data, in index order,
// dst[index[i]] = op(data[i], dst[index[i]]); indices round and clamp like gathers.
enum { STREAM_SCATTER_ASSIGN = 0, STREAM_SCATTER_ADD = 1, STREAM_SCATTER_MIN = 2, STREAM_SCATTER_MAX = 3 };
inline void streamScatterOp(const brook::stream& dst, const brook::stream& index,
                            const brook::stream& data, int op) {
    brook_stream_scatter(dst.get(), index.get(), data.get(), op);
}
// streamScatterOp(dst, index, data, f) with `reduce void f(T a<>, reduce T r<>)`: for every
// element i of data, in index order, f runs with a = data[i] and r = dst[index[i]].
inline void streamScatterOp(const brook::stream& dst, const brook::stream& index,
                            const brook::stream& data, brook::reduce_fn op) {
    const brook::reducer* r = brook::reducer::find(op);
    brook_stream_scatter_reduce(dst.get(), index.get(), data.get(), r ? r->owner->get() : 0,
                                r ? r->name : 0);
}
// streamGatherOp(dst, index, data, op): dst[i] = data[index[i]], then op updates that element,
// in index order (STREAM_GATHER_INC: a fetch-and-increment).
enum { STREAM_GATHER_FETCH = 0, STREAM_GATHER_INC = 1 };
inline void streamGatherOp(const brook::stream& dst, const brook::stream& index,
                           const brook::stream& data, int op) {
    brook_stream_gather_op(dst.get(), index.get(), data.get(), op);
}
// streamGatherOp(dst, index, data, f) with `reduce void f(T a<>, reduce T r<>)`: as the
// original runtime did, dst[i] = data[index[i]], then f combines that element with itself
// (a = r = data[index[i]]), in index order.
inline void streamGatherOp(const brook::stream& dst, const brook::stream& index,
                           const brook::stream& data, brook::reduce_fn op) {
    const brook::reducer* r = brook::reducer::find(op);
    brook_stream_gather_reduce(dst.get(), index.get(), data.get(), r ? r->owner->get() : 0,
                               r ? r->name : 0);
}
// Write masks: while enabled, kernels write only where the mask is non-zero.
inline void streamSetWriteMask(const brook::stream& mask) { brook_write_mask_set(mask.get()); }
inline void streamEnableWriteMask() { brook_write_mask_enable(1); }
inline void streamDisableWriteMask() { brook_write_mask_enable(0); }
// Write queries: how many elements the kernel calls in between wrote.
inline void streamBeginWriteQuery() { brook_write_query_begin(); }
inline unsigned long long streamEndWriteQuery() { return brook_write_query_end(); }
namespace brook {
// The original's C++ write mask (its brt.hpp): one flag per element of the output streams,
// open or set. `bind` makes it the mask kernel calls use; `enableTest` lets them write only
// open elements (streamEnableWriteMask), `enableSet` sets the elements they write, `clear`
// opens every element. Copies share the mask, as the original's did.
class write_mask {
    struct state {
        int references;
        BrookWriteMask* handle;
    };
    state* s_;
    void release() {
        if (s_ && --s_->references == 0) {
            brook_write_mask_free(s_->handle);
            delete s_;
        }
    }

public:
    write_mask() : s_(0) {}
    write_mask(const write_mask& m) : s_(m.s_) {
        if (s_) ++s_->references;
    }
    write_mask& operator=(const write_mask& m) {
        if (m.s_) ++m.s_->references;
        release();
        s_ = m.s_;
        return *this;
    }
    ~write_mask() { release(); }
    static write_mask create(int h, int w) {
        write_mask m;
        m.s_ = new state;
        m.s_->references = 1;
        m.s_->handle = brook_write_mask_new(h, w);
        return m;
    }
    void bind() { brook_write_mask_bind(handle("bind")); }
    void unbind() { brook_write_mask_unbind(); }
    void enableTest() { brook_write_mask_enable(1); }
    void disableTest() { brook_write_mask_enable(0); }
    void enableSet() { brook_write_mask_setting(1); }
    void disableSet() { brook_write_mask_setting(0); }
    void clear() { brook_write_mask_clear(handle("clear")); }

private:
    const BrookWriteMask* handle(const char* call) const {
        if (!s_) {
            std::string message = std::string("write_mask::") + call +
                                  ": the mask was never made (use write_mask::create(h, w))";
            brook_fail(message.c_str());
        }
        return s_->handle;
    }
};

// The original's C++ write query: `q.begin()`, kernel calls, `q.end()`, then `q.count()`
// elements written (streamBeginWriteQuery and streamEndWriteQuery). The count is known at
// `end`, so `poll` is true once it ended and `wait` has nothing to wait for; copies share the
// query, as the original's did. `count` of a query that never ended is an error.
class write_query {
    struct state {
        int references;
        bool ended;
        unsigned long long count;
    };
    state* s_;
    void release() {
        if (s_ && --s_->references == 0) delete s_;
    }
    state* get() {
        if (!s_) {
            s_ = new state;
            s_->references = 1;
            s_->ended = false;
            s_->count = 0;
        }
        return s_;
    }

public:
    write_query() : s_(0) {}
    write_query(const write_query& q) : s_(const_cast<write_query&>(q).get()) { ++s_->references; }
    write_query& operator=(const write_query& q) {
        state* other = const_cast<write_query&>(q).get();
        ++other->references;
        release();
        s_ = other;
        return *this;
    }
    ~write_query() { release(); }
    static write_query create() { return write_query(); }
    void begin() {
        get()->ended = false;
        brook_write_query_begin();
    }
    void end() {
        state* s = get();
        s->count = brook_write_query_end();
        s->ended = true;
    }
    bool poll() { return get()->ended; }
    void wait() { count(); }
    size_t count() {
        if (!get()->ended)
            brook_fail("write_query::count: the query has not ended (call end() after begin() first)");
        return size_t(s_->count);
    }
};
}  // namespace brook
// C stdio output written before is flushed first, so the two appear in program order.
inline void streamPrint(const brook::stream& s) { brook_stream_print(s.get()); }
// The original's second argument (`flatten`): its runtime ignored it, and so does this one.
inline void streamPrint(const brook::stream& s, bool) { streamPrint(s); }

#endif  // BROOK_HPP
