// read_tosa_graph: SPIR-V module -> TosaGraph, checking the module structure as it goes.
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>

#include "spirv_defs.h"
#include "tosa_operands.h"
#include "univk/spirv/tosa_graph.h"

namespace univk::spirv {
namespace {

using detail::OperandKind;
using detail::OperandSpec;
using detail::TypeSource;

// Logical layout sections of a module, in the order they must appear.
enum Section : int {
  kCaps,
  kExts,
  kImports,
  kMemModel,
  kEntryPoints,
  kExecModes,
  kDebug,
  kAnnotations,
  kGlobals,
  kFunctions,
  kGraphs
};

struct Type {
  enum Kind { kBool, kInt, kFloat, kArray, kTensor, kPointer, kGraph, kStruct, kOther } kind = kOther;
  uint32_t width = 0;
  DType dtype = DType::kFloat32;  // scalars
  uint32_t elem = 0;              // tensor element type id / array element / pointee
  std::vector<int64_t> shape;     // tensor
  uint64_t length = 0;            // array
  uint32_t num_inputs = 0;        // graph
  std::vector<uint32_t> io;       // graph: input types then output types; struct: member types
};

Type make_type(Type::Kind kind, uint32_t width = 0, DType dtype = DType::kFloat32) {
  Type t;
  t.kind = kind;
  t.width = width;
  t.dtype = dtype;
  return t;
}

struct Constant {
  uint32_t type = 0;
  std::vector<uint8_t> bytes;  // scalars: one element; tensors: row-major elements
  bool is_graph_constant = false;
  uint32_t graph_constant_id = 0;
};

class Reader {
 public:
  explicit Reader(std::span<const uint32_t> w) : w_(w) {}
  Result<TosaGraph> run();

 private:
  Status fail(const std::string& msg) const {
    return invalid_argument("spirv: instruction at word " + std::to_string(at_) + ": " + msg);
  }
  Status unsupported_here(const std::string& msg) const {
    return unsupported("spirv: instruction at word " + std::to_string(at_) + ": " + msg);
  }
  Status define(uint32_t id);
  Status use(uint32_t id) const;
  Result<const Type*> type_of(uint32_t id, const char* what) const;
  Result<const Constant*> constant(uint32_t id, const char* what) const;
  Result<std::string> literal_string(size_t first, size_t& next) const;
  Result<TosaTensorType> tensor_type(uint32_t type_id) const;
  Result<int64_t> const_int(uint32_t id, const char* what) const;
  Status handle_global(uint16_t opcode, std::span<const uint32_t> ops);
  Status handle_ext_inst(std::span<const uint32_t> ops);
  Status handle_composite_extract(std::span<const uint32_t> ops);
  Result<ValueId> data_value(uint32_t id, const std::string& where);
  Result<AttrValue> attribute(uint32_t id, const OperandSpec& spec, DType elem, const std::string& where) const;
  Status finish();

  std::span<const uint32_t> w_;
  size_t at_ = 0;
  uint32_t bound_ = 0;
  std::vector<uint8_t> defined_;
  std::unordered_map<uint32_t, Type> types_;
  std::unordered_map<uint32_t, Constant> consts_;
  std::unordered_map<uint32_t, uint32_t> variables_;                                             // id -> pointer type
  std::map<uint32_t, std::pair<std::optional<uint32_t>, std::optional<uint32_t>>> decorations_;  // set, binding
  std::vector<uint32_t> decorated_ids_;
  uint32_t tosa_import_ = 0;
  // Bytes that inline constants may still expand to (16 per module byte plus 1 MiB).
  uint64_t constant_budget_ = 0;
  bool has_graph_cap_ = false;
  bool has_memory_model_ = false;

