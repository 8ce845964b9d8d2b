//! `memplan share INPUT.csv`: assign every buffer to a shared object (TFLite §4).

use memplan::shared_objects::{
    check_shared_objects, plan_shared_objects, SharedAssignment, SharedOptions, SharedStrategy,
};
use memplan::Size;

use crate::exit::{self, Failure};
use crate::flags::commands::{CheckSharedArgs, ShareArgs};
use crate::shared::files::{read_bytes, write_to};
use crate::shared::formats::load_problem;
use crate::shared::numbers::{count, millis, percent, thousands};

pub fn share(args: ShareArgs) -> Result<(), Failure> {
    let strategy = match args.strategy.as_str() {
        "auto" => None,
        s => Some(s.parse::<SharedStrategy>().map_err(|_| {
            Failure::usage(format!(
                "unknown strategy '{s}': expected auto, size-improved, size, breadth or naive"
            ))
        })?),
    };
    let problem = load_problem(&args.input, &args.input_args)?;
    let options = SharedOptions {
        strategy,
        nearest_first: !args.no_nearest_first,
        verify: !args.no_check,
    };
    let report = plan_shared_objects(&problem, &memplan::Request::minimise(), &options)
        .map_err(|e| Failure::new(exit::CHECK, e.to_string()))?;
    // Minimising: there is always an assignment.
    let a = report.outcome.best().expect("an assignment");
    write_to(&args.output, |w| {
        writeln!(w, "id,object,object_size")?;
        for (b, &o) in problem.buffers().iter().zip(a.object_of()) {
            writeln!(
                w,
                "{},{o},{}",
                csv_field(&b.id),
                a.object_sizes()[o as usize]
            )?;
        }
        Ok(())
    })?;
    if let Some(path) = &args.objects {
        let mut counts = vec![0u64; a.object_sizes().len()];
        for &o in a.object_of() {
            counts[o as usize] += 1;
        }
        write_to(path, |w| {
            writeln!(w, "object,size,buffers")?;
            for (o, (s, c)) in a.object_sizes().iter().zip(&counts).enumerate() {
                writeln!(w, "{o},{s},{c}")?;
            }
            Ok(())
        })?;
    }
    let (total, lb, naive) = (
        a.total().get(),
        report.lower_bound.get(),
        report.naive.get(),
    );
    eprintln!(
        "memplan: {}; {}; total {}; lower bound (sum of positional maxima) {} (+{}); naive {} ({} saved); strategy {}",
        count(problem.len() as u64, "buffer"),
        count(a.object_sizes().len() as u64, "object"),
        thousands(total),
        thousands(lb),
        percent(total.saturating_sub(lb), lb),
        thousands(naive),
        percent(naive.saturating_sub(total), naive),
        report.strategy
    );
    if report.candidates.len() > 1 {
        for c in &report.candidates {
            eprintln!(
                "  {:<14} total {:>16}  objects {:>7}  {}",
                c.strategy.name(),
                thousands(c.total.get()),
                thousands(c.objects as u64),
                millis(c.elapsed)
            );
        }
    }
    Ok(())
}

/// Quotes an id for CSV when it needs it.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `memplan check-shared PROBLEM.csv ASSIGNMENT.csv`: the independent checker.
pub fn check_shared(args: CheckSharedArgs) -> Result<(), Failure> {
    let problem = load_problem(&args.problem, &args.input_args)?;
    let text = String::from_utf8(read_bytes(&args.assignment)?)
        .map_err(|_| Failure::new(exit::INPUT, format!("{}: not utf-8", args.assignment)))?;
    let bad = |line: usize, what: &str| {
        Failure::new(
            exit::INPUT,
            format!("{}: line {line}: {what}", args.assignment),
        )
    };
    let mut by_id: std::collections::HashMap<String, (u32, u64)> = Default::default();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let mut parts = line.rsplitn(3, ',');
        let (Some(size), Some(object), Some(id)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad(n + 1, "expected 'id,object,object_size'"));
        };
        let object: u32 = object
            .trim()
            .parse()
            .map_err(|_| bad(n + 1, &format!("bad object '{object}'")))?;
        let size: u64 = size
            .trim()
            .parse()
            .map_err(|_| bad(n + 1, &format!("bad object size '{size}'")))?;
        let id = match id.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            Some(q) => q.replace("\"\"", "\""),
            None => id.to_string(),
        };
        if by_id.insert(id.clone(), (object, size)).is_some() {
            return Err(bad(n + 1, &format!("buffer '{id}' is assigned twice")));
        }
    }
    let mut object_of = Vec::with_capacity(problem.len());
    let mut sizes: Vec<Option<u64>> = Vec::new();
    for b in problem.buffers() {
        let Some(&(o, s)) = by_id.get(&b.id) else {
            return Err(Failure::new(
                exit::INPUT,
                format!("{}: buffer '{}' has no object", args.assignment, b.id),
            ));
        };
        if sizes.len() <= o as usize {
            sizes.resize(o as usize + 1, None);
        }
        match sizes[o as usize] {
            Some(prev) if prev != s => {
                return Err(Failure::new(
                    exit::INPUT,
                    format!(
                        "{}: object {o} is given sizes {prev} and {s}",
                        args.assignment
                    ),
                ))
            }
            _ => sizes[o as usize] = Some(s),
        }
        object_of.push(o);
    }
    // An object id no buffer names has no size: count it as empty.
    let sizes = sizes.into_iter().map(|s| Size(s.unwrap_or(0))).collect();
    let assignment = SharedAssignment::from_parts(object_of, sizes);
    match check_shared_objects(&problem, &assignment) {
        Ok(s) => {
            println!(
                "ok: {}; {}; total {}",
                count(problem.len() as u64, "buffer"),
                count(s.objects.unwrap_or_default() as u64, "object"),
                thousands(s.height.get())
            );
            Ok(())
        }
        Err(f) => Err(Failure::invalid(
            &args.assignment,
            "assignment",
            &f.violations,
            f.more,
        )),
    }
}
