//! matchcond compiler layer.
