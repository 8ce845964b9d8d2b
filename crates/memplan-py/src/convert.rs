//! Conversions from Python values to the library's model: ids (str or int), buffer
//! dicts and tuples, lifetime conventions, reading options.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyTuple};

use memplan::io::{LifetimeConvention, ReadOptions};
use memplan::{Buffer, Offset, Size};

use crate::InputError;

/// The id of a buffer as Python sees it: an int when the problem's ids were ints.
pub(crate) fn py_id(py: Python<'_>, id: &str, int_ids: bool) -> PyResult<Py<PyAny>> {
    if int_ids {
        if let Ok(v) = id.parse::<i128>() {
            return Ok(v.into_pyobject(py)?.into_any().unbind());
        }
    }
    Ok(id.into_pyobject(py)?.into_any().unbind())
}

/// Every id of `ids` as Python gave it (see [`py_id`]), in order.
pub(crate) fn py_ids(py: Python<'_>, ids: &[String], int_ids: bool) -> PyResult<Vec<Py<PyAny>>> {
    ids.iter().map(|id| py_id(py, id, int_ids)).collect()
}

/// An id given as a str or an int; `Some(true)` for an int.
pub(crate) fn id_from(obj: &Bound<'_, PyAny>, k: usize) -> PyResult<(String, bool)> {
    if let Ok(s) = obj.extract::<String>() {
        return Ok((s, false));
    }
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "buffer #{k}: 'id' must be a str or an int"
        )));
    }
    if let Ok(v) = obj.extract::<i128>() {
        return Ok((v.to_string(), true));
    }
    Err(PyTypeError::new_err(format!(
        "buffer #{k}: 'id' must be a str or an int, got {}",
        obj.repr()?
    )))
}

/// How lifetimes are written: `"half-open"` `[start, end)` or `"inclusive"` `[first, last]`.
pub(crate) fn convention(lifetimes: Option<&str>) -> PyResult<Option<LifetimeConvention>> {
    match lifetimes {
        None => Ok(None),
        Some("half-open") => Ok(Some(LifetimeConvention::HalfOpen)),
        Some("inclusive") => Ok(Some(LifetimeConvention::Inclusive)),
        Some(other) => Err(PyValueError::new_err(format!(
            "lifetimes must be 'half-open' or 'inclusive', got '{other}'"
        ))),
    }
}

/// The end of a lifetime or gap as memplan reads it (half-open).
pub(crate) fn half_open_end(
    end: u64,
    lifetimes: Option<LifetimeConvention>,
    k: usize,
) -> PyResult<u64> {
    match lifetimes {
        Some(LifetimeConvention::Inclusive) => end.checked_add(1).ok_or_else(|| {
            InputError::new_err(format!(
                "buffer #{k}: an inclusive end of 2**64-1 has no successor"
            ))
        }),
        _ => Ok(end),
    }
}

/// Buffers read with `lifetimes` made half-open, as the library wants them.
pub(crate) fn to_half_open(
    mut bufs: Vec<Buffer>,
    lifetimes: Option<LifetimeConvention>,
) -> PyResult<Vec<Buffer>> {
    if lifetimes == Some(LifetimeConvention::Inclusive) {
        for (k, b) in bufs.iter_mut().enumerate() {
            let end = half_open_end(b.lifetime.end.get(), lifetimes, k)?;
            b.lifetime = memplan::Lifetime::new(b.lifetime.start.get(), end);
            for g in b.gaps.iter_mut() {
                *g = memplan::Lifetime::new(
                    g.start.get(),
                    half_open_end(g.end.get(), lifetimes, k)?,
                );
            }
        }
    }
    Ok(bufs)
}

pub(crate) fn input_error(e: impl std::fmt::Display) -> PyErr {
    InputError::new_err(e.to_string())
}

/// A field of a buffer dict; `None` when absent or `None`.
pub(crate) fn field<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(d.get_item(key)?.filter(|v| !v.is_none()))
}

/// A buffer's number (`what` names it: `buffer #2: 'size'`). An int out of range
/// (negative, or 2**64 and above) is a bad value, `InputError` (a `ValueError`); anything
/// else that is not an int is a `TypeError`.
pub(crate) fn to_u64(v: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    if let Ok(x) = v.extract::<u64>() {
        return Ok(x);
    }
    let shown = v.repr().map_or_else(|_| "?".to_string(), |r| r.to_string());
    if v.is_instance_of::<PyInt>() {
        return Err(InputError::new_err(format!(
            "{what} must be a non-negative int below 2**64, got {shown}"
        )));
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be a non-negative int below 2**64, got {shown}"
    )))
}

pub(crate) fn get_u64(d: &Bound<'_, PyDict>, key: &str, k: usize) -> PyResult<Option<u64>> {
    field(d, key)?
        .map(|v| to_u64(&v, &format!("buffer #{k}: '{key}'")))
        .transpose()
}