  // Graph state.
  enum class GraphState { kNone, kInputs, kBody, kOutputs, kDone } state_ = GraphState::kNone;
  uint32_t graph_id_ = 0, graph_type_ = 0;
  bool have_entry_ = false;
  uint32_t entry_graph_ = 0;
  std::vector<uint32_t> interface_;
  std::unordered_map<uint32_t, ValueId> values_;                       // SPIR-V id -> graph value
  std::unordered_map<uint32_t, std::vector<ValueId>> struct_results_;  // multi-result operator -> its values
  std::vector<bool> output_set_;
  TosaGraph graph_;
};

Status Reader::define(uint32_t id) {
  if (id == 0 || id >= bound_)
    return fail("result id " + std::to_string(id) + " outside the id bound " + std::to_string(bound_));
  if (defined_[id]) return fail("id " + std::to_string(id) + " defined twice");
  defined_[id] = 1;
  return ok_status();
}

Status Reader::use(uint32_t id) const {
  if (id == 0 || id >= bound_ || !defined_[id]) return fail("id " + std::to_string(id) + " used before it is defined");
  return ok_status();
}

Result<const Type*> Reader::type_of(uint32_t id, const char* what) const {
  UNIVK_RETURN_IF_ERROR(use(id));
  auto it = types_.find(id);
  if (it == types_.end()) return fail(std::string(what) + " " + std::to_string(id) + " is not a type");
  return &it->second;
}

Result<const Constant*> Reader::constant(uint32_t id, const char* what) const {
  UNIVK_RETURN_IF_ERROR(use(id));
  auto it = consts_.find(id);
  if (it == consts_.end() || it->second.is_graph_constant) {
    return fail(std::string(what) + " " + std::to_string(id) + " is not a constant");
  }
  return &it->second;
}

Result<std::string> Reader::literal_string(size_t first, size_t& next) const {
  // `first`..end of the current instruction (end passed through `next`).
  const size_t end = next;
  std::string s;
  for (size_t i = first; i < end; ++i) {
    for (int b = 0; b < 4; ++b) {
      const char c = static_cast<char>((w_[i] >> (8 * b)) & 0xff);
      if (c == 0) {
        next = i + 1;
        return s;
      }
      s.push_back(c);
    }
  }
  return fail("literal string is not terminated");
}

Result<TosaTensorType> Reader::tensor_type(uint32_t type_id) const {
  UNIVK_ASSIGN_OR_RETURN(const Type* t, type_of(type_id, "type"));
  if (t->kind != Type::kTensor) return fail("type " + std::to_string(type_id) + " is not a tensor type");
  return TosaTensorType{types_.at(t->elem).dtype, t->shape};
}

Result<int64_t> Reader::const_int(uint32_t id, const char* what) const {
  UNIVK_ASSIGN_OR_RETURN(const Constant* c, constant(id, what));
  const Type& t = types_.at(c->type);
  if (t.kind != Type::kInt) return fail(std::string(what) + " is not an integer constant");
  int64_t v = 0;
  std::memcpy(&v, c->bytes.data(), std::min<size_t>(8, c->bytes.size()));
  if (t.width < 64) v = (v << (64 - t.width)) >> (64 - t.width);  // sign-extend
  return v;
}

size_t width_bytes(const Type& t) { return t.kind == Type::kBool ? 1 : t.width / 8; }

Status Reader::handle_global(uint16_t opcode, std::span<const uint32_t> o) {
  auto need = [&](size_t n) { return o.size() < n ? fail("too few operands") : ok_status(); };
  switch (opcode) {
    case op::kTypeVoid:
      UNIVK_RETURN_IF_ERROR(need(1));
      UNIVK_RETURN_IF_ERROR(define(o[0]));
      types_[o[0]] = Type{};
      return ok_status();
    case op::kTypeBool:
      UNIVK_RETURN_IF_ERROR(need(1));
      UNIVK_RETURN_IF_ERROR(define(o[0]));
      types_[o[0]] = make_type(Type::kBool, 8, DType::kBool);
      return ok_status();
    case op::kTypeInt: {
      UNIVK_RETURN_IF_ERROR(need(3));
      UNIVK_RETURN_IF_ERROR(define(o[0]));
      Type t = make_type(Type::kInt, o[1]);
      switch (o[1]) {
        case 8:
          t.dtype = DType::kInt8;
          break;
        case 16:
          t.dtype = DType::kInt16;
          break;
        case 32:
          t.dtype = DType::kInt32;
          break;
        case 64:
          t.dtype = DType::kInt64;
          break;
        default:
          return unsupported_here("integer width " + std::to_string(o[1]));
      }
      types_[o[0]] = t;
      return ok_status();
    }
    case op::kTypeFloat: {
      UNIVK_RETURN_IF_ERROR(need(2));
      UNIVK_RETURN_IF_ERROR(define(o[0]));
      if (o.size() > 2) return unsupported_here("floating-point encodings (bfloat16, fp8)");
      Type t = make_type(Type::kFloat, o[1]);
      if (o[1] == 16)
        t.dtype = DType::kFloat16;
      else if (o[1] == 32)
        t.dtype = DType::kFloat32;
      else
        return unsupported_here("float width " + std::to_string(o[1]));
      types_[o[0]] = t;
      return ok_status();
    }
    case op::kTypeArray: {
      UNIVK_RETURN_IF_ERROR(need(3));
      UNIVK_RETURN_IF_ERROR(type_of(o[1], "array element type").status());
      UNIVK_ASSIGN_OR_RETURN(int64_t len, const_int(o[2], "array length"));
      if (len <= 0) return fail("array length must be positive");
      UNIVK_RETURN_IF_ERROR(define(o[0]));
      Type t = make_type(Type::kArray);
      t.elem = o[1];
      t.length = static_cast<uint64_t>(len);
      types_[o[0]] = t;
      return ok_status();
    }
    case op::kTypePointer: {
      UNIVK_RETURN_IF_ERROR(need(3));
      UNIVK_RETURN_IF_ERROR(type_of(o[2], "pointee type").status());
      UNIVK_RETURN_IF_ERROR(define(o[0]));
      Type t = make_type(Type::kPointer);
      t.elem = o[2];
      t.width = o[1];  // storage class
      types_[o[0]] = t;
      return ok_status();
    }
    case op::kTypeTensorArm: {
      UNIVK_RETURN_IF_ERROR(need(2));
      UNIVK_ASSIGN_OR_RETURN(const Type* elem, type_of(o[1], "tensor element type"));
      if (elem->kind != Type::kInt && elem->kind != Type::kFloat && elem->kind != Type::kBool) {
        return fail("tensor element type must be a scalar type");
      }
      if (o.size() < 4) return unsupported_here("tensors without a rank and shape (dynamic shapes)");
      UNIVK_ASSIGN_OR_RETURN(int64_t rank, const_int(o[2], "tensor rank"));
      UNIVK_ASSIGN_OR_RETURN(const Constant* shape, constant(o[3], "tensor shape"));
      const Type& st = types_.at(shape->type);
      if (st.kind != Type::kArray || types_.at(st.elem).kind != Type::kInt) {
        return fail("tensor shape must be a constant array of integers");
      }
      if (rank <= 0 || static_cast<uint64_t>(rank) != st.length) {
        return fail("tensor rank " + std::to_string(rank) + " does not match its shape of " +
                    std::to_string(st.length));
      }
      Type t = make_type(Type::kTensor);
      t.elem = o[1];
      const Type& se = types_.at(st.elem);
      const size_t eb = width_bytes(se);
      for (uint64_t i = 0; i < st.length; ++i) {
        int64_t d = 0;
        std::memcpy(&d, shape->bytes.data() + i * eb, eb);
        if (se.width < 64) d = (d << (64 - se.width)) >> (64 - se.width);
        if (d <= 0) return unsupported_here("tensor dimension " + std::to_string(d) + " (only static shapes)");
        t.shape.push_back(d);
      }
      UNIVK_RETURN_IF_ERROR(define(o[0]));
      types_[o[0]] = t;
      return ok_status();
    }
    case op::kTypeGraphArm: {
      UNIVK_RETURN_IF_ERROR(need(2));
      Type t = make_type(Type::kGraph);
      t.num_inputs = o[1];
      if (t.num_inputs > o.size() - 2) return fail("graph type has fewer types than NumInputs");
      for (size_t i = 2; i < o.size(); ++i) {
        UNIVK_ASSIGN_OR_RETURN(const Type* io, type_of(o[i], "graph interface type"));
        if (io->kind != Type::kTensor) return unsupported_here("graph interface types other than tensors");
        t.io.push_back(o[i]);
      }
      if (t.io.size() == t.num_inputs) return fail("graph type without outputs");
      UNIVK_RETURN_IF_ERROR(define(o[0]));
      types_[o[0]] = t;
      return ok_status();
    }
    case op::kTypeStruct: {
      // Only as the result type of a multi-result operator (FFT2D, RFFT2D): tensor members.
      Type t = make_type(Type::kStruct);
      for (size_t i = 1; i < o.size(); ++i) {
        UNIVK_ASSIGN_OR_RETURN(const Type* member, type_of(o[i], "struct member type"));
        if (member->kind != Type::kTensor) return unsupported_here("struct types with members other than tensors");
        t.io.push_back(o[i]);
      }
      UNIVK_RETURN_IF_ERROR(need(1));
      UNIVK_RETURN_IF_ERROR(define(o[0]));
      types_[o[0]] = t;
      return ok_status();
    }
    case op::kConstantTrue:
    case op::kConstantFalse:
    case op::kConstant:
    case op::kConstantNull:
    case op::kConstantComposite:
    case op::kConstantCompositeReplicateExt: {
      UNIVK_RETURN_IF_ERROR(need(2));
      UNIVK_ASSIGN_OR_RETURN(const Type* t, type_of(o[0], "constant type"));
      Constant c;
      c.type = o[0];
      if (t->kind == Type::kBool || t->kind == Type::kInt || t->kind == Type::kFloat) {
        const size_t eb = width_bytes(*t);
        c.bytes.assign(eb, 0);
        if (opcode == op::kConstantTrue || opcode == op::kConstantFalse) {
          if (t->kind != Type::kBool) return fail("OpConstantTrue/False of a non-bool type");
          c.bytes[0] = opcode == op::kConstantTrue;
        } else if (opcode == op::kConstant) {
          if (t->kind == Type::kBool) return fail("OpConstant of a bool type");
          const size_t words = eb > 4 ? 2 : 1;
          if (o.size() != 2 + words) return fail("OpConstant has the wrong number of value words");
          uint64_t bits = o[2];
          if (words == 2) bits |= uint64_t{o[3]} << 32;
          std::memcpy(c.bytes.data(), &bits, eb);
        } else if (opcode != op::kConstantNull) {
          return fail("composite constant of a scalar type");
        }
      } else if (t->kind == Type::kArray || t->kind == Type::kTensor) {
        const bool is_tensor = t->kind == Type::kTensor;
        const uint64_t outer = is_tensor ? static_cast<uint64_t>(t->shape[0]) : t->length;
        // The type each constituent must have: scalars (arrays, rank-1 tensors) or sub-tensors.
        const Type& elem = types_.at(t->elem);
        uint64_t total = outer;
        if (is_tensor) {
          for (size_t i = 1; i < t->shape.size(); ++i) {
            const auto d = static_cast<uint64_t>(t->shape[i]);
            total = total > (uint64_t{1} << 62) / d ? (uint64_t{1} << 62) : total * d;  // saturate
          }
        }
        const size_t eb = width_bytes(elem);
        if (eb == 0) return fail("composite constant whose element type is not a scalar");
        // OpConstantNull and replicated composites are compact: cap what they may expand to.
        if (total > constant_budget_ / eb) {
          return fail("constant of " + std::to_string(total) + " elements is too large for a module of " +
                      std::to_string(w_.size()) + " words");
        }
        constant_budget_ -= total * eb;
        if (opcode == op::kConstantNull) {
          c.bytes.assign(total * eb, 0);
        } else if (opcode == op::kConstantComposite || opcode == op::kConstantCompositeReplicateExt) {
          const bool replicate = opcode == op::kConstantCompositeReplicateExt;
          const size_t n = o.size() - 2;
          if (replicate ? n != 1 : n != outer) {
            return fail("composite constant has " + std::to_string(n) + " constituents, expected " +
                        std::to_string(replicate ? 1 : outer));
          }
          for (uint64_t i = 0; i < outer; ++i) {
            UNIVK_ASSIGN_OR_RETURN(const Constant* part, constant(o[2 + (replicate ? 0 : i)], "constituent"));
            const Type& pt = types_.at(part->type);
            bool ok;
            if (!is_tensor || t->shape.size() == 1) {
              ok = part->type == t->elem;
            } else {
              ok = pt.kind == Type::kTensor && pt.elem == t->elem &&
                   std::equal(pt.shape.begin(), pt.shape.end(), t->shape.begin() + 1, t->shape.end());
            }
            if (!ok) return fail("constituent " + std::to_string(i) + " has the wrong type");
            c.bytes.insert(c.bytes.end(), part->bytes.begin(), part->bytes.end());
          }
        } else {
          return fail("scalar constant instruction with a composite type");
        }
      } else {
        return fail("constant of a type that is neither scalar, array nor tensor");
      }
      UNIVK_RETURN_IF_ERROR(define(o[1]));
      consts_[o[1]] = std::move(c);
      return ok_status();
    }
    case op::kGraphConstantArm: {
      UNIVK_RETURN_IF_ERROR(need(3));
      UNIVK_RETURN_IF_ERROR(tensor_type(o[0]).status());
      UNIVK_RETURN_IF_ERROR(define(o[1]));
      Constant c;
      c.type = o[0];
      c.is_graph_constant = true;
      c.graph_constant_id = o[2];
      consts_[o[1]] = std::move(c);
      return ok_status();
    }
    case op::kVariable: {
      UNIVK_RETURN_IF_ERROR(need(3));
      UNIVK_ASSIGN_OR_RETURN(const Type* pt, type_of(o[0], "variable type"));
      if (pt->kind != Type::kPointer || pt->width != op::kStorageUniformConstant ||
          o[2] != op::kStorageUniformConstant || types_.at(pt->elem).kind != Type::kTensor) {
        return unsupported_here("variables other than UniformConstant tensors");
      }
      if (o.size() > 3) return fail("interface variable with an initializer");
      UNIVK_RETURN_IF_ERROR(define(o[1]));
      variables_[o[1]] = o[0];
      return ok_status();
    }
    case op::kLine:
    case op::kNoLine:
      return ok_status();
    default:
      return unsupported_here("opcode " + std::to_string(opcode) + " in the types/constants section");
  }
}

Result<ValueId> Reader::data_value(uint32_t id, const std::string& where) {
  UNIVK_RETURN_IF_ERROR(use(id));
  auto it = values_.find(id);
  if (it != values_.end()) return it->second;
  auto c = consts_.find(id);
  if (c == consts_.end()) return fail(where + ": id " + std::to_string(id) + " is not a tensor value");
  auto type = tensor_type(c->second.type);
  if (!type.ok()) return fail(where + ": constant " + std::to_string(id) + " is not a tensor");
  const ValueId v = c->second.is_graph_constant ? graph_.add_graph_constant(*type, c->second.graph_constant_id)
                                                : graph_.add_constant(*type, c->second.bytes);
  values_[id] = v;
  return v;
}

Result<AttrValue> Reader::attribute(uint32_t id, const OperandSpec& spec, DType elem, const std::string& where) const {
  auto c = constant(id, spec.name);
  if (!c.ok()) return fail(where + ": operand " + spec.name + " must be a constant");
  const Type& t = types_.at((*c)->type);
  const std::vector<uint8_t>& bytes = (*c)->bytes;
  auto bad = [&](const std::string& expected) {
    return fail(where + ": operand " + spec.name + " must be " + expected);
  };
  const bool scalar = t.kind == Type::kInt || t.kind == Type::kFloat || t.kind == Type::kBool;
  const Type* et = scalar ? &t : t.kind == Type::kTensor ? &types_.at(t.elem) : nullptr;
  auto element = [&](size_t i) -> AttrValue {
    const size_t eb = width_bytes(*et);
    uint64_t bits = 0;
    std::memcpy(&bits, bytes.data() + i * eb, eb);
    if (et->kind == Type::kFloat) {
      if (et->width == 16) return double{half_to_float(static_cast<uint16_t>(bits))};
      float f;
      const uint32_t b32 = static_cast<uint32_t>(bits);
      std::memcpy(&f, &b32, 4);
      return double{f};
    }
    int64_t v = static_cast<int64_t>(bits);
    if (et->width < 64) v = (v << (64 - et->width)) >> (64 - et->width);
    if (et->kind == Type::kBool) v = bits != 0;
    return v;
  };
  switch (spec.kind) {
    case OperandKind::kI32:
      if (t.kind != Type::kInt) return bad("an integer scalar constant");
      return element(0);
    case OperandKind::kBool:
      if (t.kind != Type::kBool) return bad("a boolean constant");
      return element(0);
    case OperandKind::kI32List:
    case OperandKind::kElemList: {
      if (t.kind != Type::kTensor || t.shape.size() != 1 || et->kind != Type::kInt) {
        return bad("a rank-1 integer tensor constant");
      }
      if (spec.kind == OperandKind::kElemList && et->dtype != elem) {
        return bad("a tensor of " + std::string(dtype_name(elem)));
      }
      std::vector<int64_t> out;
      for (int64_t i = 0; i < t.shape[0]; ++i) out.push_back(std::get<int64_t>(element(static_cast<size_t>(i))));
      return AttrValue(std::move(out));
    }
    case OperandKind::kElemScalar:
    case OperandKind::kElemTensor1: {
      // Accept both a scalar and a one-element tensor for either encoding.
      if (!et || (t.kind == Type::kTensor && (t.shape.size() != 1 || t.shape[0] != 1))) {
        return bad("a scalar or [1] tensor constant");
      }
      if (et->dtype != elem) return bad("of element type " + std::string(dtype_name(elem)));
      return element(0);
    }
    case OperandKind::kData:
      break;
  }
  return internal_error("unreachable");
}

Status Reader::handle_ext_inst(std::span<const uint32_t> o) {
  if (o.size() < 4) return fail("OpExtInst has too few operands");
  UNIVK_RETURN_IF_ERROR(use(o[2]));
  if (o[2] != tosa_import_) return unsupported_here("extended instruction set other than TOSA.001000.1");
  auto top = tosa_op_from_opcode(o[3]);
  if (!top) return fail("unknown TOSA opcode " + std::to_string(o[3]));
  const std::string where = std::string(tosa_op_name(*top));
  const detail::OpSpec* spec = detail::find_op_spec(*top);
  if (!spec) return unsupported_here("TOSA operator " + where + " is not supported by univk");
  std::vector<TosaTensorType> out_types;
  {
    auto rt = type_of(o[0], "result type");
    if (!rt.ok()) return rt.status();
    if (spec->results == 1) {
      if ((*rt)->kind != Type::kTensor) return unsupported_here(where + ": result type must be a tensor");
      UNIVK_ASSIGN_OR_RETURN(TosaTensorType t, tensor_type(o[0]));
      out_types.push_back(std::move(t));
    } else {
      if ((*rt)->kind != Type::kStruct || (*rt)->io.size() != spec->results) {
        return fail(where + ": result type must be a struct of " + std::to_string(spec->results) + " tensors");
      }
      for (uint32_t member : (*rt)->io) {
        UNIVK_ASSIGN_OR_RETURN(TosaTensorType t, tensor_type(member));
        out_types.push_back(std::move(t));
      }
    }
  }
  const TosaTensorType out_type = out_types[0];
  const auto args = o.subspan(4);
  const size_t fixed = spec->operands.size();
  if (spec->variadic_data ? args.size() < fixed : args.size() != fixed) {
    return fail(where + ": " + std::to_string(args.size()) + " operands, expected " +
                (spec->variadic_data ? "at least " : "") + std::to_string(fixed));
  }
  // Data operands first (typed attributes need their element types).
  std::vector<ValueId> inputs;
  size_t a = 0;
  std::vector<std::pair<const OperandSpec*, uint32_t>> attr_ops;
  for (const OperandSpec& s : spec->operands) {
    if (s.kind == OperandKind::kData) {
      const size_t n = spec->variadic_data ? args.size() - fixed + 1 : 1;
      for (size_t k = 0; k < n; ++k) {
        UNIVK_ASSIGN_OR_RETURN(ValueId v, data_value(args[a++], where + " operand " + s.name));
        inputs.push_back(v);
      }
    } else {
      attr_ops.emplace_back(&s, args[a++]);
    }
  }
  Attributes attrs;
  for (const auto& [s, id] : attr_ops) {
    DType elem = DType::kInt32;
    switch (s->type) {
      case TypeSource::kInput0:
        elem = graph_.values[inputs.at(0)].type.dtype;
        break;
      case TypeSource::kInput1:
        elem = graph_.values[inputs.at(1)].type.dtype;
        break;
      case TypeSource::kOutput:
        elem = out_type.dtype;
        break;
      case TypeSource::kInt8:
        elem = DType::kInt8;
        break;
      case TypeSource::kMultiplier: {
        auto scale32 = attrs.get_int("scale32");  // scale32 precedes multiplier in RESCALE
        elem = scale32.ok() && *scale32 ? DType::kInt32 : DType::kInt16;
        break;
      }
      case TypeSource::kNone:
        break;
    }
    UNIVK_ASSIGN_OR_RETURN(AttrValue v, attribute(id, *s, elem, where));
    attrs.set(s->name, std::move(v));
  }
  UNIVK_RETURN_IF_ERROR(define(o[1]));
  if (spec->results == 1) {
    values_[o[1]] = graph_.add_operation(*top, std::move(inputs), std::move(attrs), std::move(out_types[0]));
  } else {
    struct_results_[o[1]] = graph_.add_operation(*top, std::move(inputs), std::move(attrs), std::move(out_types));
  }
  return ok_status();
}

// OpCompositeExtract of one result of a multi-result operator.
Status Reader::handle_composite_extract(std::span<const uint32_t> o) {
  if (o.size() != 4) return unsupported_here("OpCompositeExtract other than one member of an operator's results");
  UNIVK_RETURN_IF_ERROR(use(o[2]));
  auto it = struct_results_.find(o[2]);
  if (it == struct_results_.end()) return fail("OpCompositeExtract of an id that is not a multi-result operator");
  if (o[3] >= it->second.size()) return fail("OpCompositeExtract index " + std::to_string(o[3]) + " out of range");
  const ValueId v = it->second[o[3]];
  UNIVK_ASSIGN_OR_RETURN(TosaTensorType t, tensor_type(o[0]));
  if (!(t == graph_.values[v].type)) {
    return fail("OpCompositeExtract result type " + to_string(t) + " differs from the member's " +
                to_string(graph_.values[v].type));
  }
  UNIVK_RETURN_IF_ERROR(define(o[1]));
  values_[o[1]] = v;
  return ok_status();
}

Status Reader::finish() {
  if (state_ != GraphState::kDone) return invalid_argument("spirv: the module has no complete OpGraphARM");
  if (!have_entry_) return invalid_argument("spirv: the module has no OpGraphEntryPointARM");
  if (entry_graph_ != graph_id_)
    return invalid_argument("spirv: OpGraphEntryPointARM names an id that is not the graph");
  const Type& gt = types_.at(graph_type_);
  if (interface_.size() != gt.io.size()) {
    return invalid_argument("spirv: the entry point lists " + std::to_string(interface_.size()) +
                            " interface variables, the graph has " + std::to_string(gt.io.size()) +
                            " inputs and outputs");
  }
  for (size_t i = 0; i < interface_.size(); ++i) {
    const uint32_t var = interface_[i];
    auto v = variables_.find(var);
    if (v == variables_.end())
      return invalid_argument("spirv: interface id " + std::to_string(var) + " is not a variable");
    if (types_.at(v->second).elem != gt.io[i] && !(tensor_type(types_.at(v->second).elem).ok() &&
                                                   *tensor_type(types_.at(v->second).elem) == *tensor_type(gt.io[i]))) {
      return invalid_argument("spirv: interface variable " + std::to_string(i) +
                              " has a different type than the graph");
    }
    auto d = decorations_.find(var);
    if (d == decorations_.end() || !d->second.first || !d->second.second) {
      return invalid_argument("spirv: interface variable " + std::to_string(var) + " lacks DescriptorSet or Binding");
    }
    GraphBinding& b = i < gt.num_inputs ? graph_.inputs[i] : graph_.outputs[i - gt.num_inputs];
    b.descriptor_set = *d->second.first;
    b.binding = *d->second.second;
  }
  for (size_t i = 0; i < output_set_.size(); ++i) {
    if (!output_set_[i]) return invalid_argument("spirv: graph output " + std::to_string(i) + " is never set");
  }
  for (uint32_t id : decorated_ids_) {
    if (id >= bound_ || !defined_[id])
      return invalid_argument("spirv: decoration of undefined id " + std::to_string(id));
  }
  return ok_status();
}

Result<TosaGraph> Reader::run() {
  if (w_.size() < 5)
    return invalid_argument("spirv: module of " + std::to_string(w_.size()) + " words is shorter than the header");
  if (w_[0] != op::kMagic) return invalid_argument("spirv: bad magic number (not a SPIR-V module, or big endian)");
  if (w_[1] < 0x00010000u || w_[1] > op::kVersion16)
    return unsupported("spirv: SPIR-V version " + std::to_string(w_[1] >> 16) + "." +
                       std::to_string((w_[1] >> 8) & 0xff));
  bound_ = w_[3];
  if (bound_ == 0 || bound_ > (1u << 22) || bound_ > w_.size() * 4 + 16) {
    return invalid_argument("spirv: id bound " + std::to_string(bound_) + " is unreasonable for the module size");
  }
  if (w_[4] != 0) return invalid_argument("spirv: reserved schema word is not zero");
  defined_.assign(bound_, 0);
  constant_budget_ = uint64_t{w_.size()} * 4 * 16 + (uint64_t{1} << 20);
  int section = kCaps;
  for (at_ = 5; at_ < w_.size();) {
    const uint32_t count = w_[at_] >> 16;
    const uint16_t opcode = static_cast<uint16_t>(w_[at_] & 0xffff);
    if (count == 0 || count > w_.size() - at_)
      return fail("word count " + std::to_string(count) + " runs past the module");
    const auto o = w_.subspan(at_ + 1, count - 1);
    const size_t next = at_ + count;
    int want;
    switch (opcode) {
      case op::kCapability:
        want = kCaps;
        break;
      case op::kExtension:
        want = kExts;
        break;
      case op::kExtInstImport:
        want = kImports;
        break;
      case op::kMemoryModel:
        want = kMemModel;
        break;
      case op::kEntryPoint:
        want = kEntryPoints;
        break;
      case op::kExecutionMode:
      case op::kExecutionModeId:
        want = kExecModes;
        break;
      case op::kSourceContinued:
      case op::kSource:
      case op::kSourceExtension:
      case op::kName:
      case op::kMemberName:
      case op::kString:
      case op::kModuleProcessed:
        want = kDebug;
        break;
      case op::kDecorate:
      case op::kMemberDecorate:
      case op::kDecorateId:
      case op::kDecorateString:
        want = kAnnotations;
        break;
      case op::kFunction:
        want = kFunctions;
        break;
      case op::kGraphEntryPointArm:
      case op::kGraphArm:
      case op::kGraphInputArm:
      case op::kGraphSetOutputArm:
      case op::kGraphEndArm:
      case op::kExtInst:
      case op::kCompositeExtract:
        want = kGraphs;
        break;
      case op::kLine:
      case op::kNoLine:
      case op::kNop:
        want = section;
        break;
      default:
        want = kGlobals;
        break;
    }
    if (want < section) return fail("opcode " + std::to_string(opcode) + " is out of the module's section order");
    section = want;
    switch (want) {
      case kCaps:
        if (o.size() != 1) return fail("OpCapability takes one operand");
        has_graph_cap_ |= o[0] == op::kCapGraphArm;
        break;
      case kExts: {
        size_t end = next;
        UNIVK_RETURN_IF_ERROR(literal_string(at_ + 1, end).status());
        break;
      }
      case kImports: {
        if (o.empty()) return fail("OpExtInstImport without a result");
        size_t end = next;
        UNIVK_ASSIGN_OR_RETURN(std::string name, literal_string(at_ + 2, end));
        UNIVK_RETURN_IF_ERROR(define(o[0]));
        if (name == kTosaExtInstSetName) tosa_import_ = o[0];
        break;
      }
      case kMemModel:
        if (o.size() != 2) return fail("OpMemoryModel takes two operands");
        if (has_memory_model_) return fail("second OpMemoryModel");
        has_memory_model_ = true;
        break;
      case kEntryPoints:
      case kExecModes:
        return unsupported("spirv: shader entry points (OpEntryPoint): not a graph module");
      case kDebug:
        break;
      case kAnnotations:
        if (o.size() < 2) return fail("decoration with too few operands");
        decorated_ids_.push_back(o[0]);
        if (opcode == op::kDecorate && (o[1] == op::kDecorationDescriptorSet || o[1] == op::kDecorationBinding)) {
          if (o.size() != 3) return fail("DescriptorSet/Binding decoration takes one literal");
          auto& d = decorations_[o[0]];
          (o[1] == op::kDecorationDescriptorSet ? d.first : d.second) = o[2];
        }
        break;
      case kGlobals:
        UNIVK_RETURN_IF_ERROR(handle_global(opcode, o));
        break;
      case kFunctions:
        return unsupported("spirv: functions (OpFunction) in a graph module");
      case kGraphs:
        switch (opcode) {
          case op::kGraphEntryPointArm: {
            if (state_ != GraphState::kNone && state_ != GraphState::kDone) return fail("entry point inside a graph");
            if (have_entry_) return unsupported("spirv: more than one graph entry point");
            if (o.empty()) return fail("OpGraphEntryPointARM without a graph");
            have_entry_ = true;
            entry_graph_ = o[0];
            size_t end = next;
            UNIVK_ASSIGN_OR_RETURN(graph_.entry_point, literal_string(at_ + 2, end));
            for (size_t i = end; i < next; ++i) {
              UNIVK_RETURN_IF_ERROR(use(w_[i]));
              interface_.push_back(w_[i]);
            }
            break;
          }
          case op::kGraphArm: {
            if (state_ == GraphState::kDone) return unsupported("spirv: more than one graph in a module");
            if (state_ != GraphState::kNone) return fail("nested OpGraphARM");
            if (o.size() != 2) return fail("OpGraphARM takes a type and a result");
            UNIVK_ASSIGN_OR_RETURN(const Type* gt, type_of(o[0], "graph type"));
            if (gt->kind != Type::kGraph) return fail("OpGraphARM type is not OpTypeGraphARM");
            UNIVK_RETURN_IF_ERROR(define(o[1]));
            graph_id_ = o[1];
            graph_type_ = o[0];
            for (uint32_t i = 0; i < gt->num_inputs; ++i) {
              UNIVK_ASSIGN_OR_RETURN(TosaTensorType t, tensor_type(gt->io[i]));
              graph_.add_input(std::move(t), 0, 0);
            }
            output_set_.assign(gt->io.size() - gt->num_inputs, false);
            graph_.outputs.assign(output_set_.size(), GraphBinding{});
            state_ = GraphState::kInputs;
            break;
          }
          case op::kGraphInputArm: {
            if (state_ != GraphState::kInputs) return fail("OpGraphInputARM must directly follow OpGraphARM");
            if (o.size() != 3) return unsupported_here("OpGraphInputARM with element indices (tensor arrays)");
            UNIVK_ASSIGN_OR_RETURN(int64_t index, const_int(o[2], "input index"));
            const Type& gt = types_.at(graph_type_);
            if (index < 0 || index >= gt.num_inputs)
              return fail("graph input index " + std::to_string(index) + " out of range");
            UNIVK_ASSIGN_OR_RETURN(TosaTensorType t, tensor_type(o[0]));
            if (!(t == graph_.values[static_cast<size_t>(index)].type)) {
              return fail("graph input " + std::to_string(index) + " type differs from the graph type");
            }
            UNIVK_RETURN_IF_ERROR(define(o[1]));
            values_[o[1]] = graph_.inputs[static_cast<size_t>(index)].value;
            break;
          }
          case op::kExtInst:
            if (state_ != GraphState::kInputs && state_ != GraphState::kBody)
              return fail("OpExtInst outside a graph body");
            state_ = GraphState::kBody;
            UNIVK_RETURN_IF_ERROR(handle_ext_inst(o));
            break;
          case op::kCompositeExtract:
            if (state_ != GraphState::kBody) return fail("OpCompositeExtract outside a graph body");
            UNIVK_RETURN_IF_ERROR(handle_composite_extract(o));
            break;
          case op::kGraphSetOutputArm: {
            if (state_ == GraphState::kNone || state_ == GraphState::kDone)
              return fail("OpGraphSetOutputARM outside a graph");
            if (o.size() != 2) return unsupported_here("OpGraphSetOutputARM with element indices");
            state_ = GraphState::kOutputs;
            UNIVK_ASSIGN_OR_RETURN(ValueId v, data_value(o[0], "graph output"));
            UNIVK_ASSIGN_OR_RETURN(int64_t index, const_int(o[1], "output index"));
            if (index < 0 || static_cast<size_t>(index) >= output_set_.size()) {
              return fail("graph output index " + std::to_string(index) + " out of range");
            }
            if (output_set_[static_cast<size_t>(index)])
              return fail("graph output " + std::to_string(index) + " set twice");
            const Type& gt = types_.at(graph_type_);
            UNIVK_ASSIGN_OR_RETURN(TosaTensorType t, tensor_type(gt.io[gt.num_inputs + static_cast<size_t>(index)]));
            if (!(t == graph_.values[v].type)) {
              return fail("graph output " + std::to_string(index) + " is " + to_string(graph_.values[v].type) +
                          ", the graph type says " + to_string(t));
            }
            output_set_[static_cast<size_t>(index)] = true;
            graph_.outputs[static_cast<size_t>(index)].value = v;
            break;
          }
          case op::kGraphEndArm:
            if (state_ == GraphState::kNone || state_ == GraphState::kDone)
              return fail("OpGraphEndARM outside a graph");
            state_ = GraphState::kDone;
            break;
          default:
            break;
        }
        break;
      default:
        break;
    }
    at_ = next;
  }
  if (!has_graph_cap_) return invalid_argument("spirv: the module does not declare the GraphARM capability");
  if (!has_memory_model_) return invalid_argument("spirv: the module has no OpMemoryModel");
  if (tosa_import_ == 0 && !graph_.operations.empty()) return invalid_argument("spirv: TOSA.001000.1 is not imported");
  UNIVK_RETURN_IF_ERROR(finish());
  return std::move(graph_);
}

}  // namespace

Result<TosaGraph> read_tosa_graph(std::span<const uint32_t> spirv_words) { return Reader(spirv_words).run(); }

}  // namespace univk::spirv
