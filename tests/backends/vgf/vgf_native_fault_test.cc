// Fault injection on the native path (labels vgf_native, fault): a VgfBackend delegate loaded
// with vgf_graph_path=native, executed and destroyed on a device under Arm's emulation layer is
// repeated once for every VkResult-returning call it makes, through the device's volk table and
// the delegate's DataGraphDispatch (vkCreateTensorARM, vkCreateDataGraphPipelinesARM, session
// creation and memory binding, ...), with that call failing. Each run must end in the right
// output or a Status that names the injected result, leave the device's memory as it was, and
// leave the device usable. Leaks of what the emulation layer creates behind the ARM objects
// (buffers, compute pipelines, descriptor sets) are caught by the validation layer below it when
// the test destroys the device (any message fails the test, tests/support/test_main.cc).
// Its own executable: instrumentation is process-wide and every instrumented table must come
// from the same layer stack.
#include <cstdio>
#include <set>

#include "external_data.h"
#include "vgf_test_util.h"
#include "univk/vulkan/fault_injection.h"

namespace univk::backends::vgf_test {
namespace {

namespace fi = vulkan::fault_injection;

struct Model {
  std::string name;
  ::univk::vgf::VgfFile file;
  std::vector<HostTensor> inputs;
  HostTensor want;
};

// CONV2D 3x3 with weights and bias as graph constants (pipeline constants).
Model conv_model() {
  Model m;
  m.name = "conv2d with graph constants";
  const HostTensor weights = random_tensor(DType::kFloat32, Shape({2, 3, 3, 2}), 81);
  const HostTensor bias = random_tensor(DType::kFloat32, Shape({2}), 82);
  const Attributes conv = conv2d_attrs({1, 1, 1, 1}, {1, 1});
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {1, 4, 5, 2}}, 0, 0);
  ValueId w = g.add_graph_constant({DType::kFloat32, {2, 3, 3, 2}}, 0);
  ValueId b = g.add_graph_constant({DType::kFloat32, {2}}, 1);
  g.add_output(g.add_operation(TosaOp::kConv2d, {x, w, b}, conv, {DType::kFloat32, {1, 4, 5, 2}}), 0, 1);
  m.file = single_graph_model(g);
  add_graph_constants(m.file, {&weights, &bias});
  m.inputs = {random_tensor(DType::kFloat32, Shape({1, 4, 5, 2}), 80)};
  m.want = ref("CONV2D", conv2d_attrs({1, 1, 1, 1}, {1, 1}, /*for_reference=*/true), {m.inputs[0], weights, bias});
  return m;
}

// int8 RESCALE to int32 then ADD: the emulation layer asks for session memory for it, so the
// session's bind-point queries and vkBindDataGraphPipelineSessionMemoryARM are reached.
Model rescale_add_model() {
  Model m;
  m.name = "int8 rescale + add (session memory)";
  const TosaTensorType i8{DType::kInt8, {1, 3, 4, 2}}, i32{DType::kInt32, {1, 3, 4, 2}};
  Attributes up;
  up.set("scale32", int64_t{1});
  up.set("rounding_mode", spirv::kRoundingSingle);
  up.set("per_channel", int64_t{0});
  up.set("input_unsigned", int64_t{0});
  up.set("output_unsigned", int64_t{0});
  up.set("multiplier", std::vector<int64_t>{1 << 30});
  up.set("shift", std::vector<int64_t>{26});
  up.set("input_zp", int64_t{3});
  up.set("output_zp", int64_t{0});
  TosaGraph g;
  ValueId a = g.add_input(i8, 0, 0);
  ValueId b = g.add_input(i8, 0, 1);
  ValueId a32 = g.add_operation(TosaOp::kRescale, {a}, up, i32);
  ValueId b32 = g.add_operation(TosaOp::kRescale, {b}, up, i32);
  g.add_output(g.add_operation(TosaOp::kAdd, {a32, b32}, {}, i32), 0, 2);
  m.file = single_graph_model(g);
  m.inputs = {random_tensor(DType::kInt8, Shape(i8.shape), 83), random_tensor(DType::kInt8, Shape(i8.shape), 84)};
  Attributes ref_up = up;
  ref_up.set("output_type", std::string("int32"));
  m.want = ref("ADD", {}, {ref("RESCALE", ref_up, {m.inputs[0]}), ref("RESCALE", ref_up, {m.inputs[1]})});
  return m;
}

