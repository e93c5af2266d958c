// The "elementwise program": a short register-machine program that one fused dispatch runs per
// output element. Its steps are baked into the pipeline through specialization constants, so
// the driver compiles a specialised pipeline and no GLSL compiler runs at run time.
//
// Registers R0..R3 hold 4 consecutive output elements each (vec4/ivec4). A step reads up to two
// sources (a register, an input tensor loaded at the element's coordinates, or one of the
// step's two immediates) and writes one register. The program's result is `result_register`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "univk/spirv/tosa_graph.h"

namespace univk::backends::vgf {

inline constexpr uint32_t kMaxProgramSteps = 12;
inline constexpr uint32_t kProgramRegisters = 4;
inline constexpr uint32_t kProgramInputs = 4;

// Must match shaders/ew_program.glsl.
enum class EwOp : uint32_t {
  kMov = 0,
  kAdd,
  kSub,
  kMul,
  kSigmoid,
  kTanh,
  kClamp,
  kExp,
  kLog,
  kAbs,
  kNegate,
  kReciprocal,
  kRsqrt,
  kPow,
  kErf,
  kMaximum,
  kMinimum,
  kMulShift,  // int: (a*b + round) >> imm0
  kCeil,      // float only
  kFloor,
  kSin,
  kCos,
  kBitwiseAnd,  // int only (int32 registers)
  kBitwiseOr,
  kBitwiseXor,
  kBitwiseNot,
  kIntdiv,                // truncating
  kShiftLeft,             // LOGICAL_LEFT_SHIFT
  kShiftRightLogical,     // LOGICAL_RIGHT_SHIFT
  kShiftRightArithmetic,  // ARITHMETIC_RIGHT_SHIFT, round false
  kShiftRightRounded,     // ARITHMETIC_RIGHT_SHIFT, round true
  kClz,
};

// Source operands of a step.
inline constexpr uint32_t kSrcRegister0 = 0;  // 0..3
inline constexpr uint32_t kSrcInput0 = 4;     // 4..7
inline constexpr uint32_t kSrcImm0 = 8;
inline constexpr uint32_t kSrcImm1 = 9;

struct EwStep {
  EwOp op = EwOp::kMov;
  uint32_t dst = 0;
  uint32_t a = 0;
  uint32_t b = 0;
  uint32_t imm0 = 0;  // raw bits (float or int32)
  uint32_t imm1 = 0;
};

struct EwProgram {
  std::vector<EwStep> steps;
  uint32_t result_register = 0;
  // Specialization constants {id, value} starting at `first_id` (shaders/ew_program.glsl).
  std::vector<std::pair<uint32_t, uint32_t>> specialization(uint32_t first_id) const;
};

// Maps a TOSA operator to its elementwise op for float (is_int=false) or int32 programs;
// nullopt when the operator is not fusable for that type. CLAMP/MUL take extra immediates from
// attributes (see ProgramBuilder::add); ARITHMETIC_RIGHT_SHIFT's `round` picks its op.
std::optional<EwOp> elementwise_op(const spirv::TosaOperation& op, bool is_int);

// Builds a program from TOSA values in evaluation order. Values are caller-chosen ids; a value
// is either external (an input slot or an immediate) or the result of an earlier step.
class ProgramBuilder {
 public:
  // Declares `value` as already in a register (the pool/conv result in an epilogue: R0).
  void seed_register_value(uint64_t value);
  // External operands: an immediate scalar, or input slot `slot` (0..3).
  void bind_immediate(uint64_t value, uint32_t bits);
  void bind_input(uint64_t value, uint32_t slot);
  bool is_bound(uint64_t value) const;

  // Appends `result = op(operands...)` with immediates imm0/imm1 (CLAMP bounds, MUL shift).
  void add(uint64_t result, EwOp op, std::vector<uint64_t> operands, uint32_t imm0 = 0, uint32_t imm1 = 0);

  // Register-allocates the program for `result`; nullopt when it needs more than
  // kProgramRegisters live values or kMaxProgramSteps steps.
  std::optional<EwProgram> build(uint64_t result) const;
  size_t step_count() const { return ops_.size(); }

 private:
  struct PendingOp {
    uint64_t result;
    EwOp op;
    std::vector<uint64_t> operands;
    uint32_t imm0, imm1;
  };
  std::optional<uint64_t> seeded_;
  std::vector<std::pair<uint64_t, uint32_t>> immediates_;
  std::vector<std::pair<uint64_t, uint32_t>> inputs_;
  std::vector<PendingOp> ops_;
};

}  // namespace univk::backends::vgf
