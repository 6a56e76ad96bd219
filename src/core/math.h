// The transcendental functions pe-bench computes with: exp, log, log1p, sin, cos, pow, hypot and
// log-factorials, written here so that a result never depends on the machine that runs it.
//
// Why not <cmath>: glibc picks among several implementations of exp, log, sin, cos and pow when the
// program starts, by the CPU it finds (an FMA variant, an SSE2 one, ...), and they differ in the
// last bit for some arguments (so do glibc versions). Eigen's vectorised exp leaves the tail of an
// array to std::exp. Every function here is one fixed sequence of IEEE additions, multiplications,
// fused multiply-adds (std::fma: a single rounding on every machine) and exact bit operations, so
// the same argument gives the same bits on any x86-64 CPU, whatever library it has.
//
// Accuracy, checked in tests/test_math.cpp against long double: exp, log, sin, cos under 1.5 ulp,
// log1p under 3, float exp under 1 ulp of float; pow = exp(y log x) to about 1e-14 relative (the
// rounding of log x grows with |y log x|). sin and cos reduce exactly for |x| < 2^29 (pe-bench's
// angles stay far below that); past it they stay deterministic but lose accuracy.
#pragma once
#include <complex>
#include <vector>

namespace pe::math {

double exp(double x);
float exp(float x);  // for x > 88 gives +inf, for x < -87 gives 0 (no subnormal results)
double log(double x);
float log(float x);  // computed in double, rounded once
double log1p(double x);
double sin(double x);
double cos(double x);
std::complex<double> cis(double theta);  // cos(theta) + i sin(theta), i.e. std::polar(1, theta)
double pow(double x, double y);          // x > 0, or x = 0, or x < 0 with integral y
double hypot(double a, double b);        // sqrt(a^2 + b^2), without the overflow guard

// x[i] = exp(x[i]) for i < n, the same bits as the scalar exp (AVX2 when built for it).
void exp_inplace(float* x, int n);
void exp_inplace(double* x, int n);

// log(k!) for k = 0..n, by running sums of log.
std::vector<double> log_factorials(int n);

}  // namespace pe::math
