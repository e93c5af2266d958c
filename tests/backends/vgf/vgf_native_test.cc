// The native path (label vgf_native): GRAPH segments as VK_ARM_data_graph pipelines through
// Arm's ML emulation layer on lavapipe. Device requirements (pure, and a device created under
// the layer), the path choice (auto / native / lowered, the error without the layer), graphs
// with graph constants and several segments against the reference and the lowered path, and
// the main example's program (VgfBackend -> VulkanBackend -> VgfBackend and the reverse order)
// natively per_delegate and fused on one device against the lowered path.
// Tests that need the layer skip without ../shared (UNIVK_REQUIRE_EXTERNAL_FILE).
#include <cmath>
#include <cstdio>

#include "example_vgfs.h"
#include "external_data.h"
#include "backends/vgf/graph_path.h"
#include "backends/vgf/native_graph.h"
#include "backends/vgf/requirements.h"
#include "univk/backends/vulkan/compute_graph.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"
#include "univk/vulkan/arm_data_graph.h"
#include "univk/vulkan/arm_dispatch.h"
#include "univk/vulkan/validation.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

namespace arm = vulkan::arm;
using vgf::native_graph_requirements;

#define REQUIRE_EMULATION_LAYER() UNIVK_REQUIRE_EXTERNAL_FILE(emulation_layer_dir())

// x [1,5,6,3] NHWC -> CONV2D 3x3 pad 1 with weights [4,3,3,3] (OHWI) and bias [4] as graph
// constants 0 and 1 -> CLAMP(0, 6) -> y [1,5,6,4].
struct ConvModel {
  ::univk::vgf::VgfFile file;
  HostTensor weights, bias;
  Attributes conv;
};

ConvModel conv_model() {
  ConvModel m;
  m.weights = random_tensor(DType::kFloat32, Shape({4, 3, 3, 3}), 71);
  m.bias = random_tensor(DType::kFloat32, Shape({4}), 72);
  m.conv = conv2d_attrs({1, 1, 1, 1}, {1, 1});
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {1, 5, 6, 3}}, 0, 0);
  ValueId w = g.add_graph_constant({DType::kFloat32, {4, 3, 3, 3}}, 0);
  ValueId b = g.add_graph_constant({DType::kFloat32, {4}}, 1);
  ValueId c = g.add_operation(TosaOp::kConv2d, {x, w, b}, m.conv, {DType::kFloat32, {1, 5, 6, 4}});
  Attributes clamp;
  clamp.set("min_val", 0.0);
  clamp.set("max_val", 6.0);
  clamp.set("nan_mode", spirv::kNanPropagate);
  ValueId y = g.add_operation(TosaOp::kClamp, {c}, clamp, {DType::kFloat32, {1, 5, 6, 4}});
  g.add_output(y, 0, 1);
  m.file = single_graph_model(g);
  add_graph_constants(m.file, {&m.weights, &m.bias});
  return m;
}

HostTensor conv_reference(const ConvModel& m, const HostTensor& x) {
  Attributes a = m.conv;  // the reference takes zero points as ints
  a.set("input_zp", int64_t{0});
  a.set("weight_zp", int64_t{0});
  HostTensor c = ref("CONV2D", a, {x, m.weights, m.bias});
  auto v = c.data<float>();
  for (auto& e : v) e = std::min(6.f, std::max(0.f, e));
  return c;
}

// Loads `model` on a device created under the emulation layer with vgf_graph_path=`path`.
Result<Loaded> load_on_layer(const ::univk::vgf::VgfFile& model, const std::string& path) {
  Loaded loaded;
  loaded.payload = encode(model);
  auto spec = spec_for(model, loaded.payload);
  UNIVK_ASSIGN_OR_RETURN(auto prepared, make_vgf_backend()->prepare(spec));
  UNIVK_ASSIGN_OR_RETURN(auto device, DeviceCache::get().device_for(prepared->requirements(), emulation_config()));
  UNIVK_ASSIGN_OR_RETURN(loaded.delegate, prepared->init(device, {{"vgf_graph_path", path}}));
  UNIVK_RETURN_IF_ERROR(loaded.delegate->prepare_execute());
  return loaded;
}

