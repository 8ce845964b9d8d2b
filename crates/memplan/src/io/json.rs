//! JSON input and output, alongside the CSV format.
//!
//! A problem:
//!
//! ```text
//!   {
//!     "capacity": 128,                       optional
//!     "buffers": [
//!       {"id": "a", "start": 0, "end": 3, "size": 4},
//!       {"id": "b", "start": 3, "end": 9, "size": 4, "alignment": 8},
//!       {"id": "c", "start": 0, "end": 9, "size": 4, "fixed_offset": 16,
//!        "gaps": [[2, 5], [6, 7]]}
//!     ]
//!   }
//! ```
//!
//! - Lifetimes and gaps are half-open, `[start, end)`, as everywhere in memplan.
//! - `alignment` (default 1), `fixed_offset` and `gaps` are optional; `null` means absent.
//! - `cost` (a non-negative integer) and `memory` (`fast`, `slow`, `either`) are accepted
//!   for the two-level planner (`memplan plan --spill`) and ignored here.
//! - Unknown fields are rejected, so that a typo (`"sise"`) is not silently ignored.
//!
//! A plan is the problem with an `offset` on every buffer and the plan's figures:
//!
//! ```text
//!   {"height": 8, "max_load": 8, "lower_bound": 8, "optimal": true, "planner": "auto",
//!    "buffers": [{"id": "a", "start": 0, "end": 3, "size": 4, "offset": 0}, ...]}
//! ```
//!
//! [`read_placements_json`] reads only `id` and `offset` from each buffer of a plan, so
//! any JSON with a `buffers` list of such objects is a plan for `memplan check`.

use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::error::{ReadError, ReadErrorKind};
use crate::types::{Buffer, Lifetime, Offset, Plan, Problem, Size};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProblemIn {
    #[serde(default)]
    capacity: Option<u64>,
    buffers: Vec<BufferIn>,
    /// The memories of a problem across memories (`memplan::memories::ProblemFile`).
    #[serde(default)]
    memories: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BufferIn {
    id: String,
    start: u64,
    end: u64,
    size: u64,
    #[serde(default)]
    alignment: Option<u64>,
    #[serde(default)]
    fixed_offset: Option<u64>,
    #[serde(default)]
    gaps: Option<Vec<(u64, u64)>>,
    #[serde(default)]
    shares: Option<Vec<ShareIn>>,
    /// The per-buffer fields of several memories ([`BufferExtra`]).
    #[serde(default)]
    cost: Option<u64>,
    #[serde(default)]
    memory: Option<serde_json::Value>,
    #[serde(default)]
    memories: Option<serde_json::Value>,
    #[serde(default)]
    accesses: Option<u64>,
}

/// A buffer's fields of several memories: its traffic (`cost`, spill's word), its memory
/// (spill's preference: `fast`, `slow`, `either`), its allowed memories (a name or a list
/// of names) and its access count.
// Read by `memories::file` (feature `memories`); without it, carried and dropped.
#[cfg_attr(not(feature = "memories"), allow(dead_code))]
pub(crate) struct BufferExtra {
    pub(crate) cost: Option<u64>,
    pub(crate) memory: Option<serde_json::Value>,
    pub(crate) memories: Option<serde_json::Value>,
    pub(crate) accesses: Option<u64>,
}

/// What a JSON problem holds beside its buffers: the `memories` section and each
/// buffer's [`BufferExtra`].
#[cfg_attr(not(feature = "memories"), allow(dead_code))]
pub(crate) struct JsonExtra {
    pub(crate) memories: Option<serde_json::Value>,
    pub(crate) buffers: Vec<BufferExtra>,
}

/// A buffer's share: `{"target": "x", "kind": "in_place", "offset": 0, "required":
/// false}`, all but `target` optional.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShareIn {
    target: String,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    offset: Option<u64>,
    #[serde(default)]
    required: Option<bool>,
}

