"""Position codes several schemes share."""
import math

import torch


def sinusoidal_code(positions, d, base):
    """p(m)[2j] = sin(m theta_j), p(m)[2j+1] = cos(m theta_j), theta_j = base^(-2j/d); double, then float32."""
    theta = torch.tensor([base ** (-2.0 * j / d) for j in range(d // 2)], dtype=torch.float64)
    a = positions.double()[:, None] * theta[None, :]
    return torch.stack([torch.sin(a), torch.cos(a)], dim=-1).reshape(len(positions), d).float()


def t5_bucket(r, buckets, max_distance):
    r = max(r, 0)
    exact = buckets // 2
    if r < exact:
        return r
    scaled = math.log(r / exact) / math.log(max_distance / exact) * (buckets - exact)
    return min(buckets - 1, exact + int(math.floor(scaled)))


def t5_bias(table, age, buckets, max_distance):
    """T5's per-head bias of each pair [1, H, Tq, T] from the table [buckets, H] and the ages [Tq, T]."""
    bucket = torch.tensor([[t5_bucket(int(r), buckets, max_distance) for r in row] for row in age.tolist()])
    return table[bucket].permute(2, 0, 1)[None]
