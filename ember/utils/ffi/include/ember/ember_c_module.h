/* ember/ember_c_module.h: the Python side of an ember C extension (private to ember).
 *
 * ember.utils.ffi includes this once, in the C source it generates for each extension (the
 * cffi module), after the user's headers; user code includes <ember/ember_c.h> only. With
 * <ember/ember_c_impl.h> (the helpers and the views) it makes the call wrapper: each C
 * function whose parameters are tensors (EmberTensor *) and numbers becomes a Python function
 * (METH_FASTCALL) that turns ember Tensors into EmberTensor views of their NumPy arrays on the
 * C stack, converts the numbers, calls the C function with the GIL held, and raises the error
 * it reported. A call with two tensors costs about a quarter of the same call through the
 * C++ path (benchmarks/ffi_workloads.py).
 */
#ifndef EMBER_EMBER_C_MODULE_H
#define EMBER_EMBER_C_MODULE_H

#include "ember/ember_c_impl.h"

#define EMBER_MAX_ARGS 16

/* -- the call wrapper ------------------------------------------------------------------- */
typedef enum EmberKind { EMBER_K_VOID, EMBER_K_TENSOR, EMBER_K_SIGNED, EMBER_K_UNSIGNED,
                         EMBER_K_FLOAT, EMBER_K_BOOL, EMBER_K_STRING } EmberKind;

/* One parameter or result: its kind, its C type's size and name (for messages). */
typedef struct EmberType {
  EmberKind kind;
  int size;
  const char *c_name;
} EmberType;

typedef union EmberValue {
  EmberTensor *tensor;
  long long i;
  unsigned long long u;
  double f;
  int b;
  const char *s;
} EmberValue;

/* A wrapped C function: `thunk` calls it with converted arguments and stores the result. */
typedef struct EmberFunction {
  const char *name;
  const char *signature; /* the C declaration, the Python function's docstring */
  int nargs;
  const EmberType *params;
  EmberType result;
  void (*thunk)(const EmberValue *args, EmberValue *result);
} EmberFunction;

static int ember__integer(PyObject *obj, const EmberType *type, EmberValue *v,
                          const EmberFunction *f, int position) {
  if (!PyLong_Check(obj) && !PyIndex_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s(): argument %d (%s) must be int, not %s", f->name,
                 position, type->c_name, Py_TYPE(obj)->tp_name);
    return 0;
  }
  PyObject *number = PyNumber_Index(obj);
  if (!number) return 0;
  int overflow = 0;
  const int bits = 8 * type->size;
  if (type->kind == EMBER_K_SIGNED) {
    v->i = PyLong_AsLongLongAndOverflow(number, &overflow);
    if (!overflow && bits < 64)
      overflow = v->i < -(1LL << (bits - 1)) || v->i >= (1LL << (bits - 1));
  } else {
    v->u = PyLong_AsUnsignedLongLong(number);
    if (v->u == (unsigned long long) -1 && PyErr_Occurred()) {
      PyErr_Clear();
      overflow = 1;
    } else if (bits < 64) {
      overflow = v->u >= (1ULL << bits);
    }
  }
  if (overflow)
    PyErr_Format(PyExc_OverflowError, "%s(): argument %d: %R does not fit '%s'", f->name,
                 position, number, type->c_name);
  Py_DECREF(number);
  return !overflow && !PyErr_Occurred();
}

static int ember__argument(PyObject *obj, const EmberType *type, EmberValue *v, EmberTensor *t,
                           EmberSlot *slot, const EmberFunction *f, int position) {
  switch (type->kind) {
    case EMBER_K_TENSOR:
      if (obj == Py_None) {
        v->tensor = NULL;
        return 1;
      }
      if (!PyObject_TypeCheck(obj, (PyTypeObject *) ember__tensor_type)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument %d (%s) must be an ember Tensor, not %s",
                     f->name, position, type->c_name, Py_TYPE(obj)->tp_name);
        return 0;
      }
      slot->tensor = obj;
      slot->array = PyObject_GetAttr(obj, ember__data_name);
      if (!slot->array) return 0;
      v->tensor = t;
      return ember__view(t, slot, f->name, position);
    case EMBER_K_SIGNED:
    case EMBER_K_UNSIGNED:
      return ember__integer(obj, type, v, f, position);
    case EMBER_K_FLOAT:
      v->f = PyFloat_AsDouble(obj);
      if (v->f == -1.0 && PyErr_Occurred()) {
        PyErr_Format(PyExc_TypeError, "%s(): argument %d (%s) must be a number, not %s",
                     f->name, position, type->c_name, Py_TYPE(obj)->tp_name);
        return 0;
      }
      return 1;
    case EMBER_K_BOOL:
      v->b = PyObject_IsTrue(obj);
      return v->b >= 0;
    case EMBER_K_STRING:
      if (PyBytes_Check(obj)) {
        v->s = PyBytes_AS_STRING(obj);
        return 1;
      }
      if (PyUnicode_Check(obj)) {
        v->s = PyUnicode_AsUTF8(obj);
        return v->s != NULL;
      }
      PyErr_Format(PyExc_TypeError, "%s(): argument %d (%s) must be str or bytes, not %s",
                   f->name, position, type->c_name, Py_TYPE(obj)->tp_name);
      return 0;
    default:
      PyErr_SetString(PyExc_SystemError, "ember: unknown parameter kind");
      return 0;
  }
}

