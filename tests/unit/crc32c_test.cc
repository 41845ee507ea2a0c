// CRC-32C: the SSE4.2 and the table implementations give the format's values (RFC 3720,
// appendix B.4) and agree with each other on any input, split anywhere.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "util/crc32c.h"

namespace sluice::util {
namespace {

struct Vector {
  std::string data;
  uint32_t crc;
};

std::vector<Vector> Rfc3720Vectors() {
  std::string ascending, descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  const unsigned char read_pdu[48] = {0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                      0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
                                      0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
                                      0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  return {{std::string(32, '\0'), 0x8A9136AAu},
          {std::string(32, '\xff'), 0x62A8AB43u},
          {ascending, 0x46DD794Eu},
          {descending, 0x113FDB5Cu},
          {std::string(reinterpret_cast<const char*>(read_pdu), sizeof(read_pdu)), 0xD9963A56u},
          {"123456789", 0xE3069283u},
          {"", 0u}};
}

TEST(Crc32c, PortableImplementationGivesTheRfc3720Values) {
  for (const auto& v : Rfc3720Vectors()) EXPECT_EQ(Crc32cExtendPortable(0, v.data), v.crc) << v.data.size();
}

TEST(Crc32c, HardwareImplementationGivesTheRfc3720Values) {
  if (!Crc32cHardwareAvailable()) GTEST_SKIP() << "this CPU has no SSE4.2";
  for (const auto& v : Rfc3720Vectors()) EXPECT_EQ(Crc32cExtendHardware(0, v.data), v.crc) << v.data.size();
}

TEST(Crc32c, DispatchedImplementationGivesTheRfc3720Values) {
  for (const auto& v : Rfc3720Vectors()) EXPECT_EQ(Crc32c(v.data), v.crc) << v.data.size();
}

TEST(Crc32c, BothImplementationsAgreeOnRandomInputSplitAnywhere) {
  std::mt19937_64 rng(20261201);
  for (int n : {1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4099}) {
    std::string data(static_cast<size_t>(n), '\0');
    for (auto& c : data) c = static_cast<char>(rng());
    const uint32_t whole = Crc32cExtendPortable(0, data);
    if (Crc32cHardwareAvailable()) {
      EXPECT_EQ(Crc32cExtendHardware(0, data), whole) << n;
    }
    const size_t split = static_cast<size_t>(rng() % (data.size() + 1));
    const std::string_view a = std::string_view(data).substr(0, split), b = std::string_view(data).substr(split);
    EXPECT_EQ(Crc32cExtend(Crc32cExtend(0, a), b), whole) << n << " split at " << split;
    EXPECT_EQ(Crc32cExtendPortable(Crc32cExtendPortable(0, a), b), whole) << n << " split at " << split;
  }
}

}  // namespace
}  // namespace sluice::util
