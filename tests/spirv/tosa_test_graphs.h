// One small graph per supported TOSA operator, with typical types and attributes, for the
// SPIR-V round-trip and malformed-module tests.
#pragma once

#include <cstring>
#include <vector>

#include "univk/spirv/tosa_graph.h"

namespace univk::spirv::testing {

inline std::vector<uint8_t> f32_bytes(std::vector<float> v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

inline std::vector<uint8_t> i32_bytes(std::vector<int32_t> v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// A graph: input(s) -> op -> output. Returns false for operators without a case here.
inline TosaGraph graph_for(TosaOp op) {
  TosaGraph g;
  const TosaTensorType f4{DType::kFloat32, {1, 4, 4, 3}};
  const TosaTensorType i8_4{DType::kInt8, {1, 4, 4, 3}};
  Attributes a;
  auto unary = [&](TosaTensorType in, TosaTensorType out, Attributes attrs) {
    ValueId x = g.add_input(in, 0, 0);
    ValueId y = g.add_operation(op, {x}, std::move(attrs), out);
    g.add_output(y, 0, 1);
  };
  auto binary = [&](TosaTensorType in1, TosaTensorType in2, TosaTensorType out, Attributes attrs) {
    ValueId x = g.add_input(in1, 0, 0);
    ValueId z = g.add_input(in2, 0, 1);
    ValueId y = g.add_operation(op, {x, z}, std::move(attrs), out);
    g.add_output(y, 0, 2);
  };
  switch (op) {
    case TosaOp::kAvgPool2d:
      a.set("kernel", std::vector<int64_t>{2, 2});
      a.set("stride", std::vector<int64_t>{2, 2});
      a.set("pad", std::vector<int64_t>{0, 0, 0, 0});
      a.set("acc_type", kAccInt32);
      a.set("input_zp", int64_t{-128});
      a.set("output_zp", int64_t{5});
      unary(i8_4, {DType::kInt8, {1, 2, 2, 3}}, a);
      break;
    case TosaOp::kMaxPool2d:
      a.set("kernel", std::vector<int64_t>{3, 3});
      a.set("stride", std::vector<int64_t>{1, 1});
      a.set("pad", std::vector<int64_t>{1, 1, 1, 1});
      a.set("nan_mode", kNanPropagate);
      unary(f4, f4, a);
      break;
    case TosaOp::kConv2d:
    case TosaOp::kDepthwiseConv2d: {
      a.set("pad", std::vector<int64_t>{1, 1, 1, 1});
      a.set("stride", std::vector<int64_t>{1, 1});
      a.set("dilation", std::vector<int64_t>{1, 1});
      a.set("acc_type", kAccFp32);
      a.set("local_bound", int64_t{0});
      a.set("input_zp", 0.0);
      a.set("weight_zp", 0.0);
      ValueId x = g.add_input(f4, 0, 0);
      const bool dw = op == TosaOp::kDepthwiseConv2d;
      TosaTensorType wt =
          dw ? TosaTensorType{DType::kFloat32, {3, 3, 3, 1}} : TosaTensorType{DType::kFloat32, {2, 3, 3, 3}};
      // Weights as a graph constant (data in the VGF), bias inline.
      ValueId w = g.add_graph_constant(wt, 7);
      std::vector<float> bias(dw ? 3 : 2, 0.5f);
      ValueId b = g.add_constant({DType::kFloat32, {static_cast<int64_t>(bias.size())}}, f32_bytes(bias));
      ValueId y = g.add_operation(op, {x, w, b}, a, {DType::kFloat32, {1, 4, 4, dw ? 3 : 2}});
      g.add_output(y, 0, 1);
      break;
    }
    case TosaOp::kTransposeConv2d: {
      // Stride 2 with a negative (cropping) and a positive out_pad: [1,4,4,3] -> [1,8,10,2].
      a.set("out_pad", std::vector<int64_t>{-1, 0, 0, 1});
      a.set("stride", std::vector<int64_t>{2, 2});
      a.set("acc_type", kAccFp32);
      a.set("local_bound", int64_t{0});
      a.set("input_zp", 0.0);
      a.set("weight_zp", 0.0);
      ValueId x = g.add_input(f4, 0, 0);
      ValueId w = g.add_graph_constant({DType::kFloat32, {2, 3, 3, 3}}, 7);
      ValueId b = g.add_constant({DType::kFloat32, {2}}, f32_bytes({0.5f, -0.5f}));
      ValueId y = g.add_operation(op, {x, w, b}, a, {DType::kFloat32, {1, 8, 10, 2}});
      g.add_output(y, 0, 1);
      break;
    }
    case TosaOp::kMatmul:
      a.set("a_zp", int64_t{3});
      a.set("b_zp", int64_t{-2});
      binary({DType::kInt8, {1, 2, 3}}, {DType::kInt8, {1, 3, 4}}, {DType::kInt32, {1, 2, 4}}, a);
      break;
    case TosaOp::kAdd:
    case TosaOp::kSub:
    case TosaOp::kPow:
      binary(f4, {DType::kFloat32, {1, 1, 1, 3}}, f4, a);
      break;
    case TosaOp::kMul:
      a.set("shift", int64_t{3});
      binary({DType::kInt32, {2, 5}}, {DType::kInt32, {2, 5}}, {DType::kInt32, {2, 5}}, a);
      break;
    case TosaOp::kMaximum:
    case TosaOp::kMinimum:
      a.set("nan_mode", kNanIgnore);
      binary({DType::kFloat16, {3, 5}}, {DType::kFloat16, {3, 5}}, {DType::kFloat16, {3, 5}}, a);
      break;
    case TosaOp::kSigmoid:
    case TosaOp::kTanh:
    case TosaOp::kErf:
    case TosaOp::kExp:
    case TosaOp::kLog:
    case TosaOp::kAbs:
    case TosaOp::kReciprocal:
    case TosaOp::kRsqrt:
      unary(f4, f4, a);
      break;
    case TosaOp::kClamp:
      a.set("min_val", -1.5);
      a.set("max_val", 6.0);
      a.set("nan_mode", kNanPropagate);
      unary(f4, f4, a);
      break;
    case TosaOp::kNegate:
      a.set("input1_zp", int64_t{-3});
      a.set("output_zp", int64_t{4});
      unary(i8_4, i8_4, a);
      break;
    case TosaOp::kReduceSum:
      a.set("axis", int64_t{3});
      unary(f4, {DType::kFloat32, {1, 4, 4, 1}}, a);
      break;
    case TosaOp::kReduceMax:
      a.set("axis", int64_t{1});
      a.set("nan_mode", kNanPropagate);
      unary(i8_4, {DType::kInt8, {1, 1, 4, 3}}, a);
      break;
    case TosaOp::kArgmax:
      a.set("axis", int64_t{2});
      a.set("nan_mode", kNanPropagate);
      unary(f4, {DType::kInt32, {1, 4, 3}}, a);
      break;
    case TosaOp::kReshape:
      a.set("shape", std::vector<int64_t>{16, 3});
      unary(f4, {DType::kFloat32, {16, 3}}, a);
      break;
    case TosaOp::kTranspose:
      a.set("perms", std::vector<int64_t>{0, 3, 1, 2});
      unary(f4, {DType::kFloat32, {1, 3, 4, 4}}, a);
      break;
    case TosaOp::kConcat: {
      a.set("axis", int64_t{3});
      ValueId x = g.add_input(f4, 0, 0);
      ValueId z = g.add_input({DType::kFloat32, {1, 4, 4, 1}}, 0, 1);
      ValueId c = g.add_constant({DType::kFloat32, {1, 4, 4, 2}}, f32_bytes(std::vector<float>(32, 2.0f)));
      ValueId y = g.add_operation(op, {x, z, c}, a, {DType::kFloat32, {1, 4, 4, 6}});
      g.add_output(y, 0, 2);
      break;
    }
    case TosaOp::kSlice:
      a.set("start", std::vector<int64_t>{0, 1, 1, 0});
      a.set("size", std::vector<int64_t>{1, 2, 2, 3});
      unary(f4, {DType::kFloat32, {1, 2, 2, 3}}, a);
      break;
    case TosaOp::kPad:
      a.set("padding", std::vector<int64_t>{0, 0, 1, 1, 2, 2, 0, 0});
      a.set("pad_const", int64_t{-7});
      unary({DType::kInt16, {1, 4, 4, 3}}, {DType::kInt16, {1, 6, 8, 3}}, a);
      break;
    case TosaOp::kTile:
      a.set("multiples", std::vector<int64_t>{1, 2, 1, 3});
      unary(f4, {DType::kFloat32, {1, 8, 4, 9}}, a);
      break;
    case TosaOp::kResize:
      a.set("mode", int64_t{2});
      a.set("scale", std::vector<int64_t>{16, 8, 14, 8});
      a.set("offset", std::vector<int64_t>{-4, -3});
      a.set("border", std::vector<int64_t>{4, 3});
      unary(f4, {DType::kFloat32, {1, 8, 7, 3}}, a);
      break;
    case TosaOp::kCast:
      unary(f4, {DType::kFloat16, {1, 4, 4, 3}}, a);
      break;
    case TosaOp::kRescale:
      a.set("scale32", int64_t{1});
      a.set("rounding_mode", kRoundingDouble);
      a.set("per_channel", int64_t{1});
      a.set("input_unsigned", int64_t{0});
      a.set("output_unsigned", int64_t{0});
      a.set("multiplier", std::vector<int64_t>{1073741824, 1518500250, 2147483647});
      a.set("shift", std::vector<int64_t>{30, 31, 40});
      a.set("input_zp", int64_t{0});
      a.set("output_zp", int64_t{-1});
      unary({DType::kInt32, {1, 4, 4, 3}}, i8_4, a);
      break;
    case TosaOp::kTable: {
      ValueId x = g.add_input(i8_4, 0, 0);
      std::vector<uint8_t> table(256);
      for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<uint8_t>(255 - i);
      ValueId t = g.add_constant({DType::kInt8, {256}}, table);
      ValueId y = g.add_operation(op, {x, t}, a, i8_4);
      g.add_output(y, 0, 1);
      break;
    }
    case TosaOp::kEqual:
    case TosaOp::kGreater:
    case TosaOp::kGreaterEqual:
      binary(f4, {DType::kFloat32, {1, 1, 1, 3}}, {DType::kBool, {1, 4, 4, 3}}, a);
      break;
    case TosaOp::kLogicalAnd:
    case TosaOp::kLogicalOr:
      binary({DType::kBool, {2, 5}}, {DType::kBool, {1, 5}}, {DType::kBool, {2, 5}}, a);
      break;
    case TosaOp::kLogicalNot:
      unary({DType::kBool, {2, 5}}, {DType::kBool, {2, 5}}, a);
      break;
    case TosaOp::kLogicalXor:
      binary({DType::kBool, {2, 5}}, {DType::kBool, {2, 1}}, {DType::kBool, {2, 5}}, a);
      break;
    case TosaOp::kArithmeticRightShift:
      a.set("round", int64_t{1});
      binary({DType::kInt16, {2, 5}}, {DType::kInt16, {1, 5}}, {DType::kInt16, {2, 5}}, a);
      break;
    case TosaOp::kBitwiseAnd:
    case TosaOp::kBitwiseOr:
    case TosaOp::kBitwiseXor:
    case TosaOp::kLogicalLeftShift:
    case TosaOp::kLogicalRightShift:
      binary({DType::kInt8, {2, 5}}, {DType::kInt8, {2, 5}}, {DType::kInt8, {2, 5}}, a);
      break;
    case TosaOp::kIntdiv:
      binary({DType::kInt32, {2, 5}}, {DType::kInt32, {2, 1}}, {DType::kInt32, {2, 5}}, a);
      break;
    case TosaOp::kBitwiseNot:
    case TosaOp::kClz:
      unary({DType::kInt32, {2, 5}}, {DType::kInt32, {2, 5}}, a);
      break;
    case TosaOp::kCeil:
    case TosaOp::kFloor:
    case TosaOp::kSin:
    case TosaOp::kCos:
      unary(f4, f4, a);
      break;
    case TosaOp::kReduceMin:
      a.set("axis", int64_t{0});
      a.set("nan_mode", kNanIgnore);
      unary({DType::kFloat16, {3, 5}}, {DType::kFloat16, {1, 5}}, a);
      break;
    case TosaOp::kReduceProduct:
      a.set("axis", int64_t{2});
      unary(f4, {DType::kFloat32, {1, 4, 1, 3}}, a);
      break;
    case TosaOp::kReduceAll:
    case TosaOp::kReduceAny:
      a.set("axis", int64_t{1});
      unary({DType::kBool, {2, 5}}, {DType::kBool, {2, 1}}, a);
      break;
    case TosaOp::kGather: {
      ValueId v = g.add_input({DType::kFloat32, {2, 5, 3}}, 0, 0);
      ValueId i = g.add_constant({DType::kInt32, {2, 2}}, i32_bytes({4, 0, 1, 1}));
      ValueId y = g.add_operation(op, {v, i}, a, {DType::kFloat32, {2, 2, 3}});
      g.add_output(y, 0, 1);
      break;
    }
    case TosaOp::kSelect: {
      ValueId c = g.add_input({DType::kBool, {1, 4, 4, 1}}, 0, 0);
      ValueId x = g.add_input(f4, 0, 1);
      ValueId z = g.add_constant({DType::kFloat32, {1, 1, 1, 1}}, f32_bytes({-1.5f}));
      ValueId y = g.add_operation(op, {c, x, z}, a, f4);
      g.add_output(y, 0, 2);
      break;
    }
    case TosaOp::kReverse:
      a.set("axis", int64_t{2});
      unary(i8_4, i8_4, a);
      break;
    case TosaOp::kScatter: {
      ValueId v = g.add_input({DType::kFloat32, {2, 5, 3}}, 0, 0);
      ValueId i = g.add_constant({DType::kInt32, {2, 2}}, i32_bytes({4, 0, 1, 3}));
      ValueId x = g.add_input({DType::kFloat32, {2, 2, 3}}, 0, 1);
      ValueId y = g.add_operation(op, {v, i, x}, a, {DType::kFloat32, {2, 5, 3}});
      g.add_output(y, 0, 2);
      break;
    }
    case TosaOp::kConv3d: {
      // int8 x int8 -> int32 with zero points: [1,3,4,4,3] -> [1,2,4,4,2].
      a.set("pad", std::vector<int64_t>{0, 0, 1, 1, 1, 1});
      a.set("stride", std::vector<int64_t>{1, 1, 1});
      a.set("dilation", std::vector<int64_t>{1, 1, 1});
      a.set("acc_type", kAccInt32);
      a.set("local_bound", int64_t{1});
      a.set("input_zp", int64_t{-5});
      a.set("weight_zp", int64_t{2});
      ValueId x = g.add_input({DType::kInt8, {1, 3, 4, 4, 3}}, 0, 0);
      ValueId w = g.add_graph_constant({DType::kInt8, {2, 2, 3, 3, 3}}, 3);
      ValueId b = g.add_constant({DType::kInt32, {2}}, i32_bytes({100, -100}));
      ValueId y = g.add_operation(op, {x, w, b}, a, {DType::kInt32, {1, 2, 4, 4, 2}});
      g.add_output(y, 0, 1);
      break;
    }
    case TosaOp::kFft2d: {
      // Two results, both graph outputs.
      a.set("inverse", int64_t{1});
      a.set("local_bound", int64_t{0});
      const TosaTensorType t{DType::kFloat32, {2, 4, 8}};
      ValueId re = g.add_input(t, 0, 0);
      ValueId im = g.add_input(t, 0, 1);
      std::vector<ValueId> y = g.add_operation(op, {re, im}, a, std::vector<TosaTensorType>{t, t});
      g.add_output(y[0], 0, 2);
      g.add_output(y[1], 0, 3);
      break;
    }
    case TosaOp::kRfft2d: {
      // Only the imaginary result is a graph output.
      a.set("local_bound", int64_t{0});
      const TosaTensorType out{DType::kFloat32, {1, 8, 3}};
      ValueId x = g.add_input({DType::kFloat32, {1, 8, 4}}, 0, 0);
      std::vector<ValueId> y = g.add_operation(op, {x}, a, std::vector<TosaTensorType>{out, out});
      g.add_output(y[1], 0, 1);
      break;
    }
    default:
      break;
  }
  return g;
}

}  // namespace univk::spirv::testing
