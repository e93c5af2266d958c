// gemm_f32 against the reference matmul: every tiling, odd sizes, transposed and broadcast
// operands, batches, and each epilogue (bias, residual, activations); split-K the same way,
// each recording run twice (the second over the first's partial tiles); the planner's tiling and
// split-K choices.
#include <gtest/gtest.h>

#include <cmath>

#include "fp16_rounding.h"
#include "kernel_runner.h"
#include "univk/kernels/gemm.h"
#include "univk/reference/kernels.h"
#include "univk_test.h"

namespace univk::kernels {
namespace {

using univk::testing::random_tensor;

struct GemmCase {
  int64_t batch, m, n, k;
  bool transpose_a = false, transpose_b = false, broadcast_b = false;
  // Operand offsets multiples of 4 (A at 4, not 3), so vectorised tilings may load vectors;
  // then the FLAGS vector bits (kFlagVecA 64, kFlagVecB 128) a vectorised tiling must get.
  bool aligned = false;
  uint32_t vec_flags = 0;
};

// FLAGS (specialization constant 7) of a dispatch.
uint32_t flags_of(const KernelDispatch& d) {
  for (auto [id, value] : d.specialization) {
    if (id == 7) return value;
  }
  return 0;
}

// Stores logical [batch][rows][cols] `t` with (batch, row, col) strides `s` into a new buffer.
std::vector<float> store(const HostTensor& t, int64_t batch, int64_t rows, int64_t cols, const MatrixOperand& s) {
  int64_t size = 0;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) size = std::max(size, b * s.batch + r * s.row + c * s.col + 1);
    }
  }
  std::vector<float> out(static_cast<size_t>(size + s.offset), 0.0f);
  const float* v = t.data<float>().data();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        out[s.offset + b * s.batch + r * s.row + c * s.col] = v[(b * rows + r) * cols + c];
      }
    }
  }
  return out;
}

// The reference's result of a PyTorch op on fp32 tensors.
HostTensor reference(std::string_view op, std::vector<HostTensor> inputs, const Attributes& attrs = {}) {
  auto out = reference::run_op(op, attrs, inputs);
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  return out.ok() ? std::move((*out)[0]) : HostTensor();
}

