//! Problem files with several memories: [`ProblemFile`], and plan files across memories.

use super::MemoriesProblem;
use crate::error::{ReadError, ReadErrorKind};
#[cfg(feature = "spill")]
use crate::memories::SpillMemory;
use crate::memory_types::{
    memory_named, MemoriesError, MemoriesInput, Memory, MemoryIdx, MemoryPlan, MemorySet,
};
use crate::types::{Offset, Problem, Size};

use crate::io::ReadOptions;

/// The per-buffer fields of several memories, in the order [`Column`] lists them.
const FIELDS: [&str; 4] = ["memories", "accesses", "cost", "memory"];

/// One of [`FIELDS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Column {
    Memories = 0,
    Accesses = 1,
    Cost = 2,
    Memory = 3,
}

/// Where a value is: a CSV line, or a JSON buffer's position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At {
    Line(u64),
    Entry(usize),
}

/// Each buffer's value of one field, as text (empty: not given), with where it is.
type Cells = Vec<(At, String)>;

/// Problem files with several memories: a problem file read once ([`ProblemFile`]) holds
/// the buffers and everything a file may say of memories, and becomes a
/// [`MemoriesProblem`] with the memories it is planned across ([`MemoriesOf`]).
///
/// ```text
///   id,lower,upper,size,memories,accesses        {"memories": [{"name": "tcm", "capacity": 8}, …],
///   a,0,3,4,,2                                     "buffers": [{"id": "a", …, "accesses": 2},
///   b,0,2,4,ocram|dram,                                        {"id": "b", …, "memories": ["ocram", "dram"]}]}
/// ```
///
/// Per buffer (a CSV column or a JSON field; empty or absent: the default):
/// - `memories`: the memories it may use, names separated by `|` (JSON: a name or a list
///   of names); default all, one name pins it;
/// - `accesses`: its access count (traffic `size × accesses`, default 1);
/// - `cost`: its traffic given directly (spill's word: the cost of moving it to slow
///   memory), not with `accesses`;
/// - `memory`: with spill, where it must live (`fast`, `slow`, `either`); otherwise a
///   plan's output, and an error in a problem.
///
/// The memories come from the caller (a command line's `--memories`), from a JSON file's
/// `memories` section (`name`, `capacity` or null, `alignment`, `cost` per byte), or from
/// spill's capacity (`fast` under it, then an unbounded `slow`). Every error names the
/// line and column (CSV) or the field (JSON, `buffers[2].memories`).
#[derive(Debug)]
pub struct ProblemFile {
    problem: Problem,
    capacity: Option<Size>,
    memories: Option<Vec<Memory>>,
    fields: [Option<Cells>; 4],
    json: bool,
}

/// The memories a [`ProblemFile`] is planned across.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemoriesOf {
    /// The file's own `memories` section (JSON).
    File,
    /// These memories, fastest first, in place of the file's.
    Given(Vec<Memory>),
    /// Spill under this capacity: `fast` under it, then an unbounded `slow`; the file's
    /// `cost` is each buffer's traffic and its `memory` where it must live
    /// ([`MemoriesProblem::spill`]).
    #[cfg(feature = "spill")]
    Spill(Size),
}

fn at_error(at: At, field: &str, kind: ReadErrorKind) -> ReadError {
    match at {
        At::Line(line) => ReadError {
            line,
            column: Some(field.to_string()),
            kind,
        },
        At::Entry(i) => ReadError {
            line: 0,
            column: Some(format!("buffers[{i}].{field}")),
            kind,
        },
    }
}

fn rule(e: impl std::error::Error + Send + Sync + 'static) -> ReadErrorKind {
    ReadErrorKind::Memories(Box::new(e))
}

impl ProblemFile {
    /// Reads a CSV problem ([`crate::io::read_problem_csv`]) with its columns of several
    /// memories, in one pass.
    #[cfg(feature = "csv")]
    pub fn read_csv(input: &[u8], options: &ReadOptions) -> Result<ProblemFile, ReadError> {
        let (problem, extra) = crate::io::csv::read_problem_csv_with(input, options, &FIELDS)?;
        let mut fields: [Option<Cells>; 4] = Default::default();
        for (slot, column) in fields.iter_mut().zip(extra) {
            *slot = column.map(|c| c.into_iter().map(|(l, v)| (At::Line(l), v)).collect());
        }
        Ok(ProblemFile {
            problem,
            capacity: None,
            memories: None,
            fields,
            json: false,
        })
    }

