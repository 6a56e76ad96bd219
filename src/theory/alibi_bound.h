// The ALiBi tail bound (docs/analyses.md "Relative biases"): with content scores of width W and slope s,
// the causal softmax weight on ages >= D is at most e^W e^(-sD) / (1 - e^(-s)).
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

namespace pe::theory {

double alibi_tail_bound(double width, double slope, int D);

// Softmax mass on ages r >= D of scores content[r] - slope * r, r = 0..len-1 (content[r] is the
// content score of the key at age r).
double alibi_tail_mass(const std::vector<double>& content, double slope, int D);

// The same with every content score equal (the bias alone), averaged over the query rows of a causal window of
// n tokens: row i sees ages 0..i, and its mass on ages >= D is (e^(-sD) - e^(-s(i+1))) / (1 - e^(-s(i+1)))
// (0 when i < D). What an ALiBi head of slope s would put past D if content told it nothing (the d2l
// exercise's "attention weight beyond 128"), beside the mass a trained head puts there (analyze attention).
double alibi_mean_tail_mass(double slope, int n, int D);

// Table for W = 20, s = 1/2, D in {40, 60, 80}, and random-head checks (length 4096) that the
// actual mass never exceeds the bound.
nlohmann::json alibi_bound_report();

}  // namespace pe::theory