#[derive(Serialize)]
struct ShareOut<'a> {
    target: &'a str,
    kind: &'static str,
    #[serde(skip_serializing_if = "is_zero")]
    offset: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    required: bool,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

#[derive(Serialize)]
struct BufferOut<'a> {
    id: &'a str,
    start: u64,
    end: u64,
    size: u64,
    #[serde(skip_serializing_if = "is_one")]
    alignment: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    fixed_offset: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    gaps: Vec<(u64, u64)>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    shares: Vec<ShareOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<u64>,
}

fn is_one(v: &u64) -> bool {
    *v == 1
}

#[derive(Serialize)]
struct ProblemHead {
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity: Option<u64>,
}

#[derive(Serialize)]
struct PlanHead<'a> {
    height: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    capacity: Option<u64>,
    #[serde(flatten)]
    info: &'a PlanInfo,
}

/// Figures written next to a plan by [`write_plan_json`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PlanInfo {
    /// The max load of the problem.
    pub max_load: u64,
    /// The best proven lower bound on the height.
    pub lower_bound: u64,
    /// True when the height equals the lower bound.
    pub optimal: bool,
    /// The planner whose plan this is.
    pub planner: String,
}

#[derive(Deserialize)]
struct PlacementsIn {
    buffers: Vec<PlacementIn>,
}

#[derive(Deserialize)]
struct PlacementIn {
    id: String,
    offset: u64,
}

fn json_error(e: serde_json::Error) -> ReadError {
    let line = e.line() as u64;
    let kind = match e.classify() {
        serde_json::error::Category::Io => ReadErrorKind::Io(e.into()),
        _ => ReadErrorKind::Json(strip_position(&e.to_string())),
    };
    ReadError {
        line,
        column: None,
        kind,
    }
}

/// serde_json appends " at line L column C"; the line is in [`ReadError::line`] already.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(k) => msg[..k].to_string(),
        None => msg.to_string(),
    }
}