// With `split_k` forced (0: the planner's choice), the recording submitted `runs` times, the
// device's workgroup count limit on y lowered to `max_groups_y` when nonzero, and `precision`
// (fp16: the reference multiplies the operands rounded to fp16).
void expect_gemm(const GemmCase& c, const Tiling& tiling, const Epilogue& epilogue, uint32_t seed, uint32_t split_k = 0,
                 int runs = 1, uint32_t max_groups_y = 0, Precision precision = Precision::kFp32) {
  const auto device = testing::test_device();
  ASSERT_NE(device, nullptr);
  const HostTensor a = random_tensor(DType::kFloat32, Shape{c.batch, c.m, c.k}, seed);
  const int64_t b_batch = c.broadcast_b ? 1 : c.batch;
  const HostTensor b = random_tensor(DType::kFloat32, Shape{b_batch, c.k, c.n}, seed + 1);
  const HostTensor bias = random_tensor(DType::kFloat32, Shape{c.n}, seed + 2);
  const HostTensor residual = random_tensor(DType::kFloat32, Shape{c.batch, c.m, c.n}, seed + 3);

  GemmProblem p;
  p.batch = c.batch, p.m = c.m, p.n = c.n, p.k = c.k;
  const uint64_t a_offset = c.aligned ? 4 : 3;
  p.a = c.transpose_a ? MatrixOperand{a_offset, c.m * c.k, 1, c.m} : MatrixOperand{a_offset, c.m * c.k, c.k, 1};
  p.b = c.transpose_b ? MatrixOperand{0, c.k * c.n, 1, c.k} : MatrixOperand{0, c.k * c.n, c.n, 1};
  if (c.broadcast_b) p.b.batch = 0;
  p.bias = {0, 0, 0, 1};
  // 4-aligned outputs (aligned cases) take the vectorised core's 16-byte stores where N allows.
  const uint64_t out_offset = c.aligned ? 4 : 1;
  p.out = {out_offset, c.m * c.n, c.n, 1};
  p.residual_offset = 0;
  p.alpha = 0.5f;
  p.beta = 2.0f;
  p.epilogue = epilogue;
  p.split_k = split_k;
  DeviceTraits traits = device_traits(*device, precision);
  if (max_groups_y != 0) traits.max_group_count[1] = max_groups_y;
  auto dispatch = plan_gemm(p, traits, tiling);
  ASSERT_TRUE(dispatch.ok()) << dispatch.status().to_string();
  EXPECT_LE(dispatch->groups[1], traits.max_group_count[1]);
  // A forced split holds when K has the slices for it; the older cooperative-matrix core never
  // splits (tiling.cc).
  if (split_k > 1 && c.k > int64_t{tiling.bk}) {
    EXPECT_EQ(dispatch->splits > 1u, !tiling.coopmat || tiling.vec);
    EXPECT_EQ(dispatch->scratch_bytes > 0u, !tiling.coopmat || tiling.vec);
  }
  if (split_k == 1) {
    EXPECT_EQ(dispatch->splits, 1u);
  }
  if (tiling.skinny) {
    EXPECT_EQ(dispatch->kernel, Kernel::kGemmSkinnyF32);
    EXPECT_EQ(flags_of(*dispatch) & 192u, c.vec_flags) << "m " << c.m << " n " << c.n << " k " << c.k;
  }
  if (tiling.vec) {
    const Kernel vec_kernel = tiling.tm == 8 && tiling.tn == 8 ? Kernel::kGemmVec8F32 : Kernel::kGemmVecF32;
    EXPECT_EQ(dispatch->kernel, tiling.coopmat ? Kernel::kGemmCoopmatVecF16 : vec_kernel);
    EXPECT_EQ(flags_of(*dispatch) & 192u, c.vec_flags) << "m " << c.m << " n " << c.n << " k " << c.k;
    const bool eight = tiling.tm == 8 && tiling.tn == 8;  // no vector stores in the 8x8 variant
    const bool vec_out =
        !tiling.coopmat && !eight && c.aligned && c.n % 4 == 0 && (c.batch == 1 || (c.m * c.n) % 4 == 0);
    EXPECT_EQ((flags_of(*dispatch) & 512u) != 0, vec_out) << "m " << c.m << " n " << c.n << " k " << c.k;
  }

  const std::vector<std::vector<float>> bindings = {
      store(a, c.batch, c.m, c.k, p.a),
      store(b, b_batch, c.k, c.n, p.b),
      std::vector<float>(bias.data<float>().begin(), bias.data<float>().end()),
      std::vector<float>(static_cast<size_t>(out_offset + c.batch * c.m * c.n), -7.0f),
      std::vector<float>(residual.data<float>().begin(), residual.data<float>().end()),
      {}};
  auto got = testing::run_kernel(device, *dispatch, bindings, runs);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  for (uint64_t i = 0; i < out_offset; ++i) EXPECT_EQ((*got)[i], -7.0f) << "wrote below the output offset";

  // alpha * (A @ B) + beta * bias + residual, from the reference product.
  const bool fp16 = testing::rounds_to_fp16(tiling, precision);
  HostTensor want = reference(
      "matmul", {fp16 ? univk::testing::rounded_to_fp16(a) : a, fp16 ? univk::testing::rounded_to_fp16(b) : b});
  float* w = want.data<float>().data();
  for (int64_t i = 0; i < c.batch * c.m * c.n; ++i) {
    w[i] *= 0.5f;
    if (epilogue.bias) w[i] += 2.0f * bias.data<float>()[i % c.n];
    if (epilogue.residual) w[i] += residual.data<float>()[i];
  }
  switch (epilogue.activation) {
    case Activation::kRelu:
      want = reference("relu", {want});
      break;
    case Activation::kClamp:
      want = reference("clamp", {want},
                       univk::testing::attrs({{"min", double{epilogue.lo}}, {"max", double{epilogue.hi}}}));
      break;
    case Activation::kGeluErf:
      want = reference("gelu", {want});
      break;
    case Activation::kSilu:
      want = reference("silu", {want});
      break;
    default:
      break;
  }
  HostTensor out(DType::kFloat32, want.shape());
  std::copy(got->begin() + int64_t(out_offset), got->end(), out.data<float>().begin());
  // Rounding grows with K (and another summation order): the tolerance with it. Cooperative
  // matrices may add in another order and precision inside a 16-wide step.
  const double atol = (tiling.coopmat ? 1e-4 : 1e-5) * std::max<double>(1.0, double(c.k) / 128);
  EXPECT_TRUE(univk::testing::tensors_close(out, want, {atol, 1e-4}))
      << "batch " << c.batch << " m " << c.m << " n " << c.n << " k " << c.k << " tiling " << tiling.bm << "x"
      << tiling.bn << "x" << tiling.bk << "/" << tiling.tm << "x" << tiling.tn << (tiling.direct ? "d" : "")
      << (tiling.coopmat ? "c" : "") << (tiling.vec ? "v" : "") << (tiling.lean ? "l" : "")
      << (tiling.skinny ? "skinny" : "") << " splits " << dispatch->splits;
}

// The tilings precision=fp16 runs on the test device: the cooperative-matrix ones where it has
// them, else a staged and a direct FMA tiling (operands rounded the same way).
std::vector<Tiling> fp16_tilings() {
  const DeviceTraits traits = device_traits(*testing::test_device(), Precision::kFp16);
  if (traits.cooperative_matrix_f16) return {coopmat_tilings().begin(), coopmat_tilings().end()};
  return {gemm_tilings()[2], gemm_tilings()[5]};
}

const GemmCase kCases[] = {
    {1, 1, 1, 1},
    {1, 7, 13, 5},
    {2, 65, 33, 40},
    {1, 130, 129, 17},
    {3, 19, 70, 33, true, false, false},
    {2, 33, 20, 41, false, true, true},
    {1, 64, 64, 64, true, true, false},
};

TEST(GemmKernel, EveryTilingMatchesTheReference) {
  uint32_t seed = 1;
  for (const Tiling& tiling : gemm_tilings()) {
    for (const GemmCase& c : kCases) expect_gemm(c, tiling, {}, seed += 10);
  }
}

TEST(GemmKernel, Epilogues) {
  const Tiling tiling = gemm_tilings()[2];
  uint32_t seed = 100;
  const Epilogue epilogues[] = {
      {true, false, Activation::kNone},    {true, true, Activation::kRelu},   {false, true, Activation::kClamp, 0, 6},
      {true, false, Activation::kGeluErf}, {false, false, Activation::kSilu},
  };
  for (const Epilogue& e : epilogues) expect_gemm({2, 37, 45, 29}, tiling, e, seed += 10);
}

// Split-K (forced) for every tiling: K odd and not a multiple of splits * BK, batches,
// transposed and broadcast operands; ranges that come out fewer than forced.
const GemmCase kSplitCases[] = {
    {1, 7, 13, 300},                        // 3 ranges of 112, 112, 76 (BK 16)
    {2, 65, 33, 257},                       // 4: 80, 80, 80, 17
    {3, 19, 70, 101, true, false, false},   // 5 asked, 4 of 32 (the last 5)
    {2, 33, 20, 41, false, true, true},     // 16 asked, 3 slices
    {1, 130, 129, 517, true, true, false},  // several tiles per range
};