/// A buffer from a dict (`id`, `start`, `end`, `size`, and optional `alignment`,
/// `fixed_offset`, `gaps`) or a tuple `(id, start, end, size[, alignment])`.
pub(crate) fn buffer_from(obj: &Bound<'_, PyAny>, k: usize) -> PyResult<(Buffer, bool)> {
    if let Ok(d) = obj.cast::<PyDict>() {
        const KNOWN: [&str; 7] = [
            "id",
            "start",
            "end",
            "size",
            "alignment",
            "fixed_offset",
            "gaps",
        ];
        for key in d.keys() {
            let key: String = key.extract()?;
            if !KNOWN.contains(&key.as_str()) {
                return Err(InputError::new_err(format!(
                    "buffer #{k}: unknown field '{key}' (expected {})",
                    KNOWN.join(", ")
                )));
            }
        }
        let need = |key: &str| -> PyResult<u64> {
            get_u64(d, key, k)?
                .ok_or_else(|| InputError::new_err(format!("buffer #{k}: missing '{key}'")))
        };
        let (id, int_id) = id_from(
            &field(d, "id")?
                .ok_or_else(|| InputError::new_err(format!("buffer #{k}: missing 'id'")))?,
            k,
        )?;
        let mut b = Buffer::new(id, need("start")?, need("end")?, need("size")?);
        if let Some(a) = get_u64(d, "alignment", k)? {
            b.alignment = Size(a);
        }
        b.fixed_offset = get_u64(d, "fixed_offset", k)?.map(Offset);
        if let Some(gaps) = field(d, "gaps")? {
            let gaps: Vec<(u64, u64)> = gaps.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "buffer #{k}: 'gaps' must be a list of (start, end) pairs"
                ))
            })?;
            b.gaps = gaps
                .into_iter()
                .map(|(s, e)| memplan::Lifetime::new(s, e))
                .collect();
        }
        return Ok((b, int_id));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        if t.len() == 4 || t.len() == 5 {
            let (id, int_id) = id_from(&t.get_item(0)?, k)?;
            let names = ["start", "end", "size", "alignment"];
            let mut v = [0u64; 4];
            for (j, name) in names.iter().enumerate().take(t.len() - 1) {
                v[j] = to_u64(&t.get_item(j + 1)?, &format!("buffer #{k}: '{name}'"))?;
            }
            let b = Buffer::new(id, v[0], v[1], v[2]);
            let b = if t.len() == 5 {
                b.with_alignment(v[3])
            } else {
                b
            };
            return Ok((b, int_id));
        }
    }
    Err(PyTypeError::new_err(format!(
        "buffer #{k}: expected a dict with id, start, end, size or a tuple (id, start, end, size[, alignment]) of non-negative ints, got {}",
        obj.repr()?
    )))
}

pub(crate) fn csv_options(lifetimes: Option<&str>) -> PyResult<ReadOptions> {
    Ok(ReadOptions {
        lifetimes: convention(lifetimes)?,
        default_alignment: None,
    })
}

/// The bytes of the file at `path`, or the `OSError` subclass Python raises for its
/// fault (`FileNotFoundError`, `PermissionError`, ...), naming the file.
pub(crate) fn read_file(path: &str) -> PyResult<Vec<u8>> {
    use pyo3::exceptions::{
        PyFileNotFoundError, PyIsADirectoryError, PyOSError, PyPermissionError,
    };
    use std::io::ErrorKind;
    std::fs::read(path).map_err(|e| {
        let text = e.to_string();
        let reason = text
            .split(" (os error")
            .next()
            .unwrap_or_default()
            .to_string();
        let args = (e.raw_os_error().unwrap_or(0), reason, path.to_string());
        match e.kind() {
            ErrorKind::NotFound => PyFileNotFoundError::new_err(args),
            ErrorKind::PermissionDenied => PyPermissionError::new_err(args),
            ErrorKind::IsADirectory => PyIsADirectoryError::new_err(args),
            _ => PyOSError::new_err(args),
        }
    })
}

/// A share from a tuple `(buffer, target[, kind[, offset[, required]]])` or a dict with
/// those keys (`buffer`, `target`, `kind`, `offset`, `required`).
pub(crate) fn share_from(obj: &Bound<'_, PyAny>, k: usize) -> PyResult<memplan::Share> {
    let what = |f: &str| format!("share #{k}: '{f}'");
    let parts: Vec<Option<Bound<'_, PyAny>>> = if let Ok(d) = obj.cast::<PyDict>() {
        const KNOWN: [&str; 5] = ["buffer", "target", "kind", "offset", "required"];
        for key in d.keys() {
            let key: String = key.extract()?;
            if !KNOWN.contains(&key.as_str()) {
                return Err(InputError::new_err(format!(
                    "share #{k}: unknown field '{key}' (expected {})",
                    KNOWN.join(", ")
                )));
            }
        }
        KNOWN
            .iter()
            .map(|key| field(d, key))
            .collect::<PyResult<_>>()?
    } else if let Some(t) = obj
        .cast::<PyTuple>()
        .ok()
        .filter(|t| (2..=5).contains(&t.len()))
    {
        (0..5)
            .map(|j| (j < t.len()).then(|| t.get_item(j)).transpose())
            .collect::<PyResult<_>>()?
    } else {
        return Err(PyTypeError::new_err(format!(
            "share #{k}: expected a tuple (buffer, target[, kind[, offset[, required]]]) or a dict, got {}",
            obj.repr()?
        )));
    };
    let id = |j: usize, name: &str| -> PyResult<String> {
        let v = parts[j]
            .as_ref()
            .ok_or_else(|| InputError::new_err(format!("share #{k}: missing '{name}'")))?;
        Ok(id_from(v, k)
            .map_err(|_| PyTypeError::new_err(format!("{} must be a str or an int", what(name))))?
            .0)
    };
    let mut share = memplan::Share::in_place(id(0, "buffer")?, id(1, "target")?);
    if let Some(kind) = &parts[2] {
        let name: String = kind
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("{} must be a str", what("kind"))))?;
        share.kind = memplan::ShareKind::from_name(&name).ok_or_else(|| {
            InputError::new_err(format!(
                "{} must be \"in_place\" or \"inside\", got {name:?}",
                what("kind")
            ))
        })?;
    }
    if let Some(offset) = &parts[3] {
        share.offset = Offset(to_u64(offset, &what("offset"))?);
    }
    if let Some(required) = &parts[4] {
        share.required = required
            .extract::<bool>()
            .map_err(|_| PyTypeError::new_err(format!("{} must be a bool", what("required"))))?;
    }
    Ok(share)
}
