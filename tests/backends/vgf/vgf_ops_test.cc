// The VgfBackend's lowering at the TOSA level: every TOSA operator it runs against
// univk::reference::run_tosa on random inputs, several shapes each (broadcasting, asymmetric
// padding, strides, dilation), including what univk's own lowering never emits but VGF files
// from other encoders hold (ERF, ARGMAX, REDUCE_MAX, PAD, TILE, int32 MUL shifts, int8
// RESCALE/TABLE/CAST, quantized pools and convolutions). PyTorch-level operators are checked
// by the conformance table (tests/conformance).
#include <cmath>
#include <cstring>

#include "vgf_test_util.h"
#include "univk_test.h"

namespace univk::backends::vgf_test {
namespace {

struct OpCase {
  TosaOp op;
  Attributes attrs;
  std::vector<HostTensor> inputs;
  std::vector<int64_t> out_shape;
  DType out_dtype = DType::kFloat32;
  float tol = 1e-5f;
};

// Zero points and pad_const go to the reference as ints (its convention), to SPIR-V as the
// element type's kind.
Attributes reference_attrs(Attributes a) {
  for (const char* name : {"input_zp", "output_zp", "weight_zp", "a_zp", "b_zp", "input1_zp"})
    if (a.has(name)) a.set(name, static_cast<int64_t>(a.get_float(name).value()));
  return a;
}

void run_case(const OpCase& c, const std::string& what) {
  TosaGraph g;
  std::vector<ValueId> ins;
  for (size_t i = 0; i < c.inputs.size(); ++i)
    ins.push_back(g.add_input({c.inputs[i].dtype(), c.inputs[i].shape().dims()}, 0, static_cast<uint32_t>(i)));
  ValueId y = g.add_operation(c.op, ins, c.attrs, {c.out_dtype, c.out_shape});
  g.add_output(y, 0, static_cast<uint32_t>(c.inputs.size()));
  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded) << what;
  auto out = loaded->delegate->execute(c.inputs);
  UNIVK_ASSERT_OK(out) << what;
  Attributes ref_attrs = reference_attrs(c.attrs);
  if (c.op == TosaOp::kCast || c.op == TosaOp::kRescale)
    ref_attrs.set("output_type", std::string(dtype_name(c.out_dtype)));
  auto want = reference::run_tosa(spirv::tosa_op_name(c.op), ref_attrs, c.inputs);
  UNIVK_ASSERT_OK(want) << what;
  EXPECT_TRUE(tensors_close((*out)[0], (*want)[0], {c.tol, c.tol})) << what;
}

HostTensor f32(Shape s, uint32_t seed, float lo = -2.f, float hi = 2.f) {
  return random_tensor(DType::kFloat32, s, seed, lo, hi);
}

TEST(VgfOps, BinaryElementwiseWithBroadcast) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {Shape({2, 3, 5}), Shape({2, 3, 5})}, {Shape({2, 3, 5}), Shape({1, 3, 1})}, {Shape({1, 7}), Shape({4, 1})}};
  for (TosaOp op : {TosaOp::kAdd, TosaOp::kSub, TosaOp::kMul, TosaOp::kMaximum, TosaOp::kMinimum, TosaOp::kPow}) {
    uint32_t seed = 10;
    for (const auto& [a, b] : shapes) {
      OpCase c{op, {}, {f32(a, seed++, op == TosaOp::kPow ? 0.1f : -2.f), f32(b, seed++)}, {}};
      c.out_shape = broadcast_shapes(a, b)->dims();
      if (op == TosaOp::kMul) c.attrs.set("shift", int64_t{0});
      if (op == TosaOp::kMaximum || op == TosaOp::kMinimum) c.attrs.set("nan_mode", spirv::kNanPropagate);
      run_case(c, std::string(spirv::tosa_op_name(op)) + " " + a.to_string() + " " + b.to_string());
    }
  }
}

