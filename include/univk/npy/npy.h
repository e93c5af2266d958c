// NumPy .npy files (format versions 1.0, 2.0 and 3.0): reading and writing HostTensors, so an
// application can feed a method what numpy.save wrote and hand its outputs back to numpy.load.
// Library univk_npy (univk::npy; part of univk::univk).
//
//   UNIVK_ASSIGN_OR_RETURN(univk::HostTensor x, univk::npy::read_npy("input.npy"));
//   UNIVK_ASSIGN_OR_RETURN(auto outputs, method->execute(std::span<const univk::HostTensor>(&x, 1)));
//   UNIVK_RETURN_IF_ERROR(univk::npy::write_npy("output.npy", outputs[0]));
//
// Reading treats the bytes as untrusted: the magic, version, header length, the header dict
// ('descr', 'fortran_order', 'shape' and nothing else), the dtype, every dimension and the data
// size (exactly numel * element size, no trailing bytes) are checked; errors are InvalidArgument
// naming the problem ("npy: header: shape has a negative dimension"), or Unsupported for valid
// files of a dtype univk does not have.
// Supported dtypes: f4 f2 i1 u1 i2 i4 i8 b1 (the univk DTypes) in either byte order ('<', '|',
// '=' or '>'); big-endian data is byte-swapped and Fortran-order data transposed, so the tensor
// holds the array's values in C order, as the Python API reads a numpy array.
//
// Writing produces version 1.0 files with the header padded so the data starts 64-byte aligned.
//
// Ownership: parse_npy copies the data into a new HostTensor; nothing borrows the input.
// Threading: free functions without shared state; any thread may call them.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "univk/base/status.h"
#include "univk/tensor/tensor.h"

namespace univk::npy {

Result<HostTensor> parse_npy(std::span<const uint8_t> bytes);
// The same checks as parse_npy, reading the file piece by piece: the preamble, the header it
// announces, then exactly the data the header declares once the file size is known to match.
// Never reads more than that, and refuses FIFOs and devices (InputFile) without reading them.
// Errors name the path; OutOfMemory when the declared data cannot be allocated.
Result<HostTensor> read_npy(const std::string& path);

std::vector<uint8_t> encode_npy(const HostTensor& tensor);
Status write_npy(const std::string& path, const HostTensor& tensor);

}  // namespace univk::npy
