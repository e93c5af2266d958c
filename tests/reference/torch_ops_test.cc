// PyTorch-semantics kernels: hand-computed values, identities between ops, and errors.
#include "test_util.h"

namespace univk::reference::testing {
namespace {

TEST(TorchOps, SupportedOpsListEveryDocumentedOperator) {
  for (const char* op : {"sigmoid",
                         "tanh",
                         "relu",
                         "relu6",
                         "hardtanh",
                         "clamp",
                         "gelu",
                         "silu",
                         "hardswish",
                         "hardsigmoid",
                         "exp",
                         "log",
                         "neg",
                         "abs",
                         "sqrt",
                         "rsqrt",
                         "reciprocal",
                         "add",
                         "sub",
                         "mul",
                         "div",
                         "maximum",
                         "minimum",
                         "pow",
                         "avg_pool2d",
                         "max_pool2d",
                         "adaptive_avg_pool2d",
                         "adaptive_max_pool2d",
                         "conv2d",
                         "conv_transpose2d",
                         "linear",
                         "matmul",
                         "bmm",
                         "addmm",
                         "softmax",
                         "log_softmax",
                         "mean",
                         "sum",
                         "amax",
                         "amin",
                         "layer_norm",
                         "batch_norm",
                         "view",
                         "reshape",
                         "flatten",
                         "permute",
                         "transpose",
                         "cat",
                         "slice",
                         "squeeze",
                         "unsqueeze",
                         "contiguous",
                         "pad",
                         "upsample_nearest2d",
                         "upsample_bilinear2d"}) {
    EXPECT_TRUE(is_supported_op(op)) << op;
  }
  EXPECT_FALSE(is_supported_op("AVG_POOL2D"));
  const auto ops = supported_ops();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
}

TEST(TorchOps, UnaryHandValues) {
  HostTensor x = tensor({4}, {-4.0f, -1.0f, 0.5f, 9.0f});
  EXPECT_EQ(values(run1("relu", {}, {x})), (std::vector<float>{0, 0, 0.5f, 9}));
  EXPECT_EQ(values(run1("relu6", {}, {x})), (std::vector<float>{0, 0, 0.5f, 6}));
  EXPECT_EQ(values(run1("clamp", attrs({{"min", -2.0}}), {x})), (std::vector<float>{-2, -1, 0.5f, 9}));
  EXPECT_EQ(values(run1("clamp", attrs({{"max", int64_t{0}}}), {x})), (std::vector<float>{-4, -1, 0, 0}));
  EXPECT_EQ(values(run1("hardtanh", {}, {x})), (std::vector<float>{-1, -1, 0.5f, 1}));
  EXPECT_EQ(values(run1("neg", {}, {x})), (std::vector<float>{4, 1, -0.5f, -9}));
  EXPECT_EQ(values(run1("abs", {}, {x})), (std::vector<float>{4, 1, 0.5f, 9}));
  HostTensor p = tensor({3}, {0.25f, 1.0f, 4.0f});
  EXPECT_EQ(values(run1("sqrt", {}, {p})), (std::vector<float>{0.5f, 1, 2}));
  EXPECT_EQ(values(run1("rsqrt", {}, {p})), (std::vector<float>{2, 1, 0.5f}));
  EXPECT_EQ(values(run1("reciprocal", {}, {p})), (std::vector<float>{4, 1, 0.25f}));
  // NaN passes through relu and clamp, as in PyTorch.
  HostTensor n = tensor({1}, {NAN});
  EXPECT_TRUE(std::isnan(values(run1("relu", {}, {n}))[0]));
  EXPECT_TRUE(std::isnan(values(run1("clamp", attrs({{"min", 0.0}, {"max", 1.0}}), {n}))[0]));
}

TEST(TorchOps, BinaryBroadcastAndScalars) {
  HostTensor a = tensor({2, 1}, {1, 2});
  HostTensor b = tensor({3}, {10, 20, 30});
  EXPECT_EQ(run1("add", {}, {a, b}).shape(), (Shape{2, 3}));
  EXPECT_EQ(values(run1("add", attrs({{"alpha", 2.0}}), {a, b})), (std::vector<float>{21, 41, 61, 22, 42, 62}));
  EXPECT_EQ(values(run1("sub", {}, {a, b})), (std::vector<float>{-9, -19, -29, -8, -18, -28}));
  EXPECT_EQ(values(run1("maximum", {}, {a, tensor({1}, {1.5f})})), (std::vector<float>{1.5f, 2}));
  // x * x + 0.25 as two ops, the scalar as attribute `other`.
  HostTensor x = tensor({3}, {-1, 0.5f, 2});
  HostTensor sq = run1("mul", {}, {x, x});
  EXPECT_EQ(values(run1("add", attrs({{"other", 0.25}}), {sq})), (std::vector<float>{1.25f, 0.5f, 4.25f}));
  EXPECT_EQ(values(run1("div", attrs({{"other", 2.0}}), {x})), (std::vector<float>{-0.5f, 0.25f, 1}));
  EXPECT_EQ(values(run1("div", attrs({{"other", 2.0}, {"scalar_first", int64_t{1}}}), {x})),
            (std::vector<float>{-2, 4, 1}));
  EXPECT_EQ(values(run1("pow", attrs({{"other", 2.0}}), {x})), (std::vector<float>{1, 0.25f, 4}));
  EXPECT_EQ(values(run1("sub", attrs({{"other", 1.0}, {"alpha", 2.0}, {"scalar_first", int64_t{1}}}), {x})),
            (std::vector<float>{3, 0, -3}));
}

TEST(TorchOps, AvgPoolPaddingDivisorByHand) {
  // 2x2 input, kernel 2, stride 2, padding 1: every window holds exactly one real element.
  HostTensor x = tensor({1, 1, 2, 2}, {1, 2, 3, 4});
  Attributes base = attrs({{"kernel_size", int64_t{2}}, {"padding", int64_t{1}}});
  EXPECT_EQ(values(run1("avg_pool2d", base, {x})), (std::vector<float>{0.25f, 0.5f, 0.75f, 1.0f}));
  Attributes excl = base;
  excl.set("count_include_pad", int64_t{0});
  EXPECT_EQ(values(run1("avg_pool2d", excl, {x})), (std::vector<float>{1, 2, 3, 4}));
  Attributes over = base;
  over.set("divisor_override", int64_t{2});
  EXPECT_EQ(values(run1("avg_pool2d", over, {x})), (std::vector<float>{0.5f, 1, 1.5f, 2}));
  // Unbatched CHW input keeps its rank.
  EXPECT_EQ(run1("avg_pool2d", base, {tensor({1, 2, 2}, {1, 2, 3, 4})}).shape(), (Shape{1, 2, 2}));
}

// conv2d computed another way: zero-pad the input explicitly, then take dot products of each
// (dilated) patch with the flattened filter.
HostTensor conv_by_patches(const HostTensor& x, const HostTensor& w, const HostTensor* bias, int64_t stride,
                           int64_t pad, int64_t dil, int64_t groups) {
  const int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], wd = x.shape()[3];
  const int64_t oc = w.shape()[0], cg = w.shape()[1], kh = w.shape()[2], kw = w.shape()[3];
  const int64_t ph = h + 2 * pad, pw = wd + 2 * pad;
  std::vector<float> padded(static_cast<size_t>(n * c * ph * pw), 0.0f);
  for (int64_t i = 0; i < n * c; ++i)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t xx = 0; xx < wd; ++xx)
        padded[static_cast<size_t>((i * ph + y + pad) * pw + xx + pad)] = x.data<float>()[(i * h + y) * wd + xx];
  const int64_t oh = (ph - dil * (kh - 1) - 1) / stride + 1, ow = (pw - dil * (kw - 1) - 1) / stride + 1;
  HostTensor out(DType::kFloat32, Shape{n, oc, oh, ow});
  std::vector<float> patch(static_cast<size_t>(cg * kh * kw));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t f = 0; f < oc; ++f)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          const int64_t g = f / (oc / groups);
          size_t k = 0;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j)
                patch[k++] = padded[static_cast<size_t>(((b * c + g * cg + ci) * ph + y * stride + i * dil) * pw +
                                                        xx * stride + j * dil)];
          double acc = bias ? bias->data<float>()[f] : 0.0;
          for (size_t t = 0; t < patch.size(); ++t) acc += patch[t] * w.data<float>()[f * cg * kh * kw + t];
          out.data<float>()[((b * oc + f) * oh + y) * ow + xx] = static_cast<float>(acc);
        }
  return out;
}

