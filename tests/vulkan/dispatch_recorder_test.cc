// The one dispatch recorder and the one pipeline cache of src/vulkan: hazard rules as pure data,
// then barriers, descriptor binding and counts on a real driver under the validation layer
// (with synchronization validation where enabled, a missing barrier is a test failure), and the
// GPU timer's spans around dispatches.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "univk/vulkan/dispatch_recorder.h"
#include "univk/vulkan/gpu_timer.h"
#include "univk/vulkan/pipeline_cache.h"
#include "vulkan_test_util.h"

namespace univk::vulkan {
namespace {

VkBuffer fake_buffer(uintptr_t id) { return reinterpret_cast<VkBuffer>(id); }

TEST(RangesOverlap, SameBufferOnly) {
  const BufferRange a{fake_buffer(1), 0, 16}, b{fake_buffer(1), 16, 16}, c{fake_buffer(1), 15, 2};
  const BufferRange other{fake_buffer(2), 0, 64};
  EXPECT_FALSE(ranges_overlap(a, b));
  EXPECT_TRUE(ranges_overlap(a, c));
  EXPECT_TRUE(ranges_overlap(b, c));
  EXPECT_FALSE(ranges_overlap(a, other));
}

TEST(HazardTracker, ReadAfterWriteWriteAfterReadAndWriteAfterWrite) {
  const BufferRange x{fake_buffer(1), 0, 64}, y{fake_buffer(1), 64, 64}, x_tail{fake_buffer(1), 32, 8};
  HazardTracker tracker;
  const BufferAccess first[] = {{x, false}, {y, true}};
  EXPECT_FALSE(tracker.conflicts(first));
  tracker.add(first);
  const BufferAccess read_x[] = {{x, false}};
  EXPECT_FALSE(tracker.conflicts(read_x));  // read after read
  const BufferAccess write_x_tail[] = {{x_tail, true}};
  EXPECT_TRUE(tracker.conflicts(write_x_tail));  // write after read
  const BufferAccess read_y[] = {{y, false}};
  EXPECT_TRUE(tracker.conflicts(read_y));  // read after write
  const BufferAccess write_y[] = {{y, true}};
  EXPECT_TRUE(tracker.conflicts(write_y));  // write after write
  tracker.clear();
  EXPECT_TRUE(tracker.empty());
  EXPECT_FALSE(tracker.conflicts(write_y));
}

TEST(HazardTracker, DisjointWritesOfOneGroup) {
  const BufferRange out{fake_buffer(1), 0, 256};
  HazardTracker tracker;
  const BufferAccess slice0[] = {{out, true, 7}};
  tracker.add(slice0);
  const BufferAccess slice1[] = {{out, true, 7}};
  EXPECT_FALSE(tracker.conflicts(slice1));
  const BufferAccess other_group[] = {{out, true, 8}};
  EXPECT_TRUE(tracker.conflicts(other_group));
  const BufferAccess read[] = {{out, false, 7}};
  EXPECT_TRUE(tracker.conflicts(read));  // reads are never exempt
}

TEST(PipelineCacheKey, SpecializationAndLayoutArePartOfTheKey) {
  const std::vector<uint32_t> words = {0x07230203u, 1u, 2u, 3u};
  auto base = ComputePipelineDesc::storage_buffers(words, 2, 12, "a");
  auto renamed = ComputePipelineDesc::storage_buffers(words, 2, 12, "b");
  EXPECT_EQ(pipeline_cache_key(base), pipeline_cache_key(renamed));
  auto specialised = base;
  specialised.specialization.push_back({0, 2});
  EXPECT_NE(pipeline_cache_key(base), pipeline_cache_key(specialised));
  auto more_bindings = ComputePipelineDesc::storage_buffers(words, 3, 12, "a");
  EXPECT_NE(pipeline_cache_key(base), pipeline_cache_key(more_bindings));
  const std::vector<uint32_t> other_words = {0x07230203u, 1u, 2u, 4u};
  EXPECT_NE(pipeline_cache_key(base), pipeline_cache_key(ComputePipelineDesc::storage_buffers(other_words, 2, 12)));
}

// A command pool and one of its command buffers, begun.
struct BegunCommands {
  CommandPool pool;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
};
Result<BegunCommands> begin_commands(const std::shared_ptr<Device>& device) {
  BegunCommands commands;
  UNIVK_ASSIGN_OR_RETURN(commands.pool, CommandPool::create(device));
  UNIVK_ASSIGN_OR_RETURN(commands.cmd, commands.pool.allocate());
  UNIVK_RETURN_IF_ERROR(begin_command_buffer(*device, commands.cmd));
  return commands;
}

struct ScaleAddParams {
  float a;
  float b;
  uint32_t n;
};

// x -> (y = 2x + 1) -> (z = 2y + 1), and x -> (w = 2x + 1) which depends on nothing pending: one
// barrier between the first two dispatches, none before the third, one host-read barrier.
TEST(DispatchRecorder, BarriersExactlyOnHazardsAndSharedPipelines) {
  auto device = Device::create(testing::test_config(), {});
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  constexpr uint32_t n = 1000;
  auto buffer = Buffer::create(*device, 4 * 1024 * sizeof(float), MemoryKind::kHostVisible);
  ASSERT_TRUE(buffer.ok()) << buffer.status().to_string();
  auto range = [&](uint32_t i) { return BufferRange{buffer->handle(), i * 1024 * sizeof(float), n * sizeof(float)}; };
  auto* data = static_cast<float*>(buffer->mapped());
  for (uint32_t i = 0; i < n; ++i) data[i] = static_cast<float>(i);

  const auto desc =
      ComputePipelineDesc::storage_buffers(test_shaders::scale_add_spv(), 2, sizeof(ScaleAddParams), "scale_add");
  auto pipeline = get_or_create_pipeline(*device, desc);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();
  auto again = get_or_create_pipeline(*device, desc);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(pipeline->get(), again->get());  // one pipeline per device and description

  auto pool = DescriptorPool::create(*device, 3, 6);
  ASSERT_TRUE(pool.ok()) << pool.status().to_string();
  auto commands = begin_commands(*device);
  ASSERT_TRUE(commands.ok()) << commands.status().to_string();
  const VkCommandBuffer cmd = commands->cmd;
  DispatchRecorder recorder(**device, cmd);
  const ScaleAddParams params{2.0f, 1.0f, n};
  auto dispatch = [&](uint32_t in, uint32_t out) {
    const DescriptorWrite descriptors[] = {{0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, range(in)},
                                           {0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, range(out)}};
    const BufferAccess accesses[] = {{range(in), false}, {range(out), true}};
    DispatchDesc d;
    d.pipeline = pipeline->get();
    d.descriptors = descriptors;
    d.push_constants = testing::bytes_of(params);
    d.groups = {(n + 63) / 64, 1, 1};
    d.accesses = accesses;
    d.label = "scale_add";
    return recorder.dispatch(*pool, d);
  };
  ASSERT_TRUE(dispatch(0, 1).ok());
  EXPECT_EQ(recorder.counts().barriers, 0u);
  ASSERT_TRUE(dispatch(1, 2).ok());
  EXPECT_EQ(recorder.counts().barriers, 1u);
  ASSERT_TRUE(dispatch(0, 3).ok());
  EXPECT_EQ(recorder.counts().barriers, 1u);
  recorder.host_read_barrier();
  EXPECT_EQ(recorder.counts().dispatches, 3u);
  EXPECT_EQ(recorder.counts().barriers, 2u);
  ASSERT_TRUE(end_command_buffer(**device, cmd).ok());

  auto value = (*device)->queue().submit({&cmd, 1});
  ASSERT_TRUE(value.ok()) << value.status().to_string();
  ASSERT_TRUE((*device)->queue().wait(*value).ok());
  for (uint32_t i = 0; i < n; ++i) {
    const float x = static_cast<float>(i);
    ASSERT_EQ(data[1024 + i], 2 * x + 1) << i;
    ASSERT_EQ(data[2048 + i], 4 * x + 3) << i;
    ASSERT_EQ(data[3072 + i], 2 * x + 1) << i;
  }
}

// dispatch_again: the pipeline and descriptor set of the last dispatch with other push constants
// (a pool of one set), a barrier for the write after write; refused before any dispatch, for
// another pipeline, with descriptors of its own, and after a dispatch that failed.
TEST(DispatchRecorder, DispatchAgainReusesTheBoundPipelineAndSet) {
  auto device = Device::create(testing::test_config(), {});
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  constexpr uint32_t n = 300;
  auto buffer = Buffer::create(*device, 2 * n * sizeof(float), MemoryKind::kHostVisible);
  ASSERT_TRUE(buffer.ok()) << buffer.status().to_string();
  const BufferRange x{buffer->handle(), 0, n * sizeof(float)},
      y{buffer->handle(), n * sizeof(float), n * sizeof(float)};
  auto* data = static_cast<float*>(buffer->mapped());
  for (uint32_t i = 0; i < n; ++i) data[i] = static_cast<float>(i);
  const auto desc = ComputePipelineDesc::storage_buffers(test_shaders::scale_add_spv(), 2, sizeof(ScaleAddParams));
  auto pipeline = get_or_create_pipeline(*device, desc);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();
  auto other = get_or_create_pipeline(  // another pipeline of the same shader
      *device, ComputePipelineDesc::storage_buffers(test_shaders::scale_add_spv(), 2, sizeof(ScaleAddParams) + 4));
  ASSERT_TRUE(other.ok()) << other.status().to_string();
  auto pool = DescriptorPool::create(*device, 1, 2);
  ASSERT_TRUE(pool.ok());
  auto commands = begin_commands(*device);
  ASSERT_TRUE(commands.ok()) << commands.status().to_string();
  const VkCommandBuffer cmd = commands->cmd;
  DispatchRecorder recorder(**device, cmd);

  const ScaleAddParams first{2.0f, 1.0f, n}, second{3.0f, 0.0f, n};
  const DescriptorWrite descriptors[] = {{0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, x},
                                         {0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, y}};
  const BufferAccess accesses[] = {{x, false}, {y, true}};
  DispatchDesc d;
  d.pipeline = pipeline->get();
  d.push_constants = testing::bytes_of(second);
  d.groups = {(n + 63) / 64, 1, 1};
  d.accesses = accesses;
  d.label = "scale_add again";
  EXPECT_EQ(recorder.dispatch_again(d).code(), StatusCode::kInternal);  // nothing bound yet

  d.descriptors = descriptors;
  d.push_constants = testing::bytes_of(first);
  ASSERT_TRUE(recorder.dispatch(*pool, d).ok());
  d.push_constants = testing::bytes_of(second);
  const Status with_descriptors = recorder.dispatch_again(d);
  EXPECT_EQ(with_descriptors.code(), StatusCode::kInternal);
  EXPECT_NE(with_descriptors.message().find("scale_add again"), std::string::npos);
  d.descriptors = {};
  d.pipeline = other->get();
  EXPECT_EQ(recorder.dispatch_again(d).code(), StatusCode::kInternal);
  d.pipeline = pipeline->get();
  ASSERT_TRUE(recorder.dispatch_again(d).ok());
  EXPECT_EQ(recorder.counts().dispatches, 2u);
  EXPECT_EQ(recorder.counts().barriers, 1u);  // y written twice
  // After a dispatch() that failed, nothing is bound for dispatch_again.
  const uint32_t max_x = (*device)->properties().limits.maxComputeWorkGroupCount[0];
  if (max_x < UINT32_MAX) {
    DispatchDesc too_wide = d;
    too_wide.descriptors = descriptors;
    too_wide.groups = {max_x + 1u, 1, 1};
    EXPECT_FALSE(recorder.dispatch(*pool, too_wide).ok());
    EXPECT_EQ(recorder.dispatch_again(d).code(), StatusCode::kInternal);
  }
  recorder.host_read_barrier();
  ASSERT_TRUE(end_command_buffer(**device, cmd).ok());

  auto value = (*device)->queue().submit({&cmd, 1});
  ASSERT_TRUE(value.ok()) << value.status().to_string();
  ASSERT_TRUE((*device)->queue().wait(*value).ok());
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(data[n + i], 3.0f * static_cast<float>(i)) << i;
}

TEST(DispatchRecorder, GroupCountOverTheLimitRecordsNothing) {
  auto device = Device::create(testing::test_config(), {});
  ASSERT_TRUE(device.ok()) << device.status().to_string();
  auto pipeline = get_or_create_pipeline(
      *device, ComputePipelineDesc::storage_buffers(test_shaders::scale_add_spv(), 2, sizeof(ScaleAddParams)));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();
  auto pool = DescriptorPool::create(*device, 1, 2);
  ASSERT_TRUE(pool.ok());
  const uint32_t max_x = (*device)->properties().limits.maxComputeWorkGroupCount[0];
  if (max_x == UINT32_MAX) GTEST_SKIP() << "the device takes any group count";
  DispatchRecorder recorder(**device, VK_NULL_HANDLE);
  DispatchDesc d;
  d.pipeline = pipeline->get();
  d.groups = {max_x + 1u, 1, 1};
  d.label = "dispatch too_wide";
  const Status status = recorder.dispatch(*pool, d);
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("dispatch too_wide"), std::string::npos);
  EXPECT_EQ(recorder.counts().dispatches, 0u);
}

// With a GpuTimer the recorder writes one span per dispatch, nested in the span open around
// them; the spans span two query pools (more than 512 queries), resubmitting the command buffer
// rewrites them, and a device with VK_EXT_calibrated_timestamps places them on steady_clock.
TEST(DispatchRecorder, TimerSpansEveryDispatch) {
  for (const bool calibrate : {true, false}) {
    SCOPED_TRACE(calibrate ? "calibrated" : "not calibrated");
    DeviceRequirements requirements;
    if (calibrate) requirements.optional_extensions = {kCalibratedTimestampsExtension};
    auto device = Device::create(testing::test_config(), requirements);
    ASSERT_TRUE(device.ok()) << device.status().to_string();
    const bool calibrated = (*device)->enabled().extensions.contains(kCalibratedTimestampsExtension);
    auto timer = GpuTimer::create(*device);
    ASSERT_TRUE(timer.ok()) << timer.status().to_string();
    constexpr uint32_t n = 256, dispatches = 300;
    auto buffer = Buffer::create(*device, 2 * n * sizeof(float), MemoryKind::kHostVisible);
    ASSERT_TRUE(buffer.ok()) << buffer.status().to_string();
    const BufferRange in{buffer->handle(), 0, n * sizeof(float)},
        out{buffer->handle(), n * sizeof(float), n * sizeof(float)};
    auto pipeline = get_or_create_pipeline(
        *device, ComputePipelineDesc::storage_buffers(test_shaders::scale_add_spv(), 2, sizeof(ScaleAddParams)));
    ASSERT_TRUE(pipeline.ok()) << pipeline.status().to_string();
    auto pool = DescriptorPool::create(*device, dispatches, 2 * dispatches);
    ASSERT_TRUE(pool.ok());
    auto commands = begin_commands(*device);
    ASSERT_TRUE(commands.ok()) << commands.status().to_string();
    const VkCommandBuffer cmd = commands->cmd;
    DispatchRecorder recorder(**device, cmd, timer->get());
    auto outer = (*timer)->begin(cmd, "call");
    ASSERT_TRUE(outer.ok());
    const ScaleAddParams params{2.0f, 1.0f, n};
    const DescriptorWrite descriptors[] = {{0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, in},
                                           {0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, out}};
    const BufferAccess accesses[] = {{in, false}, {out, true}};
    for (uint32_t i = 0; i < dispatches; ++i) {
      DispatchDesc d;
      d.pipeline = pipeline->get();
      d.descriptors = descriptors;
      d.push_constants = testing::bytes_of(params);
      d.groups = {(n + 63) / 64, 1, 1};
      d.accesses = accesses;
      d.label = "scale_add";
      ASSERT_TRUE(recorder.dispatch(*pool, d).ok());
    }
    ASSERT_TRUE((*timer)->end(cmd, *outer).ok());
    ASSERT_TRUE(end_command_buffer(**device, cmd).ok());

    const auto& spans = (*timer)->spans();
    ASSERT_EQ(spans.size(), dispatches + 1);
    EXPECT_EQ(spans[0].parent, -1);
    for (size_t i = 1; i < spans.size(); ++i) {
      EXPECT_EQ(spans[i].parent, 0);
      EXPECT_EQ(spans[i].name, "scale_add");
    }
    for (int run = 0; run < 2; ++run) {
      const auto before = std::chrono::steady_clock::now().time_since_epoch();
      auto value = (*device)->queue().submit({&cmd, 1});
      ASSERT_TRUE(value.ok()) << value.status().to_string();
      ASSERT_TRUE((*device)->queue().wait(*value).ok());
      const auto after = std::chrono::steady_clock::now().time_since_epoch();
      auto readout = (*timer)->read();
      ASSERT_TRUE(readout.ok()) << readout.status().to_string();
      ASSERT_EQ(readout->times.size(), spans.size());
      const GpuTimer::Times call = readout->times[0];
      EXPECT_EQ(call.begin_ns, 0);
      EXPECT_GT(call.end_ns, call.begin_ns);
      for (size_t i = 1; i < spans.size(); ++i) {
        const GpuTimer::Times t = readout->times[i];
        EXPECT_GT(t.end_ns, t.begin_ns) << i;
        EXPECT_GE(t.begin_ns, call.begin_ns) << i;
        EXPECT_LE(t.end_ns, call.end_ns) << i;
      }
      EXPECT_EQ(readout->host_origin_ns.has_value(), calibrated);
      if (readout->host_origin_ns) {
        EXPECT_GE(*readout->host_origin_ns, std::chrono::duration_cast<std::chrono::nanoseconds>(before).count());
        EXPECT_LE(*readout->host_origin_ns + call.end_ns,
                  std::chrono::duration_cast<std::chrono::nanoseconds>(after).count());
      }
    }
  }
}

}  // namespace
}  // namespace univk::vulkan
