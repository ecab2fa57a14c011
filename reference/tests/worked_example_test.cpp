// The design brief's worked example, case kiln-v2-u4, byte for byte.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace kiln::testing {
namespace {

// Typed out from the brief, one line per 16 bytes, with the brief's annotations.
const Bytes kWorkedExample = hex(
    "4b 49 4c 4e 02 02 00 00 01 00 00 00 10 00 00 00"  // magic, v2, flags 0x02, 1 tensor, heap 16
    "80 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00"  // payload_offset 128, payload_length 2
    "08 00 00 00 01 00 00 00 11 00 01 00 00 00 00 00"  // name at 8 len 1, dtype 17, rank 1, shape 0
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"  // layout 0/0, block_size 0, reserved
    "00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00"  // data_offset 0, byte_length 2
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"  // reserved
    "03 00 00 00 00 00 00 00 78 00 00 00 00 00 00 00"  // heap: dim 3, "x", pad to 8
    "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"  // zero padding to payload_offset 128
    "21 03");                                          // payload

BlockDescription worked_example_description() {
  return block({tensor("x", 17, {3}, {0x21, 0x03})});
}

TEST(WorkedExample, HexFromTheBriefIs130Bytes) { EXPECT_EQ(kWorkedExample.size(), 130u); }

TEST(WorkedExample, EncodeWritesTheBriefsBytes) {
  auto encoded = encode(worked_example_description());
  ASSERT_TRUE(encoded) << encoded.error().describe();
  EXPECT_EQ(to_hex(encoded.value()), to_hex(kWorkedExample));
}

TEST(WorkedExample, PlacementMatchesTheBrief) {
  auto placed = place(worked_example_description());
  ASSERT_TRUE(placed);
  const Placement& p = placed.value();
  EXPECT_EQ(p.heap_start, 96u);
  EXPECT_EQ(p.heap_length, 16u);
  EXPECT_EQ(p.payload_offset, 128u);
  EXPECT_EQ(p.payload_length, 2u);
  EXPECT_EQ(p.size, 130u);
  ASSERT_EQ(p.tensors.size(), 1u);
  EXPECT_EQ(p.tensors[0].entry, 32u);
  EXPECT_EQ(p.tensors[0].shape, 96u);
  EXPECT_EQ(p.tensors[0].name, 104u);
  EXPECT_EQ(p.tensors[0].segment_end, 112u);
  EXPECT_EQ(p.tensors[0].data, 128u);
  EXPECT_EQ(p.tensors[0].data_end, 130u);
}

TEST(WorkedExample, DecodeGivesEveryFieldAsViewsIntoTheInput) {
  auto decoded = decode(kWorkedExample);
  ASSERT_TRUE(decoded) << decoded.error().describe();
  const BlockView& view = decoded.value();
  ASSERT_EQ(view.tensors.size(), 1u);
  const TensorView& x = view.tensors[0];
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.dtype, 17);
  EXPECT_EQ(x.rank, 1);
  EXPECT_EQ(x.shape(), (std::vector<std::uint64_t>{3}));
  EXPECT_EQ(x.dimension(0), 3u);
  EXPECT_TRUE(x.layout.empty());
  EXPECT_EQ(x.block_size, 0u);
  EXPECT_EQ(Bytes(x.payload.begin(), x.payload.end()), (Bytes{0x21, 0x03}));

  // Zero-copy: name, shape and payload point at their bytes inside the input.
  const auto* base = kWorkedExample.data();
  EXPECT_EQ(reinterpret_cast<const std::uint8_t*>(x.name.data()), base + 104);
  EXPECT_EQ(x.shape_bytes, base + 96);
  EXPECT_EQ(x.payload.data(), base + 128);

  EXPECT_EQ(view.to_description(), worked_example_description());
}

TEST(WorkedExample, RoundTripsBothWays) {
  EXPECT_TRUE(round_trips(kWorkedExample));
  EXPECT_TRUE(description_round_trips(worked_example_description()));
}

}  // namespace
}  // namespace kiln::testing
