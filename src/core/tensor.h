// Row-major Eigen views used everywhere: every tensor is a flat buffer viewed as [rows, cols].
#pragma once
#include <Eigen/Dense>

namespace pe {

template <class S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class S>
using MatMap = Eigen::Map<Mat<S>>;
template <class S>
using CMatMap = Eigen::Map<const Mat<S>>;

}  // namespace pe
