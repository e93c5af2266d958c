// ProgramBuilder: writes a univk program file (.uvk). See docs/PROGRAM_FORMAT.md.
//
// A program holds delegates (backend id, compile specs, payload bytes; shared by all methods)
// and methods. Each method has its own value table: values are tensors with a dtype and a shape;
// a constant is a value whose bytes live in a payload segment of the file. A method's
// instructions run in order; each is either a DelegateCall (a delegate consumes input values and
// produces output values) or a KernelCall (a CPU reference operator, the fallback).
//
// Every value is written once (by a program input, a constant or one instruction output) and
// must be written before it is read. finish() checks all of that by loading the produced bytes
// with the same verifier the runtime uses, so a builder never produces a file the runtime rejects.
//
// Ownership: the builder copies every byte given to it (payloads, constants, compile specs);
// MethodBuilder references returned by add_method() stay valid for the builder's life.
//
// Example:
//   ProgramBuilder b;
//   uint32_t d = b.add_delegate("VulkanBackend", payload, {{"version", {1}}});
//   MethodBuilder& m = b.add_method("forward");
//   ValueId x = m.add_value(DType::kFloat32, Shape{1, 3, 8, 8});
//   ValueId y = m.add_value(DType::kFloat32, Shape{1, 3, 4, 4});
//   ValueId z = m.add_value(DType::kFloat32, Shape{1, 3, 4, 4});
//   m.add_delegate_call(d, {x}, {y});
//   Attributes a; a.set("approximate", std::string("none"));
//   m.add_kernel_call("gelu", a, {y}, {z});
//   m.set_inputs({x});
//   m.set_outputs({z});
//   UNIVK_RETURN_IF_ERROR(b.write("model.uvk"));
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "univk/base/status.h"
#include "univk/runtime/program_desc.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/dtype.h"
#include "univk/tensor/shape.h"

namespace univk::runtime {

using ValueId = uint32_t;
using CompileSpecs = std::map<std::string, std::vector<uint8_t>>;

// The format version this writer produces (and the newest the loader reads).
inline constexpr uint32_t kProgramFormatVersion = 1;
// Payload segments start at multiples of this many bytes from the start of the file.
inline constexpr uint64_t kSegmentAlignment = 16;

class MethodBuilder {
 public:
  explicit MethodBuilder(std::string name) : name_(std::move(name)) {}

  // A non-constant value (program input, intermediate or output). Ids count from 0.
  ValueId add_value(DType dtype, Shape shape);
  // A constant: `bytes` (copied) must be exactly numel * dtype_size bytes (checked by finish()).
  ValueId add_constant(DType dtype, Shape shape, std::span<const uint8_t> bytes);

  // `delegate` is an index returned by ProgramBuilder::add_delegate. `sources`: debug metadata,
  // the source-model nodes the call runs (MethodDesc::sources).
  void add_delegate_call(uint32_t delegate, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                         std::vector<SourceNode> sources = {});
  // `op` and attribute names follow univk::reference::run_op (PyTorch names).
  void add_kernel_call(std::string op, Attributes attributes, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                       std::vector<SourceNode> sources = {});

  // Records the quantization of an int8 value (metadata for the program's caller);
  // InvalidArgument for an unknown or non-int8 value, a scale not finite and > 0, or a zero point
  // outside int8.
  Status set_quantization(ValueId value, QuantizationDesc quantization);
  void set_inputs(std::vector<ValueId> inputs);
  void set_outputs(std::vector<ValueId> outputs);

  const std::string& name() const { return name_; }

 private:
  friend struct ProgramSerializer;  // program_writer.cc
  struct Value {
    DType dtype;
    Shape shape;
    int64_t constant = -1;  // index into constants_, or -1
    std::optional<QuantizationDesc> quantization;
  };
  struct Instruction {
    bool is_delegate_call = false;
    uint32_t delegate = 0;
    std::string op;
    Attributes attributes;
    std::vector<ValueId> inputs;
    std::vector<ValueId> outputs;
    std::vector<SourceNode> sources;
  };
  std::string name_;
  std::vector<Value> values_;
  std::vector<std::vector<uint8_t>> constants_;
  std::vector<Instruction> instructions_;
  std::vector<ValueId> inputs_;
  std::vector<ValueId> outputs_;
};

class ProgramBuilder {
 public:
  ProgramBuilder() = default;
  ProgramBuilder(const ProgramBuilder&) = delete;
  ProgramBuilder& operator=(const ProgramBuilder&) = delete;

  // A delegate entry: the backend id ("VulkanBackend", "VgfBackend"), its payload (copied into a
  // segment of its own) and the compile specs the backend needs. Returns the delegate index.
  uint32_t add_delegate(std::string backend_id, std::span<const uint8_t> payload, CompileSpecs compile_specs = {});

  // A new method; names must be unique (checked by finish()).
  MethodBuilder& add_method(std::string name);

  // The whole file. InvalidArgument (naming the method, instruction and value) when the program
  // breaks a rule of the format: unknown ids, a value written twice or read before it is written,
  // a constant of the wrong size, duplicate names.
  Result<std::vector<uint8_t>> finish() const;
  // finish(), then writes the bytes to `path`.
  Status write(const std::string& path) const;

 private:
  friend struct ProgramSerializer;
  struct DelegateEntry {
    std::string backend_id;
    std::vector<uint8_t> payload;
    CompileSpecs compile_specs;
  };
  std::vector<DelegateEntry> delegates_;
  std::vector<std::unique_ptr<MethodBuilder>> methods_;
};

}  // namespace univk::runtime
