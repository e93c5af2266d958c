// Conversions between Python objects and univk types for the _univk extension.
// Every function that fails raises a Python exception (pybind11::error_already_set or a
// std::exception translated by pybind11); univk Status errors become univk.Error subclasses
// (python/univk/errors.py).
#pragma once

#include <stdexcept>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "univk/base/status.h"
#include "univk/tensor/attributes.h"
#include "univk/tensor/tensor.h"

namespace univk::python {

namespace py = pybind11;

// A failed Status on its way to Python: the translator that register_status_errors installs
// raises it as the univk.errors class named after its code, with str() "<Code>: <message>".
class StatusError : public std::runtime_error {
 public:
  explicit StatusError(const Status& status) : std::runtime_error(status.to_string()), code_(status.code()) {}
  StatusCode code() const { return code_; }

 private:
  StatusCode code_;
};

// Installs the StatusError translator (once, from the module's init).
void register_status_errors();

// Throws StatusError when `status` is not ok.
void throw_if_error(const Status& status);
template <typename T>
T value_or_throw(Result<T> result) {
  throw_if_error(result.status());
  return std::move(result).value();
}

DType dtype_from_string(const std::string& name);  // "float32", ...; ValueError otherwise

// A numpy array of a univk dtype, in any layout (strided, Fortran order, read-only) and either
// byte order, read by value into a new contiguous native-byte-order tensor. `what` names the
// array in errors ("input 0"): TypeError for a dtype univk does not have.
py::dtype numpy_dtype(DType dtype);  // the numpy dtype of a univk dtype

HostTensor tensor_from_array(const py::array& array, const std::string& what);
py::array array_from_tensor(const HostTensor& tensor);

// {"kernel_size": [2, 2], "alpha": 1.0, "padding": "same", "keepdim": True} <-> Attributes.
// bool -> int 0/1, int -> int64, float -> double, str, list of ints, list of floats (a list
// mixing ints and floats is a list of floats). `owner` names the node in errors: ValueError for
// an int outside int64, TypeError for any other type.
Attributes attributes_from_dict(const py::dict& dict, const std::string& owner);
py::dict dict_from_attributes(const Attributes& attrs);

}  // namespace univk::python
