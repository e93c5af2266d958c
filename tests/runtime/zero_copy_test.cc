// Zero-copy program IO: input_view/output_view/run() give the same outputs as the copying
// execute() on the example chain compiled three ways (VGF + Vulkan as in the README, Vulkan only,
// VGF only), fused, staged and per_delegate, checked against univk::reference; views stay put
// across repeated runs; io_info() reports what copies; caller memory imported with
// VK_EXT_external_memory_host; bad indices, sizes and alignments are errors.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#include "univk/base/logging.h"
#include "univk/compiler/compiler.h"
#include "univk/reference/kernels.h"
#include "univk/runtime/program.h"
#include "univk/vulkan/buffer.h"
#include "univk/vulkan/device.h"
#include "example_chain.h"
#include "univk_test.h"

namespace univk::runtime {
namespace {

const Shape kIn{1, 3, 8, 8}, kOut{1, 3, 4, 4};

compiler::Graph example_graph() { return testing::example_chain_graph(kIn); }
HostTensor reference_output(const HostTensor& x) { return testing::example_chain_reference(x); }

enum class Partition { kVgfVulkanVgf, kVulkanOnly, kVgfOnly };

std::shared_ptr<Program> compile(Partition partition) {
  compiler::CompileOptions options;
  switch (partition) {
    case Partition::kVgfVulkanVgf:
      options.partition.order = {"VgfBackend", "VulkanBackend"};
      options.partition.pins = {{"sigmoid", "VulkanBackend"}};
      break;
    case Partition::kVulkanOnly:
      options.partition.order = {"VulkanBackend"};
      break;
    case Partition::kVgfOnly:
      options.partition.order = {"VgfBackend"};
      break;
  }
  auto compiled = compiler::compile_program(example_graph(), options);
  EXPECT_TRUE(compiled.ok()) << compiled.status().to_string();
  if (!compiled.ok()) return nullptr;
  auto program = Program::load_bytes(std::move(compiled->bytes));
  EXPECT_TRUE(program.ok()) << program.status().to_string();
  return program.ok() ? *program : nullptr;
}

// UNIVK_FUSED_IO for one load (it is read by load_method only).
class FusedIoEnv {
 public:
  explicit FusedIoEnv(const char* value) {
    if (value != nullptr) setenv("UNIVK_FUSED_IO", value, 1);
  }
  ~FusedIoEnv() { unsetenv("UNIVK_FUSED_IO"); }
};

struct Case {
  Partition partition;
  ExecutionMode mode;
  const char* fused_io;  // UNIVK_FUSED_IO, or null
  IoPath expected_path;
};

class ZeroCopy : public ::testing::TestWithParam<Case> {};

TEST_P(ZeroCopy, ViewsMatchCopyingExecuteAndReference) {
  const Case c = GetParam();
  auto program = compile(c.partition);
  ASSERT_NE(program, nullptr);
  LoadOptions options;
  options.mode = c.mode;
  std::unique_ptr<Method> method;
  {
    FusedIoEnv env(c.fused_io);
    UNIVK_ASSIGN_OR_FAIL(method, program->load_method("forward", options));
  }
  const IoInfo io = method->io_info();
  ASSERT_EQ(io.inputs.size(), 1u);
  ASSERT_EQ(io.outputs.size(), 1u);
  EXPECT_EQ(io.inputs[0], c.expected_path) << io_path_name(io.inputs[0]);
  EXPECT_EQ(io.outputs[0], c.expected_path) << io_path_name(io.outputs[0]);
  EXPECT_EQ(io.zero_copy(), c.expected_path == IoPath::kMapped);

  UNIVK_ASSIGN_OR_FAIL(InputView in, method->input_view(0));
  UNIVK_ASSIGN_OR_FAIL(OutputView out, method->output_view(0));
  EXPECT_EQ(in.info.shape, kIn);
  EXPECT_EQ(out.info.shape, kOut);
  ASSERT_EQ(in.bytes.size(), static_cast<size_t>(kIn.numel()) * 4);
  ASSERT_EQ(out.bytes.size(), static_cast<size_t>(kOut.numel()) * 4);

  for (uint32_t seed = 1; seed <= 3; ++seed) {
    const HostTensor x = testing::random_tensor(DType::kFloat32, kIn, seed, -3.0, 3.0);
    UNIVK_ASSIGN_OR_FAIL(auto copied, method->execute(std::vector<HostTensor>{x}));
    // A different input first, so run() cannot pass by reading what execute() left behind.
    const HostTensor other = testing::random_tensor(DType::kFloat32, kIn, seed + 100, -3.0, 3.0);
    std::memcpy(in.bytes.data(), other.bytes().data(), other.byte_size());
    UNIVK_ASSERT_OK(method->run());
    HostTensor got_other(DType::kFloat32, kOut);
    std::memcpy(got_other.bytes().data(), out.bytes.data(), out.bytes.size());
    EXPECT_TRUE(testing::tensors_close(got_other, reference_output(other), {1e-5, 1e-5})) << "seed " << seed;

    std::memcpy(in.bytes.data(), x.bytes().data(), x.byte_size());
    UNIVK_ASSERT_OK(method->run());
    // The same memory as before: views stay valid across runs.
    UNIVK_ASSIGN_OR_FAIL(OutputView again, method->output_view(0));
    EXPECT_EQ(again.bytes.data(), out.bytes.data());
    ASSERT_EQ(copied.size(), 1u);
    EXPECT_EQ(std::memcmp(copied[0].bytes().data(), out.bytes.data(), out.bytes.size()), 0) << "seed " << seed;
    EXPECT_TRUE(testing::tensors_close(copied[0], reference_output(x), {1e-5, 1e-5})) << "seed " << seed;
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const char* names[] = {"VgfVulkanVgf", "VulkanOnly", "VgfOnly"};
  std::string name = names[static_cast<int>(info.param.partition)];
  name += info.param.mode == ExecutionMode::kFused ? "_fused" : "_per_delegate";
  if (info.param.fused_io != nullptr) name += std::string("_") + info.param.fused_io;
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    Programs, ZeroCopy,
    ::testing::Values(Case{Partition::kVgfVulkanVgf, ExecutionMode::kFused, nullptr, IoPath::kMapped},
                      Case{Partition::kVulkanOnly, ExecutionMode::kFused, nullptr, IoPath::kMapped},
                      Case{Partition::kVgfOnly, ExecutionMode::kFused, nullptr, IoPath::kMapped},
                      Case{Partition::kVgfVulkanVgf, ExecutionMode::kFused, "staged", IoPath::kStaged},
                      Case{Partition::kVgfVulkanVgf, ExecutionMode::kFused, "host_outputs", IoPath::kMapped},
                      Case{Partition::kVgfVulkanVgf, ExecutionMode::kPerDelegate, nullptr, IoPath::kHost},
                      Case{Partition::kVulkanOnly, ExecutionMode::kPerDelegate, nullptr, IoPath::kHost}),
    case_name);

// run() and execute() from several threads on one method: the method serialises them and every
// execute() caller gets the outputs of its own inputs (run() callers run on whatever input the
// last call left). Afterwards the views still work.
TEST(ZeroCopyThreads, RunAndExecuteConcurrently) {
  auto program = compile(Partition::kVgfVulkanVgf);
  ASSERT_NE(program, nullptr);
  UNIVK_ASSIGN_OR_FAIL(auto method, program->load_method("forward"));
  const HostTensor fixed = testing::random_tensor(DType::kFloat32, kIn, 7, -3.0, 3.0);
  UNIVK_ASSIGN_OR_FAIL(InputView in, method->input_view(0));
  std::memcpy(in.bytes.data(), fixed.bytes().data(), fixed.byte_size());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (uint32_t t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const HostTensor x = testing::random_tensor(DType::kFloat32, kIn, 20 + t, -3.0, 3.0);
      const HostTensor want = reference_output(x);
      for (int i = 0; i < 10; ++i) {
        if (t % 2 == 0) {
          auto out = method->execute(std::vector<HostTensor>{x});
          if (!out.ok() || !testing::tensors_close((*out)[0], want, {1e-5, 1e-5})) ++failures;
        } else if (!method->run().ok()) {
          ++failures;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  std::memcpy(in.bytes.data(), fixed.bytes().data(), fixed.byte_size());
  UNIVK_ASSERT_OK(method->run());
  UNIVK_ASSIGN_OR_FAIL(OutputView out, method->output_view(0));
  HostTensor got(DType::kFloat32, kOut);
  std::memcpy(got.bytes().data(), out.bytes.data(), out.bytes.size());
  EXPECT_TRUE(testing::tensors_close(got, reference_output(fixed), {1e-5, 1e-5}));
}

TEST(ZeroCopyErrors, ViewIndexOutOfRange) {
  auto program = compile(Partition::kVulkanOnly);
  ASSERT_NE(program, nullptr);
  for (ExecutionMode mode : {ExecutionMode::kFused, ExecutionMode::kPerDelegate}) {
    LoadOptions options;
    options.mode = mode;
    UNIVK_ASSIGN_OR_FAIL(auto method, program->load_method("forward", options));
    auto in = method->input_view(1);
    ASSERT_FALSE(in.ok());
    EXPECT_EQ(in.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(in.status().message().find("has 1 inputs, input 1"), std::string::npos) << in.status().to_string();
    auto out = method->output_view(5);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  }
}

// docs/USER_GUIDE.md's C++ snippet, verbatim, so the guide's code runs.
univk::Status run_in_place(univk::runtime::Method& method) {
  UNIVK_ASSIGN_OR_RETURN(univk::runtime::InputView x, method.input_view(0));
  UNIVK_ASSIGN_OR_RETURN(univk::runtime::OutputView y, method.output_view(0));
  for (float& v : x.data<float>()) v = 1.0f;  // produce the input in place
  UNIVK_RETURN_IF_ERROR(method.run());        // no copy in, no copy out
  UNIVK_LOG(kInfo) << "y[0] = " << y.data<float>()[0] << ", zero-copy: " << method.io_info().zero_copy();
  return univk::ok_status();
}

TEST(ZeroCopyDoc, UserGuideSnippetRuns) {
  auto program = compile(Partition::kVgfVulkanVgf);
  ASSERT_NE(program, nullptr);
  UNIVK_ASSIGN_OR_FAIL(auto method, program->load_method("forward"));
  UNIVK_ASSERT_OK(run_in_place(*method));
  HostTensor ones(DType::kFloat32, kIn);
  for (float& v : ones.data<float>()) v = 1.0f;
  UNIVK_ASSIGN_OR_FAIL(OutputView y, method->output_view(0));
  HostTensor got(DType::kFloat32, kOut);
  std::memcpy(got.bytes().data(), y.bytes.data(), y.bytes.size());
  EXPECT_TRUE(testing::tensors_close(got, reference_output(ones), {1e-5, 1e-5}));
}

// Host memory the caller owns, aligned and sized for any device's
// minImportedHostPointerAlignment up to 64 KiB (lavapipe's and NVIDIA's is 4096).
constexpr size_t kImportAlignment = 65536;
struct AlignedBlock {
  AlignedBlock() : data(static_cast<uint8_t*>(std::aligned_alloc(kImportAlignment, kImportAlignment))) {
    std::memset(data, 0, kImportAlignment);
  }
  ~AlignedBlock() { std::free(data); }
  AlignedBlock(const AlignedBlock&) = delete;
  AlignedBlock& operator=(const AlignedBlock&) = delete;
  uint8_t* data;
};

// Loads the example with caller memory for its input and output; skips where the device has no
// VK_EXT_external_memory_host (lavapipe has it).
Result<std::unique_ptr<Method>> load_imported(const Program& program, std::vector<HostMemoryBinding> bindings,
                                              ExecutionMode mode = ExecutionMode::kAuto) {
  LoadOptions options;
  options.mode = mode;
  options.host_memory = std::move(bindings);
  return program.load_method("forward", options);
}

bool extension_missing(const Status& status) {
  return status.code() == StatusCode::kUnsupported &&
         status.message().find(vulkan::kExternalMemoryHostExtension) != std::string::npos;
}

TEST(ImportedHostMemory, RunsInCallerMemory) {
  for (Partition partition : {Partition::kVgfVulkanVgf, Partition::kVulkanOnly, Partition::kVgfOnly}) {
    auto program = compile(partition);
    ASSERT_NE(program, nullptr);
    AlignedBlock in, out;
    auto method =
        load_imported(*program, {{false, 0, in.data, kImportAlignment}, {true, 0, out.data, kImportAlignment}});
    if (extension_missing(method.status())) GTEST_SKIP() << method.status().to_string();
    UNIVK_ASSERT_OK(method);
    const IoInfo io = (*method)->io_info();
    EXPECT_EQ(io.inputs[0], IoPath::kImported);
    EXPECT_EQ(io.outputs[0], IoPath::kImported);
    EXPECT_TRUE(io.zero_copy());
    UNIVK_ASSIGN_OR_FAIL(InputView in_view, (*method)->input_view(0));
    UNIVK_ASSIGN_OR_FAIL(OutputView out_view, (*method)->output_view(0));
    EXPECT_EQ(in_view.bytes.data(), in.data);
    EXPECT_EQ(out_view.bytes.data(), out.data);
    for (uint32_t seed = 1; seed <= 2; ++seed) {
      const HostTensor x = testing::random_tensor(DType::kFloat32, kIn, seed, -3.0, 3.0);
      std::memcpy(in.data, x.bytes().data(), x.byte_size());
      UNIVK_ASSERT_OK((*method)->run());
      HostTensor got(DType::kFloat32, kOut);
      std::memcpy(got.bytes().data(), out.data, got.byte_size());
      EXPECT_TRUE(testing::tensors_close(got, reference_output(x), {1e-5, 1e-5})) << "seed " << seed;
      // The copying execute() goes through the same caller memory.
      UNIVK_ASSIGN_OR_FAIL(auto copied, (*method)->execute(std::vector<HostTensor>{x}));
      EXPECT_EQ(std::memcmp(copied[0].bytes().data(), got.bytes().data(), got.byte_size()), 0);
    }
  }
}

TEST(ImportedHostMemory, BadBindingsAreErrors) {
  auto program = compile(Partition::kVulkanOnly);
  ASSERT_NE(program, nullptr);
  AlignedBlock block;
  auto expect_error = [&](std::vector<HostMemoryBinding> bindings, StatusCode code, const std::string& text,
                          ExecutionMode mode = ExecutionMode::kAuto) {
    auto method = load_imported(*program, std::move(bindings), mode);
    if (extension_missing(method.status())) return;
    ASSERT_FALSE(method.ok()) << text;
    EXPECT_EQ(method.status().code(), code) << method.status().to_string();
    EXPECT_NE(method.status().message().find(text), std::string::npos) << method.status().to_string();
  };
  expect_error({{false, 1, block.data, kImportAlignment}}, StatusCode::kInvalidArgument,
               "host memory for input 1: method 'forward' has 1 inputs");
  expect_error({{false, 0, block.data, 100}}, StatusCode::kInvalidArgument,
               "input 0: 100 bytes for float32[1,3,8,8] (768 bytes)");
  expect_error({{true, 0, nullptr, kImportAlignment}}, StatusCode::kInvalidArgument, "null pointer");
  expect_error({{false, 0, block.data, kImportAlignment}, {false, 0, block.data, kImportAlignment}},
               StatusCode::kInvalidArgument, "already bound");
  expect_error({{false, 0, block.data + 64, kImportAlignment - 64}}, StatusCode::kInvalidArgument,
               "minImportedHostPointerAlignment");
  expect_error({{false, 0, block.data, kImportAlignment - 64}}, StatusCode::kInvalidArgument,
               "minImportedHostPointerAlignment");
  expect_error({{false, 0, block.data, kImportAlignment}}, StatusCode::kUnsupported, "need fused mode",
               ExecutionMode::kPerDelegate);
}

// A device created without the extension: a clear Unsupported, not a crash.
TEST(ImportedHostMemory, WithoutTheExtensionIsUnsupported) {
  auto device = vulkan::Device::create(vulkan::RuntimeConfig::from_environment(), vulkan::DeviceRequirements{});
  UNIVK_ASSERT_OK(device);
  ASSERT_FALSE((*device)->enabled().extensions.contains(vulkan::kExternalMemoryHostExtension));
  AlignedBlock block;
  auto buffer = vulkan::Buffer::import_host(*device, block.data, kImportAlignment);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(buffer.status().message().find(vulkan::kExternalMemoryHostExtension), std::string::npos);
}

}  // namespace
}  // namespace univk::runtime
