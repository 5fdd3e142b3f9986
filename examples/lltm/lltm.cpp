// The LLTM cell of PyTorch's C++ extension tutorial, forward and backward in C++ for ember.
//
// One step, for input x (batch x features) and state (h, c) (batch x state each):
//   X     = [h, x]                                   (batch x (state + features))
//   gates = X W^T + b, split in three                (W: 3 state x (state + features))
//   i = sigmoid(gates_0), o = sigmoid(gates_1), z = elu(gates_2)
//   c' = c + z * i,  h' = tanh(c') * o
// The matrix products go to NumPy's BLAS through ember::mm; everything elementwise is one
// fused loop here, where ember's Python ops would make a tensor per operation.
#include <ember/extension.h>

#include <cmath>
#include <vector>

namespace {

template <typename T>
T sigmoid(T z) {
  return T(1) / (T(1) + std::exp(-z));
}

template <typename T>
T elu(T z) {  // alpha = 1
  return z > 0 ? z : std::expm1(z);
}

// The elementwise half of the forward, on contiguous rows: gates (batch x 3 state, bias not
// yet added) to the gate activations and the new state. Raw pointers marked __restrict, so
// that with -O3 -ffast-math the compiler vectorizes the loop, exp and tanh included.
template <typename T>
void gates_to_state(int64_t batch, int64_t state, const T* __restrict gates,
                    const T* __restrict bias, const T* __restrict old_cell,
                    T* __restrict input_gate, T* __restrict output_gate,
                    T* __restrict candidate_cell, T* __restrict new_cell,
                    T* __restrict tanh_new_cell, T* __restrict new_h) {
  for (int64_t b = 0; b < batch; ++b) {
    const T* g = gates + b * 3 * state;
    for (int64_t j = b * state, k = 0; k < state; ++j, ++k) {
      const T i = sigmoid(g[k] + bias[k]);
      const T o = sigmoid(g[state + k] + bias[state + k]);
      const T z = elu(g[2 * state + k] + bias[2 * state + k]);
      const T c = old_cell[j] + z * i;
      const T t = std::tanh(c);
      input_gate[j] = i;
      output_gate[j] = o;
      candidate_cell[j] = z;
      new_cell[j] = c;
      tanh_new_cell[j] = t;
      new_h[j] = t * o;
    }
  }
}

void check_matrix(const ember::Tensor& t, const char* name, int64_t rows, int64_t cols,
                  ember::ScalarType dtype) {
  EMBER_CHECK(t.dim() == 2, "lltm: ", name, " must be 2-D, got ", t.dim(), "-D");
  EMBER_CHECK(t.size(0) == rows && t.size(1) == cols, "lltm: ", name, " must have shape [",
              rows, ", ", cols, "], got ", t.sizes());
  EMBER_CHECK_TYPE(t.scalar_type() == dtype, "lltm: ", name, " must be ", dtype,
                   " like input, got ", t.scalar_type());
}

}  // namespace

// Returns {new_h, new_cell, input_gate, output_gate, candidate_cell, tanh_new_cell, X}: the
// new state, then what backward needs.
std::vector<ember::Tensor> lltm_forward(ember::Tensor input, ember::Tensor weights,
                                        ember::Tensor bias, ember::Tensor old_h,
                                        ember::Tensor old_cell) {
  EMBER_CHECK(input.dim() == 2, "lltm: input must be 2-D, got ", input.dim(), "-D");
  const ember::ScalarType dtype = input.scalar_type();
  const int64_t batch = input.size(0), features = input.size(1);
  const int64_t state = old_h.dim() == 2 ? old_h.size(1) : -1;
  check_matrix(old_h, "old_h", batch, state, dtype);
  check_matrix(old_cell, "old_cell", batch, state, dtype);
  check_matrix(weights, "weights", 3 * state, state + features, dtype);
  EMBER_CHECK(bias.dim() == 1 && bias.size(0) == 3 * state, "lltm: bias must have shape [",
              3 * state, "], got ", bias.sizes());
  EMBER_CHECK_TYPE(bias.scalar_type() == dtype, "lltm: bias must be ", dtype, " like input");

  ember::Tensor X = ember::empty({batch, state + features}, dtype);
  EMBER_DISPATCH_FLOATING_TYPES(dtype, "lltm_forward", [&] {
    auto x = X.accessor<scalar_t, 2>();
    auto h = old_h.accessor<scalar_t, 2>();
    auto in = input.accessor<scalar_t, 2>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t j = 0; j < state; ++j) x[b][j] = h[b][j];
      for (int64_t j = 0; j < features; ++j) x[b][state + j] = in[b][j];
    }
  });

  ember::Tensor gates = ember::mm(X, weights.t());
  ember::Tensor new_h = ember::empty({batch, state}, dtype);
  ember::Tensor new_cell = ember::empty_like(new_h);
  ember::Tensor input_gate = ember::empty_like(new_h);
  ember::Tensor output_gate = ember::empty_like(new_h);
  ember::Tensor candidate_cell = ember::empty_like(new_h);
  ember::Tensor tanh_new_cell = ember::empty_like(new_h);
  const ember::Tensor bias_ = bias.contiguous(), old_cell_ = old_cell.contiguous();
  EMBER_DISPATCH_FLOATING_TYPES(dtype, "lltm_forward", [&] {
    gates_to_state(batch, state, gates.data_ptr<scalar_t>(), bias_.data_ptr<scalar_t>(),
                   old_cell_.data_ptr<scalar_t>(), input_gate.data_ptr<scalar_t>(),
                   output_gate.data_ptr<scalar_t>(), candidate_cell.data_ptr<scalar_t>(),
                   new_cell.data_ptr<scalar_t>(), tanh_new_cell.data_ptr<scalar_t>(),
                   new_h.data_ptr<scalar_t>());
  });
  return {new_h, new_cell, input_gate, output_gate, candidate_cell, tanh_new_cell, X};
}

