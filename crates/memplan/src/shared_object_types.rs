//! The data of shared-object planning, shared by the planner (`crate::shared_objects`)
//! and the independent checker (`crate::checker`), which import it and not each other.
//!
//! # The model
//!
//! A [`SharedAssignment`] maps every buffer to one *shared object* (`object_of[i]`, an
//! index below the number of objects) and gives each object a size. It is valid when no
//! two buffers of one object are live at the same time (whole lifetimes, half-open) and
//! each object is at least as large as every buffer it holds. Its cost is the *total*,
//! the sum of the object sizes.

use crate::types::Size;

/// An assignment of buffers to shared objects.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedAssignment {
    object_of: Vec<u32>,
    object_sizes: Vec<Size>,
}

impl SharedAssignment {
    /// An assignment from its parts: `object_of[i]` is the object of buffer `i`, and
    /// `object_sizes[o]` the size of object `o`. Nothing is checked here: use
    /// [`crate::shared_objects::check_shared_objects`].
    pub fn from_parts(object_of: Vec<u32>, object_sizes: Vec<Size>) -> SharedAssignment {
        SharedAssignment {
            object_of,
            object_sizes,
        }
    }

    /// The object of each buffer, indexed like the problem's buffers.
    pub fn object_of(&self) -> &[u32] {
        &self.object_of
    }

    /// The size of each object.
    pub fn object_sizes(&self) -> &[Size] {
        &self.object_sizes
    }

    /// The sum of the object sizes (saturating).
    pub fn total(&self) -> Size {
        saturating_sum(self.object_sizes.iter().copied())
    }
}

/// The sum of `sizes`, at most `u64::MAX`.
pub(crate) fn saturating_sum(sizes: impl Iterator<Item = Size>) -> Size {
    sizes.fold(Size::ZERO, Size::saturating_add)
}
