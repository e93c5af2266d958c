// ProgramDesc: the checked contents of a program file as plain data (what univk-dump prints and
// what the method runtime executes). Produced only by the loader (program_loader.h), after every
// index, offset, size, dtype and shape was checked, so code reading a ProgramDesc may index
// without further checks. parse_program() is the loader (and the entry point for fuzzers).
//
// Ownership: a ProgramDesc owns its metadata; every std::span<const uint8_t> in it (payloads,
// constant bytes) borrows the program file's bytes, owned by the Program that holds the desc.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "univk/backend/delegate_spec.h"
#include "univk/tensor/attributes.h"

namespace univk::runtime {

// The runtime describes tensors, options and counters in the backend contract's terms.
using backend::BackendOptions;
using backend::ExecuteStats;
using backend::TensorInfo;

struct SegmentDesc {
  uint64_t offset = 0;  // from the start of the file, a multiple of kSegmentAlignment
  uint64_t size = 0;
};

// An int8 value's quantization: real = (q - zero_point) * scale (scale finite and > 0).
struct QuantizationDesc {
  double scale = 1.0;
  int64_t zero_point = 0;
};

struct ValueDesc {
  TensorInfo info;
  std::optional<QuantizationDesc> quantization;  // int8 program inputs/outputs of quantized models
  std::optional<uint32_t> constant_segment;      // set for constants
  std::span<const uint8_t> constant_bytes;       // the segment's bytes (exactly info.byte_size())
  bool is_constant() const { return constant_segment.has_value(); }
};

struct DelegateCallDesc {
  uint32_t delegate = 0;  // index into ProgramDesc::delegates
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
};

struct KernelCallDesc {
  std::string op;
  Attributes attributes;
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
};

using InstructionDesc = std::variant<DelegateCallDesc, KernelCallDesc>;
const std::vector<uint32_t>& instruction_inputs(const InstructionDesc& instruction);
const std::vector<uint32_t>& instruction_outputs(const InstructionDesc& instruction);

// Debug metadata: a source-model operator (a PyTorch graph node) an instruction runs.
struct SourceNode {
  std::string name;      // e.g. the torch.fx node name "conv2d_1"
  std::string location;  // e.g. "in module 'features.0' (Conv2d) at model.py:12 (in forward): ..."; may be empty
  bool operator==(const SourceNode&) const = default;
};

struct MethodDesc {
  std::string name;
  std::vector<ValueDesc> values;
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
  std::vector<InstructionDesc> instructions;
  // Per instruction, the source nodes it runs (empty when the program has no debug metadata).
  std::vector<std::vector<SourceNode>> sources;
};

struct DelegateDesc {
  std::string backend_id;
  std::map<std::string, std::vector<uint8_t>> compile_specs;
  uint32_t segment = 0;
  std::span<const uint8_t> payload;  // 16-byte aligned, borrowed from the file
};

struct ProgramDesc {
  uint32_t version = 0;
  std::vector<SegmentDesc> segments;
  std::vector<DelegateDesc> delegates;
  std::vector<MethodDesc> methods;
};

// Verifies the FlatBuffer and checks every field of a whole program file. `file` must start at
// a 16-byte aligned address (mmap and operator new give that); the returned spans borrow it.
// InvalidArgument naming the field and the value ("method 'forward' instruction 2 input 1:
// value 17 out of range (9 values)"); Incompatible for an unknown format version.
Result<ProgramDesc> parse_program(std::span<const uint8_t> file);

}  // namespace univk::runtime
