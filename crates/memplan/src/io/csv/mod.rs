//! CSV in google/minimalloc's format.
//!
//! ```text
//!   id,lower,upper,size,alignment,offset,gaps
//!   b1,0,3,4,,,
//!   b2,3,9,4,8,,
//!   b3,0,9,4,,16,2-5 6-7
//! ```
//!
//! - Columns are found by header name (case-insensitive): `id` (also `buffer`,
//!   `buffer_id`), `lower` (also `begin`, `start`), `upper` or `end`, and `size` are
//!   required; `alignment`, `offset` (a fixed offset) and `gaps` are optional, and an empty
//!   field means "not given". Other columns are kept and copied to the output.
//! - `upper` is half-open, `[lower, upper)`; `end` is inclusive, as minimalloc reads it
//!   (`upper = end + 1`). [`ReadOptions::lifetimes`] overrides both.
//! - `gaps` lists `lo-hi` intervals separated by spaces, read with the same convention as
//!   the lifetime. minimalloc's gap windows (`lo-hi@a:b`) are not supported.
//! - A UTF-8 byte-order mark, CRLF line ends, blank lines and spaces around fields are
//!   accepted. Every error names the line and the column.
//!
//! A plan is written as the input's own columns plus `offset` (replaced when the input
//! already has one).

use std::io::Write;

mod plain;

use super::{LifetimeConvention, ReadOptions};
use crate::error::{ReadError, ReadErrorKind};
use crate::types::{Buffer, Lifetime, Offset, Plan, Problem, Size};

const MAX_ID_BYTES: usize = 4096;

fn err(line: u64, column: Option<&str>, kind: ReadErrorKind) -> ReadError {
    ReadError {
        line,
        column: column.map(str::to_string),
        kind,
    }
}

/// Quotes at most 40 characters of a bad field.
fn quote(field: &[u8]) -> String {
    let s = String::from_utf8_lossy(field);
    if s.chars().count() > 40 {
        format!("{}...", s.chars().take(40).collect::<String>())
    } else {
        s.into_owned()
    }
}

fn strip_bom(input: &[u8]) -> &[u8] {
    input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input)
}

fn reader(input: &[u8]) -> ::csv::Reader<&[u8]> {
    ::csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(::csv::Trim::Headers)
        .from_reader(strip_bom(input))
}

fn csv_error(e: ::csv::Error) -> ReadError {
    let line = e.position().map_or(0, |p| p.line());
    let kind = match e.into_kind() {
        ::csv::ErrorKind::Io(io) => ReadErrorKind::Io(io),
        other => ReadErrorKind::Csv(format!("{other:?}")),
    };
    err(line, None, kind)
}

/// Which input column holds which field.
struct Columns {
    names: Vec<String>,
    id: usize,
    lower: usize,
    upper: usize,
    size: usize,
    alignment: Option<usize>,
    offset: Option<usize>,
    gaps: Option<usize>,
    shares: Option<usize>,
    /// The end column was called `end` (inclusive by default).
    end_is_inclusive: bool,
}

/// What each column slot of [`columns`] gives, for the error naming two columns that give
/// the same field.
const FIELD_NAMES: [&str; 8] = [
    "the buffer's id",
    "the start of the lifetime",
    "the end of the lifetime ('upper' is half-open, 'end' inclusive)",
    "the size",
    "the alignment",
    "the fixed offset",
    "the gaps",
    "the shares",
];

