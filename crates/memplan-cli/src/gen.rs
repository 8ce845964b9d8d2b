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
    /// How many buffers.
    #[arg(long, default_value_t = 1000)]
    pub buffers: usize,
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
    /// With --tiled: number of blocks (residual or concat).
    #[arg(long, default_value_t = 16)]
    pub blocks: usize,
    /// With --tiled: on-chip memory in bytes; tiles are at most a quarter of it.
    #[arg(long, default_value_t = 262144)]
    pub on_chip: u64,
    /// What to generate: a model-like trace, a dense training trace, or a TelaMalloc
    /// microbenchmark (§7.1).
    #[arg(long, value_enum, default_value_t)]
    pub kind: crate::telamalloc::GenKind,
    /// With --kind dense: time steps (0: 1.5 per buffer).
    #[arg(long, default_value_t = 0)]
    pub steps: u64,
    /// With --kind dense: buffers live at the peak, saved for the backward pass (0: one
    /// in seven).
    #[arg(long, default_value_t = 0)]
    pub live: usize,
    /// With --kind dense: the smallest size in bytes.
    #[arg(long, default_value_t = DenseGenOptions::default().min_size)]
    pub min_size: u64,
    /// With --kind dense: the largest size in bytes.
    #[arg(long, default_value_t = DenseGenOptions::default().max_size)]
    pub max_size: u64,
}

pub fn gen(args: GenArgs) -> Result<(), Failure> {
    if args.tiled {
        return gen_tiled(&args);
    }
    if args.buffers == 0 {
        return Err(Failure::new(2, "--buffers must be at least 1"));
    }
    let problem = match crate::telamalloc::microbenchmark(args.kind, args.buffers, args.seed) {
        Some(p) => p,
        None if args.kind == crate::telamalloc::GenKind::Dense => {
            generate_dense_trace(&DenseGenOptions {
                buffers: args.buffers,
                seed: args.seed,
                steps: args.steps,
                live: args.live,
                min_size: args.min_size,
                max_size: args.max_size,
            })
        }
        None => generate_model_like(&GenOptions {
            buffers: args.buffers,
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
    })
}

/// `memplan gen --tiled`.
pub fn gen_tiled(args: &GenArgs) -> Result<(), Failure> {
    if args.blocks == 0 || args.on_chip == 0 {
        return Err(Failure::new(2, "--blocks and --on-chip must be at least 1"));
    }
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
        blocks: args.blocks,
        on_chip: args.on_chip,
    });
    write_to(&args.output, |w| write_tiled_json(&problem, w))
}
