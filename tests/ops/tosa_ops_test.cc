// univk_ops' TOSA rules shared by the TOSA reference kernels, the VgfBackend's emitters and the
// compiler's TOSA lowering: the pool/conv windows (the spec's exact output size, pad below the
// kernel, the 2^31 bound), MATMUL and reduction shapes, and the result shapes of the
// data-movement operators.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "univk/ops/tosa_ops.h"
#include "univk/ops/torch_ops.h"
#include "univk/ops/upsample_resize.h"
#include "univk_test.h"

namespace univk::ops {
namespace {

using Ints = std::vector<int64_t>;

using ::univk::testing::attrs;

TEST(TosaOps, PoolWindowAndOutput) {
  auto p = tosa_pool2d(attrs({{"kernel", Ints{3, 2}}, {"stride", Ints{2, 2}}, {"pad", Ints{1, 1, 0, 0}}}),
                       Shape{2, 7, 8, 3});
  UNIVK_ASSERT_OK(p);
  EXPECT_EQ(p->out_h, 4);  // (7 - 1 + 2 - 2) / 2 + 1
  EXPECT_EQ(p->out_w, 4);
  EXPECT_EQ(p->output, (Shape{2, 4, 4, 3}));
}

TEST(TosaOps, PoolRefusals) {
  const Shape in{1, 5, 5, 1};
  auto inexact = tosa_pool2d(attrs({{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}}), in);
  EXPECT_NE(inexact.status().message().find("exact"), std::string::npos) << inexact.status().to_string();
  auto pad = tosa_pool2d(attrs({{"kernel", Ints{2, 2}}, {"stride", Ints{1, 1}}, {"pad", Ints{2, 0, 0, 0}}}), in);
  EXPECT_NE(pad.status().message().find("pad"), std::string::npos) << pad.status().to_string();
  auto big = tosa_pool2d(attrs({{"kernel", Ints{1, 1}}, {"stride", Ints{kMaxWindowAttr + 1, 1}}}), in);
  EXPECT_NE(big.status().message().find("2^31"), std::string::npos) << big.status().to_string();
  auto rank = tosa_pool2d(attrs({{"kernel", Ints{1, 1}}, {"stride", Ints{1, 1}}}), Shape{5, 5, 1});
  EXPECT_EQ(rank.status().code(), StatusCode::kInvalidArgument);
}

TEST(TosaOps, ConvDefaultsAndDilation) {
  auto c = tosa_conv2d({}, Shape{1, 6, 5, 2}, 3, 2);
  UNIVK_ASSERT_OK(c);
  EXPECT_EQ(c->stride[0], 1);
  EXPECT_EQ(c->dilation[1], 1);
  EXPECT_EQ(c->out_h, 4);
  EXPECT_EQ(c->out_w, 4);
  auto d = tosa_conv2d(attrs({{"dilation", Ints{2, 1}}, {"pad", Ints{2, 2, 0, 1}}}), Shape{1, 6, 5, 2}, 3, 2);
  UNIVK_ASSERT_OK(d);
  EXPECT_EQ(d->out_h, 6);  // 6 - 1 + 4 - 4 + 1
  EXPECT_EQ(d->out_w, 5);
  auto bad = tosa_conv2d(attrs({{"stride", Ints{0, 1}}}), Shape{1, 6, 5, 2}, 3, 2);
  EXPECT_NE(bad.status().message().find("stride"), std::string::npos) << bad.status().to_string();
}

TEST(TosaOps, DataMovementShapes) {
  const Shape in{2, 3, 4};
  auto t = tosa_transpose(attrs({{"perms", Ints{2, 0, 1}}}), in);
  UNIVK_ASSERT_OK(t);
  EXPECT_EQ(t->output, (Shape{4, 2, 3}));
  EXPECT_FALSE(tosa_transpose(attrs({{"perms", Ints{-1, 0, 1}}}), in).ok());  // TOSA's perms do not wrap
  auto sl = tosa_slice(attrs({{"start", Ints{1, 0, 2}}, {"size", Ints{1, 3, 2}}}), in);
  UNIVK_ASSERT_OK(sl);
  EXPECT_EQ(sl->output, (Shape{1, 3, 2}));
  EXPECT_FALSE(tosa_slice(attrs({{"start", Ints{1, 0, 3}}, {"size", Ints{1, 3, 2}}}), in).ok());
  auto pd = tosa_pad(attrs({{"padding", Ints{0, 1, 2, 0, 1, 1}}}), in);
  UNIVK_ASSERT_OK(pd);
  EXPECT_EQ(pd->output, (Shape{3, 5, 6}));
  EXPECT_FALSE(tosa_pad(attrs({{"padding", Ints{0, -1, 0, 0, 0, 0}}}), in).ok());
  auto tiled = tosa_tile(attrs({{"multiples", Ints{1, 2, 3}}}), in);
  UNIVK_ASSERT_OK(tiled);
  EXPECT_EQ(*tiled, (Shape{2, 6, 12}));
  EXPECT_FALSE(tosa_tile(attrs({{"multiples", Ints{1, 0, 1}}}), in).ok());
  auto cat = tosa_concat(attrs({{"axis", int64_t{1}}}), std::vector<Shape>{in, Shape{2, 5, 4}});
  UNIVK_ASSERT_OK(cat);
  EXPECT_EQ(cat->output, (Shape{2, 8, 4}));
  auto mismatch = tosa_concat(attrs({{"axis", int64_t{1}}}), std::vector<Shape>{in, Shape{2, 5, 5}});
  EXPECT_EQ(mismatch.status().code(), StatusCode::kInvalidArgument);
}

TEST(TosaOps, MatmulShapes) {
  auto m = tosa_matmul(Shape{2, 3, 4}, Shape{2, 4, 5});
  UNIVK_ASSERT_OK(m);
  EXPECT_EQ(*m, (Shape{2, 3, 5}));
  auto inner = tosa_matmul(Shape{2, 3, 4}, Shape{2, 3, 5});
  EXPECT_EQ(inner.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(inner.status().message(), "A [2,3,4] and B [2,3,5] must be [N,H,C] and [N,C,W]");
  EXPECT_FALSE(tosa_matmul(Shape{2, 3, 4}, Shape{1, 4, 5}).ok());  // batch
  EXPECT_FALSE(tosa_matmul(Shape{3, 4}, Shape{4, 5}).ok());        // rank 3 only
}

TEST(TosaOps, ReductionAxisAndShapes) {
  const Shape in{2, 3, 4};
  auto sum = tosa_reduce(attrs({{"axis", int64_t{1}}}), in);
  UNIVK_ASSERT_OK(sum);
  EXPECT_EQ(sum->axis, 1);
  EXPECT_EQ(sum->output, (Shape{2, 1, 4}));
  auto arg = tosa_argmax(attrs({{"axis", int64_t{2}}}), in);
  UNIVK_ASSERT_OK(arg);
  EXPECT_EQ(arg->output, (Shape{2, 3}));
  // TOSA's axis does not wrap: [0, rank) only, for every operator that takes one.
  auto negative = tosa_reduce(attrs({{"axis", int64_t{-1}}}), in);
  EXPECT_EQ(negative.status().message(), "attribute 'axis'=-1 is not in [0, 3)");
  EXPECT_FALSE(tosa_argmax(attrs({{"axis", int64_t{3}}}), in).ok());
  EXPECT_FALSE(tosa_reduce({}, in).ok());  // axis is required
  EXPECT_FALSE(tosa_concat(attrs({{"axis", int64_t{3}}}), std::vector<Shape>{in, in}).ok());
  auto axis = tosa_axis(attrs({{"axis", int64_t{0}}}), Shape{7});
  UNIVK_ASSERT_OK(axis);
  EXPECT_EQ(*axis, 0);
}

TEST(TosaOps, ReshapeKeepsTheElementCount) {
  const Shape in{2, 3, 4};
  auto r = tosa_reshape(attrs({{"shape", Ints{4, 6}}}), in);
  UNIVK_ASSERT_OK(r);
  EXPECT_EQ(*r, (Shape{4, 6}));
  auto inferred = tosa_reshape(attrs({{"shape", Ints{-1, 8}}}), in);
  UNIVK_ASSERT_OK(inferred);
  EXPECT_EQ(*inferred, (Shape{3, 8}));
  auto count = tosa_reshape(attrs({{"shape", Ints{5, 5}}}), in);
  EXPECT_EQ(count.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(count.status().message().find("24 elements"), std::string::npos) << count.status().to_string();
  EXPECT_FALSE(tosa_reshape({}, in).ok());  // shape is required
}

TEST(TosaOps, ResizeOutputAndRefusals) {
  const Shape in{1, 4, 5, 2};
  auto r = tosa_resize(
      attrs({{"mode", int64_t{2}}, {"scale", Ints{16, 8, 10, 5}}, {"offset", Ints{-4, 0}}, {"border", Ints{4, 0}}}),
      in);
  UNIVK_ASSERT_OK(r);
  EXPECT_EQ(r->output, (Shape{1, 8, 9, 2}));  // (3*16+4+4)/8+1, (4*10)/5+1
  auto inexact = tosa_resize(
      attrs({{"mode", int64_t{1}}, {"scale", Ints{16, 8, 10, 5}}, {"offset", Ints{-4, 0}}, {"border", Ints{3, 0}}}),
      in);
  EXPECT_NE(inexact.status().message().find("not exact"), std::string::npos) << inexact.status().to_string();
  for (const Attributes& bad : {
           attrs({{"mode", int64_t{3}}, {"scale", Ints{1, 1, 1, 1}}, {"offset", Ints{0, 0}}, {"border", Ints{0, 0}}}),
           attrs({{"mode", int64_t{1}}, {"scale", Ints{0, 1, 1, 1}}, {"offset", Ints{0, 0}}, {"border", Ints{0, 0}}}),
           attrs({{"mode", int64_t{1}}, {"scale", Ints{1, 16, 1, 1}}, {"offset", Ints{0, 0}}, {"border", Ints{0, 0}}}),
           attrs(
               {{"mode", int64_t{1}}, {"scale", Ints{4096, 1, 1, 1}}, {"offset", Ints{0, 0}}, {"border", Ints{0, 0}}}),
           attrs({{"mode", int64_t{1}}, {"scale", Ints{2, 1, 1, 1}}, {"offset", Ints{-3, 0}}, {"border", Ints{0, 0}}}),
           attrs({{"mode", int64_t{1}}, {"scale", Ints{2, 1, 1, 1}}, {"offset", Ints{0, 0}}, {"border", Ints{2, 0}}}),
           attrs({{"mode", int64_t{1}}, {"scale", Ints{1, 1}}, {"offset", Ints{0, 0}}, {"border", Ints{0, 0}}}),
           attrs({{"mode", int64_t{1}}, {"scale", Ints{1, 1, 1, 1}}}),
       }) {
    EXPECT_FALSE(tosa_resize(bad, in).ok()) << bad.to_string();
  }
  EXPECT_FALSE(tosa_resize(attrs({{"mode", int64_t{1}}, {"scale", Ints{1, 1, 1, 1}}}), Shape{4, 5, 2}).ok());
}

TEST(TosaOps, ResizeForUpsampleDeclinesInexactSteps) {
  auto up = [](const char* op, Ints in, Ints out, bool align, double sf) {
    Attributes a = attrs({{"output_size", out}});
    if (align) a.set("align_corners", int64_t{1});
    if (sf > 0) a.set("scales", std::vector<double>{sf, sf});
    const std::vector<Shape> shapes{Shape(std::move(in))};
    auto u = upsample2d(op, a, shapes);
    EXPECT_TRUE(u.ok()) << u.status().to_string();
    return resize_for_upsample(*u);
  };
  auto nearest = up("upsample_nearest2d", {1, 3, 4, 6}, {8, 12}, false, 0);
  UNIVK_ASSERT_OK(nearest);
  EXPECT_EQ(nearest->get_ints("scale").value(), (Ints{2, 1, 2, 1}));  // 16/8 reduced
  EXPECT_EQ(nearest->get_ints("offset").value(), (Ints{-1, -1}));
  EXPECT_EQ(nearest->get_ints("border").value(), (Ints{0, 0}));
  UNIVK_ASSERT_OK(up("upsample_bilinear2d", {1, 3, 4, 6}, {8, 12}, false, 2.0));
  UNIVK_ASSERT_OK(up("upsample_bilinear2d", {1, 3, 4, 6}, {7, 11}, true, 0));
  // A 1.5 scale factor: PyTorch steps by fp32 0.6666667, RESIZE by exactly 2/3.
  auto third = up("upsample_bilinear2d", {1, 3, 4, 4}, {6, 6}, false, 1.5);
  EXPECT_EQ(third.status().code(), StatusCode::kUnsupported) << third.status().to_string();
  // align_corners 5 -> 10: PyTorch steps by fp32 4/9.
  EXPECT_EQ(up("upsample_bilinear2d", {1, 1, 5, 5}, {10, 10}, true, 0).status().code(), StatusCode::kUnsupported);
}

// The TOSA 1.0 spec's apply_scale_32 with single rounding: (value * multiplier + 2^(shift-1)) >> shift.
int64_t spec_apply_scale_32(int64_t value, int64_t multiplier, int64_t shift) {
  const int64_t round = int64_t{1} << (shift - 1);
  return (value * multiplier + round) >> shift;
}

TEST(TosaOps, Scale32KeepsThirtyOneBits) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> log2_scale(-31.0, 28.9);
  for (int i = 0; i < 2000; ++i) {
    const double scale = std::exp2(log2_scale(gen));
    UNIVK_ASSIGN_OR_FAIL(TosaScale s, tosa_scale32(scale));
    EXPECT_GE(s.multiplier, int64_t{1} << 30) << scale;
    EXPECT_LT(s.multiplier, int64_t{1} << 31) << scale;
    EXPECT_GE(s.shift, 2) << scale;
    EXPECT_LE(s.shift, 62) << scale;
    // multiplier * 2^-shift is within half a unit of the multiplier's last bit of the scale.
    EXPECT_LE(std::abs(std::ldexp(static_cast<double>(s.multiplier), static_cast<int>(-s.shift)) - scale),
              scale * std::exp2(-31.0))
        << scale;
  }
}

TEST(TosaOps, Scale32MatchesTheSpecsApplyScale) {
  // Powers of two are exact: apply_scale_32 rounds value * scale half up.
  for (double scale : {1.0, 0.5, 0.25, 1.0 / 1024, 8.0}) {
    UNIVK_ASSIGN_OR_FAIL(TosaScale s, tosa_scale32(scale));
    for (int64_t v : {int64_t{-1000}, int64_t{-3}, int64_t{-1}, int64_t{0}, int64_t{1}, int64_t{5}, int64_t{999}}) {
      EXPECT_EQ(spec_apply_scale_32(v, s.multiplier, s.shift),
                static_cast<int64_t>(std::floor(static_cast<double>(v) * scale + 0.5)))
          << scale << " " << v;
    }
  }
  // Typical requantization scales: the spec's integer result is the rounded real product
  // except within 2^-31 relative of a tie.
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> scale_dist(1e-5, 0.9);
  std::uniform_int_distribution<int64_t> value_dist(-(int64_t{1} << 24), int64_t{1} << 24);
  for (int i = 0; i < 2000; ++i) {
    const double scale = scale_dist(gen);
    const int64_t v = value_dist(gen);
    UNIVK_ASSIGN_OR_FAIL(TosaScale s, tosa_scale32(scale));
    const double exact = static_cast<double>(v) * scale;
    const int64_t got = spec_apply_scale_32(v, s.multiplier, s.shift);
    EXPECT_LE(std::abs(static_cast<double>(got) - exact), 0.5 + std::abs(exact) * std::exp2(-30.0))
        << scale << " " << v;
  }
}

TEST(TosaOps, Scale32Limits) {
  UNIVK_ASSIGN_OR_FAIL(TosaScale tiny, tosa_scale32(1e-12));
  EXPECT_EQ(tiny.shift, 62);
  EXPECT_EQ(tiny.multiplier, std::llround(std::ldexp(1e-12, 62)));
  UNIVK_ASSIGN_OR_FAIL(TosaScale below_2_29, tosa_scale32(std::exp2(29.0) * 0.999));
  EXPECT_EQ(below_2_29.shift, 2);
  for (double bad : {std::exp2(29.0), 0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(tosa_scale32(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace univk::ops