TEST(VgfOps, UnaryElementwise) {
  for (TosaOp op :
       {TosaOp::kSigmoid, TosaOp::kTanh, TosaOp::kExp, TosaOp::kLog, TosaOp::kAbs, TosaOp::kNegate, TosaOp::kReciprocal,
        TosaOp::kRsqrt, TosaOp::kErf, TosaOp::kCeil, TosaOp::kFloor, TosaOp::kSin, TosaOp::kCos}) {
    const bool positive = op == TosaOp::kLog || op == TosaOp::kRsqrt || op == TosaOp::kReciprocal;
    for (Shape s : {Shape({3, 7}), Shape({1, 5, 5, 3})}) {
      OpCase c{op, {}, {f32(s, 3, positive ? 0.2f : -4.f, 4.f)}, s.dims()};
      if (op == TosaOp::kNegate) {
        c.attrs.set("input1_zp", 0.0);
        c.attrs.set("output_zp", 0.0);
      }
      run_case(c, std::string(spirv::tosa_op_name(op)) + " " + s.to_string());
    }
  }
  OpCase clamp{TosaOp::kClamp, {}, {f32(Shape({4, 9}), 4)}, {4, 9}};
  clamp.attrs.set("min_val", -0.5);
  clamp.attrs.set("max_val", 1.25);
  clamp.attrs.set("nan_mode", spirv::kNanPropagate);
  run_case(clamp, "CLAMP");
}

TEST(VgfOps, Int32ElementwiseAndMulShift) {
  for (int64_t shift : {0, 3, 31}) {
    OpCase c{TosaOp::kMul,
             {},
             {random_tensor(DType::kInt32, Shape({3, 17}), 5, -30000, 30000),
              random_tensor(DType::kInt32, Shape({1, 17}), 6, -30000, 30000)},
             {3, 17},
             DType::kInt32};
    c.attrs.set("shift", shift);
    run_case(c, "MUL int32 shift " + std::to_string(shift));
  }
  for (TosaOp op : {TosaOp::kAdd, TosaOp::kSub, TosaOp::kMaximum}) {
    OpCase c{op,
             {},
             {random_tensor(DType::kInt32, Shape({2, 9}), 7, -1000, 1000),
              random_tensor(DType::kInt32, Shape({2, 1}), 8, -1000, 1000)},
             {2, 9},
             DType::kInt32};
    if (op == TosaOp::kMaximum) c.attrs.set("nan_mode", spirv::kNanPropagate);
    run_case(c, std::string(spirv::tosa_op_name(op)) + " int32");
  }
}

