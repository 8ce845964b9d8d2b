//! The CSV reader and writers on small inputs: columns, conventions, errors.

use super::*;

fn read(text: &str) -> Result<Problem, ReadError> {
    read_problem_csv(text.as_bytes(), &ReadOptions::default())
}

fn message(text: &str) -> String {
    read(text).unwrap_err().to_string()
}

#[test]
fn reads_minimalloc_example() {
    let p = read("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n").unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(p.buffers()[1].lifetime, Lifetime::new(3, 9));
}

#[test]
fn end_column_is_inclusive_and_aliases_work() {
    let p = read("buffer_id,start,end,size,gaps\nx,0,3,4,1-1\n").unwrap();
    assert_eq!(p.buffers()[0].lifetime, Lifetime::new(0, 4));
    assert_eq!(p.buffers()[0].gaps, vec![Lifetime::new(1, 2)]);
    let opts = ReadOptions {
        lifetimes: Some(LifetimeConvention::Inclusive),
        ..ReadOptions::default()
    };
    let p = read_problem_csv(b"id,lower,upper,size\nx,0,3,4\n", &opts).unwrap();
    assert_eq!(p.buffers()[0].lifetime, Lifetime::new(0, 4));
    let opts = ReadOptions {
        lifetimes: Some(LifetimeConvention::HalfOpen),
        ..ReadOptions::default()
    };
    let p = read_problem_csv(b"id,begin,end,size\nx,0,3,4\n", &opts).unwrap();
    assert_eq!(p.buffers()[0].lifetime, Lifetime::new(0, 3));
}

#[test]
fn optional_columns_and_empty_fields() {
    let p = read(
        "ID,Lower,Upper,Size,alignment,offset,gaps,note\na,0,10,4,4,8,2-3 5-7,hi\nb,0,2,4,,,,x\n",
    )
    .unwrap();
    let a = &p.buffers()[0];
    assert_eq!((a.alignment, a.fixed_offset), (Size(4), Some(Offset(8))));
    assert_eq!(a.gaps, vec![Lifetime::new(2, 3), Lifetime::new(5, 7)]);
    let b = &p.buffers()[1];
    assert_eq!(
        (b.alignment, b.fixed_offset, b.gaps.len()),
        (Size(1), None, 0)
    );
}

#[test]
fn bom_crlf_spaces_and_blank_lines() {
    let p = read("\u{feff}id, lower ,upper,size\r\n a ,0,3,4\r\n\r\nb,1,2,5\r\n").unwrap();
    assert_eq!(p.buffers()[0].id, "a");
    assert_eq!(p.len(), 2);
}

#[test]
fn errors_name_line_and_column() {
    assert_eq!(
        message("id,lower,upper,size\na,0,3,4\nb,0,x3,4\n"),
        "line 3, column 'upper': not a non-negative integer: 'x3'"
    );
    assert_eq!(
        message("id,lower,size\na,0,3\n"),
        "line 1: missing column 'upper' in the header"
    );
    assert_eq!(
        message(""),
        "empty input: expected a header line such as 'id,lower,upper,size'"
    );
    // Issue 27 §3: a header alone is the empty problem, which every door accepts, so
    // that an empty problem written out reads back.
    let empty = read("id,lower,upper,size\n").unwrap();
    assert!(empty.is_empty());
    let mut out = Vec::new();
    write_problem_csv(&empty, &mut out).unwrap();
    assert_eq!(read(std::str::from_utf8(&out).unwrap()).unwrap(), empty);
    assert!(read_placements_csv(b"id,offset\n").unwrap().is_empty());
    assert_eq!(
        message("id,lower,upper,size\na,0,3,0\n"),
        "line 2, column 'size': buffer 'a' (#0): size must be at least 1"
    );
    assert!(message("id,lower,upper,size\na,3,3,1\n")
        .starts_with("line 2, column 'upper': buffer 'a' (#0): lifetime [3, 3) is empty"));
    assert_eq!(
        message("id,lower,upper,size\na,0,3,1\nb,0,1,1\na,0,2,1\n"),
        "line 4, column 'id': buffer 'a' (#2): duplicate id: buffer #0 has the same id"
    );
    assert_eq!(
        message("id,lower,upper,size\na,0,3,18446744073709551616\n"),
        "line 2, column 'size': number too large for 64 bits: '18446744073709551616'"
    );
    assert_eq!(
        message("id,lower,upper,size\na,0,3,18446744073709551615\nb,0,3,18446744073709551615\n"),
        "line 3, column 'size': buffer 'b' (#1): sizes, alignments and fixed offsets overflow 64-bit addresses"
    );
    assert_eq!(
        message("id,lower,upper,size\na,-1,3,4\n"),
        "line 2, column 'lower': not a non-negative integer: '-1'"
    );
    assert_eq!(
        message("id,lower,upper,size\na,0,3,4,\n"),
        "line 2: expected 4 fields as in the header, found 5"
    );
    assert_eq!(
        message("id,lower,upper,size,lower\na,0,3,4,1\n"),
        "line 1, column 'lower': duplicate column 'lower' in the header"
    );
    assert_eq!(
        message("id,start,lower,upper,size\na,0,0,3,4\n"),
        "line 1, column 'lower': columns 'start' and 'lower' both give the start of the \
         lifetime; keep one"
    );
    // Issue 27 §2: `upper` and `end` are two readings of the end, not one name twice.
    assert_eq!(
        message("id,lower,upper,end,size\na,0,3,2,4\n"),
        "line 1, column 'end': columns 'upper' and 'end' both give the end of the lifetime \
         ('upper' is half-open, 'end' inclusive); keep one"
    );
    assert_eq!(
        message("id,lower,Size,upper,size\na,0,3,2,4\n"),
        "line 1, column 'size': duplicate column 'size' in the header"
    );
    assert!(message("id,lower,upper,size,gaps\na,0,9,4,3-x\n")
        .starts_with("line 2, column 'gaps': bad gap '3-x'"));
    assert!(message(&format!(
        "id,lower,upper,size\n{},0,3,4\n",
        "x".repeat(5000)
    ))
    .contains("5000 bytes"));
}

