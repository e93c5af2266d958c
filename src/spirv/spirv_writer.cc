// write_tosa_graph: TosaGraph -> SPIR-V 1.6 module with one OpGraphARM.
//
// Layout written: capabilities, extensions, the TOSA import, the memory model, decorations,
// then types/constants/variables (interned, each defined before use), then the graph section:
// OpGraphEntryPointARM, OpGraphARM, OpGraphInputARM..., OpExtInst... (each multi-result one
// followed by an OpCompositeExtract per result), OpGraphSetOutputARM...,
// OpGraphEndARM.
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "module_dump.h"
#include "spirv_defs.h"
#include "tosa_operands.h"
#include "univk/spirv/tosa_graph.h"

namespace univk::spirv {
namespace {

using detail::OperandKind;
using detail::OperandSpec;
using detail::TypeSource;

void append_string(std::vector<uint32_t>& words, std::string_view s) {
  const size_t n = s.size() / 4 + 1;  // room for the terminating zero
  const size_t at = words.size();
  words.resize(at + n, 0);
  std::memcpy(words.data() + at, s.data(), s.size());
}

void emit(std::vector<uint32_t>& out, uint16_t opcode, std::initializer_list<uint32_t> operands) {
  out.push_back((static_cast<uint32_t>(operands.size() + 1) << 16) | opcode);
  out.insert(out.end(), operands);
}
void emit(std::vector<uint32_t>& out, uint16_t opcode, const std::vector<uint32_t>& operands) {
  out.push_back((static_cast<uint32_t>(operands.size() + 1) << 16) | opcode);
  out.insert(out.end(), operands.begin(), operands.end());
}

class Writer {
 public:
  explicit Writer(const TosaGraph& g) : g_(g) {}
  Result<std::vector<uint32_t>> run();

 private:
  uint32_t new_id() { return next_id_++; }
  Result<uint32_t> scalar_type(DType dtype);
  uint32_t i32_type() { return *scalar_type(DType::kInt32); }
  uint32_t i32_const(int64_t v) { return scalar_const_bits(i32_type(), static_cast<uint32_t>(v)); }
  uint32_t scalar_const_bits(uint32_t type, uint64_t bits, bool wide = false);
  Result<uint32_t> scalar_const(DType dtype, const AttrValue& value);
  Result<uint32_t> tensor_type(const TosaTensorType& t);
  uint32_t struct_type(const std::vector<uint32_t>& members);
  Result<uint32_t> tensor_const(const TosaTensorType& t, std::span<const uint8_t> bytes);
  Result<uint32_t> value_id(ValueId v);
  Result<uint32_t> attribute_operand(const TosaOperation& op, size_t op_index, const OperandSpec& spec);
  Result<DType> source_dtype(const TosaOperation& op, TypeSource src);
  Status write_operation(size_t index);

