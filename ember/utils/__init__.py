"""ember.utils: data loading (``ember.utils.data``) and C++ extensions
(``ember.utils.cpp_extension``), each imported on first use."""
