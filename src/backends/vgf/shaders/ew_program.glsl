// The elementwise program interpreter (see ../elementwise_program.h), shared by the fused
// elementwise, pool and conv shaders. The includer defines REG (vec4 or ivec4), declares
// `REG ew_apply(uint op, REG a, REG b, uint imm0, uint imm1)` and `REG ew_imm(uint bits)` before
// including this file, and fills X[] with its input tensors' values (4 consecutive output
// elements per invocation). Steps come from specialization constants 8.. (layout written by
// EwProgram::specialization), so after specialization every branch below is resolved.
// This file lists the 12 steps explicitly because GLSL has no arrays of specialization constants.
layout(constant_id = 8) const uint STEP_COUNT = 0;
layout(constant_id = 9) const uint RESULT_REG = 0;

layout(constant_id = 10) const uint OP_0 = 0; layout(constant_id = 11) const uint DST_0 = 0; layout(constant_id = 12) const uint SA_0 = 0;
layout(constant_id = 13) const uint SB_0 = 0; layout(constant_id = 14) const uint IMMA_0 = 0; layout(constant_id = 15) const uint IMMB_0 = 0;
layout(constant_id = 16) const uint OP_1 = 0; layout(constant_id = 17) const uint DST_1 = 0; layout(constant_id = 18) const uint SA_1 = 0;
layout(constant_id = 19) const uint SB_1 = 0; layout(constant_id = 20) const uint IMMA_1 = 0; layout(constant_id = 21) const uint IMMB_1 = 0;
layout(constant_id = 22) const uint OP_2 = 0; layout(constant_id = 23) const uint DST_2 = 0; layout(constant_id = 24) const uint SA_2 = 0;
layout(constant_id = 25) const uint SB_2 = 0; layout(constant_id = 26) const uint IMMA_2 = 0; layout(constant_id = 27) const uint IMMB_2 = 0;
layout(constant_id = 28) const uint OP_3 = 0; layout(constant_id = 29) const uint DST_3 = 0; layout(constant_id = 30) const uint SA_3 = 0;
layout(constant_id = 31) const uint SB_3 = 0; layout(constant_id = 32) const uint IMMA_3 = 0; layout(constant_id = 33) const uint IMMB_3 = 0;
layout(constant_id = 34) const uint OP_4 = 0; layout(constant_id = 35) const uint DST_4 = 0; layout(constant_id = 36) const uint SA_4 = 0;
layout(constant_id = 37) const uint SB_4 = 0; layout(constant_id = 38) const uint IMMA_4 = 0; layout(constant_id = 39) const uint IMMB_4 = 0;
layout(constant_id = 40) const uint OP_5 = 0; layout(constant_id = 41) const uint DST_5 = 0; layout(constant_id = 42) const uint SA_5 = 0;
layout(constant_id = 43) const uint SB_5 = 0; layout(constant_id = 44) const uint IMMA_5 = 0; layout(constant_id = 45) const uint IMMB_5 = 0;
layout(constant_id = 46) const uint OP_6 = 0; layout(constant_id = 47) const uint DST_6 = 0; layout(constant_id = 48) const uint SA_6 = 0;
layout(constant_id = 49) const uint SB_6 = 0; layout(constant_id = 50) const uint IMMA_6 = 0; layout(constant_id = 51) const uint IMMB_6 = 0;
layout(constant_id = 52) const uint OP_7 = 0; layout(constant_id = 53) const uint DST_7 = 0; layout(constant_id = 54) const uint SA_7 = 0;
layout(constant_id = 55) const uint SB_7 = 0; layout(constant_id = 56) const uint IMMA_7 = 0; layout(constant_id = 57) const uint IMMB_7 = 0;
layout(constant_id = 58) const uint OP_8 = 0; layout(constant_id = 59) const uint DST_8 = 0; layout(constant_id = 60) const uint SA_8 = 0;
layout(constant_id = 61) const uint SB_8 = 0; layout(constant_id = 62) const uint IMMA_8 = 0; layout(constant_id = 63) const uint IMMB_8 = 0;
layout(constant_id = 64) const uint OP_9 = 0; layout(constant_id = 65) const uint DST_9 = 0; layout(constant_id = 66) const uint SA_9 = 0;
layout(constant_id = 67) const uint SB_9 = 0; layout(constant_id = 68) const uint IMMA_9 = 0; layout(constant_id = 69) const uint IMMB_9 = 0;
layout(constant_id = 70) const uint OP_10 = 0; layout(constant_id = 71) const uint DST_10 = 0; layout(constant_id = 72) const uint SA_10 = 0;
layout(constant_id = 73) const uint SB_10 = 0; layout(constant_id = 74) const uint IMMA_10 = 0; layout(constant_id = 75) const uint IMMB_10 = 0;
layout(constant_id = 76) const uint OP_11 = 0; layout(constant_id = 77) const uint DST_11 = 0; layout(constant_id = 78) const uint SA_11 = 0;
layout(constant_id = 79) const uint SB_11 = 0; layout(constant_id = 80) const uint IMMA_11 = 0; layout(constant_id = 81) const uint IMMB_11 = 0;

REG R[4];
REG X[4];

REG ew_src(uint s, uint imm0, uint imm1) {
  if (s < 4u) return R[s];
  if (s < 8u) return X[s - 4u];
  return ew_imm(s == 8u ? imm0 : imm1);
}

void ew_step(uint op, uint dst, uint a, uint b, uint imm0, uint imm1) {
  R[dst] = ew_apply(op, ew_src(a, imm0, imm1), ew_src(b, imm0, imm1), imm0, imm1);
}

void ew_run() {
  if (STEP_COUNT > 0u) ew_step(OP_0, DST_0, SA_0, SB_0, IMMA_0, IMMB_0);
  if (STEP_COUNT > 1u) ew_step(OP_1, DST_1, SA_1, SB_1, IMMA_1, IMMB_1);
  if (STEP_COUNT > 2u) ew_step(OP_2, DST_2, SA_2, SB_2, IMMA_2, IMMB_2);
  if (STEP_COUNT > 3u) ew_step(OP_3, DST_3, SA_3, SB_3, IMMA_3, IMMB_3);
  if (STEP_COUNT > 4u) ew_step(OP_4, DST_4, SA_4, SB_4, IMMA_4, IMMB_4);
  if (STEP_COUNT > 5u) ew_step(OP_5, DST_5, SA_5, SB_5, IMMA_5, IMMB_5);
  if (STEP_COUNT > 6u) ew_step(OP_6, DST_6, SA_6, SB_6, IMMA_6, IMMB_6);
  if (STEP_COUNT > 7u) ew_step(OP_7, DST_7, SA_7, SB_7, IMMA_7, IMMB_7);
  if (STEP_COUNT > 8u) ew_step(OP_8, DST_8, SA_8, SB_8, IMMA_8, IMMB_8);
  if (STEP_COUNT > 9u) ew_step(OP_9, DST_9, SA_9, SB_9, IMMA_9, IMMB_9);
  if (STEP_COUNT > 10u) ew_step(OP_10, DST_10, SA_10, SB_10, IMMA_10, IMMB_10);
  if (STEP_COUNT > 11u) ew_step(OP_11, DST_11, SA_11, SB_11, IMMA_11, IMMB_11);
}

REG ew_result() { return R[RESULT_REG]; }
