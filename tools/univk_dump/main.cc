// univk-dump FILE: prints a VGF file (or a .uvk program) as JSON on stdout.
// Exit codes: 0 ok, 1 the file could not be read or is malformed, or stdout could not be
// written, 2 usage error. FILE must be a regular file (a FIFO or device is refused at once).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "json_writer.h"
#include "stdout_check.h"
#include "univk/base/file_map.h"
#include "univk/vgf/vgf_file.h"
#include "vgf_json.h"
#include "program_json.h"

namespace {

constexpr int kOk = 0, kBadFile = 1, kUsage = 2;

void usage(FILE* out) {
  std::fprintf(out,
               "usage: univk-dump [--help] FILE\n"
               "\n"
               "Prints FILE as JSON on stdout:\n"
               "  a VGF file (.vgf, format 0.3.0 to 0.5.x): header and version, sections, modules\n"
               "  (with the TOSA operator list of each graph module), segments, resources and\n"
               "  constants (sizes only)\n"
               "  a univk program (.uvk): methods, values, instructions and delegates, with VGF\n"
               "  payloads dumped inline\n"
               "\n"
               "Exit status: 0 ok, 1 unreadable or malformed file or unwritable output, 2 usage error.\n");
}

bool is_vgf(std::span<const uint8_t> bytes) {
  static constexpr uint8_t kMagic[4] = {'V', 'G', 'F', '1'};
  static constexpr uint8_t kLegacy[4] = {0xC3, 0xD2, 0xE1, 0xF0};
  return bytes.size() >= 4 && (std::memcmp(bytes.data(), kMagic, 4) == 0 || std::memcmp(bytes.data(), kLegacy, 4) == 0);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      usage(stdout);
      return univk::tools::stdout_written("univk-dump") ? kOk : kBadFile;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::fprintf(stderr, "univk-dump: unknown option '%s'\n", arg.c_str());
      usage(stderr);
      return kUsage;
    }
    files.push_back(arg);
  }
  if (files.size() != 1) {
    usage(stderr);
    return kUsage;
  }
  auto file = univk::MappedFile::open(files[0]);
  if (!file.ok()) {
    std::fprintf(stderr, "univk-dump: %s: %s\n", files[0].c_str(), file.status().to_string().c_str());
    return kBadFile;
  }
  univk::dump::JsonWriter json;
  std::vector<std::string> errors;
  if (is_vgf(file->bytes())) {
    auto vgf = univk::vgf::decode_vgf(file->bytes());
    if (!vgf.ok()) {
      std::fprintf(stderr, "univk-dump: %s: %s\n", files[0].c_str(), vgf.status().to_string().c_str());
      return kBadFile;
    }
    univk::dump::write_vgf_json(json, *vgf, errors);
  } else {
    auto status = univk::dump::write_program_json(json, file->bytes(), errors);
    if (!status.ok()) {
      std::fprintf(stderr, "univk-dump: %s: %s\n", files[0].c_str(), status.to_string().c_str());
      return kBadFile;
    }
  }
  std::fwrite(json.str().data(), 1, json.str().size(), stdout);
  std::fputc('\n', stdout);
  for (const std::string& e : errors) std::fprintf(stderr, "univk-dump: %s: %s\n", files[0].c_str(), e.c_str());
  if (!univk::tools::stdout_written("univk-dump")) return kBadFile;
  return errors.empty() ? kOk : kBadFile;
}
