//! Reading and writing problems and plans.

pub(crate) mod csv;
