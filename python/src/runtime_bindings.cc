// Runtime bindings: Program.load / load_bytes, Program.load_method, Method.execute, zero-copy IO
// (Method.input_array / output_array / run / io_info, host_inputs / host_outputs) and the
// per-delegate-call report (backend, device key, VkDevice/VkQueue handles, stats), and
// Method.profile (a Profile: events as dicts, the table, the Chrome trace).
#include <cstdint>
#include <optional>

#include <pybind11/stl.h>

#include "convert.h"
#include "univk/runtime/program.h"
#include "univk/vulkan/validation.h"

namespace univk::python {
namespace {

using runtime::Method;
using runtime::Program;

// Vulkan handles as integers (dispatchable handles are pointers) for printing and comparing.
uint64_t handle_value(const void* handle) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle)); }

py::dict stats_dict(const runtime::ExecuteStats& s) {
  py::dict d;
  d["dispatches"] = s.dispatches;
  d["barriers"] = s.barriers;
  d["submissions"] = s.submissions;
  d["bytes_uploaded"] = s.bytes_uploaded;
  d["bytes_downloaded"] = s.bytes_downloaded;
  return d;
}

py::list infos_list(const std::vector<runtime::TensorInfo>& infos) {
  py::list out;
  for (const auto& info : infos) out.append(py::make_tuple(std::string(dtype_name(info.dtype)), info.shape.dims()));
  return out;
}

// Per value, (scale, zero_point) or None.
py::list quantization_list(const std::vector<std::optional<runtime::QuantizationDesc>>& quantizations) {
  py::list out;
  for (const auto& q : quantizations) {
    out.append(q ? py::object(py::make_tuple(q->scale, q->zero_point)) : py::object(py::none()));
  }
  return out;
}

// A numpy array over `bytes` (the Method's mapped memory or caller memory it imported) that
// holds `owner`, the Python Method, so the memory outlives the array. Output arrays are
// read-only.
py::array view_array(const runtime::TensorInfo& info, const void* bytes, bool writable, py::handle owner) {
  std::vector<py::ssize_t> shape(info.shape.dims().begin(), info.shape.dims().end());
  py::array array(numpy_dtype(info.dtype), shape, bytes, owner);
  if (!writable) array.attr("flags").attr("writeable") = false;
  return array;
}

py::dict io_info_dict(const runtime::IoInfo& io) {
  py::list inputs, outputs;
  for (runtime::IoPath p : io.inputs) inputs.append(std::string(runtime::io_path_name(p)));
  for (runtime::IoPath p : io.outputs) outputs.append(std::string(runtime::io_path_name(p)));
  py::dict d;
  d["inputs"] = inputs;
  d["outputs"] = outputs;
  d["zero_copy"] = io.zero_copy();
  return d;
}

// Caller arrays imported as program IO: C-contiguous, writeable numpy arrays; their whole
// buffer (size and alignment checked by the runtime) is imported.
std::vector<runtime::HostMemoryBinding> host_bindings(const std::map<size_t, py::array>& arrays, bool output) {
  std::vector<runtime::HostMemoryBinding> bindings;
  for (const auto& [index, array] : arrays) {
    const std::string what = std::string(output ? "host output " : "host input ") + std::to_string(index);
    if (!(array.flags() & py::array::c_style)) throw py::value_error("univk: " + what + " is not C-contiguous");
    if (!array.writeable()) throw py::value_error("univk: " + what + " is read-only");
    bindings.push_back({output, index, const_cast<void*>(array.data()), static_cast<size_t>(array.nbytes())});
  }
  return bindings;
}

py::dict event_dict(const runtime::ProfileEvent& e) {
  py::dict d;
  d["track"] = std::string(runtime::profile_track_name(e.track));
  d["kind"] = std::string(runtime::profile_kind_name(e.kind));
  d["name"] = e.name;
  d["backend"] = e.backend;
  d["instruction"] = e.instruction;
  d["parent"] = e.parent;
  d["start_us"] = static_cast<double>(e.start_ns) / 1e3;
  d["duration_us"] = static_cast<double>(e.duration_ns) / 1e3;
  d["source"] = e.source;
  return d;
}

}  // namespace

