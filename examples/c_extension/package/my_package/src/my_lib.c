/* The extension-ffi example's C functions, for ember: output = input1 + input2, and the
 * gradient of that sum with respect to either input. */
#include <ember/ember_c.h>

/* out[i] = a[i] + b[i] over n elements of type T, each tensor read with its own strides. */
#define ADD(T, out, a, b)                                                         \
  for (int64_t i = 0; i < (out)->numel; ++i)                                      \
    *(T *) ember_element(out, i) =                                                \
        *(const T *) ember_element(a, i) + *(const T *) ember_element(b, i)

int my_lib_add_forward(EmberTensor *input1, EmberTensor *input2, EmberTensor *output) {
  if (!ember_check_same_size(input1, "input1", input2, "input2")) return 0;
  if (!ember_check_dtype(input2, input1->dtype)) return 0;
  if (!ember_check_dtype(output, input1->dtype)) return 0;
  if (!ember_resize_as(output, input1)) return 0;
  switch (input1->dtype) {
    case EMBER_FLOAT32: ADD(float, output, input1, input2); return 1;
    case EMBER_FLOAT64: ADD(double, output, input1, input2); return 1;
    default:
      return ember_type_error("my_lib_add_forward: expected float32 or float64 tensors, got %s",
                              ember_dtype_name(input1->dtype));
  }
}

/* d(input1 + input2)/d(input1) = d(...)/d(input2) = identity: grad_input = grad_output.
 * (The original filled grad_input with 1, which is this only when grad_output is all ones.) */
int my_lib_add_backward(EmberTensor *grad_output, EmberTensor *grad_input) {
  if (!ember_resize_as(grad_input, grad_output)) return 0;
  for (int64_t i = 0; i < grad_input->numel; ++i)
    ember_set(grad_input, i, ember_get(grad_output, i));
  return 1;
}