TEST(GemmKernel, SplitKEveryTilingMatchesTheReference) {
  uint32_t seed = 1000;
  const uint32_t splits[] = {3, 4, 5, 16, 7};
  for (const Tiling& tiling : gemm_tilings()) {
    for (size_t i = 0; i < std::size(kSplitCases); ++i) {
      expect_gemm(kSplitCases[i], tiling, {}, seed += 10, splits[i], /*runs=*/2);
    }
  }
}

TEST(GemmKernel, SplitKEpilogues) {
  uint32_t seed = 2000;
  const Epilogue epilogues[] = {
      {true, false, Activation::kNone},    {true, true, Activation::kRelu},   {false, true, Activation::kClamp, 0, 6},
      {true, false, Activation::kGeluErf}, {false, false, Activation::kSilu},
  };
  for (const Tiling tiling : {gemm_tilings()[2], gemm_tilings()[5]}) {  // staged and direct
    for (const Epilogue& e : epilogues) expect_gemm({2, 37, 45, 293}, tiling, e, seed += 10, 6, /*runs=*/2);
  }
}

// The vectorised core: 16-byte loads where the operands allow them (A along K or, transposed,
// along M; B along N or, transposed, along K), scalar loads where they do not (odd extents or
// offsets), partial tiles, batches and broadcast B.
const GemmCase kVecCases[] = {
    {1, 64, 64, 64, false, false, false, true, 192}, {2, 36, 44, 40, false, false, false, true, 192},
    {3, 20, 68, 36, true, false, false, true, 192},  {2, 32, 20, 40, false, true, true, true, 192},
    {1, 64, 64, 64, true, true, false, true, 192},   {1, 130, 129, 17, false, false, false, true, 0},
    {2, 33, 20, 41, false, true, true, false, 0},    {1, 7, 12, 6, false, false, false, true, 128},
    {1, 9, 20, 36, false, true, false, true, 192},
};

// Every case on an 8x8 tiling (compiled-in sizes), a 4x4 one (specialised sizes) and a lean 8x8
// one, an aligned and an unaligned case on the others (each pipeline costs seconds on lavapipe).
TEST(GemmKernel, VecTilingsMatchTheReference) {
  uint32_t seed = 3000;
  for (const Tiling& tiling : testing::fitting(vec_tilings())) {
    const bool all =
        tiling == vec_tilings()[0] || tiling == vec_tilings()[4] || tiling == vec_tilings()[8] || tiling.direct;
    for (const GemmCase& c : kVecCases) {
      if (all || &c == &kVecCases[1] || &c == &kVecCases[5]) expect_gemm(c, tiling, {}, seed += 10);
    }
  }
}

// The skinny kernel (B transposed: its columns contiguous along K, as a linear layer's weight):
// one to four rows per workgroup and more rows than that, K a multiple of the invocations' pass
// and not, partial column blocks, batches and broadcast B, 16-byte loads where aligned (A at 4)
// and scalar ones where not (A at 3).
const GemmCase kSkinnyCases[] = {
    {1, 1, 37, 512, false, true, false, true, 192}, {1, 3, 20, 260, false, true, false, true, 192},
    {2, 4, 9, 128, false, true, true, true, 192},   {1, 6, 17, 44, false, true, false, true, 192},
    {1, 2, 13, 44, false, true, false, false, 128}, {3, 1, 5, 8, false, true, false, false, 128},
};

TEST(GemmKernel, SkinnyTilingsMatchTheReference) {
  uint32_t seed = 3300;
  for (const Tiling& tiling : testing::fitting(skinny_tilings())) {
    for (const GemmCase& c : kSkinnyCases) expect_gemm(c, tiling, {}, seed += 10);
  }
  const Epilogue epilogues[] = {
      {true, true, Activation::kRelu}, {false, true, Activation::kClamp, 0, 6}, {true, false, Activation::kGeluErf}};
  for (const Epilogue& e : epilogues) expect_gemm(kSkinnyCases[1], skinny_tilings()[0], e, seed += 10);
}

TEST(GemmKernel, VecTilingsSplitKAndEpilogues) {
  uint32_t seed = 3500;
  for (const Tiling& tiling : testing::fitting(vec_tilings())) {
    expect_gemm({2, 36, 44, 296, false, false, false, true, 192}, tiling, {true, true, Activation::kRelu}, seed += 10,
                5, /*runs=*/2);
    // B [n][k]: the direct tilings' vectorised loop, split, its last slice half past K.
    if (tiling.direct) {
      expect_gemm({2, 36, 44, 292, false, true, false, true, 192}, tiling, {true, true, Activation::kRelu}, seed += 10,
                  5, /*runs=*/2);
    }
  }
  expect_gemm({1, 130, 129, 517, true, true, false, false, 0}, vec_tilings()[0], {}, seed += 10, 7, /*runs=*/2);
  const Epilogue epilogues[] = {
      {true, false, Activation::kNone}, {false, true, Activation::kClamp, 0, 6}, {true, false, Activation::kGeluErf}};
  for (const Epilogue& e : epilogues) {
    expect_gemm({2, 36, 44, 40, false, false, false, true, 192}, vec_tilings()[4], e, seed += 10);
  }
  // fp16 operand rounding on the vector and scalar loads.
  for (const GemmCase& c : {kVecCases[1], kVecCases[5]}) {
    expect_gemm(c, vec_tilings()[4], {true}, seed += 10, 0, 1, 0, Precision::kFp16);
  }
}

