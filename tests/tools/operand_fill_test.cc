// univk-kernel-bench's operand fill (tools/univk_bench/operand_fill.h): the GPU buffer holds
// exactly the seeded generator's values, in [-1, 1), as floats or halves; a size that is not a
// whole number of values is refused.
#include "operand_fill.h"

#include <gtest/gtest.h>

#include <vector>

#include "gpu_timing.h"
#include "split_mix64.h"
#include "univk/tensor/dtype.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/device.h"
#include "vulkan_test_util.h"

namespace univk::bench {
namespace {

// The buffer's bytes as the host sees them after the GPU's writes.
std::vector<uint8_t> read_back(const vulkan::DeviceLease& device, const vulkan::Buffer& buffer) {
  auto pool = vulkan::CommandPool::create(device);
  EXPECT_TRUE(pool.ok());
  auto cmd = pool->allocate();
  EXPECT_TRUE(cmd.ok());
  EXPECT_TRUE(vulkan::begin_command_buffer(*device, *cmd).ok());
  vulkan::record_host_read_barrier(*device, *cmd);
  EXPECT_TRUE(vulkan::end_command_buffer(*device, *cmd).ok());
  EXPECT_TRUE(submit_and_wait(device->queue(), *cmd).ok());
  EXPECT_TRUE(buffer.invalidate_for_host_reads().ok());
  const auto* bytes = static_cast<const uint8_t*>(buffer.mapped());
  return {bytes, bytes + buffer.size()};
}

TEST(OperandFill, FloatsAreTheSeededValuesInMinusOneToOne) {
  auto device = vulkan::Device::create(vulkan::testing::test_config(), {});
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  constexpr uint64_t kCount = 1000;
  auto buffer = vulkan::Buffer::create(*device, kCount * sizeof(float), vulkan::MemoryKind::kHostVisible);
  ASSERT_TRUE(buffer.ok()) << buffer.status().to_string();
  ASSERT_TRUE(fill_uniform(*device, buffer->range(), 7).ok());
  const std::vector<uint8_t> bytes = read_back(*device, *buffer);
  const auto* values = reinterpret_cast<const float*>(bytes.data());
  SplitMix64 rng(7);
  for (uint64_t i = 0; i < kCount; ++i) {
    const float expected = rng.uniform();
    ASSERT_EQ(values[i], expected) << "value " << i;
    ASSERT_GE(values[i], -1.0f);
    ASSERT_LT(values[i], 1.0f);
  }
  EXPECT_NE(values[0], values[1]);
}

TEST(OperandFill, HalvesAreTheSeededValuesRounded) {
  auto device = vulkan::Device::create(vulkan::testing::test_config(), {});
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  constexpr uint64_t kCount = 512;
  auto buffer = vulkan::Buffer::create(*device, kCount * sizeof(uint16_t), vulkan::MemoryKind::kHostVisible);
  ASSERT_TRUE(buffer.ok()) << buffer.status().to_string();
  ASSERT_TRUE(fill_uniform(*device, buffer->range(), 1, FillFormat::kFloat16).ok());
  const std::vector<uint8_t> bytes = read_back(*device, *buffer);
  const auto* halves = reinterpret_cast<const uint16_t*>(bytes.data());
  SplitMix64 rng(1);
  for (uint64_t i = 0; i < kCount; ++i) ASSERT_EQ(halves[i], float_to_half(rng.uniform())) << "value " << i;
}

TEST(OperandFill, RefusesAPartialValue) {
  auto device = vulkan::Device::create(vulkan::testing::test_config(), {});
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  auto buffer = vulkan::Buffer::create(*device, 64, vulkan::MemoryKind::kDeviceLocal);
  ASSERT_TRUE(buffer.ok()) << buffer.status().to_string();
  const Status floats = fill_uniform(*device, {buffer->handle(), 0, 6}, 1);
  EXPECT_EQ(floats.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(floats.message().find("6 bytes"), std::string::npos) << floats.to_string();
  EXPECT_EQ(fill_uniform(*device, {buffer->handle(), 0, 3}, 1, FillFormat::kFloat16).code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(fill_uniform(*device, {buffer->handle(), 0, 6}, 1, FillFormat::kFloat16).ok());
}

}  // namespace
}  // namespace univk::bench