static PyObject *ember__result(const EmberFunction *f, const EmberValue *r, PyObject *const *args,
                               const EmberTensor *tensors) {
  switch (f->result.kind) {
    case EMBER_K_VOID: Py_RETURN_NONE;
    case EMBER_K_SIGNED: return PyLong_FromLongLong(r->i);
    case EMBER_K_UNSIGNED: return PyLong_FromUnsignedLongLong(r->u);
    case EMBER_K_FLOAT: return PyFloat_FromDouble(r->f);
    case EMBER_K_BOOL: return PyBool_FromLong(r->b);
    case EMBER_K_TENSOR:
      if (!r->tensor) Py_RETURN_NONE;
      for (int i = 0; i < f->nargs; ++i)
        if (r->tensor == &tensors[i]) return Py_NewRef(args[i]);
      PyErr_Format(PyExc_RuntimeError, "%s() returned an EmberTensor that is not one of its "
                   "arguments", f->name);
      return NULL;
    default:
      PyErr_SetString(PyExc_SystemError, "ember: unknown result kind");
      return NULL;
  }
}

static PyObject *ember__call(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  const EmberFunction *f = (const EmberFunction *) PyCapsule_GetPointer(self, NULL);
  if (!f) return NULL;
  if (nargs != f->nargs) {
    PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd %s given",
                 f->name, f->nargs, f->nargs == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
    return NULL;
  }
  EmberValue values[EMBER_MAX_ARGS], result;
  EmberTensor tensors[EMBER_MAX_ARGS];
  EmberSlot slots[EMBER_MAX_ARGS];
  PyObject *out = NULL;
  int i, converted = 0;
  for (i = 0; i < f->nargs; ++i) {
    slots[i].array = NULL;
    converted = i + 1;
    if (!ember__argument(args[i], &f->params[i], &values[i], &tensors[i], &slots[i], f, i + 1))
      goto done;
  }
  ember__error_pending = 0;
  f->thunk(values, &result);
  if (!ember__take_error()) out = ember__result(f, &result, args, tensors);
done:
  for (i = 0; i < converted; ++i) Py_XDECREF(slots[i].array);
  return out;
}

/* Makes the Python functions of `functions` and hands them to ember (the dict {name:
 * function} goes to ember.utils.ffi._module.receive(key, dict)). Called once per module
 * through cffi, which releases the GIL around calls: hence PyGILState_Ensure. On failure
 * receive() gets the exception instead of the dict. */
static int ember__install_table(const char *key, const EmberFunction *functions, int n) {
  PyGILState_STATE gil = PyGILState_Ensure();
  int ok = 0;
  PyObject *dict = NULL, *hook = NULL, *r = NULL;
  if (!ember__tensor_type) {
    PyObject *tensor_module = PyImport_ImportModule("ember._tensor");
    PyObject *numpy = PyImport_ImportModule("numpy");
    PyObject *dtype = numpy ? PyObject_GetAttrString(numpy, "dtype") : NULL;
    if (tensor_module && dtype) {
      ember__tensor_type = PyObject_GetAttrString(tensor_module, "Tensor");
      ember__ndarray_type = PyObject_GetAttrString(numpy, "ndarray");
      ember__np_empty = PyObject_GetAttrString(numpy, "empty");
      for (int i = 0; i < EMBER_NUM_DTYPES && !PyErr_Occurred(); ++i)
        ember__dtypes[i] = PyObject_CallFunction(dtype, "s", ember__dtype_names[i]);
      ember__data_name = PyUnicode_InternFromString("_data");
      ember__vc_name = PyUnicode_InternFromString("_vc");
      ember__requires_grad_name = PyUnicode_InternFromString("_requires_grad");
    }
    Py_XDECREF(tensor_module);
    Py_XDECREF(numpy);
    Py_XDECREF(dtype);
    if (PyErr_Occurred()) {
      Py_CLEAR(ember__tensor_type);
      goto fail;
    }
  }
  dict = PyDict_New();
  if (!dict) goto fail;
  for (int i = 0; i < n; ++i) {
    /* Never freed: a module's functions live as long as the process. */
    PyMethodDef *def = (PyMethodDef *) PyMem_Calloc(1, sizeof(PyMethodDef));
    if (!def) goto fail;
    def->ml_name = functions[i].name;
    def->ml_meth = (PyCFunction) (void (*)(void)) ember__call;
    def->ml_flags = METH_FASTCALL;
    def->ml_doc = functions[i].signature;
    PyObject *capsule = PyCapsule_New((void *) &functions[i], NULL, NULL);
    PyObject *fn = capsule ? PyCFunction_NewEx(def, capsule, NULL) : NULL;
    Py_XDECREF(capsule);
    if (!fn || PyDict_SetItemString(dict, functions[i].name, fn) < 0) {
      Py_XDECREF(fn);
      goto fail;
    }
    Py_DECREF(fn);
  }
  ok = 1;
fail:
  /* cffi cannot carry an exception out of this call: hand it to receive() instead. */
  if (!ok) {
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    Py_XDECREF(type);
    Py_XDECREF(traceback);
    Py_XSETREF(dict, value);
  }
  hook = PyImport_ImportModule("ember.utils.ffi._module");
  r = hook ? PyObject_CallMethod(hook, "receive", "sO", key, dict ? dict : Py_None) : NULL;
  if (!r) {
    PyErr_Print();
    ok = 0;
  }
  Py_XDECREF(r);
  Py_XDECREF(hook);
  Py_XDECREF(dict);
  PyGILState_Release(gil);
  return ok;
}

#endif /* EMBER_EMBER_C_MODULE_H */