/// What a JSON value is, for messages: `a string "0"`, `the number -4`, `a list`.
fn describe(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => {
            let short: String = s.chars().take(40).collect();
            format!("the string {}", serde_json::Value::String(short))
        }
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

/// Checks the shape of a problem's JSON before it is read, so that a wrong type names
/// its field (`buffers[2].size`) and says what JSON was expected, not which Rust type.
/// Err: the field's path and the message.
/// The shape of a buffer's `shares`: a list of objects with a string `target`, and
/// optionally a string `kind`, an integer `offset` and a boolean `required`.
fn check_shares(path: &str, v: &serde_json::Value) -> Result<(), (String, String)> {
    use serde_json::Value;
    let fail = |p: String, m: String| Err((p, m));
    let list = match v {
        Value::Null => return Ok(()),
        Value::Array(list) => list,
        other => {
            return fail(
                path.to_string(),
                format!("expected a list of shares, found {}", describe(other)),
            )
        }
    };
    for (k, s) in list.iter().enumerate() {
        let spath = format!("{path}[{k}]");
        let Value::Object(fields) = s else {
            return fail(
                spath,
                format!(
                    r#"expected an object such as {{"target": "x", "kind": "in_place"}}, found {}"#,
                    describe(s)
                ),
            );
        };
        if !fields.contains_key("target") {
            return fail(spath, "missing field \"target\"".to_string());
        }
        for (key, v) in fields {
            let fpath = format!("{spath}.{key}");
            let ok = match key.as_str() {
                "target" | "kind" => v.is_string(),
                "offset" => v.is_u64(),
                "required" => v.is_boolean(),
                other => {
                    return fail(
                        fpath,
                        format!(
                            "unknown field {}: expected target, kind, offset or required",
                            Value::String(other.to_string())
                        ),
                    )
                }
            };
            if !ok {
                let want = match key.as_str() {
                    "offset" => "a non-negative integer",
                    "required" => "true or false",
                    _ => "a string",
                };
                return fail(fpath, format!("expected {want}, found {}", describe(v)));
            }
        }
    }
    Ok(())
}

fn check_shape(value: &serde_json::Value) -> Result<(), (String, String)> {
    use serde_json::Value;
    let at = |path: &str, msg: String| Err((path.to_string(), msg));
    let integer = |path: &str, v: &Value, optional: bool| match v {
        Value::Number(n) if n.is_u64() => Ok(()),
        Value::Null if optional => Ok(()),
        other => at(
            path,
            format!("expected a non-negative integer, found {}", describe(other)),
        ),
    };
    let Value::Object(top) = value else {
        return at(
            "(top level)",
            format!(
                r#"expected an object such as {{"buffers": [{{"id": "a", "start": 0, "end": 3, "size": 4}}]}}, found {}"#,
                describe(value)
            ),
        );
    };
    for (key, v) in top {
        match key.as_str() {
            "capacity" => integer("capacity", v, true)?,
            "buffers" => {}
            "memories" => match v {
                Value::Null | Value::Array(_) => {}
                other => at(
                    "memories",
                    format!("expected a list of memories, found {}", describe(other)),
                )?,
            },
            other => {
                return at(
                    other,
                    format!(
                        "unknown field {}: expected \"buffers\", \"capacity\" or \"memories\"",
                        Value::String(other.to_string())
                    ),
                )
            }
        }
    }
    let buffers = match top.get("buffers") {
        None => {
            return at(
                "buffers",
                "missing field \"buffers\" (a list of buffers)".to_string(),
            )
        }
        Some(Value::Array(b)) => b,
        Some(other) => {
            return at(
                "buffers",
                format!("expected a list of buffers, found {}", describe(other)),
            )
        }
    };
    for (i, b) in buffers.iter().enumerate() {
        let Value::Object(fields) = b else {
            return at(
                &format!("buffers[{i}]"),
                format!(
                    r#"expected an object such as {{"id": "a", "start": 0, "end": 3, "size": 4}}, found {}"#,
                    describe(b)
                ),
            );
        };
        for (key, v) in fields {
            let path = format!("buffers[{i}].{key}");
            match key.as_str() {
                "id" | "memory" => match v {
                    Value::String(_) => {}
                    Value::Null if key == "memory" => {}
                    other => at(&path, format!("expected a string, found {}", describe(other)))?,
                },
                "start" | "end" | "size" => integer(&path, v, false)?,
                "alignment" | "fixed_offset" | "cost" | "accesses" => integer(&path, v, true)?,
                "memories" => match v {
                    Value::Null | Value::String(_) => {}
                    Value::Array(names) if names.iter().all(Value::is_string) => {}
                    other => at(
                        &path,
                        format!("expected a memory name or a list of names, found {}", describe(other)),
                    )?,
                },
                "shares" => check_shares(&path, v)?,
                "gaps" => match v {
                    Value::Null => {}
                    Value::Array(gaps) => {
                        for (k, g) in gaps.iter().enumerate() {
                            let gpath = format!("{path}[{k}]");
                            match g {
                                Value::Array(pair) if pair.len() == 2 => {
                                    integer(&gpath, &pair[0], false)?;
                                    integer(&gpath, &pair[1], false)?;
                                }
                                other => at(
                                    &gpath,
                                    format!("expected a pair [start, end], found {}", describe(other)),
                                )?,
                            }
                        }
                    }
                    other => at(
                        &path,
                        format!("expected a list of [start, end] pairs, found {}", describe(other)),
                    )?,
                },
                other => at(
                    &path,
                    format!(
                        "unknown field {}: expected id, start, end, size, alignment, fixed_offset, gaps, shares, cost, memory, memories or accesses",
                        Value::String(other.to_string())
                    ),
                )?,
            }
        }
        for required in ["id", "start", "end", "size"] {
            if !fields.contains_key(required) {
                at(
                    &format!("buffers[{i}]"),
                    format!("missing field \"{required}\""),
                )?;
            }
        }
    }
    Ok(())
}

/// Reads a problem from JSON: `{"capacity": …, "buffers": [{"id", "start", "end",
/// "size", "alignment", "fixed_offset", "gaps"}]}`, half-open `[start, end)`, with
/// `capacity`, `alignment`, `fixed_offset` and `gaps` optional and unknown fields
/// rejected. The file's capacity, if any, comes back beside the problem: it is a goal
/// ([`crate::Goal::Fit`]), not part of the problem. The reading options are CSV's:
/// `lifetimes` (with [`super::LifetimeConvention::Inclusive`], `[first, last]` becomes
/// `[first, last + 1)`, as ExecuTorch writes lifetimes) and `default_alignment` for
/// buffers with no `alignment` field.
pub fn read_problem_json(
    input: &[u8],
    options: &super::ReadOptions,
) -> Result<(Problem, Option<Size>), ReadError> {
    read_problem_json_with(input, options).map(|(problem, capacity, _)| (problem, capacity))
}

/// [`read_problem_json`], with the fields of several memories read in the same pass.
pub(crate) fn read_problem_json_with(
    input: &[u8],
    options: &super::ReadOptions,
) -> Result<(Problem, Option<Size>, JsonExtra), ReadError> {
    let shift = u64::from(options.lifetimes == Some(super::LifetimeConvention::Inclusive));
    let end = |e: u64| {
        e.checked_add(shift).ok_or_else(|| ReadError {
            line: 0,
            column: Some("end".to_string()),
            kind: ReadErrorKind::NumberTooLarge(format!("{e} + 1")),
        })
    };
    let field_error = |line: u64, (field, message): (String, String)| ReadError {
        line,
        column: None,
        kind: ReadErrorKind::JsonField { field, message },
    };
    let parsed: ProblemIn = match serde_json::from_slice(without_bom(input)) {
        Ok(p) => p,
        // Valid JSON of the wrong shape: the shape check names the field (serde names
        // Rust types), at the line serde stopped on.
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            let line = e.line() as u64;
            let value: serde_json::Value =
                serde_json::from_slice(without_bom(input)).map_err(json_error)?;
            check_shape(&value).map_err(|f| field_error(line, f))?;
            return Err(json_error(e));
        }
        Err(e) => return Err(json_error(e)),
    };
    let mut shares = Vec::new();
    for (i, b) in parsed.buffers.iter().enumerate() {
        for (k, s) in b.shares.iter().flatten().enumerate() {
            let kind = match s.kind.as_deref() {
                None => crate::share::ShareKind::InPlace,
                Some(name) => crate::share::ShareKind::from_name(name).ok_or_else(|| {
                    field_error(
                        0,
                        (
                            format!("buffers[{i}].shares[{k}].kind"),
                            format!("expected \"in_place\" or \"inside\", found \"{name}\""),
                        ),
                    )
                })?,
            };
            shares.push(crate::share::Share {
                buffer: b.id.clone(),
                target: s.target.clone(),
                kind,
                offset: Offset(s.offset.unwrap_or(0)),
                required: s.required.unwrap_or(false),
            });
        }
    }
    let mut extra = Vec::with_capacity(parsed.buffers.len());
    let buffers = parsed
        .buffers
        .into_iter()
        .map(|b| {
            extra.push(BufferExtra {
                cost: b.cost,
                memory: b.memory,
                memories: b.memories,
                accesses: b.accesses,
            });
            let mut buf = Buffer::new(b.id, b.start, end(b.end)?, b.size);
            buf.alignment = b
                .alignment
                .map(Size)
                .or(options.default_alignment)
                .unwrap_or(Size(1));
            buf.fixed_offset = b.fixed_offset.map(Offset);
            buf.gaps = b
                .gaps
                .unwrap_or_default()
                .into_iter()
                .map(|(s, e)| Ok(Lifetime::new(s, end(e)?)))
                .collect::<Result<_, ReadError>>()?;
            Ok(buf)
        })
        .collect::<Result<Vec<_>, ReadError>>()?;
    let problem = Problem::with_shares(buffers, shares).map_err(|e| ReadError {
        line: buffer_line(input, e.index).unwrap_or(0),
        column: Some(format!(
            "buffers[{}].{}",
            e.index,
            json_field(e.kind.field())
        )),
        kind: ReadErrorKind::Problem(e),
    })?;
    let extra = JsonExtra {
        memories: parsed.memories,
        buffers: extra,
    };
    Ok((problem, parsed.capacity.map(Size), extra))
}