  const TosaGraph& g_;
  uint32_t next_id_ = 1;
  uint32_t tosa_import_ = 0;
  std::vector<uint32_t> annotations_, globals_, body_;
  std::map<DType, uint32_t> scalar_types_;
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> scalar_consts_;
  std::map<std::pair<DType, std::vector<int64_t>>, uint32_t> tensor_types_;
  std::map<uint32_t, uint32_t> pointer_types_;
  std::map<size_t, uint32_t> array_types_;
  std::map<std::vector<uint32_t>, uint32_t> struct_types_;
  std::vector<uint32_t> value_ids_;  // SPIR-V id per TosaGraph value (0 = not yet defined)
  std::set<DType> used_dtypes_;
};

Result<uint32_t> Writer::scalar_type(DType dtype) {
  auto it = scalar_types_.find(dtype);
  if (it != scalar_types_.end()) return it->second;
  const uint32_t id = new_id();
  switch (dtype) {
    case DType::kFloat32:
      emit(globals_, op::kTypeFloat, {id, 32});
      break;
    case DType::kFloat16:
      emit(globals_, op::kTypeFloat, {id, 16});
      break;
    case DType::kInt8:
      emit(globals_, op::kTypeInt, {id, 8, 0});
      break;
    case DType::kInt16:
      emit(globals_, op::kTypeInt, {id, 16, 0});
      break;
    case DType::kInt32:
      emit(globals_, op::kTypeInt, {id, 32, 0});
      break;
    case DType::kInt64:
      emit(globals_, op::kTypeInt, {id, 64, 0});
      break;
    case DType::kBool:
      emit(globals_, op::kTypeBool, {id});
      break;
    default:
      return unsupported("spirv writer: element type " + std::string(dtype_name(dtype)) + " has no TOSA SPIR-V type");
  }
  used_dtypes_.insert(dtype);
  scalar_types_[dtype] = id;
  return id;
}

uint32_t Writer::scalar_const_bits(uint32_t type, uint64_t bits, bool wide) {
  auto key = std::make_pair(type, bits);
  auto it = scalar_consts_.find(key);
  if (it != scalar_consts_.end()) return it->second;
  const uint32_t id = new_id();
  if (wide) {
    emit(globals_, op::kConstant, {type, id, static_cast<uint32_t>(bits), static_cast<uint32_t>(bits >> 32)});
  } else {
    emit(globals_, op::kConstant, {type, id, static_cast<uint32_t>(bits)});
  }
  scalar_consts_[key] = id;
  return id;
}

// The bits of one element as SPIR-V stores it: narrow ints in the low bits (signless, so the
// high bits are zero), halves as their 16-bit pattern.
Result<uint64_t> element_bits(DType dtype, const AttrValue& value) {
  const bool is_float = dtype == DType::kFloat32 || dtype == DType::kFloat16;
  double d = 0;
  int64_t i = 0;
  if (const auto* pi = std::get_if<int64_t>(&value)) {
    i = *pi;
    d = static_cast<double>(*pi);
  } else if (const auto* pd = std::get_if<double>(&value)) {
    if (!is_float) return invalid_argument("a float value for an integer operand");
    d = *pd;
  } else {
    return invalid_argument("expected a number");
  }
  switch (dtype) {
    case DType::kFloat32: {
      const float f = static_cast<float>(d);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      return uint64_t{b};
    }
    case DType::kFloat16:
      return uint64_t{float_to_half(static_cast<float>(d))};
    case DType::kInt8:
      return uint64_t{static_cast<uint8_t>(i)};
    case DType::kInt16:
      return uint64_t{static_cast<uint16_t>(i)};
    case DType::kInt32:
      return uint64_t{static_cast<uint32_t>(i)};
    case DType::kInt64:
      return static_cast<uint64_t>(i);
    case DType::kBool:
      return uint64_t{i != 0};
    default:
      return unsupported(std::string("element type ") + std::string(dtype_name(dtype)));
  }
}

Result<uint32_t> Writer::scalar_const(DType dtype, const AttrValue& value) {
  UNIVK_ASSIGN_OR_RETURN(uint32_t type, scalar_type(dtype));
  UNIVK_ASSIGN_OR_RETURN(uint64_t bits, element_bits(dtype, value));
  if (dtype == DType::kBool) {
    auto key = std::make_pair(type, bits);
    auto it = scalar_consts_.find(key);
    if (it != scalar_consts_.end()) return it->second;
    const uint32_t id = new_id();
    emit(globals_, bits ? op::kConstantTrue : op::kConstantFalse, {type, id});
    scalar_consts_[key] = id;
    return id;
  }
  return scalar_const_bits(type, bits, dtype == DType::kInt64);
}

Result<uint32_t> Writer::tensor_type(const TosaTensorType& t) {
  auto key = std::make_pair(t.dtype, t.shape);
  auto it = tensor_types_.find(key);
  if (it != tensor_types_.end()) return it->second;
  if (t.shape.empty()) return unsupported("spirv writer: rank-0 tensors are not supported");
  for (int64_t d : t.shape) {
    if (d <= 0 || d > INT32_MAX) return invalid_argument("spirv writer: bad dimension in " + to_string(t));
  }
  UNIVK_ASSIGN_OR_RETURN(uint32_t elem, scalar_type(t.dtype));
  const uint32_t rank = i32_const(static_cast<int64_t>(t.shape.size()));
  uint32_t& array = array_types_[t.shape.size()];
  if (array == 0) {
    array = new_id();
    emit(globals_, op::kTypeArray, {array, i32_type(), rank});
  }
  std::vector<uint32_t> shape_ops = {array, new_id()};
  for (int64_t d : t.shape) shape_ops.push_back(i32_const(d));
  emit(globals_, op::kConstantComposite, shape_ops);
  const uint32_t id = new_id();
  emit(globals_, op::kTypeTensorArm, {id, elem, rank, shape_ops[1]});
  tensor_types_[key] = id;
  return id;
}

// The result type of a multi-result operator (FFT2D, RFFT2D): a struct of its tensor types.
uint32_t Writer::struct_type(const std::vector<uint32_t>& members) {
  uint32_t& id = struct_types_[members];
  if (id == 0) {
    id = new_id();
    std::vector<uint32_t> ops = {id};
    ops.insert(ops.end(), members.begin(), members.end());
    emit(globals_, op::kTypeStruct, ops);
  }
  return id;
}

// Nested OpConstantComposite: a rank-r tensor is made of rank-(r-1) tensors, rank 1 of scalars.
Result<uint32_t> Writer::tensor_const(const TosaTensorType& t, std::span<const uint8_t> bytes) {
  UNIVK_ASSIGN_OR_RETURN(uint32_t type, tensor_type(t));
  const size_t esize = dtype_size(t.dtype);
  if (bytes.size() != static_cast<size_t>(t.element_count()) * esize) {
    return invalid_argument("spirv writer: constant " + to_string(t) + " has " + std::to_string(bytes.size()) +
                            " bytes, expected " + std::to_string(t.element_count() * static_cast<int64_t>(esize)));
  }
  if (std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; })) {
    const uint32_t id = new_id();
    emit(globals_, op::kConstantNull, {type, id});
    return id;
  }
  std::vector<uint32_t> ops = {type, 0};
  if (t.shape.size() == 1) {
    for (int64_t i = 0; i < t.shape[0]; ++i) {
      const uint8_t* p = bytes.data() + static_cast<size_t>(i) * esize;
      AttrValue v;
      switch (t.dtype) {
        case DType::kFloat32: {
          float f;
          std::memcpy(&f, p, 4);
          v = double{f};
          break;
        }
        case DType::kFloat16: {
          uint16_t h;
          std::memcpy(&h, p, 2);
          v = double{half_to_float(h)};
          break;
        }
        case DType::kInt8:
          v = int64_t{static_cast<int8_t>(*p)};
          break;
        case DType::kInt16: {
          int16_t x;
          std::memcpy(&x, p, 2);
          v = int64_t{x};
          break;
        }
        case DType::kInt32: {
          int32_t x;
          std::memcpy(&x, p, 4);
          v = int64_t{x};
          break;
        }
        case DType::kInt64: {
          int64_t x;
          std::memcpy(&x, p, 8);
          v = x;
          break;
        }
        case DType::kBool:
          v = int64_t{*p != 0};
          break;
        default:
          return unsupported("spirv writer: constant of type " + std::string(dtype_name(t.dtype)));
      }
      UNIVK_ASSIGN_OR_RETURN(uint32_t c, scalar_const(t.dtype, v));
      ops.push_back(c);
    }
  } else {
    TosaTensorType sub{t.dtype, std::vector<int64_t>(t.shape.begin() + 1, t.shape.end())};
    const size_t sub_bytes = static_cast<size_t>(sub.element_count()) * esize;
    for (int64_t i = 0; i < t.shape[0]; ++i) {
      UNIVK_ASSIGN_OR_RETURN(uint32_t c,
                             tensor_const(sub, bytes.subspan(static_cast<size_t>(i) * sub_bytes, sub_bytes)));
      ops.push_back(c);
    }
  }
  ops[1] = new_id();
  emit(globals_, op::kConstantComposite, ops);
  return ops[1];
}

