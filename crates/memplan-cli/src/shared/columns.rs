//! The columns of problem and plan files that memplan's problem does not hold (a spill
//! `cost` or `memory`, a memory's `memories` or `accesses`), and the matching of a
//! plan's rows to a problem's buffers by id: for the spill and the memories forms alike.

use std::collections::HashMap;

use memplan::{Problem, ReadError};

use super::files::display_path;
use crate::exit::{self, Failure};

/// "FILE: line L, column 'C': WHAT", exit 3.
pub fn bad_field(path: &str, line: u64, column: &str, what: String) -> Failure {
    Failure::new(
        exit::INPUT,
        format!(
            "{}: line {line}, column '{column}': {what}",
            display_path(path)
        ),
    )
}

/// The values of the CSV column named `name` (case-insensitive), each with its line;
/// `None` when the header has no such column.
pub fn csv_column(bytes: &[u8], name: &str) -> Result<Option<Vec<(u64, String)>>, ReadError> {
    let (names, rows) = memplan::io::read_rows_csv(bytes)?;
    let Some(k) = names.iter().position(|n| n.eq_ignore_ascii_case(name)) else {
        return Ok(None);
    };
    let field = |(line, mut fields): (u64, Vec<String>)| {
        let value = if k < fields.len() {
            fields.swap_remove(k)
        } else {
            String::new()
        };
        (line, value)
    };
    Ok(Some(rows.into_iter().map(field).collect()))
}

/// Each buffer's index, by id.
pub fn index_by_id(problem: &Problem) -> HashMap<&str, usize> {
    problem
        .buffers()
        .iter()
        .enumerate()
        .map(|(i, b)| (b.id.as_str(), i))
        .collect()
}
