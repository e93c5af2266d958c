// Dispatch of run_op / run_tosa to the per-family operator tables.
#include "univk/reference/kernels.h"

#include <map>

#include "common.h"

namespace univk::reference {
namespace {

using detail::OpFn;
using detail::OpTable;

using OpMap = std::map<std::string, OpFn, std::less<>>;

OpMap build(std::initializer_list<OpTable> tables) {
  OpMap map;
  for (const OpTable& table : tables) {
    for (const auto& [name, fn] : table) map.emplace(std::string(name), fn);
  }
  return map;
}

// Built once on first use (thread-safe static initialisation), read-only afterwards.
const OpMap& torch_ops() {
  static const OpMap map =
      build({detail::elementwise_ops(), detail::pooling_ops(), detail::convolution_ops(), detail::matmul_ops(),
             detail::normalization_ops(), detail::shape_ops(), detail::upsample_ops(), detail::indexing_ops(),
             detail::volume_ops(), detail::integer_ops()});
  return map;
}

const OpMap& tosa_ops() {
  static const OpMap map = build({detail::tosa_elementwise_ops(), detail::tosa_tensor_ops(), detail::tosa_data_ops(),
                                  detail::tosa_resize_ops(), detail::tosa_quant_ops(), detail::tosa_logic_ops(),
                                  detail::tosa_index_ops(), detail::tosa_fft_ops(), detail::tosa_bitwise_ops()});
  return map;
}

Result<std::vector<HostTensor>> dispatch(const OpMap& map, const char* kind, std::string_view op,
                                         const Attributes& attrs, std::span<const HostTensor> inputs) {
  auto it = map.find(op);
  if (it == map.end()) return unsupported(std::string(kind) + " op '" + std::string(op) + "' is not implemented");
  auto result = it->second(op, attrs, inputs);
  if (!result.ok()) return result.status().with_context(std::string(kind) + " " + std::string(op));
  return result;
}

std::vector<std::string> names(const OpMap& map) {
  std::vector<std::string> out;
  for (const auto& entry : map) out.push_back(entry.first);
  return out;  // std::map keeps them sorted
}

}  // namespace

Result<std::vector<HostTensor>> run_op(std::string_view op, const Attributes& attrs,
                                       std::span<const HostTensor> inputs) {
  return catch_out_of_memory([&] { return dispatch(torch_ops(), "reference", op, attrs, inputs); });
}
bool is_supported_op(std::string_view op) { return torch_ops().find(op) != torch_ops().end(); }
std::vector<std::string> supported_ops() { return names(torch_ops()); }

Result<std::vector<HostTensor>> run_tosa(std::string_view op, const Attributes& attrs,
                                         std::span<const HostTensor> inputs) {
  return catch_out_of_memory([&] { return dispatch(tosa_ops(), "TOSA", op, attrs, inputs); });
}
bool is_supported_tosa_op(std::string_view op) { return tosa_ops().find(op) != tosa_ops().end(); }
std::vector<std::string> supported_tosa_ops() { return names(tosa_ops()); }

}  // namespace univk::reference
