// univk_fuzz_seeds <dir>: writes seed inputs for the fuzzers into <dir>/<fuzzer>/, made with
// univk's own writers from the inputs the unit tests use (tests/spirv/tosa_test_graphs.h: one
// graph per supported TOSA operator; tests/vgf/vgf_test_util.h: the VGF test model), so seeds
// follow the formats as they change. Exit status 1 when a fuzzer got no seed at all.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "univk/base/file_map.h"
#include "univk/config.h"
#include "univk/npy/npy.h"
#include "univk/runtime/program_writer.h"

#if UNIVK_BUILD_VGF
#include "../tests/spirv/tosa_test_graphs.h"
#include "../tests/vgf/vgf_test_util.h"
#endif
#if UNIVK_BUILD_VULKAN_BACKEND
#include "univk/backends/vulkan/compute_graph.h"
#endif

namespace {

namespace fs = std::filesystem;
using univk::DType;
using univk::Shape;

std::map<std::string, int> seeds_written;
int errors = 0;

void write_seed(const fs::path& root, const std::string& fuzzer, const std::string& name,
                const univk::Result<std::vector<uint8_t>>& bytes) {
  if (!bytes.ok()) {
    std::fprintf(stderr, "seed %s/%s: %s\n", fuzzer.c_str(), name.c_str(), bytes.status().to_string().c_str());
    ++errors;
    return;
  }
  fs::create_directories(root / fuzzer);
  univk::Status s = univk::write_file((root / fuzzer / name).string(), *bytes);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.to_string().c_str());
    ++errors;
    return;
  }
  ++seeds_written[fuzzer];
}

std::vector<uint8_t> f32_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(float));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

#if UNIVK_BUILD_VGF
std::vector<uint8_t> word_bytes(const std::vector<uint32_t>& words) {
  std::vector<uint8_t> b(words.size() * 4);
  std::memcpy(b.data(), words.data(), b.size());
  return b;
}

void spirv_seeds(const fs::path& root) {
  for (univk::spirv::TosaOp op : univk::spirv::supported_tosa_ops()) {
    auto words = univk::spirv::write_tosa_graph(univk::spirv::testing::graph_for(op));
    if (!words.ok()) {
      write_seed(root, "spirv_graph_fuzzer", std::string(univk::spirv::tosa_op_name(op)), words.status());
      continue;
    }
    write_seed(root, "spirv_graph_fuzzer", std::string(univk::spirv::tosa_op_name(op)), word_bytes(*words));
  }
}
#endif

#if UNIVK_BUILD_VGF
void vgf_seeds(const fs::path& root) {
  univk::vgf::VgfModel model = univk::vgf::testing::make_model();
  write_seed(root, "vgf_decoder_fuzzer", "model_0_4_3.vgf", univk::vgf::encode_vgf(model, univk::vgf::k0_4_3));
  write_seed(root, "vgf_decoder_fuzzer", "model_0_5_0.vgf", univk::vgf::encode_vgf(model, univk::vgf::k0_5_0));
#if UNIVK_BUILD_VGF
  // The same model with a real TOSA graph module, as the VgfBackend reads it.
  auto words = univk::spirv::write_tosa_graph(univk::spirv::testing::graph_for(univk::spirv::TosaOp::kAvgPool2d));
  if (words.ok()) {
    model.modules[0].set_spirv(*words);
    write_seed(root, "vgf_decoder_fuzzer", "avg_pool2d_graph.vgf", univk::vgf::encode_vgf(model, univk::vgf::k0_5_0));
  }
#endif
}
#endif

