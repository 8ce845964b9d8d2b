//! Storages: buffers merged along the shares a plan takes, so that any planner can plan
//! a problem with shares as a problem without them.
//!
//! # The model
//!
//! Taking a [`crate::Share`] of `b` over `t` fixes `b`'s offset to `t`'s plus the share's
//! offset. The buffers joined this way form a *storage*: one rectangle that the planners
//! place, whose members sit at fixed offsets inside it (`rel`):
//!
//! ```text
//!   time       0   1   2   3   4   5
//!   x (8)      [=======)                 relu: y in place of x
//!   y (8)          [=======)             add:  z in place of y
//!   z (8)              [===========)
//!   storage    [===================)     size 8, lifetime [0, 5): one rectangle
//! ```
//!
//! A storage's lifetime runs from its first member's start to its last member's end,
//! with a gap wherever no member is live; its size reaches the highest member's end; its
//! alignment is the least common multiple of its members'; it is fixed when a member is.
//!
//! The joins are `Groups`, in `crate::types::joins`, where the rules of
//! `Problem::with_shares` take the required shares too. Invariants kept by every join:
//! each member's `rel` is a multiple of its alignment; two members live together whose
//! addresses overlap have a share declared between them whose rule holds at their
//! `rel`s (so the expanded plan passes the checker whenever the storages' plan does);
//! fixed members agree on the storage's offset; the members' memory masks (several
//! memories) have a common memory.

#[cfg(feature = "shares")]
mod bound;
#[cfg(feature = "shares")]
mod build;
#[cfg(feature = "shares")]
mod choose;

#[cfg(feature = "shares")]
pub(crate) use {
    bound::shared_max_load,
    build::{build, Storages},
};
