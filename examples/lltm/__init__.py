"""The LLTM example: a C++ extension (lltm.cpp) with its Python side (lltm.py)."""
