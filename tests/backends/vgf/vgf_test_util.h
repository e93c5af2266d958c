// Helpers for the VgfBackend tests: build VGF files from TOSA graphs (write_tosa_graph +
// encode_vgf), create a standalone device for the backend's requirements, run delegates and
// compare with univk::reference::run_tosa (tests/support/univk_test.h: generator, comparator).
#pragma once

#include <array>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "univk/backends/vgf/vgf_backend.h"
#include "univk/reference/kernels.h"
#include "univk/spirv/tosa_graph.h"
#include "univk/vgf/vgf_file.h"
#include "univk/vulkan/device.h"
#include "emulation_layer.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {

using spirv::TosaGraph;
using spirv::TosaOp;
using spirv::TosaTensorType;
using spirv::ValueId;
using ::univk::testing::random_tensor;
using ::univk::testing::tensors_close;

// TRANSPOSE's attributes.
inline Attributes perms(std::vector<int64_t> p) {
  Attributes a;
  a.set("perms", std::move(p));
  return a;
}

// AVG_POOL2D (fp32 zero points 0, or int8 ones) or MAX_POOL2D attributes.
inline Attributes pool_attrs(TosaOp op, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                             std::vector<int64_t> pad, bool int8 = false) {
  Attributes a;
  a.set("kernel", std::move(kernel));
  a.set("stride", std::move(stride));
  a.set("pad", std::move(pad));
  if (op == TosaOp::kMaxPool2d) {
    a.set("nan_mode", spirv::kNanPropagate);
    return a;
  }
  a.set("acc_type", int8 ? spirv::kAccInt32 : spirv::kAccFp32);
  if (int8) {  // zero points in the element type's kind
    a.set("input_zp", int64_t{-3});
    a.set("output_zp", int64_t{2});
  } else {
    a.set("input_zp", 0.0);
    a.set("output_zp", 0.0);
  }
  return a;
}

// The reference takes zero points as ints whatever the element type.
inline Attributes ref_pool_attrs(Attributes a) {
  for (const char* name : {"input_zp", "output_zp"})
    if (a.has(name)) a.set(name, static_cast<int64_t>(a.get_float(name).value()));
  return a;
}

// The reference's first output of TOSA operator `op` (an empty tensor, and a test failure, on error).
inline HostTensor ref(const std::string& op, const Attributes& attrs, std::vector<HostTensor> inputs) {
  auto out = reference::run_tosa(op, attrs, inputs);
  UNIVK_EXPECT_OK(out) << op;
  return out.ok() ? (*out)[0] : HostTensor();
}

inline std::vector<uint8_t> floats_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// One GRAPH segment; graph inputs bind 0..n-1 and outputs n.. of set 0, each its own resource.
inline ::univk::vgf::VgfFile single_graph_model(const TosaGraph& graph) {
  ::univk::vgf::VgfFile model;
  ::univk::vgf::Module module;
  module.type = ::univk::vgf::ModuleType::kGraph;
  module.name = "graph";
  module.entry_point = graph.entry_point;
  auto words = spirv::write_tosa_graph(graph);
  UNIVK_EXPECT_OK(words);
  if (words.ok()) module.set_spirv(*words);
  model.modules.push_back(module);
  ::univk::vgf::Segment seg;
  seg.type = ::univk::vgf::ModuleType::kGraph;
  seg.name = "segment0";
  seg.dispatch_shape = {0, 0, 0};
  seg.set_infos.emplace_back();
  auto add = [&](const spirv::GraphBinding& b, ::univk::vgf::ResourceCategory cat) {
    ::univk::vgf::Resource r;
    r.category = cat;
    r.vk_descriptor_type = ::univk::vgf::vk::kDescriptorTypeTensorArm;
    r.vk_format = *::univk::vgf::vk_format_from_dtype(graph.values[b.value].type.dtype);
    r.shape = graph.values[b.value].type.shape;
    const uint32_t index = static_cast<uint32_t>(model.resources.size());
    model.resources.push_back(r);
    ::univk::vgf::BindingSlot slot{b.binding, index};
    seg.set_infos[0].bindings.push_back(slot);
    (cat == ::univk::vgf::ResourceCategory::kInput ? seg.inputs : seg.outputs).push_back(slot);
    (cat == ::univk::vgf::ResourceCategory::kInput ? model.inputs : model.outputs).push_back(slot);
  };
  for (const auto& b : graph.inputs) add(b, ::univk::vgf::ResourceCategory::kInput);
  for (const auto& b : graph.outputs) add(b, ::univk::vgf::ResourceCategory::kOutput);
  model.segments.push_back(seg);
  return model;
}

