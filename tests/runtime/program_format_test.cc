// Program file round trips: ProgramBuilder -> bytes/file -> parse_program / Program::load.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>

#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"
#include "univk_test.h"

namespace univk::runtime {
namespace {

std::vector<uint8_t> bytes_of(std::string_view text) { return {text.begin(), text.end()}; }

std::vector<uint8_t> float_bytes(std::vector<float> values) {
  std::vector<uint8_t> out(values.size() * sizeof(float));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// Two delegates, two methods, a constant and a kernel call with every attribute type; debug
// sources on the kernel call and the second delegate call, none on the first.
ProgramBuilder& sample(ProgramBuilder& b) {
  uint32_t d0 = b.add_delegate("VulkanBackend", bytes_of("graph-payload-0"), {{"version", {1, 2}}, {"empty", {}}});
  uint32_t d1 = b.add_delegate("VgfBackend", bytes_of("a longer VGF payload, 37 bytes long.."));
  MethodBuilder& forward = b.add_method("forward");
  ValueId x = forward.add_value(DType::kFloat32, Shape{1, 3, 8, 8});
  ValueId y = forward.add_value(DType::kFloat32, Shape{1, 3, 4, 4});
  ValueId c = forward.add_constant(DType::kFloat32, Shape{3}, float_bytes({1.f, 2.f, 3.f}));
  ValueId z = forward.add_value(DType::kFloat32, Shape{1, 3, 4, 4});
  ValueId w = forward.add_value(DType::kFloat32, Shape{1, 3, 4, 4});
  forward.add_delegate_call(d0, {x}, {y});
  Attributes attrs;
  attrs.set("alpha", 1.5);
  attrs.set("dim", int64_t{-1});
  attrs.set("mode", std::string("tanh"));
  attrs.set("dims", std::vector<int64_t>{0, 2, 3});
  attrs.set("scales", std::vector<double>{0.5, 0.25});
  forward.add_kernel_call("add", attrs, {y, c}, {z}, {{"add_1", "at model.py:7 (in forward): y + c"}});
  forward.add_delegate_call(d1, {z}, {w}, {{"relu", ""}, {"mul_2", "at model.py:9"}});
  forward.set_inputs({x});
  forward.set_outputs({w, y});
  MethodBuilder& other = b.add_method("scalar");
  ValueId s = other.add_value(DType::kInt64, Shape{});
  other.set_inputs({s});
  other.set_outputs({s});
  return b;
}

TEST(ProgramFormat, RoundTripKeepsEveryField) {
  ProgramBuilder b;
  auto bytes = sample(b).finish();
  UNIVK_ASSERT_OK(bytes);
  auto program = Program::load_bytes(*bytes);
  UNIVK_ASSERT_OK(program);
  const ProgramDesc& desc = (*program)->desc();

  EXPECT_EQ(desc.version, kProgramFormatVersion);
  EXPECT_EQ((*program)->method_names(), (std::vector<std::string>{"forward", "scalar"}));
  ASSERT_EQ(desc.delegates.size(), 2u);
  EXPECT_EQ(desc.delegates[0].backend_id, "VulkanBackend");
  EXPECT_EQ(desc.delegates[0].compile_specs.at("version"), (std::vector<uint8_t>{1, 2}));
  EXPECT_TRUE(desc.delegates[0].compile_specs.at("empty").empty());
  EXPECT_EQ(std::string(desc.delegates[1].payload.begin(), desc.delegates[1].payload.end()),
            "a longer VGF payload, 37 bytes long..");
  EXPECT_TRUE(desc.delegates[1].compile_specs.empty());

  const MethodDesc& forward = desc.methods[0];
  ASSERT_EQ(forward.values.size(), 5u);
  EXPECT_EQ(forward.values[0].info.shape, (Shape{1, 3, 8, 8}));
  ASSERT_TRUE(forward.values[2].is_constant());
  ASSERT_EQ(forward.values[2].constant_bytes.size(), 12u);
  float constant[3];
  std::memcpy(constant, forward.values[2].constant_bytes.data(), 12);
  EXPECT_EQ(constant[2], 3.f);
  EXPECT_EQ(forward.inputs, (std::vector<uint32_t>{0}));
  EXPECT_EQ(forward.outputs, (std::vector<uint32_t>{4, 1}));
  ASSERT_EQ(forward.instructions.size(), 3u);
  const auto& call = std::get<DelegateCallDesc>(forward.instructions[0]);
  EXPECT_EQ(call.delegate, 0u);
  EXPECT_EQ(call.outputs, (std::vector<uint32_t>{1}));
  const auto& kernel = std::get<KernelCallDesc>(forward.instructions[1]);
  EXPECT_EQ(kernel.op, "add");
  EXPECT_EQ(*kernel.attributes.get_float("alpha"), 1.5);
  EXPECT_EQ(*kernel.attributes.get_int("dim"), -1);
  EXPECT_EQ(*kernel.attributes.get_string("mode"), "tanh");
  EXPECT_EQ(*kernel.attributes.get_ints("dims"), (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(*kernel.attributes.get_floats("scales"), (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(kernel.inputs, (std::vector<uint32_t>{1, 2}));
  // Debug metadata; an instruction written without it (as older programs are) reads as none.
  ASSERT_EQ(forward.sources.size(), 3u);
  EXPECT_TRUE(forward.sources[0].empty());
  EXPECT_EQ(forward.sources[1], (std::vector<SourceNode>{{"add_1", "at model.py:7 (in forward): y + c"}}));
  EXPECT_EQ(forward.sources[2], (std::vector<SourceNode>{{"relu", ""}, {"mul_2", "at model.py:9"}}));

  const MethodDesc& scalar = desc.methods[1];
  EXPECT_EQ(scalar.values[0].info.dtype, DType::kInt64);
  EXPECT_EQ(scalar.values[0].info.shape.rank(), 0u);
}

// int8 inputs and outputs of a quantized model carry their scale and zero point; other values none.
TEST(ProgramFormat, QuantizationOfInt8ValuesRoundTrips) {
  ProgramBuilder b;
  const uint32_t d = b.add_delegate("VgfBackend", bytes_of("payload"));
  MethodBuilder& m = b.add_method("forward");
  const ValueId x = m.add_value(DType::kInt8, Shape{1, 3, 8, 8});
  const ValueId y = m.add_value(DType::kInt8, Shape{1, 10});
  const ValueId f = m.add_value(DType::kFloat32, Shape{1, 10});
  UNIVK_ASSERT_OK(m.set_quantization(x, {0.03125, -5}));
  UNIVK_ASSERT_OK(m.set_quantization(y, {0.25, 127}));
  EXPECT_EQ(m.set_quantization(f, {0.5, 0}).code(), StatusCode::kInvalidArgument);    // not int8
  EXPECT_EQ(m.set_quantization(9, {0.5, 0}).code(), StatusCode::kInvalidArgument);    // no such value
  EXPECT_EQ(m.set_quantization(x, {0.0, 0}).code(), StatusCode::kInvalidArgument);    // scale 0
  EXPECT_EQ(m.set_quantization(x, {0.5, 128}).code(), StatusCode::kInvalidArgument);  // zero point outside int8
  m.add_delegate_call(d, {x}, {y, f});
  m.set_inputs({x});
  m.set_outputs({y, f});
  auto bytes = b.finish();
  UNIVK_ASSERT_OK(bytes);
  auto program = Program::load_bytes(*bytes);
  UNIVK_ASSERT_OK(program);
  const MethodDesc& forward = (*program)->desc().methods[0];
  ASSERT_TRUE(forward.values[0].quantization.has_value());
  EXPECT_EQ(forward.values[0].quantization->scale, 0.03125);
  EXPECT_EQ(forward.values[0].quantization->zero_point, -5);
  ASSERT_TRUE(forward.values[1].quantization.has_value());
  EXPECT_EQ(forward.values[1].quantization->zero_point, 127);
  EXPECT_FALSE(forward.values[2].quantization.has_value());
}

TEST(ProgramFormat, PayloadsAreAlignedSpansIntoTheMappedFile) {
  ProgramBuilder b;
  const auto path = (std::filesystem::temp_directory_path() / "univk_program_format_test.uvk").string();
  UNIVK_ASSERT_OK(sample(b).write(path));
  auto program = Program::load(path);
  std::filesystem::remove(path);  // the mapping stays valid after unlink
  UNIVK_ASSERT_OK(program);
  const std::span<const uint8_t> file = (*program)->bytes();
  for (const DelegateDesc& delegate : (*program)->desc().delegates) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(delegate.payload.data()) % kSegmentAlignment, 0u);
    EXPECT_GE(delegate.payload.data(), file.data());
    EXPECT_LE(delegate.payload.data() + delegate.payload.size(), file.data() + file.size());
  }
  const auto& constant = (*program)->desc().methods[0].values[2].constant_bytes;
  EXPECT_GE(constant.data(), file.data());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(constant.data()) % kSegmentAlignment, 0u);
}

TEST(ProgramFormat, UnalignedBytesAreCopiedOnce) {
  ProgramBuilder b;
  auto bytes = sample(b).finish();
  UNIVK_ASSERT_OK(bytes);
  // An offset view of the bytes cannot be parsed in place; load_bytes copies it into aligned storage.
  std::vector<uint8_t> shifted(bytes->size() + 1);
  std::memcpy(shifted.data() + 1, bytes->data(), bytes->size());
  EXPECT_FALSE(parse_program(std::span<const uint8_t>(shifted).subspan(1)).ok());
  auto program = Program::load_bytes(std::vector<uint8_t>(shifted.begin() + 1, shifted.end()));
  UNIVK_ASSERT_OK(program);
  EXPECT_EQ((*program)->desc().delegates.size(), 2u);
}

TEST(ProgramFormat, WriterRejectsBrokenPrograms) {
  struct Case {
    const char* name;
    std::function<void(ProgramBuilder&)> build;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"unknown value",
       [](ProgramBuilder& b) {
         auto& m = b.add_method("f");
         m.set_inputs({3});
       },
       "method 'f' input 0: value 3 out of range (0 values)"},
      {"read before write",
       [](ProgramBuilder& b) {
         auto& m = b.add_method("f");
         ValueId x = m.add_value(DType::kFloat32, Shape{2});
         ValueId y = m.add_value(DType::kFloat32, Shape{2});
         m.add_kernel_call("relu", {}, {x}, {y});
       },
       "instruction 0 (KernelCall 'relu') input 0: value 0 is read before it is written"},
      {"written twice",
       [](ProgramBuilder& b) {
         auto& m = b.add_method("f");
         ValueId x = m.add_value(DType::kFloat32, Shape{2});
         m.set_inputs({x});
         m.add_kernel_call("relu", {}, {x}, {x});
       },
       "output 0: value 0 is written twice"},
      {"bad delegate",
       [](ProgramBuilder& b) {
         auto& m = b.add_method("f");
         ValueId x = m.add_value(DType::kFloat32, Shape{2});
         ValueId y = m.add_value(DType::kFloat32, Shape{2});
         m.set_inputs({x});
         m.add_delegate_call(4, {x}, {y});
       },
       "delegate 4 out of range (0 delegates)"},
      {"constant size",
       [](ProgramBuilder& b) {
         auto& m = b.add_method("f");
         m.add_constant(DType::kFloat32, Shape{2}, std::vector<uint8_t>(7));
       },
       "holds 7 bytes, float32[2] needs 8"},
      {"duplicate method",
       [](ProgramBuilder& b) {
         b.add_method("f");
         b.add_method("f");
       },
       "duplicate name 'f'"},
      {"negative dim",
       [](ProgramBuilder& b) {
         b.add_method("f").add_value(DType::kFloat32, Shape{2, -1});
       },
       "value 0: dimension 1 is negative (-1)"},
      {"huge shape",
       [](ProgramBuilder& b) {
         b.add_method("f").add_value(DType::kFloat32, Shape{int64_t{1} << 40, int64_t{1} << 40});
       },
       "is too large"},
      {"output never written",
       [](ProgramBuilder& b) {
         auto& m = b.add_method("f");
         m.set_outputs({m.add_value(DType::kFloat32, Shape{2})});
       },
       "output 0: value 0 is never written"},
  };
  for (const Case& c : cases) {
    ProgramBuilder b;
    c.build(b);
    auto bytes = b.finish();
    ASSERT_FALSE(bytes.ok()) << c.name;
    EXPECT_EQ(bytes.status().code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_NE(bytes.status().message().find(c.message), std::string::npos)
        << c.name << ": " << bytes.status().message();
  }
}

TEST(ProgramFormat, ExecutionModeNames) {
  for (ExecutionMode mode : {ExecutionMode::kAuto, ExecutionMode::kPerDelegate, ExecutionMode::kFused}) {
    auto parsed = execution_mode_from_name(execution_mode_name(mode));
    UNIVK_ASSERT_OK(parsed);
    EXPECT_EQ(*parsed, mode);
  }
  EXPECT_FALSE(execution_mode_from_name("fast").ok());
}

}  // namespace
}  // namespace univk::runtime
