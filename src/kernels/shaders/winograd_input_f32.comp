#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Winograd F(TILE x TILE, 3x3), input transform (kernels::Kernel::kWinogradInputF32,
// winograd.h): one invocation per (TILE x TILE output tile t, input channel c) reads the tile's
// (TILE+2)^2 input patch d (rows TILE*ty - pad_top .., columns likewise; zero outside the input)
// and writes V[xi][t][c] = (B^T d B)[xi], xi = (TILE+2) * row + column, with
//   F(2x2): B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]
//   F(4x4): B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0;
//                  0 4 0 -5 0 1]
// Channels run fastest across invocations: the reads of NHWC input and the writes of V
// coalesce. Bindings: 0 input, 3 V (kernel.h's interface; the others unused). The push-constant
// layout is kernels::WinogradPush, the constants kernels::kWg*Constant.
layout(local_size_x_id = 0) in;
layout(constant_id = 3) const uint TILE = 2;  // 2 or 4
const uint SIZE = TILE + 2u;                  // the transformed tile's rows and columns

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 3) writeonly buffer V { float v[]; };
layout(push_constant) uniform Params {
  uint off_in, off_w, off_bias, off_v, off_res;
  uint total, C, tiles_h, tiles_w, tiles;
  uint H, W;
  uint sn, sc, sh, sw;
  uint pad;  // top | left << 16
} p;

// B^T applied to one column (or row) of the patch, in place.
void transform(inout float d[6]) {
  float r[6];
  if (TILE == 2u) {
    r[0] = d[0] - d[2];
    r[1] = d[1] + d[2];
    r[2] = d[2] - d[1];
    r[3] = d[1] - d[3];
  } else {
    r[0] = 4.0 * d[0] - 5.0 * d[2] + d[4];
    r[1] = d[3] + d[4] - 4.0 * (d[1] + d[2]);
    r[2] = 4.0 * (d[1] - d[2]) + d[4] - d[3];
    r[3] = 2.0 * (d[3] - d[1]) + d[4] - d[2];
    r[4] = 2.0 * (d[1] - d[3]) + d[4] - d[2];
    r[5] = 4.0 * d[1] - 5.0 * d[3] + d[5];
  }
  d = r;
}

void main() {
  const uint id = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
                  gl_LocalInvocationID.x;
  if (id >= p.total) return;
  const uint c = id % p.C, t = id / p.C;
  const uint tx = t % p.tiles_w, ty = (t / p.tiles_w) % p.tiles_h, n = t / (p.tiles_w * p.tiles_h);
  const int y0 = int(TILE * ty) - int(p.pad & 0xffffu), x0 = int(TILE * tx) - int(p.pad >> 16);
  const uint base = p.off_in + n * p.sn + c * p.sc;
  float d[6][6];  // [column][row]: each column transformed first
  [[unroll]] for (uint i = 0u; i < SIZE; ++i) {
    const int y = y0 + int(i);
    const bool row_in = y >= 0 && y < int(p.H);
    [[unroll]] for (uint j = 0u; j < SIZE; ++j) {
      const int xx = x0 + int(j);
      d[j][i] = row_in && xx >= 0 && xx < int(p.W) ? x[base + uint(y) * p.sh + uint(xx) * p.sw] : 0.0;
    }
  }
  // B^T d (each column), then (B^T d) B (each row).
  [[unroll]] for (uint j = 0u; j < SIZE; ++j) transform(d[j]);
  [[unroll]] for (uint i = 0u; i < SIZE; ++i) {
    float row[6];
    [[unroll]] for (uint j = 0u; j < SIZE; ++j) row[j] = d[j][i];
    transform(row);
    [[unroll]] for (uint j = 0u; j < SIZE; ++j) v[p.off_v + ((i * SIZE + j) * p.tiles + t) * p.C + c] = row[j];
  }
}
