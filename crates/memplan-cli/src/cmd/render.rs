//! `memplan render`: reads a problem and a plan, checks the plan, and draws it with
//! `memplan_render` (the picture is described there).

use memplan::memories::MemoriesProblem;
use memplan::{check_placements, Offset, Problem, Size, Violation};
use memplan_render::{draw, Fault, Picture};

use crate::exit::{self, Failure};
use crate::flags::commands::RenderArgs;
use crate::flags::input::Format;
#[cfg(feature = "tflite")]
use crate::shared::files::{display_path, tflite_failure};
use crate::shared::files::{read_bytes, write_to};
use crate::shared::formats;
use crate::shared::memories::{against, read_memory_plan, Against};
use crate::shared::numbers::thousands;

pub fn render(args: RenderArgs) -> Result<(), Failure> {
    let bytes = read_bytes(&args.problem)?;
    #[cfg(feature = "tflite")]
    {
        let picture = Picture::new(args.width, args.height, file_name(&args.problem), true);
        if let Some(svg) = render_model(&args.problem, &bytes, picture) {
            if let Some(plan) = &args.plan {
                return Err(Failure::usage(format!(
                    "{plan}: a .tflite model carries its own plan; give the model alone"
                )));
            }
            let svg = svg?;
            return write_to(&args.output, |w| w.write_all(svg.as_bytes()));
        }
    }
    let Some(plan_path) = args.plan.clone() else {
        return Err(Failure::usage(
            "the plan file is missing (required unless the problem is a .tflite model)",
        ));
    };
    let (format, file) = formats::read_file(&args.problem, &bytes, &args.input_args)?;
    let plan_bytes = read_bytes(&plan_path)?;
    let plan = (plan_path.as_str(), plan_bytes.as_slice());
    let file = match against(
        &args.problem,
        file,
        plan,
        args.memories.as_deref(),
        args.capacity,
    )? {
        Against::One(file) => file,
        Against::Memories(problem) => {
            let window = checked_view(&args, problem.problem())?;
            let input = (format, bytes.as_slice());
            let svg = memory_panels(&args, &plan_path, input, &problem, &plan_bytes, window)?;
            return write_to(&args.output, |w| w.write_all(svg.as_bytes()));
        }
    };
    let (problem, own) = file.into_problem();
    let capacity = args.capacity.map(Size).or(own);
    let window = checked_view(&args, &problem)?;
    let placements = formats::read_placements(&plan_path, &plan_bytes)?;
    // The checker also matches placements to buffers by id; a bad plan is still drawn
    // when every buffer has exactly one offset, so that overlaps can be seen.
    let checked = check_placements(&problem, &placements, capacity);
    let offsets = offsets_by_index(&problem, &placements).ok_or_else(|| {
        let why = checked
            .as_ref()
            .err()
            .map_or(String::new(), |f| f.to_string());
        Failure::new(exit::CHECK, format!("{plan_path}: cannot draw: {why}"))
    })?;
    let name = file_name(&args.problem);
    let mut picture = Picture::new(args.width, args.height, name, checked.is_ok());
    if let Err(failure) = &checked {
        picture.faults = faults(&failure.violations).map(|(_, f)| f).collect();
    }
    picture.window = window;
    picture.highlight = args.buffers.clone();
    picture.capacity = capacity.map(Size::get);
    if format == Format::Csv {
        picture.notes = column_notes(&bytes, problem.len());
    }
    let svg = draw(&problem, &offsets, &picture);
    write_to(&args.output, |w| w.write_all(svg.as_bytes()))
}

