// The VulkanBackend delegate as a whole: multi-op graphs (aliases, constants, outputs that are
// inputs or repeated), memory reuse, fused recording into a caller's command buffer, repeated
// execution from several threads (serialised by the caller), large dispatch grids, requirements
// and error paths.
#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <thread>

#include "backend_test_util.h"
#include "univk/reference/kernels.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/command.h"
#include "univk/vulkan/queue.h"
#include "univk_test.h"

namespace univk::backends::testing {
namespace {

HostTensor ref(const char* op, const Attributes& a, std::vector<HostTensor> in) {
  auto r = reference::run_op(op, a, in);
  UNIVK_EXPECT_OK(r) << op;
  return r.ok() ? (*r)[0] : HostTensor();
}

Attributes attr(const char* name, AttrValue v) {
  Attributes a;
  a.set(name, std::move(v));
  return a;
}

// x[2,3,4,4] -> sigmoid -> reshape [2,48] -> linear (const W[5,48], const b[5]) -> relu -> y0
//                                  \-> (the reshape itself) -> y1 ; y2 = x ; y3 = y0 again
struct ChainGraph {
  ComputeGraph graph;
  HostTensor w, b;
};

ChainGraph chain_graph() {
  ChainGraph c;
  c.w = random_tensor(DType::kFloat32, Shape{5, 48}, 99, -0.5, 0.5);
  c.b = random_tensor(DType::kFloat32, Shape{5}, 100, -0.5, 0.5);
  ComputeGraph& g = c.graph;
  g.values = {value_of(HostTensor(DType::kFloat32, Shape{2, 3, 4, 4}), false),  // 0 x
              value_of(HostTensor(DType::kFloat32, Shape{2, 3, 4, 4}), false),  // 1 sigmoid
              value_of(HostTensor(DType::kFloat32, Shape{2, 48}), false),       // 2 reshape
              value_of(c.w, true),                                              // 3 W
              value_of(c.b, true),                                              // 4 b
              value_of(HostTensor(DType::kFloat32, Shape{2, 5}), false),        // 5 linear
              value_of(HostTensor(DType::kFloat32, Shape{2, 5}), false)};       // 6 relu
  g.ops = {{"sigmoid", {}, {0}, {1}},
           {"reshape", attr("shape", std::vector<int64_t>{2, -1}), {1}, {2}},
           {"linear", {}, {2, 3, 4}, {5}},
           {"relu", {}, {5}, {6}}};
  g.inputs = {0};
  g.outputs = {6, 2, 0, 6};
  return c;
}

std::vector<HostTensor> chain_expected(const ChainGraph& c, const HostTensor& x) {
  HostTensor s = ref("sigmoid", {}, {x});
  HostTensor r = ref("reshape", attr("shape", std::vector<int64_t>{2, -1}), {s});
  HostTensor l = ref("linear", {}, {r, c.w, c.b});
  HostTensor y = ref("relu", {}, {l});
  return {y, r, x, y};
}

struct Loaded {
  std::vector<uint8_t> payload;
  backend::DelegateSpec spec;
  std::unique_ptr<backend::Delegate> delegate;
};

std::unique_ptr<Loaded> load(const ComputeGraph& g) {
  auto loaded = std::make_unique<Loaded>();
  auto bytes = serialize_compute_graph(g);
  UNIVK_EXPECT_OK(bytes);
  if (!bytes.ok()) return nullptr;
  loaded->payload = *bytes;
  loaded->spec.backend_id = kVulkanBackendId;
  loaded->spec.payload = loaded->payload;
  for (uint32_t id : g.inputs) loaded->spec.inputs.push_back({g.values[id].dtype, g.values[id].shape});
  for (uint32_t id : g.outputs) loaded->spec.outputs.push_back({g.values[id].dtype, g.values[id].shape});
  auto delegate = backend::create_delegate(*make_vulkan_backend(), loaded->spec, shared_device(), {});
  UNIVK_EXPECT_OK(delegate);
  if (!delegate.ok()) return nullptr;
  loaded->delegate = std::move(delegate).value();
  const Status prepared = loaded->delegate->prepare_execute();
  UNIVK_EXPECT_OK(prepared);
  if (!prepared.ok()) return nullptr;
  return loaded;
}

TEST(VulkanDelegate, ChainWithAliasesConstantsAndRepeatedOutputs) {
  const ChainGraph c = chain_graph();
  auto loaded = load(c.graph);
  ASSERT_TRUE(loaded);
  for (uint32_t run = 0; run < 3; ++run) {  // the recorded command buffer is resubmitted
    const HostTensor x = random_tensor(DType::kFloat32, Shape{2, 3, 4, 4}, 5 + run, -3, 3);
    auto out = loaded->delegate->execute({&x, 1});
    UNIVK_ASSERT_OK(out);
    const auto want = chain_expected(c, x);
    ASSERT_EQ(out->size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_TRUE(tensors_close((*out)[i], want[i], {1e-5, 1e-4})) << "output " << i;
  }
  const backend::ExecuteStats s = loaded->delegate->stats();
  // sigmoid, linear, relu, plus copies for the reshape output, x and the repeated relu output.
  EXPECT_EQ(s.dispatches, 6u);
  EXPECT_GE(s.barriers, 3u);
  EXPECT_EQ(s.submissions, 1u);
  EXPECT_EQ(s.bytes_uploaded, 2u * 48 * 4);
  EXPECT_EQ(s.bytes_downloaded, (10u + 96 + 96 + 10) * 4);
}

TEST(VulkanDelegate, FusedRecordMatchesPerDelegate) {
  const ChainGraph c = chain_graph();
  auto loaded = load(c.graph);
  ASSERT_TRUE(loaded);
  auto device = shared_device();
  const HostTensor x = random_tensor(DType::kFloat32, Shape{2, 3, 4, 4}, 6, -3, 3);
  auto per_delegate = loaded->delegate->execute({&x, 1});
  UNIVK_ASSERT_OK(per_delegate);

  // The caller's buffers: one input and four outputs, sub-ranges of one host-visible buffer.
  const uint64_t align = std::max<uint64_t>(device->properties().limits.minStorageBufferOffsetAlignment, 4);
  std::vector<backend::DeviceTensor> ins, outs;
  uint64_t offset = 0;
  auto place = [&](const backend::TensorInfo& info) {
    backend::DeviceTensor t{{VK_NULL_HANDLE, offset, info.byte_size()}, info};
    offset += (info.byte_size() + align - 1) / align * align;
    return t;
  };
  for (const auto& info : loaded->spec.inputs) ins.push_back(place(info));
  for (const auto& info : loaded->spec.outputs) outs.push_back(place(info));
  auto io = univk::vulkan::Buffer::create(device, offset, univk::vulkan::MemoryKind::kHostVisible);
  UNIVK_ASSERT_OK(io);
  for (auto* list : {&ins, &outs}) {
    for (auto& t : *list) t.range.buffer = io->handle();
  }
  std::memcpy(static_cast<uint8_t*>(io->mapped()) + ins[0].range.offset, x.bytes().data(), x.byte_size());

  auto pool = univk::vulkan::CommandPool::create(device);
  UNIVK_ASSERT_OK(pool);
  auto cmd = pool->allocate();
  UNIVK_ASSERT_OK(cmd);
  UNIVK_ASSERT_OK(univk::vulkan::begin_command_buffer(*device, *cmd));
  UNIVK_ASSERT_OK(loaded->delegate->record(*cmd, ins, outs));
  univk::vulkan::record_buffer_barrier(*device, *cmd, {io->handle(), 0, offset}, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                                       VK_ACCESS_2_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_2_HOST_BIT,
                                       VK_ACCESS_2_HOST_READ_BIT);
  UNIVK_ASSERT_OK(univk::vulkan::end_command_buffer(*device, *cmd));
  const VkCommandBuffer cmds[] = {*cmd};
  auto value = device->queue().submit(cmds);
  UNIVK_ASSERT_OK(value);
  UNIVK_ASSERT_OK(device->queue().wait(*value));
  for (size_t i = 0; i < outs.size(); ++i) {
    HostTensor got(outs[i].info.dtype, outs[i].info.shape);
    std::memcpy(got.bytes().data(), static_cast<uint8_t*>(io->mapped()) + outs[i].range.offset, got.byte_size());
    EXPECT_TRUE(tensors_close(got, (*per_delegate)[i], {0, 0})) << "output " << i;
  }
  const backend::ExecuteStats s = loaded->delegate->stats();
  EXPECT_EQ(s.dispatches, 6u);
  EXPECT_EQ(s.bytes_uploaded, 0u);  // the method moves the bytes in fused mode

  // A range that is too small or misaligned is rejected, not recorded.
  std::vector<backend::DeviceTensor> small = ins;
  small[0].range.size = 4;
  EXPECT_EQ(loaded->delegate->record(*cmd, small, outs).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(loaded->delegate->record(*cmd, {}, outs).code(), StatusCode::kInvalidArgument);
}

// The contract (delegate.h): the caller serialises calls on a delegate, as the Method does with
// its lock; the delegate then runs from any thread.
TEST(VulkanDelegate, ExecuteFromSeveralThreadsSerialisedByTheCaller) {
  const ChainGraph c = chain_graph();
  auto loaded = load(c.graph);
  ASSERT_TRUE(loaded);
  std::mutex caller_lock;
  std::vector<std::thread> threads;
  std::vector<int> failures(3, 0);
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (uint32_t i = 0; i < 4; ++i) {
        const HostTensor x = random_tensor(DType::kFloat32, Shape{2, 3, 4, 4}, 100 + 10 * t + i, -3, 3);
        std::unique_lock<std::mutex> lock(caller_lock);
        auto out = loaded->delegate->execute({&x, 1});
        lock.unlock();
        if (!out.ok() || !tensors_close((*out)[0], chain_expected(c, x)[0], {1e-5, 1e-4})) ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

TEST(VulkanDelegate, TwoDimensionalGridBeyond65535Workgroups) {
  // 65537 workgroups of 256 invocations: the dispatch is 65535 x 2 and the last row of the
  // grid is mostly out of range. relu is exact, so every element must match bit for bit.
  const int64_t n = int64_t{65537} * 256;
  const HostTensor x = random_tensor(DType::kFloat32, Shape{n}, 8, -1, 1);
  const HostTensor want = ref("relu", {}, {x});
  ComputeGraph g;
  g.values = {value_of(x, false), value_of(want, false)};
  g.ops = {{"relu", {}, {0}, {1}}};
  g.inputs = {0};
  g.outputs = {1};
  auto result = run_graph(g, {x});
  UNIVK_ASSERT_OK(result);
  EXPECT_EQ(std::memcmp(result->outputs[0].bytes().data(), want.bytes().data(), want.byte_size()), 0);
}

TEST(VulkanDelegate, ReshapesOfOtherDtypesAreCopiedByWords) {
  // int64 [3,2] -> reshape [6] as a graph output: a copy of 12 words.
  HostTensor x(DType::kInt64, Shape{3, 2});
  for (int i = 0; i < 6; ++i) x.data<int64_t>()[i] = (int64_t{1} << 40) * i - 7;
  ComputeGraph g;
  g.values = {value_of(x, false), value_of(HostTensor(DType::kInt64, Shape{6}), false)};
  g.ops = {{"reshape", attr("shape", std::vector<int64_t>{6}), {0}, {1}}};
  g.inputs = {0};
  g.outputs = {1};
  auto result = run_graph(g, {x});
  UNIVK_ASSERT_OK(result);
  EXPECT_EQ(std::memcmp(result->outputs[0].bytes().data(), x.bytes().data(), x.byte_size()), 0);
  // int8 [3] is 3 bytes: not a whole number of words, so the copy is refused at init.
  ComputeGraph bytes_graph;
  bytes_graph.values = {value_of(HostTensor(DType::kInt8, Shape{3}), false),
                        value_of(HostTensor(DType::kInt8, Shape{1, 3}), false)};
  bytes_graph.ops = {{"unsqueeze", attr("dim", int64_t{0}), {0}, {1}}};
  bytes_graph.inputs = {0};
  bytes_graph.outputs = {1};
  auto refused = run_graph(bytes_graph, {HostTensor(DType::kInt8, Shape{3})});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
}

TEST(VulkanDelegate, RequirementsArePlainComputeWithTimeline) {
  auto bytes = serialize_compute_graph(chain_graph().graph);
  UNIVK_ASSERT_OK(bytes);
  backend::DelegateSpec spec;
  spec.payload = *bytes;
  spec.inputs = {{DType::kFloat32, Shape{2, 3, 4, 4}}};
  spec.outputs = {{DType::kFloat32, Shape{2, 5}},
                  {DType::kFloat32, Shape{2, 48}},
                  {DType::kFloat32, Shape{2, 3, 4, 4}},
                  {DType::kFloat32, Shape{2, 5}}};
  auto prepared = make_vulkan_backend()->prepare(spec);
  UNIVK_ASSERT_OK(prepared);
  const univk::vulkan::DeviceRequirements* r = &(*prepared)->requirements();
  EXPECT_EQ(r->min_api_version, VK_API_VERSION_1_2);
  EXPECT_EQ(r->required_features, std::set<univk::vulkan::Feature>{univk::vulkan::Feature::kTimelineSemaphore});
  EXPECT_TRUE(r->required_extensions.empty());
  EXPECT_EQ(r->queue_flags, VkQueueFlags{VK_QUEUE_COMPUTE_BIT});
  EXPECT_EQ(make_vulkan_backend()->id(), "VulkanBackend");
}

TEST(VulkanDelegate, ErrorsNameTheProblem) {
  auto factory = make_vulkan_backend();
  const ChainGraph c = chain_graph();
  auto bytes = serialize_compute_graph(c.graph);
  UNIVK_ASSERT_OK(bytes);
  backend::DelegateSpec spec;
  spec.payload = *bytes;
  spec.inputs = {{DType::kFloat32, Shape{2, 3, 4, 5}}};
  spec.outputs = {{DType::kFloat32, Shape{2, 5}},
                  {DType::kFloat32, Shape{2, 48}},
                  {DType::kFloat32, Shape{2, 3, 4, 4}},
                  {DType::kFloat32, Shape{2, 5}}};
  auto r = factory->prepare(spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("input 0"), std::string::npos) << r.status().message();
  EXPECT_FALSE(backend::create_delegate(*factory, spec, shared_device(), {}).ok());

  std::vector<uint8_t> truncated(bytes->begin(), bytes->begin() + 40);
  spec.payload = truncated;
  EXPECT_EQ(factory->prepare(spec).status().code(), StatusCode::kInvalidArgument);

  ComputeGraph unknown;
  unknown.values = {value_of(HostTensor(DType::kFloat32, Shape{4}), false),
                    value_of(HostTensor(DType::kFloat32, Shape{4}), false)};
  unknown.ops = {{"erfinv", {}, {0}, {1}}};
  unknown.inputs = {0};
  unknown.outputs = {1};
  auto result = run_graph(unknown, {HostTensor(DType::kFloat32, Shape{4})});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(result.status().message().find("erfinv"), std::string::npos);

  auto loaded = load(c.graph);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->delegate->execute({}).status().code(), StatusCode::kInvalidArgument);
  const HostTensor wrong(DType::kFloat32, Shape{2, 3, 4});
  auto bad = loaded->delegate->execute({&wrong, 1});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("input 0"), std::string::npos);
}

TEST(VulkanDelegate, OutlivesItsBackendAndHoldsTheDevice) {
  std::unique_ptr<Loaded> loaded;
  {
    loaded = load(chain_graph().graph);
    ASSERT_TRUE(loaded);
  }
  EXPECT_EQ(loaded->delegate->device().get(), shared_device().get());
  EXPECT_GE(loaded->delegate->device().use_count(), 2);
}

}  // namespace
}  // namespace univk::backends::testing
