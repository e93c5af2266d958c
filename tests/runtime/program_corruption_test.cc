// Hostile program files: truncated at every byte, random byte flips, and hand-made FlatBuffers
// whose fields break one rule each. The loader must return an error naming the problem, never
// crash (this test also runs under ASan/UBSan in CI).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "program_generated.h"
#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"
#include "univk_test.h"

namespace univk::runtime {
namespace {

namespace fbs = univk::runtime::fb;

std::vector<uint8_t> valid_program() {
  ProgramBuilder b;
  std::vector<uint8_t> payload(40, 0xab);
  uint32_t d = b.add_delegate("VulkanBackend", payload, {{"spec", {1, 2, 3}}});
  MethodBuilder& m = b.add_method("forward");
  ValueId x = m.add_value(DType::kFloat32, Shape{2, 3});
  std::vector<uint8_t> constant(6 * sizeof(float), 0);
  ValueId c = m.add_constant(DType::kFloat32, Shape{2, 3}, constant);
  ValueId y = m.add_value(DType::kFloat32, Shape{2, 3});
  ValueId z = m.add_value(DType::kFloat32, Shape{2, 3});
  Attributes attrs;
  attrs.set("alpha", 2.0);
  attrs.set("dims", std::vector<int64_t>{1});
  m.add_kernel_call("add", attrs, {x, c}, {y});
  m.add_delegate_call(d, {y}, {z});
  m.set_inputs({x});
  m.set_outputs({z});
  auto bytes = b.finish();
  UNIVK_EXPECT_OK(bytes);
  return std::move(bytes).value();
}

TEST(ProgramCorruption, EveryTruncationIsRejected) {
  const std::vector<uint8_t> file = valid_program();
  UNIVK_ASSERT_OK(parse_program(file));
  for (size_t size = 0; size < file.size(); ++size) {
    std::vector<uint8_t> cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(size));
    auto parsed = parse_program(cut);
    ASSERT_FALSE(parsed.ok()) << "truncated to " << size << " of " << file.size() << " bytes";
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_FALSE(parsed.status().message().empty());
  }
}

TEST(ProgramCorruption, RandomByteFlipsNeverCrash) {
  const std::vector<uint8_t> file = valid_program();
  std::mt19937 rng(1234);
  int rejected = 0;
  constexpr int kTrials = 3000;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<uint8_t> bad = file;
    const int flips = 1 + trial % 4;
    for (int f = 0; f < flips; ++f) {
      bad[rng() % bad.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    }
    auto parsed = parse_program(bad);
    if (!parsed.ok()) {
      ++rejected;
      EXPECT_FALSE(parsed.status().message().empty());
      continue;
    }
    // A flip the format cannot detect (payload bytes, a float attribute, a still-valid index)
    // must still give a program whose every index is in range.
    for (const MethodDesc& method : parsed->methods) {
      for (const InstructionDesc& instruction : method.instructions) {
        for (uint32_t v : instruction_inputs(instruction)) ASSERT_LT(v, method.values.size());
        for (uint32_t v : instruction_outputs(instruction)) ASSERT_LT(v, method.values.size());
      }
    }
  }
  // Most of the file is FlatBuffer metadata: most flips must be caught.
  EXPECT_GT(rejected, kTrials / 3);
}

// Builders for hand-made files. Each writes a program with one method `f` holding the given
// values and instructions, and the given segments over a file of `file_size` bytes.
struct RawProgram {
  uint32_t version = kProgramFormatVersion;
  std::vector<fbs::Segment> segments;
  std::vector<std::tuple<std::string, uint32_t>> delegates;                 // backend id, segment
  std::vector<std::tuple<uint32_t, std::vector<int64_t>, int64_t>> values;  // dtype, shape, constant segment
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
  // kind: 0 none, 1 delegate call, 2 kernel call
  struct Call {
    int kind;
    uint32_t delegate;
    std::vector<uint32_t> inputs;
    std::vector<uint32_t> outputs;
    std::string op = "relu";
  };
  std::vector<Call> calls;
  std::vector<std::string> method_names = {"f"};
  size_t file_size = 0;  // 0: just the FlatBuffer (padded to 16)