TEST(VgfOps, Pools) {
  struct P {
    std::vector<int64_t> in, kernel, stride, pad;
  };
  for (const P& p : {P{{1, 8, 8, 3}, {2, 2}, {2, 2}, {0, 0, 0, 0}}, P{{2, 7, 9, 5}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
                     P{{1, 6, 5, 2}, {3, 2}, {1, 1}, {2, 0, 1, 0}}}) {
    const int64_t oh = (p.in[1] + p.pad[0] + p.pad[1] - p.kernel[0]) / p.stride[0] + 1;
    const int64_t ow = (p.in[2] + p.pad[2] + p.pad[3] - p.kernel[1]) / p.stride[1] + 1;
    for (TosaOp op : {TosaOp::kAvgPool2d, TosaOp::kMaxPool2d}) {
      OpCase c{op, {}, {f32(Shape(p.in), 9)}, {p.in[0], oh, ow, p.in[3]}};
      c.attrs.set("kernel", p.kernel);
      c.attrs.set("stride", p.stride);
      c.attrs.set("pad", p.pad);
      if (op == TosaOp::kAvgPool2d) {
        c.attrs.set("acc_type", spirv::kAccFp32);
        c.attrs.set("input_zp", 0.0);
        c.attrs.set("output_zp", 0.0);
      } else {
        c.attrs.set("nan_mode", spirv::kNanPropagate);
      }
      run_case(c, std::string(spirv::tosa_op_name(op)) + " " + Shape(p.in).to_string());
    }
  }
}

TEST(VgfOps, Convolutions) {
  struct C {
    std::vector<int64_t> in;
    int64_t oc, k;
    std::vector<int64_t> stride, dilation, pad;
  };
  for (const C& p :
       {C{{1, 6, 6, 3}, 4, 3, {1, 1}, {1, 1}, {1, 1, 1, 1}}, C{{2, 9, 7, 2}, 3, 3, {2, 2}, {1, 1}, {1, 1, 0, 0}},
        C{{1, 8, 8, 2}, 2, 2, {1, 1}, {2, 2}, {0, 0, 0, 0}}}) {
    const int64_t oh = (p.in[1] - 1 + p.pad[0] + p.pad[1] - (p.k - 1) * p.dilation[0]) / p.stride[0] + 1;
    const int64_t ow = (p.in[2] - 1 + p.pad[2] + p.pad[3] - (p.k - 1) * p.dilation[1]) / p.stride[1] + 1;
    Attributes a;
    a.set("pad", p.pad);
    a.set("stride", p.stride);
    a.set("dilation", p.dilation);
    a.set("acc_type", spirv::kAccFp32);
    a.set("local_bound", int64_t{0});
    a.set("input_zp", 0.0);
    a.set("weight_zp", 0.0);
    OpCase conv{TosaOp::kConv2d,
                a,
                {f32(Shape(p.in), 11), f32(Shape({p.oc, p.k, p.k, p.in[3]}), 12), f32(Shape({p.oc}), 13)},
                {p.in[0], oh, ow, p.oc}};
    run_case(conv, "CONV2D " + Shape(p.in).to_string());
    const int64_t m = 2;
    OpCase dw{TosaOp::kDepthwiseConv2d,
              a,
              {f32(Shape(p.in), 14), f32(Shape({p.k, p.k, p.in[3], m}), 15), f32(Shape({1}), 16)},
              {p.in[0], oh, ow, p.in[3] * m}};
    run_case(dw, "DEPTHWISE_CONV2D " + Shape(p.in).to_string());
  }
}

// Cropping (negative) and growing (positive) out_pad, strides, a broadcast bias, a batch.
TEST(VgfOps, TransposeConvolutions) {
  struct C {
    std::vector<int64_t> in;
    int64_t oc, kh, kw;
    std::vector<int64_t> stride, out_pad;
    int64_t bias;
  };
  for (const C& p :
       {C{{1, 4, 5, 3}, 2, 3, 3, {2, 2}, {-1, 0, 0, 1}, 2}, C{{2, 3, 3, 2}, 3, 2, 3, {3, 1}, {1, 2, -2, 0}, 1},
        C{{1, 5, 4, 4}, 5, 1, 1, {1, 1}, {0, 0, 0, 0}, 5}}) {
    Attributes a;
    a.set("out_pad", p.out_pad);
    a.set("stride", p.stride);
    a.set("acc_type", spirv::kAccFp32);
    a.set("local_bound", int64_t{0});
    a.set("input_zp", 0.0);
    a.set("weight_zp", 0.0);
    const int64_t oh = (p.in[1] - 1) * p.stride[0] + p.out_pad[0] + p.out_pad[1] + p.kh;
    const int64_t ow = (p.in[2] - 1) * p.stride[1] + p.out_pad[2] + p.out_pad[3] + p.kw;
    OpCase tc{TosaOp::kTransposeConv2d,
              a,
              {f32(Shape(p.in), 21), f32(Shape({p.oc, p.kh, p.kw, p.in[3]}), 22), f32(Shape({p.bias}), 23)},
              {p.in[0], oh, ow, p.oc}};
    run_case(tc, "TRANSPOSE_CONV2D " + Shape(p.in).to_string());
  }
}

// The int32 bit operators, shifts (amounts in [0, 31]), INTDIV (non-zero divisors) and CLZ, alone
// and as one fused program (PyTorch's floor division: INTDIV with its sign fix-up).
TEST(VgfOps, Int32BitOperators) {
  const HostTensor a = random_tensor(DType::kInt32, Shape({3, 11}), 30, -2147483648.0, 2147483647.0);
  const HostTensor b = random_tensor(DType::kInt32, Shape({1, 11}), 31, -2147483648.0, 2147483647.0);
  const HostTensor amounts = random_tensor(DType::kInt32, Shape({3, 11}), 32, 0, 31);
  HostTensor divisors = random_tensor(DType::kInt32, Shape({1, 11}), 33, -50, 50);
  for (int32_t& d : divisors.data<int32_t>()) d = d == 0 ? 7 : d;
  auto binary = [&](TosaOp op, const HostTensor& y, Attributes attrs = {}) {
    run_case({op, std::move(attrs), {a, y}, {3, 11}, DType::kInt32}, std::string(spirv::tosa_op_name(op)) + " int32");
  };
  for (TosaOp op : {TosaOp::kBitwiseAnd, TosaOp::kBitwiseOr, TosaOp::kBitwiseXor}) binary(op, b);
  for (TosaOp op : {TosaOp::kLogicalLeftShift, TosaOp::kLogicalRightShift}) binary(op, amounts);
  for (int64_t round : {0, 1}) {
    Attributes r;
    r.set("round", round);
    binary(TosaOp::kArithmeticRightShift, amounts, r);
  }
  binary(TosaOp::kIntdiv, divisors);
  HostTensor with_zero = a;
  with_zero.data<int32_t>()[4] = 0;
  for (TosaOp op : {TosaOp::kBitwiseNot, TosaOp::kClz})
    run_case({op, {}, {with_zero}, {3, 11}, DType::kInt32}, std::string(spirv::tosa_op_name(op)) + " int32");

  // floor(a / d) = INTDIV(a, d) - ((a ^ d) >> 31 & (1 - (CLZ(a - INTDIV(a, d) * d) >> 5))).
  TosaGraph g;
  const spirv::TosaTensorType t{DType::kInt32, {3, 11}};
  const ValueId x = g.add_input(t, 0, 0), d = g.add_input({DType::kInt32, {1, 11}}, 0, 1);
  auto scalar = [&](int32_t v) {
    std::vector<uint8_t> bytes(4);
    std::memcpy(bytes.data(), &v, 4);
    return g.add_constant({DType::kInt32, {1, 1}}, bytes);
  };
  Attributes no_shift, no_round;
  no_shift.set("shift", int64_t{0});
  no_round.set("round", int64_t{0});
  const ValueId q = g.add_operation(TosaOp::kIntdiv, {x, d}, {}, t);
  const ValueId r = g.add_operation(TosaOp::kSub, {x, g.add_operation(TosaOp::kMul, {q, d}, no_shift, t)}, {}, t);
  const ValueId zero =
      g.add_operation(TosaOp::kLogicalRightShift, {g.add_operation(TosaOp::kClz, {r}, {}, t), scalar(5)}, {}, t);
  const ValueId nonzero = g.add_operation(TosaOp::kSub, {scalar(1), zero}, {}, t);
  const ValueId differ = g.add_operation(
      TosaOp::kArithmeticRightShift, {g.add_operation(TosaOp::kBitwiseXor, {x, d}, {}, t), scalar(31)}, no_round, t);
  g.add_output(
      g.add_operation(TosaOp::kSub, {q, g.add_operation(TosaOp::kBitwiseAnd, {differ, nonzero}, {}, t)}, {}, t), 0, 2);
  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded);
  const HostTensor small = random_tensor(DType::kInt32, Shape({3, 11}), 34, -1000, 1000);
  auto out = loaded->delegate->execute(std::vector<HostTensor>{small, divisors});
  UNIVK_ASSERT_OK(out);
  for (int64_t i = 0; i < 33; ++i) {
    const int32_t n = small.data<int32_t>()[static_cast<size_t>(i)],
                  m = divisors.data<int32_t>()[static_cast<size_t>(i % 11)];
    const int32_t want = static_cast<int32_t>(std::floor(static_cast<double>(n) / m));
    EXPECT_EQ((*out)[0].data<int32_t>()[static_cast<size_t>(i)], want) << n << " // " << m;
  }

  // int8 operands: the reference takes them, the lowering refuses them by name.
  if (test_graph_path() == "native") return;
  TosaGraph g8;
  const ValueId u = g8.add_input({DType::kInt8, {4}}, 0, 0), v = g8.add_input({DType::kInt8, {4}}, 0, 1);
  g8.add_output(g8.add_operation(TosaOp::kBitwiseAnd, {u, v}, {}, {DType::kInt8, {4}}), 0, 2);
  auto refused = load(single_graph_model(g8));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("BITWISE_AND on int8"), std::string::npos) << refused.status().message();
}

