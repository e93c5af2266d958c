#include "partition.h"

#include <map>
#include <sstream>

namespace univk::dump {
namespace {

inline constexpr const char* kCpu = "cpu";  // the compiler's name for the CPU fallback

struct Step {
  std::string backend;
  std::vector<PayloadOp> ops;
  bool decoded = true;  // false: the payload's operators are unknown
};

Step step_of(const runtime::ProgramDesc& program, const std::vector<DecodedDelegate>& delegates,
             const runtime::InstructionDesc& ins) {
  if (const auto* call = std::get_if<runtime::DelegateCallDesc>(&ins)) {
    const DecodedDelegate& d = delegates[call->delegate];
    return {program.delegates[call->delegate].backend_id, d.ops, !d.ops.empty()};
  }
  return {kCpu, {{std::get<runtime::KernelCallDesc>(ins).op, {}}}, true};
}

std::string tensor_text(const runtime::ValueDesc& v) {
  return std::string(dtype_name(v.info.dtype)) + v.info.shape.to_string();
}

// A DOT double-quoted string: quotes and backslashes escaped, '\n' a line break in the label,
// other control characters dropped (names come from the file).
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

std::string colour_of(const std::string& backend) {
  if (backend == "VgfBackend") return "#dbe9f6";
  if (backend == "VulkanBackend") return "#fde2c8";
  if (backend == kCpu) return "#e5e5e5";
  return "#e8f4d9";
}

void method_dot(std::ostringstream& out, size_t method_index, const runtime::MethodDesc& m,
                const runtime::ProgramDesc& program, const std::vector<DecodedDelegate>& delegates) {
  const std::string prefix = "m" + std::to_string(method_index) + "_";
  std::map<uint32_t, std::string> value_label;  // method values drawn as boundary nodes
  for (size_t i = 0; i < m.inputs.size(); ++i) value_label[m.inputs[i]] = "input " + std::to_string(i);
  for (size_t i = 0; i < m.outputs.size(); ++i) {
    std::string& label = value_label[m.outputs[i]];
    label += (label.empty() ? "" : ", ") + ("output " + std::to_string(i));
  }
  for (const runtime::InstructionDesc& ins : m.instructions) {
    for (uint32_t v : runtime::instruction_inputs(ins)) {
      if (!m.values[v].is_constant()) value_label.try_emplace(v, "");
    }
    for (uint32_t v : runtime::instruction_outputs(ins)) value_label.try_emplace(v, "");
  }
  for (const auto& [v, label] : value_label) {
    const std::string text =
        (label.empty() ? "" : label + "\n") + "v" + std::to_string(v) + " " + tensor_text(m.values[v]);
    out << "  " << prefix << "v" << v << " [shape=ellipse, label=" << quoted(text) << "];\n";
  }
  for (size_t i = 0; i < m.instructions.size(); ++i) {
    const Step step = step_of(program, delegates, m.instructions[i]);
    const std::string cluster = prefix + "i" + std::to_string(i);
    out << "  subgraph cluster_" << cluster << " {\n";
    out << "    label=" << quoted(std::to_string(i) + ": " + step.backend) << ";\n";
    out << "    style=filled; fillcolor=" << quoted(colour_of(step.backend)) << ";\n";
    std::vector<PayloadOp> ops = step.ops;
    if (!step.decoded) ops = {{"(payload not decoded)", {}}};
    for (size_t k = 0; k < ops.size(); ++k) {
      out << "    " << cluster << "_op" << k << " [label=" << quoted(ops[k].name) << "];\n";
    }
    for (size_t k = 0; k < ops.size(); ++k) {
      for (size_t from : ops[k].reads)
        out << "    " << cluster << "_op" << from << " -> " << cluster << "_op" << k << ";\n";
    }
    out << "  }\n";
    // Boundary edges end at the cluster's first operator and start at its last one (compound
    // edges clipped at the cluster's border).
    const std::string first = cluster + "_op0", last = cluster + "_op" + std::to_string(ops.size() - 1);
    for (uint32_t v : runtime::instruction_inputs(m.instructions[i])) {
      if (value_label.count(v) == 0) continue;
      out << "  " << prefix << "v" << v << " -> " << first << " [lhead=cluster_" << cluster << "];\n";
    }
    for (uint32_t v : runtime::instruction_outputs(m.instructions[i])) {
      out << "  " << last << " -> " << prefix << "v" << v << " [ltail=cluster_" << cluster << "];\n";
    }
  }
}

}  // namespace

std::string partition_summary(const runtime::ProgramDesc& program, const std::vector<DecodedDelegate>& delegates) {
  std::ostringstream out;
  for (const runtime::MethodDesc& m : program.methods) {
    if (program.methods.size() > 1) out << "method " << m.name << ":\n";
    for (size_t i = 0; i < m.instructions.size(); ++i) {
      const Step step = step_of(program, delegates, m.instructions[i]);
      out << i << ": " << step.backend << ": ";
      if (!step.decoded) out << "(payload not decoded)";
      for (size_t k = 0; k < step.ops.size(); ++k) out << (k ? ", " : "") << step.ops[k].name;
      if (!m.sources[i].empty()) {
        out << " (from";
        for (size_t k = 0; k < m.sources[i].size(); ++k) out << (k ? ", " : " ") << m.sources[i][k].name;
        out << ")";
      }
      out << "\n";
    }
  }
  return out.str();
}

std::string partition_dot(const runtime::ProgramDesc& program, const std::vector<DecodedDelegate>& delegates) {
  std::ostringstream out;
  out << "digraph univk_partition {\n";
  out << "  compound=true;\n  rankdir=TB;\n  node [shape=box, style=filled, fillcolor=white];\n";
  for (size_t i = 0; i < program.methods.size(); ++i) {
    const runtime::MethodDesc& m = program.methods[i];
    out << "  subgraph cluster_m" << i << " {\n  label=" << quoted("method " + m.name) << ";\n";
    method_dot(out, i, m, program, delegates);
    out << "  }\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace univk::dump