// The cooperative-matrix core on vectorised loads runs on devices with NV cooperative matrices
// (the H200); elsewhere this test is skipped. One pipeline per tiling for the sizes (aligned,
// row-major operands: 16-byte loads; partial tiles, K not a multiple of the 32-deep slice),
// then, on the 128-row tilings the planner takes (8 subgroups, and 16 where the device allows
// 512 invocations), the other paths: scalar loads (odd sizes and offsets), A loaded along M and
// B along K (transposed), broadcast B, an epilogue.
TEST(GemmKernel, CoopmatVecTilingsMatchTheReference) {
  const auto device = testing::test_device();
  ASSERT_NE(device, nullptr);
  if (!device_traits(*device, Precision::kFp16).cooperative_matrix_f16) {
    GTEST_SKIP() << "the device lacks VK_NV_cooperative_matrix with the 16x16x16 fp16 shape, shaderFloat16, the "
                    "Vulkan memory model or subgroups of 32, which coopmat_vec_tilings() need";
  }
  uint32_t seed = 3700;
  const GemmCase sizes[] = {{1, 64, 64, 64, false, false, false, true, 192},
                            {2, 36, 44, 40, false, false, false, true, 192},
                            {1, 131, 68, 100, false, false, false, true, 192}};
  for (const Tiling& tiling : coopmat_vec_tilings()) {
    for (const GemmCase& c : sizes) expect_gemm(c, tiling, {}, seed += 10, 0, 1, 0, Precision::kFp16);
  }
  const std::vector<Tiling> planned = testing::planned_coopmat_vec_tilings();
  const GemmCase paths[] = {{1, 37, 45, 29},
                            {3, 19, 70, 33, true, false, false},
                            {2, 33, 20, 41, false, true, true},
                            {1, 64, 72, 96, true, true, false, true, 192}};
  for (const Tiling& tiling : planned) {
    for (const GemmCase& c : paths) expect_gemm(c, tiling, {}, seed += 10, 0, 1, 0, Precision::kFp16);
    expect_gemm(sizes[1], tiling, {true, true, Activation::kRelu}, seed += 10, 0, 1, 0, Precision::kFp16);
  }
  // Split-K (forced; the fragments' partial tiles summed by the second pass), each recording
  // submitted twice: every tiling, then batches, transposed operands and an epilogue.
  for (const Tiling& tiling : coopmat_vec_tilings()) {
    expect_gemm({1, 131, 68, 300, false, false, false, true, 192}, tiling, {}, seed += 10, 3, /*runs=*/2, 0,
                Precision::kFp16);
  }
  for (const Tiling& tiling : planned) {
    expect_gemm({3, 19, 70, 101, true, false, false}, tiling, {}, seed += 10, 3, /*runs=*/2, 0, Precision::kFp16);
    expect_gemm({2, 36, 44, 296, false, false, false, true, 192}, tiling, {true, true, Activation::kRelu}, seed += 10,
                5, /*runs=*/2, 0, Precision::kFp16);
  }
}

TEST(GemmPlanner, CoopmatVecTilingsFitTheH200AndSplitWhereForcedOrOnSmallGrids) {
  GemmProblem big;
  big.m = big.n = big.k = 4096;
  big.a = {0, 0, 4096, 1};
  big.b = {0, 0, 4096, 1};
  big.out = {0, 0, 4096, 1};
  DeviceTraits device;
  device.max_shared_bytes = 49152;  // the H200's
  device.max_workgroup_invocations = 1024;
  device.cooperative_matrix_f16 = true;
  device.precision = Precision::kFp16;
  for (const Tiling& tiling : coopmat_vec_tilings()) {
    EXPECT_TRUE(tiling.coopmat && tiling.vec);
    big.split_k = 4;
    auto d = plan_gemm(big, device, tiling);
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    EXPECT_EQ(d->kernel, Kernel::kGemmCoopmatVecF16);
    EXPECT_EQ(d->splits, 4u);
    EXPECT_EQ(d->scratch_bytes, 4096ull * 4096 * 4 * 4);
    big.split_k = 0;
    d = plan_gemm(big, device, tiling);
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    EXPECT_EQ(d->splits, 1u);
    EXPECT_EQ(flags_of(*d) & 192u, 192u);
    EXPECT_EQ(d->groups[0], 4096 / tiling.bn);
    // Not without cooperative matrices.
    DeviceTraits plain = device;
    plain.cooperative_matrix_f16 = false;
    EXPECT_FALSE(tiling_fits(tiling, plain));
    EXPECT_EQ(plan_gemm(big, plain, tiling).status().code(), StatusCode::kUnsupported);
  }
  // Every vectorised tiling fits the H200's 48 KiB too; the 128x128x16 ones not lavapipe's 32.
  for (const Tiling& tiling : vec_tilings()) EXPECT_TRUE(tiling_fits(tiling, device));
  device.max_shared_bytes = 32768;
  EXPECT_FALSE(tiling_fits({128, 128, 16, 8, 4, false, false, true}, device));
  EXPECT_TRUE(tiling_fits({128, 128, 8, 8, 8, false, false, true, true}, device));
}

