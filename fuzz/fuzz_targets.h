// The fuzz targets as plain functions, shared by the libFuzzer entry points (fuzz/*_fuzzer.cc)
// and the regression test that replays committed inputs (tests/fuzz). Each parses untrusted
// bytes with one univk parser, walks whatever it returned (so a span or index the parser handed
// out that points outside the input is read and caught by ASan), and returns the parser's
// Status. A broken invariant (an index the parser promised was checked, a round trip that does
// not hold) traps or throws, which the fuzzer reports as a crash.
#pragma once

#include <cstdint>
#include <span>

#include "univk/base/status.h"

namespace univk::fuzz {

Status program_loader(std::span<const uint8_t> data);  // Program::load_bytes
Status vgf_decoder(std::span<const uint8_t> data);     // decode_vgf, then read_tosa_graph of GRAPH modules
Status spirv_graph(std::span<const uint8_t> data);     // read_tosa_graph (bytes as little-endian words)
Status compute_graph(std::span<const uint8_t> data);   // parse_compute_graph + serialize round trip
Status npy_reader(std::span<const uint8_t> data);      // npy::parse_npy + encode round trip

}  // namespace univk::fuzz
