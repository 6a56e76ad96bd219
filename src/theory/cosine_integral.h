// The cosine integral Ci(x) = gamma + ln x + int_0^x (cos t - 1)/t dt, written here from its series
// and the continued fraction of E1 (no special-function library): the limit of the logarithmic ruler.
#pragma once

namespace pe::theory {

inline constexpr double kEulerGamma = 0.57721566490153286061;

// Ci(|x|) for x != 0 (Ci is even in this use: the kernel only sees |Delta|); -infinity at 0.
// Power series for |x| <= 4, continued fraction of E1(i x) beyond (Ci(x) = -Re E1(i x)).
double cosine_integral(double x);

}  // namespace pe::theory
