// The _univk extension: the C++ graph IR and compiler (this file) and the runtime
// (runtime_bindings.cc). The `univk` package wraps it; users import `univk`, not `_univk`.
#include <limits>
#include <optional>

#include <pybind11/stl.h>

#include "convert.h"
#include "univk/config.h"
#include "univk/compiler/compiler.h"
#include "univk/compiler/tosa_reference.h"
#include "univk/compiler/vgf_lowering.h"
#include "univk/compiler/vulkan_lowering.h"

namespace univk::python {

void bind_runtime(py::module_& m);

namespace {

using compiler::Graph;

std::vector<int64_t> dims_of(const py::sequence& shape, const std::string& owner) {
  std::vector<int64_t> dims;
  for (const auto& d : shape) {
    PyObject* index = PyNumber_Index(d.ptr());  // ints and integer-like objects (numpy ints)
    if (index == nullptr) {
      PyErr_Clear();
      throw py::type_error("univk: " + owner + ": shape holds " + py::repr(d).cast<std::string>() + ", not an int");
    }
    const py::int_ number = py::reinterpret_steal<py::int_>(index);
    if (number < py::int_(0) || number > py::int_(std::numeric_limits<int64_t>::max())) {
      throw py::value_error("univk: " + owner + ": shape dimension " + py::repr(d).cast<std::string>() +
                            " is outside [0, 2^63 - 1]");
    }
    dims.push_back(number.cast<int64_t>());
  }
  return dims;
}

compiler::NodeId node_index(const Graph& g, const std::string& name) {
  for (compiler::NodeId n = 0; n < g.nodes().size(); ++n) {
    if (g.node(n).name == name) return n;
  }
  throw py::key_error("univk: no node named '" + name + "'");
}

void bind_graph(py::module_& m) {
  py::class_<Graph>(m, "Graph", "The compiler's graph IR (PyTorch-semantics operators in topological order).")
      .def(py::init<>())
      .def(
          "add_input",
          [](Graph& g, std::string name, const std::string& dtype, const py::sequence& shape) {
            const std::string owner = "input '" + name + "'";
            return value_or_throw(g.add_input(std::move(name), dtype_from_string(dtype), Shape(dims_of(shape, owner))));
          },
          py::arg("name"), py::arg("dtype"), py::arg("shape"))
      .def(
          "add_constant",
          [](Graph& g, std::string name, const py::array& data) {
            HostTensor tensor = tensor_from_array(data, "constant '" + name + "'");
            return value_or_throw(g.add_constant(std::move(name), std::move(tensor)));
          },
          py::arg("name"), py::arg("data"))
      .def(
          "add_node",
          [](Graph& g, std::string name, std::string op, const py::dict& attrs, std::vector<compiler::ValueId> inputs,
             const std::string& dtype, const py::sequence& shape) {
            const std::string owner = "node '" + name + "' (" + op + ")";
            Attributes attributes = attributes_from_dict(attrs, owner);
            std::vector<int64_t> dims = dims_of(shape, owner);
            return value_or_throw(g.add_node(std::move(name), std::move(op), std::move(attributes), std::move(inputs),
                                             dtype_from_string(dtype), Shape(std::move(dims))));
          },
          py::arg("name"), py::arg("op"), py::arg("attrs"), py::arg("inputs"), py::arg("dtype"), py::arg("shape"))
      .def("add_output", [](Graph& g, compiler::ValueId v) { throw_if_error(g.add_output(v)); })
      .def("describe", &Graph::describe)
      .def("node_count", [](const Graph& g) { return g.nodes().size(); })
      .def("input_names",
           [](const Graph& g) {
             std::vector<std::string> names;
             for (compiler::ValueId v : g.inputs()) names.push_back(g.value(v).name);
             return names;
           })
      .def("output_names",
           [](const Graph& g) {
             std::vector<std::string> names;
             for (compiler::ValueId v : g.outputs()) names.push_back(g.value(v).name);
             return names;
           })
      .def("node_names",
           [](const Graph& g) {
             std::vector<std::string> names;
             for (const auto& n : g.nodes()) names.push_back(n.name);
             return names;
           })
      .def(
          "backend_support",
          [](const Graph& g, const std::string& node_name, const std::string& backend) {
            const compiler::Node& node = g.node(node_index(g, node_name));
            for (const auto& claim : compiler::builtin_claims()) {
              if (claim.id == backend) {
                Status s = claim.supports(g, node);
                return s.ok() ? std::string() : s.to_string();
              }
            }
            throw py::value_error("univk: unknown backend '" + backend + "'");
          },
          "'' when the backend runs the node, else the reason it does not.");
}

void bind_compile(py::module_& m) {
  m.def(
      "compile",
      [](const Graph& g, std::vector<std::string> order, std::map<std::string, std::string> pins,
         bool require_no_cpu_fallback, std::string method_name, std::map<std::string, std::string> locations,
         const std::map<std::string, std::pair<double, int64_t>>& io_quantization) {
        compiler::CompileOptions options;
        options.partition.order = std::move(order);
        options.partition.pins = std::move(pins);
        options.partition.require_no_cpu_fallback = require_no_cpu_fallback;
        options.method_name = std::move(method_name);
        options.node_locations = std::move(locations);
        for (const auto& [name, q] : io_quantization) options.io_quantization[name] = {q.first, q.second};
        std::optional<Result<compiler::CompiledProgram>> outcome;
        {
          py::gil_scoped_release release;
          outcome.emplace(compiler::compile_program(g, options));
        }
        compiler::CompiledProgram compiled = value_or_throw(std::move(*outcome));
        py::list calls;
        for (const auto& c : compiled.calls) {
          py::dict d;
          d["backend"] = c.backend;
          d["nodes"] = c.nodes;
          d["payload_bytes"] = c.payload_bytes;
          calls.append(d);
        }
        py::dict result;
        result["bytes"] = py::bytes(reinterpret_cast<const char*>(compiled.bytes.data()), compiled.bytes.size());
        result["calls"] = calls;
        result["warnings"] = compiled.partition.warnings;
        return result;
      },
      py::arg("graph"), py::arg("order"), py::arg("pins"), py::arg("require_no_cpu_fallback") = false,
      py::arg("method_name") = "forward", py::arg("locations") = std::map<std::string, std::string>{},
      py::arg("io_quantization") = std::map<std::string, std::pair<double, int64_t>>{},
      "Partitions, lowers and writes a program; returns {'bytes', 'calls', 'warnings'}.");
  m.def(
      "tosa_reference",
      [](const Graph& g, const std::vector<py::array>& arrays) {
        std::vector<HostTensor> inputs;
        for (size_t i = 0; i < arrays.size(); ++i)
          inputs.push_back(tensor_from_array(arrays[i], "input " + std::to_string(i)));
        std::optional<Result<std::vector<HostTensor>>> outcome;
        {
          py::gil_scoped_release release;
          outcome.emplace(compiler::run_on_tosa_reference(g, inputs));
        }
        py::list outputs;
        for (const HostTensor& t : value_or_throw(std::move(*outcome))) outputs.append(array_from_tensor(t));
        return outputs;
      },
      py::arg("graph"), py::arg("inputs"),
      "The graph's outputs (numpy arrays) computed by its TOSA lowering on univk's reference kernels.");
}

}  // namespace
}  // namespace univk::python

PYBIND11_MODULE(_univk, m) {
  m.doc() = "univk: C++ compiler and runtime bindings (use the `univk` package)";
  m.attr("__version__") = UNIVK_VERSION_STRING;
  univk::python::register_status_errors();
  univk::python::bind_graph(m);
  univk::python::bind_compile(m);
  univk::python::bind_runtime(m);
}
