"""Position codes several schemes share."""
import math

import torch


def sinusoidal_code(positions, d, base, scale=1.0):
    """scale p(m): p(m)[2j] = sin(m theta_j), p(m)[2j+1] = cos(m theta_j), theta_j = base^(-2j/d); double, then
    float32. positions of any shape [...] -> [..., d]."""
    theta = torch.tensor([base ** (-2.0 * j / d) for j in range(d // 2)], dtype=torch.float64)
    a = positions.double()[..., None] * theta
    return (scale * torch.stack([torch.sin(a), torch.cos(a)], dim=-1)).reshape(*positions.shape, d).float()


def t5_bucket(r, buckets, max_distance):
    r = max(r, 0)
    exact = buckets // 2
    if r < exact:
        return r
    scaled = math.log(r / exact) / math.log(max_distance / exact) * (buckets - exact)
    return min(buckets - 1, exact + int(math.floor(scaled)))


def t5_bidirectional_bucket(r, buckets, max_distance):
    """Transformers' relative_position_bucket(bidirectional=True): half the buckets per side; an age
    r >= 0 takes t5_bucket(r) over buckets/2, a later key's (r < 0) buckets/2 + t5_bucket(-r)."""
    half = buckets // 2
    return t5_bucket(r, half, max_distance) if r >= 0 else half + t5_bucket(-r, half, max_distance)


def t5_bias(table, age, buckets, max_distance, bidirectional=False):
    """T5's per-head bias of each pair [1 or B, H, Tq, T] from the table [buckets, H] and the ages
    [1 or B, Tq, T] (base.ages), in the encoder form when bidirectional."""
    bucket_of = t5_bidirectional_bucket if bidirectional else t5_bucket
    distinct, index = torch.unique(age, return_inverse=True)
    bucket = torch.tensor([bucket_of(int(r), buckets, max_distance) for r in distinct.tolist()])[index]
    return table[bucket].permute(0, 3, 1, 2)
