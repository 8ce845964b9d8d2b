//! The units' arithmetic and order: sizes add up, an address plus a size is an address,
//! two addresses are a size apart, a time plus a number of steps is a time; and the
//! canonical orders' placement [`Key`].
//!
//! Arithmetic is plain `u64` arithmetic (planners stay below
//! [`crate::Problem`]'s naive height, see [`crate::types`]): it overflows where `u64`
//! would, and the saturating forms saturate where `u64`'s do. Comparisons are the
//! integers' own, one instruction each ([`raw_order!`]): the planners' hot loops compare
//! these values all the time.
//!
//! # The half-open rule
//!
//! Every time interval in memplan is **half-open**: a [`Lifetime`] `[start, end)`
//! contains `start` and excludes `end`. A buffer that ends at `t` and one that starts
//! at `t` are never live together, so they may share addresses:
//!
//! ```text
//!   time   0   1   2   3   4
//!   a      [=======)             a = [0, 2)
//!   b              [=======)     b = [2, 4)   a and b do not overlap
//!   c          [=======)         c = [1, 3)   c overlaps both
//! ```
//!
//! The same rule holds for address ranges: a buffer at offset `o` with size `s`
//! occupies `[o, o + s)`. Readers for files that use inclusive ends convert at the
//! border (see [`crate::io::LifetimeConvention`]); nothing inside the library does.
//!

use std::fmt;

macro_rules! newtype {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name(pub u64);

        crate::units::raw_order!($name);

        impl $name {
            /// The raw value.
            #[inline]
            pub const fn get(self) -> u64 {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl From<u64> for $name {
            fn from(v: u64) -> Self {
                Self(v)
            }
        }

        impl From<$name> for u64 {
            fn from(v: $name) -> u64 {
                v.0
            }
        }
    };
}

newtype!(
    /// A number of bytes (a buffer size, an alignment, a height or a capacity).
    Size
);
newtype!(
    /// A byte address relative to the start of the planned arena.
    Offset
);
newtype!(
    /// A point in (logical) time, e.g. an operator index in execution order.
    Time
);

/// The position of a buffer in [`crate::Problem::buffers`]; plans are indexed the same way.
/// Slices and vectors indexed by buffer take it as an index directly (`offsets[i]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BufferIdx(pub u32);

crate::units::raw_order!(BufferIdx);

impl BufferIdx {
    /// The index as a `usize`, for slicing.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The buffer at position `i` (a problem holds at most `u32::MAX` buffers).
    #[inline]
    pub(crate) const fn new(i: usize) -> BufferIdx {
        BufferIdx(i as u32)
    }
}

crate::units::index_slices!(BufferIdx);

impl fmt::Display for BufferIdx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// A half-open time interval `[start, end)`: it contains `start` and excludes `end`, so a
/// buffer ending at `t` and one starting at `t` are never live together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lifetime {
    /// First time step at which the interval is live.
    pub start: Time,
    /// First time step at which it is no longer live.
    pub end: Time,
}

impl Lifetime {
    /// `[start, end)`.
    pub const fn new(start: u64, end: u64) -> Self {
        Lifetime {
            start: Time(start),
            end: Time(end),
        }
    }

    /// Number of time steps covered, `end − start` (0 when empty or inverted).
    #[inline]
    pub fn len(&self) -> u64 {
        self.end.0.saturating_sub(self.start.0)
    }

    /// True when no time step is covered.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    /// True when the two intervals share at least one time step.
    #[inline]
    pub fn overlaps(&self, other: &Lifetime) -> bool {
        self.start < other.end && other.start < self.end
    }

    /// True when `other` lies entirely inside `self`.
    #[inline]
    pub fn contains(&self, other: &Lifetime) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

impl fmt::Display for Lifetime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {})", self.start, self.end)
    }
}

/// Rounds `value` up to a multiple of `alignment` (non-zero). Callers stay below
/// [`Problem::naive_height`], so this does not overflow.
#[inline]
pub(crate) fn align_up(value: u64, alignment: u64) -> u64 {
    if alignment <= 1 {
        value
    } else {
        value.div_ceil(alignment) * alignment
    }
}

/// Lets `$idx`, a newtype over `u32` with a `const fn index(self) -> usize`, index
/// `[T]` and `Vec<T>` (both: a vector's own `Index` impl would shadow the slice's).
macro_rules! index_slices {
    ($idx:ty) => {
        impl<T> std::ops::Index<$idx> for [T] {
            type Output = T;
            #[inline]
            fn index(&self, i: $idx) -> &T {
                &self[i.index()]
            }
        }
        impl<T> std::ops::IndexMut<$idx> for [T] {
            #[inline]
            fn index_mut(&mut self, i: $idx) -> &mut T {
                &mut self[i.index()]
            }
        }
        impl<T> std::ops::Index<$idx> for Vec<T> {
            type Output = T;
            #[inline]
            fn index(&self, i: $idx) -> &T {
                &self[i.index()]
            }
        }
        impl<T> std::ops::IndexMut<$idx> for Vec<T> {
            #[inline]
            fn index_mut(&mut self, i: $idx) -> &mut T {
                &mut self[i.index()]
            }
        }
    };
}
pub(crate) use index_slices;