TEST(TorchOps, Conv2dMatchesPatchFormulation) {
  struct Case {
    int64_t c, oc, k, stride, pad, dil, groups;
  };
  uint32_t seed = 1;
  for (Case cs : {Case{3, 5, 3, 1, 1, 1, 1}, Case{4, 6, 3, 2, 0, 1, 2}, Case{4, 4, 3, 1, 2, 2, 4},
                  Case{2, 3, 1, 3, 0, 1, 1}, Case{6, 12, 2, 2, 1, 3, 6}}) {
    HostTensor x = random_tensor({2, cs.c, 7, 9}, seed++);
    HostTensor w = random_tensor({cs.oc, cs.c / cs.groups, cs.k, cs.k}, seed++);
    HostTensor b = random_tensor({cs.oc}, seed++);
    Attributes a = attrs({{"stride", cs.stride}, {"padding", cs.pad}, {"dilation", cs.dil}, {"groups", cs.groups}});
    expect_near(run1("conv2d", a, {x, w, b}), conv_by_patches(x, w, &b, cs.stride, cs.pad, cs.dil, cs.groups), 1e-5f);
    expect_near(run1("conv2d", a, {x, w}), conv_by_patches(x, w, nullptr, cs.stride, cs.pad, cs.dil, cs.groups), 1e-5f);
  }
}

