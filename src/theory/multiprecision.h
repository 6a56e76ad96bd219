// The high-precision float used where double cannot resolve the answer (window conditioning):
// 700 binary digits, about 210 decimal digits. Expression templates off so `auto` is a value.
#pragma once
#include <boost/multiprecision/cpp_bin_float.hpp>

namespace pe::theory {

template <unsigned Bits>
using BinFloat =
    boost::multiprecision::number<boost::multiprecision::cpp_bin_float<Bits, boost::multiprecision::digit_base_2>,
                                  boost::multiprecision::et_off>;

inline constexpr unsigned kHighPrecisionBits = 700;
using HighFloat = BinFloat<kHighPrecisionBits>;

}  // namespace pe::theory