TEST(VgfNativeRequirements, GraphPayloadsAskForTheExtensionsOptionally) {
  const vulkan::DeviceRequirements native = native_graph_requirements();
  for (const char* e : {arm::kTensorsExtension, arm::kDataGraphExtension, arm::kDataGraphTosaExtension})
    EXPECT_TRUE(native.optional_extensions.contains(e)) << e;
  for (auto f :
       {vulkan::Feature::kTensorsARM, vulkan::Feature::kDataGraphARM, vulkan::Feature::kDataGraphShaderModuleARM})
    EXPECT_TRUE(native.optional_features.contains(f)) << vulkan::feature_name(f);
  EXPECT_EQ(native.preferred_queue_flags, arm::kQueueDataGraphBit);

  auto decoded = ::univk::vgf::decode_vgf(encode(conv_model().file));
  UNIVK_ASSERT_OK(decoded);
  auto req = vgf::vgf_requirements(*decoded);
  UNIVK_ASSERT_OK(req);
  EXPECT_TRUE(req->optional_extensions.contains(arm::kDataGraphExtension));
  EXPECT_TRUE(req->required_extensions.empty());
  EXPECT_EQ(req->queue_flags, static_cast<VkQueueFlags>(VK_QUEUE_COMPUTE_BIT));  // never an error
  EXPECT_EQ(req->preferred_queue_flags, arm::kQueueDataGraphBit);
  // A device without any of it still satisfies the requirements.
  vulkan::DeviceCapabilities plain;
  plain.api_version = VK_API_VERSION_1_3;
  plain.queue_family_flags = {VK_QUEUE_COMPUTE_BIT};
  EXPECT_TRUE(req->check(plain).empty());
  EXPECT_NE(req->describe().find("queue COMPUTE (preferred DATA_GRAPH_ARM)"), std::string::npos) << req->describe();
}

TEST(VgfNativeRequirements, QueueFamilyWithDataGraphIsPreferred) {
  vulkan::DeviceRequirements r;
  r.preferred_queue_flags = arm::kQueueDataGraphBit;
  const VkQueueFlags graph = VK_QUEUE_COMPUTE_BIT | arm::kQueueDataGraphBit;
  EXPECT_EQ(r.choose_queue_family({VK_QUEUE_TRANSFER_BIT, VK_QUEUE_COMPUTE_BIT, graph}), 2u);
  EXPECT_EQ(r.choose_queue_family({VK_QUEUE_TRANSFER_BIT, VK_QUEUE_COMPUTE_BIT}), 1u);
  EXPECT_FALSE(r.choose_queue_family({VK_QUEUE_TRANSFER_BIT}).has_value());
  vulkan::DeviceRequirements merged;
  merged.merge(r);
  EXPECT_EQ(merged.preferred_queue_flags, arm::kQueueDataGraphBit);
}

