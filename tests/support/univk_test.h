// Helpers shared by every univk test: status assertions, the one seeded random tensor
// generator and the one tensor comparator.
//
//   UNIVK_ASSERT_OK(program->load_method("forward"));      // Status or Result<T>
//   UNIVK_EXPECT_OK(method->execute(inputs)) << "seed " << seed;
//   UNIVK_ASSIGN_OR_FAIL(auto method, program->load_method("forward"));
//   HostTensor x = univk::testing::random_tensor(DType::kFloat32, Shape{2, 3, 7}, /*seed=*/1);
//   EXPECT_TRUE(univk::testing::tensors_close(got, want, {1e-5, 1e-4}));
//
// A failed status assertion prints the expression and the status ("InvalidArgument: ...").
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "univk/base/status.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/dtype.h"
#include "univk/tensor/tensor.h"

namespace univk::testing {

inline const Status& status_of(const Status& status) { return status; }
template <typename T>
const Status& status_of(const Result<T>& result) {
  return result.status();
}

// Predicate formatter of UNIVK_ASSERT_OK / UNIVK_EXPECT_OK.
template <typename T>
::testing::AssertionResult IsOk(const char* expression, const T& status_or_result) {
  const Status& status = status_of(status_or_result);
  if (status.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << expression << " is " << status.to_string();
}

// ---------------------------------------------------------------------------------------------
// Random tensors. One generator for every test: std::mt19937(seed), values uniform in [lo, hi]
// (floats: [lo, hi); integers: every integer in [lo, hi], clamped to the dtype's range; bool:
// 0 or 1; fp16: the fp32 value rounded to half). The same seed, shape and range give the same
// tensor on every machine.

struct ValueRange {
  double lo = -2.0;
  double hi = 2.0;
};

// [-2, 2) for floats; the whole range for 8- and 16-bit integers; [-1000, 1000] for int32/int64.
inline ValueRange default_range(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return {-128, 127};
    case DType::kUint8:
      return {0, 255};
    case DType::kInt16:
      return {-32768, 32767};
    case DType::kInt32:
    case DType::kInt64:
      return {-1000, 1000};
    case DType::kBool:
      return {0, 1};
    default:
      return {-2.0, 2.0};
  }
}

inline HostTensor random_tensor(DType dtype, const Shape& shape, uint32_t seed, ValueRange range) {
  HostTensor t(dtype, shape);
  std::mt19937 rng(seed);
  auto ints = [&](auto* out, double type_lo, double type_hi) {
    using T = std::remove_pointer_t<decltype(out)>;
    std::uniform_int_distribution<int64_t> d(static_cast<int64_t>(std::max(std::ceil(range.lo), type_lo)),
                                             static_cast<int64_t>(std::min(std::floor(range.hi), type_hi)));
    for (T& x : t.data<T>()) x = static_cast<T>(d(rng));
  };
  switch (dtype) {
    case DType::kFloat32: {
      std::uniform_real_distribution<float> d(static_cast<float>(range.lo), static_cast<float>(range.hi));
      for (float& x : t.data<float>()) x = d(rng);
      break;
    }
    case DType::kFloat16: {
      std::uniform_real_distribution<float> d(static_cast<float>(range.lo), static_cast<float>(range.hi));
      for (uint16_t& x : t.data<uint16_t>()) x = float_to_half(d(rng));
      break;
    }
    case DType::kInt8:
      ints(static_cast<int8_t*>(nullptr), -128, 127);
      break;
    case DType::kUint8:
      ints(static_cast<uint8_t*>(nullptr), 0, 255);
      break;
    case DType::kBool:
      ints(static_cast<uint8_t*>(nullptr), 0, 1);
      break;
    case DType::kInt16:
      ints(static_cast<int16_t*>(nullptr), -32768, 32767);
      break;
    case DType::kInt32:
      ints(static_cast<int32_t*>(nullptr), -2147483648.0, 2147483647.0);
      break;
    case DType::kInt64:
      ints(static_cast<int64_t*>(nullptr), -9.2e18, 9.2e18);
      break;
  }
  return t;
}

inline HostTensor random_tensor(DType dtype, const Shape& shape, uint32_t seed) {
  return random_tensor(dtype, shape, seed, default_range(dtype));
}
inline HostTensor random_tensor(DType dtype, const Shape& shape, uint32_t seed, double lo, double hi) {
  return random_tensor(dtype, shape, seed, ValueRange{lo, hi});
}

// Operator attributes from a list: attrs({{"stride", std::vector<int64_t>{2, 2}}, {"ceil_mode", int64_t{1}}}).
inline Attributes attrs(std::initializer_list<std::pair<std::string, AttrValue>> values) {
  Attributes a;
  for (const auto& [name, value] : values) a.set(name, value);
  return a;
}

// ---------------------------------------------------------------------------------------------
// Comparison. Floating-point dtypes (fp32, fp16): |got - want| <= atol + rtol * |want| for
// every element, NaN matches only NaN and an infinity only itself. Integer and bool dtypes must
// match exactly (the tolerance is ignored). dtype and shape must be equal.

struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

namespace detail {

inline std::string index_string(const Shape& shape, size_t flat) {
  std::vector<int64_t> index(shape.rank());
  for (size_t d = shape.rank(); d-- > 0;) {
    index[d] = static_cast<int64_t>(flat) % shape[d];
    flat /= static_cast<size_t>(shape[d]);
  }
  std::ostringstream s;
  s << "[";
  for (size_t d = 0; d < index.size(); ++d) s << (d ? "," : "") << index[d];
  s << "]";
  return s.str();
}

}  // namespace detail

inline ::testing::AssertionResult tensors_close(const HostTensor& got, const HostTensor& want, Tolerance tol = {}) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    return ::testing::AssertionFailure() << "got " << got.describe() << ", want " << want.describe();
  }
  const bool is_float = want.dtype() == DType::kFloat32 || want.dtype() == DType::kFloat16;
  const size_t n = static_cast<size_t>(want.numel());
  size_t bad = 0, nan_mismatches = 0, worst = 0;
  double worst_excess = -1.0;
  for (size_t i = 0; i < n; ++i) {
    const double g = got.element_as_double(i);
    const double w = want.element_as_double(i);
    double excess = 0.0;  // how far beyond the allowed error; NaN/inf mismatches rank first
    if (!is_float) {
      if (g == w) continue;
      excess = std::fabs(g - w);
    } else if (std::isnan(w) || std::isnan(g)) {
      if (std::isnan(w) && std::isnan(g)) continue;
      ++nan_mismatches;
      excess = INFINITY;
    } else if (std::isinf(w) || std::isinf(g)) {
      if (g == w) continue;
      excess = INFINITY;
    } else {
      const double allowed = tol.atol + tol.rtol * std::fabs(w);
      const double err = std::fabs(g - w);
      if (err <= allowed) continue;
      excess = err - allowed;
    }
    if (bad++ == 0 || excess > worst_excess) worst_excess = excess, worst = i;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  const double g = got.element_as_double(worst);
  const double w = want.element_as_double(worst);
  std::ostringstream m;
  m << std::setprecision(9) << bad << " of " << n << " elements of " << want.describe() << " differ";
  if (nan_mismatches) m << " (" << nan_mismatches << " NaN mismatches)";
  m << "; worst at " << worst << " " << detail::index_string(want.shape(), worst) << ": got " << g << ", want " << w;
  if (is_float) {
    m << ", |diff| " << std::fabs(g - w) << " > " << tol.atol + tol.rtol * std::fabs(w) << " (atol " << tol.atol
      << ", rtol " << tol.rtol << ")";
  } else {
    m << " (exact)";
  }
  return ::testing::AssertionFailure() << m.str();
}

}  // namespace univk::testing

// Assert/expect that a Status or Result<T> is ok; on failure print the expression and status.
// Accept `<< more context` like every gtest assertion.
#define UNIVK_ASSERT_OK(expr) ASSERT_PRED_FORMAT1(::univk::testing::IsOk, expr)
#define UNIVK_EXPECT_OK(expr) EXPECT_PRED_FORMAT1(::univk::testing::IsOk, expr)

// `UNIVK_ASSIGN_OR_FAIL(auto x, make_x());` declares x from an ok Result or fails the test
// (ASSERT: returns from the enclosing void function) printing the expression and the status.
#define UNIVK_ASSIGN_OR_FAIL(lhs, expr) \
  UNIVK_ASSIGN_OR_FAIL_IMPL_(UNIVK_CONCAT_(univk_assign_or_fail_, __LINE__), lhs, expr)
#define UNIVK_ASSIGN_OR_FAIL_IMPL_(tmp, lhs, expr)                                          \
  auto tmp = (expr);                                                                        \
  ASSERT_TRUE(tmp.ok()) << #expr << " is " << ::univk::testing::status_of(tmp).to_string(); \
  lhs = std::move(tmp).value()