// LOGICAL_XOR and REDUCE_ALL / REDUCE_ANY on bool tensors.
TEST(VgfOps, BoolLogicAndReductions) {
  const HostTensor p = random_tensor(DType::kBool, Shape({3, 4, 5}), 35);
  const HostTensor q = random_tensor(DType::kBool, Shape({3, 1, 5}), 36);
  run_case({TosaOp::kLogicalXor, {}, {p, q}, {3, 4, 5}, DType::kBool}, "LOGICAL_XOR");
  for (TosaOp op : {TosaOp::kReduceAll, TosaOp::kReduceAny}) {
    for (int64_t axis : {0, 1, 2}) {
      std::vector<int64_t> kept = p.shape().dims();
      kept[static_cast<size_t>(axis)] = 1;
      Attributes a;
      a.set("axis", axis);
      run_case({op, a, {p}, kept, DType::kBool},
               std::string(spirv::tosa_op_name(op)) + " axis " + std::to_string(axis));
    }
  }
}

TEST(VgfOps, MatmulAndReductions) {
  Attributes mm;
  mm.set("a_zp", 0.0);
  mm.set("b_zp", 0.0);
  run_case(
      {TosaOp::kMatmul, mm, {f32(Shape({2, 5, 7}), 17), f32(Shape({2, 7, 3}), 18)}, {2, 5, 3}, DType::kFloat32, 1e-5f},
      "MATMUL");
  // int8 x int8 -> int32 with zero points: one int8 kernel dispatch per batch, K past one
  // chunk of 4 and not a multiple of it.
  Attributes mm8;
  mm8.set("a_zp", int64_t{-7});
  mm8.set("b_zp", int64_t{12});
  run_case({TosaOp::kMatmul,
            mm8,
            {random_tensor(DType::kInt8, Shape({3, 37, 70}), 20), random_tensor(DType::kInt8, Shape({3, 70, 19}), 21)},
            {3, 37, 19},
            DType::kInt32,
            0.f},
           "MATMUL int8");
  for (int64_t axis : {0, 1, 2}) {
    Shape s({3, 4, 5});
    std::vector<int64_t> kept = s.dims();
    kept[axis] = 1;
    std::vector<int64_t> dropped = s.dims();
    dropped.erase(dropped.begin() + axis);
    Attributes a;
    a.set("axis", axis);
    run_case({TosaOp::kReduceSum, a, {f32(s, 19)}, kept}, "REDUCE_SUM axis " + std::to_string(axis));
    Attributes an = a;
    an.set("nan_mode", spirv::kNanPropagate);
    run_case({TosaOp::kReduceMax, an, {f32(s, 20)}, kept}, "REDUCE_MAX axis " + std::to_string(axis));
    run_case({TosaOp::kReduceMin, an, {f32(s, 22)}, kept}, "REDUCE_MIN axis " + std::to_string(axis));
    run_case({TosaOp::kReduceMin,
              an,
              {random_tensor(DType::kInt32, s, 23, -2147483648.0, 2147483647.0)},
              kept,
              DType::kInt32},
             "REDUCE_MIN int32 axis " + std::to_string(axis));
    run_case({TosaOp::kReduceProduct, a, {f32(s, 24, 0.5f, 1.5f)}, kept},
             "REDUCE_PRODUCT axis " + std::to_string(axis));
    run_case({TosaOp::kArgmax, an, {f32(s, 21)}, dropped, DType::kInt32}, "ARGMAX axis " + std::to_string(axis));
  }
}

