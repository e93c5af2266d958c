#include <numeric>
#include <vector>

#include "fuzz_targets.h"
#include "univk/runtime/program.h"

namespace univk::fuzz {
namespace {

uint8_t checksum(std::span<const uint8_t> bytes) { return std::accumulate(bytes.begin(), bytes.end(), uint8_t{0}); }

}  // namespace

Status program_loader(std::span<const uint8_t> data) {
  auto program = runtime::Program::load_bytes(std::vector<uint8_t>(data.begin(), data.end()));
  if (!program.ok()) return program.status();
  const runtime::ProgramDesc& desc = (*program)->desc();
  volatile uint8_t sink = 0;
  for (const auto& delegate : desc.delegates) sink = sink + checksum(delegate.payload);
  for (const auto& method : desc.methods) {
    auto rank = [&](uint32_t id) { return static_cast<uint8_t>(method.values.at(id).info.shape.rank()); };
    for (const auto& value : method.values) {
      sink = sink + checksum(value.constant_bytes) + static_cast<uint8_t>(value.info.byte_size());
    }
    for (const auto& instruction : method.instructions) {
      for (uint32_t id : runtime::instruction_inputs(instruction)) sink = sink + rank(id);
      for (uint32_t id : runtime::instruction_outputs(instruction)) sink = sink + rank(id);
    }
    for (uint32_t id : method.inputs) sink = sink + rank(id);
    for (uint32_t id : method.outputs) sink = sink + rank(id);
  }
  return ok_status();
}

}  // namespace univk::fuzz
