// Multi-segment VGFs (GRAPH + GRAPH through an intermediate, alias groups, a COMPUTE segment)
// and bad payloads (truncated/corrupted files, Arm's placeholder samples).
#include <filesystem>

#include "vgf_test_util.h"
#include "vgf_backend_segments_test_shaders.h"
#include "external_data.h"
#include "univk/base/file_map.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

const TosaTensorType kType{DType::kFloat32, {2, 3, 4}};

vgf::Resource tensor_resource(vgf::ResourceCategory cat, std::optional<uint32_t> alias = std::nullopt) {
  vgf::Resource r;
  r.category = cat;
  r.vk_descriptor_type = vgf::vk::kDescriptorTypeStorageBuffer;
  r.vk_format = vgf::vk::kFormatR32Sfloat;
  r.shape = kType.shape;
  r.alias_group_id = alias;
  return r;
}

// A GRAPH segment computing `op(x, x)` or `x + 0.25` from binding `in` to binding `out`.
void add_graph_segment(vgf::VgfFile& model, bool square, uint32_t in_binding, uint32_t in_res, uint32_t out_binding,
                       uint32_t out_res) {
  TosaGraph g;
  ValueId x = g.add_input(kType, 0, in_binding);
  ValueId y;
  if (square) {
    Attributes a;
    a.set("shift", int64_t{0});
    y = g.add_operation(TosaOp::kMul, {x, x}, a, kType);
  } else {
    ValueId c = g.add_constant({DType::kFloat32, {1, 1, 1}}, floats_bytes({0.25f}));
    y = g.add_operation(TosaOp::kAdd, {x, c}, {}, kType);
  }
  g.add_output(y, 0, out_binding);
  vgf::Module m;
  m.type = vgf::ModuleType::kGraph;
  m.name = square ? "square" : "add";
  m.entry_point = g.entry_point;
  m.set_spirv(*spirv::write_tosa_graph(g));
  vgf::Segment seg;
  seg.type = vgf::ModuleType::kGraph;
  seg.name = m.name;
  seg.module_index = static_cast<uint32_t>(model.modules.size());
  seg.set_infos.push_back({std::nullopt, {{in_binding, in_res}, {out_binding, out_res}}});
  seg.inputs = {{in_binding, in_res}};
  seg.outputs = {{out_binding, out_res}};
  seg.dispatch_shape = {0, 0, 0};
  model.modules.push_back(m);
  model.segments.push_back(seg);
}

HostTensor expected_square_plus_quarter(const HostTensor& in) {
  HostTensor want = in;
  for (float& v : want.data<float>()) v = v * v + 0.25f;
  return want;
}

void run_and_check(const vgf::VgfFile& model, uint32_t expected_dispatches) {
  auto loaded = load(model);
  UNIVK_ASSERT_OK(loaded);
  HostTensor in = random_tensor(DType::kFloat32, Shape(kType.shape), 31);
  for (int run = 0; run < 2; ++run) {  // the recorded command buffer is resubmitted
    auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
    UNIVK_ASSERT_OK(out);
    EXPECT_TRUE(tensors_close((*out)[0], expected_square_plus_quarter(in), {1e-6f, 1e-6f})) << "two segments";
  }
  EXPECT_EQ(loaded->delegate->stats().dispatches, expected_dispatches);
  EXPECT_EQ(loaded->delegate->stats().submissions, 1u);
}

TEST(VgfSegments, TwoGraphSegmentsThroughAnIntermediate) {
  vgf::VgfFile model;
  model.resources = {tensor_resource(vgf::ResourceCategory::kInput), tensor_resource(vgf::ResourceCategory::kOutput),
                     tensor_resource(vgf::ResourceCategory::kIntermediate)};
  add_graph_segment(model, true, 0, 0, 2, 2);
  add_graph_segment(model, false, 2, 2, 1, 1);
  model.inputs = {{0, 0}};
  model.outputs = {{1, 1}};
  run_and_check(model, 2);
}