// f32 with NaN at every `every`-th element (from `first`), and -inf and +inf beside some.
HostTensor with_nans(Shape s, uint32_t seed, size_t first, size_t every) {
  HostTensor t = f32(std::move(s), seed);
  auto v = t.data<float>();
  for (size_t i = first; i < v.size(); i += every) v[i] = NAN;
  if (v.size() > first + 1) v[first + 1] = -INFINITY;
  if (v.size() > first + 2) v[first + 2] = INFINITY;
  return t;
}

// nan_mode PROPAGATE, PyTorch's semantics: a NaN operand or tap gives NaN (ARGMAX: the first
// NaN's index), whatever the order of the operands; GLSL's min/max/clamp alone leave that
// undefined. IGNORE is refused by the lowering with an error naming it (the native path takes it).
TEST(VgfOps, NanPropagates) {
  for (TosaOp op : {TosaOp::kMaximum, TosaOp::kMinimum}) {
    OpCase c{op, {}, {with_nans(Shape({4, 9}), 40, 0, 5), with_nans(Shape({4, 9}), 41, 2, 7)}, {4, 9}};
    c.attrs.set("nan_mode", spirv::kNanPropagate);
    run_case(c, std::string(spirv::tosa_op_name(op)) + " with NaN");
  }
  OpCase clamp{TosaOp::kClamp, {}, {with_nans(Shape({4, 9}), 42, 1, 4)}, {4, 9}};
  clamp.attrs.set("min_val", 0.0);
  clamp.attrs.set("max_val", 6.0);
  clamp.attrs.set("nan_mode", spirv::kNanPropagate);
  run_case(clamp, "CLAMP with NaN");
  run_case({TosaOp::kTanh, {}, {with_nans(Shape({3, 7}), 43, 3, 6)}, {3, 7}}, "TANH with NaN");
  OpCase pool{TosaOp::kMaxPool2d, {}, {with_nans(Shape({1, 6, 6, 2}), 44, 5, 17)}, {1, 3, 3, 2}};
  pool.attrs.set("kernel", std::vector<int64_t>{2, 2});
  pool.attrs.set("stride", std::vector<int64_t>{2, 2});
  pool.attrs.set("pad", std::vector<int64_t>{0, 0, 0, 0});
  pool.attrs.set("nan_mode", spirv::kNanPropagate);
  run_case(pool, "MAX_POOL2D with NaN");
  Attributes axis;
  axis.set("axis", int64_t{1});
  axis.set("nan_mode", spirv::kNanPropagate);
  run_case({TosaOp::kReduceMax, axis, {with_nans(Shape({3, 8, 2}), 45, 4, 9)}, {3, 1, 2}}, "REDUCE_MAX with NaN");
  run_case({TosaOp::kReduceMin, axis, {with_nans(Shape({3, 8, 2}), 47, 4, 9)}, {3, 1, 2}}, "REDUCE_MIN with NaN");
  run_case({TosaOp::kArgmax, axis, {with_nans(Shape({3, 8, 2}), 46, 4, 9)}, {3, 2}, DType::kInt32}, "ARGMAX with NaN");

  // IGNORE: refused by the lowering; the native path (Arm's layer) implements it.
  if (test_graph_path() == "native") return;
  clamp.attrs.set("nan_mode", spirv::kNanIgnore);
  TosaGraph g;
  ValueId x = g.add_input({DType::kFloat32, {4, 9}}, 0, 0);
  g.add_output(g.add_operation(TosaOp::kClamp, {x}, clamp.attrs, {DType::kFloat32, {4, 9}}), 0, 1);
  auto loaded = load(single_graph_model(g));
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.status().message().find("nan_mode 2 is not supported"), std::string::npos)
      << loaded.status().message();
}

