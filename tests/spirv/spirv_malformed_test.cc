// Malformed or unsupported modules are rejected with an error naming the problem; truncated
// and randomly corrupted modules never crash the reader (ASan in CI).
#include <gtest/gtest.h>

#include <random>

#include "tosa_test_graphs.h"
#include "univk_test.h"

namespace univk::spirv {
namespace {

constexpr uint16_t kOpCapability = 17, kOpDecorate = 71, kOpExtInst = 12, kOpGraphSetOutput = 4185,
                   kOpGraphInput = 4184, kOpTypeTensor = 4163, kOpGraphEnd = 4186;

std::vector<uint32_t> module_for(TosaOp op) {
  auto words = write_tosa_graph(testing::graph_for(op));
  UNIVK_EXPECT_OK(words);
  return words.ok() ? *words : std::vector<uint32_t>{};
}

// Word offset of the n-th instruction with `opcode` (0 when absent).
size_t find_inst(const std::vector<uint32_t>& w, uint16_t opcode, int n = 0) {
  for (size_t at = 5; at < w.size(); at += w[at] >> 16) {
    if ((w[at] & 0xffff) == opcode && n-- == 0) return at;
    if ((w[at] >> 16) == 0) break;
  }
  return 0;
}

std::string error_of(const std::vector<uint32_t>& w) {
  auto r = read_tosa_graph(w);
  return r.ok() ? std::string("<accepted>") : r.status().message();
}

TEST(SpirvMalformed, HeaderChecks) {
  auto w = module_for(TosaOp::kAdd);
  auto bad = w;
  bad[0] = 0x03022307;
  EXPECT_NE(error_of(bad).find("magic"), std::string::npos);
  bad = w;
  bad[3] = 0xffffffff;
  EXPECT_NE(error_of(bad).find("bound"), std::string::npos);
  EXPECT_NE(error_of({w.begin(), w.begin() + 3}).find("header"), std::string::npos);
}

TEST(SpirvMalformed, SectionOrder) {
  auto w = module_for(TosaOp::kAdd);
  // Move the first capability to the end of the types section (just before the graph).
  const size_t cap = find_inst(w, kOpCapability);
  const size_t tensor = find_inst(w, kOpTypeTensor);
  ASSERT_GT(cap, 0u);
  ASSERT_GT(tensor, 0u);
  std::vector<uint32_t> bad(w.begin(), w.begin() + static_cast<ptrdiff_t>(cap));
  bad.insert(bad.end(), w.begin() + static_cast<ptrdiff_t>(cap) + 2, w.begin() + static_cast<ptrdiff_t>(tensor));
  bad.insert(bad.end(), w.begin() + static_cast<ptrdiff_t>(cap), w.begin() + static_cast<ptrdiff_t>(cap) + 2);
  bad.insert(bad.end(), w.begin() + static_cast<ptrdiff_t>(tensor), w.end());
  EXPECT_NE(error_of(bad).find("section order"), std::string::npos) << error_of(bad);
}

TEST(SpirvMalformed, IdUsedBeforeDefinition) {
  auto w = module_for(TosaOp::kAdd);
  const size_t ext = find_inst(w, kOpExtInst);
  ASSERT_GT(ext, 0u);
  w[ext + 5] = w[3] - 1;  // first data operand -> an id defined later (or never)
  const std::string e = error_of(w);
  EXPECT_TRUE(e.find("before it is defined") != std::string::npos || e.find("not a tensor value") != std::string::npos)
      << e;
}

TEST(SpirvMalformed, OutputTypeMismatch) {
  // REDUCE_SUM's result [1,4,4,1] set as an output whose graph type is patched to the input type.
  auto w = module_for(TosaOp::kReduceSum);
  const size_t input = find_inst(w, kOpGraphInput);
  const size_t set = find_inst(w, kOpGraphSetOutput);
  ASSERT_GT(set, 0u);
  w[set + 1] = w[input + 2];  // set the graph input as output 0: [1,4,4,3] vs [1,4,4,1]
  EXPECT_NE(error_of(w).find("graph type says"), std::string::npos) << error_of(w);
}

TEST(SpirvMalformed, WrongAttributeAndOperands) {
  auto w = module_for(TosaOp::kAvgPool2d);
  const size_t ext = find_inst(w, kOpExtInst);
  auto bad = w;
  std::swap(bad[ext + 5], bad[ext + 8]);  // kernel <-> acc_type
  EXPECT_NE(error_of(bad).find("kernel"), std::string::npos) << error_of(bad);

  // A valid TOSA opcode univk does not take (while one is left): Unsupported, naming it.
  for (uint32_t opcode = 0; opcode < kTosaOpCount; ++opcode) {
    const auto op = static_cast<TosaOp>(opcode);
    if (is_supported_tosa_op(op)) continue;
    bad = w;
    bad[ext + 4] = opcode;
    auto r = read_tosa_graph(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(r.status().message().find(std::string(tosa_op_name(op))), std::string::npos);
    break;
  }

  // FFT2D (two results) with a tensor result type instead of a struct.
  bad = w;
  bad[ext + 4] = static_cast<uint32_t>(TosaOp::kFft2d);
  EXPECT_NE(error_of(bad).find("struct of 2 tensors"), std::string::npos) << error_of(bad);

  bad = w;
  bad[ext + 4] = 900;
  EXPECT_NE(error_of(bad).find("unknown TOSA opcode"), std::string::npos);

  // Drop the last operand (output_zp): operand count check.
  bad = w;
  bad[ext] -= 1u << 16;
  bad.erase(bad.begin() + static_cast<ptrdiff_t>(ext + (w[ext] >> 16) - 1));
  EXPECT_NE(error_of(bad).find("operands, expected"), std::string::npos) << error_of(bad);

  // CONV2D weight_zp replaced by the stride constant (an int32 [2] tensor).
  auto conv = module_for(TosaOp::kConv2d);
  const size_t cext = find_inst(conv, kOpExtInst);
  conv[cext + 14] = conv[cext + 6];
  EXPECT_NE(error_of(conv).find("weight_zp"), std::string::npos) << error_of(conv);
}

// The members of a multi-result operator are taken by OpCompositeExtract with one index in range,
// of the member's type.
TEST(SpirvMalformed, CompositeExtractOfResults) {
  constexpr uint16_t kOpCompositeExtract = 81;
  auto w = module_for(TosaOp::kRfft2d);
  const size_t at = find_inst(w, kOpCompositeExtract);
  ASSERT_GT(at, 0u);
  auto bad = w;
  bad[at + 4] = 2;  // index past the two results
  EXPECT_NE(error_of(bad).find("index 2 out of range"), std::string::npos) << error_of(bad);
  bad = w;
  bad[at + 3] = bad[at + 1];  // a type, not an operator's result
  EXPECT_NE(error_of(bad).find("not a multi-result operator"), std::string::npos) << error_of(bad);
  bad = w;
  bad.insert(bad.begin() + static_cast<ptrdiff_t>(at + 5), 0u);  // a second index
  bad[at] += 1u << 16;
  EXPECT_NE(error_of(bad).find("one member"), std::string::npos) << error_of(bad);
}

TEST(SpirvMalformed, MissingDecorationsAndOutputs) {
  auto w = module_for(TosaOp::kSigmoid);
  const size_t dec = find_inst(w, kOpDecorate);
  ASSERT_GT(dec, 0u);
  auto bad = w;
  bad.erase(bad.begin() + static_cast<ptrdiff_t>(dec), bad.begin() + static_cast<ptrdiff_t>(dec + 4));
  EXPECT_NE(error_of(bad).find("DescriptorSet or Binding"), std::string::npos) << error_of(bad);

  const size_t set = find_inst(w, kOpGraphSetOutput);
  bad = w;
  bad.erase(bad.begin() + static_cast<ptrdiff_t>(set), bad.begin() + static_cast<ptrdiff_t>(set + 3));
  EXPECT_NE(error_of(bad).find("never set"), std::string::npos) << error_of(bad);

  const size_t end = find_inst(w, kOpGraphEnd);
  bad.assign(w.begin(), w.begin() + static_cast<ptrdiff_t>(end));
  EXPECT_NE(error_of(bad).find("no complete OpGraphARM"), std::string::npos) << error_of(bad);
}

TEST(SpirvMalformed, HugeCompactConstantIsRejected) {
  // A zero constant is written as OpConstantNull; growing its dimension to 2^20 (patching the
  // shared integer constant 5) must not make the reader allocate terabytes.
  TosaGraph g;
  const TosaTensorType t{DType::kFloat32, {1, 5, 5, 3}};
  ValueId x = g.add_input(t, 0, 0);
  ValueId zero = g.add_constant(t, std::vector<uint8_t>(75 * 4, 0));
  g.add_output(g.add_operation(TosaOp::kAdd, {x, zero}, {}, t), 0, 1);
  auto words = write_tosa_graph(g);
  UNIVK_ASSERT_OK(words);
  auto w = *words;
  bool patched = false;
  for (size_t at = 5; at < w.size(); at += w[at] >> 16) {
    if ((w[at] & 0xffff) == 43 && (w[at] >> 16) == 4 && w[at + 3] == 5) {
      w[at + 3] = 1u << 20;
      patched = true;
    }
  }
  ASSERT_TRUE(patched);
  EXPECT_NE(error_of(w).find("too large"), std::string::npos) << error_of(w);
}

TEST(SpirvMalformed, EveryTruncationIsRejected) {
  for (TosaOp op : {TosaOp::kConv2d, TosaOp::kRescale, TosaOp::kConcat}) {
    auto w = module_for(op);
    for (size_t n = 0; n < w.size(); ++n) {
      std::vector<uint32_t> cut(w.begin(), w.begin() + static_cast<ptrdiff_t>(n));
      EXPECT_FALSE(read_tosa_graph(cut).ok()) << tosa_op_name(op) << " truncated at word " << n;
    }
  }
}

TEST(SpirvMalformed, RandomCorruptionsAreSafe) {
  std::mt19937 rng(77);
  size_t rejected = 0;
  for (TosaOp op : supported_tosa_ops()) {
    const auto w = module_for(op);
    for (int round = 0; round < 150; ++round) {
      auto bad = w;
      const size_t at = 5 + rng() % (bad.size() - 5);
      switch (rng() % 4) {
        case 0:
          bad[at] = rng();
          break;
        case 1:
          bad[at] ^= 1u << (rng() % 32);
          break;
        case 2:
          bad[at] = rng() % 64;
          break;
        default:
          bad[at] = (bad[at] & 0xffff) | ((rng() % 8) << 16);
          break;  // word count
      }
      auto r = read_tosa_graph(bad);
      if (!r.ok()) {
        ++rejected;
        continue;
      }
      // Whatever is accepted is a consistent graph: every id in range.
      for (const TosaOperation& o : r->operations) {
        for (ValueId v : o.inputs) EXPECT_LT(v, r->values.size());
      }
      for (const GraphBinding& b : r->outputs) EXPECT_LT(b.value, r->values.size());
    }
  }
  EXPECT_GT(rejected, 0u);
}

}  // namespace
}  // namespace univk::spirv
