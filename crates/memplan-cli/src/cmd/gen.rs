//! The `gen` command: seeded problems (model-like traces, TelaMalloc's microbenchmarks,
//! tiled networks) from the library's `testing` generators.

use memplan::io::{write_problem_csv, write_problem_json};
use memplan::testing::{
    generate_dense_trace, generate_microbenchmark, generate_model_like, generate_tiled,
    DenseGenOptions, GenOptions, Layout, MicrobenchKind, TiledGenOptions,
};
use memplan::tiles::write_tiled_json;
use memplan::{Problem, Size};

use crate::exit::Failure;
use crate::flags::commands::{GenArgs, GenKind};
use crate::flags::input::Format;
use crate::shared::files::write_to;
use crate::shared::formats;
use crate::shared::numbers::count;

pub fn gen(args: GenArgs) -> Result<(), Failure> {
    let done = if args.tiled {
        gen_tiled(&args)?
    } else {
        gen_buffers(&args)?
    };
    // Silent success is no success on a terminal: say what was written where.
    if args.output != "-" {
        eprintln!("memplan: wrote {done} to {}", args.output);
    }
    Ok(())
}

fn gen_buffers(args: &GenArgs) -> Result<String, Failure> {
    if args.min_size > args.max_size {
        return Err(Failure::usage(format!(
            "--min-size {} is above --max-size {}",
            args.min_size, args.max_size
        )));
    }
    if args.live > args.buffers {
        return Err(Failure::usage(format!(
            "--live {} is above --buffers {}",
            args.live, args.buffers
        )));
    }
    // Both at most MAX_BUFFERS: they fit a usize.
    let (buffers, live) = (args.buffers as usize, args.live as usize);
    // TelaMalloc's microbenchmarks come with the capacity they are meant for (written
    // into JSON output; CSV has no place for it).
    let (problem, capacity) = match microbenchmark(args.kind, buffers, args.seed) {
        Some((p, c)) => (p, Some(c)),
        None if args.kind == GenKind::Dense => (
            generate_dense_trace(&DenseGenOptions {
                buffers,
                seed: args.seed,
                steps: args.steps,
                live,
                min_size: args.min_size,
                max_size: args.max_size,
            }),
            None,
        ),
        None => (
            generate_model_like(&GenOptions {
                buffers,
                seed: args.seed,
            }),
            None,
        ),
    };
    let json = formats::output_format(&args.output, None, Format::Csv) == Format::Json;
    write_to(&args.output, |w| {
        if json {
            write_problem_json(&problem, capacity, w)
        } else {
            write_problem_csv(&problem, w)
        }
    })?;
    Ok(format!(
        "{} ({})",
        count(problem.len() as u64, "buffer"),
        if json { "JSON" } else { "CSV" }
    ))
}

/// `memplan gen --tiled`.
fn gen_tiled(args: &GenArgs) -> Result<String, Failure> {
    let layout = match args.layout.as_str() {
        "nhwc" => Layout::Nhwc,
        "nchw" => Layout::Nchw,
        s => {
            return Err(Failure::usage(format!(
                "unknown layout '{s}': expected nhwc or nchw"
            )))
        }
    };
    let problem = generate_tiled(&TiledGenOptions {
        seed: args.seed,
        layout,
        // At most 10,000: it fits a usize.
        blocks: args.blocks as usize,
        on_chip: args.on_chip,
    });
    write_to(&args.output, |w| write_tiled_json(&problem, w))?;
    Ok(format!("a tiled network of {} blocks (JSON)", args.blocks))
}

/// TelaMalloc's microbenchmark for `kind`, or `None` for the other generators.
fn microbenchmark(kind: GenKind, buffers: usize, seed: u64) -> Option<(Problem, Size)> {
    let k = match kind {
        GenKind::Model | GenKind::Dense => return None,
        GenKind::NonOverlapping => MicrobenchKind::NonOverlapping,
        GenKind::FullOverlap => MicrobenchKind::FullOverlap,
    };
    Some(generate_microbenchmark(k, buffers, seed))
}
