//! Each command's own arguments, in the order of `memplan --help`. The flags several
//! commands share are flattened in: [`InputArgs`], [`PlannerArgs`], [`MemoriesTuning`].

use std::path::PathBuf;

use clap::ArgAction;
use memplan::testing::DenseGenOptions;

use super::input::{Format, InputArgs};
use super::memories::MemoriesTuning;
use super::planning::PlannerArgs;

/// `memplan plan`. Its help comes in two sizes: `-h` and `--help` print the one-screen
/// summary, `--help-all` the long help, which also shows the switches marked `hide`
/// (`super::cli` moves them to the long help of `plan` alone).
#[derive(clap::Args, Debug)]
#[command(disable_help_flag = true)]
pub struct PlanArgs {
    /// The problem, CSV or JSON (`-` for stdin).
    pub input: String,
    /// Where to write the plan: the input's columns plus `offset` (`-` for stdout).
    #[arg(short, long, default_value = "-")]
    pub output: String,
    /// Fit under this many bytes instead of minimising the height.
    #[arg(long, allow_negative_numbers = true, value_parser = byte_count)]
    pub capacity: Option<u64>,
    /// Two memories: spill what does not fit under --capacity to slow memory, at the
    /// least total cost; short for `--memories fast:CAPACITY,slow`.
    ///
    /// The input's optional `cost` (default: the size) and `memory` (fast, slow, or empty
    /// for the planner's choice) columns are read; the plan gets `memory` (fast or slow)
    /// and `offset` (in that memory) columns, as with --memories. Exit 5 when the buffers
    /// that must stay fast cannot fit, 6 when no plan was found in time.
    #[arg(long, requires = "capacity")]
    pub spill: bool,
    /// Several memories, fastest first: `NAME[:CAPACITY[:ALIGNMENT[:COST]]],...` (an
    /// empty capacity is unbounded), e.g. `tcm:524288,ocram:2097152:16,dram`. A JSON
    /// problem may carry them in a `memories` section instead.
    ///
    /// The input's optional `memories` (the memories a buffer may use, `|`-separated;
    /// one is a pin) and `accesses` (default 1) columns or fields are read; the plan
    /// gets `memory` and `offset` (in that memory) columns. Exit 5 when no plan
    /// exists (proven, the message says why), 6 when no plan was found.
    #[arg(long, value_name = "SPEC")]
    pub memories: Option<String>,
    #[command(flatten)]
    pub memories_tuning: MemoriesTuning,
    #[command(flatten)]
    pub planning: PlannerArgs,
    /// Skip the independent checker (on by default; it is cheap).
    #[arg(long)]
    pub no_check: bool,
    /// The plan's format. Default: by the output's extension, else the input's format.
    #[arg(long, value_enum)]
    pub output_format: Option<Format>,
    /// Print no summary and no progress bar (errors are still printed).
    #[arg(short, long)]
    pub quiet: bool,
    /// Print the summary as one JSON object on stderr instead of the text line (the
    /// plan's own format is --output-format).
    #[arg(long = "summary-json", alias = "json", conflicts_with = "quiet")]
    pub json: bool,
    /// Print help (see more with '--help-all')
    // Listed last, as clap lists its own `--help`; defined first of the two, so that
    // clap's errors point to it ("For more information, try '--help'").
    #[arg(
        short,
        long,
        action = ArgAction::HelpShort,
        long_help = "Print help (see a summary with '-h')",
        display_order = usize::MAX
    )]
    help: Option<bool>,
    /// Show every option: also each planner's ablation and tuning switches.
    #[arg(long, action = ArgAction::HelpLong)]
    help_all: Option<bool>,
    #[command(flatten)]
    pub input_args: InputArgs,
}

