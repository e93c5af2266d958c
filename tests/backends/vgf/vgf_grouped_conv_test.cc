// Grouped convolutions as TOSA writes them (grouped_conv.h: SLICE per group -> CONV2D ->
// CONCAT): the VgfBackend runs the pattern as one kernel-library dispatch with groups, taking
// the ADD and CLAMP after it into the epilogue; graphs that only resemble it (weights that are
// no slices of one constant) run group by group. Each result against the TOSA reference of the
// whole graph.
#include "univk/spirv/tosa_graph_reference.h"
#include "univk_test.h"
#include "vgf_test_util.h"

namespace univk::backends::vgf_test {
namespace {

ValueId slice(TosaGraph& g, ValueId v, const std::vector<int64_t>& whole, size_t axis, int64_t start, int64_t length) {
  std::vector<int64_t> starts(whole.size(), 0), sizes = whole;
  starts[axis] = start;
  sizes[axis] = length;
  Attributes a;
  a.set("start", starts);
  a.set("size", sizes);
  return g.add_operation(TosaOp::kSlice, {v}, std::move(a), {DType::kFloat32, sizes});
}

struct GroupedCase {
  int64_t groups = 3, ic_per_group = 2, oc_per_group = 4, stride = 1;
  bool residual_relu = true;        // ADD of a graph input, then CLAMP at 0
  bool one_weight_constant = true;  // the groups' weights are slices of one constant (the pattern)
};

// Input [1, 7, 5, G*Cg] through a 3x3 grouped convolution padded by 1.
void run_case(const GroupedCase& c, uint32_t lowered_dispatches, const std::string& what) {
  TosaGraph g;
  const int64_t cin = c.groups * c.ic_per_group, cout = c.groups * c.oc_per_group;
  const HostTensor in = random_tensor(DType::kFloat32, Shape({1, 7, 5, cin}), 1);
  const HostTensor w = random_tensor(DType::kFloat32, Shape({cout, 3, 3, c.ic_per_group}), 2);
  const HostTensor b = random_tensor(DType::kFloat32, Shape({cout}), 3);
  const ValueId x = g.add_input({DType::kFloat32, in.shape().dims()}, 0, 0);
  const ValueId wv = g.add_constant({DType::kFloat32, w.shape().dims()}, bytes_of(w));
  const ValueId bv = g.add_constant({DType::kFloat32, b.shape().dims()}, bytes_of(b));
  const Attributes conv = conv2d_attrs({1, 1, 1, 1}, {c.stride, c.stride}, /*for_reference=*/true);
  const int64_t oh = (7 - 1) / c.stride + 1, ow = (5 - 1) / c.stride + 1;
  std::vector<ValueId> results;
  for (int64_t grp = 0; grp < c.groups; ++grp) {
    const ValueId xg = slice(g, x, in.shape().dims(), 3, grp * c.ic_per_group, c.ic_per_group);
    ValueId wg, bg;
    if (c.one_weight_constant) {
      wg = slice(g, wv, w.shape().dims(), 0, grp * c.oc_per_group, c.oc_per_group);
      bg = slice(g, bv, b.shape().dims(), 0, grp * c.oc_per_group, c.oc_per_group);
    } else {
      const HostTensor wpart = random_tensor(DType::kFloat32, Shape({c.oc_per_group, 3, 3, c.ic_per_group}), 10 + grp);
      const HostTensor bpart = random_tensor(DType::kFloat32, Shape({c.oc_per_group}), 20 + grp);
      wg = g.add_constant({DType::kFloat32, wpart.shape().dims()}, bytes_of(wpart));
      bg = g.add_constant({DType::kFloat32, bpart.shape().dims()}, bytes_of(bpart));
    }
    results.push_back(
        g.add_operation(TosaOp::kConv2d, {xg, wg, bg}, conv, {DType::kFloat32, {1, oh, ow, c.oc_per_group}}));
  }
  Attributes cat;
  cat.set("axis", int64_t{3});
  const TosaTensorType out_type{DType::kFloat32, {1, oh, ow, cout}};
  ValueId y = g.add_operation(TosaOp::kConcat, results, cat, out_type);
  std::vector<HostTensor> inputs = {in};
  if (c.residual_relu) {
    inputs.push_back(random_tensor(DType::kFloat32, Shape(out_type.shape), 4));
    const ValueId r = g.add_input(out_type, 0, 1);
    y = g.add_operation(TosaOp::kAdd, {y, r}, {}, out_type);
    Attributes relu;
    relu.set("min_val", 0.0);
    relu.set("max_val", static_cast<double>(INFINITY));
    relu.set("nan_mode", spirv::kNanPropagate);
    y = g.add_operation(TosaOp::kClamp, {y}, std::move(relu), out_type);
  }
  g.add_output(y, 0, 2);
  UNIVK_ASSIGN_OR_FAIL(std::vector<HostTensor> want, spirv::run_on_reference(g, inputs));
  auto loaded = load(single_graph_model(g));
  UNIVK_ASSERT_OK(loaded);
  auto out = loaded->delegate->execute(std::span<const HostTensor>(inputs));
  UNIVK_ASSERT_OK(out);
  EXPECT_TRUE(tensors_close((*out)[0], want[0], {1e-5f, 1e-5f})) << what;
  // The native path (vgf_backend_grouped_conv_native) runs the whole graph as one data graph.
  const bool native = loaded->delegate->graph_path() == "native";
  EXPECT_EQ(loaded->delegate->stats().dispatches, native ? 1u : lowered_dispatches) << what;
}

TEST(VgfGroupedConv, GroupsWithResidualAndReluAreOneDispatch) { run_case(GroupedCase{}, 1, "3 groups + add + relu"); }

TEST(VgfGroupedConv, StridedGroupsAreOneDispatch) {
  GroupedCase c;
  c.groups = 2, c.ic_per_group = 3, c.oc_per_group = 5, c.stride = 2, c.residual_relu = false;
  run_case(c, 1, "2 groups, stride 2");
}

// Weights that are separate constants: each CONV2D on its own (into the CONCAT's slices) and the
// CONCAT's copies, then the ADD and CLAMP as one elementwise dispatch.
TEST(VgfGroupedConv, SeparateWeightConstantsRunGroupByGroup) {
  GroupedCase c;
  c.one_weight_constant = false;
  run_case(c, 7, "separate weight constants");
}

}  // namespace
}  // namespace univk::backends::vgf_test