  std::vector<uint8_t> bytes() const {
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<flatbuffers::Offset<fbs::Delegate>> ds;
    for (const auto& [id, segment] : delegates)
      ds.push_back(fbs::CreateDelegateDirect(fbb, id.c_str(), nullptr, segment));
    std::vector<flatbuffers::Offset<fbs::Method>> ms;
    for (const auto& name : method_names) {
      std::vector<flatbuffers::Offset<fbs::Value>> vs;
      for (const auto& [dtype, shape, constant] : values)
        vs.push_back(fbs::CreateValueDirect(fbb, dtype, &shape, constant));
      std::vector<flatbuffers::Offset<fbs::Instruction>> is;
      for (const Call& call : calls) {
        if (call.kind == 1) {
          auto c = fbs::CreateDelegateCallDirect(fbb, call.delegate, &call.inputs, &call.outputs);
          is.push_back(fbs::CreateInstruction(fbb, fbs::InstructionKind::DelegateCall, c.Union()));
        } else if (call.kind == 2) {
          auto c = fbs::CreateKernelCallDirect(fbb, call.op.c_str(), nullptr, &call.inputs, &call.outputs);
          is.push_back(fbs::CreateInstruction(fbb, fbs::InstructionKind::KernelCall, c.Union()));
        } else {
          is.push_back(fbs::CreateInstruction(fbb));
        }
      }
      ms.push_back(fbs::CreateMethodDirect(fbb, name.c_str(), &vs, &inputs, &outputs, &is));
    }
    fbs::FinishSizePrefixedProgramBuffer(fbb, fbs::CreateProgramDirect(fbb, version, &segments, &ds, &ms));
    std::vector<uint8_t> out(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
    out.resize(std::max<size_t>(file_size, (out.size() + 15) / 16 * 16), 0);
    return out;
  }
};

void expect_error(const RawProgram& raw, StatusCode code, const std::string& message) {
  auto parsed = parse_program(raw.bytes());
  ASSERT_FALSE(parsed.ok()) << "expected: " << message;
  EXPECT_EQ(parsed.status().code(), code) << parsed.status().to_string();
  EXPECT_NE(parsed.status().message().find(message), std::string::npos) << parsed.status().message();
}

TEST(ProgramCorruption, HandMadeFilesAreRejectedNamingTheField) {
  RawProgram base;
  base.values = {{0, {4}, -1}, {0, {4}, -1}};
  base.inputs = {0};
  base.outputs = {1};
  base.calls = {{2, 0, {0}, {1}}};
  UNIVK_ASSERT_OK(parse_program(base.bytes()));

  {
    RawProgram r = base;
    r.version = 7;
    expect_error(r, StatusCode::kIncompatible, "program format version 7 is newer than this runtime (1)");
  }
  {
    RawProgram r = base;
    r.version = 0;
    expect_error(r, StatusCode::kInvalidArgument, "program version 0");
  }
  {
    RawProgram r = base;
    r.file_size = 4096;
    r.segments = {fbs::Segment(1024 + 8, 4)};
    expect_error(r, StatusCode::kInvalidArgument, "segment 0: offset 1032 is not a multiple of 16");
  }
  {
    RawProgram r = base;
    r.file_size = 4096;
    r.segments = {fbs::Segment(4000, 200)};
    expect_error(r, StatusCode::kInvalidArgument,
                 "segment 0: bytes [4000, +200) run past the end of the file (4096 bytes)");
  }
  {
    RawProgram r = base;
    r.file_size = 4096;
    r.segments = {fbs::Segment(1024, UINT64_MAX - 512)};  // offset + size overflows
    expect_error(r, StatusCode::kInvalidArgument, "run past the end of the file");
  }
  {
    RawProgram r = base;
    r.file_size = 4096;
    r.segments = {fbs::Segment(0, 16)};
    expect_error(r, StatusCode::kInvalidArgument, "segment 0: offset 0 lies inside the FlatBuffer");
  }
  {
    RawProgram r = base;
    r.delegates = {{"VulkanBackend", 3}};
    expect_error(r, StatusCode::kInvalidArgument, "delegate 0 (VulkanBackend): segment 3 out of range (0 segments)");
  }
  {
    RawProgram r = base;
    r.delegates = {{"", 0}};
    expect_error(r, StatusCode::kInvalidArgument, "delegate 0: missing backend_id");
  }
  {
    RawProgram r = base;
    std::get<0>(r.values[1]) = 200;
    expect_error(r, StatusCode::kInvalidArgument, "method 'f' value 1: unknown dtype 200");
  }
  {
    RawProgram r = base;
    std::get<1>(r.values[1]) = std::vector<int64_t>(17, 1);
    expect_error(r, StatusCode::kInvalidArgument, "method 'f' value 1: rank 17 exceeds 16");
  }
  {
    RawProgram r = base;
    std::get<1>(r.values[1]) = {INT64_MAX, INT64_MAX};
    expect_error(r, StatusCode::kInvalidArgument, "method 'f' value 1: shape");
  }
  {
    RawProgram r = base;
    std::get<2>(r.values[1]) = 5;
    expect_error(r, StatusCode::kInvalidArgument, "method 'f' value 1: constant_segment 5 out of range (0 segments)");
  }
  {
    RawProgram r = base;
    std::get<2>(r.values[1]) = -7;
    expect_error(r, StatusCode::kInvalidArgument, "constant_segment -7 out of range");
  }
  {
    RawProgram r = base;
    r.calls = {{2, 0, {9}, {1}}};
    expect_error(r, StatusCode::kInvalidArgument,
                 "method 'f' instruction 0 (KernelCall 'relu') input 0: value 9 out of range (2 values)");
  }
  {
    RawProgram r = base;
    r.calls = {{2, 0, {0}, {1}, ""}};
    expect_error(r, StatusCode::kInvalidArgument, "method 'f' instruction 0 (KernelCall): missing op");
  }
  {
    RawProgram r = base;
    r.calls = {{1, 2, {0}, {1}}};
    expect_error(r, StatusCode::kInvalidArgument,
                 "instruction 0 (DelegateCall): delegate 2 out of range (0 delegates)");
  }
  {
    RawProgram r = base;
    r.calls = {{0, 0, {}, {}}};
    expect_error(r, StatusCode::kInvalidArgument, "method 'f' instruction 0: unknown instruction kind 0");
  }
  {
    RawProgram r = base;
    r.calls = {{2, 0, {0}, {}}};
    expect_error(r, StatusCode::kInvalidArgument, "instruction 0 (KernelCall 'relu'): no outputs");
  }
  {
    RawProgram r = base;
    r.inputs = {0, 0};
    expect_error(r, StatusCode::kInvalidArgument, "method 'f' input 1: value 0 listed twice");
  }
  {
    RawProgram r = base;
    r.method_names = {""};
    expect_error(r, StatusCode::kInvalidArgument, "method 0: missing name");
  }
  {
    RawProgram r = base;
    r.method_names = {"f", "f"};
    expect_error(r, StatusCode::kInvalidArgument, "method 1: duplicate name 'f'");
  }
  {
    std::vector<uint8_t> bytes = base.bytes();
    std::memcpy(bytes.data() + 8, "ABCD", 4);
    auto parsed = parse_program(bytes);
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.status().message().find("file identifier is 'ABCD', expected 'UVK1'"), std::string::npos)
        << parsed.status().message();
  }
  {
    std::vector<uint8_t> bytes = base.bytes();
    const uint32_t huge = 0xfffffff0u;
    std::memcpy(bytes.data(), &huge, 4);
    auto parsed = parse_program(bytes);
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.status().message().find("FlatBuffer size 4294967280 exceeds the file"), std::string::npos)
        << parsed.status().message();
  }
}

TEST(ProgramCorruption, ProgramLoadReportsThePath) {
  auto missing = Program::load("/nonexistent/dir/model.uvk");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  auto empty = Program::load_bytes({});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("too small"), std::string::npos);
}

}  // namespace
}  // namespace univk::runtime
