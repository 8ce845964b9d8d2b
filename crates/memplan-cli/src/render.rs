//! `memplan render`: reads a problem and a plan, checks the plan, and draws it with
//! `memplan_render` (the picture is described there).

use std::collections::HashMap;

use memplan::{check_placements, Offset, Problem};
use memplan_render::{draw, Picture};

use crate::files::{read_bytes, write_to};
use crate::{formats, Failure, InputArgs, EXIT_CHECK};

#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// The problem (CSV or JSON; `-` for stdin).
    pub problem: String,
    /// The plan: any CSV or JSON with `id` and `offset`, e.g. the output of `memplan plan`.
    pub plan: String,
    /// Where to write the SVG (`-` for stdout).
    #[arg(short, long, default_value = "-")]
    pub output: String,
    /// Also draw this capacity line.
    #[arg(long)]
    pub capacity: Option<u64>,
    /// Picture width in pixels.
    #[arg(long, default_value_t = 1200)]
    pub width: u32,
    /// Picture height in pixels.
    #[arg(long, default_value_t = 800)]
    pub height: u32,
    #[command(flatten)]
    pub input_args: InputArgs,
}

pub fn render(args: RenderArgs) -> Result<(), Failure> {
    if args.width < 200 || args.height < 150 {
        return Err(Failure::new(2, "--width must be ≥ 200 and --height ≥ 150"));
    }
    let bytes = read_bytes(&args.problem)?;
    let (_, problem) =
        formats::read_problem(&args.problem, &bytes, &args.input_args, args.capacity)?;
    let plan_bytes = read_bytes(&args.plan)?;
    let placements = formats::read_placements(&args.plan, &plan_bytes)?;
    // The checker also matches placements to buffers by id; a bad plan is still drawn
    // when every buffer has exactly one offset, so that overlaps can be seen.
    let checked = check_placements(&problem, &placements);
    let offsets = offsets_by_index(&problem, &placements).ok_or_else(|| {
        let why = checked
            .as_ref()
            .err()
            .map_or(String::new(), |f| f.to_string());
        Failure::new(EXIT_CHECK, format!("{}: cannot draw: {why}", args.plan))
    })?;
    let svg = draw(
        &problem,
        &offsets,
        &Picture {
            width: args.width,
            height: args.height,
            name: std::path::Path::new(&args.problem)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("<stdin>"),
            valid: checked.is_ok(),
        },
    );
    write_to(&args.output, |w| w.write_all(svg.as_bytes()))
}

fn offsets_by_index(problem: &Problem, placements: &[(String, Offset)]) -> Option<Vec<u64>> {
    let index: HashMap<&str, usize> = problem
        .buffers()
        .iter()
        .enumerate()
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
