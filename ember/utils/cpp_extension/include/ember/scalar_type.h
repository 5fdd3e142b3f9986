// ember/scalar_type.h: the element types of ember tensors, as C++ sees them.
//
// The enumerators carry torch's C++ names (Float, Double, Long, ...), which are also the
// names error messages use, so a kernel ported from torch reads the same:
//   EMBER_CHECK(x.scalar_type() == ember::kFloat, "expected Float, got ", x.scalar_type());
// EMBER_DISPATCH_FLOATING_TYPES / EMBER_DISPATCH_ALL_TYPES run a lambda with `scalar_t`
// bound to the C++ type of a runtime ScalarType (torch's AT_DISPATCH_* idiom).
#pragma once

#include <complex>
#include <cstdint>
#include <ostream>
#include <type_traits>

#include "ember/check.h"

namespace ember {

enum class ScalarType : int8_t {
  Bool,
  Byte,   // uint8
  Char,   // int8
  Short,  // int16
  Int,    // int32
  Long,   // int64
  Half,   // float16 (no C++ arithmetic type here: use data_ptr() and convert yourself)
  Float,  // float32
  Double,  // float64
  ComplexFloat,
  ComplexDouble,
};

constexpr int kNumScalarTypes = 11;

constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kComplexFloat = ScalarType::ComplexFloat;
constexpr ScalarType kComplexDouble = ScalarType::ComplexDouble;
// The ember/NumPy spellings of the same types.
constexpr ScalarType kUInt8 = kByte, kInt8 = kChar, kInt16 = kShort, kInt32 = kInt,
                     kInt64 = kLong, kFloat16 = kHalf, kFloat32 = kFloat, kFloat64 = kDouble,
                     kComplex64 = kComplexFloat, kComplex128 = kComplexDouble;

// torch's name of the type: "Float", "Long", ...
inline const char* name(ScalarType t) {
  static const char* const names[kNumScalarTypes] = {
      "Bool", "Byte", "Char", "Short", "Int", "Long",
      "Half", "Float", "Double", "ComplexFloat", "ComplexDouble"};
  return names[static_cast<int>(t)];
}

// The dtype's name in ember and NumPy: "float32", "int64", ...
inline const char* dtype_name(ScalarType t) {
  static const char* const names[kNumScalarTypes] = {
      "bool", "uint8", "int8", "int16", "int32", "int64",
      "float16", "float32", "float64", "complex64", "complex128"};
  return names[static_cast<int>(t)];
}

// The C++ element type's name, as torch's messages spell it ("float", "long int", ...).
inline const char* cpp_type_name(ScalarType t) {
  static const char* const names[kNumScalarTypes] = {
      "bool", "unsigned char", "signed char", "short int", "int", "long int",
      "c10::Half", "float", "double", "c10::complex<float>", "c10::complex<double>"};
  return names[static_cast<int>(t)];
}

inline int64_t element_size(ScalarType t) {
  static const int8_t sizes[kNumScalarTypes] = {1, 1, 1, 2, 4, 8, 2, 4, 8, 8, 16};
  return sizes[static_cast<int>(t)];
}

inline std::ostream& operator<<(std::ostream& out, ScalarType t) { return out << name(t); }

// scalar_type_of<T>(): the ScalarType whose elements are C++ type T (float -> Float).
template <typename T>
struct CppTypeToScalarType;
#define EMBER_DETAIL_CPP_TYPE(cpp_type, scalar)                                 \
  template <>                                                                  \
  struct CppTypeToScalarType<cpp_type> {                                       \
    static constexpr ScalarType value = ScalarType::scalar;                    \
  };
EMBER_DETAIL_CPP_TYPE(bool, Bool)
EMBER_DETAIL_CPP_TYPE(uint8_t, Byte)
EMBER_DETAIL_CPP_TYPE(int8_t, Char)
EMBER_DETAIL_CPP_TYPE(int16_t, Short)
EMBER_DETAIL_CPP_TYPE(int32_t, Int)
EMBER_DETAIL_CPP_TYPE(int64_t, Long)
EMBER_DETAIL_CPP_TYPE(float, Float)
EMBER_DETAIL_CPP_TYPE(double, Double)
EMBER_DETAIL_CPP_TYPE(std::complex<float>, ComplexFloat)
EMBER_DETAIL_CPP_TYPE(std::complex<double>, ComplexDouble)
#undef EMBER_DETAIL_CPP_TYPE

template <typename T>
constexpr ScalarType scalar_type_of() {
  return CppTypeToScalarType<std::remove_cv_t<T>>::value;
}

namespace detail {
// NotImplementedError (a RuntimeError), as torch raises for a dtype a kernel lacks.
[[noreturn]] inline void dispatch_not_implemented(const char* op, ScalarType t) {
  PyErr_SetString(PyExc_NotImplementedError,
                  str('"', op, "\" not implemented for '", name(t), "'").c_str());
  throw nanobind::python_error();
}
}  // namespace detail

}  // namespace ember

#define EMBER_DETAIL_DISPATCH_CASE(scalar, cpp_type, ...)                       \
  case ::ember::ScalarType::scalar: {                                          \
    using scalar_t = cpp_type;                                                 \
    return __VA_ARGS__();                                                      \
  }

// A lambda switching on TYPE over CASES, the NotImplementedError for any other type.
#define EMBER_DETAIL_DISPATCH(TYPE, NAME, CASES)                                \
  [&] {                                                                        \
    const ::ember::ScalarType ember_dispatch_type_ = (TYPE);                   \
    switch (ember_dispatch_type_) {                                            \
      CASES                                                                    \
      default:                                                                 \
        ::ember::detail::dispatch_not_implemented(NAME, ember_dispatch_type_); \
    }                                                                          \
  }()

#define EMBER_DETAIL_FLOATING_CASES(...)                                        \
  EMBER_DETAIL_DISPATCH_CASE(Float, float, __VA_ARGS__)                        \
  EMBER_DETAIL_DISPATCH_CASE(Double, double, __VA_ARGS__)

#define EMBER_DETAIL_INTEGRAL_CASES(...)                                        \
  EMBER_DETAIL_DISPATCH_CASE(Byte, uint8_t, __VA_ARGS__)                       \
  EMBER_DETAIL_DISPATCH_CASE(Char, int8_t, __VA_ARGS__)                        \
  EMBER_DETAIL_DISPATCH_CASE(Short, int16_t, __VA_ARGS__)                      \
  EMBER_DETAIL_DISPATCH_CASE(Int, int32_t, __VA_ARGS__)                        \
  EMBER_DETAIL_DISPATCH_CASE(Long, int64_t, __VA_ARGS__)

// Calls the lambda (last argument) with `scalar_t` = float or double, matching TYPE;
// any other type raises NotImplementedError: "NAME" not implemented for 'Long'.
#define EMBER_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)                          \
  EMBER_DETAIL_DISPATCH(TYPE, NAME, EMBER_DETAIL_FLOATING_CASES(__VA_ARGS__))

// As EMBER_DISPATCH_FLOATING_TYPES, for the floating and the integer types (torch's "all
// types": no bool, half or complex).
#define EMBER_DISPATCH_ALL_TYPES(TYPE, NAME, ...)                               \
  EMBER_DETAIL_DISPATCH(TYPE, NAME, EMBER_DETAIL_FLOATING_CASES(__VA_ARGS__)    \
                                        EMBER_DETAIL_INTEGRAL_CASES(__VA_ARGS__))
