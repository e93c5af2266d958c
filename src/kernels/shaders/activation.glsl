// Activation functions shared by the kernel library's epilogues and the VulkanBackend's unary
// shader, so each has one definition. Codes are the values of univk::kernels::Activation.

float act_sigmoid(float v) { return 1.0 / (1.0 + exp(-v)); }

// tanh that stays finite for large |v| (GLSL's tanh may overflow through exp).
float tanh_safe(float v) {
  const float e = exp(-2.0 * abs(v));
  return sign(v) * (1.0 - e) / (1.0 + e);
}

// erf with max abs error 1.5e-7 (Abramowitz-Stegun 7.1.26).
float erf_approx(float v) {
  const float a = abs(v);
  const float t = 1.0 / (1.0 + 0.3275911 * a);
  const float poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return sign(v) * (1.0 - poly * exp(-a * a));
}

// Lets NaN through, as PyTorch's clamp does.
float clamp_nan(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

float gelu_erf(float v) { return 0.5 * v * (1.0 + erf_approx(v * 0.7071067811865476)); }
float gelu_tanh(float v) { return 0.5 * v * (1.0 + tanh_safe(0.7978845608028654 * (v + 0.044715 * v * v * v))); }
float hardswish(float v) { return v * clamp_nan(v + 3.0, 0.0, 6.0) / 6.0; }
float hardsigmoid(float v) { return clamp_nan(v + 3.0, 0.0, 6.0) / 6.0; }

// Activation `code` (kernels::Activation) of v; lo/hi are clamp's bounds.
float activation(uint code, float v, float lo, float hi) {
  switch (code) {
    case 1: return v < 0.0 ? 0.0 : v;
    case 2: return clamp_nan(v, lo, hi);
    case 3: return hardswish(v);
    case 4: return hardsigmoid(v);
    case 5: return act_sigmoid(v);
    case 6: return v * act_sigmoid(v);
    case 7: return tanh_safe(v);
    case 8: return gelu_erf(v);
    case 9: return gelu_tanh(v);
    default: return v;
  }
}
