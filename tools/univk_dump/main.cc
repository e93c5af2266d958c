// univk-dump FILE: prints a VGF file or a univk program (.uvk) as JSON, and a program's
// partition as a table (--summary) or as Graphviz (--dot FILE).
// Exit status: 0 ok, 1 the file could not be read or is malformed, or an output could not be
// written, 2 bad command line (cli.h). FILE must be a regular file (a FIFO or device is refused
// at once).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli.h"
#include "delegates.h"
#include "json_output.h"
#include "partition.h"
#include "program_json.h"
#include "stdout_check.h"
#include "univk/base/file_map.h"
#include "univk/vgf/vgf_file.h"
#include "vgf_json.h"

namespace {

using univk::tools::Json;

constexpr int kOk = 0, kBadFile = 1;
constexpr const char* kTool = "univk-dump";

struct Options {
  std::string file;
  std::string json_path;  // empty: JSON on stdout unless --summary or --dot is given
  bool summary = false;
  std::string dot_path;
};

bool is_vgf(std::span<const uint8_t> bytes) {
  static constexpr uint8_t kMagic[4] = {'V', 'G', 'F', '1'};
  static constexpr uint8_t kLegacy[4] = {0xC3, 0xD2, 0xE1, 0xF0};
  return bytes.size() >= 4 && (std::memcmp(bytes.data(), kMagic, 4) == 0 || std::memcmp(bytes.data(), kLegacy, 4) == 0);
}

int dump_vgf(const Options& o, std::span<const uint8_t> bytes, univk::tools::ToolApp& app) {
  if (o.summary || !o.dot_path.empty())
    return app.usage_error("--summary and --dot need a program (.uvk), " + o.file + " is a VGF file");
  auto vgf = univk::vgf::decode_vgf(bytes);
  if (!vgf.ok()) {
    std::fprintf(stderr, "%s: %s: %s\n", kTool, o.file.c_str(), vgf.status().to_string().c_str());
    return kBadFile;
  }
  std::vector<std::string> errors;
  const Json json = univk::dump::vgf_json(*vgf, errors);
  bool ok = univk::tools::write_json(json, o.json_path.empty() ? "-" : o.json_path, kTool);
  for (const std::string& e : errors) std::fprintf(stderr, "%s: %s: %s\n", kTool, o.file.c_str(), e.c_str());
  ok = univk::tools::stdout_written(kTool) && ok;
  return ok && errors.empty() ? kOk : kBadFile;
}

int dump_program(const Options& o, std::span<const uint8_t> file) {
  // The loader needs a 16-byte aligned start; a mapping is page aligned, a copy guarantees it.
  std::vector<uint8_t> aligned_copy;
  std::span<const uint8_t> bytes = file;
  if (reinterpret_cast<uintptr_t>(file.data()) % 16 != 0) {
    aligned_copy.assign(file.begin(), file.end());
    bytes = aligned_copy;
  }
  auto program = univk::runtime::parse_program(bytes);
  if (!program.ok()) {
    std::fprintf(stderr, "%s: %s: %s\n", kTool, o.file.c_str(), program.status().to_string().c_str());
    return kBadFile;
  }
  const std::vector<univk::dump::DecodedDelegate> delegates = univk::dump::decode_delegates(*program);
  // The JSON is made even when not written: it finds every payload that does not decode.
  std::vector<std::string> errors;
  const Json json = univk::dump::program_json(*program, delegates, errors);
  bool ok = true;
  if (!o.json_path.empty() || (!o.summary && o.dot_path.empty())) {
    ok = univk::tools::write_json(json, o.json_path.empty() ? "-" : o.json_path, kTool);
  }
  if (o.summary) ok = univk::tools::write_output(univk::dump::partition_summary(*program, delegates), "-", kTool) && ok;
  if (!o.dot_path.empty()) {
    ok = univk::tools::write_output(univk::dump::partition_dot(*program, delegates), o.dot_path, kTool) && ok;
  }
  for (const std::string& e : errors) std::fprintf(stderr, "%s: %s: %s\n", kTool, o.file.c_str(), e.c_str());
  ok = univk::tools::stdout_written(kTool) && ok;
  return ok && errors.empty() ? kOk : kBadFile;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  univk::tools::ToolApp app(kTool,
                            "Prints a VGF file (.vgf, format 0.3.0 to 0.5.x) or a univk program (.uvk) as JSON.\n"
                            "VGF: header, sections, modules (the TOSA operators of each graph module, with their\n"
                            "attributes), segments, resources and constants (sizes only).\n"
                            "Program: methods, values, instructions (CPU kernel calls with their attributes) and\n"
                            "delegates, VgfBackend payloads as VGF files and VulkanBackend payloads as compute\n"
                            "graphs (operators, value shapes, attributes).\n"
                            "Exit status: 0 ok, 1 unreadable or malformed file or unwritable output, 2 bad command "
                            "line.");
  app.add_option("FILE", o.file, "The .vgf or .uvk file")->required();
  univk::tools::add_json_option(app, o.json_path,
                                "the dump (the default output, on standard output, when neither --summary nor --dot "
                                "is given)");
  app.add_flag("--summary", o.summary,
               "Print the program's partition on standard output, one line per instruction: "
               "'index: backend: operators' (as Python's Program.summary())");
  app.add_option("--dot", o.dot_path,
                 "Write the program's partition as a Graphviz digraph into FILE ('-': standard output): one cluster "
                 "per delegate call or CPU operator, the values passed between them as edges")
      ->type_name("FILE");
  if (auto exit = app.parse_command_line(argc, argv, kBadFile)) return *exit;
  const int to_stdout = (o.summary ? 1 : 0) + (o.dot_path == "-" ? 1 : 0) + (o.json_path == "-" ? 1 : 0);
  if (to_stdout > 1) return app.usage_error("only one of --summary, --dot - and --json - can use standard output");

  auto file = univk::MappedFile::open(o.file);
  if (!file.ok()) {
    std::fprintf(stderr, "%s: %s: %s\n", kTool, o.file.c_str(), file.status().to_string().c_str());
    return kBadFile;
  }
  if (is_vgf(file->bytes())) return dump_vgf(o, file->bytes(), app);
  return dump_program(o, file->bytes());
}