TEST(VgfOps, DataMovement) {
  Attributes tr;
  tr.set("perms", std::vector<int64_t>{2, 0, 1});
  run_case({TosaOp::kTranspose, tr, {f32(Shape({3, 4, 5}), 22)}, {5, 3, 4}}, "TRANSPOSE");
  Attributes sl;
  sl.set("start", std::vector<int64_t>{1, 0, 2});
  sl.set("size", std::vector<int64_t>{2, 4, 3});
  run_case({TosaOp::kSlice, sl, {f32(Shape({3, 4, 5}), 23)}, {2, 4, 3}}, "SLICE");
  Attributes rs;
  rs.set("shape", std::vector<int64_t>{4, 15});
  run_case({TosaOp::kReshape, rs, {f32(Shape({3, 4, 5}), 24)}, {4, 15}}, "RESHAPE");
  Attributes pd;
  pd.set("padding", std::vector<int64_t>{1, 0, 2, 1});
  pd.set("pad_const", 0.5);
  run_case({TosaOp::kPad, pd, {f32(Shape({3, 4}), 25)}, {4, 7}}, "PAD");
  Attributes tl;
  tl.set("multiples", std::vector<int64_t>{2, 1, 3});
  run_case({TosaOp::kTile, tl, {f32(Shape({2, 3, 2}), 26)}, {4, 3, 6}}, "TILE");
  Attributes cc;
  cc.set("axis", int64_t{1});
  run_case({TosaOp::kConcat, cc, {f32(Shape({2, 3, 4}), 27), f32(Shape({2, 1, 4}), 28)}, {2, 4, 4}}, "CONCAT");
}