TEST(VgfSegments, AliasGroupSharesMemory) {
  // Segment 0 writes resource 2, segment 1 reads resource 3: they only meet through the alias.
  vgf::VgfFile model;
  model.resources = {tensor_resource(vgf::ResourceCategory::kInput), tensor_resource(vgf::ResourceCategory::kOutput),
                     tensor_resource(vgf::ResourceCategory::kIntermediate, 7),
                     tensor_resource(vgf::ResourceCategory::kIntermediate, 7)};
  add_graph_segment(model, true, 0, 0, 2, 2);
  add_graph_segment(model, false, 3, 3, 1, 1);
  model.inputs = {{0, 0}};
  model.outputs = {{1, 1}};
  run_and_check(model, 2);
}

TEST(VgfSegments, ResourceByteStridesAreHonoured) {
  // Input rows padded to 8 floats, output planes padded to 64 floats.
  vgf::VgfFile model;
  model.resources = {tensor_resource(vgf::ResourceCategory::kInput), tensor_resource(vgf::ResourceCategory::kOutput),
                     tensor_resource(vgf::ResourceCategory::kIntermediate)};
  model.resources[0].strides = {3 * 8 * 4, 8 * 4, 4};
  model.resources[1].strides = {64 * 4, 4 * 4, 4};
  add_graph_segment(model, true, 0, 0, 2, 2);
  add_graph_segment(model, false, 2, 2, 1, 1);
  model.inputs = {{0, 0}};
  model.outputs = {{1, 1}};
  run_and_check(model, 2);
}

TEST(VgfSegments, ComputeSegmentRunsTheModuleShader) {
  const Shape shape(kType.shape);
  vgf::VgfFile model =
      compute_segment_model(shape, {static_cast<uint32_t>(shape.numel() / 4), 1, 1}, shaders::double_plus_one_spv());
  auto loaded = load(model);
  UNIVK_ASSERT_OK(loaded);
  HostTensor in = random_tensor(DType::kFloat32, Shape(kType.shape), 32);
  auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
  UNIVK_ASSERT_OK(out);
  HostTensor want = in;
  for (float& v : want.data<float>()) v = v * 2.f + 1.f;
  EXPECT_TRUE(tensors_close((*out)[0], want, {})) << "compute segment";
  EXPECT_EQ(loaded->delegate->stats().dispatches, 1u);
}

// A GRAPH segment then a COMPUTE segment through an intermediate, y = 2 x^2 + 1. On the native
// path (vgf_backend_segments_native) the graph runs as a data-graph pipeline and the COMPUTE
// segment as a compute pipeline of the same delegate, on its one device and command buffer.
TEST(VgfSegments, GraphSegmentThenComputeSegment) {
  vgf::VgfFile model;
  model.resources = {tensor_resource(vgf::ResourceCategory::kInput), tensor_resource(vgf::ResourceCategory::kOutput),
                     tensor_resource(vgf::ResourceCategory::kIntermediate)};
  add_graph_segment(model, true, 0, 0, 1, 2);
  vgf::Module m;
  m.type = vgf::ModuleType::kCompute;
  m.name = "double_plus_one";
  m.entry_point = "main";
  const auto spv = shaders::double_plus_one_spv();
  m.set_spirv(std::vector<uint32_t>(spv.begin(), spv.end()));
  vgf::Segment seg;
  seg.type = vgf::ModuleType::kCompute;
  seg.name = "compute";
  seg.module_index = static_cast<uint32_t>(model.modules.size());
  seg.set_infos.push_back({0u, {{0, 2}, {1, 1}}});
  seg.inputs = {{0, 2}};
  seg.outputs = {{1, 1}};
  const Shape shape(kType.shape);
  seg.dispatch_shape = {static_cast<uint32_t>(shape.numel() / 4), 1, 1};
  model.modules.push_back(m);
  model.segments.push_back(seg);
  model.inputs = {{0, 0}};
  model.outputs = {{1, 1}};
  auto loaded = load(model);
  UNIVK_ASSERT_OK(loaded);
  EXPECT_EQ(loaded->delegate->graph_path(), test_graph_path() == "native" ? "native" : "lowered");
  HostTensor in = random_tensor(DType::kFloat32, shape, 33);
  HostTensor want = in;
  for (float& v : want.data<float>()) v = 2.f * (v * v) + 1.f;
  for (int run = 0; run < 2; ++run) {
    auto out = loaded->delegate->execute(std::span<const HostTensor>(&in, 1));
    UNIVK_ASSERT_OK(out);
    EXPECT_TRUE(tensors_close((*out)[0], want, {1e-6f, 1e-6f})) << "graph then compute";
  }
  EXPECT_EQ(loaded->delegate->stats().dispatches, 2u);  // one graph (data graph or fused kernel), one compute
  EXPECT_EQ(loaded->delegate->stats().submissions, 1u);
}