TEST(VgfNativePath, OptionValues) {
  EXPECT_EQ(*vgf::parse_graph_path("auto"), vgf::GraphPath::kAuto);
  EXPECT_EQ(*vgf::parse_graph_path("native"), vgf::GraphPath::kNative);
  EXPECT_EQ(*vgf::parse_graph_path("lowered"), vgf::GraphPath::kLowered);
  auto bad = vgf::parse_graph_path("emulated");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status().to_string();
  EXPECT_EQ(*vgf::choose_graph_path(vgf::GraphPath::kAuto, {}, "d"), vgf::GraphPath::kNative);
  EXPECT_EQ(*vgf::choose_graph_path(vgf::GraphPath::kAuto, {"extension X"}, "d"), vgf::GraphPath::kLowered);
  EXPECT_EQ(*vgf::choose_graph_path(vgf::GraphPath::kLowered, {}, "d"), vgf::GraphPath::kLowered);
  auto native = vgf::choose_graph_path(vgf::GraphPath::kNative, {"extension X not enabled", "feature Y"}, "lavapipe");
  EXPECT_EQ(native.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(native.status().message().find("'lavapipe'"), std::string::npos) << native.status().to_string();
  EXPECT_NE(native.status().message().find("natively: extension X not enabled; feature Y"), std::string::npos)
      << native.status().to_string();
}

// A plain device (no emulation layer): native is an error naming every missing piece; auto and
// lowered run the graph lowered.
TEST(VgfNativePath, NativeWithoutTheExtensionsNamesWhatIsMissing) {
  const ConvModel m = conv_model();
  Loaded loaded;
  loaded.payload = encode(m.file);
  auto spec = spec_for(m.file, loaded.payload);
  auto prepared = make_vgf_backend()->prepare(spec);
  UNIVK_ASSERT_OK(prepared);
  auto device = vulkan::Device::create(vulkan::RuntimeConfig::from_environment(), (*prepared)->requirements());
  UNIVK_ASSERT_OK(device);
  if ((*device)->enabled().extensions.contains(arm::kDataGraphExtension))
    GTEST_SKIP() << "this device has VK_ARM_data_graph without the emulation layer";
  auto native = (*prepared)->init(*device, {{"vgf_graph_path", "native"}});
  ASSERT_FALSE(native.ok());
  EXPECT_EQ(native.status().code(), StatusCode::kUnsupported);
  for (const char* missing :
       {"vgf_graph_path=native", "extension VK_ARM_tensors not enabled", "extension VK_ARM_data_graph not enabled",
        "extension VK_ARM_data_graph_instruction_set_tosa not enabled", "feature dataGraph not enabled"})
    EXPECT_NE(native.status().message().find(missing), std::string::npos) << native.status().to_string();
  for (const char* path : {"auto", "lowered"}) {
    auto delegate = (*prepared)->init(*device, {{"vgf_graph_path", path}});
    UNIVK_ASSERT_OK(delegate) << path;
    EXPECT_EQ((*delegate)->graph_path(), "lowered") << path;
  }
}

TEST(VgfNative, LayerDeviceHasTheExtensionsAndADataGraphQueue) {
  REQUIRE_EMULATION_LAYER();
  auto decoded = ::univk::vgf::decode_vgf(encode(conv_model().file));
  UNIVK_ASSERT_OK(decoded);
  auto req = vgf::vgf_requirements(*decoded);
  UNIVK_ASSERT_OK(req);
  auto device = vulkan::Device::create(emulation_config(), *req);
  UNIVK_ASSERT_OK(device);
  const auto& enabled = (*device)->enabled();
  for (const char* e : {arm::kTensorsExtension, arm::kDataGraphExtension, arm::kDataGraphTosaExtension})
    EXPECT_TRUE(enabled.extensions.contains(e)) << e;
  for (auto f :
       {vulkan::Feature::kTensorsARM, vulkan::Feature::kDataGraphARM, vulkan::Feature::kDataGraphShaderModuleARM})
    EXPECT_TRUE((*device)->has(f)) << vulkan::feature_name(f);
  EXPECT_NE(enabled.queue_family_flags.at(0) & arm::kQueueDataGraphBit, 0u);
  EXPECT_NE(enabled.queue_family_flags.at(0) & VK_QUEUE_COMPUTE_BIT, 0u);
  EXPECT_TRUE(vulkan::supports_operation_set(vulkan::queue_family_data_graph_properties(**device), "TOSA.001000.1"));
}

// Graph constants at pipeline creation: CONV2D + CLAMP natively, against the reference and the
// lowered path on the same device; auto picks native there.
TEST(VgfNative, ConvolutionWithGraphConstantsBothPaths) {
  REQUIRE_EMULATION_LAYER();
  const ConvModel m = conv_model();
  const HostTensor x = random_tensor(DType::kFloat32, Shape({1, 5, 6, 3}), 70);
  const HostTensor want = conv_reference(m, x);
  std::map<std::string, HostTensor> got;
  for (const char* path : {"native", "lowered", "auto"}) {
    auto loaded = load_on_layer(m.file, path);
    UNIVK_ASSERT_OK(loaded) << path;
    EXPECT_EQ(loaded->delegate->graph_path(), std::string(path) == "lowered" ? "lowered" : "native") << path;
    auto out = loaded->delegate->execute(std::span<const HostTensor>(&x, 1));
    UNIVK_ASSERT_OK(out) << path;
    EXPECT_TRUE(tensors_close((*out)[0], want, {1e-5f, 1e-5f})) << path;
    got[path] = (*out)[0];
    if (std::string(path) == "native") {
      EXPECT_EQ(loaded->delegate->stats().dispatches, 1u);
      auto again = loaded->delegate->execute(std::span<const HostTensor>(&x, 1));  // resubmitted
      UNIVK_ASSERT_OK(again);
      EXPECT_TRUE(tensors_close((*again)[0], want, {1e-5f, 1e-5f}));
    }
  }
  EXPECT_TRUE(tensors_close(got["native"], got["lowered"], {1e-5f, 1e-5f}));
}

// A graph constant the module references but the VGF lacks is refused before the layer sees it
// (the layer would abort the process).
TEST(VgfNative, MissingGraphConstantIsAnError) {
  REQUIRE_EMULATION_LAYER();
  ConvModel m = conv_model();
  m.file.constants.pop_back();
  m.file.resources.pop_back();
  m.file.segments[0].constants = {0};
  auto loaded = load_on_layer(m.file, "native");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument) << loaded.status().to_string();
  EXPECT_NE(loaded.status().message().find("graph constant 1"), std::string::npos) << loaded.status().to_string();
}

