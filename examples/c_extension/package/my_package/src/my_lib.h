int my_lib_add_forward(EmberTensor *input1, EmberTensor *input2, EmberTensor *output);
int my_lib_add_backward(EmberTensor *grad_output, EmberTensor *grad_input);
