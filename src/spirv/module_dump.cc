#include "module_dump.h"

#include <unistd.h>

#include <atomic>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace univk::spirv::detail {
namespace {

uint64_t fnv1a(std::span<const uint32_t> words) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](uint64_t byte) {
    h ^= byte;
    h *= 0x100000001b3ull;
  };
  for (uint32_t w : words) {
    for (int shift = 0; shift < 32; shift += 8) mix((w >> shift) & 0xffu);
  }
  for (int shift = 0; shift < 64; shift += 8) mix((uint64_t{words.size()} >> shift) & 0xffu);
  return h;
}

}  // namespace

// SPIR-V files are little endian; the words are written as they are in memory.
static_assert(std::endian::native == std::endian::little);

Status dump_module_if_requested(std::span<const uint32_t> words) {
  const char* dir_env = std::getenv(kSpirvDumpDirEnv);
  if (dir_env == nullptr || *dir_env == '\0') return ok_status();
  namespace fs = std::filesystem;
  const fs::path dir(dir_env);
  char name[32];
  std::snprintf(name, sizeof(name), "%016llx.spv", static_cast<unsigned long long>(fnv1a(words)));
  const fs::path target = dir / name;
  std::error_code ec;
  if (fs::exists(target, ec)) return ok_status();
  fs::create_directories(dir, ec);
  if (ec)
    return internal_error(std::string(kSpirvDumpDirEnv) + ": cannot create " + dir.string() + ": " + ec.message());

  // A name no other thread or process uses, so concurrent writers never see half a file.
  static std::atomic<uint64_t> counter{0};
  const fs::path temp = dir / (std::string(name) + "." + std::to_string(::getpid()) + "." +
                               std::to_string(counter.fetch_add(1)) + ".tmp");
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(words.data()), static_cast<std::streamsize>(words.size_bytes()));
    if (!out.flush()) {
      fs::remove(temp, ec);
      return internal_error(std::string(kSpirvDumpDirEnv) + ": cannot write " + temp.string());
    }
  }
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    return internal_error(std::string(kSpirvDumpDirEnv) + ": cannot rename " + temp.string() + " to " +
                          target.string() + ": " + ec.message());
  }
  return ok_status();
}

}  // namespace univk::spirv::detail