Result<uint32_t> Writer::value_id(ValueId v) {
  if (v >= g_.values.size()) return invalid_argument("spirv writer: value id " + std::to_string(v) + " out of range");
  if (value_ids_[v] != 0) return value_ids_[v];
  const TosaValue& val = g_.values[v];
  switch (val.kind) {
    case ValueKind::kConstant: {
      auto id = tensor_const(val.type, val.data);
      if (!id.ok()) return id.status().with_context("value " + std::to_string(v));
      value_ids_[v] = *id;
      return *id;
    }
    case ValueKind::kGraphConstant: {
      UNIVK_ASSIGN_OR_RETURN(uint32_t type, tensor_type(val.type));
      const uint32_t id = new_id();
      emit(globals_, op::kGraphConstantArm, {type, id, val.graph_constant_id});
      value_ids_[v] = id;
      return id;
    }
    case ValueKind::kGraphInput:
      return invalid_argument("spirv writer: value " + std::to_string(v) + " is a graph input not listed in inputs");
    case ValueKind::kOperation:
      return invalid_argument("spirv writer: value " + std::to_string(v) + " (result of operation " +
                              std::to_string(val.producer) + ") is used before it is computed");
  }
  return internal_error("unreachable");
}

Result<DType> Writer::source_dtype(const TosaOperation& op, TypeSource src) {
  switch (src) {
    case TypeSource::kInput0:
      return g_.values[op.inputs.at(0)].type.dtype;
    case TypeSource::kInput1:
      return g_.values[op.inputs.at(1)].type.dtype;
    case TypeSource::kOutput:
      return g_.values[op.outputs.at(0)].type.dtype;
    case TypeSource::kInt8:
      return DType::kInt8;
    case TypeSource::kMultiplier: {
      UNIVK_ASSIGN_OR_RETURN(int64_t scale32, op.attrs.get_int("scale32"));
      return scale32 ? DType::kInt32 : DType::kInt16;
    }
    case TypeSource::kNone:
      break;
  }
  return internal_error("operand without a type source");
}