/// The JSON name of a rule's field ([`crate::ProblemErrorKind::field`] names the CSV
/// columns).
fn json_field(csv: &str) -> &str {
    match csv {
        "upper" => "end",
        "offset" => "fixed_offset",
        other => other,
    }
}

/// The line (1-based) on which element `index` of the top-level `buffers` array starts:
/// a scan of the bytes for error messages only (serde keeps no positions).
fn buffer_line(input: &[u8], index: usize) -> Option<u64> {
    let (mut depth, mut line, mut in_string, mut escaped) = (0usize, 1u64, false, false);
    let (mut key_start, mut last_key): (usize, &[u8]) = (0, b"");
    let (mut in_buffers, mut seen) = (false, 0usize);
    for (k, &c) in input.iter().enumerate() {
        if c == b'\n' {
            line += 1;
        }
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => {
                    in_string = false;
                    last_key = &input[key_start..k];
                }
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => (in_string, key_start) = (true, k + 1),
            b'[' if depth == 1 && last_key == b"buffers" => (in_buffers, depth) = (true, 2),
            b'{' | b'[' => {
                if in_buffers && depth == 2 {
                    if seen == index {
                        return Some(line);
                    }
                    seen += 1;
                }
                depth += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                in_buffers &= depth >= 2;
            }
            _ => {}
        }
    }
    None
}

