//! Shared storage: a buffer may declare that it may use another buffer's storage.
//!
//! # The model
//!
//! Without shares, two buffers live at the same time never share an address. A kernel
//! that reads `x[i]` before it writes `out[i]` can write over its input when that input
//! dies where the output is born; a cache update's result can live inside its cache. A
//! [`Share`] declares such a pair, *buffer* over *target*, of one of two kinds:
//!
//! - **in place** ([`ShareKind::InPlace`]): `buffer` takes `target`'s storage where
//!   `target`'s lifetime ends and its own begins. With the half-open rule of
//!   [`crate::Lifetime`], an operator at step `t` that reads `x` for the last time and
//!   writes `out` gives `x = [.., t + 1)` and `out = [t, ..)`: they overlap in the one
//!   step `t`, and only there.
//!
//!   ```text
//!     time     0   1   2   3   4
//!     x        [===========)             x = [0, 3): last read at step 2
//!     out              [===========)     out = [2, 5): written at step 2
//!                      ^ the one step both are live: out over x is allowed
//!   ```
//!
//!   The rule: `target.start ≤ buffer.start` and `target.end ≤ buffer.start + 1`.
//!   A `target` still live after that step (an input read later) breaks it.
//! - **inside** ([`ShareKind::Inside`]): `buffer` lives inside `target`, at `offset`
//!   bytes from `target`'s start, whenever both are live: `offset + buffer.size ≤
//!   target.size`. No lifetime rule: a cache update's result lives inside its cache, a
//!   concat input inside the concat's output (which is then reserved from the input's
//!   birth).
//!
//! Either way, a share that is *taken* places `buffer` at exactly `target`'s offset plus
//! the share's `offset` (0 for in place, unless declared otherwise). Two buffers may
//! overlap in time and address only along a share declared between them (in either
//! direction), taken, and whose rule holds; a chain of in-place operators becomes one
//! storage.
//!
//! A share is **optional** by default: the planner takes it only where it lowers or
//! keeps the plan (concat in place can make a plan larger, because the output must be
//! reserved from its inputs' births). A **required** share is always taken; a problem
//! whose required shares cannot hold is refused.
//!
//! The independent checker ([`crate::check`]) implements these rules on its own.

use std::fmt;

#[cfg(feature = "shares")]
use crate::units::Lifetime;
use crate::units::Offset;

/// How a buffer shares another's storage. See the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShareKind {
    /// The buffer takes the target's storage where the target dies and it is born.
    InPlace,
    /// The buffer lives inside the target at the share's offset.
    Inside,
}

impl ShareKind {
    /// The name used by the file formats and the bindings: `in_place` or `inside`.
    pub const fn name(self) -> &'static str {
        match self {
            ShareKind::InPlace => "in_place",
            ShareKind::Inside => "inside",
        }
    }

    /// The kind named `name` (`in_place`, `inside`), if any.
    pub fn from_name(name: &str) -> Option<ShareKind> {
        match name {
            "in_place" => Some(ShareKind::InPlace),
            "inside" => Some(ShareKind::Inside),
            _ => None,
        }
    }
}

impl fmt::Display for ShareKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A declared share: `buffer` may use `target`'s storage, at `target`'s offset plus
/// `offset`. See the [module docs](self) for the rules.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Share {
    /// The buffer that uses the other's storage (the operator's output, the update).
    pub buffer: String,
    /// The buffer whose storage it uses (the input, the cache, the concat's output).
    pub target: String,
    /// In place or inside.
    pub kind: ShareKind,
    /// Where `buffer` starts, in bytes from `target`'s start (a multiple of `buffer`'s
    /// alignment).
    pub offset: Offset,
    /// Always taken, rather than only where it lowers or keeps the plan.
    pub required: bool,
}

impl Share {
    /// `buffer` in place of `target`, at the same offset, optional.
    pub fn in_place(buffer: impl Into<String>, target: impl Into<String>) -> Share {
        Share {
            buffer: buffer.into(),
            target: target.into(),
            kind: ShareKind::InPlace,
            offset: Offset(0),
            required: false,
        }
    }

    /// `buffer` inside `target`, `offset` bytes from its start, optional.
    pub fn inside(buffer: impl Into<String>, target: impl Into<String>, offset: u64) -> Share {
        Share {
            buffer: buffer.into(),
            target: target.into(),
            kind: ShareKind::Inside,
            offset: Offset(offset),
            required: false,
        }
    }

    /// Builder-style: the share must be taken.
    pub fn required(mut self) -> Share {
        self.required = true;
        self
    }

    /// Builder-style: set the offset.
    pub fn at(mut self, offset: u64) -> Share {
        self.offset = Offset(offset);
        self
    }
}

impl fmt::Display for Share {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = match self.kind {
            ShareKind::InPlace => "in place of",
            ShareKind::Inside => "inside",
        };
        write!(
            f,
            "'{}' {how} '{}'",
            crate::error::Escaped(&self.buffer),
            crate::error::Escaped(&self.target)
        )?;
        if self.offset.0 != 0 {
            write!(f, " at +{}", self.offset)?;
        }
        if self.required {
            f.write_str(" (required)")?;
        }
        Ok(())
    }
}

/// Why an in-place share's lifetime rule does not hold for `buffer` over `target`, if
/// it does not: `target` born after `buffer`, or still live after the step at which
/// `buffer` is born. Each is given as its id and lifetime. The one home of the rule:
/// the planners, the problem's validation and the bindings (a framework door asks it
/// before it declares a share) all call this.
#[cfg(feature = "shares")]
pub fn in_place_breach(
    (buffer, b): (&str, Lifetime),
    (target, t): (&str, Lifetime),
) -> Option<String> {
    if t.start > b.start {
        Some(format!(
            "'{}' is born at {}, after '{}' at {}",
            crate::error::Escaped(target),
            t.start,
            crate::error::Escaped(buffer),
            b.start
        ))
    } else if t.end.0 > b.start.0.saturating_add(1) {
        Some(format!(
            "'{}' is live until {}, past step {} at which '{}' is born (it is read later)",
            crate::error::Escaped(target),
            t.end,
            b.start,
            crate::error::Escaped(buffer)
        ))
    } else {
        None
    }
}
