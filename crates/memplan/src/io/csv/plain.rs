//! The plan writer's path for *plain* CSV: no quote and no carriage return anywhere, and
//! every data line with the header's number of fields.
//!
//! On such text the CSV reader's records are the lines that are not empty, and their
//! fields are the bytes between commas, verbatim; the CSV writer (quoting only the fields
//! that hold a comma, a quote or a line end) writes each field back as it is, one record
//! a line, `\n` ended. So the plan is the header record, then each data line with the
//! offset put in (in place of the `offset` field, or after the last field), byte for byte
//! what [`super::write_plan_csv`]'s records give, without a record per row. Any other
//! text (quoted fields, CRLF, a row of another length, a plan of another length) takes
//! the records' path, which also reports the errors.

use std::io::Write;

use crate::types::Offset;

/// Where the data lines start when `input` (without its BOM) is plain with `fields`
/// fields a line and exactly `rows` data lines; `None` otherwise. The header is the
/// first line that is not empty.
pub(super) fn plain_data(input: &[u8], fields: usize, rows: usize) -> Option<usize> {
    let mut header_end = None;
    let mut data_lines = 0usize;
    let mut commas = 0usize;
    let mut line_len = 0usize;
    for (k, &c) in input.iter().enumerate() {
        match c {
            b'"' | b'\r' => return None,
            b',' => commas += 1,
            b'\n' => {
                if line_len > 0 {
                    if commas + 1 != fields {
                        return None;
                    }
                    match header_end {
                        None => header_end = Some(k + 1),
                        Some(_) => data_lines += 1,
                    }
                }
                (commas, line_len) = (0, 0);
                continue;
            }
            _ => {}
        }
        line_len += 1;
    }
    if line_len > 0 {
        if commas + 1 != fields {
            return None;
        }
        match header_end {
            None => header_end = Some(input.len()),
            Some(_) => data_lines += 1,
        }
    }
    let start = header_end?;
    (data_lines == rows).then_some(start)
}

/// Writes the data lines `data` (of plain CSV, checked by [`plain_data`]) with the
/// offsets: in place of field `offset_field`, or appended.
pub(super) fn write_plain_rows(
    data: &[u8],
    offset_field: Option<usize>,
    offsets: &[Offset],
    mut out: impl Write,
) -> std::io::Result<()> {
    const CHUNK: usize = 1 << 16;
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + 256);
    let mut digits = [0u8; 20];
    let mut offsets = offsets.iter();
    for line in data.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
        let off = offsets.next().expect("plain_data counted the rows");
        let text = super::fmt_u64(&mut digits, off.0);
        match offset_field {
            None => {
                buf.extend_from_slice(line);
                buf.push(b',');
                buf.extend_from_slice(text);
            }
            Some(k) => {
                for (j, field) in line.split(|&c| c == b',').enumerate() {
                    if j > 0 {
                        buf.push(b',');
                    }
                    buf.extend_from_slice(if j == k { text } else { field });
                }
            }
        }
        buf.push(b'\n');
        if buf.len() >= CHUNK {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)
}

/// Where the header line of plain `text` (no quote, no carriage return) ends; `None`
/// when the text is not plain.
fn plain_header(text: &[u8]) -> Option<usize> {
    // `contains` on bytes is memchr's word-at-a-time scan: a fraction of an instruction
    // a byte, where a loop testing each byte for both takes several.
    if text.contains(&b'"') || text.contains(&b'\r') {
        return None;
    }
    let k = text.iter().position(|&c| c != b'\n').unwrap_or(text.len());
    Some(
        text[k..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(text.len(), |p| k + p + 1),
    )
}

/// The data rows of a CSV text whose header the reader `rdr` has read: line by line and
/// comma by comma when the text is plain (the same rows, fields and line numbers as the
/// reader's records, without its state machine), else the reader's records. A row's line
/// is the reader's: the line after the previous row (or the header), empty lines
/// before the row included, so that errors name the same line.
pub(super) enum Rows<'a> {
    Records {
        rdr: ::csv::Reader<&'a [u8]>,
        record: ::csv::ByteRecord,
    },
    Plain {
        rest: &'a [u8],
        /// The line `rest` starts on.
        next_line: u64,
        fields: Vec<&'a [u8]>,
    },
}

impl<'a> Rows<'a> {
    /// The rows after the header; `text` without its BOM. `plain` allows the plain path.
    pub(super) fn new(text: &'a [u8], rdr: ::csv::Reader<&'a [u8]>, plain: bool) -> Rows<'a> {
        match plain_header(text).filter(|_| plain) {
            Some(end) => Rows::Plain {
                rest: &text[end..],
                next_line: 1 + text[..end].iter().filter(|&&c| c == b'\n').count() as u64,
                fields: Vec::new(),
            },
            None => Rows::Records {
                rdr,
                record: ::csv::ByteRecord::new(),
            },
        }
    }

    /// Moves to the next row: its line, or `None` at the end.
    #[inline]
    pub(super) fn next(&mut self) -> Result<Option<u64>, ::csv::Error> {
        match self {
            Rows::Records { rdr, record } => Ok(rdr
                .read_byte_record(record)?
                .then(|| record.position().map_or(0, |p| p.line()))),
            Rows::Plain {
                rest,
                next_line,
                fields,
            } => {
                let at = *next_line;
                loop {
                    if rest.is_empty() {
                        return Ok(None);
                    }
                    let (line, after) = match rest.iter().position(|&c| c == b'\n') {
                        Some(p) => (&rest[..p], &rest[p + 1..]),
                        None => (&rest[..], &rest[rest.len()..]),
                    };
                    *rest = after;
                    *next_line += 1;
                    if line.is_empty() {
                        continue;
                    }
                    fields.clear();
                    fields.extend(line.split(|&c| c == b','));
                    return Ok(Some(at));
                }
            }
        }
    }

    /// The number of fields of the row.
    #[inline]
    pub(super) fn len(&self) -> usize {
        match self {
            Rows::Records { record, .. } => record.len(),
            Rows::Plain { fields, .. } => fields.len(),
        }
    }

    /// Field `k` of the row (`k < len()`).
    #[inline]
    pub(super) fn field(&self, k: usize) -> &[u8] {
        match self {
            Rows::Records { record, .. } => &record[k],
            Rows::Plain { fields, .. } => fields[k],
        }
    }
}
