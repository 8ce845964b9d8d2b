//! Two memory levels: choosing which buffers to spill to slow memory when the fast one
//! is too small, with a proven lower bound on the cost. (Work in progress: see the
//! module's own files.)
