#include "univk/runtime/program.h"
#include "univk/runtime/program_writer.h"

#include <cstring>
#include <new>

namespace univk::runtime {

std::string_view execution_mode_name(ExecutionMode mode) {
  switch (mode) {
    case ExecutionMode::kAuto:
      return "auto";
    case ExecutionMode::kPerDelegate:
      return "per_delegate";
    case ExecutionMode::kFused:
      return "fused";
  }
  return "unknown";
}

Result<ExecutionMode> execution_mode_from_name(std::string_view name) {
  for (ExecutionMode mode : {ExecutionMode::kAuto, ExecutionMode::kPerDelegate, ExecutionMode::kFused}) {
    if (execution_mode_name(mode) == name) return mode;
  }
  return invalid_argument("unknown execution mode '" + std::string(name) + "' (auto, per_delegate, fused)");
}

BackendOptions LoadOptions::options_for(const std::string& backend_id) const {
  BackendOptions options = all_backends;
  auto it = backend_options.find(backend_id);
  if (it != backend_options.end()) {
    for (const auto& [key, value] : it->second) options[key] = value;
  }
  return options;
}

void Program::AlignedFree::operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t(kSegmentAlignment)); }

Program::~Program() = default;

Result<std::unique_ptr<Method>> Program::load_method(std::string_view name, const LoadOptions& options) const {
  return catch_out_of_memory([&] { return load_method_or_throw(name, options); });
}

Result<std::shared_ptr<Program>> Program::load(const std::string& path) {
  UNIVK_ASSIGN_OR_RETURN(auto mapped, MappedFile::open(path));
  std::shared_ptr<Program> program(new Program());
  program->mapped_ = std::move(mapped);
  program->bytes_ = program->mapped_.bytes();
  auto desc = catch_out_of_memory([&] { return parse_program(program->bytes_); });
  if (!desc.ok()) return desc.status().with_context(path);
  program->desc_ = std::move(desc).value();
  return program;
}

Result<std::shared_ptr<Program>> Program::load_bytes(std::vector<uint8_t> bytes) {
  std::shared_ptr<Program> program(new Program());
  if (reinterpret_cast<uintptr_t>(bytes.data()) % kSegmentAlignment == 0) {
    program->vector_bytes_ = std::move(bytes);
    program->bytes_ = program->vector_bytes_;
  } else {
    uint8_t* copy =
        static_cast<uint8_t*>(::operator new[](bytes.size(), std::align_val_t(kSegmentAlignment), std::nothrow));
    if (copy == nullptr) {
      return out_of_memory("cannot allocate " + std::to_string(bytes.size()) + " bytes for an aligned program copy");
    }
    program->aligned_copy_.reset(copy);
    std::memcpy(program->aligned_copy_.get(), bytes.data(), bytes.size());
    program->bytes_ = {program->aligned_copy_.get(), bytes.size()};
  }
  UNIVK_ASSIGN_OR_RETURN(program->desc_, catch_out_of_memory([&] { return parse_program(program->bytes_); }));
  return program;
}

std::vector<std::string> Program::method_names() const {
  std::vector<std::string> names;
  for (const auto& method : desc_.methods) names.push_back(method.name);
  return names;
}

}  // namespace univk::runtime
