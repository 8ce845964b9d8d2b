//! A plan as an SVG picture, for people: the drawing behind `memplan render` and
//! Python's `memplan.render`.
//!
//! Two panels share the time axis. In the plan panel, time runs left to right and
//! addresses bottom to top, so each buffer is a rectangle
//! `[start, end) × [offset, offset + size)` (one per live segment when it has gaps). Hovering a rectangle shows its
//! `<title>`: id, the caller's notes (the input's columns), lifetime, addresses and size.
//! A dashed line marks the max load (the floor no plan goes below) and a red one the
//! capacity, when there is one. The load profile (bytes live at each time) gets its own
//! panel below, as a filled area: drawn over the plan it would cross the rectangles and
//! look like a violation.
//!
//! ```text
//!   +-----------------------------------+
//!   |  [buf]  [ buf ]      [buf]        |  addresses (the heading's unit)
//!   |- - - - - - - - - - - - - - - - - -|  max load
//!   |[ buf ][  buf  ][ buf ][   buf   ] |
//!   +-----------------------------------+
//!   |      ____/\____      __           |  load (bytes live)
//!   |_____/          \____/  \_________ |
//!   +-----------------------------------+
//!   0     1,000     2,000     3,000        time
//! ```
//!
//! [`Picture::window`] draws a time window only, and [`Picture::highlight`] outlines the
//! named buffers and fades the others.
//!
//! Large plans stay small: the biggest rectangles (by area on screen, at most
//! [`MAX_DETAILED`]) are drawn one by one; every other rectangle is painted into a
//! pixel grid, and the grid's covered cells are merged into runs and then into
//! rectangles, drawn as one path. The load line is reduced to one value per pixel
//! column (the largest load in it). The file's size is therefore bounded by the picture's
//! size, not by the number of buffers.
//!
//! The drawing does not check the plan; the caller says whether the checker accepted it
//! ([`Picture::valid`]) and what it found ([`Picture::faults`]): an invalid plan is drawn
//! with `INVALID PLAN` and the faults counted in the heading (never `optimal`), each fault
//! hatched red over the times and addresses involved.

use std::fmt::Write as _;

use memplan::{load_profile, Problem};

pub mod fmt;
mod marks;
mod scale;

use fmt::{percent, thousands};
use marks::{buffers, colour, load_panel};
use scale::{
    address_axis, bytes_in, escape, level, level_label, text_width, time_axis, unit_of, Scale,
    BOTTOM, GAP, HEADING_FONT, HEADING_LINE, LEFT, LOAD_H, RIGHT, TOP,
};

/// At most this many buffers get their own rectangle and tooltip.
pub const MAX_DETAILED: usize = 5000;

/// Two level lines closer than this many pixels would draw their labels on each other.
const LABEL_CLEARANCE: f64 = 16.0;

/// What the checker found wrong with a plan, drawn over it: a hatched red region (the
/// times and addresses involved) with the violation as its tooltip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// What kind, for the heading's count: `overlap`, `over the capacity`, ….
    pub kind: &'static str,
    /// The times, `[start, end)`.
    pub times: (u64, u64),
    /// The addresses, `[low, high)`.
    pub addresses: (u64, u64),
    /// The violation, as the checker words it.
    pub title: String,
}

/// What to draw besides the plan.
pub struct Picture<'a> {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Shown in the heading.
    pub name: &'a str,
    /// False when the checker rejects the plan: the heading says so.
    pub valid: bool,
    /// Draw only the times `[from, to)`; `None` draws the whole span.
    pub window: Option<(u64, u64)>,
    /// Ids of buffers to outline (drawn one by one, on top); the others fade.
    pub highlight: Vec<String>,
    /// Extra tooltip lines per buffer, indexed like the problem's buffers (e.g. the
    /// input's columns).
    pub notes: Option<Vec<String>>,
    /// The time axis's span when there is no [`Picture::window`] (default: the problem's
    /// own); panels stacked by [`draw_stacked`] share one. Not shown in the heading.
    pub span: Option<(u64, u64)>,
    /// The capacity the plan was asked to fit under, drawn as a line; `None`: none.
    pub capacity: Option<u64>,
    /// What the checker found wrong (with [`Picture::valid`] false), drawn over the plan
    /// and counted in the heading.
    pub faults: Vec<Fault>,
}

