//! Reading and writing problems and plans.

pub(crate) mod csv;
#[cfg(feature = "json")]
pub(crate) mod json;
