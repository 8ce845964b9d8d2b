//! Columns of integers from Python: `Problem.from_arrays`'s inputs.
//!
//! An object that exposes the buffer protocol (a numpy array, `array.array`, `bytes`-like)
//! is read through `memoryview` in one copy, whatever its integer type, with no numpy
//! needed; anything else must be a sequence of ints. Negative values and non-integer
//! element types are rejected with the column's name and the index of the bad value.

use crate::InputError;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The element types of the buffer protocol that hold integers, as (format code, signed).
fn integer_format(format: &str) -> Option<bool> {
    // A leading byte-order or size mark ('@', '=', '<', '>', '!') says native or standard
    // sizes; the item size, read separately, settles the width.
    let code = format.trim_start_matches(['@', '=', '<', '>', '!']);
    match code {
        "b" | "h" | "i" | "l" | "q" | "n" => Some(true),
        "B" | "H" | "I" | "L" | "Q" | "N" => Some(false),
        _ => None,
    }
}

/// Decodes native-endian integers of `itemsize` bytes.
fn decode(bytes: &[u8], itemsize: usize, signed: bool, name: &str) -> PyResult<Vec<u64>> {
    let mut out = Vec::with_capacity(bytes.len() / itemsize.max(1));
    for (k, chunk) in bytes.chunks_exact(itemsize).enumerate() {
        let value: i128 = match (itemsize, signed) {
            (1, true) => i8::from_ne_bytes([chunk[0]]) as i128,
            (1, false) => chunk[0] as i128,
            (2, true) => i16::from_ne_bytes(chunk.try_into().unwrap()) as i128,
            (2, false) => u16::from_ne_bytes(chunk.try_into().unwrap()) as i128,
            (4, true) => i32::from_ne_bytes(chunk.try_into().unwrap()) as i128,
            (4, false) => u32::from_ne_bytes(chunk.try_into().unwrap()) as i128,
            (8, true) => i64::from_ne_bytes(chunk.try_into().unwrap()) as i128,
            (8, false) => u64::from_ne_bytes(chunk.try_into().unwrap()) as i128,
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "{name}: integers of {itemsize} bytes are not supported"
                )))
            }
        };
        if value < 0 {
            return Err(InputError::new_err(format!(
                "{name}[{k}]: must be a non-negative int, got {value}"
            )));
        }
        out.push(value as u64);
    }
    Ok(out)
}

/// A column of non-negative integers from a buffer-protocol object or a sequence.
pub fn column(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<u64>> {
    let py = obj.py();
    if let Ok(view) = py.import("builtins")?.getattr("memoryview")?.call1((obj,)) {
        let format: String = view.getattr("format")?.extract()?;
        let ndim: usize = view.getattr("ndim")?.extract()?;
        if ndim > 1 {
            return Err(InputError::new_err(format!(
                "{name}: expected one dimension, got {ndim}"
            )));
        }
        let Some(signed) = integer_format(&format) else {
            return Err(PyTypeError::new_err(format!(
                "{name}: expected integers, got elements of format '{format}'"
            )));
        };
        let itemsize: usize = view.getattr("itemsize")?.extract()?;
        // `tobytes` gives the elements in logical order, even for a strided view.
        let bytes = view.call_method0("tobytes")?;
        let bytes = bytes.cast::<PyBytes>()?;
        return decode(bytes.as_bytes(), itemsize, signed, name);
    }
    let seq = obj.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name}: expected a sequence of ints or an integer array, got {}",
            obj.get_type().name().map_or("?".into(), |n| n.to_string())
        ))
    })?;
    let mut out = Vec::new();
    for (k, item) in seq.enumerate() {
        let item = item?;
        out.push(item.extract::<u64>().map_err(|_| {
            InputError::new_err(format!(
                "{name}[{k}]: must be a non-negative int below 2**64, got {}",
                item.repr().map_or("?".into(), |r| r.to_string())
            ))
        })?);
    }
    Ok(out)
}