TEST(VgfOps, ResizeMatchesReference) {
  // Half-pixel bilinear 4x5 -> 8x10 (offset in - out), nearest 4x5 -> 8x3 (down along x), and
  // align-corners bilinear 4x5 -> 7x9.
  auto resize = [](int64_t mode, std::vector<int64_t> scale, std::vector<int64_t> offset, std::vector<int64_t> border) {
    Attributes a;
    a.set("mode", mode);
    a.set("scale", std::move(scale));
    a.set("offset", std::move(offset));
    a.set("border", std::move(border));
    return a;
  };
  run_case(
      {TosaOp::kResize, resize(2, {16, 8, 20, 10}, {-4, -5}, {4, 5}), {f32(Shape({2, 4, 5, 3}), 30)}, {2, 8, 10, 3}},
      "RESIZE bilinear");
  run_case({TosaOp::kResize, resize(1, {16, 8, 3, 5}, {-8, -1}, {0, -3}), {f32(Shape({2, 4, 5, 3}), 31)}, {2, 8, 3, 3}},
           "RESIZE nearest");
  run_case({TosaOp::kResize, resize(2, {2, 1, 2, 1}, {0, 0}, {0, 0}), {f32(Shape({1, 4, 5, 2}), 32)}, {1, 7, 9, 2}},
           "RESIZE align corners");
}

Attributes rescale_attrs(bool per_channel, std::vector<int64_t> multiplier, std::vector<int64_t> shift, int64_t in_zp,
                         int64_t out_zp, int64_t rounding = spirv::kRoundingSingle) {
  Attributes a;
  a.set("scale32", int64_t{1});
  a.set("rounding_mode", rounding);
  a.set("per_channel", int64_t{per_channel});
  a.set("input_unsigned", int64_t{0});
  a.set("output_unsigned", int64_t{0});
  a.set("multiplier", multiplier);
  a.set("shift", shift);
  a.set("input_zp", in_zp);
  a.set("output_zp", out_zp);
  return a;
}

TEST(VgfOps, Int8RescaleTableCast) {
  const Shape s({2, 5, 3});
  HostTensor i8 = random_tensor(DType::kInt8, s, 40);
  run_case({TosaOp::kRescale, rescale_attrs(false, {1 << 30}, {20}, -3, 0), {i8}, s.dims(), DType::kInt32},
           "RESCALE i8->i32");
  HostTensor i32 = random_tensor(DType::kInt32, s, 41, -200000, 200000);
  run_case({TosaOp::kRescale,
            rescale_attrs(true, {1518500250, 1073741824, 2000000000}, {40, 38, 45}, 0, 5, spirv::kRoundingDouble),
            {i32},
            s.dims(),
            DType::kInt8},
           "RESCALE i32->i8 per channel, double round");
  run_case({TosaOp::kRescale, rescale_attrs(false, {1234567890}, {31}, 7, -9), {i8}, s.dims(), DType::kInt8},
           "RESCALE i8->i8");
  HostTensor table = random_tensor(DType::kInt8, Shape({256}), 42);
  run_case({TosaOp::kTable, {}, {i8, table}, s.dims(), DType::kInt8}, "TABLE i8");
  HostTensor f = random_tensor(DType::kFloat32, s, 43, -300.f, 300.f);
  run_case({TosaOp::kCast, {}, {f}, s.dims(), DType::kInt8}, "CAST f32->i8");
  run_case({TosaOp::kCast, {}, {f}, s.dims(), DType::kInt32}, "CAST f32->i32");
  run_case({TosaOp::kCast, {}, {i8}, s.dims(), DType::kFloat32}, "CAST i8->f32");
  run_case({TosaOp::kCast, {}, {i32}, s.dims(), DType::kInt8}, "CAST i32->i8");
  run_case({TosaOp::kCast, {}, {i8}, s.dims(), DType::kBool}, "CAST i8->bool");
}