/// Declares `$name`, a family's own index: a newtype over `u32` that compares as its
/// integer ([`crate::units::raw_order!`]), gives its `usize` for slicing, and indexes
/// slices and vectors directly ([`index_slices!`]).
#[cfg(feature = "shared_objects")]
macro_rules! index_type {
    ($(#[$doc:meta])* $vis:vis $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis struct $name($vis u32);

        crate::units::raw_order!($name);

        impl $name {
            /// The index as a `usize`, for slicing.
            #[inline]
            $vis const fn index(self) -> usize {
                self.0 as usize
            }
        }

        crate::units::index_slices!($name);
    };
}
#[cfg(feature = "shared_objects")]
pub(crate) use index_type;

/// The four comparisons of a `PartialOrd<$other>` impl, as those of the raw values
/// `$x` (of `self`, named `$a`) and `$y` (of `other`, named `$b`).
macro_rules! raw_comparisons {
    ($other:ty, |$a:ident, $b:ident| ($x:expr, $y:expr)) => {
        #[inline]
        fn lt(&self, other: &$other) -> bool {
            let ($a, $b) = (self, other);
            $x < $y
        }
        #[inline]
        fn le(&self, other: &$other) -> bool {
            let ($a, $b) = (self, other);
            $x <= $y
        }
        #[inline]
        fn gt(&self, other: &$other) -> bool {
            let ($a, $b) = (self, other);
            $x > $y
        }
        #[inline]
        fn ge(&self, other: &$other) -> bool {
            let ($a, $b) = (self, other);
            $x >= $y
        }
    };
}

/// The order of a newtype over an integer: the integer's own, each comparison one
/// instruction as on the integer (the derived order goes through `partial_cmp`, which
/// the planners' hot loops measurably paid for).
macro_rules! raw_order {
    ($name:ty) => {
        impl PartialOrd for $name {
            #[inline]
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
            crate::units::raw_comparisons!(Self, |a, b| (a.0, b.0));
        }

        impl Ord for $name {
            #[inline]
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                self.0.cmp(&other.0)
            }
            #[inline]
            fn max(self, other: Self) -> Self {
                Self(self.0.max(other.0))
            }
            #[inline]
            fn min(self, other: Self) -> Self {
                Self(self.0.min(other.0))
            }
        }
    };
}
pub(crate) use {raw_comparisons, raw_order};

impl Size {
    /// No bytes.
    pub(crate) const ZERO: Size = Size(0);

    /// The address `self` bytes above the arena's start (e.g. a capacity as the first
    /// address a plan may not use).
    #[inline]
    pub(crate) const fn as_offset(self) -> Offset {
        Offset(self.0)
    }
}

impl Offset {
    /// The arena's start.
    pub(crate) const ZERO: Offset = Offset(0);

    /// The first multiple of `alignment` (non-zero) at or above `self`. Callers stay below
    /// the problem's naive height, so this does not overflow.
    #[inline]
    pub(crate) fn align_up(self, alignment: Size) -> Offset {
        Offset(align_up(self.0, alignment.0))
    }

    /// [`Offset::align_up`], at most `u64::MAX` (rounded down to the alignment there).
    #[inline]
    pub(crate) fn align_up_saturating(self, alignment: Size) -> Offset {
        if alignment.0 <= 1 {
            return self;
        }
        match self.0 % alignment.0 {
            0 => self,
            r => Offset(self.0.saturating_add(alignment.0 - r)),
        }
    }

    /// [`Offset::align_up`], or `None` when that overflows.
    #[cfg(feature = "memories")]
    #[inline]
    pub(crate) const fn checked_align_up(self, alignment: Size) -> Option<Offset> {
        match self.0.checked_next_multiple_of(alignment.0) {
            Some(up) => Some(Offset(up)),
            None => None,
        }
    }

    /// The bytes from `base` up to `self`; 0 when `self` is not above `base`.
    #[inline]
    pub(crate) const fn saturating_distance_from(self, base: Offset) -> Size {
        Size(self.0.saturating_sub(base.0))
    }

    /// `self + size`, or `None` on overflow.
    #[inline]
    pub(crate) const fn checked_add(self, size: Size) -> Option<Offset> {
        match self.0.checked_add(size.0) {
            Some(end) => Some(Offset(end)),
            None => None,
        }
    }

    /// Whether `self` is a multiple of `alignment` (never for an alignment of 0).
    #[inline]
    pub(crate) const fn is_aligned_to(self, alignment: Size) -> bool {
        matches!(self.0.checked_rem(alignment.0), Some(0))
    }