Result<uint32_t> Writer::attribute_operand(const TosaOperation& op, size_t op_index, const OperandSpec& spec) {
  const std::string where = "spirv writer: operation " + std::to_string(op_index) + " (" +
                            std::string(tosa_op_name(op.op)) + "): attribute " + spec.name;
  if (!op.attrs.has(spec.name)) return invalid_argument(where + " is missing");
  auto wrap = [&](const Status& s) { return invalid_argument(where + ": " + s.message()); };
  switch (spec.kind) {
    case OperandKind::kI32: {
      auto v = op.attrs.get_int(spec.name);
      if (!v.ok()) return wrap(v.status());
      return i32_const(*v);
    }
    case OperandKind::kBool: {
      auto v = op.attrs.get_int(spec.name);
      if (!v.ok()) return wrap(v.status());
      return scalar_const(DType::kBool, AttrValue(int64_t{*v != 0}));
    }
    case OperandKind::kI32List:
    case OperandKind::kElemList: {
      auto v = op.attrs.get_ints(spec.name);
      if (!v.ok()) return wrap(v.status());
      DType dt = DType::kInt32;
      if (spec.kind == OperandKind::kElemList) {
        UNIVK_ASSIGN_OR_RETURN(dt, source_dtype(op, spec.type));
      }
      if (v->empty()) return invalid_argument(where + " is an empty list");
      std::vector<uint8_t> bytes(v->size() * dtype_size(dt));
      for (size_t i = 0; i < v->size(); ++i) {
        UNIVK_ASSIGN_OR_RETURN(uint64_t bits, element_bits(dt, AttrValue((*v)[i])));
        std::memcpy(bytes.data() + i * dtype_size(dt), &bits, dtype_size(dt));
      }
      return tensor_const({dt, {static_cast<int64_t>(v->size())}}, bytes);
    }
    case OperandKind::kElemScalar:
    case OperandKind::kElemTensor1: {
      UNIVK_ASSIGN_OR_RETURN(DType dt, source_dtype(op, spec.type));
      const bool is_float = dt == DType::kFloat32 || dt == DType::kFloat16;
      AttrValue value;
      if (is_float) {
        auto f = op.attrs.get_float(spec.name);
        if (!f.ok()) return wrap(f.status());
        value = *f;
      } else {
        auto i = op.attrs.get_int(spec.name);
        if (!i.ok()) return wrap(i.status());
        value = *i;
      }
      if (spec.kind == OperandKind::kElemScalar) {
        auto c = scalar_const(dt, value);
        if (!c.ok()) return wrap(c.status());
        return *c;
      }
      auto bits = element_bits(dt, value);
      if (!bits.ok()) return wrap(bits.status());
      std::vector<uint8_t> bytes(dtype_size(dt));
      std::memcpy(bytes.data(), &*bits, bytes.size());
      return tensor_const({dt, {1}}, bytes);
    }
    case OperandKind::kData:
      break;
  }
  return internal_error("data operand passed as attribute");
}