#[test]
fn plan_output_keeps_columns() {
    let text = b"id,lower,upper,size,note\na,0,2,4,first\nb,1,3,4,\"x,y\"\n";
    let p = read_problem_csv(text, &ReadOptions::default()).unwrap();
    let plan = Plan::new(&p, vec![Offset(0), Offset(4)]).unwrap();
    let mut out = Vec::new();
    write_plan_csv(text, &plan, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "id,lower,upper,size,note,offset\na,0,2,4,first,0\nb,1,3,4,\"x,y\",4\n"
    );
    let text = b"id,lower,upper,size,offset\na,0,2,4,\nb,1,3,4,\n";
    let p = read_problem_csv(text, &ReadOptions::default()).unwrap();
    let plan = Plan::new(&p, vec![Offset(4), Offset(0)]).unwrap();
    let mut out = Vec::new();
    write_plan_csv(text, &plan, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "id,lower,upper,size,offset\na,0,2,4,4\nb,1,3,4,0\n"
    );
}

#[test]
fn extra_columns() {
    let text = b"id,lower,upper,size,Memory\na,0,2,4,fast\nb,1,3,4,\n";
    let (names, rows) = read_rows_csv(text).unwrap();
    assert_eq!(names, ["id", "lower", "upper", "size", "Memory"]);
    let memory: Vec<(u64, &str)> = rows.iter().map(|(l, r)| (*l, r[4].as_str())).collect();
    assert_eq!(memory, [(2, "fast"), (3, "")]);
    let mut out = Vec::new();
    let mem = ["slow".to_string(), "fast".to_string()];
    let off = ["0".to_string(), "4".to_string()];
    write_columns_csv(text, &[("memory", &mem), ("offset", &off)], &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "id,lower,upper,size,Memory,offset\na,0,2,4,slow,0\nb,1,3,4,fast,4\n"
    );
    assert!(write_columns_csv(text, &[("offset", &off[..1])], Vec::new()).is_err());
}

#[test]
fn problem_round_trips() {
    let text =
        "id,lower,upper,size,alignment,offset,gaps\na,0,10,4,4,8,2-3 5-7\n\"b,c\",0,2,4,1,,\n";
    let p = read(text).unwrap();
    let mut out = Vec::new();
    write_problem_csv(&p, &mut out).unwrap();
    assert_eq!(read_problem_csv(&out, &ReadOptions::default()).unwrap(), p);
}

#[test]
fn placements() {
    let got = read_placements_csv(b"id,offset\na,3\nb,0\n").unwrap();
    assert_eq!(
        got,
        vec![("a".to_string(), Offset(3)), ("b".to_string(), Offset(0))]
    );
    assert!(read_placements_csv(b"id,size\na,3\n")
        .unwrap_err()
        .to_string()
        .contains("missing column 'offset'"));
}

