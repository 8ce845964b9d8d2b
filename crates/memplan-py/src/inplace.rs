//! `_in_place_breach`: the library's in-place lifetime rule (`memplan::share`), for the
//! framework doors that declare shares (the ExecuTorch door asks it before it declares
//! one, rather than coding the rule again).

use pyo3::prelude::*;

use memplan::Lifetime;

/// ``_in_place_breach(buffer, target) -> Optional[str]``: why ``buffer`` (an
/// ``(id, start, end)``, half-open) may not take ``target``'s storage in place, or
/// ``None`` when the rule holds: ``target`` is born no later than ``buffer`` and dies by
/// the step after ``buffer``'s birth.
#[pyfunction]
pub fn _in_place_breach(buffer: (String, u64, u64), target: (String, u64, u64)) -> Option<String> {
    let (b, bs, be) = buffer;
    let (t, ts, te) = target;
    memplan::share::in_place_breach((&b, Lifetime::new(bs, be)), (&t, Lifetime::new(ts, te)))
}
