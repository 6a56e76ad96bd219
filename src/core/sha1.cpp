#include "core/sha1.h"

#include <cstdint>
#include <cstdio>

namespace pe {

namespace {
inline uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
}  // namespace

std::string sha1_hex(const std::string& data) {
  uint32_t h[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  // message + 0x80 + zero padding + 64-bit big-endian bit length, in 64-byte blocks
  std::string msg = data;
  msg.push_back(char(0x80));
  while (msg.size() % 64 != 56) msg.push_back('\0');
  const uint64_t bits = uint64_t(data.size()) * 8;
  for (int i = 7; i >= 0; --i) msg.push_back(char((bits >> (8 * i)) & 0xff));
  uint32_t w[80];
  for (size_t off = 0; off < msg.size(); off += 64) {
    for (int t = 0; t < 16; ++t) {
      const auto* p = reinterpret_cast<const unsigned char*>(msg.data() + off + 4 * t);
      w[t] = uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
    }
    for (int t = 16; t < 80; ++t) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; ++t) {
      uint32_t f, k;
      if (t < 20)
        f = (b & c) | (~b & d), k = 0x5A827999u;
      else if (t < 40)
        f = b ^ c ^ d, k = 0x6ED9EBA1u;
      else if (t < 60)
        f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDCu;
      else
        f = b ^ c ^ d, k = 0xCA62C1D6u;
      const uint32_t tmp = rotl(a, 5) + f + e + k + w[t];
      e = d, d = c, c = rotl(b, 30), b = a, a = tmp;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
  }
  char out[41];
  for (int i = 0; i < 5; ++i) std::snprintf(out + 8 * i, 9, "%08x", h[i]);
  return std::string(out, 40);
}

}  // namespace pe
