//! What the commands share: reading problems and plans, writing outputs, numbers for
//! people, progress and Ctrl-C.
//!
//! - [`files`]: whole files in and out (`-` for stdin and stdout), and failures that name
//!   the file;
//! - [`formats`]: CSV and JSON problems and plans;
//! - [`memories`]: several memories (spill their two-memory case): which memories a
//!   command works across, the problem and plans across them, their figures;
//! - [`numbers`]: `1,234,816`, `12.50%`, `3.2 ms`;
//! - [`progress`]: the progress bar and Ctrl-C.
//!
//! These modules sit below the commands: they import [`crate::exit`], the flag types of
//! [`crate::flags::input`] and each other, and never a command (`crate::cmd`).

pub mod files;
pub mod formats;
pub mod memories;
pub mod numbers;
pub mod progress;