fn buffers_out<'a>(problem: &'a Problem, plan: Option<&Plan>) -> Vec<BufferOut<'a>> {
    let mut shares: Vec<Vec<ShareOut<'a>>> = (0..problem.len()).map(|_| Vec::new()).collect();
    for (k, s) in problem.shares().iter().enumerate() {
        shares[problem.share_ends(k).0.index()].push(ShareOut {
            target: &s.target,
            kind: s.kind.name(),
            offset: s.offset.get(),
            required: s.required,
        });
    }
    let mut shares = shares.into_iter();
    problem
        .buffers()
        .iter()
        .enumerate()
        .map(|(i, b)| BufferOut {
            id: &b.id,
            start: b.lifetime.start.get(),
            end: b.lifetime.end.get(),
            size: b.size.get(),
            alignment: b.alignment.get(),
            fixed_offset: b.fixed_offset.map(Offset::get),
            gaps: b
                .gaps
                .iter()
                .map(|g| (g.start.get(), g.end.get()))
                .collect(),
            shares: shares.next().unwrap_or_default(),
            offset: plan.map(|p| p.offsets()[i].get()),
        })
        .collect()
}

/// Writes a problem as JSON, one buffer per line, with `capacity` when given.
pub fn write_problem_json(
    problem: &Problem,
    capacity: Option<Size>,
    out: impl Write,
) -> std::io::Result<()> {
    let head = ProblemHead {
        capacity: capacity.map(Size::get),
    };
    write_lines(&head, &buffers_out(problem, None), out)
}

/// Writes a plan as JSON: the problem's buffers, each with its `offset`, the capacity
/// it was asked to fit under (if any), and the figures in `info`. `plan` must be a plan
/// of `problem`.
pub fn write_plan_json(
    problem: &Problem,
    capacity: Option<Size>,
    plan: &Plan,
    info: &PlanInfo,
    out: impl Write,
) -> std::io::Result<()> {
    let head = PlanHead {
        height: plan.height().get(),
        capacity: capacity.map(Size::get),
        info,
    };
    write_lines(&head, &buffers_out(problem, Some(plan)), out)
}