// What a tensor aliasing a buffer range must find there (pure): a memory type the tensor takes,
// an aligned offset, enough bytes; each refusal names the resource and the numbers.
TEST(VgfNativeMemory, AliasedTensorMemoryIsCheckedAgainstTheTensorsRequirements) {
  VkMemoryRequirements req{};
  req.size = 96;
  req.alignment = 64;
  req.memoryTypeBits = 0b0110;
  vulkan::BufferRange range;
  range.buffer = reinterpret_cast<VkBuffer>(uintptr_t{1});
  range.memory = reinterpret_cast<VkDeviceMemory>(uintptr_t{1});
  range.memory_type = 2;
  range.offset = 128;
  range.size = 96;
  UNIVK_EXPECT_OK(vgf::check_tensor_memory(req, range, "resource 3"));

  auto refused = [&](vulkan::BufferRange r, StatusCode code, std::vector<std::string> words) {
    const Status s = vgf::check_tensor_memory(req, r, "resource 3");
    EXPECT_EQ(s.code(), code) << s.to_string();
    for (const auto& w : words) EXPECT_NE(s.message().find(w), std::string::npos) << w << " in " << s.to_string();
  };
  vulkan::BufferRange wrong_type = range;
  wrong_type.memory_type = 0;
  refused(wrong_type, StatusCode::kUnsupported, {"resource 3", "memory type 0", "memoryTypeBits are 0x6"});
  wrong_type.memory_type = 40;  // beyond the 32 bits
  refused(wrong_type, StatusCode::kUnsupported, {"memory type 40"});
  vulkan::BufferRange misaligned = range;
  misaligned.offset = 80;
  refused(misaligned, StatusCode::kUnsupported, {"resource 3", "byte 80", "alignment of 64"});
  vulkan::BufferRange small = range;
  small.size = 95;
  refused(small, StatusCode::kUnsupported, {"resource 3", "needs 96 bytes", "holds 95"});
  vulkan::BufferRange unknown = range;
  unknown.memory_type = vulkan::kUnknownMemoryType;
  refused(unknown, StatusCode::kInternal, {"resource 3", "memory type"});
  unknown = range;
  unknown.memory = VK_NULL_HANDLE;
  refused(unknown, StatusCode::kInternal, {"resource 3"});
}

// Buffers say which memory type they were allocated from, and their ranges carry it (what the
// native path checks tensors against).
TEST(VgfNativeMemory, BufferRangesCarryTheirMemoryType) {
  REQUIRE_EMULATION_LAYER();
  auto device = DeviceCache::get().device_for(native_graph_requirements(), emulation_config());
  UNIVK_ASSERT_OK(device);
  for (auto kind : {vulkan::MemoryKind::kDeviceLocal, vulkan::MemoryKind::kHostVisible}) {
    auto buffer = vulkan::Buffer::create(*device, 256, kind);
    UNIVK_ASSERT_OK(buffer);
    EXPECT_LT(buffer->memory_type(), (*device)->memory_properties().memoryTypeCount);
    EXPECT_EQ(buffer->range().memory_type, buffer->memory_type());
    EXPECT_EQ(buffer->range().memory, buffer->memory());
  }
}

