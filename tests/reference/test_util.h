// Helpers shared by the reference kernel tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "univk/reference/kernels.h"
#include "univk_test.h"

namespace univk::reference::testing {

inline HostTensor tensor(Shape shape, std::vector<float> values) {
  return HostTensor::from_floats(std::move(shape), values);
}

template <typename T>
HostTensor typed(DType dtype, Shape shape, std::vector<T> values) {
  HostTensor t(dtype, std::move(shape));
  auto d = t.data<T>();
  for (size_t i = 0; i < values.size() && i < d.size(); ++i) d[i] = values[i];
  return t;
}

// fp32 in [-2, 2) from the shared generator (tests/support/univk_test.h).
inline HostTensor random_tensor(Shape shape, uint32_t seed) {
  return ::univk::testing::random_tensor(DType::kFloat32, shape, seed);
}

// Runs a single-output op; fails the test (and returns an empty tensor) on error.
inline HostTensor run1(std::string_view op, const Attributes& attrs, std::vector<HostTensor> inputs) {
  auto r = run_op(op, attrs, inputs);
  UNIVK_EXPECT_OK(r);
  if (!r.ok() || r->size() != 1) return HostTensor();
  return std::move((*r)[0]);
}

inline HostTensor tosa1(std::string_view op, const Attributes& attrs, std::vector<HostTensor> inputs) {
  auto r = run_tosa(op, attrs, inputs);
  UNIVK_EXPECT_OK(r);
  if (!r.ok() || r->size() != 1) return HostTensor();
  return std::move((*r)[0]);
}

inline std::vector<float> values(const HostTensor& t) {
  auto d = t.data<float>();
  return {d.begin(), d.end()};
}

template <typename T>
std::vector<T> typed_values(const HostTensor& t) {
  auto d = t.data<T>();
  return {d.begin(), d.end()};
}

// |got - want| <= tol * (1 + |want|), through the shared comparator.
inline void expect_near(const HostTensor& got, const HostTensor& want, float tol) {
  EXPECT_TRUE(::univk::testing::tensors_close(got, want, {tol, tol}));
}

using ::univk::testing::attrs;

using I = std::vector<int64_t>;

}  // namespace univk::reference::testing