    /// The height of a plan whose highest address ends here.
    #[inline]
    pub(crate) const fn as_height(self) -> Size {
        Size(self.0)
    }
}

impl Time {
    /// `self − steps`, at least 0.
    #[inline]
    pub(crate) const fn saturating_sub(self, steps: u64) -> Time {
        Time(self.0.saturating_sub(steps))
    }

    /// `self + steps`, at most `u64::MAX`.
    #[inline]
    pub(crate) const fn saturating_add(self, steps: u64) -> Time {
        Time(self.0.saturating_add(steps))
    }
}

/// `$a $op $b = $out` through the operator traits, and the saturating form `$sat`
/// (at least 0, at most `u64::MAX`).
macro_rules! arithmetic {
    ($($a:ident $op:tt $b:ident = $out:ident, $tr:ident $f:ident $tra:ident $fa:ident $sat:ident;)*) => {$(
        impl $a {
            #[doc = concat!("`self ", stringify!($op), " other`, saturating at the bounds of `u64`.")]
            #[inline]
            pub(crate) const fn $sat(self, other: $b) -> $out {
                $out(self.0.$sat(other.0))
            }
        }
        impl std::ops::$tr<$b> for $a {
            type Output = $out;
            #[inline]
            fn $f(self, other: $b) -> $out {
                $out(self.0 $op other.0)
            }
        }
        impl std::ops::$tra<$b> for $a {
            #[inline]
            fn $fa(&mut self, other: $b) {
                self.0 = self.0 $op other.0;
            }
        }
    )*};
}

arithmetic! {
    Size + Size = Size, Add add AddAssign add_assign saturating_add;
    Size - Size = Size, Sub sub SubAssign sub_assign saturating_sub;
    Offset + Size = Offset, Add add AddAssign add_assign saturating_add;
    Offset - Size = Offset, Sub sub SubAssign sub_assign saturating_sub;
}

/// The distance between two addresses (`self` at or above `other`).
impl std::ops::Sub for Offset {
    type Output = Size;
    #[inline]
    fn sub(self, other: Offset) -> Size {
        Size(self.0 - other.0)
    }
}

/// A time `steps` later.
impl std::ops::Add<u64> for Time {
    type Output = Time;
    #[inline]
    fn add(self, steps: u64) -> Time {
        Time(self.0 + steps)
    }
}

/// The number of steps from `other` to `self` (`self` at or after `other`).
impl std::ops::Sub for Time {
    type Output = u64;
    #[inline]
    fn sub(self, other: Time) -> u64 {
        self.0 - other.0
    }
}

impl std::iter::Sum for Size {
    fn sum<I: Iterator<Item = Size>>(iter: I) -> Size {
        Size(iter.map(|s| s.0).sum())
    }
}

/// A share of a size (`size / k`, rounded down).
impl std::ops::Div<u64> for Size {
    type Output = Size;
    #[inline]
    fn div(self, k: u64) -> Size {
        Size(self.0 / k)
    }
}

/// Sizes scale by counts (`k` rows of `size` bytes).
impl std::ops::Mul<u64> for Size {
    type Output = Size;
    #[inline]
    fn mul(self, k: u64) -> Size {
        Size(self.0 * k)
    }
}

/// An address compares with a size as the address that many bytes above the arena's
/// start: `offset + size > capacity` reads as it should.
impl PartialEq<Size> for Offset {
    #[inline]
    fn eq(&self, other: &Size) -> bool {
        self.0 == other.0
    }
}

impl PartialOrd<Size> for Offset {
    #[inline]
    fn partial_cmp(&self, other: &Size) -> Option<std::cmp::Ordering> {
        Some(self.0.cmp(&other.0))
    }
    raw_comparisons!(Size, |a, b| (a.0, b.0));
}

/// A placement's key in a canonical order (MiniMalloc §5): its offset, then its rank in a
/// static order of the buffers. Compared as a pair of integers: a tuple of newtypes
/// compares element by element through `partial_cmp`, which the searches' hot loops
/// measurably paid for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    pub(crate) offset: Offset,
    pub(crate) rank: u32,
}

impl Key {
    /// The key of a placement at `offset` of the buffer of rank `rank`.
    #[inline]
    pub(crate) const fn new(offset: Offset, rank: u32) -> Key {
        Key { offset, rank }
    }

    /// The pair as one integer, offset above rank: one comparison, no branch.
    #[inline]
    const fn raw(self) -> u128 {
        ((self.offset.0 as u128) << 32) | self.rank as u128
    }
}

impl PartialOrd for Key {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
    raw_comparisons!(Self, |a, b| (a.raw(), b.raw()));
}

impl Ord for Key {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.raw().cmp(&other.raw())
    }
}
