#include "elementwise_program.h"

#include <algorithm>
#include <map>

namespace univk::backends::vgf {

using spirv::TosaOp;

std::vector<std::pair<uint32_t, uint32_t>> EwProgram::specialization(uint32_t first_id) const {
  // Layout (shaders/ew_program.glsl): STEP_COUNT, RESULT_REG, then 6 words per step.
  std::vector<std::pair<uint32_t, uint32_t>> spec;
  spec.emplace_back(first_id, static_cast<uint32_t>(steps.size()));
  spec.emplace_back(first_id + 1, result_register);
  for (size_t i = 0; i < steps.size(); ++i) {
    const EwStep& s = steps[i];
    const uint32_t base = first_id + 2 + static_cast<uint32_t>(i) * 6;
    spec.emplace_back(base + 0, static_cast<uint32_t>(s.op));
    spec.emplace_back(base + 1, s.dst);
    spec.emplace_back(base + 2, s.a);
    spec.emplace_back(base + 3, s.b);
    spec.emplace_back(base + 4, s.imm0);
    spec.emplace_back(base + 5, s.imm1);
  }
  return spec;
}

std::optional<EwOp> elementwise_op(const spirv::TosaOperation& operation, bool is_int) {
  const TosaOp op = operation.op;
  switch (op) {
    case TosaOp::kAdd:
      return EwOp::kAdd;
    case TosaOp::kSub:
      return EwOp::kSub;
    case TosaOp::kMul:
      return is_int ? EwOp::kMulShift : EwOp::kMul;
    case TosaOp::kClamp:
      return EwOp::kClamp;
    case TosaOp::kAbs:
      return EwOp::kAbs;
    case TosaOp::kNegate:
      return EwOp::kNegate;
    case TosaOp::kMaximum:
      return EwOp::kMaximum;
    case TosaOp::kMinimum:
      return EwOp::kMinimum;
    default:
      break;
  }
  if (is_int) {
    switch (op) {
      case TosaOp::kBitwiseAnd:
        return EwOp::kBitwiseAnd;
      case TosaOp::kBitwiseOr:
        return EwOp::kBitwiseOr;
      case TosaOp::kBitwiseXor:
        return EwOp::kBitwiseXor;
      case TosaOp::kBitwiseNot:
        return EwOp::kBitwiseNot;
      case TosaOp::kIntdiv:
        return EwOp::kIntdiv;
      case TosaOp::kLogicalLeftShift:
        return EwOp::kShiftLeft;
      case TosaOp::kLogicalRightShift:
        return EwOp::kShiftRightLogical;
      case TosaOp::kArithmeticRightShift: {
        auto round = operation.attrs.get_int_or("round", 0);
        if (!round.ok()) return std::nullopt;
        return *round != 0 ? EwOp::kShiftRightRounded : EwOp::kShiftRightArithmetic;
      }
      case TosaOp::kClz:
        return EwOp::kClz;
      default:
        return std::nullopt;
    }
  }
  switch (op) {
    case TosaOp::kSigmoid:
      return EwOp::kSigmoid;
    case TosaOp::kTanh:
      return EwOp::kTanh;
    case TosaOp::kExp:
      return EwOp::kExp;
    case TosaOp::kLog:
      return EwOp::kLog;
    case TosaOp::kReciprocal:
      return EwOp::kReciprocal;
    case TosaOp::kRsqrt:
      return EwOp::kRsqrt;
    case TosaOp::kPow:
      return EwOp::kPow;
    case TosaOp::kErf:
      return EwOp::kErf;
    case TosaOp::kCeil:
      return EwOp::kCeil;
    case TosaOp::kFloor:
      return EwOp::kFloor;
    case TosaOp::kSin:
      return EwOp::kSin;
    case TosaOp::kCos:
      return EwOp::kCos;
    default:
      return std::nullopt;
  }
}

void ProgramBuilder::seed_register_value(uint64_t value) { seeded_ = value; }
void ProgramBuilder::bind_immediate(uint64_t value, uint32_t bits) { immediates_.emplace_back(value, bits); }
void ProgramBuilder::bind_input(uint64_t value, uint32_t slot) { inputs_.emplace_back(value, slot); }

bool ProgramBuilder::is_bound(uint64_t value) const {
  if (seeded_ && *seeded_ == value) return true;
  for (const auto& [v, bits] : immediates_)
    if (v == value) return true;
  for (const auto& [v, slot] : inputs_)
    if (v == value) return true;
  for (const auto& op : ops_)
    if (op.result == value) return true;
  return false;
}

void ProgramBuilder::add(uint64_t result, EwOp op, std::vector<uint64_t> operands, uint32_t imm0, uint32_t imm1) {
  ops_.push_back({result, op, std::move(operands), imm0, imm1});
}

std::optional<EwProgram> ProgramBuilder::build(uint64_t result) const {
  if (ops_.size() > kMaxProgramSteps) return std::nullopt;
  // Last step reading each register value (the result counts as read after the end).
  std::map<uint64_t, size_t> last_use;
  for (size_t i = 0; i < ops_.size(); ++i)
    for (uint64_t v : ops_[i].operands) last_use[v] = i;
  last_use[result] = ops_.size();

  std::map<uint64_t, uint32_t> reg_of;
  std::vector<bool> busy(kProgramRegisters, false);
  if (seeded_) {
    reg_of[*seeded_] = 0;
    busy[0] = true;
  }
  EwProgram program;
  for (size_t i = 0; i < ops_.size(); ++i) {
    const PendingOp& p = ops_[i];
    EwStep step;
    step.op = p.op;
    step.imm0 = p.imm0;
    step.imm1 = p.imm1;
    // Immediate slots reserved by the op itself.
    bool imm_free[2] = {true, true};
    if (p.op == EwOp::kClamp) imm_free[0] = imm_free[1] = false;
    if (p.op == EwOp::kMulShift) imm_free[0] = false;
    uint32_t srcs[2] = {0, 0};
    for (size_t k = 0; k < p.operands.size() && k < 2; ++k) {
      const uint64_t v = p.operands[k];
      if (auto it = reg_of.find(v); it != reg_of.end()) {
        srcs[k] = kSrcRegister0 + it->second;
        continue;
      }
      auto in = std::find_if(inputs_.begin(), inputs_.end(), [&](const auto& e) { return e.first == v; });
      if (in != inputs_.end()) {
        srcs[k] = kSrcInput0 + in->second;
        continue;
      }
      auto im = std::find_if(immediates_.begin(), immediates_.end(), [&](const auto& e) { return e.first == v; });
      if (im == immediates_.end()) return std::nullopt;  // operand defined nowhere
      int slot = imm_free[1] ? 1 : (imm_free[0] ? 0 : -1);
      if (slot < 0) return std::nullopt;
      imm_free[slot] = false;
      (slot == 0 ? step.imm0 : step.imm1) = im->second;
      srcs[k] = slot == 0 ? kSrcImm0 : kSrcImm1;
    }
    step.a = srcs[0];
    step.b = srcs[1];
    // Free the registers whose value dies here, then pick the destination.
    for (uint64_t v : p.operands) {
      auto it = reg_of.find(v);
      if (it != reg_of.end() && last_use[v] == i) {
        busy[it->second] = false;
        reg_of.erase(it);
      }
    }
    auto free_reg = std::find(busy.begin(), busy.end(), false);
    if (free_reg == busy.end()) return std::nullopt;
    step.dst = static_cast<uint32_t>(free_reg - busy.begin());
    if (last_use.count(p.result) != 0) {
      busy[step.dst] = true;
      reg_of[p.result] = step.dst;
    }
    program.steps.push_back(step);
  }
  auto it = reg_of.find(result);
  if (it == reg_of.end()) return std::nullopt;
  program.result_register = it->second;
  return program;
}

}  // namespace univk::backends::vgf