/// Compact JSON with one buffer per line: readable, diffable, and small. `head` is
/// written first, field by field in its declared order, then `buffers`.
fn write_lines<T: Serialize>(
    head: &T,
    buffers: &[BufferOut<'_>],
    out: impl Write,
) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(out);
    let mut head_text = serde_json::to_string(head).map_err(std::io::Error::other)?;
    head_text.pop(); // the closing brace
    w.write_all(head_text.as_bytes())?;
    if head_text.len() > 1 {
        w.write_all(b",")?;
    }
    w.write_all(b"\n  \"buffers\": [")?;
    for (j, b) in buffers.iter().enumerate() {
        w.write_all(if j == 0 { b"\n    " } else { b",\n    " })?;
        serde_json::to_writer(&mut w, b)?;
    }
    w.write_all(b"\n  ]\n}\n")?;
    w.flush()
}

/// Reads a plan from JSON: `id` and `offset` of every object in `buffers` (other fields
/// are ignored). Checking the placements is [`crate::check_placements`]'s job.
pub fn read_placements_json(input: &[u8]) -> Result<Vec<(String, Offset)>, ReadError> {
    let parsed: PlacementsIn = serde_json::from_slice(without_bom(input)).map_err(json_error)?;
    Ok(parsed
        .buffers
        .into_iter()
        .map(|p| (p.id, Offset(p.offset)))
        .collect())
}

/// [`read_placements_json`], with each buffer's string field `field` (`None` when
/// absent or not a string).
#[cfg(feature = "memories")]
pub(crate) fn read_placements_json_with(
    input: &[u8],
    field: &str,
) -> Result<Vec<(String, Offset, Option<String>)>, ReadError> {
    #[derive(Deserialize)]
    struct Rows {
        buffers: Vec<serde_json::Map<String, serde_json::Value>>,
    }
    let parsed: Rows = serde_json::from_slice(without_bom(input)).map_err(json_error)?;
    let mut out = Vec::with_capacity(parsed.buffers.len());
    for (i, b) in parsed.buffers.into_iter().enumerate() {
        let bad = |what: &str, message: String| ReadError {
            line: 0,
            column: None,
            kind: ReadErrorKind::JsonField {
                field: format!("buffers[{i}].{what}"),
                message,
            },
        };
        let id = match b.get("id") {
            Some(serde_json::Value::String(s)) => s.clone(),
            other => {
                return Err(bad(
                    "id",
                    format!("expected a string, found {}", shown(other)),
                ))
            }
        };
        let offset = match b.get("offset").and_then(serde_json::Value::as_u64) {
            Some(o) => Offset(o),
            None => {
                let found = shown(b.get("offset"));
                return Err(bad(
                    "offset",
                    format!("expected a non-negative integer, found {found}"),
                ));
            }
        };
        let value = b.get(field).and_then(|v| v.as_str().map(str::to_string));
        out.push((id, offset, value));
    }
    Ok(out)
}

#[cfg(feature = "memories")]
fn shown(v: Option<&serde_json::Value>) -> String {
    v.map_or("nothing".to_string(), |v| v.to_string())
}

/// The text without a UTF-8 byte-order mark, which JSON readers refuse and editors on
/// Windows write (the CSV reader accepts it too).
fn without_bom(input: &[u8]) -> &[u8] {
    input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input)
}

