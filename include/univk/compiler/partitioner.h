// The partitioner: assigns every node of a Graph to a delegate backend or to the CPU fallback.
//
// Rules:
//  - backends claim nodes in the order the user gives (first backend that supports a node wins);
//  - a pin (by node name, or by op type) sends a node to one backend; pinning a node to a backend
//    that cannot run it is an error naming the node and the reason; node-name pins win over
//    op-type pins; the pseudo backend "cpu" pins a node to the CPU fallback (with a warning);
//    a pin key that matches no node name and no op type of the graph is InvalidArgument naming
//    the key and the graph's op types and node names;
//  - nodes no backend claims go to the CPU fallback (reference kernels) with a warning, or fail
//    the partitioning when `require_no_cpu_fallback`;
//  - consecutive nodes (in graph order) on one backend form one partition = one delegate call.
//
// Pure data: no Vulkan, no file I/O. The caller owns every argument; the result is a new value.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "univk/base/status.h"
#include "univk/compiler/graph.h"

namespace univk::compiler {

inline constexpr const char* kCpuBackend = "cpu";

// Says whether a backend can run one node: ok, or a Status whose message says why not.
using SupportFn = std::function<Status(const Graph& graph, const Node& node)>;

struct BackendClaim {
  std::string id;  // "VgfBackend", "VulkanBackend"
  SupportFn supports;
};

struct PartitionOptions {
  std::vector<std::string> order = {"VgfBackend", "VulkanBackend"};  // claim order
  std::map<std::string, std::string> pins;                           // node name or op type -> backend id (or "cpu")
  bool require_no_cpu_fallback = false;
};

struct Partition {
  std::string backend;        // a backend id, or kCpuBackend
  std::vector<NodeId> nodes;  // consecutive in graph order
};

struct PartitionResult {
  std::vector<Partition> partitions;  // in graph order
  std::vector<std::string> warnings;  // one per node sent to the CPU fallback (pinned or unclaimed)
  bool has_cpu() const;
};

// `claims` lists the backends that exist; `options.order` names which of them to use, in order
// (an id in order or in pins that has no claim is InvalidArgument).
Result<PartitionResult> partition_graph(const Graph& graph, std::span<const BackendClaim> claims,
                                        const PartitionOptions& options);

}  // namespace univk::compiler