fn columns(headers: &::csv::ByteRecord, need_lifetimes: bool) -> Result<Columns, ReadError> {
    let names: Vec<String> = headers
        .iter()
        .map(|h| String::from_utf8_lossy(h).to_string())
        .collect();
    if names.is_empty() || (names.len() == 1 && names[0].is_empty()) {
        return Err(err(0, None, ReadErrorKind::Empty));
    }
    let mut slots: [Option<usize>; 8] = [None; 8];
    let mut end_is_inclusive = false;
    for (k, name) in names.iter().enumerate() {
        if name.is_empty() {
            return Err(err(1, None, ReadErrorKind::EmptyColumnName(k + 1)));
        }
        let lower = name.to_ascii_lowercase();
        let slot = match lower.as_str() {
            "id" | "buffer" | "buffer_id" => 0,
            "lower" | "begin" | "start" => 1,
            "upper" => 2,
            "end" => {
                end_is_inclusive = true;
                2
            }
            "size" => 3,
            "alignment" => 4,
            "offset" => 5,
            "gaps" => 6,
            "shares" => 7,
            _ => continue,
        };
        if let Some(first) = slots[slot] {
            let first = &names[first];
            let kind = if first.eq_ignore_ascii_case(name) {
                ReadErrorKind::DuplicateColumn(name.clone())
            } else {
                ReadErrorKind::SameField {
                    first: first.clone(),
                    second: name.clone(),
                    what: FIELD_NAMES[slot],
                }
            };
            return Err(err(1, Some(name), kind));
        }
        slots[slot] = Some(k);
    }
    let required: &[(usize, &'static str)] = if need_lifetimes {
        &[(0, "id"), (1, "lower"), (2, "upper"), (3, "size")]
    } else {
        &[(0, "id")]
    };
    for &(slot, name) in required {
        if slots[slot].is_none() {
            let kind = match header_hint(&names, name) {
                Some(hint) => ReadErrorKind::MissingColumnHint {
                    missing: name,
                    hint,
                },
                None => ReadErrorKind::MissingColumn(name),
            };
            return Err(err(1, None, kind));
        }
    }
    Ok(Columns {
        names,
        id: slots[0].unwrap_or(0),
        lower: slots[1].unwrap_or(0),
        upper: slots[2].unwrap_or(0),
        size: slots[3].unwrap_or(0),
        alignment: slots[4],
        offset: slots[5],
        gaps: slots[6],
        shares: slots[7],
        end_is_inclusive,
    })
}

/// Why a header may lack the column `missing`: one column holding another separator
/// (`id;lower;upper;size`), or an unknown column one or two edits from the name (`uper`).
fn header_hint(names: &[String], missing: &str) -> Option<String> {
    if let [only] = names {
        if let Some(sep) = [';', '\t', '|'].into_iter().find(|&c| only.contains(c)) {
            let shown = match sep {
                '\t' => "tabs".to_string(),
                c => format!("'{c}'"),
            };
            return Some(format!(
                "the header is one column, '{}': the file seems separated by {shown}; memplan reads commas",
                only.escape_debug()
            ));
        }
    }
    // Every column some reader takes (the problem's, then several memories').
    const KNOWN: &str = "id buffer buffer_id lower begin start upper end size alignment \
                         offset gaps shares memories memory accesses cost";
    let known: Vec<&str> = KNOWN.split_whitespace().collect();
    names
        .iter()
        .filter(|n| !known.contains(&n.to_ascii_lowercase().as_str()))
        .find(|n| edits(&n.to_ascii_lowercase(), missing) <= 2)
        .map(|n| {
            format!(
                "the header has an unknown column '{}': did you mean '{missing}'?",
                n.escape_debug()
            )
        })
}

/// The edit distance between two short names (insertions, deletions, substitutions).
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

fn parse_u64(field: &[u8], line: u64, column: &str) -> Result<u64, ReadError> {
    let bad = |kind| Err(err(line, Some(column), kind));
    if field.is_empty() || !field.iter().all(u8::is_ascii_digit) {
        return bad(ReadErrorKind::BadNumber(quote(field)));
    }
    let mut v: u64 = 0;
    for &d in field {
        match v
            .checked_mul(10)
            .and_then(|v| v.checked_add((d - b'0') as u64))
        {
            Some(n) => v = n,
            None => return bad(ReadErrorKind::NumberTooLarge(quote(field))),
        }
    }
    Ok(v)
}

fn parse_gaps(
    field: &[u8],
    inclusive: bool,
    line: u64,
    column: &str,
) -> Result<Vec<Lifetime>, ReadError> {
    let text = std::str::from_utf8(field)
        .map_err(|_| err(line, Some(column), ReadErrorKind::BadGap(quote(field))))?;
    let mut gaps = Vec::new();
    for item in text.split_ascii_whitespace() {
        let bad = || {
            err(
                line,
                Some(column),
                ReadErrorKind::BadGap(quote(item.as_bytes())),
            )
        };
        let (lo, hi) = item.split_once('-').ok_or_else(bad)?;
        let lo = parse_u64(lo.as_bytes(), line, column).map_err(|_| bad())?;
        let mut hi = parse_u64(hi.as_bytes(), line, column).map_err(|_| bad())?;
        if inclusive {
            hi = hi.checked_add(1).ok_or_else(bad)?;
        }
        if lo >= hi {
            return Err(bad());
        }
        gaps.push(Lifetime::new(lo, hi));
    }
    Ok(gaps)
}

/// The shares of one row's `shares` field: entries separated by spaces, each
/// `kind:target`, then `@offset` and `!` (required) when given: `in_place:x`,
/// `inside:cache@128!`.
fn parse_shares(
    field: &[u8],
    buffer: &str,
    line: u64,
    column: &str,
) -> Result<Vec<crate::share::Share>, ReadError> {
    use crate::share::{Share, ShareKind};
    let text = std::str::from_utf8(field)
        .map_err(|_| err(line, Some(column), ReadErrorKind::BadShare(quote(field))))?;
    let mut shares = Vec::new();
    for item in text.split_ascii_whitespace() {
        let bad = || {
            err(
                line,
                Some(column),
                ReadErrorKind::BadShare(quote(item.as_bytes())),
            )
        };
        let (kind, rest) = item.split_once(':').ok_or_else(bad)?;
        let kind = ShareKind::from_name(kind).ok_or_else(bad)?;
        let (rest, required) = match rest.strip_suffix('!') {
            Some(r) => (r, true),
            None => (rest, false),
        };
        let (target, offset) = match rest.rsplit_once('@') {
            Some((t, o)) if !o.is_empty() && o.bytes().all(|b| b.is_ascii_digit()) => {
                (t, parse_u64(o.as_bytes(), line, column)?)
            }
            _ => (rest, 0),
        };
        if target.is_empty() {
            return Err(bad());
        }
        shares.push(Share {
            buffer: buffer.to_string(),
            target: target.to_string(),
            kind,
            offset: Offset(offset),
            required,
        });
    }
    Ok(shares)
}

/// One share as [`parse_shares`] reads it.
fn share_text(s: &crate::share::Share) -> String {
    let mut t = format!("{}:{}", s.kind.name(), s.target);
    if s.offset.0 != 0 {
        t.push_str(&format!("@{}", s.offset));
    }
    if s.required {
        t.push('!');
    }
    t
}

/// Reads a problem in google/minimalloc's CSV format: columns found by header name,
/// `id`, `lower`, `upper` (half-open; or `end`, inclusive) and `size` required,
/// `alignment`, `offset` (fixed) and `gaps` (`lo-hi` intervals separated by spaces)
/// optional, an empty field meaning "not given"; `shares` lists the shares of the row's
/// buffer ([`crate::Share`]): entries separated by spaces, each `kind:target` with
/// `@offset` and `!` (required) when given, such as `in_place:x` or
/// `inside:cache@128!` (a target's id cannot hold a space there). A BOM, CRLF, blank
/// lines and spaces around fields are accepted; every error names the line and the
/// column.
pub fn read_problem_csv(input: &[u8], options: &ReadOptions) -> Result<Problem, ReadError> {
    read_problem_csv_with(input, options, &[]).map(|(problem, _)| problem)
}

/// The values of the columns memplan's problem does not hold, read beside the buffers:
/// per name asked for, `None` when the header has no such column, else each row's line
/// and field (trimmed).
pub(crate) type ExtraColumns = Vec<Option<Vec<(u64, String)>>>;

/// [`read_problem_csv`], with the values of the columns named `extra` (matched
/// case-insensitively; see [`ExtraColumns`]) read in the same pass.
pub(crate) fn read_problem_csv_with(
    input: &[u8],
    options: &ReadOptions,
    extra: &[&str],
) -> Result<(Problem, ExtraColumns), ReadError> {
    read_problem_rows(input, options, extra, true)
}

/// [`read_problem_csv_with`]; `plain` allows the plain rows ([`plain::Rows`]).
fn read_problem_rows(
    input: &[u8],
    options: &ReadOptions,
    extra: &[&str],
    plain: bool,
) -> Result<(Problem, ExtraColumns), ReadError> {
    let mut rdr = reader(input);
    let headers = rdr.byte_headers().map_err(csv_error)?.clone();
    let cols = columns(&headers, true)?;
    let (extra_at, mut extra_values) = extra_columns(&cols.names, extra);
    let inclusive = match options.lifetimes {
        Some(LifetimeConvention::Inclusive) => true,
        Some(LifetimeConvention::HalfOpen) => false,
        None => cols.end_is_inclusive,
    };
    let name = |k: usize| cols.names[k].as_str();
    // One buffer a line at most: no growing and copying of a million buffers.
    let mut buffers = Vec::with_capacity(input.iter().filter(|&&c| c == b'\n').count());
    let mut shares = Vec::new();
    let mut rows = plain::Rows::new(strip_bom(input), rdr, plain);
    while let Some(line) = rows.next().map_err(csv_error)? {
        let record = &rows;
        if record.len() != cols.names.len() {
            let kind = ReadErrorKind::FieldCount {
                expected: cols.names.len(),
                found: record.len(),
            };
            return Err(err(line, None, kind));
        }
        let id_bytes = record.field(cols.id).trim_ascii();
        if id_bytes.is_empty() {
            return Err(err(line, Some(name(cols.id)), ReadErrorKind::EmptyId));
        }
        if id_bytes.len() > MAX_ID_BYTES {
            return Err(err(
                line,
                Some(name(cols.id)),
                ReadErrorKind::IdTooLong(id_bytes.len()),
            ));
        }
        let id = std::str::from_utf8(id_bytes)
            .map_err(|_| {
                err(
                    line,
                    Some(name(cols.id)),
                    ReadErrorKind::Csv("id is not valid UTF-8".into()),
                )
            })?
            .to_string();
        let lower = parse_u64(
            record.field(cols.lower).trim_ascii(),
            line,
            name(cols.lower),
        )?;
        let mut upper = parse_u64(
            record.field(cols.upper).trim_ascii(),
            line,
            name(cols.upper),
        )?;
        if inclusive {
            upper = upper.checked_add(1).ok_or_else(|| {
                err(
                    line,
                    Some(name(cols.upper)),
                    ReadErrorKind::EndTooLarge(upper),
                )
            })?;
        }
        let size = parse_u64(record.field(cols.size).trim_ascii(), line, name(cols.size))?;
        let mut b = Buffer::new(id, lower, upper, size);
        if let Some(a) = options.default_alignment {
            b.alignment = a;
        }
        if let Some(k) = cols
            .alignment
            .filter(|&k| !record.field(k).trim_ascii().is_empty())
        {
            b.alignment = Size(parse_u64(record.field(k).trim_ascii(), line, name(k))?);
        }
        if let Some(k) = cols
            .offset
            .filter(|&k| !record.field(k).trim_ascii().is_empty())
        {
            b.fixed_offset = Some(Offset(parse_u64(
                record.field(k).trim_ascii(),
                line,
                name(k),
            )?));
        }
        if let Some(k) = cols.gaps {
            b.gaps = parse_gaps(record.field(k), inclusive, line, name(k))?;
        }
        if let Some(k) = cols.shares {
            shares.extend(parse_shares(
                record.field(k).trim_ascii(),
                &b.id,
                line,
                name(k),
            )?);
        }
        buffers.push(b);
        push_extra(&extra_at, &mut extra_values, record, line);
    }
    // A header alone is the empty problem (height 0), as in every door: see
    // [`crate::Problem::new`].
    let problem = Problem::with_shares(buffers, shares).map_err(|e| {
        let line = line_of_row(input, e.index);
        let column = match e.kind.field() {
            "shares" => cols.shares,
            "id" => Some(cols.id),
            "upper" => Some(cols.upper),
            "size" => Some(cols.size),
            "alignment" => cols.alignment,
            "offset" => cols.offset,
            "gaps" => cols.gaps,
            _ => None,
        };
        err(line, column.map(name), ReadErrorKind::Problem(e))
    })?;
    Ok((problem, extra_values))
}

/// The line of data row `index` (0 when there is none): read again on an error, rather
/// than kept for every row.
fn line_of_row(input: &[u8], index: usize) -> u64 {
    let mut rdr = reader(input);
    let mut record = ::csv::ByteRecord::new();
    for _ in 0..index {
        if !matches!(rdr.read_byte_record(&mut record), Ok(true)) {
            return 0;
        }
    }
    match rdr.read_byte_record(&mut record) {
        Ok(true) => record.position().map_or(0, |p| p.line()),
        _ => 0,
    }
}

/// Where the columns named `extra` are in the header (`names`), and their empty values.
fn extra_columns(names: &[String], extra: &[&str]) -> (Vec<Option<usize>>, ExtraColumns) {
    let at: Vec<Option<usize>> = extra
        .iter()
        .map(|e| names.iter().position(|n| n.eq_ignore_ascii_case(e)))
        .collect();
    let values = at.iter().map(|k| k.map(|_| Vec::new())).collect();
    (at, values)
}

/// Adds a row's values of the extra columns.
fn push_extra(
    at: &[Option<usize>],
    values: &mut ExtraColumns,
    record: &plain::Rows<'_>,
    line: u64,
) {
    for (k, column) in at.iter().zip(values.iter_mut()) {
        if let (Some(k), Some(column)) = (k, column) {
            let text = String::from_utf8_lossy(record.field(*k).trim_ascii()).into_owned();
            column.push((line, text));
        }
    }
}

/// The convention [`read_problem_csv`] infers for the lifetimes' end when none is forced:
/// from the end column's name, `upper` (half-open) or `end` (inclusive), returned as
/// written in the header. `None` when the header cannot be read or has no end column.
pub fn inferred_lifetimes_csv(input: &[u8]) -> Option<(LifetimeConvention, String)> {
    let mut rdr = reader(input);
    let headers = rdr.byte_headers().ok()?.clone();
    let cols = columns(&headers, true).ok()?;
    let name = cols.names.get(cols.upper)?.clone();
    let convention = if cols.end_is_inclusive {
        LifetimeConvention::Inclusive
    } else {
        LifetimeConvention::HalfOpen
    };
    Some((convention, name))
}

/// The input's columns as text: the header's names and each data row's line number and
/// fields (trimmed), rows in the order [`read_problem_csv`] reads the buffers. For
/// people (tooltips, reports) and for columns memplan's problem does not hold (a spill
/// `cost` or `memory`), so that their errors can name the line and the column. Bytes
/// that are not UTF-8 are replaced.
pub fn read_rows_csv(input: &[u8]) -> Result<CsvRows, ReadError> {
    let mut rdr = reader(input);
    let text = |f: &[u8]| String::from_utf8_lossy(f).trim().to_string();
    let names = rdr
        .byte_headers()
        .map_err(csv_error)?
        .iter()
        .map(text)
        .collect();
    let mut rows = Vec::new();
    let mut record = ::csv::ByteRecord::new();
    while rdr.read_byte_record(&mut record).map_err(csv_error)? {
        let line = record.position().map_or(0, |p| p.line());
        rows.push((line, record.iter().map(text).collect()));
    }
    Ok((names, rows))
}

/// What [`read_rows_csv`] reads: the column names, and each row's line and fields.
type CsvRows = (Vec<String>, Vec<(u64, Vec<String>)>);

/// Writes the input CSV back with the given columns: each `(name, values)` replaces the
/// column of that name (case-insensitive) or is appended after the input's columns, with
/// one value per data row. `offset` is matched like [`read_problem_csv`] matches it.
pub fn write_columns_csv(
    input: &[u8],
    columns: &[(&str, &[String])],
    out: impl Write,
) -> Result<(), ReadError> {
    let mut rdr = reader(input);
    let headers = rdr.byte_headers().map_err(csv_error)?.clone();
    let slot: Vec<Option<usize>> = columns
        .iter()
        .map(|(name, _)| {
            headers
                .iter()
                .position(|h| String::from_utf8_lossy(h).trim().eq_ignore_ascii_case(name))
        })
        .collect();
    let mut w = ::csv::WriterBuilder::new().from_writer(out);
    let mut head = headers.clone();
    for ((name, _), s) in columns.iter().zip(&slot) {
        if s.is_none() {
            head.push_field(name.as_bytes());
        }
    }
    w.write_byte_record(&head).map_err(csv_error)?;
    let mut record = ::csv::ByteRecord::new();
    let mut i = 0usize;
    let short = || {
        err(
            0,
            None,
            ReadErrorKind::Csv("the plan has fewer entries than the input has rows".into()),
        )
    };
    while rdr.read_byte_record(&mut record).map_err(csv_error)? {
        let mut out_rec = ::csv::ByteRecord::new();
        for (k, f) in record.iter().enumerate() {
            match slot.iter().position(|s| *s == Some(k)) {
                Some(c) => out_rec.push_field(columns[c].1.get(i).ok_or_else(short)?.as_bytes()),
                None => out_rec.push_field(f),
            }
        }
        for ((_, values), s) in columns.iter().zip(&slot) {
            if s.is_none() {
                out_rec.push_field(values.get(i).ok_or_else(short)?.as_bytes());
            }
        }
        w.write_byte_record(&out_rec).map_err(csv_error)?;
        i += 1;
    }
    if columns.iter().any(|(_, v)| v.len() != i) {
        return Err(err(
            0,
            None,
            ReadErrorKind::Csv("the plan has more entries than the input has rows".into()),
        ));
    }
    w.flush().map_err(|e| err(0, None, ReadErrorKind::Io(e)))
}

/// Writes the input CSV back with an `offset` column holding the plan's offsets.
/// `input` must be the text the plan's problem was read from.
pub fn write_plan_csv(input: &[u8], plan: &Plan, mut out: impl Write) -> Result<(), ReadError> {
    let (rdr, offset, head) = plan_head(input)?;
    let text = strip_bom(input);
    let fields = head.len() - usize::from(offset.is_none());
    if let Some(data) = plain::plain_data(text, fields, plan.offsets().len()) {
        // Plain text: the same bytes without a record per row.
        let mut w = ::csv::WriterBuilder::new().from_writer(Vec::new());
        w.write_byte_record(&head).map_err(csv_error)?;
        let head = w
            .into_inner()
            .map_err(|e| err(0, None, ReadErrorKind::Io(e.into_error())))?;
        let io = |e| err(0, None, ReadErrorKind::Io(e));
        out.write_all(&head).map_err(io)?;
        plain::write_plain_rows(&text[data..], offset, plan.offsets(), &mut out).map_err(io)?;
        return out.flush().map_err(io);
    }
    write_plan_records(rdr, offset, &head, plan, out)
}

/// A plan file's start: the input's reader past its header, the input's `offset`
/// column (if any), and the output's header (the input's, with `offset` added).
type PlanHead<'a> = (::csv::Reader<&'a [u8]>, Option<usize>, ::csv::ByteRecord);