/// `memplan check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The problem, CSV or JSON (`-` for stdin).
    pub problem: String,
    /// The plan, CSV or JSON: `id` and `offset` columns (or fields), e.g. the output of
    /// `memplan plan`. With a `memory` column, each buffer is checked in its memory: the
    /// memories of --memories, of the problem's `memories` section, or of `plan --spill`
    /// (`fast` under --capacity, then `slow`).
    pub plan: String,
    /// Also require every buffer to end at or below this address (with a `memory`
    /// column: the fast memory's size, required).
    #[arg(long, allow_negative_numbers = true, value_parser = byte_count)]
    pub capacity: Option<u64>,
    /// The memories of a plan across several memories (as `plan --memories`; a JSON
    /// problem's `memories` section otherwise): each buffer is checked in its memory.
    #[arg(long, value_name = "SPEC", conflicts_with = "capacity")]
    pub memories: Option<String>,
    #[command(flatten)]
    pub input_args: InputArgs,
}

/// `memplan stats`.
#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// The problem, CSV or JSON (`-` for stdin).
    pub input: String,
    /// Also print the load profile as `time,load` lines.
    #[arg(long)]
    pub profile: bool,
    /// The memories (as `plan --memories`; a JSON problem's `memories` section
    /// otherwise): per memory the buffers and traffic it may hold, and whether the
    /// pooled-capacity argument already proves that no plan exists.
    #[arg(long, value_name = "SPEC")]
    pub memories: Option<String>,
    #[command(flatten)]
    pub input_args: InputArgs,
}

/// `memplan bench`.
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The directory to search (recursively) for `*.csv` files.
    pub dir: PathBuf,
    #[command(flatten)]
    pub planning: PlannerArgs,
    /// Plan each file under the capacity in its name (`A.1048576.csv`), as `plan
    /// --capacity` would; without it, minimise the height.
    #[arg(long)]
    pub capacity_from_name: bool,
    /// Print the table of what is proven instead (BENCHMARKS.md, "What is proven"): per
    /// instance the max load, the height, the proven lower bound, the gap between them
    /// and the time.
    #[arg(long)]
    pub proven: bool,
    #[command(flatten)]
    pub input_args: InputArgs,
}

/// `memplan render`.
#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// The problem (CSV or JSON; `-` for stdin), or a `.tflite` model that carries an
    /// offline plan (the output of `memplan tflite`), drawn with its tensors' names.
    pub problem: String,
    /// The plan: any CSV or JSON with `id` and `offset`, e.g. the output of `memplan plan`.
    /// Not given for a `.tflite` model.
    pub plan: Option<String>,
    /// Where to write the SVG (`-` for stdout).
    #[arg(short, long, default_value = "-")]
    pub output: String,
    /// Also draw this capacity line.
    #[arg(long, allow_negative_numbers = true, value_parser = byte_count)]
    pub capacity: Option<u64>,
    /// Picture width in pixels, 200 to 20,000.
    #[arg(long, default_value_t = 1200, value_parser = clap::value_parser!(u32).range(200..=20_000))]
    pub width: u32,
    /// Picture height in pixels, 150 to 20,000.
    #[arg(long, default_value_t = 800, value_parser = clap::value_parser!(u32).range(150..=20_000))]
    pub height: u32,
    /// Draw from this time on (with --to: the window [from, to)).
    #[arg(long)]
    pub from: Option<u64>,
    /// Draw up to this time (exclusive).
    #[arg(long)]
    pub to: Option<u64>,
    /// Outline these buffers (ids, separated by commas) and fade the others.
    #[arg(long, value_delimiter = ',')]
    pub buffers: Vec<String>,
    /// The memories of a plan across several memories (as `plan --memories`; a JSON
    /// problem's `memories` section otherwise): one panel per memory.
    #[arg(long, value_name = "SPEC", conflicts_with = "capacity")]
    pub memories: Option<String>,
    #[command(flatten)]
    pub input_args: InputArgs,
}

/// What `memplan gen` makes.
#[derive(Clone, Copy, Debug, Default, clap::ValueEnum, PartialEq, Eq)]
pub enum GenKind {
    /// A model-like training trace.
    #[default]
    Model,
    /// A dense training trace: `--live` buffers all live at once among `--buffers`, 10⁸+
    /// overlapping pairs at 60,000 buffers, sizes from `--min-size` to `--max-size`.
    Dense,
    /// TelaMalloc §7.1: buffers that never overlap in time (capacity: the largest size).
    NonOverlapping,
    /// TelaMalloc §7.1: buffers all live together (capacity: the sum of the sizes).
    FullOverlap,
}