// prepare, init natively, execute twice (the recorded work is resubmitted), destroy.
Status load_run_destroy(const Model& m, const std::shared_ptr<vulkan::Device>& device) {
  const std::vector<uint8_t> payload = encode(m.file);
  UNIVK_ASSIGN_OR_RETURN(auto prepared, make_vgf_backend()->prepare(spec_for(m.file, payload)));
  UNIVK_ASSIGN_OR_RETURN(auto delegate, prepared->init(device, {{"vgf_graph_path", "native"}}));
  if (delegate->graph_path() != "native") return internal_error("the delegate did not take the native path");
  UNIVK_RETURN_IF_ERROR(delegate->prepare_execute());
  for (int run = 0; run < 2; ++run) {
    UNIVK_ASSIGN_OR_RETURN(auto out, delegate->execute(m.inputs));
    if (!tensors_close(out.at(0), m.want, {1e-5, 1e-5})) return internal_error(m.name + ": wrong output");
  }
  return ok_status();
}

class VgfNativeFaults : public ::testing::Test {
 protected:
  void SetUp() override { fi::set_instrumentation(true); }
  void TearDown() override {
    fi::disarm();
    fi::set_instrumentation(false);
  }
};

TEST_F(VgfNativeFaults, EveryCallOfLoadExecuteDestroyFailsCleanly) {
  UNIVK_REQUIRE_EXTERNAL_FILE(emulation_layer_dir());
  std::set<std::string> faulted;
  {
    const Model models[] = {conv_model(), rescale_add_model()};
    vulkan::DeviceRequirements req;
    for (const Model& m : models) {
      const std::vector<uint8_t> payload = encode(m.file);
      auto prepared = make_vgf_backend()->prepare(spec_for(m.file, payload));
      UNIVK_ASSERT_OK(prepared);
      req.merge((*prepared)->requirements());
    }
    // A device of this test's own (instrumented), destroyed before the test ends.
    auto device = vulkan::Device::create(emulation_config(), req);
    UNIVK_ASSERT_OK(device);
    ASSERT_EQ(fi::mismatched_tables(), 0u);
    const int64_t live = (*device)->live_allocations();
    for (const Model& m : models) {
      SCOPED_TRACE(m.name);
      fi::count_calls();
      const Status counted = load_run_destroy(m, *device);
      const uint64_t calls = fi::calls();
      fi::disarm();
      UNIVK_ASSERT_OK(counted);
      uint64_t failed = 0;
      for (uint64_t n = 1; n <= calls; ++n) {
        Status status;
        std::string function;
        {
          fi::ScopedFault fault(n, VK_ERROR_OUT_OF_DEVICE_MEMORY);
          status = load_run_destroy(m, *device);
          EXPECT_TRUE(fault.fired()) << "call " << n << " of " << calls << " was never made";
          function = fi::fired_function();
        }
        // One message per ARM entry point in the log, for docs/VGF_BACKEND.md.
        if (function.ends_with("ARM") && faulted.insert(function).second)
          std::printf("%s failing: %s\n", function.c_str(), status.to_string().c_str());
        faulted.insert(function);
        const std::string where = "fault at call " + std::to_string(n) + " (" + function + ")";
        if (!status.ok()) {
          ++failed;
          EXPECT_EQ(status.code(), StatusCode::kOutOfMemory) << where << ": " << status.to_string();
          EXPECT_NE(status.message().find("VK_ERROR_OUT_OF_DEVICE_MEMORY"), std::string::npos)
              << where << ": " << status.to_string();
          EXPECT_NE(status.message().find(function), std::string::npos) << where << ": " << status.to_string();
        }
        EXPECT_EQ((*device)->live_allocations(), live) << where << ": device memory leaked";
      }
      UNIVK_EXPECT_OK(load_run_destroy(m, *device)) << "the device after the faults";
      std::printf("%s: %llu calls, each failed once: %llu loads failed cleanly\n", m.name.c_str(),
                  static_cast<unsigned long long>(calls), static_cast<unsigned long long>(failed));
    }
  }
  // Every ARM entry point that returns a VkResult was made to fail at least once.
  for (const char* arm :
       {"vkCreateTensorARM", "vkCreateTensorViewARM", "vkBindTensorMemoryARM", "vkCreateDataGraphPipelinesARM",
        "vkCreateDataGraphPipelineSessionARM", "vkGetDataGraphPipelineSessionBindPointRequirementsARM",
        "vkBindDataGraphPipelineSessionMemoryARM"})
    EXPECT_TRUE(faulted.contains(arm)) << arm << " was never faulted";
}

}  // namespace
}  // namespace univk::backends::vgf_test
