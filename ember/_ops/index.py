"""Indexing: __getitem__/__setitem__, index_select, gather, scatter, masked ops, nonzero.
(placeholder: filled in by the indexing work)"""