TEST(GemmPlanner, VecLoadsOnlyWhereAligned) {
  DeviceTraits traits;
  traits.max_shared_bytes = 49152;
  traits.max_workgroup_invocations = 1024;
  GemmProblem p;
  p.m = 64, p.n = 64, p.k = 64;
  p.a = {0, 0, 64, 1};
  p.b = {0, 0, 64, 1};
  p.out = {0, 0, 64, 1};
  auto d = plan_gemm(p, traits, vec_tilings()[0]);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kGemmVec8F32);
  auto four = plan_gemm(p, traits, vec_tilings()[4]);
  ASSERT_TRUE(four.ok());
  EXPECT_EQ(four->kernel, Kernel::kGemmVecF32);
  EXPECT_EQ(flags_of(*d) & 192u, 192u);
  // A backend's binding offset that leaves A unaligned turns A's vectors off, not B's.
  const uint32_t extra[] = {2, 8, 0, 0, 0};
  ASSERT_TRUE(add_binding_offsets(*d, extra).ok());
  EXPECT_EQ(flags_of(*d) & 192u, 128u);
  // Unaligned offset, row stride or extent: scalar loads.
  GemmProblem q = p;
  q.a.offset = 2;
  EXPECT_EQ(flags_of(*plan_gemm(q, traits, vec_tilings()[0])) & 192u, 128u);
  q = p;
  q.b.row = 66;
  EXPECT_EQ(flags_of(*plan_gemm(q, traits, vec_tilings()[0])) & 192u, 64u);
  q = p;
  q.k = 62;
  EXPECT_EQ(flags_of(*plan_gemm(q, traits, vec_tilings()[0])) & 192u, 128u);
  // Other tilings never get the bits; the planner's own choice of a vectorised tiling does.
  d = plan_gemm(p, traits, gemm_tilings()[0]);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(flags_of(*d) & 192u, 0u);
  EXPECT_TRUE(d->vector_access.empty());
  GemmProblem big = p;
  big.m = big.n = big.k = 4096;
  big.a.row = big.b.row = big.out.row = 4096;
  d = plan_gemm(big, traits);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->tiling.vec);
  EXPECT_EQ(flags_of(*d) & 192u, 192u);
}

// A large GPU's limits.
DeviceTraits gpu() {
  DeviceTraits traits;
  traits.max_shared_bytes = 49152;
  traits.max_workgroup_invocations = 1024;
  return traits;
}

TEST(GemmKernel, RowTilesPastTheYLimitFoldIntoX) {
  // 130 rows are 5 row tiles of 32: with at most 2 workgroups on y, x covers 3 rows of column
  // tiles and the one workgroup row past the last tile ends at once. With split-K too.
  const Tiling tiling = {32, 32, 16, 2, 2};
  expect_gemm({2, 130, 70, 40}, tiling, {true, true, Activation::kRelu}, 71, 1, 1, 2);
  expect_gemm({1, 130, 33, 600}, tiling, {true, false, Activation::kNone}, 72, 3, 2, 2);
}

TEST(GemmKernel, Fp16RoundsOperandsAndAccumulatesInFp32) {
  ASSERT_NE(testing::test_device(), nullptr);
  uint32_t seed = 800;
  for (const Tiling& tiling : fp16_tilings()) {
    for (const GemmCase& c : {kCases[1], kCases[3], kCases[5]}) {
      expect_gemm(c, tiling, {true}, seed += 10, 0, 1, 0, Precision::kFp16);
    }
    expect_gemm({1, 130, 129, 300}, tiling, {true, true, Activation::kRelu}, seed += 10, 3, 2, 0, Precision::kFp16);
  }
}

TEST(GemmKernel, Fp16IsNotFp32) {
  // 1 + 2^-12 is between two fp16 values and rounds to 1: the product shows whether the
  // kernel rounded its operands.
  const auto device = testing::test_device();
  ASSERT_NE(device, nullptr);
  for (Precision precision : {Precision::kFp32, Precision::kFp16}) {
    GemmProblem p;
    p.m = p.n = 1, p.k = 16;
    p.a = {0, 0, 16, 1};
    p.b = {0, 0, 1, 1};
    p.out = {0, 0, 1, 1};
    auto dispatch = plan_gemm(p, device_traits(*device, precision));
    ASSERT_TRUE(dispatch.ok()) << dispatch.status().to_string();
    std::vector<float> a(16, 0.0f), b(16, 0.0f);
    a[0] = 1.0f + 1.0f / 4096, b[0] = 1.0f;
    auto got = testing::run_kernel(device, *dispatch, {a, b, {}, {0.0f}, {}, {}});
    ASSERT_TRUE(got.ok()) << got.status().to_string();
    // With cooperative matrices this small problem runs on the FMA kernel in fp32 (tiling.cc).
    const bool rounded = precision == Precision::kFp16 && !device_traits(*device, precision).cooperative_matrix_f16;
    EXPECT_EQ((*got)[0], rounded ? 1.0f : a[0]);
  }
}

