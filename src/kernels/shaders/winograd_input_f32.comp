#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// Winograd F(2x2, 3x3), input transform (kernels::Kernel::kWinogradInputF32, winograd.h): one
// invocation per (2x2 output tile t, input channel c) reads the tile's 4x4 input patch d (rows
// 2*ty - pad_top .. +3, columns likewise; zero outside the input) and writes
// V[xi][t][c] = (B^T d B)[xi], xi = 4 * row + column, with
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1].
// Channels run fastest across invocations: the reads of NHWC input and the writes of V
// coalesce. Bindings: 0 input, 3 V (kernel.h's interface; the others unused). The push-constant
// layout is kernels::WinogradPush.
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0) readonly buffer In { float x[]; };
layout(set = 0, binding = 3) writeonly buffer V { float v[]; };
layout(push_constant) uniform Params {
  uint off_in, off_w, off_bias, off_v, off_res;
  uint total, C, tiles_h, tiles_w, tiles;
  uint H, W;
  uint sn, sc, sh, sw;
  uint pad;  // top | left << 16
} p;

void main() {
  const uint id = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
                  gl_LocalInvocationID.x;
  if (id >= p.total) return;
  const uint c = id % p.C, t = id / p.C;
  const uint tx = t % p.tiles_w, ty = (t / p.tiles_w) % p.tiles_h, n = t / (p.tiles_w * p.tiles_h);
  const int y0 = int(2u * ty) - int(p.pad & 0xffffu), x0 = int(2u * tx) - int(p.pad >> 16);
  const uint base = p.off_in + n * p.sn + c * p.sc;
  float d[4][4];
  [[unroll]] for (int i = 0; i < 4; ++i) {
    const int y = y0 + i;
    const bool row_in = y >= 0 && y < int(p.H);
    [[unroll]] for (int j = 0; j < 4; ++j) {
      const int xx = x0 + j;
      d[i][j] = row_in && xx >= 0 && xx < int(p.W) ? x[base + uint(y) * p.sh + uint(xx) * p.sw] : 0.0;
    }
  }
  // B^T d, then (B^T d) B.
  float r[4][4];
  [[unroll]] for (int j = 0; j < 4; ++j) {
    r[0][j] = d[0][j] - d[2][j];
    r[1][j] = d[1][j] + d[2][j];
    r[2][j] = d[2][j] - d[1][j];
    r[3][j] = d[1][j] - d[3][j];
  }
  const uint plane = p.tiles * p.C;
  uint o = p.off_v + t * p.C + c;
  [[unroll]] for (int i = 0; i < 4; ++i) {
    v[o] = r[i][0] - r[i][2];
    v[o + plane] = r[i][1] + r[i][2];
    v[o + 2u * plane] = r[i][2] - r[i][1];
    v[o + 3u * plane] = r[i][1] - r[i][3];
    o += 4u * plane;
  }
}