void bind_runtime(py::module_& m) {
  py::class_<runtime::Profile>(m, "Profile",
                               "Where the time of a method's last call went (docs/RUNTIME.md, Profiling).")
      .def_readonly("method", &runtime::Profile::method)
      .def_readonly("mode", &runtime::Profile::mode)
      .def_property_readonly(
          "alignment", [](const runtime::Profile& p) { return std::string(runtime::gpu_alignment_name(p.alignment)); })
      .def_property_readonly("events",
                             [](const runtime::Profile& p) {
                               py::list out;
                               for (const auto& e : p.events) out.append(event_dict(e));
                               return out;
                             })
      .def("table", &runtime::Profile::table)
      .def("__str__", &runtime::Profile::table)
      .def("chrome_trace", &runtime::Profile::chrome_trace)
      .def(
          "write_chrome_trace",
          [](const runtime::Profile& p, const std::string& path) { throw_if_error(p.write_chrome_trace(path)); },
          py::arg("path"));
  m.def(
      "validation_messages", [] { return vulkan::validation_messages_since(0); },
      "Vulkan validation layer messages recorded in this process (UNIVK_VALIDATION=1 turns the layer on).");
  py::class_<Method, std::shared_ptr<Method>>(m, "Method", py::dynamic_attr())
      .def_property_readonly("name", &Method::name)
      .def_property_readonly("mode",
                             [](const Method& me) { return std::string(runtime::execution_mode_name(me.mode())); })
      .def_property_readonly("mode_reason", &Method::mode_reason)
      .def_property_readonly("input_infos", [](const Method& me) { return infos_list(me.input_infos()); })
      .def_property_readonly("output_infos", [](const Method& me) { return infos_list(me.output_infos()); })
      .def_property_readonly("input_quantization",
                             [](const Method& me) { return quantization_list(me.input_quantization()); })
      .def_property_readonly("output_quantization",
                             [](const Method& me) { return quantization_list(me.output_quantization()); })
      .def(
          "execute",
          [](Method& me, const std::vector<py::array>& arrays) {
            std::vector<HostTensor> inputs;
            for (size_t i = 0; i < arrays.size(); ++i) {
              inputs.push_back(tensor_from_array(arrays[i], "input " + std::to_string(i)));
            }
            std::optional<Result<std::vector<HostTensor>>> outcome;
            {
              py::gil_scoped_release release;
              outcome.emplace(me.execute(inputs));
            }
            std::vector<HostTensor> outputs = value_or_throw(std::move(*outcome));
            py::list result;
            for (const HostTensor& t : outputs) result.append(array_from_tensor(t));
            return result;
          },
          py::arg("inputs"))
      .def(
          "input_array",
          [](py::object self, size_t index) {
            runtime::InputView view = value_or_throw(self.cast<Method&>().input_view(index));
            return view_array(view.info, view.bytes.data(), true, self);
          },
          py::arg("index"))
      .def(
          "output_array",
          [](py::object self, size_t index) {
            runtime::OutputView view = value_or_throw(self.cast<Method&>().output_view(index));
            return view_array(view.info, view.bytes.data(), false, self);
          },
          py::arg("index"))
      .def("run",
           [](Method& me) {
             Status status;
             {
               py::gil_scoped_release release;
               status = me.run();
             }
             throw_if_error(status);
           })
      .def_property_readonly("io_info", [](const Method& me) { return io_info_dict(me.io_info()); })
      .def("profile", [](const Method& me) { return value_or_throw(me.profile()); })
      .def("delegate_calls",
           [](const Method& me) {
             py::list out;
             for (const auto& c : me.delegate_calls()) {
               py::dict d;
               d["instruction"] = c.instruction;
               d["delegate"] = c.delegate;
               d["backend"] = c.backend_id;
               // A private device has no registry key.
               d["device_key"] = c.standalone_device ? py::object(py::none()) : py::str(c.device_key.to_string());
               d["standalone_device"] = c.standalone_device;
               d["device_name"] = c.device_name();
               d["load_ms"] = c.load_ms;
               d["pipelines_compiled"] = c.pipelines_compiled;
               d["pipelines_reused"] = c.pipelines_reused;
               d["device"] = handle_value(c.device);
               d["queue"] = handle_value(c.queue);
               d["stats"] = stats_dict(c.stats);
               if (!c.graph_path.empty()) d["graph_path"] = c.graph_path;
               out.append(d);
             }
             return out;
           })
      .def_property_readonly("instructions", [](const Method& me) {
        py::list out;
        for (const auto& i : me.instructions()) {
          py::dict d;
          d["on_cpu"] = i.on_cpu;
          d["name"] = i.name;
          out.append(d);
        }
        return out;
      });

  py::class_<Program, std::shared_ptr<Program>>(m, "Program")
      .def_static("load", [](const std::string& path) { return value_or_throw(Program::load(path)); })
      .def_static("load_bytes",
                  [](const py::bytes& data) {
                    const std::string s = data;
                    return value_or_throw(Program::load_bytes(std::vector<uint8_t>(s.begin(), s.end())));
                  })
      .def("method_names", &Program::method_names)
      .def(
          "load_method",
          [](const Program& p, const std::string& name, const std::string& mode, bool require_no_cpu_fallback,
             std::map<std::string, std::string> options,
             std::map<std::string, std::map<std::string, std::string>> backend_options,
             std::map<size_t, py::array> host_inputs, std::map<size_t, py::array> host_outputs, bool profile) {
            runtime::LoadOptions lo;
            lo.host_memory = host_bindings(host_inputs, false);
            for (auto& b : host_bindings(host_outputs, true)) lo.host_memory.push_back(b);
            lo.mode = value_or_throw(runtime::execution_mode_from_name(mode));
            lo.require_no_cpu_fallback = require_no_cpu_fallback;
            lo.profile = profile;
            lo.all_backends = std::move(options);
            lo.backend_options = std::move(backend_options);
            std::optional<Result<std::unique_ptr<Method>>> outcome;
            {
              py::gil_scoped_release release;
              outcome.emplace(p.load_method(name, lo));
            }
            py::object method = py::cast(std::shared_ptr<Method>(value_or_throw(std::move(*outcome))));
            // The imported arrays must outlive the Method: it holds them.
            py::list held;
            for (auto& [index, array] : host_inputs) held.append(array);
            for (auto& [index, array] : host_outputs) held.append(array);
            method.attr("_host_memory") = held;
            return method;
          },
          py::arg("name") = "forward", py::arg("mode") = "auto", py::arg("require_no_cpu_fallback") = false,
          py::arg("options") = std::map<std::string, std::string>{},
          py::arg("backend_options") = std::map<std::string, std::map<std::string, std::string>>{},
          py::arg("host_inputs") = std::map<size_t, py::array>{},
          py::arg("host_outputs") = std::map<size_t, py::array>{}, py::arg("profile") = false);
}

}  // namespace univk::python