TEST(GemmPlanner, Fp16TakesCooperativeMatricesWhereTheDeviceHasThem) {
  GemmProblem big;
  big.m = big.n = big.k = 4096;
  big.a = {0, 0, 4096, 1};
  big.b = {0, 0, 4096, 1};
  big.out = {0, 0, 4096, 1};
  DeviceTraits device;
  device.max_shared_bytes = 49152;
  device.max_workgroup_invocations = 1024;
  device.cooperative_matrix_f16 = true;
  // fp32 (the default) never takes them: the vectorised 8x8 FMA core.
  auto d = plan_gemm(big, device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kGemmVec8F32);
  device.precision = Precision::kFp16;
  d = plan_gemm(big, device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kGemmCoopmatVecF16);
  // 1024 tiles of 128x128: slices of 16 (two workgroups per SM).
  EXPECT_EQ(d->tiling, coopmat_vec_tilings()[7]);
  // 64 output columns take the 128x64 tile (256 of them along M fill the GPU) as 16 subgroups;
  // as 8 where the device allows 256 invocations per workgroup.
  GemmProblem narrow = big;
  narrow.m = 256 * 128, narrow.n = 64;
  narrow.b.row = 64, narrow.out.row = 64;
  d = plan_gemm(narrow, device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kGemmCoopmatVecF16);
  EXPECT_EQ(d->tiling, coopmat_vec_tilings()[11]);
  DeviceTraits small = device;
  small.max_workgroup_invocations = 256;
  d = plan_gemm(narrow, small);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, coopmat_vec_tilings()[2]);
  // With 16 KiB of shared memory no cooperative-matrix tiling fits (20 KiB and more): the FMA
  // kernel runs (its 128x64 8x8 tiling, 12.5 KiB), in fp32 on this device with cooperative
  // matrices; without them, operands rounded (flag 32 of constant 7).
  auto rounded = [](const KernelDispatch& dispatch) {
    bool flag = false;
    for (auto [id, value] : dispatch.specialization) flag |= id == 7 && (value & 32u) != 0;
    return flag;
  };
  device.max_shared_bytes = 16384;
  d = plan_gemm(big, device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kGemmVec8F32);
  EXPECT_EQ(d->tiling, vec_tilings()[1]);
  EXPECT_FALSE(rounded(*d));
  device.max_shared_bytes = 49152;
  device.cooperative_matrix_f16 = false;
  d = plan_gemm(big, device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kGemmVec8F32);
  EXPECT_TRUE(rounded(*d));
  // A cooperative-matrix tiling forced on a device without them does not fit.
  EXPECT_EQ(plan_gemm(big, device, coopmat_tilings()[0]).status().code(), StatusCode::kUnsupported);

  // Problems too small for them (under 32 tiles of 128x64), or with K under 256, keep the FMA
  // kernel (fp32 on this device) and its split-K: a batch-1 linear layer, a short-K GEMM.
  GemmProblem linear;
  linear.m = 1, linear.n = 1000, linear.k = 1280;
  linear.a = {0, 0, 1280, 1};
  linear.b = {0, 0, 1, 1280};
  linear.out = {0, 0, 1000, 1};
  device.cooperative_matrix_f16 = true;
  d = plan_gemm(linear, device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kGemmF32);
  EXPECT_GT(d->splits, 1u);
  GemmProblem short_k = big;
  short_k.k = 192;
  d = plan_gemm(short_k, device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kGemmF32);
  short_k.k = 256;
  d = plan_gemm(short_k, device);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kGemmCoopmatVecF16);
  // A cooperative-matrix tiling (forced) never splits K, even when a split is forced too.
  for (uint32_t forced : {0u, 4u}) {
    linear.split_k = forced;
    d = plan_gemm(linear, device, coopmat_tilings()[0]);
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    EXPECT_EQ(d->kernel, Kernel::kGemmCoopmatF16);
    EXPECT_EQ(d->splits, 1u) << "forced " << forced;
    EXPECT_EQ(d->scratch_bytes, 0u);
  }
}

TEST(GemmPlanner, PicksSmallerTilesForSmallProblemsAndChecksLimits) {
  GemmProblem big;
  big.m = big.n = big.k = 4096;
  big.a = {0, 0, 4096, 1};
  big.b = {0, 0, 4096, 1};
  big.out = {0, 0, 4096, 1};
  auto d = plan_gemm(big, gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, vec_tilings()[0]);  // 128x128 8x8: 1024 workgroups
  EXPECT_EQ(d->flops, 2ull * 4096 * 4096 * 4096);

  GemmProblem small = big;
  small.m = 1, small.n = 1000, small.k = 1280;
  small.a.row = 1280, small.b.row = 1000, small.out.row = 1000;
  d = plan_gemm(small, gpu());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->tiling, gemm_tilings()[3]);  // the most workgroups of those that fit

  DeviceTraits minimal;  // the spec's minimum limits: the 128-invocation 8x8 tiling
  d = plan_gemm(big, minimal);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->tiling, vec_tilings()[1]);
  // A short K keeps the scalar tilings; there only the 128-invocation one fits.
  GemmProblem short_k = big;
  short_k.k = 256;
  d = plan_gemm(short_k, minimal);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->tiling, gemm_tilings()[4]);

  GemmProblem huge = big;
  huge.m = 70000, huge.k = 70000;
  huge.a.row = 70000;
  const Status status = plan_gemm(huge, gpu()).status();
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("gemm A"), std::string::npos) << status.to_string();

  EXPECT_EQ(plan_gemm(big, gpu(), Tiling{48, 48, 8, 3, 3}).status().code(), StatusCode::kInvalidArgument);

  // Row tiles past the y limit fold into x; past both limits, an error naming them.
  GemmProblem tall = big;
  tall.m = 65535 * 32 + 1, tall.n = 32, tall.k = 16;
  tall.a.row = 16, tall.b.row = 32, tall.out.row = 32;
  const Tiling rows32 = gemm_tilings()[3];
  d = plan_gemm(tall, gpu(), rows32);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->groups[0], 2u);
  EXPECT_EQ(d->groups[1], 32768u);
  DeviceTraits narrow = gpu();
  narrow.max_group_count[0] = 1;
  const Status folded = plan_gemm(tall, narrow, rows32).status();
  EXPECT_EQ(folded.code(), StatusCode::kUnsupported);
  EXPECT_NE(folded.message().find("output tiles exceed"), std::string::npos) << folded.to_string();
}

GemmProblem row_major(int64_t m, int64_t n, int64_t k) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.a = {0, 0, k, 1};
  p.b = {0, 0, n, 1};
  p.out = {0, 0, n, 1};
  return p;
}

