// TOSA 1.0 kernels: hand-computed values (padding exclusion, integer rounding, RESCALE,
// TABLE, CAST), identities with the PyTorch kernels (NHWC vs NCHW), and errors.
#include "test_util.h"
#include "univk/ops/upsample_resize.h"

namespace univk::reference::testing {
namespace {

HostTensor nchw_to_nhwc(const HostTensor& t) { return tosa1("TRANSPOSE", attrs({{"perms", I{0, 2, 3, 1}}}), {t}); }

TEST(TosaOps, SupportedList) {
  for (const char* op : {"AVG_POOL2D", "MAX_POOL2D", "CONV2D",     "DEPTHWISE_CONV2D",
                         "MATMUL",     "ADD",        "SUB",        "MUL",
                         "SIGMOID",    "TANH",       "CLAMP",      "EXP",
                         "LOG",        "ABS",        "NEGATE",     "RECIPROCAL",
                         "RSQRT",      "POW",        "ERF",        "MAXIMUM",
                         "MINIMUM",    "REDUCE_SUM", "REDUCE_MAX", "ARGMAX",
                         "RESHAPE",    "TRANSPOSE",  "CONCAT",     "SLICE",
                         "PAD",        "TILE",       "CAST",       "RESCALE",
                         "TABLE",      "RESIZE"}) {
    EXPECT_TRUE(is_supported_tosa_op(op)) << op;
  }
  EXPECT_FALSE(is_supported_tosa_op("avg_pool2d"));
  EXPECT_EQ(run_tosa("NOT_AN_OPERATOR", {}, {}).status().code(), StatusCode::kUnsupported);
}

TEST(TosaOps, AvgPoolExcludesPaddingFromDivisor) {
  // 3x3 input of ones except the centre, kernel 3, stride 1, pad 1: every output is the mean of
  // the in-bounds taps only (4 at corners, 6 at edges, 9 in the middle).
  HostTensor x = tensor({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Attributes a = attrs({{"kernel", I{3, 3}}, {"stride", I{1, 1}}, {"pad", I{1, 1, 1, 1}}, {"acc_type", int64_t{3}}});
  HostTensor y = tosa1("AVG_POOL2D", a, {x});
  expect_near(y, tensor({1, 3, 3, 1}, {3, 3.5f, 4, 4.5f, 5, 5.5f, 6, 6.5f, 7}), 1e-6f);
  // PyTorch's count_include_pad=false gives the same; its default (true) does not.
  HostTensor nchw = tensor({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Attributes pt = attrs({{"kernel_size", int64_t{3}}, {"stride", int64_t{1}}, {"padding", int64_t{1}}});
  EXPECT_NE(values(run1("avg_pool2d", pt, {nchw}))[0], values(y)[0]);
  pt.set("count_include_pad", int64_t{0});
  EXPECT_EQ(values(run1("avg_pool2d", pt, {nchw})), values(y));
}

TEST(TosaOps, AvgPoolInt8RoundsHalfAwayFromZeroWithZeroPoints) {
  Attributes a = attrs({{"kernel", I{1, 2}}, {"stride", I{1, 1}}, {"pad", I{0, 0, 0, 0}}});
  auto pool = [&](std::vector<int8_t> v, int64_t in_zp, int64_t out_zp) {
    Attributes b = a;
    b.set("input_zp", in_zp);
    b.set("output_zp", out_zp);
    return typed_values<int8_t>(tosa1("AVG_POOL2D", b, {typed<int8_t>(DType::kInt8, {1, 1, 2, 1}, v)}))[0];
  };
  EXPECT_EQ(pool({1, 2}, 0, 0), 2);           // 1.5 -> 2
  EXPECT_EQ(pool({-1, -2}, 0, 0), -2);        // -1.5 -> -2
  EXPECT_EQ(pool({-1, -1}, -3, 5), 7);        // (2+2)/2 + 5
  EXPECT_EQ(pool({120, 127}, -100, 0), 127);  // saturates
  // Many window sizes: the spec's reciprocal-scale division equals round-half-away division.
  std::mt19937 rng(5);
  for (int64_t k = 1; k <= 9; ++k) {
    std::vector<int8_t> v(static_cast<size_t>(k * k));
    for (int8_t& e : v) e = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
    Attributes b = attrs({{"kernel", I{k, k}}, {"stride", I{1, 1}}, {"pad", I{0, 0, 0, 0}}});
    const int8_t got = typed_values<int8_t>(tosa1("AVG_POOL2D", b, {typed<int8_t>(DType::kInt8, {1, k, k, 1}, v)}))[0];
    int64_t sum = 0;
    for (int8_t e : v) sum += e;
    const int64_t count = k * k;
    const int64_t want = (sum >= 0 ? sum + count / 2 : sum - count / 2) / count;
    EXPECT_EQ(got, want) << "k=" << k << " sum=" << sum;
  }
}

TEST(TosaOps, MaxPoolAndNanModes) {
  HostTensor x = tensor({1, 2, 2, 1}, {1, NAN, 3, 2});
  Attributes a = attrs({{"kernel", I{2, 2}}, {"stride", I{1, 1}}, {"pad", I{0, 0, 0, 0}}});
  EXPECT_TRUE(std::isnan(values(tosa1("MAX_POOL2D", a, {x}))[0]));
  a.set("nan_mode", int64_t{2});
  EXPECT_EQ(values(tosa1("MAX_POOL2D", a, {x}))[0], 3.0f);
  // Padding is never read: all-negative input with pad still gives the real maximum.
  HostTensor neg = tensor({1, 2, 2, 1}, {-5, -4, -3, -2});
  Attributes p = attrs({{"kernel", I{2, 2}}, {"stride", I{1, 1}}, {"pad", I{1, 0, 1, 0}}});
  EXPECT_EQ(values(tosa1("MAX_POOL2D", p, {neg})), (std::vector<float>{-5, -4, -3, -2}));
}

TEST(TosaOps, Conv2dMatchesPyTorchConvInNhwc) {
  HostTensor x = random_tensor({2, 3, 7, 9}, 11);
  HostTensor w = random_tensor({4, 3, 3, 2}, 12);
  HostTensor b = random_tensor({4}, 13);
  HostTensor want =
      run1("conv2d", attrs({{"stride", I{2, 1}}, {"padding", I{1, 0}}, {"dilation", I{1, 2}}}), {x, w, b});
  Attributes a = attrs({{"pad", I{1, 1, 0, 0}}, {"stride", I{2, 1}}, {"dilation", I{1, 2}}, {"acc_type", int64_t{3}}});
  HostTensor got = tosa1("CONV2D", a, {nchw_to_nhwc(x), nchw_to_nhwc(w), b});
  expect_near(got, nchw_to_nhwc(want), 1e-5f);
}

TEST(TosaOps, DepthwiseConvMatchesGroupedConv) {
  const int64_t c = 3, m = 2;
  HostTensor x = random_tensor({1, c, 6, 5}, 21);
  HostTensor w = random_tensor({c * m, 1, 3, 3}, 22);
  HostTensor want = run1("conv2d", attrs({{"padding", int64_t{1}}, {"groups", c}}), {x, w});
  // [C*M,1,KH,KW] -> [C,M,KH,KW] -> [KH,KW,C,M].
  HostTensor w4 = tosa1("RESHAPE", attrs({{"shape", I{c, m, 3, 3}}}), {w});
  HostTensor wt = tosa1("TRANSPOSE", attrs({{"perms", I{2, 3, 0, 1}}}), {w4});
  HostTensor got = tosa1("DEPTHWISE_CONV2D", attrs({{"pad", I{1, 1, 1, 1}}}), {nchw_to_nhwc(x), wt});
  expect_near(got, nchw_to_nhwc(want), 1e-5f);
}

TEST(TosaOps, Int8ConvEqualsFloatConvOfZeroPointShiftedValues) {
  std::mt19937 rng(3);
  std::vector<int8_t> xv(1 * 4 * 4 * 2), wv(3 * 2 * 2 * 2);
  for (int8_t& v : xv) v = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
  for (int8_t& v : wv) v = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
  const int64_t in_zp = -7, w_zp = 3;
  HostTensor xi = typed<int8_t>(DType::kInt8, {1, 4, 4, 2}, xv);
  HostTensor wi = typed<int8_t>(DType::kInt8, {3, 2, 2, 2}, wv);
  HostTensor bi = typed<int32_t>(DType::kInt32, {3}, {100, -100, 5});
  Attributes a = attrs({{"pad", I{1, 0, 0, 1}},
                        {"stride", I{1, 1}},
                        {"dilation", I{1, 1}},
                        {"acc_type", int64_t{1}},
                        {"input_zp", in_zp},
                        {"weight_zp", w_zp}});
  HostTensor got = tosa1("CONV2D", a, {xi, wi, bi});
  ASSERT_EQ(got.dtype(), DType::kInt32);
  std::vector<float> xf, wf;
  for (int8_t v : xv) xf.push_back(static_cast<float>(v - in_zp));
  for (int8_t v : wv) wf.push_back(static_cast<float>(v - w_zp));
  a.set("acc_type", int64_t{3});
  a.set("input_zp", int64_t{0});
  a.set("weight_zp", int64_t{0});
  HostTensor want =
      tosa1("CONV2D", a, {tensor({1, 4, 4, 2}, xf), tensor({3, 2, 2, 2}, wf), tensor({3}, {100, -100, 5})});
  ASSERT_EQ(got.numel(), want.numel());
  for (int64_t i = 0; i < got.numel(); ++i)
    EXPECT_EQ(got.data<int32_t>()[i], static_cast<int32_t>(want.data<float>()[i]));
}

TEST(TosaOps, Matmul) {
  HostTensor a = random_tensor({2, 3, 4}, 1), b = random_tensor({2, 4, 5}, 2);
  expect_near(tosa1("MATMUL", {}, {a, b}), run1("bmm", {}, {a, b}), 1e-6f);
  HostTensor ai = typed<int8_t>(DType::kInt8, {1, 1, 2}, {1, 2});
  HostTensor bi = typed<int8_t>(DType::kInt8, {1, 2, 1}, {3, 4});
  EXPECT_EQ(typed_values<int32_t>(tosa1("MATMUL", attrs({{"a_zp", int64_t{1}}, {"b_zp", int64_t{2}}}), {ai, bi})),
            (std::vector<int32_t>{2}));  // (1-1)*(3-2) + (2-1)*(4-2)
}

TEST(TosaOps, ElementwiseFloatAndInt) {
  HostTensor a = tensor({2, 1}, {1, 2}), b = tensor({1, 3}, {10, 20, 30});
  EXPECT_EQ(values(tosa1("ADD", {}, {a, b})), (std::vector<float>{11, 21, 31, 12, 22, 32}));
  EXPECT_EQ(values(tosa1("SUB", {}, {a, b})), (std::vector<float>{-9, -19, -29, -8, -18, -28}));
  EXPECT_EQ(values(tosa1("POW", {}, {tensor({2}, {2, 3}), tensor({2}, {3, 2})})), (std::vector<float>{8, 9}));
  expect_near(tosa1("ERF", {}, {tensor({2}, {0, 1})}), tensor({2}, {0, 0.84270079f}), 1e-6f);
  expect_near(tosa1("SIGMOID", {}, {tensor({1}, {0})}), tensor({1}, {0.5f}), 0);
  HostTensor n = tensor({2}, {NAN, 1});
  HostTensor one = tensor({2}, {0, 0});
  EXPECT_TRUE(std::isnan(values(tosa1("MAXIMUM", {}, {n, one}))[0]));
  EXPECT_EQ(values(tosa1("MAXIMUM", attrs({{"nan_mode", int64_t{2}}}), {n, one}))[0], 0.0f);
  // int32.
  HostTensor ia = typed<int32_t>(DType::kInt32, {2, 1}, {3, -7});
  HostTensor ib = typed<int32_t>(DType::kInt32, {1, 2}, {5, 6});
  EXPECT_EQ(typed_values<int32_t>(tosa1("ADD", {}, {ia, ib})), (std::vector<int32_t>{8, 9, -2, -1}));
  EXPECT_EQ(typed_values<int32_t>(tosa1("MINIMUM", {}, {ia, ib})), (std::vector<int32_t>{3, 3, -7, -7}));
  EXPECT_EQ(typed_values<int32_t>(tosa1("MUL", {}, {ia, ib})), (std::vector<int32_t>{15, 18, -35, -42}));
  // shift: (a*b + 2^(s-1)) >> s, rounding toward +inf at the half.
  EXPECT_EQ(typed_values<int32_t>(tosa1("MUL", attrs({{"shift", int64_t{2}}}), {ia, ib})),
            (std::vector<int32_t>{4, 5, -9, -10}));
  EXPECT_EQ(typed_values<int32_t>(tosa1("ABS", {}, {ia})), (std::vector<int32_t>{3, 7}));
  // int8 MUL widens to int32.
  HostTensor i8 = typed<int8_t>(DType::kInt8, {2}, {100, -128});
  HostTensor p = tosa1("MUL", {}, {i8, i8});
  EXPECT_EQ(p.dtype(), DType::kInt32);
  EXPECT_EQ(typed_values<int32_t>(p), (std::vector<int32_t>{10000, 16384}));
  // NEGATE with zero points saturates to the type.
  HostTensor ng = tosa1("NEGATE", attrs({{"input1_zp", int64_t{2}}, {"output_zp", int64_t{-3}}}),
                        {typed<int8_t>(DType::kInt8, {2}, {10, -128})});
  EXPECT_EQ(typed_values<int8_t>(ng), (std::vector<int8_t>{-11, 127}));
  EXPECT_EQ(typed_values<int8_t>(tosa1("CLAMP", attrs({{"min_val", int64_t{-5}}, {"max_val", int64_t{5}}}),
                                       {typed<int8_t>(DType::kInt8, {3}, {-100, 3, 100})})),
            (std::vector<int8_t>{-5, 3, 5}));
  HostTensor cf = tosa1("CLAMP", attrs({{"min_val", -1.0}, {"max_val", 1.0}}), {tensor({3}, {-3, 0.5f, NAN})});
  EXPECT_EQ(values(cf)[0], -1.0f);
  EXPECT_TRUE(std::isnan(values(cf)[2]));
}

TEST(TosaOps, RescaleSpecArithmetic) {
  auto rescale = [](HostTensor in, Attributes a) { return tosa1("RESCALE", a, {std::move(in)}); };
  const int64_t half = int64_t{1} << 30;  // with shift 31: scale 0.5
  Attributes a = attrs({{"output_type", std::string("int8")},
                        {"multiplier", I{half}},
                        {"shift", I{31}},
                        {"scale32", int64_t{1}},
                        {"rounding_mode", int64_t{1}}});
  HostTensor in = typed<int32_t>(DType::kInt32, {5}, {3, -3, 5, 300, -300});
  EXPECT_EQ(typed_values<int8_t>(rescale(in, a)), (std::vector<int8_t>{2, -1, 3, 127, -128}));
  a.set("output_zp", int64_t{10});
  EXPECT_EQ(typed_values<int8_t>(rescale(in, a)), (std::vector<int8_t>{12, 9, 13, 127, -128}));
  // DOUBLE_ROUND (shift > 31) rounds -1.5 away from zero; SINGLE_ROUND rounds it up.
  Attributes q = attrs({{"output_type", std::string("int32")}, {"multiplier", I{half}}, {"shift", I{32}}});
  HostTensor six = typed<int32_t>(DType::kInt32, {2}, {6, -6});
  EXPECT_EQ(typed_values<int32_t>(rescale(six, q)), (std::vector<int32_t>{2, -1}));
  q.set("rounding_mode", int64_t{3});
  EXPECT_EQ(typed_values<int32_t>(rescale(six, q)), (std::vector<int32_t>{2, -2}));
  // Per-channel on the last dim.
  Attributes pc = attrs({{"output_type", std::string("int32")},
                         {"per_channel", int64_t{1}},
                         {"multiplier", I{half, half}},
                         {"shift", I{30, 31}}});
  EXPECT_EQ(typed_values<int32_t>(rescale(typed<int32_t>(DType::kInt32, {2, 2}, {4, 4, 4, 4}), pc)),
            (std::vector<int32_t>{4, 2, 4, 2}));
  // scale16: multiplier 2^14, shift 15 = 0.5.
  Attributes s16 = attrs(
      {{"output_type", std::string("int16")}, {"scale32", int64_t{0}}, {"multiplier", I{16384}}, {"shift", I{15}}});
  EXPECT_EQ(typed_values<int16_t>(rescale(typed<int16_t>(DType::kInt16, {2}, {5, -5}), s16)),
            (std::vector<int16_t>{3, -2}));
  // Unsigned input (uint8 255 with zp 128) to int8, and int8 to unsigned output.
  Attributes u = attrs({{"output_type", std::string("int8")},
                        {"input_unsigned", int64_t{1}},
                        {"input_zp", int64_t{128}},
                        {"multiplier", I{half}},
                        {"shift", I{30}}});
  EXPECT_EQ(typed_values<int8_t>(rescale(typed<uint8_t>(DType::kUint8, {3}, {255, 0, 128}), u)),
            (std::vector<int8_t>{127, -128, 0}));
  Attributes uo = attrs({{"output_type", std::string("uint8")},
                         {"output_unsigned", int64_t{1}},
                         {"input_zp", int64_t{-128}},
                         {"multiplier", I{half}},
                         {"shift", I{30}}});
  EXPECT_EQ(typed_values<uint8_t>(rescale(typed<int8_t>(DType::kInt8, {2}, {-128, 127}), uo)),
            (std::vector<uint8_t>{0, 255}));
  // Errors: bad shift, DOUBLE_ROUND without scale32, wrong list length.
  Attributes bad = a;
  bad.set("shift", I{1});
  EXPECT_NE(run_tosa("RESCALE", bad, std::vector<HostTensor>{in}).status().message().find("shift"), std::string::npos);
  Attributes bad2 = s16;
  bad2.set("rounding_mode", int64_t{3});
  EXPECT_FALSE(run_tosa("RESCALE", bad2, std::vector<HostTensor>{in}).ok());
  Attributes bad3 = pc;
  bad3.set("multiplier", I{half});
  EXPECT_NE(run_tosa("RESCALE", bad3, std::vector<HostTensor>{typed<int32_t>(DType::kInt32, {2, 2}, {})})
                .status()
                .message()
                .find("multiplier"),
            std::string::npos);
}

TEST(TosaOps, TableInt8AndInt16) {
  std::vector<int8_t> t8(256);
  for (int i = 0; i < 256; ++i) t8[static_cast<size_t>(i)] = static_cast<int8_t>(127 - i);
  HostTensor out =
      tosa1("TABLE", {}, {typed<int8_t>(DType::kInt8, {3}, {-128, 0, 127}), typed<int8_t>(DType::kInt8, {256}, t8)});
  EXPECT_EQ(typed_values<int8_t>(out), (std::vector<int8_t>{127, -1, -128}));
  std::vector<int16_t> t16(513);
  for (int i = 0; i < 513; ++i) t16[static_cast<size_t>(i)] = static_cast<int16_t>(2 * i);
  HostTensor o16 = tosa1(
      "TABLE", {}, {typed<int16_t>(DType::kInt16, {3}, {-32768, 0, 100}), typed<int16_t>(DType::kInt16, {513}, t16)});
  EXPECT_EQ(typed_values<int32_t>(o16), (std::vector<int32_t>{0, 65536, 65736}));  // 2*(x+32768)
  EXPECT_FALSE(
      run_tosa("TABLE", {},
               std::vector<HostTensor>{typed<int8_t>(DType::kInt8, {1}, {0}), typed<int8_t>(DType::kInt8, {255}, {})})
          .ok());
}

TEST(TosaOps, CastRoundsToNearestEvenAndSaturates) {
  HostTensor f = tensor({7}, {2.5f, 3.5f, -2.5f, 200, -200, 1.4f, -0.6f});
  EXPECT_EQ(typed_values<int8_t>(tosa1("CAST", attrs({{"output_type", std::string("int8")}}), {f})),
            (std::vector<int8_t>{2, 4, -2, 127, -128, 1, -1}));
  EXPECT_EQ(typed_values<int32_t>(tosa1("CAST", attrs({{"output_type", std::string("int32")}}), {f}))[3], 200);
  HostTensor i = typed<int32_t>(DType::kInt32, {2}, {300, -1});
  EXPECT_EQ(typed_values<int8_t>(tosa1("CAST", attrs({{"output_type", std::string("int8")}}), {i})),
            (std::vector<int8_t>{44, -1}));
  EXPECT_EQ(values(tosa1("CAST", attrs({{"output_type", std::string("float32")}}), {i})),
            (std::vector<float>{300, -1}));
  EXPECT_EQ(typed_values<uint8_t>(tosa1("CAST", attrs({{"output_type", std::string("bool")}}), {tensor({2}, {0, -3})})),
            (std::vector<uint8_t>{0, 1}));
  EXPECT_FALSE(run_tosa("CAST", {}, std::vector<HostTensor>{f}).ok());  // output_type is required
}

TEST(TosaOps, DataLayoutOps) {
  HostTensor x = tensor({2, 2}, {1, 2, 3, 4});
  HostTensor p = tosa1("PAD", attrs({{"padding", I{1, 0, 0, 2}}, {"pad_const", 9.0}}), {x});
  EXPECT_EQ(p.shape(), (Shape{3, 4}));
  EXPECT_EQ(values(p), (std::vector<float>{9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9}));
  HostTensor t = tosa1("TILE", attrs({{"multiples", I{2, 2}}}), {tensor({1, 2}, {1, 2})});
  EXPECT_EQ(values(t), (std::vector<float>{1, 2, 1, 2, 1, 2, 1, 2}));
  HostTensor s = tosa1("SLICE", attrs({{"start", I{1, 0}}, {"size", I{1, 2}}}), {x});
  EXPECT_EQ(values(s), (std::vector<float>{3, 4}));
  EXPECT_FALSE(run_tosa("SLICE", attrs({{"start", I{1, 1}}, {"size", I{1, 2}}}), std::vector<HostTensor>{x}).ok());
  HostTensor c = tosa1("CONCAT", attrs({{"axis", int64_t{0}}}), {x, tensor({1, 2}, {5, 6})});
  EXPECT_EQ(values(c), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values(tosa1("TRANSPOSE", attrs({{"perms", I{1, 0}}}), {x})), (std::vector<float>{1, 3, 2, 4}));
  EXPECT_EQ(tosa1("RESHAPE", attrs({{"shape", I{4, 1}}}), {x}).shape(), (Shape{4, 1}));
  HostTensor r = tosa1("REDUCE_SUM", attrs({{"axis", int64_t{1}}}), {x});
  EXPECT_EQ(r.shape(), (Shape{2, 1}));
  EXPECT_EQ(values(r), (std::vector<float>{3, 7}));
  HostTensor m =
      tosa1("REDUCE_MAX", attrs({{"axis", int64_t{0}}}), {typed<int8_t>(DType::kInt8, {2, 2}, {-5, 7, 3, -9})});
  EXPECT_EQ(m.shape(), (Shape{1, 2}));
  EXPECT_EQ(typed_values<int8_t>(m), (std::vector<int8_t>{3, 7}));
  HostTensor am = tosa1("ARGMAX", attrs({{"axis", int64_t{1}}}), {tensor({2, 3}, {1, 5, 5, 9, -1, 2})});
  EXPECT_EQ(am.shape(), (Shape{2}));
  EXPECT_EQ(typed_values<int32_t>(am), (std::vector<int32_t>{1, 0}));
}

TEST(TosaOps, ErrorsNameTheProblem) {
  HostTensor x = random_tensor({1, 5, 5, 1}, 1);
  // (5 + 0 - 2) / 2 is not exact.
  auto r = run_tosa("AVG_POOL2D", attrs({{"kernel", I{2, 2}}, {"stride", I{2, 2}}}), std::vector<HostTensor>{x});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("AVG_POOL2D"), std::string::npos) << r.status().to_string();
  EXPECT_NE(r.status().message().find("exact"), std::string::npos) << r.status().to_string();
  r = run_tosa("AVG_POOL2D", attrs({{"kernel", I{2, 2}}, {"stride", I{1, 1}}, {"pad", I{2, 0, 0, 0}}}),
               std::vector<HostTensor>{x});
  EXPECT_NE(r.status().message().find("pad"), std::string::npos) << r.status().to_string();
  r = run_tosa("ADD", {}, std::vector<HostTensor>{random_tensor({2, 3}, 1), random_tensor({3}, 2)});
  EXPECT_NE(r.status().message().find("rank"), std::string::npos) << r.status().to_string();
  r = run_tosa("MUL", attrs({{"shift", int64_t{1}}}),
               std::vector<HostTensor>{random_tensor({2}, 1), random_tensor({2}, 2)});
  EXPECT_NE(r.status().message().find("shift"), std::string::npos) << r.status().to_string();
  r = run_tosa("CONV2D", {}, std::vector<HostTensor>{x, random_tensor({2, 3, 3, 4}, 2)});
  EXPECT_NE(r.status().message().find("weight"), std::string::npos) << r.status().to_string();
  r = run_tosa("AVG_POOL2D", attrs({{"kernel", I{1, 1}}, {"stride", I{1, 1}}, {"input_zp", int64_t{3}}}),
               std::vector<HostTensor>{x});
  EXPECT_NE(r.status().message().find("input_zp"), std::string::npos) << r.status().to_string();
}

TEST(TosaOps, ResizeByHand) {
  // 2x2 -> 3x3 with align-corners steps (n=2, d=1): the centre row/column is the midpoint.
  HostTensor x = tensor({1, 2, 2, 1}, {0, 2, 4, 6});
  Attributes a = attrs({{"mode", int64_t{2}}, {"scale", I{2, 1, 2, 1}}, {"offset", I{0, 0}}, {"border", I{0, 0}}});
  EXPECT_EQ(values(tosa1("RESIZE", a, {x})), (std::vector<float>{0, 1, 2, 2, 3, 4, 4, 5, 6}));
  // Nearest rounds a half position up: 0 -> 0, 0.5 -> 1, 1 -> 1.
  a.set("mode", int64_t{1});
  EXPECT_EQ(values(tosa1("RESIZE", a, {x})), (std::vector<float>{0, 2, 2, 4, 6, 6, 4, 6, 6}));
  // Positions -0.25, 0.25, 0.75, 1.25: the outer two clamp to the edges.
  Attributes h = attrs({{"mode", int64_t{2}}, {"scale", I{1, 1, 4, 2}}, {"offset", I{0, -1}}, {"border", I{0, 1}}});
  EXPECT_EQ(values(tosa1("RESIZE", h, {tensor({1, 1, 2, 1}, {0, 4})})), (std::vector<float>{0, 1, 3, 4}));
  EXPECT_FALSE(
      run_tosa("RESIZE", a, std::vector<HostTensor>{typed<int32_t>(DType::kInt32, {1, 2, 2, 1}, {0, 1, 2, 3})}).ok());
}

// RESIZE with ops::resize_for_upsample's attributes is PyTorch's upsample (whose reference
// kernel is golden-checked against PyTorch) on the NHWC form.
TEST(TosaOps, ResizeMatchesUpsample) {
  struct Case {
    const char* op;
    I out;
    bool align;
    double scale;
  };
  const HostTensor x = random_tensor({2, 3, 5, 4}, 7);
  const std::vector<Shape> shapes{x.shape()};
  for (const Case& c : {Case{"upsample_nearest2d", {10, 8}, false, 0}, Case{"upsample_nearest2d", {15, 12}, false, 3},
                        Case{"upsample_nearest2d", {5, 2}, false, 0}, Case{"upsample_bilinear2d", {10, 8}, false, 2},
                        Case{"upsample_bilinear2d", {20, 16}, false, 0}, Case{"upsample_bilinear2d", {9, 7}, true, 0},
                        Case{"upsample_bilinear2d", {17, 13}, true, 0}, Case{"upsample_bilinear2d", {5, 1}, true, 0}}) {
    Attributes a = attrs({{"output_size", c.out}});
    if (c.align) a.set("align_corners", int64_t{1});
    if (c.scale > 0) a.set("scales", std::vector<double>{c.scale, c.scale});
    auto u = ops::upsample2d(c.op, a, shapes);
    UNIVK_ASSERT_OK(u);
    auto resize = ops::resize_for_upsample(*u);
    UNIVK_ASSERT_OK(resize);
    const HostTensor want = nchw_to_nhwc(run1(c.op, a, {x}));
    expect_near(tosa1("RESIZE", *resize, {nchw_to_nhwc(x)}), want, 1e-6f);
  }
}

}  // namespace
}  // namespace univk::reference::testing
