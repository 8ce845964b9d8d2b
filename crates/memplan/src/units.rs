//! The units' arithmetic and order: sizes add up, an address plus a size is an address,
//! two addresses are a size apart, a time plus a number of steps is a time; and the
//! canonical orders' placement [`Key`].
//!
//! Arithmetic is plain `u64` arithmetic (planners stay below
//! [`crate::Problem`]'s naive height, see [`crate::types`]): it overflows where `u64`
//! would, and the saturating forms saturate where `u64`'s do. Comparisons are the
//! integers' own, one instruction each ([`raw_order!`]): the planners' hot loops compare
//! these values all the time.

use crate::types::{align_up, Offset, Size, Time};

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

    #[inline]
    const fn raw(self) -> (u64, u32) {
        (self.offset.0, self.rank)
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
