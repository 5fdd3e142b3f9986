"""ember.onnx: importable so scripts that mention it load; ember cannot export ONNX."""

__all__ = ['export', 'is_in_onnx_export']


def is_in_onnx_export():
    """False: no ONNX export is ever running."""
    return False


def export(model, args=(), f=None, *posargs, **kwargs):
    """Not supported: ember has no graph capture to build an ONNX graph from."""
    raise NotImplementedError('ember.onnx.export: ember runs models eagerly and has no graph '
                              'capture, so it cannot export ONNX; export with PyTorch from the '
                              "model's state_dict")