/// The checker's violations that have a place in the picture, as faults to draw, each
/// with the id of the (first) buffer it names.
fn faults(violations: &[Violation]) -> impl Iterator<Item = (&str, Fault)> + '_ {
    violations.iter().filter_map(|v| {
        let (kind, id, times, addresses) = match v {
            Violation::Overlap {
                first,
                times,
                addresses,
                ..
            } => ("overlap", &first.id, *times, *addresses),
            Violation::AboveCapacity { buffer, capacity } => {
                let above = (
                    capacity.get().max(buffer.addresses.0.get()),
                    buffer.addresses.1,
                );
                let above = (Offset(above.0), above.1);
                ("over the capacity", &buffer.id, buffer.lifetime, above)
            }
            Violation::ShareBroken { buffer, times, .. } => {
                ("in a broken share", &buffer.id, *times, buffer.addresses)
            }
            _ => return None,
        };
        let fault = Fault {
            kind,
            times: (times.start.get(), times.end.get()),
            addresses: (addresses.0.get(), addresses.1.get()),
            title: v.to_string(),
        };
        Some((id.as_str(), fault))
    })
}

fn file_name(path: &str) -> &str {
    std::path::Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("<stdin>")
}

/// The window of `--from` and `--to`, after checking that every `--buffers` id is one of
/// the problem's.
fn checked_view(args: &RenderArgs, problem: &Problem) -> Result<Option<(u64, u64)>, Failure> {
    let window = window(args, problem)?;
    if let Some(unknown) = args
        .buffers
        .iter()
        .find(|id| !problem.buffers().iter().any(|b| &b.id == *id))
    {
        return Err(Failure::usage(format!(
            "--buffers: no buffer '{unknown}' in {}",
            args.problem
        )));
    }
    Ok(window)
}

/// A plan across memories (spill's two included): one panel per memory that holds a
/// buffer, in the memories' order, each with its capacity, on the same time axis. The
/// plan is checked with the independent checker; an invalid plan is drawn with a
/// warning.
fn memory_panels(
    args: &RenderArgs,
    plan_path: &str,
    input: (Format, &[u8]),
    problem: &MemoriesProblem,
    plan_bytes: &[u8],
    window: Option<(u64, u64)>,
) -> Result<String, Failure> {
    let plan = read_memory_plan(plan_path, plan_bytes, problem)?;
    let bufs = problem.problem().buffers();
    let n = bufs.len();
    if bufs
        .iter()
        .zip(&plan.offsets)
        .any(|(b, o)| o.get().checked_add(b.size.get()).is_none())
    {
        return Err(Failure::new(
            exit::CHECK,
            format!("{plan_path}: cannot draw: an offset + size overflows 64 bits"),
        ));
    }
    let checked = problem.check(&plan);
    let valid = checked.is_ok();
    let index: std::collections::HashMap<&str, usize> = bufs
        .iter()
        .enumerate()
        .map(|(i, b)| (b.id.as_str(), i))
        .collect();
    // Each fault goes on the panel of the (first) buffer it names.
    let mut faults_in = vec![Vec::new(); problem.memories().len()];
    if let Err(failure) = &checked {
        for (id, fault) in faults(&failure.violations) {
            let m = index.get(id).map(|&i| plan.memory[i].index());
            faults_in[m.unwrap_or(0)].push(fault);
        }
    }
    let panels = problem
        .memories()
        .iter()
        .enumerate()
        .map(|(m, memory)| {
            let members: Vec<usize> = (0..n).filter(|&i| plan.memory[i].index() == m).collect();
            Panel {
                offsets: members.iter().map(|&i| plan.offsets[i].get()).collect(),
                members,
                title: match memory.capacity {
                    Some(c) => {
                        format!("memory {} (capacity {} B)", memory.name, thousands(c.get()))
                    }
                    None => format!("memory {} (unbounded)", memory.name),
                },
                capacity: memory.capacity.map(Size::get),
                faults: std::mem::take(&mut faults_in[m]),
            }
        })
        .collect();
    stacked(
        args,
        plan_path,
        problem.problem(),
        input,
        window,
        valid,
        panels,
    )
}

/// One panel of a plan across memories: the buffers it holds (indices into the
/// problem), their offsets in it, its title and its capacity (drawn as a line).
struct Panel {
    members: Vec<usize>,
    offsets: Vec<u64>,
    title: String,
    capacity: Option<u64>,
    faults: Vec<Fault>,
}

