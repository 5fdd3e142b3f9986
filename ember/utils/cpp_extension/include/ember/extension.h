// ember/extension.h: everything a C++ extension for ember includes (torch/extension.h's
// counterpart). The bindings come from nanobind; ember::Tensor converts to and from
// ember.Tensor (an undefined one to None), std::vector / std::tuple / std::string to Python
// lists / tuples / str. Include more of nanobind's casters (<nanobind/stl/...>) as needed.
//
//   #include <ember/extension.h>
//
//   ember::Tensor scale(ember::Tensor x, double factor) {
//     EMBER_CHECK(x.is_contiguous(), "scale: x must be contiguous");
//     ember::Tensor out = ember::empty_like(x);
//     const float* src = x.data_ptr<float>();
//     float* dst = out.data_ptr<float>();
//     for (int64_t i = 0; i < x.numel(); ++i) dst[i] = src[i] * factor;
//     return out;
//   }
//
//   NB_MODULE(EMBER_EXTENSION_NAME, m) { m.def("scale", &scale); }
//
// EMBER_EXTENSION_NAME is the name given to load() / CppExtension; load_inline(functions=)
// writes the NB_MODULE block for you.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "ember/check.h"
#include "ember/scalar_type.h"
#include "ember/tensor.h"

namespace nanobind::detail {

// ember.Tensor <-> ember::Tensor. Anything else passed where a tensor is expected fails the
// conversion, and nanobind raises its TypeError listing the accepted signatures.
template <>
struct type_caster<ember::Tensor> {
  NB_TYPE_CASTER(ember::Tensor, const_name("ember.Tensor"))

  template <typename Flags>
  bool from_python(handle src, Flags, cleanup_list*) noexcept {
    try {
      value = ember::Tensor::from_python(src);
      return true;
    } catch (...) {  // not an ember Tensor: nanobind tries the next overload or raises
      return false;
    }
  }

  static handle from_cpp(const ember::Tensor& t, rv_policy, cleanup_list*) noexcept {
    if (!t.defined()) return none().release();
    return t.ptr().inc_ref();
  }
};

}  // namespace nanobind::detail
