//! What the commands share: reading problems and plans, writing outputs, numbers for
//! people, progress and Ctrl-C.
//!
//! - [`files`]: whole files in and out (`-` for stdin and stdout), and failures that name
//!   the file;
//! - [`formats`]: CSV and JSON problems and plans;
//! - [`columns`]: the columns of files that memplan's problem does not hold, and rows
//!   matched to buffers by id (for the spill and the memories forms);
//! - [`memories`]: several memories in files: the memories, allowed sets, plans;
//! - [`spill`]: the two-memory form: the spill data of a problem, a spill plan as a plan
//!   across memories, its check in spill's words;
//! - [`numbers`]: `1,234,816`, `12.50%`, `3.2 ms`;
//! - [`progress`]: the progress bar and Ctrl-C.
//!
//! These modules sit below the commands: they import [`crate::exit`], the flag types of
//! [`crate::flags::input`] and each other, and never a command (`crate::cmd`).

pub mod columns;
pub mod files;
pub mod formats;
pub mod memories;
pub mod numbers;
pub mod progress;
pub mod spill;