    /// Reads a JSON problem ([`crate::io::read_problem_json`]) with its `memories` section
    /// and its buffers' fields of several memories, in one pass.
    #[cfg(feature = "json")]
    pub fn read_json(input: &[u8], options: &ReadOptions) -> Result<ProblemFile, ReadError> {
        let (problem, capacity, extra) = crate::io::json::read_problem_json_with(input, options)?;
        let memories = match extra.memories {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => Some(json_memories(&v)?),
        };
        let n = extra.buffers.len();
        let mut fields: [Option<Cells>; 4] = Default::default();
        let given = |f: fn(&crate::io::json::BufferExtra) -> bool| extra.buffers.iter().any(f);
        let present = [
            given(|b| b.memories.as_ref().is_some_and(|v| !v.is_null())),
            given(|b| b.accesses.is_some()),
            given(|b| b.cost.is_some()),
            given(|b| b.memory.as_ref().is_some_and(|v| !v.is_null())),
        ];
        for (k, slot) in fields.iter_mut().enumerate() {
            if present[k] {
                *slot = Some(Vec::with_capacity(n));
            }
        }
        for (i, b) in extra.buffers.iter().enumerate() {
            let at = At::Entry(i);
            let number = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
            let texts = [
                json_names(b.memories.as_ref(), at, "memories")?,
                number(b.accesses),
                number(b.cost),
                json_names(b.memory.as_ref(), at, "memory")?,
            ];
            for (slot, text) in fields.iter_mut().zip(texts) {
                if let Some(cells) = slot {
                    cells.push((at, text));
                }
            }
        }
        Ok(ProblemFile {
            problem,
            capacity,
            memories,
            fields,
            json: true,
        })
    }

    /// The buffers and their shares.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// The problem and the file's capacity (a JSON `capacity`: a goal), for planning in
    /// one memory.
    pub fn into_problem(self) -> (Problem, Option<Size>) {
        (self.problem, self.capacity)
    }

    /// True when the file has its own memories (a JSON `memories` section).
    pub fn has_memories(&self) -> bool {
        self.memories.is_some()
    }

