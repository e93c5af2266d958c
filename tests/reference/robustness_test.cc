// Every operator on hostile inputs (no inputs, scalars, empty tensors, wrong dtypes, odd
// attributes): errors or valid results, never a crash (run under ASan/UBSan in CI).
#include "test_util.h"

namespace univk::reference::testing {
namespace {

std::vector<std::vector<HostTensor>> hostile_inputs() {
  return {
      {HostTensor(DType::kFloat32, Shape{})},
      {HostTensor(DType::kFloat32, Shape{0})},
      {HostTensor(DType::kFloat32, Shape{2, 0, 3})},
      {random_tensor({1, 2, 3, 4}, 1)},
      {random_tensor({1, 2, 3, 4}, 1), random_tensor({5}, 2)},
      {random_tensor({2, 2, 2, 2}, 1), random_tensor({2, 2, 2, 2}, 2), random_tensor({2}, 3)},
      {typed<int8_t>(DType::kInt8, {1, 2, 2, 1}, {1, 2, 3, 4})},
      {typed<int8_t>(DType::kInt8, {1, 2, 2, 1}, {1, 2, 3, 4}), typed<int8_t>(DType::kInt8, {1, 1, 1, 1}, {1})},
      {HostTensor(DType::kInt64, Shape{3})},
  };
}

std::vector<Attributes> hostile_attrs() {
  return {
      {},
      attrs({{"kernel_size", I{-1, 0}}, {"stride", I{0}}, {"dim", int64_t{-99}}, {"kernel", I{0, 0}}}),
      attrs({{"kernel_size", int64_t{1}},
             {"kernel", I{1, 1}},
             {"stride", I{1, 1}},
             {"dim", int64_t{0}},
             {"axis", int64_t{0}},
             {"shape", I{-1}},
             {"perms", I{0}},
             {"dims", I{0}},
             {"output_size", int64_t{1}},
             {"normalized_shape", I{1}},
             {"start", I{0}},
             {"size", I{1}},
             {"padding", I{0, 0}},
             {"multiples", I{1}},
             {"output_type", std::string("int8")},
             {"multiplier", I{1}},
             {"shift", I{2}},
             {"dim0", int64_t{0}},
             {"dim1", int64_t{0}},
             {"min_val", int64_t{0}},
             {"max_val", int64_t{1}},
             {"other", 2.0}}),
      attrs({{"kernel_size", std::string("x")},
             {"dim", std::vector<double>{1.5}},
             {"shape", I{1, 2, 3, 4, 5}},
             {"axis", int64_t{7}},
             {"perms", I{0, 0, 0, 0}},
             {"multiplier", I{-5}},
             {"shift", I{99}},
             {"output_type", std::string("nope")},
             {"padding", I{-3, -3}}}),
  };
}

TEST(Robustness, EveryOpRejectsNoInputs) {
  for (const std::string& op : supported_ops()) {
    EXPECT_FALSE(run_op(op, {}, {}).ok()) << op;
  }
  for (const std::string& op : supported_tosa_ops()) {
    EXPECT_FALSE(run_tosa(op, {}, {}).ok()) << op;
  }
}

TEST(Robustness, HostileInputsGiveErrorsOrValidResults) {
  size_t errors = 0;
  for (const auto& inputs : hostile_inputs()) {
    for (const Attributes& a : hostile_attrs()) {
      for (const std::string& op : supported_ops()) {
        auto r = run_op(op, a, inputs);
        if (r.ok()) {
          EXPECT_EQ(r->size(), 1u) << op;
        } else {
          ++errors;
          EXPECT_NE(r.status().message().find(op), std::string::npos) << r.status().to_string();
        }
      }
      for (const std::string& op : supported_tosa_ops()) {
        auto r = run_tosa(op, a, inputs);
        if (r.ok()) {
          EXPECT_EQ(r->size(), op == "FFT2D" || op == "RFFT2D" ? 2u : 1u) << op;
        } else {
          ++errors;
          EXPECT_NE(r.status().message().find(op), std::string::npos) << r.status().to_string();
        }
      }
    }
  }
  EXPECT_GT(errors, 0u);
}

TEST(Robustness, HugeOutputsAreRejectedBeforeAllocation) {
  const int64_t big = int64_t{1} << 40;
  HostTensor x = random_tensor({1, 2, 2, 1}, 1);
  EXPECT_FALSE(run_tosa("TILE", attrs({{"multiples", I{big, big, 1, 1}}}), std::vector<HostTensor>{x}).ok());
  EXPECT_FALSE(run_tosa("PAD", attrs({{"padding", I{0, big, 0, 0, 0, 0, 0, 0}}}), std::vector<HostTensor>{x}).ok());
  EXPECT_FALSE(run_tosa("CONV2D", attrs({{"pad", I{big, big, 0, 0}}}),
                        std::vector<HostTensor>{x, random_tensor({1, 1, 1, 1}, 2)})
                   .ok());
  HostTensor n = random_tensor({1, 1, 2, 2}, 3);
  EXPECT_FALSE(
      run_op("conv2d", attrs({{"padding", big}}), std::vector<HostTensor>{n, random_tensor({1, 1, 1, 1}, 4)}).ok());
  EXPECT_FALSE(run_op("adaptive_avg_pool2d", attrs({{"output_size", big}}), std::vector<HostTensor>{n}).ok());
}

}  // namespace
}  // namespace univk::reference::testing