/// `memplan gen`.
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
    pub kind: GenKind,
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

/// The most buffers `gen` makes: 10 million.
const MAX_BUFFERS: u64 = 10_000_000;
/// The largest on-chip memory of `gen --tiled`: 1 TiB.
const MAX_BYTES: u64 = 1 << 40;
/// The largest buffer of `gen --kind dense`: 64 GiB, so that 10 million of them still
/// add up to less than 2^64 bytes.
const MAX_SIZE: u64 = 1 << 36;

/// `memplan share`.
#[derive(clap::Args, Debug)]
pub struct ShareArgs {
    /// The problem, CSV or JSON (`-` for stdin). Gaps, alignment, fixed offsets and capacity are
    /// ignored: shared objects have no addresses, and a buffer counts as live over its
    /// whole lifetime.
    pub input: String,
    /// Where to write the assignment: `id,object,object_size`, one line per buffer in
    /// input order (`-` for stdout).
    #[arg(short, long, default_value = "-")]
    pub output: String,
    /// Also write the table of objects, `object,size,buffers`, to this file.
    #[arg(long)]
    pub objects: Option<String>,
    /// The strategy: `auto` (run all, keep the smallest total), `size-improved`, `size`,
    /// `breadth` or `naive`.
    #[arg(long, default_value = "auto")]
    pub strategy: String,
    /// Greedy by Size Improved: ask every object for each buffer instead of walking out
    /// to the nearest held lifetimes. Same assignment, slower; for ablation.
    #[arg(long)]
    pub no_nearest_first: bool,
    /// Skip the independent checker (on by default).
    #[arg(long)]
    pub no_check: bool,
    #[command(flatten)]
    pub input_args: InputArgs,
}

/// `memplan check-shared`.
#[derive(clap::Args, Debug)]
pub struct CheckSharedArgs {
    /// The problem, CSV or JSON (`-` for stdin).
    pub problem: String,
    /// The assignment: `id,object,object_size` lines as written by `memplan share`.
    pub assignment: String,
    #[command(flatten)]
    pub input_args: InputArgs,
}

/// `memplan tiles`.
#[derive(clap::Args, Debug)]
pub struct TilesArgs {
    /// The tiled problem, JSON (docs/tiles.md; `-` for stdin).
    pub input: String,
    /// Where to write the plan: `id,offset`, one line per tensor (`-` for stdout).
    #[arg(short, long, default_value = "-")]
    pub output: String,
    /// The order: `auto` (every order, keep the lowest peak), `size`, `lifetime` or `peers`.
    #[arg(long, default_value = "auto")]
    pub order: String,
    /// Move past the first collision found only, as in the paper, instead of past all
    /// collisions of the tensor at once. Same result, more rounds.
    #[arg(long)]
    pub no_jump_past_all: bool,
    /// Never fall back to the whole-tensor plan, even when its peak is lower.
    #[arg(long)]
    pub no_whole_tensor_fallback: bool,
    /// Also plan the same tensors whole (lifetime from first to last use, whole extent)
    /// with the offset planner and with shared objects, and print all three.
    #[arg(long)]
    pub compare: bool,
    /// Skip the chunk-level checker (on by default).
    #[arg(long)]
    pub no_check: bool,
}

/// `memplan check-tiles`.
#[derive(clap::Args, Debug)]
pub struct CheckTilesArgs {
    /// The tiled problem, JSON.
    pub input: String,
    /// The plan: `id,offset` lines as written by `memplan tiles`.
    pub plan: String,
}