    /// The fields of several memories that the file gives a value for, in the order
    /// `memories`, `accesses`, `cost`, `memory`.
    pub fn memories_fields(&self) -> Vec<&'static str> {
        FIELDS
            .iter()
            .zip(&self.fields)
            .filter(|(_, cells)| {
                cells
                    .as_ref()
                    .is_some_and(|c| c.iter().any(|(_, v)| !v.is_empty()))
            })
            .map(|(name, _)| *name)
            .collect()
    }

    /// Where each buffer is, for errors that name a buffer.
    fn places(&self) -> Places {
        let each = self
            .fields
            .iter()
            .flatten()
            .next()
            .map(|cells| cells.iter().map(|(at, _)| *at).collect());
        Places {
            each,
            json: self.json,
        }
    }

    fn cells(&self, column: Column) -> Option<&Cells> {
        self.fields[column as usize].as_ref()
    }

    /// The problem across the memories `of`, with each buffer's data from the file (see
    /// see [`ProblemFile`]), checked ([`MemoriesProblem::new`]); errors name the line
    /// and column (CSV) or the field (JSON).
    pub fn into_memories(self, of: MemoriesOf) -> Result<MemoriesProblem, ReadError> {
        let memories = match of {
            MemoriesOf::File => match &self.memories {
                Some(m) => m.clone(),
                None => return Err(at_error(At::Line(0), "memories", ReadErrorKind::NoMemories)),
            },
            MemoriesOf::Given(m) => m,
            #[cfg(feature = "spill")]
            MemoriesOf::Spill(capacity) => return self.into_spill(capacity),
        };
        crate::memory_types::validate_memories(&memories).map_err(|e| ReadError {
            line: 0,
            column: None,
            kind: rule(e),
        })?;
        if let Some((at, v)) = self
            .cells(Column::Memory)
            .and_then(|c| c.iter().find(|(_, v)| !v.is_empty()))
        {
            return Err(at_error(
                *at,
                "memory",
                ReadErrorKind::MemoryIsOutput(v.clone()),
            ));
        }
        let all = MemorySet::all(memories.len());
        let allowed = self
            .cells(Column::Memories)
            .map(|cells| {
                cells
                    .iter()
                    .map(|(at, v)| Self::allowed_set(&memories, all, *at, v))
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        let accesses = self.numbers(Column::Accesses, 1)?;
        let traffic = self.numbers_or_sizes(Column::Cost)?;
        let input = MemoriesInput {
            allowed: allowed.as_deref(),
            accesses: accesses.as_deref(),
            traffic: traffic.as_deref(),
        };
        let places = self.places();
        MemoriesProblem::new(self.problem, memories, &input).map_err(|e| places.error(e))
    }

    /// The spill problem under `capacity` ([`MemoriesOf::Spill`]).
    #[cfg(feature = "spill")]
    fn into_spill(self, capacity: Size) -> Result<MemoriesProblem, ReadError> {
        let costs = self.numbers_or_sizes(Column::Cost)?;
        let pins = self
            .cells(Column::Memory)
            .map(|cells| {
                cells
                    .iter()
                    .map(|(at, v)| {
                        v.parse::<SpillMemory>()
                            .map_err(|e| at_error(*at, "memory", rule(e)))
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        let places = self.places();
        MemoriesProblem::spill(self.problem, capacity, costs, pins).map_err(|e| places.error(e))
    }

    /// A buffer's allowed set from its `memories` text (empty: all).
    fn allowed_set(
        memories: &[Memory],
        all: MemorySet,
        at: At,
        text: &str,
    ) -> Result<MemorySet, ReadError> {
        let names: Vec<&str> = text
            .split(['|', ',', ' ', ';'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if names.is_empty() {
            if text.trim().is_empty() {
                return Ok(all);
            }
            return Err(at_error(at, "memories", ReadErrorKind::EmptyMemorySet));
        }
        let mut set = MemorySet::EMPTY;
        for name in names {
            let m = memory_named(memories, name).map_err(|e| at_error(at, "memories", rule(e)))?;
            set = MemorySet(set.0 | MemorySet::single(m).0);
        }
        Ok(set)
    }

    /// The column's numbers, an empty value `default`.
    fn numbers(&self, column: Column, default: u64) -> Result<Option<Vec<u64>>, ReadError> {
        self.cells(column)
            .map(|cells| {
                cells
                    .iter()
                    .map(|(at, v)| match v.as_str() {
                        "" => Ok(default),
                        v => number(v).map_err(|k| at_error(*at, FIELDS[column as usize], k)),
                    })
                    .collect()
            })
            .transpose()
    }

    /// The column's numbers, an empty value the buffer's size.
    fn numbers_or_sizes(&self, column: Column) -> Result<Option<Vec<u64>>, ReadError> {
        let Some(mut values) = self.numbers(column, u64::MAX)? else {
            return Ok(None);
        };
        let cells = self.cells(column).expect("read above");
        for ((v, (_, text)), b) in values.iter_mut().zip(cells).zip(self.problem.buffers()) {
            if text.is_empty() {
                *v = b.size.get();
            }
        }
        Ok(Some(values))
    }
}

fn number(v: &str) -> Result<u64, ReadErrorKind> {
    if !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ReadErrorKind::BadNumber(v.to_string()));
    }
    v.parse()
        .map_err(|_| ReadErrorKind::NumberTooLarge(v.to_string()))
}

/// A JSON name field (`memory`) or names field (`memories`: a name or a list of names)
/// as text, the names joined by `|`.
#[cfg(feature = "json")]
fn json_names(v: Option<&serde_json::Value>, at: At, field: &str) -> Result<String, ReadError> {
    use serde_json::Value;
    let wrong = |found: &Value| {
        let expected = match field {
            "memories" => "a memory's name or a list of names",
            _ => "a memory's name",
        };
        at_error(
            at,
            field,
            ReadErrorKind::Json(format!("expected {expected}, found {found}")),
        )
    };
    match v {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(list)) if field == "memories" => {
            let names = list
                .iter()
                .map(|x| x.as_str().ok_or_else(|| wrong(x)))
                .collect::<Result<Vec<_>, _>>()?;
            if names.is_empty() {
                // An empty list: no allowed memory (an empty string is the default).
                return Ok("|".to_string());
            }
            Ok(names.join("|"))
        }
        Some(other) => Err(wrong(other)),
    }
}

/// A JSON problem's `memories` section: a list of `{"name", "capacity", "alignment",
/// "cost"}` objects, `name` required.
#[cfg(feature = "json")]
fn json_memories(value: &serde_json::Value) -> Result<Vec<Memory>, ReadError> {
    use serde_json::Value;
    let field = |path: String, message: String| ReadError {
        line: 0,
        column: None,
        kind: ReadErrorKind::JsonField {
            field: path,
            message,
        },
    };
    let Value::Array(list) = value else {
        return Err(field(
            "memories".into(),
            format!("expected a list of memories, found {value}"),
        ));
    };
    let mut memories = Vec::with_capacity(list.len());
    for (k, m) in list.iter().enumerate() {
        let Some(fields) = m.as_object() else {
            return Err(field(
                format!("memories[{k}]"),
                format!(
                    r#"expected an object such as {{"name": "tcm", "capacity": 524288}}, found {m}"#
                ),
            ));
        };
        let mut memory = Memory::new("");
        for (key, v) in fields {
            let path = format!("memories[{k}].{key}");
            let int = |v: &Value| {
                v.as_u64().ok_or_else(|| {
                    field(
                        path.clone(),
                        format!("expected a non-negative integer, found {v}"),
                    )
                })
            };
            match key.as_str() {
                "name" => {
                    memory.name = v
                        .as_str()
                        .ok_or_else(|| {
                            field(path.clone(), format!("expected a string, found {v}"))
                        })?
                        .to_string()
                }
                "capacity" | "cost" if v.is_null() => {}
                "capacity" => memory.capacity = Some(Size(int(v)?)),
                "alignment" => memory.alignment = Size(int(v)?),
                "cost" => memory.cost = Some(int(v)?),
                other => {
                    return Err(field(
                        format!("memories[{k}]"),
                        format!(
                            "unknown field {}: expected name, capacity, alignment or cost",
                            Value::String(other.to_string())
                        ),
                    ))
                }
            }
        }
        if !fields.contains_key("name") {
            return Err(field(
                format!("memories[{k}]"),
                "missing field 'name'".into(),
            ));
        }
        memories.push(memory);
    }
    Ok(memories)
}

/// Where each buffer's fields are, to name the place of an error of
/// [`MemoriesProblem::new`] that names a buffer.
struct Places {
    /// Each buffer's place (its line, or its JSON position), when a field was read.
    each: Option<Vec<At>>,
    json: bool,
}

impl Places {
    /// Buffer `index`'s `field`, or the whole field (`None`).
    fn at(&self, index: Option<usize>, field: &str, kind: ReadErrorKind) -> ReadError {
        let at = match (index, &self.each) {
            (Some(i), Some(each)) => each.get(i).copied(),
            (Some(i), None) if self.json => Some(At::Entry(i)),
            _ => None,
        };
        match at {
            Some(at) => at_error(at, field, kind),
            None => ReadError {
                line: 0,
                column: (!field.is_empty()).then(|| field.to_string()),
                kind,
            },
        }
    }

    fn error(&self, e: MemoriesError) -> ReadError {
        let (index, field) = match &e {
            MemoriesError::EmptyAllowed { index, .. }
            | MemoriesError::FixedInSeveral { index, .. }
            | MemoriesError::RequiredShareApart { index, .. } => (Some(*index), "memories"),
            MemoriesError::MisalignedFixed { index, .. } => (Some(*index), "offset"),
            MemoriesError::FixedInSlow { index, .. } => (Some(*index), "memory"),
            MemoriesError::Count { what, .. } if *what == "memory preferences" => (None, "memory"),
            MemoriesError::AccessesAndTraffic => (None, "cost"),
            _ => (None, ""),
        };
        self.at(index, field, rule(e))
    }
}

/// Reads a plan across the memories of `problem` from CSV: the `id`, `offset` and
/// `memory` (a memory's name) columns, one row per buffer, matched to the buffers by id;
/// each memory's height and traffic and the cost computed, for
/// [`MemoriesProblem::check`] to judge the rest.
#[cfg(feature = "csv")]
pub fn read_memory_plan_csv(
    input: &[u8],
    problem: &MemoriesProblem,
) -> Result<MemoryPlan, ReadError> {
    let (placements, mut extra) = crate::io::csv::read_placements_csv_with(input, &["memory"])?;
    let names = extra.pop().flatten().ok_or(ReadError {
        line: 1,
        column: None,
        kind: ReadErrorKind::MissingColumn("memory"),
    })?;
    let rows = placements
        .into_iter()
        .zip(names)
        .map(|((id, offset), (line, name))| (At::Line(line), id, offset, name));
    memory_plan(problem, rows)
}

/// Reads a plan across the memories of `problem` from JSON: `id`, `offset` and `memory`
/// of every object in `buffers` (other fields ignored); as [`read_memory_plan_csv`].
#[cfg(feature = "json")]
pub fn read_memory_plan_json(
    input: &[u8],
    problem: &MemoriesProblem,
) -> Result<MemoryPlan, ReadError> {
    let rows = crate::io::json::read_placements_json_with(input, "memory")?;
    let rows = rows
        .into_iter()
        .enumerate()
        .map(|(i, (id, offset, name))| (At::Entry(i), id, offset, name.unwrap_or_default()));
    memory_plan(problem, rows)
}

fn memory_plan(
    problem: &MemoriesProblem,
    rows: impl Iterator<Item = (At, String, Offset, String)>,
) -> Result<MemoryPlan, ReadError> {
    let buffers = problem.problem().buffers();
    let index: std::collections::HashMap<&str, usize> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| (b.id.as_str(), i))
        .collect();
    let mut slots: Vec<Option<(MemoryIdx, Offset)>> = vec![None; buffers.len()];
    for (at, id, offset, name) in rows {
        let place = |kind| match at {
            At::Line(line) => ReadError {
                line,
                column: None,
                kind,
            },
            At::Entry(_) => at_error(at, "id", kind),
        };
        let m = memory_named(problem.memories(), name.trim())
            .map_err(|e| at_error(at, "memory", rule(e)))?;
        match index.get(id.as_str()) {
            None => return Err(place(ReadErrorKind::UnknownBuffer(id))),
            Some(&i) if slots[i].is_some() => {
                return Err(place(ReadErrorKind::DuplicatePlacement(id)))
            }
            Some(&i) => slots[i] = Some((m, offset)),
        }
    }
    if let Some(i) = slots.iter().position(Option::is_none) {
        let id = buffers[i].id.clone();
        return Err(ReadError {
            line: 0,
            column: None,
            kind: ReadErrorKind::MissingPlacement(id),
        });
    }
    let (memory, offsets): (Vec<MemoryIdx>, Vec<Offset>) = slots.into_iter().flatten().unzip();
    Ok(problem
        .plan_of(memory, offsets)
        .expect("one memory and offset per buffer, each memory known"))
}

#[cfg(all(test, feature = "csv", feature = "json", feature = "spill"))]
mod tests {
    use super::*;
    use crate::memory_types::MemoriesInput;
    use crate::Buffer;

    const CSV: &[u8] =
        b"id,lower,upper,size,memories,accesses\na,0,3,4,,2\nb,0,2,4,ocram|dram,\nc,1,3,4,tcm,\n";
    const JSON: &[u8] = br#"{"memories": [{"name": "tcm", "capacity": 8}, {"name": "ocram", "capacity": 4, "alignment": 4}, {"name": "dram"}],
      "buffers": [{"id": "a", "start": 0, "end": 3, "size": 4, "accesses": 2},
                  {"id": "b", "start": 0, "end": 2, "size": 4, "memories": ["ocram", "dram"]},
                  {"id": "c", "start": 1, "end": 3, "size": 4, "memories": "tcm"}]}"#;

    fn memories() -> Vec<Memory> {
        vec![
            Memory::new("tcm").with_capacity(8),
            Memory::new("ocram").with_capacity(4).with_alignment(4),
            Memory::new("dram"),
        ]
    }

    fn options() -> ReadOptions {
        ReadOptions::default()
    }

    /// The CSV with `--memories` and the JSON with its section are one problem, equal to
    /// the one made by hand.
    #[test]
    fn csv_and_json_read_the_same_problem() {
        let csv = ProblemFile::read_csv(CSV, &options()).unwrap();
        assert_eq!(csv.memories_fields(), ["memories", "accesses"]);
        assert!(!csv.has_memories());
        let csv = csv.into_memories(MemoriesOf::Given(memories())).unwrap();
        let json = ProblemFile::read_json(JSON, &options()).unwrap();
        assert!(json.has_memories());
        let json = json.into_memories(MemoriesOf::File).unwrap();
        let problem = Problem::new(vec![
            Buffer::new("a", 0, 3, 4),
            Buffer::new("b", 0, 2, 4),
            Buffer::new("c", 1, 3, 4),
        ])
        .unwrap();
        let all = MemorySet::all(3);
        let allowed = [
            all,
            MemorySet::of([MemoryIdx(1), MemoryIdx(2)]),
            MemorySet::single(MemoryIdx(0)),
        ];
        let accesses = [2, 1, 1];
        let input = MemoriesInput {
            allowed: Some(&allowed),
            accesses: Some(&accesses),
            traffic: None,
        };
        let by_hand = MemoriesProblem::new(problem, memories(), &input).unwrap();
        for read in [&csv, &json] {
            assert_eq!(read.problem(), by_hand.problem());
            assert_eq!(read.memories(), by_hand.memories());
            assert_eq!(read.input(), by_hand.input());
        }
        assert_eq!(csv.traffic(), [8, 4, 4]);
    }

    /// Spill's form: `cost` is the traffic (empty: the size), `memory` the pins; a fixed
    /// buffer is fast, and asking it to be slow names its line.
    #[test]
    fn spill_reads_costs_and_pins() {
        let text = b"id,lower,upper,size,cost,memory\na,0,3,4,9,\nb,0,2,4,,slow\nc,1,3,4,5,fast\n";
        let file = ProblemFile::read_csv(text, &options()).unwrap();
        assert_eq!(file.memories_fields(), ["cost", "memory"]);
        let spill = file.into_memories(MemoriesOf::Spill(Size(8))).unwrap();
        let names: Vec<&str> = spill.memories().iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["fast", "slow"]);
        assert_eq!(spill.memories()[0].capacity, Some(Size(8)));
        assert_eq!(spill.traffic(), [9, 4, 5]);
        let sets = spill.input().allowed.unwrap().to_vec();
        assert_eq!(
            sets,
            [
                MemorySet::all(2),
                MemorySet::single(MemoryIdx(1)),
                MemorySet::single(MemoryIdx(0))
            ]
        );
        let fixed = b"id,lower,upper,size,offset,memory\na,0,3,4,,\nb,0,2,4,0,slow\n";
        let e = ProblemFile::read_csv(fixed, &options())
            .unwrap()
            .into_memories(MemoriesOf::Spill(Size(8)))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 3, column 'memory': buffer 'b' (#1) has a fixed offset, so it cannot be slow"
        );
    }

    /// Every error names its place: a CSV line and column, a JSON field.
    #[test]
    fn errors_name_the_line_and_column_or_the_field() {
        let given = || MemoriesOf::Given(memories());
        let read_csv = |text: &[u8], of| {
            ProblemFile::read_csv(text, &options())
                .unwrap()
                .into_memories(of)
        };
        let cases: [(&[u8], &str); 5] = [
            (
                b"id,lower,upper,size,memories\na,0,3,4,sram\n",
                "line 2, column 'memories': unknown memory 'sram'",
            ),
            (
                b"id,lower,upper,size,memories\na,0,3,4,|\n",
                "line 2, column 'memories': the set of memories is empty",
            ),
            (
                b"id,lower,upper,size,accesses\na,0,3,4,x\n",
                "line 2, column 'accesses': not a non-negative integer: 'x'",
            ),
            (
                b"id,lower,upper,size,memory\na,0,3,4,tcm\n",
                "line 2, column 'memory': 'tcm': a buffer's memory is the plan's output",
            ),
            (
                b"id,lower,upper,size,offset,memories\na,0,3,4,2,ocram\n",
                "line 2, column 'offset': buffer 'a' (#0): fixed offset 2 is not a multiple",
            ),
        ];
        for (text, want) in cases {
            let e = read_csv(text, given()).unwrap_err().to_string();
            assert!(e.starts_with(want), "{e}");
        }
        let accesses_and_cost = b"id,lower,upper,size,accesses,cost\na,0,3,4,1,4\n";
        let e = read_csv(accesses_and_cost, given())
            .unwrap_err()
            .to_string();
        assert_eq!(e, "column 'cost': give accesses or traffic, not both");
        let json =
            br#"{"buffers": [{"id": "a", "start": 0, "end": 3, "size": 4, "memories": [3]}]}"#;
        let e = ProblemFile::read_json(json, &options())
            .unwrap_err()
            .to_string();
        assert_eq!(e, "buffers[0].memories: malformed JSON: expected a memory's name or a list of names, found 3");
        let json =
            br#"{"buffers": [{"id": "a", "start": 0, "end": 3, "size": 4, "memories": "sram"}]}"#;
        let e = ProblemFile::read_json(json, &options())
            .unwrap()
            .into_memories(given());
        assert_eq!(
            e.unwrap_err().to_string(),
            "buffers[0].memories: unknown memory 'sram'"
        );
        let e = ProblemFile::read_csv(CSV, &options())
            .unwrap()
            .into_memories(MemoriesOf::File);
        assert_eq!(
            e.unwrap_err().to_string(),
            "column 'memories': no memories: the file has no 'memories' section"
        );
        let section = br#"{"memories": [{"name": "tcm"}, {"name": "tcm"}], "buffers": []}"#;
        let e = ProblemFile::read_json(section, &options())
            .unwrap()
            .into_memories(MemoriesOf::File);
        assert_eq!(e.unwrap_err().to_string(), "duplicate memory name 'tcm'");
    }

    /// A plan file across the memories: matched by id, its figures computed; its rows'
    /// faults named.
    #[test]
    fn a_plan_file_is_read_across_the_memories() {
        let problem = ProblemFile::read_csv(CSV, &options())
            .unwrap()
            .into_memories(MemoriesOf::Given(memories()))
            .unwrap();
        let plan =
            read_memory_plan_csv(b"id,offset,memory\nc,4,tcm\na,0,tcm\nb,0,ocram\n", &problem)
                .unwrap();
        assert_eq!(plan.memory, [MemoryIdx(0), MemoryIdx(1), MemoryIdx(0)]);
        assert_eq!(plan.offsets, [Offset(0), Offset(0), Offset(4)]);
        assert_eq!(plan.heights, [Size(8), Size(4), Size(0)]);
        assert_eq!((plan.traffic.clone(), plan.cost), (vec![12, 4, 0], 4));
        problem.check(&plan).unwrap();
        let json = br#"{"buffers": [{"id": "a", "offset": 0, "memory": "tcm"}, {"id": "b", "offset": 0, "memory": "ocram"}, {"id": "c", "offset": 4, "memory": "tcm"}]}"#;
        assert_eq!(read_memory_plan_json(json, &problem).unwrap(), plan);
        for (text, want) in [
            (
                &b"id,offset,memory\na,0,tcm\nb,0,sram\nc,4,tcm\n"[..],
                "line 3, column 'memory': unknown memory 'sram'",
            ),
            (
                b"id,offset,memory\na,0,tcm\na,0,tcm\nc,4,tcm\n",
                "line 3: buffer 'a' is placed twice",
            ),
            (
                b"id,offset,memory\na,0,tcm\nx,0,tcm\nc,4,tcm\n",
                "line 3: unknown buffer 'x'",
            ),
            (
                b"id,offset,memory\na,0,tcm\nc,4,tcm\n",
                "buffer 'b' has no offset",
            ),
            (
                b"id,offset\na,0\n",
                "line 1: missing column 'memory' in the header",
            ),
        ] {
            assert_eq!(
                read_memory_plan_csv(text, &problem)
                    .unwrap_err()
                    .to_string(),
                want
            );
        }
    }
}