TEST(GemmPlanner, SplitsKWhenTheGridIsSmallAndKLong) {
  // Linear 1x1280 -> 1000: 32 tiles of 32x32; ranges of >= 256 allow 5.
  const GemmProblem linear = row_major(1, 1000, 1280);
  auto d = plan_gemm(linear, gpu());
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, gemm_tilings()[3]);
  EXPECT_EQ(d->splits, 5u);
  EXPECT_EQ(d->groups, (std::array<uint32_t, 3>{32, 1, 5}));
  EXPECT_EQ(d->scratch_bytes, 32u * 5 * 32 * 32 * 4);
  EXPECT_NE(d->used_bindings & 0b100000u, 0u);
  EXPECT_EQ(d->flops, 2ull * 1000 * 1280);

  // Batches multiply the grid's z; the device's z limit caps the ranges.
  GemmProblem batched = linear;
  batched.batch = 3;
  d = plan_gemm(batched, gpu());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->groups[2], 3 * d->splits);
  DeviceTraits low_z = gpu();
  low_z.max_group_count[2] = 7;
  d = plan_gemm(batched, low_z);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->splits, 2u);
  EXPECT_EQ(d->groups[2], 6u);

  // No split: CPU implementations, large grids, short K, forced 1.
  DeviceTraits cpu = gpu();
  cpu.cpu = true;
  d = plan_gemm(linear, cpu);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->splits, 1u);
  EXPECT_EQ(d->scratch_bytes, 0u);
  EXPECT_EQ(d->used_bindings & 0b100000u, 0u);
  // B walks N here, so no direct vectorised loads (CpuImplementationsWeighTheDirectTilings).
  // One row: the vectorised core's 8-row direct tiling (the scalar one where it does not fit);
  // more rows: the 8x8 vectorised ones, 64x64x16 below 128 rows, 128x64x8 from 128; the
  // direct one where those do not fit.
  EXPECT_EQ(d->tiling, (Tiling{8, 128, 16, 4, 4, true, false, true}));
  EXPECT_TRUE(d->tiling.direct);
  auto rows = plan_gemm(row_major(9, 1000, 1280), cpu);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->tiling, vec_tilings()[3]);
  EXPECT_EQ(rows->kernel, Kernel::kGemmVec8F32);
  rows = plan_gemm(row_major(128, 1000, 1280), cpu);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->tiling, vec_tilings()[1]);
  DeviceTraits small_cpu = cpu;
  small_cpu.max_shared_bytes = 16384;
  rows = plan_gemm(row_major(9, 1000, 1280), small_cpu);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->tiling, gemm_tilings()[5]);
  rows = plan_gemm(linear, small_cpu);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->tiling, gemm_tilings().back());
  d = plan_gemm(row_major(4096, 4096, 4096), gpu());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->splits, 1u);
  EXPECT_EQ(d->scratch_bytes, 0u);
  d = plan_gemm(row_major(1, 1000, 300), gpu());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->splits, 1u);
  GemmProblem unsplit = linear;
  unsplit.split_k = 1;
  d = plan_gemm(unsplit, gpu());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->splits, 1u);

  // Forced: kept on a CPU, cut to the K slices there are.
  GemmProblem forced = linear;
  forced.split_k = 8;
  d = plan_gemm(forced, cpu);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->splits, 8u);
  forced.k = 40;
  d = plan_gemm(forced, gpu());
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->splits, 3u);  // slices of 16
}

// A linear layer's operands: A [m][k], B [n][k] (PyTorch's weight), both contiguous along K.
GemmProblem linear_layer(int64_t m, int64_t n, int64_t k) {
  GemmProblem p = row_major(m, n, k);
  p.b = {0, 0, 1, k};
  return p;
}

TEST(GemmPlanner, CpuImplementationsWeighTheDirectTilings) {
  // Both operands load as vectors along K: the direct tiling with the fewest loads of padded
  // tiles, in rounds of the host's threads (tiling.cc's cpu_direct_cost).
  DeviceTraits cpu = gpu();
  cpu.cpu = true;
  cpu.cpu_threads = 2;
  const Tiling gemv{1, 256, 8, 1, 8, true, false, true};
  const Tiling rows16{16, 64, 8, 8, 8, true, false, true};
  const Tiling square{64, 64, 8, 8, 8, true, false, true};
  auto d = plan_gemm(linear_layer(1, 1000, 512), cpu);  // 4 tiles of one row (K too short for skinny)
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->tiling, gemv);
  EXPECT_EQ(d->kernel, Kernel::kGemmVecF32);
  EXPECT_EQ(d->vector_access.size(), 3u);         // A, B and the output
  d = plan_gemm(linear_layer(16, 384, 64), cpu);  // 16 rows: 6 tiles of 16x64
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->tiling, rows16);
  EXPECT_EQ(d->kernel, Kernel::kGemmVec8F32);
  d = plan_gemm(linear_layer(1024, 96, 16), cpu);  // 96 columns: 64x32 wastes none
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->tiling, (Tiling{64, 32, 8, 8, 8, true, false, true}));
  // The threads: one takes the largest tile, four share 64x64 as four 16x64 tiles.
  cpu.cpu_threads = 1;
  EXPECT_EQ(plan_gemm(linear_layer(64, 64, 64), cpu)->tiling, square);
  cpu.cpu_threads = 4;
  EXPECT_EQ(plan_gemm(linear_layer(64, 64, 64), cpu)->tiling, rows16);
  // Not weighed: K not a multiple of 4 (no vector loads), a GPU.
  EXPECT_EQ(plan_gemm(linear_layer(64, 64, 66), cpu)->tiling, vec_tilings()[3]);
  EXPECT_FALSE(plan_gemm(linear_layer(1, 1000, 1280), gpu())->tiling.direct);
}