/// The plain path writes exactly what the records' path writes, on texts that are plain
/// and texts that are nearly so (a quote, a CR, a short row, blank lines, a BOM, a plan
/// of another length).
#[test]
fn plain_plans_are_the_records_plans() {
    let mut rng = crate::rng::Rng::new(23);
    let mut pick = |n: u64| (rng.next_u64() % n) as usize;
    let mut plain = 0;
    for case in 0..2000 {
        let offset_col = pick(3);
        let mut names = vec![" id", "lower ", "upper", "size"];
        match offset_col {
            1 => names.insert(2, "offset"),
            2 => names.push("Offset"),
            _ => {}
        }
        if pick(2) == 0 {
            names.push("note");
        }
        let fields = names.len();
        let mut text = String::new();
        if pick(10) == 0 {
            text.push('\u{feff}');
        }
        if pick(8) == 0 {
            text.push('\n');
        }
        text += &names.join(",");
        let rows = pick(6);
        for r in 0..rows {
            text.push(if pick(25) == 0 { '\r' } else { '\n' });
            if pick(10) == 0 {
                text.push('\n');
            }
            let n = if pick(30) == 0 { fields - 1 } else { fields };
            let row: Vec<String> = (0..n)
                .map(|k| match pick(12) {
                    0 => String::new(),
                    1 => " 7 ".into(),
                    2 if pick(4) == 0 => "\"q\"".into(),
                    _ => format!("{}", r * 10 + k),
                })
                .collect();
            text += &row.join(",");
        }
        if pick(2) == 0 {
            text.push('\n');
        }
        let len = if pick(15) == 0 { rows + 1 } else { rows };
        let problem = Problem::new(
            (0..len)
                .map(|i| Buffer::new(format!("p{i}"), 0, 1, 1))
                .collect(),
        )
        .unwrap();
        let offsets = (0..len).map(|_| Offset(pick(100_000) as u64)).collect();
        let plan = Plan::new(&problem, offsets).unwrap();
        let bytes = text.as_bytes();
        plain += usize::from(plain::plain_data(strip_bom(bytes), fields, len).is_some());
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        let (a, b) = (
            write_plan_csv(bytes, &plan, &mut fast),
            plan_head(bytes).and_then(|(r, o, h)| write_plan_records(r, o, &h, &plan, &mut slow)),
        );
        assert_eq!(a.is_ok(), b.is_ok(), "case {case}: {text:?}");
        if a.is_ok() {
            assert_eq!(
                String::from_utf8_lossy(&fast),
                String::from_utf8_lossy(&slow),
                "case {case}: {text:?}"
            );
        }
    }
    assert!(plain > 500, "the plain path ran {plain} times");
}

/// The plain rows read what the records read: the same problem and extra columns, or the
/// same error (line and column), on plain and nearly plain texts.
#[test]
fn plain_rows_read_what_the_records_read() {
    let mut rng = crate::rng::Rng::new(29);
    let mut pick = |n: u64| (rng.next_u64() % n) as usize;
    for case in 0..3000 {
        let mut names = vec!["id", " lower", "end", "size"];
        if pick(2) == 0 {
            names[2] = "upper";
        }
        if pick(3) == 0 {
            names.push("alignment");
        }
        if pick(3) == 0 {
            names.push("gaps");
        }
        if pick(3) == 0 {
            names.push("memory");
        }
        let fields = names.len();
        let mut text = String::new();
        if pick(10) == 0 {
            text.push('\u{feff}');
        }
        for _ in 0..pick(3) {
            text.push('\n');
        }
        text += &names.join(",");
        for r in 0..pick(6) {
            text.push(if pick(40) == 0 { '\r' } else { '\n' });
            if pick(8) == 0 {
                text.push('\n');
            }
            let n = if pick(40) == 0 { fields + 1 } else { fields };
            let row: Vec<String> = (0..n)
                .map(|k| match (k, pick(30)) {
                    (0, 0) => format!("b{}", pick(3)),
                    (0, 1) => " ".into(),
                    (0, _) => format!("b{r}"),
                    (_, 0) => String::new(),
                    (_, 1) => "x".into(),
                    (_, 2) => "\"3\"".into(),
                    (_, 3) => " 2 ".into(),
                    (1, _) => format!("{}", pick(4)),
                    (2, _) => format!("{}", 4 + pick(4)),
                    _ if names.get(k) == Some(&"gaps") => {
                        ["", "5-5", "1-2 3-3"][pick(3)].to_string()
                    }
                    _ => format!("{}", 1 + pick(4)),
                })
                .collect();
            text += &row.join(",");
        }
        if pick(2) == 0 {
            text.push('\n');
        }
        let bytes = text.as_bytes();
        let options = ReadOptions::default();
        let extra = ["memory"];
        let a = read_problem_rows(bytes, &options, &extra, true);
        let b = read_problem_rows(bytes, &options, &extra, false);
        match (&a, &b) {
            (Ok(x), Ok(y)) => assert_eq!(x, y, "case {case}: {text:?}"),
            (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string(), "case {case}: {text:?}"),
            _ => panic!("case {case}: {text:?}: {a:?} against {b:?}"),
        }
    }
}