#if UNIVK_BUILD_VULKAN_BACKEND
// x[1,3,8,8] -> conv2d(w, b) -> sigmoid -> add(const) -> avg_pool2d -> y
univk::backends::ComputeGraph compute_graph() {
  using univk::backends::ComputeOp;
  using univk::backends::ComputeValue;
  univk::backends::ComputeGraph g;
  auto value = [&](Shape shape, std::vector<uint8_t> constant = {}) {
    g.values.push_back(ComputeValue{DType::kFloat32, std::move(shape), std::move(constant)});
    return static_cast<uint32_t>(g.values.size() - 1);
  };
  uint32_t x = value(Shape{1, 3, 8, 8});
  uint32_t w = value(Shape{4, 3, 3, 3}, f32_bytes(std::vector<float>(4 * 3 * 3 * 3, 0.1f)));
  uint32_t b = value(Shape{4}, f32_bytes({0.f, 1.f, 2.f, 3.f}));
  uint32_t c = value(Shape{1, 4, 8, 8});
  uint32_t s = value(Shape{1, 4, 8, 8});
  uint32_t k = value(Shape{1}, f32_bytes({0.25f}));
  uint32_t a = value(Shape{1, 4, 8, 8});
  uint32_t y = value(Shape{1, 4, 4, 4});
  univk::Attributes conv;
  conv.set("stride", std::vector<int64_t>{1, 1});
  conv.set("padding", std::vector<int64_t>{1, 1});
  conv.set("dilation", std::vector<int64_t>{1, 1});
  conv.set("groups", int64_t{1});
  univk::Attributes pool;
  pool.set("kernel_size", std::vector<int64_t>{2, 2});
  pool.set("stride", std::vector<int64_t>{2, 2});
  g.ops.push_back(ComputeOp{"conv2d", conv, {x, w, b}, {c}});
  g.ops.push_back(ComputeOp{"sigmoid", {}, {c}, {s}});
  g.ops.push_back(ComputeOp{"add", {}, {s, k}, {a}});
  g.ops.push_back(ComputeOp{"avg_pool2d", pool, {a}, {y}});
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

void compute_graph_seeds(const fs::path& root) {
  univk::backends::ComputeGraph g = compute_graph();
  write_seed(root, "compute_graph_fuzzer", "conv_sigmoid_add_pool", univk::backends::serialize_compute_graph(g));
  g.ops.resize(2);
  g.values.resize(5);
  g.outputs = {4};
  write_seed(root, "compute_graph_fuzzer", "conv_sigmoid", univk::backends::serialize_compute_graph(g));
}
#endif

void npy_seeds(const fs::path& root) {
  univk::HostTensor f32(DType::kFloat32, Shape{2, 3});
  for (size_t i = 0; i < 6; ++i) f32.data<float>()[i] = 0.5f * static_cast<float>(i) - 1.f;
  write_seed(root, "npy_reader_fuzzer", "f32_2x3.npy", univk::npy::encode_npy(f32));
  univk::HostTensor i8(DType::kInt8, Shape{5});
  write_seed(root, "npy_reader_fuzzer", "i8_5.npy", univk::npy::encode_npy(i8));
  univk::HostTensor scalar(DType::kInt64, Shape{});
  write_seed(root, "npy_reader_fuzzer", "i64_scalar.npy", univk::npy::encode_npy(scalar));
  univk::HostTensor empty(DType::kFloat16, Shape{0, 4});
  write_seed(root, "npy_reader_fuzzer", "f16_0x4.npy", univk::npy::encode_npy(empty));
}

// Two methods: forward = VulkanBackend delegate -> CPU relu -> add of a constant; and an
// empty-instruction identity method.
void program_seeds(const fs::path& root) {
  using namespace univk::runtime;
  ProgramBuilder b;
  std::vector<uint8_t> payload;
#if UNIVK_BUILD_VULKAN_BACKEND
  auto graph_bytes = univk::backends::serialize_compute_graph(compute_graph());
  if (graph_bytes.ok()) payload = *graph_bytes;
#endif
  if (payload.empty()) payload = f32_bytes({2.f, 0.5f});
  uint32_t d = b.add_delegate("VulkanBackend", payload, {{"version", {1}}});
  MethodBuilder& m = b.add_method("forward");
  ValueId x = m.add_value(DType::kFloat32, Shape{1, 3, 8, 8});
  ValueId y = m.add_value(DType::kFloat32, Shape{1, 4, 4, 4});
  ValueId r = m.add_value(DType::kFloat32, Shape{1, 4, 4, 4});
  ValueId k = m.add_constant(DType::kFloat32, Shape{1}, f32_bytes({0.5f}));
  ValueId z = m.add_value(DType::kFloat32, Shape{1, 4, 4, 4});
  m.add_delegate_call(d, {x}, {y});
  m.add_kernel_call("relu", {}, {y}, {r});
  m.add_kernel_call("add", {}, {r, k}, {z});
  m.set_inputs({x});
  m.set_outputs({z});
  MethodBuilder& id = b.add_method("identity");
  ValueId i = id.add_value(DType::kInt32, Shape{5});
  id.set_inputs({i});
  id.set_outputs({i});
  write_seed(root, "program_loader_fuzzer", "forward_identity.uvk", b.finish());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  program_seeds(root);
#if UNIVK_BUILD_VGF
  spirv_seeds(root);
#endif
#if UNIVK_BUILD_VGF
  vgf_seeds(root);
#endif
#if UNIVK_BUILD_VULKAN_BACKEND
  compute_graph_seeds(root);
#endif
  npy_seeds(root);
  for (const auto& [fuzzer, count] : seeds_written) std::printf("%s: %d seeds\n", fuzzer.c_str(), count);
  if (errors > 0) std::fprintf(stderr, "%d seeds could not be written\n", errors);
  return seeds_written.empty() ? 1 : 0;
}