TEST(VgfOps, Int8PoolsAndConvolutions) {
  HostTensor x = random_tensor(DType::kInt8, Shape({1, 7, 6, 3}), 46);
  for (TosaOp op : {TosaOp::kAvgPool2d, TosaOp::kMaxPool2d}) {
    OpCase c{op, {}, {x}, {1, 4, 3, 3}, DType::kInt8};
    c.attrs.set("kernel", std::vector<int64_t>{3, 2});
    c.attrs.set("stride", std::vector<int64_t>{2, 2});
    c.attrs.set("pad", std::vector<int64_t>{1, 1, 0, 0});
    if (op == TosaOp::kAvgPool2d) {
      c.attrs.set("acc_type", spirv::kAccInt32);
      c.attrs.set("input_zp", int64_t{-7});
      c.attrs.set("output_zp", int64_t{3});
    } else {
      c.attrs.set("nan_mode", spirv::kNanPropagate);
    }
    run_case(c, std::string(spirv::tosa_op_name(op)) + " int8");
  }
  const Attributes a = conv2d_int8_attrs(-128, 2);
  run_case({TosaOp::kConv2d,
            a,
            {x, random_tensor(DType::kInt8, Shape({4, 3, 3, 3}), 47),
             random_tensor(DType::kInt32, Shape({4}), 48, -1000, 1000)},
            {1, 7, 6, 4},
            DType::kInt32},
           "CONV2D int8");
  run_case({TosaOp::kDepthwiseConv2d,
            a,
            {x, random_tensor(DType::kInt8, Shape({3, 3, 3, 2}), 49),
             random_tensor(DType::kInt32, Shape({6}), 50, -1000, 1000)},
            {1, 7, 6, 6},
            DType::kInt32},
           "DEPTHWISE_CONV2D int8");
}

// Quantized ADD as TOSA expresses it: RESCALE both int8 inputs to int32, ADD, RESCALE to int8.
TEST(VgfOps, QuantizedAddChain) {
  const TosaTensorType i8{DType::kInt8, {1, 4, 4, 3}}, i32{DType::kInt32, {1, 4, 4, 3}};
  TosaGraph g;
  ValueId a = g.add_input(i8, 0, 0);
  ValueId b = g.add_input(i8, 0, 1);
  Attributes up = rescale_attrs(false, {1 << 30}, {26}, 2, 0);
  Attributes down = rescale_attrs(false, {1 << 30}, {34}, 0, -4);
  ValueId a32 = g.add_operation(TosaOp::kRescale, {a}, up, i32);
  ValueId b32 = g.add_operation(TosaOp::kRescale, {b}, up, i32);
  ValueId sum = g.add_operation(TosaOp::kAdd, {a32, b32}, {}, i32);
  ValueId y = g.add_operation(TosaOp::kRescale, {sum}, down, i8);
  g.add_output(y, 0, 2);
  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded);
  std::vector<HostTensor> in = {random_tensor(DType::kInt8, Shape(i8.shape), 44),
                                random_tensor(DType::kInt8, Shape(i8.shape), 45)};
  auto out = loaded->delegate->execute(in);
  UNIVK_ASSERT_OK(out);
  auto run = [](const char* op, Attributes attrs, std::vector<HostTensor> inputs, DType to) {
    attrs = reference_attrs(attrs);
    attrs.set("output_type", std::string(dtype_name(to)));
    return (*reference::run_tosa(op, attrs, inputs))[0];
  };
  HostTensor want =
      run("RESCALE", down,
          {(*reference::run_tosa("ADD", {},
                                 std::vector<HostTensor>{run("RESCALE", up, {in[0]}, DType::kInt32),
                                                         run("RESCALE", up, {in[1]}, DType::kInt32)}))[0]},
          DType::kInt8);
  EXPECT_TRUE(tensors_close((*out)[0], want, {})) << "quantized add";
  // Lowered: 2 rescales, 1 fused int32 add, 1 rescale; native (vgf_native label): one data graph.
  EXPECT_EQ(loaded->delegate->stats().dispatches, loaded->delegate->graph_path() == "native" ? 1u : 4u);
}

}  // namespace
}  // namespace univk::backends::vgf_test