// Appends `tensors` as constant resources of the file, in order, to segment 0's constants: the
// data of the graph constants (add_graph_constant) numbered from the file's first constant.
inline void add_graph_constants(::univk::vgf::VgfFile& file, std::initializer_list<const HostTensor*> tensors) {
  for (const HostTensor* t : tensors) {
    ::univk::vgf::Resource r;
    r.category = ::univk::vgf::ResourceCategory::kConstant;
    r.vk_format = *::univk::vgf::vk_format_from_dtype(t->dtype());
    r.shape = t->shape().dims();
    ::univk::vgf::Constant c;
    c.resource_index = static_cast<uint32_t>(file.resources.size());
    c.set_data(std::vector<uint8_t>(t->bytes().begin(), t->bytes().end()));
    file.segments[0].constants.push_back(static_cast<uint32_t>(file.constants.size()));
    file.resources.push_back(r);
    file.constants.push_back(c);
  }
}

// The bytes of a tensor, as a graph constant's data.
inline std::vector<uint8_t> bytes_of(const HostTensor& t) {
  auto span = t.bytes();
  return std::vector<uint8_t>(span.begin(), span.end());
}

// CLAMP attributes with NaN propagation.
inline Attributes clamp_attrs(double lo, double hi) {
  Attributes a;
  a.set("min_val", lo);
  a.set("max_val", hi);
  a.set("nan_mode", spirv::kNanPropagate);
  return a;
}

// CONV2D attributes with dilation 1 and fp32 accumulation; zero points 0 as floats (the SPIR-V
// writer's fp32 form) or as ints (the reference's form).
inline Attributes conv2d_attrs(std::vector<int64_t> pad, std::vector<int64_t> stride, bool for_reference = false) {
  Attributes a;
  a.set("pad", std::move(pad));
  a.set("stride", std::move(stride));
  a.set("dilation", std::vector<int64_t>{1, 1});
  a.set("acc_type", spirv::kAccFp32);
  a.set("local_bound", int64_t{0});
  for (const char* zp : {"input_zp", "weight_zp"}) {
    if (for_reference) {
      a.set(zp, int64_t{0});
    } else {
      a.set(zp, 0.0);
    }
  }
  return a;
}

// Same-padded stride-1 3x3 CONV2D attributes of int8 tensors: int32 accumulation, the zero
// points as ints (the graph's int8 form and the reference's alike).
inline Attributes conv2d_int8_attrs(int64_t input_zp, int64_t weight_zp) {
  Attributes a;
  a.set("pad", std::vector<int64_t>{1, 1, 1, 1});
  a.set("stride", std::vector<int64_t>{1, 1});
  a.set("dilation", std::vector<int64_t>{1, 1});
  a.set("acc_type", spirv::kAccInt32);
  a.set("local_bound", int64_t{0});
  a.set("input_zp", input_zp);
  a.set("weight_zp", weight_zp);
  return a;
}

// One COMPUTE segment running `spirv` (tests/backends/vgf/double_plus_one.comp: 4 invocations
// per group, y = 2x + 1) from fp32 storage-buffer resource 0 to resource 1, both of `shape`,
// with the given dispatch shape.
inline ::univk::vgf::VgfFile compute_segment_model(const Shape& shape, std::array<uint32_t, 3> dispatch,
                                                   std::span<const uint32_t> spirv) {
  univk::vgf::VgfFile model;
  for (auto cat : {univk::vgf::ResourceCategory::kInput, univk::vgf::ResourceCategory::kOutput}) {
    univk::vgf::Resource r;
    r.category = cat;
    r.vk_descriptor_type = univk::vgf::vk::kDescriptorTypeStorageBuffer;
    r.vk_format = univk::vgf::vk::kFormatR32Sfloat;
    r.shape = shape.dims();
    model.resources.push_back(r);
  }
  univk::vgf::Module m;
  m.type = univk::vgf::ModuleType::kCompute;
  m.name = "double_plus_one";
  m.entry_point = "main";
  m.set_spirv(std::vector<uint32_t>(spirv.begin(), spirv.end()));
  model.modules.push_back(m);
  univk::vgf::Segment seg;
  seg.type = univk::vgf::ModuleType::kCompute;
  seg.name = "compute";
  seg.module_index = 0;
  seg.set_infos.push_back({0u, {{0, 0}, {1, 1}}});
  seg.inputs = {{0, 0}};
  seg.outputs = {{1, 1}};
  seg.dispatch_shape = {dispatch[0], dispatch[1], dispatch[2]};
  model.segments.push_back(seg);
  model.inputs = {{0, 0}};
  model.outputs = {{1, 1}};
  return model;
}