// Returns {d_old_h, d_input, d_weights, d_bias, d_old_cell}, given the gradients of new_h
// and new_cell and what lltm_forward saved; d_old_h and d_input only when `need_d_x` (a
// matrix product saved when neither input nor old_h requires grad), else undefined (None).
// Accessors follow strides, so any layout of the gradients works (autograd may pass
// broadcast ones). No exp or tanh here: the forward's outputs hold every derivative needed.
std::vector<ember::Tensor> lltm_backward(ember::Tensor grad_h, ember::Tensor grad_cell,
                                         ember::Tensor input_gate, ember::Tensor output_gate,
                                         ember::Tensor candidate_cell,
                                         ember::Tensor tanh_new_cell, ember::Tensor X,
                                         ember::Tensor weights, bool need_d_x) {
  const ember::ScalarType dtype = input_gate.scalar_type();
  const int64_t batch = input_gate.size(0), state = input_gate.size(1);
  const int64_t features = X.size(1) - state;
  check_matrix(grad_h, "grad_h", batch, state, dtype);
  check_matrix(grad_cell, "grad_cell", batch, state, dtype);

  ember::Tensor d_gates = ember::empty({batch, 3 * state}, dtype);
  ember::Tensor d_old_cell = ember::empty({batch, state}, dtype);
  ember::Tensor d_bias = ember::zeros({3 * state}, dtype);
  EMBER_DISPATCH_FLOATING_TYPES(dtype, "lltm_backward", [&] {
    auto gh = grad_h.accessor<scalar_t, 2>();
    auto gc = grad_cell.accessor<scalar_t, 2>();
    auto i = input_gate.accessor<scalar_t, 2>();
    auto o = output_gate.accessor<scalar_t, 2>();
    auto z = candidate_cell.accessor<scalar_t, 2>();
    auto tc = tanh_new_cell.accessor<scalar_t, 2>();
    auto dg = d_gates.accessor<scalar_t, 2>();
    auto dc = d_old_cell.accessor<scalar_t, 2>();
    auto db = d_bias.accessor<scalar_t, 1>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t j = 0; j < state; ++j) {
        // new_cell reaches the loss directly (grad_cell) and through new_h = tanh(c') * o.
        const scalar_t d_new_cell = gh[b][j] * o[b][j] * (1 - tc[b][j] * tc[b][j]) + gc[b][j];
        // elu'(x) is 1 for x > 0 and exp(x) = elu(x) + 1 otherwise; elu(x) > 0 iff x > 0.
        const scalar_t d_elu = z[b][j] > 0 ? scalar_t(1) : z[b][j] + 1;
        dc[b][j] = d_new_cell;
        dg[b][j] = d_new_cell * z[b][j] * i[b][j] * (1 - i[b][j]);
        dg[b][state + j] = gh[b][j] * tc[b][j] * o[b][j] * (1 - o[b][j]);
        dg[b][2 * state + j] = d_new_cell * i[b][j] * d_elu;
        for (int64_t k = 0; k < 3; ++k) db[k * state + j] += dg[b][k * state + j];
      }
    }
  });

  ember::Tensor d_weights = ember::mm(d_gates.t(), X);
  if (!need_d_x) return {ember::Tensor(), ember::Tensor(), d_weights, d_bias, d_old_cell};
  ember::Tensor d_X = ember::mm(d_gates, weights);
  ember::Tensor d_old_h = ember::empty({batch, state}, dtype);
  ember::Tensor d_input = ember::empty({batch, features}, dtype);
  EMBER_DISPATCH_FLOATING_TYPES(dtype, "lltm_backward", [&] {
    auto dx = d_X.accessor<scalar_t, 2>();
    auto dh = d_old_h.accessor<scalar_t, 2>();
    auto di = d_input.accessor<scalar_t, 2>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t j = 0; j < state; ++j) dh[b][j] = dx[b][j];
      for (int64_t j = 0; j < features; ++j) di[b][j] = dx[b][state + j];
    }
  });
  return {d_old_h, d_input, d_weights, d_bias, d_old_cell};
}

NB_MODULE(EMBER_EXTENSION_NAME, m) {
  m.def("forward", &lltm_forward, "LLTM forward: new_h, new_cell and what backward needs");
  m.def("backward", &lltm_backward, "LLTM backward: d_old_h, d_input, d_weights, d_bias, "
                                    "d_old_cell");
}