Status Writer::write_operation(size_t index) {
  const TosaOperation& op = g_.operations[index];
  const std::string where =
      "spirv writer: operation " + std::to_string(index) + " (" + std::string(tosa_op_name(op.op)) + ")";
  const detail::OpSpec* spec = detail::find_op_spec(op.op);
  if (!spec) return unsupported(where + ": operator not supported");
  size_t data_count = 0;
  for (const OperandSpec& s : spec->operands) data_count += s.kind == OperandKind::kData;
  if (spec->variadic_data ? op.inputs.empty() : op.inputs.size() != data_count) {
    return invalid_argument(where + ": " + std::to_string(op.inputs.size()) + " inputs, expected " +
                            (spec->variadic_data ? std::string("at least 1") : std::to_string(data_count)));
  }
  for (ValueId in : op.inputs) {
    if (in >= g_.values.size())
      return invalid_argument(where + ": input value " + std::to_string(in) + " out of range");
  }
  if (op.outputs.size() != spec->results) {
    return invalid_argument(where + ": " + std::to_string(op.outputs.size()) + " outputs, expected " +
                            std::to_string(spec->results));
  }
  std::vector<uint32_t> member_types;
  for (ValueId out : op.outputs) {
    if (out >= g_.values.size() || g_.values[out].kind != ValueKind::kOperation || g_.values[out].producer != index) {
      return invalid_argument(where + ": output value " + std::to_string(out) + " is not this operation's result");
    }
    UNIVK_ASSIGN_OR_RETURN(uint32_t t, tensor_type(g_.values[out].type));
    member_types.push_back(t);
  }
  const uint32_t result_type = member_types.size() == 1 ? member_types[0] : struct_type(member_types);
  std::vector<uint32_t> ops = {result_type, 0, tosa_import_, static_cast<uint32_t>(op.op)};
  size_t next_input = 0;
  for (const OperandSpec& s : spec->operands) {
    if (s.kind == OperandKind::kData) {
      const size_t n = spec->variadic_data ? op.inputs.size() : 1;
      for (size_t k = 0; k < n; ++k) {
        auto id = value_id(op.inputs[next_input++]);
        if (!id.ok()) return id.status().with_context(where);
        ops.push_back(*id);
      }
    } else {
      UNIVK_ASSIGN_OR_RETURN(uint32_t id, attribute_operand(op, index, s));
      ops.push_back(id);
    }
  }
  ops[1] = new_id();
  emit(body_, op::kExtInst, ops);
  if (op.outputs.size() == 1) {
    value_ids_[op.outputs[0]] = ops[1];
    return ok_status();
  }
  for (size_t k = 0; k < op.outputs.size(); ++k) {
    value_ids_[op.outputs[k]] = new_id();
    emit(body_, op::kCompositeExtract, {member_types[k], value_ids_[op.outputs[k]], ops[1], static_cast<uint32_t>(k)});
  }
  return ok_status();
}

