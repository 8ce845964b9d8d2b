//! The `gen` command: seeded problems (model-like traces, TelaMalloc's microbenchmarks,
//! tiled networks) from the library's `testing` generators.

use memplan::io::{write_problem_csv, write_problem_json};
use memplan::testing::{
    generate_dense_trace, generate_model_like, generate_tiled, DenseGenOptions, GenOptions, Layout,
    TiledGenOptions,
};
use memplan::tiles::write_tiled_json;

use crate::files::write_to;
use crate::formats::{self, Format};
use crate::Failure;

#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// How many buffers (1 to 10,000,000).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=MAX_BUFFERS))]
    pub buffers: u64,
    /// The seed; the same seed gives the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write the problem (`-` for stdout); JSON when the name ends in `.json`.
    #[arg(short, long, default_value = "-")]
    pub output: String,
    /// Generate a tiled CNN-like network (JSON for `memplan tiles`) instead of a CSV.
    #[arg(long)]
    pub tiled: bool,
    /// With --tiled: `nhwc` (contiguous tiles) or `nchw` (strided tiles).
    #[arg(long, default_value = "nhwc")]
    pub layout: String,
    /// With --tiled: number of blocks (residual or concat), 1 to 10,000.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub blocks: u64,
    /// With --tiled: on-chip memory in bytes (1 to 2^40); tiles are at most a quarter of it.
    #[arg(long, default_value_t = 262144, value_parser = clap::value_parser!(u64).range(1..=MAX_BYTES))]
    pub on_chip: u64,
    /// What to generate: a model-like trace, a dense training trace, or a TelaMalloc
    /// microbenchmark (§7.1).
    #[arg(long, value_enum, default_value_t)]
    pub kind: crate::telamalloc::GenKind,
    /// With --kind dense: time steps (0: 1.5 per buffer; at most 2^32).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1 << 32))]
    pub steps: u64,
    /// With --kind dense: buffers live at the peak, saved for the backward pass (0: one
    /// in seven; at most --buffers).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=MAX_BUFFERS))]
    pub live: u64,
    /// With --kind dense: the smallest size in bytes (1 to 2^36).
    #[arg(long, default_value_t = DenseGenOptions::default().min_size, value_parser = clap::value_parser!(u64).range(1..=MAX_SIZE))]
    pub min_size: u64,
    /// With --kind dense: the largest size in bytes (--min-size to 2^36).
    #[arg(long, default_value_t = DenseGenOptions::default().max_size, value_parser = clap::value_parser!(u64).range(1..=MAX_SIZE))]
    pub max_size: u64,
}

/// The most buffers `gen` makes: 10 million (300 MB of CSV, a few seconds).
const MAX_BUFFERS: u64 = 10_000_000;
/// The largest on-chip memory of `gen --tiled`: 1 TiB.
const MAX_BYTES: u64 = 1 << 40;
/// The largest buffer of `gen --kind dense`: 64 GiB, so that 10 million of them still
/// add up to less than 2^64 bytes.
const MAX_SIZE: u64 = 1 << 36;

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
        return Err(Failure::new(
            2,
            format!(
                "--min-size {} is above --max-size {}",
                args.min_size, args.max_size
            ),
        ));
    }
    if args.live > args.buffers {
        return Err(Failure::new(
            2,
            format!("--live {} is above --buffers {}", args.live, args.buffers),
        ));
    }
    // Both at most MAX_BUFFERS: they fit a usize.
    let (buffers, live) = (args.buffers as usize, args.live as usize);
    let problem = match crate::telamalloc::microbenchmark(args.kind, buffers, args.seed) {
        Some(p) => p,
        None if args.kind == crate::telamalloc::GenKind::Dense => {
            generate_dense_trace(&DenseGenOptions {
                buffers,
                seed: args.seed,
                steps: args.steps,
                live,
                min_size: args.min_size,
                max_size: args.max_size,
            })
        }
        None => generate_model_like(&GenOptions {
            buffers,
            seed: args.seed,
        }),
    };
    let json = formats::output_format(&args.output, None, Format::Csv) == Format::Json;
    write_to(&args.output, |w| {
        if json {
            write_problem_json(&problem, w)
        } else {
            write_problem_csv(&problem, w)
        }
    })?;
    Ok(format!(
        "{} ({})",
        crate::fmt::count(problem.len() as u64, "buffer"),
        if json { "JSON" } else { "CSV" }
    ))
}

/// `memplan gen --tiled`.
pub fn gen_tiled(args: &GenArgs) -> Result<String, Failure> {
    let layout = match args.layout.as_str() {
        "nhwc" => Layout::Nhwc,
        "nchw" => Layout::Nchw,
        s => {
            return Err(Failure::new(
                2,
                format!("unknown layout '{s}': expected nhwc or nchw"),
            ))
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
