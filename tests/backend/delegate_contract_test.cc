// The backend contract's shared input check (univk/backend/delegate.h): the one rule the Method
// and every delegate's execute() apply to their inputs, with one wording.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "univk/backend/delegate.h"
#include "univk_test.h"

namespace univk::backend {
namespace {

const std::vector<TensorInfo> kExpected = {{DType::kFloat32, Shape{2, 3}}, {DType::kInt8, Shape{}}};

std::vector<HostTensor> matching() {
  std::vector<HostTensor> inputs;
  inputs.emplace_back(DType::kFloat32, Shape{2, 3});
  inputs.emplace_back(DType::kInt8, Shape{});
  return inputs;
}

TEST(CheckInputs, AcceptsTensorsOfTheDeclaredTypes) {
  UNIVK_EXPECT_OK(check_inputs(matching(), kExpected));
  UNIVK_EXPECT_OK(check_inputs({}, {}));
  // An empty tensor holds zero bytes, as declared.
  const HostTensor empty(DType::kFloat32, Shape{0, 3});
  UNIVK_EXPECT_OK(check_input(0, empty, {DType::kFloat32, Shape{0, 3}}));
}

TEST(CheckInputs, CountComesFirst) {
  std::vector<HostTensor> one = matching();
  one.pop_back();
  Status s = check_inputs(one, kExpected);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "takes 2 inputs, got 1");
  // Delegates add their context.
  EXPECT_EQ(s.with_context("VgfBackend execute").message(), "VgfBackend execute: takes 2 inputs, got 1");
}

TEST(CheckInputs, DtypeAndShapeNameTheInput) {
  std::vector<HostTensor> inputs = matching();
  inputs[1] = HostTensor(DType::kUint8, Shape{});
  Status s = check_inputs(inputs, kExpected);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "input 1: expected int8[], got uint8[]");

  inputs = matching();
  inputs[0] = HostTensor(DType::kFloat32, Shape{3, 2});  // same element count, other shape
  s = check_inputs(inputs, kExpected);
  EXPECT_EQ(s.message(), "input 0: expected float32[2,3], got float32[3,2]");
}

TEST(CheckInputs, ATensorWithoutBytesIsRejected) {
  // A default tensor is a float32 scalar that holds no bytes.
  const HostTensor none;
  Status s = check_input(3, none, {DType::kFloat32, Shape{}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "input 3: expected float32[] (4 bytes), got float32[] holding 0 bytes");
}

}  // namespace
}  // namespace univk::backend