Result<std::vector<uint32_t>> Writer::run() {
  value_ids_.assign(g_.values.size(), 0);
  if (g_.outputs.empty()) return invalid_argument("spirv writer: the graph has no outputs");
  tosa_import_ = new_id();
  const uint32_t graph_id = new_id();

  // Interface: one UniformConstant variable per input and output, with set/binding.
  std::vector<uint32_t> in_types, out_types, interface;
  auto variable = [&](uint32_t tensor, const GraphBinding& b) {
    uint32_t& ptr = pointer_types_[tensor];
    if (ptr == 0) {
      ptr = new_id();
      emit(globals_, op::kTypePointer, {ptr, op::kStorageUniformConstant, tensor});
    }
    const uint32_t var = new_id();
    emit(globals_, op::kVariable, {ptr, var, op::kStorageUniformConstant});
    emit(annotations_, op::kDecorate, {var, op::kDecorationDescriptorSet, b.descriptor_set});
    emit(annotations_, op::kDecorate, {var, op::kDecorationBinding, b.binding});
    interface.push_back(var);
  };
  std::vector<uint32_t> input_ids;
  for (size_t i = 0; i < g_.inputs.size(); ++i) {
    const GraphBinding& b = g_.inputs[i];
    if (b.value >= g_.values.size() || g_.values[b.value].kind != ValueKind::kGraphInput) {
      return invalid_argument("spirv writer: input " + std::to_string(i) + " is not a graph input value");
    }
    if (value_ids_[b.value] != 0) {
      return invalid_argument("spirv writer: value " + std::to_string(b.value) + " is listed as two inputs");
    }
    UNIVK_ASSIGN_OR_RETURN(uint32_t t, tensor_type(g_.values[b.value].type));
    in_types.push_back(t);
    variable(t, b);
    value_ids_[b.value] = new_id();
    input_ids.push_back(value_ids_[b.value]);
  }
  for (size_t i = 0; i < g_.outputs.size(); ++i) {
    const GraphBinding& b = g_.outputs[i];
    if (b.value >= g_.values.size())
      return invalid_argument("spirv writer: output " + std::to_string(i) + " value out of range");
    UNIVK_ASSIGN_OR_RETURN(uint32_t t, tensor_type(g_.values[b.value].type));
    out_types.push_back(t);
    variable(t, b);
  }
  const uint32_t graph_type = new_id();
  std::vector<uint32_t> gt = {graph_type, static_cast<uint32_t>(in_types.size())};
  gt.insert(gt.end(), in_types.begin(), in_types.end());
  gt.insert(gt.end(), out_types.begin(), out_types.end());
  emit(globals_, op::kTypeGraphArm, gt);

  for (size_t i = 0; i < input_ids.size(); ++i) {
    emit(body_, op::kGraphInputArm, {in_types[i], input_ids[i], i32_const(static_cast<int64_t>(i))});
  }
  for (size_t i = 0; i < g_.operations.size(); ++i) UNIVK_RETURN_IF_ERROR(write_operation(i));
  for (size_t i = 0; i < g_.outputs.size(); ++i) {
    auto id = value_id(g_.outputs[i].value);
    if (!id.ok()) return id.status().with_context("output " + std::to_string(i));
    emit(body_, op::kGraphSetOutputArm, {*id, i32_const(static_cast<int64_t>(i))});
  }

  std::vector<uint32_t> m = {op::kMagic, op::kVersion16, op::kGenerator, 0, 0};
  std::vector<uint32_t> caps = {op::kCapShader, op::kCapVulkanMemoryModel, op::kCapTensorsArm, op::kCapGraphArm};
  if (used_dtypes_.count(DType::kInt8)) caps.push_back(op::kCapInt8);
  if (used_dtypes_.count(DType::kInt16)) caps.push_back(op::kCapInt16);
  if (used_dtypes_.count(DType::kInt64)) caps.push_back(op::kCapInt64);
  if (used_dtypes_.count(DType::kFloat16)) caps.push_back(op::kCapFloat16);
  for (uint32_t c : caps) emit(m, op::kCapability, {c});
  for (const char* ext : {"SPV_ARM_tensors", "SPV_ARM_graph"}) {
    std::vector<uint32_t> w;
    append_string(w, ext);
    emit(m, op::kExtension, w);
  }
  std::vector<uint32_t> imp = {tosa_import_};
  append_string(imp, kTosaExtInstSetName);
  emit(m, op::kExtInstImport, imp);
  emit(m, op::kMemoryModel, {op::kAddressingLogical, op::kMemoryModelVulkan});
  m.insert(m.end(), annotations_.begin(), annotations_.end());
  m.insert(m.end(), globals_.begin(), globals_.end());
  std::vector<uint32_t> ep = {graph_id};
  append_string(ep, g_.entry_point);
  ep.insert(ep.end(), interface.begin(), interface.end());
  emit(m, op::kGraphEntryPointArm, ep);
  emit(m, op::kGraphArm, {graph_type, graph_id});
  m.insert(m.end(), body_.begin(), body_.end());
  emit(m, op::kGraphEndArm, {});
  m[3] = next_id_;  // bound
  return m;
}

}  // namespace

Result<std::vector<uint32_t>> write_tosa_graph(const TosaGraph& graph) {
  UNIVK_ASSIGN_OR_RETURN(std::vector<uint32_t> words, Writer(graph).run());
  UNIVK_RETURN_IF_ERROR(detail::dump_module_if_requested(words));
  return words;
}

}  // namespace univk::spirv