inline std::vector<uint8_t> encode(const ::univk::vgf::VgfFile& model) {
  auto bytes = ::univk::vgf::encode_vgf(model);
  UNIVK_EXPECT_OK(bytes);
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

struct Loaded {
  std::vector<uint8_t> payload;  // kept alive for the delegate
  std::unique_ptr<backend::Delegate> delegate;
};

inline backend::DelegateSpec spec_for(const ::univk::vgf::VgfFile& model, std::span<const uint8_t> payload) {
  backend::DelegateSpec spec;
  spec.backend_id = "VgfBackend";
  spec.payload = payload;
  for (const auto& s : model.inputs) {
    const auto& r = model.resources[s.resource_index];
    spec.inputs.push_back({*::univk::vgf::dtype_from_vk_format(r.vk_format), Shape(r.shape)});
  }
  for (const auto& s : model.outputs) {
    const auto& r = model.resources[s.resource_index];
    spec.outputs.push_back({*::univk::vgf::dtype_from_vk_format(r.vk_format), Shape(r.shape)});
  }
  return spec;
}

// The graph path the VGF tests ask for: CTest runs some VGF test programs a second time with
// UNIVK_TEST_VGF_GRAPH_PATH=native (label vgf_native, tests/backends/vgf/CMakeLists.txt), where
// devices get Arm's emulation layers and every delegate vgf_graph_path=native. Empty otherwise:
// the backend's default (auto, lowered on devices without VK_ARM_data_graph).
inline std::string test_graph_path() {
  const char* path = std::getenv("UNIVK_TEST_VGF_GRAPH_PATH");
  return path != nullptr ? path : "";
}

inline vulkan::RuntimeConfig test_runtime_config() {
  return test_graph_path() == "native" ? emulation_config() : vulkan::RuntimeConfig::from_environment();
}

// One device per distinct requirement set for the whole test binary (device creation with the
// validation layer dominates the run time otherwise). The devices are released when the test
// program's environment is torn down, inside RUN_ALL_TESTS, before static destruction.
class DeviceCache : public ::testing::Environment {
 public:
  static DeviceCache& get() {
    static DeviceCache* cache = [] {
      auto* c = new DeviceCache();  // owned by gtest once registered
      ::testing::AddGlobalTestEnvironment(c);
      return c;
    }();
    return *cache;
  }
  Result<std::shared_ptr<vulkan::Device>> device_for(const vulkan::DeviceRequirements& req) {
    return device_for(req, test_runtime_config());
  }
  // A device created with `config` (its instance layers are part of the cache key).
  Result<std::shared_ptr<vulkan::Device>> device_for(const vulkan::DeviceRequirements& req,
                                                     const vulkan::RuntimeConfig& config) {
    std::string key = req.describe();
    for (const auto& layer : config.instance_layers) key += " " + layer;
    auto& cached = devices_[key];
    if (!cached) {
      UNIVK_ASSIGN_OR_RETURN(cached, vulkan::Device::create(config, req));
    }
    return cached;
  }
  void TearDown() override { devices_.clear(); }

 private:
  std::map<std::string, std::shared_ptr<vulkan::Device>> devices_;
};

inline Result<std::shared_ptr<vulkan::Device>> device_for(const vulkan::DeviceRequirements& req) {
  return DeviceCache::get().device_for(req);
}

// Encodes, prepares, creates a device for the requirements and inits the delegate with `options`
// (plus vgf_graph_path=test_graph_path() unless `options` names one).
inline Result<Loaded> load(const ::univk::vgf::VgfFile& model, backend::BackendOptions options = {}) {
  if (!test_graph_path().empty()) options.emplace("vgf_graph_path", test_graph_path());
  Loaded loaded;
  loaded.payload = encode(model);
  auto spec = spec_for(model, loaded.payload);
  UNIVK_ASSIGN_OR_RETURN(auto prepared, make_vgf_backend()->prepare(spec));
  UNIVK_ASSIGN_OR_RETURN(auto device, device_for(prepared->requirements()));
  UNIVK_ASSIGN_OR_RETURN(loaded.delegate, prepared->init(device, options));
  UNIVK_RETURN_IF_ERROR(loaded.delegate->prepare_execute());
  return loaded;
}

}  // namespace univk::backends::vgf_test