TEST(TorchOps, Conv2dSamePaddingKeepsSize) {
  HostTensor x = random_tensor({1, 2, 5, 6}, 7);
  HostTensor w = random_tensor({3, 2, 4, 3}, 8);
  HostTensor y = run1("conv2d", attrs({{"padding", std::string("same")}}), {x, w});
  EXPECT_EQ(y.shape(), (Shape{1, 3, 5, 6}));
  EXPECT_EQ(run1("conv2d", attrs({{"padding", std::string("valid")}}), {x, w}).shape(), (Shape{1, 3, 2, 4}));
}

TEST(TorchOps, SoftmaxSumsToOneAndLogSoftmaxIsItsLog) {
  HostTensor x = random_tensor({3, 4, 5}, 3);
  for (int64_t dim : {0, 1, 2, -1}) {
    HostTensor s = run1("softmax", attrs({{"dim", dim}}), {x});
    HostTensor sum = run1("sum", attrs({{"dim", dim}}), {s});
    for (float v : values(sum)) EXPECT_NEAR(v, 1.0f, 1e-6f);
    expect_near(run1("log_softmax", attrs({{"dim", dim}}), {x}), run1("log", {}, {s}), 1e-5f);
  }
}

TEST(TorchOps, Reductions) {
  HostTensor x = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values(run1("sum", attrs({{"dim", I{1}}}), {x})), (std::vector<float>{6, 15}));
  HostTensor all = run1("mean", {}, {x});
  EXPECT_EQ(all.shape(), Shape{});
  EXPECT_EQ(values(all), (std::vector<float>{3.5f}));
  HostTensor kept = run1("mean", attrs({{"dim", I{-2}}, {"keepdim", int64_t{1}}}), {x});
  EXPECT_EQ(kept.shape(), (Shape{1, 3}));
  EXPECT_EQ(values(kept), (std::vector<float>{2.5f, 3.5f, 4.5f}));
}

TEST(TorchOps, MatmulShapesFollowPyTorch) {
  HostTensor v = tensor({3}, {1, 2, 3});
  HostTensor dot = run1("matmul", {}, {v, tensor({3}, {4, 5, 6})});
  EXPECT_EQ(dot.shape(), Shape{});
  EXPECT_EQ(values(dot), (std::vector<float>{32}));
  EXPECT_EQ(run1("matmul", {}, {random_tensor({5, 1, 2, 3}, 1), random_tensor({4, 3, 6}, 2)}).shape(),
            (Shape{5, 4, 2, 6}));
  HostTensor a = random_tensor({2, 3, 4}, 3), b = random_tensor({2, 4, 5}, 4);
  expect_near(run1("bmm", {}, {a, b}), run1("matmul", {}, {a, b}), 1e-6f);
  // linear(x, w, b) == addmm(b, x, w^T).
  HostTensor x = random_tensor({3, 4}, 5), w = random_tensor({6, 4}, 6), bias = random_tensor({6}, 7);
  HostTensor wt = run1("transpose", attrs({{"dim0", int64_t{0}}, {"dim1", int64_t{1}}}), {w});
  expect_near(run1("linear", {}, {x, w, bias}), run1("addmm", {}, {bias, x, wt}), 1e-6f);
}