TEST(VgfSegments, MalformedPayloadsFailAtInitWithoutCrashing) {
  vgf::VgfFile model;
  model.resources = {tensor_resource(vgf::ResourceCategory::kInput), tensor_resource(vgf::ResourceCategory::kOutput),
                     tensor_resource(vgf::ResourceCategory::kIntermediate)};
  add_graph_segment(model, true, 0, 0, 2, 2);
  add_graph_segment(model, false, 2, 2, 1, 1);
  model.inputs = {{0, 0}};
  model.outputs = {{1, 1}};
  const std::vector<uint8_t> good = encode(model);
  auto factory = make_vgf_backend();
  auto good_spec = spec_for(model, good);
  auto prepared = factory->prepare(good_spec);
  UNIVK_ASSERT_OK(prepared);
  auto device = device_for((*prepared)->requirements());
  UNIVK_ASSERT_OK(device);
  for (size_t cut : {size_t{0}, size_t{64}, size_t{128}, good.size() / 2, good.size() - 1}) {
    std::vector<uint8_t> bytes(good.begin(), good.begin() + cut);
    auto spec = spec_for(model, bytes);
    EXPECT_FALSE(factory->prepare(spec).ok()) << "truncated at " << cut;
  }
  // Byte flips anywhere: an error or a working delegate, never a crash.
  std::mt19937 rng(5);
  for (int i = 0; i < 40; ++i) {
    std::vector<uint8_t> bytes = good;
    bytes[rng() % bytes.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    auto spec = spec_for(model, bytes);
    auto flipped = factory->prepare(spec);
    if (!flipped.ok()) continue;
    auto delegate = (*flipped)->init(*device, {});
    if (!delegate.ok()) {
      EXPECT_FALSE(delegate.status().message().empty());
    }
  }
  // The program's view of the call must match the VGF's interface.
  auto wrong = good_spec;
  wrong.inputs[0].shape = Shape({5});
  auto d = backend::create_delegate(*factory, wrong, *device, {});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("model input 0"), std::string::npos) << d.status().message();
}

TEST(VgfSegments, ArmSamplesReportPlaceholderSpirv) {
  const char* root = std::getenv("UNIVK_TEST_DATA");
  const auto dir = std::filesystem::path(root != nullptr ? root : "") / "arm-vgf-samples";
  UNIVK_REQUIRE_EXTERNAL_FILE(dir);
  int seen = 0;
  auto factory = make_vgf_backend();
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".vgf") continue;
    auto bytes = read_file(entry.path().string());
    UNIVK_ASSERT_OK(bytes);
    backend::DelegateSpec spec;
    spec.payload = std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
    auto req = factory->prepare(spec);
    ASSERT_FALSE(req.ok()) << entry.path();
    EXPECT_NE(req.status().message().find("placeholder SPIR-V"), std::string::npos) << req.status().message();
    ++seen;
  }
  EXPECT_EQ(seen, 4);
}

}  // namespace
}  // namespace univk::backends::vgf_test
