#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_basic : require
// The cooperative-matrix floor (fp16 x fp16 -> fp32, 16x16x16, NV): four independent
// accumulator chains per subgroup, `iterations` steps each (4 * 2 * 16^3 FLOP per step and
// subgroup), operands loaded once, stores that keep the chains alive.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) buffer Data { float16_t h[]; };
layout(set = 0, binding = 1) writeonly buffer Out { float o[]; };
layout(push_constant) uniform Params { uint iterations; } p;

void main() {
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> a, b;
  coopMatLoadNV(a, h, 0, 16, false);
  coopMatLoadNV(b, h, 256, 16, false);
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> c0 = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> c1 = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(1.0);
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> c2 = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(2.0);
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> c3 = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(3.0);
  for (uint i = 0u; i < p.iterations; ++i) {
    c0 = coopMatMulAddNV(a, b, c0);
    c1 = coopMatMulAddNV(a, b, c1);
    c2 = coopMatMulAddNV(a, b, c2);
    c3 = coopMatMulAddNV(a, b, c3);
  }
  const uint at = (gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID) * 1024u;
  coopMatStoreNV(c0, o, at, 16, false);
  coopMatStoreNV(c1, o, at + 256u, 16, false);
  coopMatStoreNV(c2, o, at + 512u, 16, false);
  coopMatStoreNV(c3, o, at + 768u, 16, false);
}