TEST(TorchOps, ShapeOps) {
  HostTensor x = tensor({2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(run1("reshape", attrs({{"shape", I{3, -1}}}), {x}).shape(), (Shape{3, 2}));
  EXPECT_EQ(run1("view", attrs({{"shape", I{-1}}}), {x}).shape(), (Shape{6}));
  EXPECT_EQ(run1("flatten", {}, {random_tensor({2, 3, 4}, 1)}).shape(), (Shape{24}));
  EXPECT_EQ(run1("flatten", attrs({{"start_dim", int64_t{1}}}), {random_tensor({2, 3, 4}, 1)}).shape(), (Shape{2, 12}));
  HostTensor t = run1("transpose", attrs({{"dim0", int64_t{-1}}, {"dim1", int64_t{0}}}), {x});
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(t), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  HostTensor p = run1("permute", attrs({{"dims", I{2, 0, 1}}}), {tensor({1, 2, 3}, {0, 1, 2, 3, 4, 5})});
  EXPECT_EQ(p.shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(values(p), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  HostTensor c = run1("cat", attrs({{"dim", int64_t{-1}}}), {x, tensor({2, 1}, {9, 8}), x});
  EXPECT_EQ(c.shape(), (Shape{2, 7}));
  EXPECT_EQ(values(c), (std::vector<float>{0, 1, 2, 9, 0, 1, 2, 3, 4, 5, 8, 3, 4, 5}));
  HostTensor s = run1("slice", attrs({{"dim", int64_t{1}}, {"start", int64_t{-2}}}), {x});
  EXPECT_EQ(values(s), (std::vector<float>{1, 2, 4, 5}));
  HostTensor q = random_tensor({1, 3, 1, 2}, 2);
  EXPECT_EQ(run1("squeeze", {}, {q}).shape(), (Shape{3, 2}));
  EXPECT_EQ(run1("squeeze", attrs({{"dim", int64_t{-2}}}), {q}).shape(), (Shape{1, 3, 2}));
  EXPECT_EQ(run1("squeeze", attrs({{"dim", int64_t{1}}}), {q}).shape(), (Shape{1, 3, 1, 2}));  // size 3: no-op
  EXPECT_EQ(run1("unsqueeze", attrs({{"dim", int64_t{-1}}}), {x}).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(values(run1("contiguous", {}, {x})), values(x));
  // Shape ops move bytes of any dtype.
  HostTensor ints = typed<int32_t>(DType::kInt32, {2, 2}, {1, 2, 3, 4});
  HostTensor it = run1("permute", attrs({{"dims", I{1, 0}}}), {ints});
  EXPECT_EQ(it.dtype(), DType::kInt32);
  EXPECT_EQ(typed_values<int32_t>(it), (std::vector<int32_t>{1, 3, 2, 4}));
}

// Expected values from PyTorch's F.pad on the same input.
TEST(TorchOps, PadModesByHand) {
  HostTensor x = tensor({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor reflect = run1("pad", attrs({{"pad", I{2, 1}}, {"mode", std::string("reflect")}}), {x});
  EXPECT_EQ(reflect.shape(), (Shape{1, 2, 6}));
  EXPECT_EQ(values(reflect), (std::vector<float>{3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5}));
  HostTensor replicate = run1("pad", attrs({{"pad", I{1, 2}}, {"mode", std::string("replicate")}}), {x});
  EXPECT_EQ(values(replicate), (std::vector<float>{1, 1, 2, 3, 3, 3, 4, 4, 5, 6, 6, 6}));
  HostTensor constant = run1("pad", attrs({{"pad", I{1, 0, 0, 1}}, {"value", -1.0}}), {x});
  EXPECT_EQ(constant.shape(), (Shape{1, 3, 4}));
  EXPECT_EQ(values(constant), (std::vector<float>{-1, 1, 2, 3, -1, 4, 5, 6, -1, -1, -1, -1}));
  HostTensor ints =
      run1("pad", attrs({{"pad", I{0, 1}}, {"value", 7.0}}), {typed<int32_t>(DType::kInt32, {2, 1}, {1, 2})});
  EXPECT_EQ(typed_values<int32_t>(ints), (std::vector<int32_t>{1, 7, 2, 7}));
}

TEST(TorchOps, NormalizationByHand) {
  HostTensor x = tensor({1, 2, 2}, {1, 3, 10, 30});
  HostTensor ln = run1("layer_norm", attrs({{"normalized_shape", I{2}}, {"eps", 0.0}}), {x});
  expect_near(ln, tensor({1, 2, 2}, {-1, 1, -1, 1}), 1e-6f);
  // batch_norm: channel 0 mean 1 var 4, weight 2 bias 1 -> (x-1)/2*2+1.
  HostTensor bn = run1("batch_norm", attrs({{"eps", 0.0}}),
                       {x, tensor({2}, {2, 1}), tensor({2}, {1, 0}), tensor({2}, {1, 0}), tensor({2}, {4, 100})});
  expect_near(bn, tensor({1, 2, 2}, {1, 3, 1, 3}), 1e-6f);
}

std::string error_of(std::string_view op, const Attributes& a, std::vector<HostTensor> in) {
  auto r = run_op(op, a, in);
  return r.ok() ? std::string("ok") : r.status().to_string();
}

TEST(TorchOps, ErrorsNameTheOpAndTheProblem) {
  HostTensor x = random_tensor({1, 4, 5, 5}, 1);
  EXPECT_EQ(run_op("no_such_op", {}, {}).status().code(), StatusCode::kUnsupported);
  std::string e = error_of("conv2d", {}, {x, random_tensor({2, 3, 3, 3}, 2)});
  EXPECT_NE(e.find("conv2d"), std::string::npos) << e;
  EXPECT_NE(e.find("weight"), std::string::npos) << e;
  e = error_of("avg_pool2d", {}, {x});
  EXPECT_NE(e.find("kernel_size"), std::string::npos) << e;
  e = error_of("avg_pool2d", attrs({{"kernel_size", int64_t{2}}, {"padding", int64_t{2}}}), {x});
  EXPECT_NE(e.find("padding"), std::string::npos) << e;
  e = error_of("softmax", attrs({{"dim", int64_t{4}}}), {x});
  EXPECT_NE(e.find("'dim'"), std::string::npos) << e;
  e = error_of("add", {}, {random_tensor({2, 3}, 1), random_tensor({4}, 2)});
  EXPECT_NE(e.find("[2,3]"), std::string::npos) << e;
  EXPECT_NE(error_of("clamp", {}, {x}).find("min"), std::string::npos);
  EXPECT_NE(error_of("add", {}, {x}).find("other"), std::string::npos);
  EXPECT_NE(error_of("reshape", attrs({{"shape", I{-1, -1}}}), {x}).find("-1"), std::string::npos);
  EXPECT_NE(error_of("matmul", {}, {random_tensor({2, 3}, 1), random_tensor({4, 2}, 2)}).find("inner"),
            std::string::npos);
  EXPECT_EQ(run_op("relu", {}, std::vector<HostTensor>{typed<int32_t>(DType::kInt32, {2}, {1, 2})}).status().code(),
            StatusCode::kUnsupported);
  EXPECT_NE(error_of("slice", attrs({{"step", int64_t{0}}}), {x}).find("step"), std::string::npos);
  EXPECT_NE(error_of("pad", attrs({{"pad", I{1, 1, 1}}}), {x}).find("pairs"), std::string::npos);
  EXPECT_NE(error_of("pad", attrs({{"pad", I{-1, 0}}}), {x}).find("negative"), std::string::npos);
  EXPECT_NE(error_of("pad", attrs({{"pad", I{5, 0}}, {"mode", std::string("reflect")}}), {x}).find("smaller"),
            std::string::npos);
  EXPECT_NE(error_of("pad", attrs({{"pad", I{1, 0}}, {"mode", std::string("circular")}}), {x}).find("circular"),
            std::string::npos);
}

}  // namespace
}  // namespace univk::reference::testing
