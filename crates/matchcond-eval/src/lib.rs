//! matchcond eval layer.
