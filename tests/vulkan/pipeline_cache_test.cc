// The device's pipeline cache as load_method uses it: pipelines compiled when they are created
// (a zero-workgroup warm-up dispatch on CPU devices, whose driver compiles at first dispatch),
// and the per-thread accounting and progress lines of PipelineLoadScope.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "univk/base/logging.h"
#include "univk/vulkan/pipeline_cache.h"
#include "vulkan/pipeline_warm_up.h"
#include "vulkan_test_util.h"

namespace univk::vulkan {
namespace {

// scale_add's layout plus bindings it never reads: a second storage set and a uniform buffer,
// so the warm-up binds every descriptor type a pipeline of univk can have.
ComputePipelineDesc wide_desc(uint32_t variant) {
  ComputePipelineDesc desc = ComputePipelineDesc::storage_buffers(test_shaders::scale_add_spv(), 2, 12, "scale_add");
  desc.sets.push_back({{0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER}, {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}});
  desc.specialization.push_back({7, variant});  // unused by the shader; makes a distinct pipeline
  return desc;
}

// Looks up wide_desc(variant) and keeps the pipeline: the cache holds pipelines weakly, so a
// repeated lookup finds one only while someone holds it.
struct Lookups {
  std::shared_ptr<Device> device;
  std::vector<std::shared_ptr<const ComputePipeline>> held;
  bool operator()(uint32_t variant) {
    auto pipeline = get_or_create_pipeline(device, wide_desc(variant));
    if (pipeline.ok()) held.push_back(*pipeline);
    return pipeline.ok();
  }
};

TEST(PipelineCache, CreatedPipelinesAreCompiledBeforeTheyAreReturned) {
  auto device = Device::create(testing::test_config(), {});
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  Queue& queue = (*device)->queue();
  const uint64_t before = queue.last_submitted_value();
  auto pipeline = get_or_create_pipeline(*device, wide_desc(0));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();
  // A CPU device (lavapipe) compiles at the first dispatch: one warm-up submission, finished.
  const uint64_t warm_ups = compiles_at_first_dispatch(**device) ? 1 : 0;
  EXPECT_EQ(queue.last_submitted_value(), before + warm_ups);
  auto completed = queue.completed_value();
  ASSERT_TRUE(completed.ok());
  EXPECT_EQ(*completed, queue.last_submitted_value());
  // A cache hit costs nothing.
  auto again = get_or_create_pipeline(*device, wide_desc(0));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), pipeline->get());
  EXPECT_EQ(queue.last_submitted_value(), before + warm_ups);
}

TEST(PipelineCache, LoadScopeCountsThisThreadsLookups) {
  auto device = Device::create(testing::test_config(), {});
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  PipelineLoadStats outer_stats, inner_stats;
  Lookups lookup{*device, {}};
  {
    PipelineLoadScope outer(outer_stats, "outer");
    expect_pipelines(2);
    ASSERT_TRUE(lookup(1));
    {
      PipelineLoadScope inner(inner_stats, "inner");
      ASSERT_TRUE(lookup(1));  // from the cache
      ASSERT_TRUE(lookup(2));
    }
    // Another thread's lookups belong to no scope of this thread.
    std::thread([&] { EXPECT_TRUE(get_or_create_pipeline(*device, wide_desc(3)).ok()); }).join();
    ASSERT_TRUE(lookup(2));
  }
  EXPECT_EQ(outer_stats.expected, 2u);
  EXPECT_EQ(outer_stats.looked_up, 2u);
  EXPECT_EQ(outer_stats.created, 1u);
  EXPECT_GT(outer_stats.create_seconds, 0.0);
  EXPECT_EQ(inner_stats.expected, 0u);
  EXPECT_EQ(inner_stats.looked_up, 2u);
  EXPECT_EQ(inner_stats.created, 1u);
  // Without a scope nothing is counted (and nothing fails).
  ASSERT_TRUE(lookup(4));
  EXPECT_EQ(outer_stats.looked_up, 2u);
}

TEST(PipelineCache, ProgressLinesAfterASecondAtMostOneASecond) {
  auto device = Device::create(testing::test_config(), {});
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  const LogLevel saved = log_level();
  set_log_level(LogLevel::kWarning);  // the default: progress lines show
  PipelineLoadStats stats;
  Lookups lookup{*device, {}};
  ::testing::internal::CaptureStderr();
  {
    PipelineLoadScope scope(stats, "instruction 4 (SomeBackend)");
    expect_pipelines(3);
    // Quiet unless this first compilation alone takes a second (a loaded machine).
    ASSERT_TRUE(lookup(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    ASSERT_TRUE(lookup(11));  // a line
    ASSERT_TRUE(lookup(10));  // a cache hit right after: quiet
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("[univk P pipeline_cache.cc:"), std::string::npos) << log;
  EXPECT_NE(log.find("] instruction 4 (SomeBackend): preparing pipelines, 2/3 done (2 compiled), "), std::string::npos)
      << log;
  EXPECT_EQ(log.find("3/3 done"), std::string::npos) << log;

  // UNIVK_LOG_LEVEL=error hides them.
  set_log_level(LogLevel::kError);
  ::testing::internal::CaptureStderr();
  {
    PipelineLoadScope scope(stats, "quiet");
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    ASSERT_TRUE(lookup(12));
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  set_log_level(saved);
}

}  // namespace
}  // namespace univk::vulkan