/// The panels that hold a buffer, stacked on the problem's time axis (the first at the
/// full height, the others at half), each with the window, the highlighted buffers and
/// the CSV's notes; `valid` false draws each with the checker's warning.
fn stacked(
    args: &RenderArgs,
    plan_path: &str,
    problem: &Problem,
    (format, bytes): (Format, &[u8]),
    window: Option<(u64, u64)>,
    valid: bool,
    panels: Vec<Panel>,
) -> Result<String, Failure> {
    let bufs = problem.buffers();
    let span = span(problem);
    let notes = (format == Format::Csv)
        .then(|| column_notes(bytes, problem.len()))
        .flatten();
    let mut drawn = Vec::new();
    for panel in panels.iter().filter(|p| !p.members.is_empty()) {
        let sub = Problem::new(panel.members.iter().map(|&i| bufs[i].clone()).collect())
            .map_err(|e| Failure::new(exit::CHECK, format!("{plan_path}: cannot draw: {e}")))?;
        let height = if drawn.is_empty() {
            args.height
        } else {
            (args.height / 2).max(300)
        };
        let mut picture = Picture::new(args.width, height, &panel.title, valid);
        picture.window = window;
        picture.span = Some(span);
        picture.highlight = args.buffers.clone();
        picture.capacity = panel.capacity;
        picture.faults = panel.faults.clone();
        picture.notes = notes
            .as_ref()
            .map(|n| panel.members.iter().map(|&b| n[b].clone()).collect());
        drawn.push((sub, panel.offsets.as_slice(), picture));
    }
    let refs: Vec<(&Problem, &[u64], &Picture)> =
        drawn.iter().map(|(p, o, pic)| (p, *o, pic)).collect();
    Ok(memplan_render::draw_stacked(&refs))
}

/// The problem's time span: its first start and its last end (0 and 1 when empty).
fn span(problem: &Problem) -> (u64, u64) {
    let bufs = problem.buffers();
    let first = bufs.iter().map(|b| b.lifetime.start.get()).min();
    let last = bufs.iter().map(|b| b.lifetime.end.get()).max();
    (first.unwrap_or(0), last.unwrap_or(1))
}

/// `--from` and `--to` as a window `[from, to)`, each defaulting to the problem's span.
fn window(args: &RenderArgs, problem: &Problem) -> Result<Option<(u64, u64)>, Failure> {
    if args.from.is_none() && args.to.is_none() {
        return Ok(None);
    }
    let (first, last) = span(problem);
    let from = args.from.unwrap_or(first);
    let to = args.to.unwrap_or(last);
    if from >= to {
        return Err(Failure::usage(format!(
            "--from {from} must be below --to {to}"
        )));
    }
    Ok(Some((from, to)))
}

/// Each CSV row's columns as a tooltip line, `name=value, ...`; `None` when the rows do
/// not match the buffers one to one.
fn column_notes(bytes: &[u8], buffers: usize) -> Option<Vec<String>> {
    let (names, rows) = memplan::io::read_rows_csv(bytes).ok()?;
    (rows.len() == buffers).then(|| {
        rows.iter()
            .map(|(_, row)| {
                let fields: Vec<String> = names
                    .iter()
                    .zip(row)
                    .map(|(n, v)| format!("{n}={v}"))
                    .collect();
                format!("input: {}", fields.join(", "))
            })
            .collect()
    })
}

fn offsets_by_index(problem: &Problem, placements: &[(String, Offset)]) -> Option<Vec<u64>> {
    let index: std::collections::HashMap<&str, usize> = (problem.buffers().iter().enumerate())
        .map(|(i, b)| (b.id.as_str(), i))
        .collect();
    let mut out: Vec<Option<u64>> = vec![None; problem.len()];
    for (id, off) in placements {
        let slot = &mut out[*index.get(id.as_str())?];
        if slot.is_some() {
            return None;
        }
        *slot = Some(off.get());
    }
    out.into_iter().collect()
}