/// True when the text looks like JSON (its first non-blank byte is `{`), for inputs
/// without a file name such as stdin.
pub fn looks_like_json(input: &[u8]) -> bool {
    input
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(input)
        .iter()
        .find(|c| !c.is_ascii_whitespace())
        == Some(&b'{')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{read_problem_csv, ReadOptions};
    use crate::{check, plan, Options, Request};

    /// The sample problem and the capacity its file carries.
    const CAPACITY: Option<Size> = Some(Size(64));

    fn sample() -> Problem {
        Problem::new(vec![
            Buffer::new("a", 0, 3, 4),
            Buffer::new("b \"quoted\", comma", 3, 9, 4).with_alignment(8),
            Buffer::new("c", 0, 9, 4)
                .with_fixed_offset(16)
                .with_gap(2, 5)
                .with_gap(6, 7),
        ])
        .unwrap()
    }

    #[test]
    fn problem_round_trips() {
        let p = sample();
        let mut out = Vec::new();
        write_problem_json(&p, CAPACITY, &mut out).unwrap();
        let back = read_problem_json(&out, &ReadOptions::default()).unwrap();
        assert_eq!(back, (p.clone(), CAPACITY));
        assert!(looks_like_json(&out));
        let mut out = Vec::new();
        write_problem_json(&p, None, &mut out).unwrap();
        assert_eq!(
            read_problem_json(&out, &ReadOptions::default()).unwrap(),
            (p, None)
        );
    }

    /// Issue 27 §3: no buffers is a valid problem in every door; `"buffers": []` reads as
    /// it, and it round-trips, plans to height 0 and checks.
    #[test]
    fn issue_27_the_empty_problem_round_trips_and_plans() {
        let empty = Problem::new(vec![]).unwrap();
        let mut out = Vec::new();
        write_problem_json(&empty, None, &mut out).unwrap();
        assert_eq!(
            read_problem_json(&out, &ReadOptions::default()).unwrap(),
            (empty.clone(), None)
        );
        assert!(
            read_problem_json(br#"{"buffers": []}"#, &ReadOptions::default())
                .unwrap()
                .0
                .is_empty()
        );
        let report = plan(&empty, &Request::minimise(), &Options::default()).unwrap();
        let pl = report.outcome.plan().unwrap();
        assert_eq!(pl.height(), Size(0));
        assert_eq!(report.lower_bound, Size(0));
        check(&empty, pl, None).unwrap();
        assert!(read_placements_json(br#"{"buffers": []}"#)
            .unwrap()
            .is_empty());
    }

    #[test]
    fn plan_round_trips_through_placements() {
        let p = sample();
        let request = Request::fit(CAPACITY.unwrap());
        let report = plan(&p, &request, &Options::default()).unwrap();
        let pl = report.outcome.plan().unwrap();
        let mut out = Vec::new();
        let info = PlanInfo {
            max_load: report.max_load.get(),
            lower_bound: report.max_load.get(),
            optimal: true,
            planner: report.planner.name(),
        };
        write_plan_json(&p, CAPACITY, pl, &info, &mut out).unwrap();
        let placements = read_placements_json(&out).unwrap();
        let offsets: Vec<Offset> = placements.iter().map(|(_, o)| *o).collect();
        assert_eq!(offsets, pl.offsets());
        check(&p, pl, CAPACITY).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["height"], pl.height().get());
        assert_eq!(v["capacity"], 64);
        assert_eq!(v["planner"], report.planner.name());
    }

    #[test]
    fn same_problem_as_csv() {
        let csv = "id,lower,upper,size\nx,0,4,10\ny,2,6,20\n";
        let json = r#"{"buffers": [{"id": "x", "start": 0, "end": 4, "size": 10},
                                    {"id": "y", "start": 2, "end": 6, "size": 20}]}"#;
        let a = read_problem_csv(csv.as_bytes(), &ReadOptions::default()).unwrap();
        let b = read_problem_json(json.as_bytes(), &ReadOptions::default()).unwrap();
        assert_eq!((a, None), b);
    }

    #[test]
    fn errors_name_the_problem() {
        let msg = |s: &str| {
            read_problem_json(s.as_bytes(), &ReadOptions::default())
                .unwrap_err()
                .to_string()
        };
        assert!(
            msg(r#"{"buffers": [{"id": "x", "start": 0, "end": 4, "sise": 1}]}"#).contains("sise")
        );
        assert!(msg("{\n\"buffers\": [\n{\"id\": \"x\", \"start\": -1}]}").starts_with("line 3"));
        assert!(
            msg(r#"{"buffers": [{"id": "x", "start": 4, "end": 4, "size": 1}]}"#).contains("'x'")
        );
        assert!(msg("").contains("EOF"));
        assert!(msg("[1, 2]").contains("expected"));
    }
}