std::vector<uint8_t> sigmoid_graph(Shape shape) {
  ComputeGraph g;
  g.values = {{DType::kFloat32, shape, {}}, {DType::kFloat32, shape, {}}};
  g.ops = {{"sigmoid", {}, {0}, {1}}};
  g.inputs = {0};
  g.outputs = {1};
  auto bytes = serialize_compute_graph(g);
  UNIVK_EXPECT_OK(bytes);
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

// The main example's program: VgfBackend pool -> VulkanBackend sigmoid -> VgfBackend x*x+0.25
// (vgf_first), or sigmoid first. Returns the output of `path` in `mode` and checks that every
// call ran on one device and queue and that the VGF calls took `path`.
HostTensor run_example(bool vgf_first, const std::string& path, runtime::ExecutionMode mode, const HostTensor& in) {
  runtime::ProgramBuilder b;
  auto& m = b.add_method("forward");
  auto x = m.add_value(DType::kFloat32, Shape({1, 3, 8, 8}));
  auto y = m.add_value(DType::kFloat32, Shape({1, 3, 4, 4}));
  const Shape sig_shape = vgf_first ? Shape({1, 3, 4, 4}) : Shape({1, 3, 8, 8});
  const uint32_t pool = b.add_delegate("VgfBackend", pool_vgf());
  const uint32_t sig = b.add_delegate("VulkanBackend", sigmoid_graph(sig_shape));
  const uint32_t square = b.add_delegate("VgfBackend", square_vgf());
  auto mid = m.add_value(DType::kFloat32, sig_shape);
  auto p = m.add_value(DType::kFloat32, Shape({1, 3, 4, 4}));
  if (vgf_first) {
    m.add_delegate_call(pool, {x}, {mid});
    m.add_delegate_call(sig, {mid}, {p});
  } else {
    m.add_delegate_call(sig, {x}, {mid});
    m.add_delegate_call(pool, {mid}, {p});
  }
  m.add_delegate_call(square, {p}, {y});
  m.set_inputs({x});
  m.set_outputs({y});
  auto bytes = b.finish();
  UNIVK_EXPECT_OK(bytes);
  auto program = runtime::Program::load_bytes(*bytes);
  UNIVK_EXPECT_OK(program);
  vulkan::DeviceRegistry registry;  // fresh: the program's first delegate creates the device
  runtime::LoadOptions options;
  options.registry = &registry;
  options.mode = mode;
  options.config = emulation_config();
  options.backend_options["VgfBackend"] = {{"vgf_graph_path", path}};
  options.profile = true;
  auto method = (*program)->load_method("forward", options);
  UNIVK_EXPECT_OK(method);
  if (!method.ok()) return HostTensor();
  EXPECT_EQ((*method)->mode(), mode);
  auto out = (*method)->execute(std::span<const HostTensor>(&in, 1));
  UNIVK_EXPECT_OK(out);
  // The profile times every dispatch on the GPU, the data-graph ones included: one per
  // VgfBackend call natively (one GRAPH segment each), and each delegate call has a GPU event.
  auto profile = (*method)->profile();
  UNIVK_EXPECT_OK(profile);
  if (profile.ok()) {
    int data_graph = 0, gpu_delegates = 0;
    for (const runtime::ProfileEvent* e : profile->of_kind(runtime::ProfileKind::kDispatch)) {
      EXPECT_EQ(e->track, runtime::ProfileTrack::kGpu);
      if (e->name == "DATA_GRAPH") ++data_graph;
    }
    for (const runtime::ProfileEvent* e : profile->of_kind(runtime::ProfileKind::kDelegate)) {
      if (e->track == runtime::ProfileTrack::kGpu) ++gpu_delegates;
    }
    EXPECT_EQ(data_graph, path == "native" ? 2 : 0) << profile->table();
    EXPECT_EQ(gpu_delegates, 3) << profile->table();
  }
  const auto calls = (*method)->delegate_calls();
  EXPECT_EQ(calls.size(), 3u);
  for (const auto& call : calls) {
    EXPECT_EQ(call.device, calls[0].device) << call.backend_id;
    EXPECT_EQ(call.queue, calls[0].queue) << call.backend_id;
    EXPECT_EQ(call.graph_path, call.backend_id == "VgfBackend" ? path : "") << call.backend_id;
  }
  EXPECT_EQ(registry.created_count(), 1u);
  return out.ok() ? (*out)[0] : HostTensor();
}

// Both delegate orders: with the VulkanBackend's call first its delegate is loaded first, and
// the device still has the data-graph extensions (the method merged every requirement before
// creating it).
TEST(VgfNativeProgram, ExampleNativeEqualsLoweredBothOrdersBothModes) {
  REQUIRE_EMULATION_LAYER();
  const uint64_t filtered = vulkan::filtered_validation_message_count();
  const HostTensor in = random_tensor(DType::kFloat32, Shape({1, 3, 8, 8}), 60);
  for (bool vgf_first : {true, false}) {
    for (auto mode : {runtime::ExecutionMode::kPerDelegate, runtime::ExecutionMode::kFused}) {
      const std::string what = std::string(vgf_first ? "vgf first" : "vulkan first") +
                               (mode == runtime::ExecutionMode::kFused ? " fused" : " per_delegate");
      const HostTensor lowered = run_example(vgf_first, "lowered", mode, in);
      const HostTensor native = run_example(vgf_first, "native", mode, in);
      EXPECT_TRUE(tensors_close(native, lowered, {1e-5f, 1e-5f})) << what;
    }
  }
  // Evidence for docs/VGF_BACKEND.md: with validation on, the emulation layer's TRANSPOSE
  // pipelines draw VUID-VkComputePipelineCreateInfo-layout-00703, which univk filters; any
  // other message fails the test (tests/support/test_main.cc).
  std::printf("validation messages about the emulation layer's own pipelines (filtered): %llu\n",
              static_cast<unsigned long long>(vulkan::filtered_validation_message_count() - filtered));
}

}  // namespace
}  // namespace univk::backends::vgf_test