/// [`PlanHead`] of `input`.
fn plan_head(input: &[u8]) -> Result<PlanHead<'_>, ReadError> {
    let mut rdr = reader(input);
    let headers = rdr.byte_headers().map_err(csv_error)?.clone();
    let offset = columns(&headers, true)?.offset;
    let mut head = headers;
    if offset.is_none() {
        head.push_field(b"offset");
    }
    Ok((rdr, offset, head))
}

/// [`write_plan_csv`] record by record, through the CSV reader and writer: any text.
/// `rdr`, `offset` and `head` are [`plan_head`]'s.
fn write_plan_records(
    mut rdr: ::csv::Reader<&[u8]>,
    offset: Option<usize>,
    head: &::csv::ByteRecord,
    plan: &Plan,
    out: impl Write,
) -> Result<(), ReadError> {
    let mut w = ::csv::WriterBuilder::new().from_writer(out);
    let write = |w: &mut ::csv::Writer<_>, rec: &::csv::ByteRecord| {
        w.write_byte_record(rec).map_err(csv_error)
    };
    write(&mut w, head)?;
    let mut record = ::csv::ByteRecord::new();
    let mut out_rec = ::csv::ByteRecord::new();
    let mut i = 0usize;
    let mut num = itoa_buf();
    while rdr.read_byte_record(&mut record).map_err(csv_error)? {
        let Some(off) = plan.offsets().get(i) else {
            return Err(err(
                0,
                None,
                ReadErrorKind::Csv("the plan has fewer offsets than the input has rows".into()),
            ));
        };
        out_rec.clear();
        let text = fmt_u64(&mut num, off.0);
        for (k, f) in record.iter().enumerate() {
            out_rec.push_field(if Some(k) == offset { text } else { f });
        }
        if offset.is_none() {
            out_rec.push_field(text);
        }
        write(&mut w, &out_rec)?;
        i += 1;
    }
    if i != plan.offsets().len() {
        return Err(err(
            0,
            None,
            ReadErrorKind::Csv("the plan has more offsets than the input has rows".into()),
        ));
    }
    w.flush().map_err(|e| err(0, None, ReadErrorKind::Io(e)))
}