impl<'a> Picture<'a> {
    /// A picture of the whole plan, nothing highlighted, no notes.
    pub fn new(width: u32, height: u32, name: &'a str, valid: bool) -> Picture<'a> {
        Picture {
            width,
            height,
            name,
            valid,
            window: None,
            highlight: Vec::new(),
            notes: None,
            span: None,
            capacity: None,
            faults: Vec::new(),
        }
    }
}

/// Draws the plan. `offsets` is indexed like the problem's buffers.
pub fn draw(problem: &Problem, offsets: &[u64], pic: &Picture) -> String {
    let bufs = problem.buffers();
    let (w, h) = (pic.width as f64, pic.height as f64);
    let plot_w = w - LEFT - RIGHT;
    let (t0, t1) = pic.window.or(pic.span).unwrap_or_else(|| {
        let t0 = bufs
            .iter()
            .map(|b| b.lifetime.start.get())
            .min()
            .unwrap_or(0);
        (
            t0,
            bufs.iter().map(|b| b.lifetime.end.get()).max().unwrap_or(1),
        )
    });
    let t1 = t1.max(t0 + 1);
    let height = bufs
        .iter()
        .zip(offsets)
        .map(|(b, o)| o + b.size.get())
        .max()
        .unwrap_or(0);
    let profile = load_profile(problem);
    // With shares, the max load counts the buffers that may share as one.
    let max_load = if problem.shares().is_empty() {
        profile.iter().map(|s| s.load.get()).max().unwrap_or(0)
    } else {
        memplan::max_load(problem).get()
    };
    let capacity = pic.capacity;
    let top = height.max(max_load).max(capacity.unwrap_or(0)).max(1);
    let top_axis = top + top / 25;
    let figures = (height, max_load, unit_of(top_axis));
    let heading = heading_lines(pic, bufs.len(), figures, (t0, t1));
    let top_y = TOP + HEADING_LINE * (heading.len() - 1) as f64;
    let plot_h = (h - top_y - BOTTOM - LOAD_H - GAP).max(20.0);
    let sc = Scale {
        top: top_y,
        t0: t0 as f64,
        sx: plot_w / (t1 - t0) as f64,
        sy: plot_h / top_axis as f64,
        plot_w,
        plot_h,
        unit: unit_of(top_axis),
    };

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r##"<rect width="{w}" height="{h}" fill="#ffffff"/>"##);
    let _ = writeln!(
        svg,
        r##"<rect x="{LEFT}" y="{top_y}" width="{plot_w}" height="{plot_h}" fill="#f7f7f7" stroke="#999"/>"##
    );
    for (k, (line, full)) in heading.iter().enumerate() {
        let title = if line == full {
            String::new()
        } else {
            format!("<title>{}</title>", escape(full))
        };
        let _ = writeln!(
            svg,
            r#"<text x="{LEFT}" y="{}" font-size="{HEADING_FONT}" font-weight="bold">{title}{}</text>"#,
            22.0 + HEADING_LINE * k as f64,
            escape(line)
        );
    }
    address_axis(&mut svg, &sc, top_axis);
    let merged = buffers(&mut svg, &sc, (t0, t1), bufs, offsets, pic);
    let shared = shares(&mut svg, &sc, problem, offsets);
    level(&mut svg, &sc, max_load, ("#222", "6 4"), "max load", 0.0);
    if let Some(c) = capacity {
        // Lines closer than a label's height: the capacity's label left of the load's.
        let close = (sc.y(c) - sc.y(max_load)).abs() < LABEL_CLEARANCE;
        let shift = match close {
            true => text_width(&level_label(&sc, max_load, "max load"), 12.0) + 8.0,
            false => 0.0,
        };
        level(&mut svg, &sc, c, ("#d62728", "8 5"), "capacity", shift);
    }
    faults(&mut svg, &sc, &pic.faults);
    load_panel(&mut svg, &sc, &profile, (t0, t1), capacity);
    time_axis(&mut svg, &sc, t0, t1);
    legend(
        &mut svg,
        h,
        merged,
        !pic.highlight.is_empty(),
        capacity.is_some(),
        shared,
    );
    svg.push_str("</svg>\n");
    svg
}

/// The shares the plan takes ([`memplan::Share`]): each a dashed outline around the
/// buffer's addresses from its target's start to its own end, the storage they share,
/// titled with the pair. Returns whether any was drawn.
fn shares(svg: &mut String, sc: &Scale, problem: &Problem, offsets: &[u64]) -> bool {
    let bufs = problem.buffers();
    let offs: Vec<memplan::Offset> = offsets.iter().map(|&o| memplan::Offset(o)).collect();
    let taken = problem.taken_shares(&offs, |_| ());
    if taken.is_empty() {
        return false;
    }
    let _ = writeln!(
        svg,
        r##"<g class="shares" fill="none" stroke="#000" stroke-width="1.2" stroke-dasharray="3 2">"##
    );
    for k in taken {
        let s = &problem.shares()[k];
        let (b, t) = problem.share_ends(k);
        let (b, t) = (&bufs[b.index()], &bufs[t.index()]);
        let lo = offsets[problem.share_ends(k).0.index()];
        let hi = lo + b.size.get();
        let (x0, x1) = (
            sc.x(t.lifetime.start.get().min(b.lifetime.start.get())),
            sc.x(b.lifetime.end.get().max(t.lifetime.end.get())),
        );
        let (y0, y1) = (sc.y(hi), sc.y(lo));
        let _ = writeln!(
            svg,
            r#"<rect x="{x0:.2}" y="{y0:.2}" width="{:.2}" height="{:.2}"><title>{}</title></rect>"#,
            (x1 - x0).max(0.5),
            (y1 - y0).max(0.5),
            escape(&format!("share taken: {s}, at [{lo}, {hi})"))
        );
    }
    svg.push_str("</g>\n");
    true
}

/// Several plans drawn one below the other in one SVG, each a full picture of its own
/// (heading, address axis, load panel, time axis): e.g. the two levels of a two-level
/// plan, fast memory above slow memory. Give the panels the same [`Picture::span`] (or
/// window) and width so that their time axes line up.
pub fn draw_stacked(panels: &[(&Problem, &[u64], &Picture)]) -> String {
    let width = panels.iter().map(|p| p.2.width).max().unwrap_or(0);
    let height: u32 = panels.iter().map(|p| p.2.height).sum();
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">"#
    );
    svg.push('\n');
    let mut y = 0u32;
    for (problem, offsets, pic) in panels {
        let one = draw(problem, offsets, pic);
        // The panel as a nested <svg>, moved down by the panels above it.
        svg += &one.replacen("<svg ", &format!(r#"<svg x="0" y="{y}" "#), 1);
        y += pic.height;
    }
    svg.push_str("</svg>\n");
    svg
}

/// The heading: the figures in the address axis's unit, and the exact bytes, as lines that
/// fit the picture's width (from [`LEFT`] to the right margin). The parts (`NAME: n
/// buffers`, `height …`, `max load …`, …) go on one line while they fit and wrap between
/// parts, never inside one; a part wider than a line alone (a long name) is cut short with
/// `…`. Each line comes with the text it shows in full (a shortened line's tooltip).
fn heading_lines(
    pic: &Picture,
    n: usize,
    (height, max_load, unit): (u64, u64, usize),
    t: (u64, u64),
) -> Vec<(String, String)> {
    let frag = height.saturating_sub(max_load);
    let exact = match bytes_in(height, unit).ends_with(" B") {
        true => String::new(),
        false => format!(" ({} B)", thousands(height)),
    };
    let mut parts = vec![
        format!("{}: {}", pic.name, fmt::count(n as u64, "buffer")),
        format!("height {}{exact}", bytes_in(height, unit)),
        format!("max load {}", bytes_in(max_load, unit)),
        format!(
            "fragmentation {} ({})",
            bytes_in(frag, unit),
            percent(frag, max_load)
        ),
    ];
    if height == max_load && pic.valid {
        parts.push("optimal".to_string());
    }
    if pic.window.is_some() {
        parts.push(format!("time [{}, {})", thousands(t.0), thousands(t.1)));
    }
    if !pic.valid {
        parts.push(invalid_part(&pic.faults));
    }
    let room = (pic.width as f64 - LEFT - RIGHT).max(HEADING_FONT * 10.0);
    let fits = |s: &str| text_width(s, HEADING_FONT) <= room;
    let mut lines: Vec<String> = Vec::new();
    for part in parts {
        match lines.last_mut() {
            Some(last) if fits(&format!("{last} · {part}")) => {
                *last += " · ";
                *last += &part;
            }
            _ => lines.push(part),
        }
    }
    lines
        .into_iter()
        .map(|full| {
            if fits(&full) {
                return (full.clone(), full);
            }
            let mut short: String = full.clone();
            while !short.is_empty() && !fits(&format!("{short}…")) {
                short.pop();
            }
            (format!("{}…", short.trim_end()), full)
        })
        .collect()
}

/// `INVALID PLAN: 2 overlaps, 1 over the capacity (see memplan check)`: the faults
/// counted by kind, in the order first seen.
fn invalid_part(faults: &[Fault]) -> String {
    let mut kinds: Vec<(&str, u64)> = Vec::new();
    for f in faults {
        match kinds.iter_mut().find(|(k, _)| *k == f.kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((f.kind, 1)),
        }
    }
    let counted: Vec<String> = kinds
        .iter()
        .map(|&(kind, n)| match (kind, n) {
            ("overlap", n) => fmt::count(n, "overlap"),
            (kind, 1) => format!("1 buffer {kind}"),
            (kind, n) => format!("{} buffers {kind}", thousands(n)),
        })
        .collect();
    match counted.is_empty() {
        true => "INVALID PLAN (see memplan check)".to_string(),
        false => format!("INVALID PLAN: {} (see memplan check)", counted.join(", ")),
    }
}

/// The faults, hatched red over the plan, each titled with its violation.
fn faults(svg: &mut String, sc: &Scale, faults: &[Fault]) {
    if faults.is_empty() {
        return;
    }
    let _ = writeln!(
        svg,
        r##"<defs><pattern id="fault" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" fill="#d62728"/></pattern></defs><g class="faults" fill="url(#fault)" fill-opacity="0.8" stroke="#d62728" stroke-width="2">"##
    );
    for f in faults {
        let (x0, x1) = (sc.x(f.times.0), sc.x(f.times.1));
        let (y0, y1) = (sc.y(f.addresses.1), sc.y(f.addresses.0));
        let _ = writeln!(
            svg,
            r#"<rect x="{x0:.2}" y="{y0:.2}" width="{:.2}" height="{:.2}"><title>{}</title></rect>"#,
            (x1 - x0).max(2.0),
            (y1 - y0).max(2.0),
            escape(&f.title)
        );
    }
    svg.push_str("</g>\n");
}

fn legend(svg: &mut String, h: f64, merged: bool, highlight: bool, capacity: bool, shares: bool) {
    let y = h - 14.0;
    let mut items: Vec<(String, &str)> = vec![(
        format!(r##"fill="{}" stroke="#333" stroke-width="0.6""##, colour(1)),
        "buffer (hover for id and figures)",
    )];
    if merged {
        items.push((r##"fill="#7f8c9b""##.to_string(), "small buffers, merged"));
    }
    if highlight {
        items.push((
            format!(r##"fill="{}" stroke="#000" stroke-width="2.5""##, colour(2)),
            "highlighted",
        ));
    }
    items.push((
        r##"stroke="#222" stroke-width="1.5" stroke-dasharray="6 4""##.to_string(),
        "max load (no plan is lower)",
    ));
    items.push((
        r##"fill="#9ecae1" stroke="#3182bd""##.to_string(),
        "load: bytes live",
    ));
    if capacity {
        items.push((
            r##"stroke="#d62728" stroke-width="2" stroke-dasharray="5 3""##.to_string(),
            "capacity",
        ));
    }
    if shares {
        items.push((
            r##"stroke="#000" stroke-width="1.2" stroke-dasharray="3 2""##.to_string(),
            "share taken (one storage)",
        ));
    }
    let mut x = LEFT;
    for (style, label) in &items {
        if !style.starts_with("stroke") {
            let _ = write!(
                svg,
                r#"<rect x="{x}" y="{}" width="16" height="10" {style}/>"#,
                y - 5.0
            );
        } else {
            let _ = write!(
                svg,
                r#"<line x1="{x}" x2="{}" y1="{y}" y2="{y}" {style}/>"#,
                x + 16.0
            );
        }
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}">{label}</text>"#,
            x + 22.0,
            y + 4.0
        );
        x += 22.0 + 6.5 * label.len() as f64 + 24.0;
    }
}

#[cfg(test)]
mod tests;