/// `memplan tflite`.
#[cfg(feature = "tflite")]
#[derive(clap::Args, Debug)]
pub struct TfliteArgs {
    /// The model (`.tflite`; `-` for stdin).
    pub model: String,
    /// Where to write the planned model (`-` for stdout). Without it (a dry run, with
    /// --report or --summary-json), nothing is written.
    #[arg(short, long, required_unless_present_any = ["report", "summary_json"])]
    pub output: Option<String>,
    /// Print a table of the planned tensors (tensor, name, subgraph, lifetime in TFLM's
    /// steps, bytes, offset) on stdout; without -o nothing is written.
    #[arg(long)]
    pub report: bool,
    /// Replace the offline plan the model already has.
    #[arg(long)]
    pub force: bool,
    /// Fit the planned tensors under this many bytes instead of minimising them.
    #[arg(long, allow_negative_numbers = true, value_parser = head_bytes)]
    pub capacity: Option<u64>,
    /// Leave room for a kernel scratch buffer of BYTES requested by operator OP of
    /// SUBGRAPH (`SUBGRAPH:OP:BYTES`, repeatable), e.g. one an optimised kernel library
    /// requests. The reference kernels' requests are added on their own.
    #[arg(long, value_name = "SUBGRAPH:OP:BYTES", value_parser = parse_scratch)]
    pub scratch: Vec<memplan_tflite::ScratchRequest>,
    /// Leave no room for the scratch requests of TFLM's reference kernels (when the
    /// model runs on other kernels, whose requests --scratch gives).
    #[arg(long)]
    pub no_reference_scratch: bool,
    /// Say nothing about the TFLM version a model of several subgraphs needs (TFLM reads
    /// their offline plans right from tflite-micro e60e8ca, 2023-03-29, on).
    #[arg(long)]
    pub no_version_note: bool,
    /// Let an operator's output take over the storage of an input that dies there (ADD,
    /// MUL, RELU, RELU6, LOGISTIC, TANH, HARD_SWISH, QUANTIZE, RESHAPE), as TFLM's
    /// reference kernels allow; the plan shares only when that lowers the head. Off by
    /// default: other kernel libraries (CMSIS-NN, ESP-NN, Xtensa) were not checked
    /// (docs/tflite-micro.md).
    #[arg(long)]
    pub in_place: bool,
    #[command(flatten)]
    pub planning: PlannerArgs,
    /// Print no summary (errors are still printed).
    #[arg(short, long)]
    pub quiet: bool,
    /// Print the summary as one JSON object on stderr instead of text.
    #[arg(long, conflicts_with = "quiet")]
    pub summary_json: bool,
}

/// A number of bytes (`--capacity`), with a message that says what a negative one is
/// (clap would take `-5` for a flag and suggest `-- -5`).
fn byte_count(text: &str) -> Result<u64, String> {
    text.trim().parse::<u64>().map_err(|_| {
        if text.trim_start().starts_with('-') {
            format!("must be a non-negative number of bytes, got {text}")
        } else {
            format!("must be a number of bytes, got '{text}'")
        }
    })
}

/// `tflite --capacity`: bytes from 1 to TFLM's 32-bit limit.
#[cfg(feature = "tflite")]
fn head_bytes(text: &str) -> Result<u64, String> {
    match byte_count(text)? {
        n @ 1..=0x7fff_ffff => Ok(n),
        n => Err(format!(
            "must be between 1 and 2^31 - 1 bytes (TFLM's offsets are 32-bit), got {n}"
        )),
    }
}

/// `--scratch SUBGRAPH:OP:BYTES`.
#[cfg(feature = "tflite")]
fn parse_scratch(text: &str) -> Result<memplan_tflite::ScratchRequest, String> {
    let parts: Vec<&str> = text.split(':').collect();
    let number = |s: &str| s.trim().parse::<u64>().ok();
    match parts.as_slice() {
        [s, k, b] => match (number(s), number(k), number(b)) {
            (Some(s), Some(k), Some(b)) if b > 0 && b <= i32::MAX as u64 => {
                Ok(memplan_tflite::ScratchRequest {
                    subgraph: s as usize,
                    operator: k as usize,
                    bytes: b,
                })
            }
            _ => Err(format!(
                "'{text}': expected SUBGRAPH:OP:BYTES, with 0 < BYTES < 2^31"
            )),
        },
        _ => Err(format!("'{text}': expected SUBGRAPH:OP:BYTES")),
    }
}