fn itoa_buf() -> [u8; 20] {
    [0; 20]
}

fn fmt_u64(buf: &mut [u8; 20], mut v: u64) -> &[u8] {
    let mut k = buf.len();
    loop {
        k -= 1;
        buf[k] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    &buf[k..]
}

/// Writes a problem in memplan's canonical columns: `id,lower,upper,size`, plus
/// `alignment`, `offset`, `gaps` and `shares` when any buffer needs them. Lifetimes are
/// half-open.
pub fn write_problem_csv(problem: &Problem, out: impl Write) -> std::io::Result<()> {
    let bufs = problem.buffers();
    let align = bufs.iter().any(|b| b.alignment.0 != 1);
    let fixed = bufs.iter().any(|b| b.fixed_offset.is_some());
    let gaps = bufs.iter().any(|b| !b.gaps.is_empty());
    let shares = !problem.shares().is_empty();
    let mut row_shares: Vec<Vec<String>> = vec![Vec::new(); bufs.len()];
    for (k, s) in problem.shares().iter().enumerate() {
        row_shares[problem.share_ends(k).0.index()].push(share_text(s));
    }
    let mut w = std::io::BufWriter::new(out);
    write!(w, "id,lower,upper,size")?;
    for (on, name) in [
        (align, ",alignment"),
        (fixed, ",offset"),
        (gaps, ",gaps"),
        (shares, ",shares"),
    ] {
        if on {
            w.write_all(name.as_bytes())?;
        }
    }
    writeln!(w)?;
    for (i, b) in bufs.iter().enumerate() {
        let id = if b.id.contains([',', '"', '\n', '\r']) || b.id.trim() != b.id {
            format!("\"{}\"", b.id.replace('"', "\"\""))
        } else {
            b.id.clone()
        };
        write!(
            w,
            "{},{},{},{}",
            id, b.lifetime.start, b.lifetime.end, b.size
        )?;
        if align {
            write!(w, ",{}", b.alignment)?;
        }
        if fixed {
            match b.fixed_offset {
                Some(o) => write!(w, ",{o}")?,
                None => write!(w, ",")?,
            }
        }
        if gaps {
            let g: Vec<String> = b
                .gaps
                .iter()
                .map(|g| format!("{}-{}", g.start, g.end))
                .collect();
            write!(w, ",{}", g.join(" "))?;
        }
        if shares {
            let text = row_shares[i].join(" ");
            if text.contains([',', '"', '\n', '\r']) {
                write!(w, ",\"{}\"", text.replace('"', "\"\""))?;
            } else {
                write!(w, ",{text}")?;
            }
        }
        writeln!(w)?;
    }
    w.flush()
}

/// Reads a plan file: the `id` and `offset` columns, one row per buffer. Checking that
/// every buffer is placed exactly once is the checker's job ([`crate::check_placements`]).
pub fn read_placements_csv(input: &[u8]) -> Result<Vec<(String, Offset)>, ReadError> {
    read_placements_csv_with(input, &[]).map(|(placements, _)| placements)
}

/// [`read_placements_csv`], with the values of the columns named `extra` read in the
/// same pass (see [`ExtraColumns`]).
pub(crate) fn read_placements_csv_with(
    input: &[u8],
    extra: &[&str],
) -> Result<(Vec<(String, Offset)>, ExtraColumns), ReadError> {
    let mut rdr = reader(input);
    let headers = rdr.byte_headers().map_err(csv_error)?.clone();
    let cols = columns(&headers, false)?;
    let (extra_at, mut extra_values) = extra_columns(&cols.names, extra);
    let off_col = cols
        .offset
        .ok_or_else(|| err(1, None, ReadErrorKind::MissingColumn("offset")))?;
    let mut out = Vec::new();
    let mut rows = plain::Rows::new(strip_bom(input), rdr, true);
    while let Some(line) = rows.next().map_err(csv_error)? {
        let record = &rows;
        if record.len() != cols.names.len() {
            let kind = ReadErrorKind::FieldCount {
                expected: cols.names.len(),
                found: record.len(),
            };
            return Err(err(line, None, kind));
        }
        let id = String::from_utf8_lossy(record.field(cols.id).trim_ascii()).into_owned();
        let off = parse_u64(
            record.field(off_col).trim_ascii(),
            line,
            &cols.names[off_col],
        )?;
        out.push((id, Offset(off)));
        push_extra(&extra_at, &mut extra_values, record, line);
    }
    Ok((out, extra_values))
}

#[cfg(test)]
mod tests;