/// `memplan render MODEL.tflite`: the plan the model carries, over its tensors'
/// lifetimes, with the kernel scratch room it leaves. Labels are short (`t12`: tensor 12
/// of the offline plan, the first column of `memplan tflite MODEL --report`); tooltips
/// name each tensor. `None` when `bytes` is not a TFLite model.
#[cfg(feature = "tflite")]
fn render_model(
    path: &str,
    bytes: &[u8],
    mut picture: memplan_render::Picture<'_>,
) -> Option<Result<String, Failure>> {
    if bytes.get(4..8) != Some(b"TFL3".as_slice()) {
        return None;
    }
    Some((|| {
        let a = memplan_tflite::analyze(bytes).map_err(|e| tflite_failure(path, e))?;
        let Some((_, offsets)) = &a.existing_plan else {
            return Err(Failure::new(
                exit::INPUT,
                format!(
                    "{}: no offline plan to draw (metadata 'OfflineMemoryAllocation'); \
                     `memplan tflite {0} -o PLANNED.tflite` writes one",
                    display_path(path)
                ),
            ));
        };
        // A plan written with --in-place overlaps along its in-place pairs, and is valid.
        let valid = a.check_offsets(offsets, true).is_ok();
        let all = a.problem.buffers();
        let n = a.tensor_of.len();
        let mut drawn = Vec::with_capacity(all.len());
        let mut notes = Vec::with_capacity(all.len());
        let mut buffers = Vec::with_capacity(all.len());
        for (b, &t) in a.tensor_of.iter().enumerate() {
            let life = &a.tensors[t];
            // A plan that leaves a tensor to TFLM (-1) is drawn at 0 and fails the check.
            drawn.push(offsets.get(t).map_or(0, |&o| o.max(0) as u64));
            notes.push(format!(
                "{}\ntensor {} (subgraph {}, index {}), TFLM steps {}..{}, {} B",
                life.name, life.index, life.subgraph, life.local, life.first, life.last, life.bytes
            ));
            let mut buffer = all[b].clone();
            buffer.id = format!("t{}", life.index);
            buffers.push(buffer);
        }
        // The scratch room: the file has no offsets for it, and TFLM places the requests
        // at start-up, in the holes the plan leaves; drawn where first fit finds one.
        for (i, r) in a.scratch.iter().enumerate() {
            let mut buffer = all[n + i].clone();
            let at = first_fit(&buffers, &drawn, &buffer);
            drawn.push(at);
            notes.push(format!(
                "kernel scratch of operator {}:{} ({} B; room left by the plan, placed by \
                 TFLM at start-up; drawn at the lowest address where it fits)",
                r.subgraph, r.operator, r.bytes
            ));
            // `scratch:S:K:N` (request N of operator K of subgraph S) -> `scratch S:K:N`.
            buffer.id = buffer.id.replacen(':', " ", 1);
            buffers.push(buffer);
        }
        picture.valid = valid;
        picture.notes = Some(notes);
        let problem = memplan::Problem::new(buffers)
            .map_err(|e| Failure::new(exit::CHECK, format!("{}: {e}", display_path(path))))?;
        Ok(memplan_render::draw(&problem, &drawn, &picture))
    })())
}

/// The lowest address, a multiple of the buffer's alignment, at which `b` overlaps none of
/// `placed` (at `offsets`) that is live with it.
#[cfg(feature = "tflite")]
fn first_fit(placed: &[memplan::Buffer], offsets: &[u64], b: &memplan::Buffer) -> u64 {
    let mut busy: Vec<(u64, u64)> = placed
        .iter()
        .zip(offsets)
        .filter(|(p, _)| p.lifetime.start < b.lifetime.end && b.lifetime.start < p.lifetime.end)
        .map(|(p, &o)| (o, o + p.size.get()))
        .collect();
    busy.sort_unstable();
    let align = b.alignment.get().max(1);
    let mut at = 0;
    for (lo, hi) in busy {
        if lo >= at + b.size.get() {
            break;
        }
        at = at.max(hi.div_ceil(align) * align);
    }
    at
}