TEST(GemmPlanner, CpuImplementationsTakeTheSkinnyKernelForFewRows) {
  DeviceTraits cpu = gpu();
  cpu.cpu = true;
  // A batch-1 classifier: 63 workgroups of 16 columns, 32 invocations splitting K, 16-byte
  // loads of A and B.
  auto d = plan_gemm(linear_layer(1, 1000, 1280), cpu);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(d->kernel, Kernel::kGemmSkinnyF32);
  EXPECT_EQ(d->tiling, skinny_tilings()[0]);
  EXPECT_EQ(tiling_label(d->tiling), "4x16x128/4x16skinny");
  EXPECT_EQ(d->groups, (std::array<uint32_t, 3>{63, 1, 1}));
  EXPECT_EQ(flags_of(*d) & 192u, 192u);
  EXPECT_EQ(d->vector_access.size(), 2u);
  EXPECT_EQ(d->specialization[0], (std::pair<uint32_t, uint32_t>{0, 32}));
  EXPECT_EQ(d->specialization[1], (std::pair<uint32_t, uint32_t>{1, 1}));  // rows per workgroup
  EXPECT_EQ(d->used_bindings, 0b1011u);
  // Four rows share one workgroup's B reads.
  d = plan_gemm(linear_layer(4, 1000, 1280), cpu);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->kernel, Kernel::kGemmSkinnyF32);
  EXPECT_EQ(d->specialization[1], (std::pair<uint32_t, uint32_t>{1, 4}));
  // Not taken: five rows, K not a multiple of 4 or under 1024 (where it measured no faster), A
  // transposed, forced split-K, fp16 rounding on the FMA kernels, a GPU.
  EXPECT_NE(plan_gemm(linear_layer(5, 1000, 1280), cpu)->kernel, Kernel::kGemmSkinnyF32);
  EXPECT_NE(plan_gemm(linear_layer(1, 1000, 1278), cpu)->kernel, Kernel::kGemmSkinnyF32);
  EXPECT_NE(plan_gemm(linear_layer(1, 1000, 1020), cpu)->kernel, Kernel::kGemmSkinnyF32);
  GemmProblem transposed_a = linear_layer(2, 1000, 1280);
  transposed_a.a = {0, 0, 1, 2};  // [K][M]
  EXPECT_NE(plan_gemm(transposed_a, cpu)->kernel, Kernel::kGemmSkinnyF32);
  GemmProblem split = linear_layer(1, 1000, 1280);
  split.split_k = 2;
  EXPECT_NE(plan_gemm(split, cpu)->kernel, Kernel::kGemmSkinnyF32);
  DeviceTraits cpu_fp16 = cpu;
  cpu_fp16.precision = Precision::kFp16;
  EXPECT_NE(plan_gemm(linear_layer(1, 1000, 1280), cpu_fp16)->kernel, Kernel::kGemmSkinnyF32);
  EXPECT_NE(plan_gemm(linear_layer(1, 1000, 1280), gpu())->kernel, Kernel::kGemmSkinnyF32);
  // Forced: on a GPU too; refused, naming why, where the kernel does not compute the problem.
  d = plan_gemm(linear_layer(1, 1000, 1280), gpu(), skinny_tilings()[1]);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->kernel, Kernel::kGemmSkinnyF32);
  auto refused = plan_gemm(transposed_a, gpu(), skinny_tilings()[0]);
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(refused.status().message().find("contiguous along K"), std::string::npos) << refused.status().to_string();
  refused = plan_gemm(split, gpu(), skinny_tilings()[0]);
  EXPECT_EQ(refused.status().code(), StatusCode::kUnsupported);
}

TEST(GemmPlanner, VecStoresOnlyWhereAligned) {
  // The batch-32 classifier (ResNet18's) on the vectorised core: 16-byte output stores.
  constexpr uint32_t kVecOut = 512;  // gemm_tile.glsl's kFlagVecOut
  const DeviceTraits traits = gpu();
  const GemmProblem p = linear_layer(32, 1000, 512);
  auto d = plan_gemm(p, traits, vec_tilings()[5]);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(flags_of(*d) & kVecOut, kVecOut);
  // A binding offset that leaves the output unaligned turns them off.
  const uint32_t extra[] = {0, 0, 0, 2, 0};
  ASSERT_TRUE(add_binding_offsets(*d, extra).ok());
  EXPECT_EQ(flags_of(*d) & kVecOut, 0u);
  // Unaligned offset, row stride or width, a strided column, or a core without them: scalar.
  for (auto change : std::initializer_list<void (*)(GemmProblem&)>{[](GemmProblem& q) { q.out.offset = 2; },
                                                                   [](GemmProblem& q) { q.out.row = 1002; },
                                                                   [](GemmProblem& q) { q.n = 998, q.out.row = 998; },
                                                                   [](GemmProblem& q) {
                                                                     q.out = {0, 0, 1, 32};
                                                                   }}) {
    GemmProblem q = p;
    change(q);
    d = plan_gemm(q, traits, vec_tilings()[5]);
    ASSERT_TRUE(d.ok()) << d.status().to_string();
    EXPECT_EQ(flags_of(*d) & kVecOut, 0u);
  }
  d = plan_gemm(p, traits, gemm_tilings()[2]);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_EQ(flags_of(*d) & kVecOut, 0u);
}

}  // namespace
}  // namespace univk::kernels
