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
//! ([`Picture::valid`]) and an invalid plan is drawn with a warning in the heading.

use std::collections::HashMap;
use std::fmt::Write as _;

use memplan::{load_profile, Buffer, Problem};

pub mod fmt;
use fmt::{percent, thousands};

/// At most this many buffers get their own rectangle and tooltip.
pub const MAX_DETAILED: usize = 5000;

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
        }
    }
}

const LEFT: f64 = 86.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 46.0;
/// Below the load panel: the time labels, the axis name and the legend.
const BOTTOM: f64 = 62.0;
/// The load panel's height, and the space between it and the plan panel.
const LOAD_H: f64 = 84.0;
const GAP: f64 = 12.0;

/// Maps times and addresses to pixels.
struct Scale {
    t0: f64,
    sx: f64,
    sy: f64,
    plot_w: f64,
    plot_h: f64,
}

impl Scale {
    fn x(&self, t: u64) -> f64 {
        LEFT + (t as f64 - self.t0) * self.sx
    }
    fn y(&self, a: u64) -> f64 {
        TOP + self.plot_h - a as f64 * self.sy
    }
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// `1536` → `1.5 KiB`. Three significant digits at most.
fn human_bytes(v: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut x = v as f64;
    let mut k = 0;
    while x >= 1024.0 && k + 1 < UNITS.len() {
        x /= 1024.0;
        k += 1;
    }
    if k == 0 {
        format!("{v} B")
    } else if x >= 100.0 {
        format!("{x:.0} {}", UNITS[k])
    } else if x >= 10.0 {
        format!("{:.1} {}", x, UNITS[k]).replace(".0 ", " ")
    } else {
        format!("{:.2} {}", x, UNITS[k]).replace(".00 ", " ")
    }
}

/// A "nice" tick step (1, 2 or 5 times a power of ten, at least 1) giving about
/// `target` ticks.
fn nice_step(range: f64, target: f64) -> f64 {
    fine_step(range, target).max(1.0)
}

/// Address ticks in the unit [`human_bytes`] gives `top` (so the axis and the heading
/// agree), at a nice step of 1, 2 or 5 times a power of ten in that unit, fractional when
/// needed: `0 MiB`, `2.5 MiB`, `5 MiB`.
fn address_ticks(top: u64) -> Vec<(u64, String)> {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut k = 0;
    while k + 1 < UNITS.len() && top >> (10 * (k + 1)) >= 1 {
        k += 1;
    }
    let unit = (1u64 << (10 * k)) as f64;
    let step = fine_step(top as f64 / unit, 6.0);
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10()).ceil() as usize
    };
    (0..)
        .map(|n| n as f64 * step)
        .map(|v| ((v * unit).round() as u64, v))
        .take_while(|&(a, _)| a <= top)
        .map(|(a, v)| (a, format!("{v:.decimals$} {}", UNITS[k])))
        .collect()
}

/// Like [`nice_step`], but below 1 too (0.1, 0.2, 0.5, ...), for ticks in a unit.
fn fine_step(range: f64, target: f64) -> f64 {
    let raw = (range / target).max(1e-9);
    let mag = 10f64.powf(raw.log10().floor());
    let m = raw / mag;
    let nice = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

fn colour(i: usize) -> String {
    // Golden-angle hues: neighbours in input order get well-separated colours.
    let hue = (i as f64 * 137.508) % 360.0;
    let light = 58 + (i % 3) as u32 * 8;
    format!("hsl({hue:.0},62%,{light}%)")
}

/// The buffer's tooltip: id, the caller's note, figures, gaps.
fn tooltip(b: &Buffer, offset: u64, note: Option<&str>) -> String {
    let mut t = b.id.clone();
    if let Some(note) = note.filter(|n| !n.is_empty()) {
        t.push('\n');
        t += note;
    }
    let _ = write!(
        t,
        "\nlive [{}, {})\naddresses [{}, {})\nsize {} ({})",
        thousands(b.lifetime.start.get()),
        thousands(b.lifetime.end.get()),
        thousands(offset),
        thousands(offset + b.size.get()),
        thousands(b.size.get()),
        human_bytes(b.size.get())
    );
    if b.alignment.get() > 1 {
        let _ = write!(t, "\nalignment {}", b.alignment);
    }
    if b.fixed_offset.is_some() {
        t += "\nfixed offset";
    }
    if !b.gaps.is_empty() {
        let gaps: Vec<String> = b
            .gaps
            .iter()
            .map(|g| format!("[{}, {})", g.start, g.end))
            .collect();
        let _ = write!(t, "\ngaps {}", gaps.join(" "));
    }
    escape(&t)
}

/// Draws the plan. `offsets` is indexed like the problem's buffers.
pub fn draw(problem: &Problem, offsets: &[u64], pic: &Picture) -> String {
    let bufs = problem.buffers();
    let (w, h) = (pic.width as f64, pic.height as f64);
    let plot_w = w - LEFT - RIGHT;
    let plot_h = (h - TOP - BOTTOM - LOAD_H - GAP).max(20.0);
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
    let max_load = profile.iter().map(|s| s.load.get()).max().unwrap_or(0);
    let capacity = problem.capacity().map(|c| c.get());
    let top = height.max(max_load).max(capacity.unwrap_or(0)).max(1);
    let top_axis = top + top / 25;
    let sc = Scale {
        t0: t0 as f64,
        sx: plot_w / (t1 - t0) as f64,
        sy: plot_h / top_axis as f64,
        plot_w,
        plot_h,
    };

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#f7f7f7" stroke="#999"/>"##
    );
    heading(&mut svg, pic, bufs.len(), height, max_load, (t0, t1));
    address_axis(&mut svg, &sc, top_axis);
    let merged = buffers(&mut svg, &sc, (t0, t1), bufs, offsets, pic);
    level(&mut svg, &sc, max_load, "#222", "6 4", "max load");
    if let Some(c) = capacity {
        level(&mut svg, &sc, c, "#d62728", "8 5", "capacity");
    }
    load_panel(&mut svg, &sc, &profile, (t0, t1), capacity);
    time_axis(&mut svg, &sc, t0, t1);
    legend(
        &mut svg,
        h,
        merged,
        !pic.highlight.is_empty(),
        capacity.is_some(),
    );
    svg.push_str("</svg>\n");
    svg
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

/// The heading: the figures in the address axis's unit, and the exact bytes.
fn heading(svg: &mut String, pic: &Picture, n: usize, height: u64, max_load: u64, t: (u64, u64)) {
    let frag = height.saturating_sub(max_load);
    let mut text = format!(
        "{}: {} · height {} ({} B) · max load {} · fragmentation {} ({})",
        pic.name,
        fmt::count(n as u64, "buffer"),
        human_bytes(height),
        thousands(height),
        human_bytes(max_load),
        human_bytes(frag),
        percent(frag, max_load)
    );
    if height == max_load {
        text += " · optimal";
    }
    if pic.window.is_some() {
        let _ = write!(text, " · time [{}, {})", thousands(t.0), thousands(t.1));
    }
    if !pic.valid {
        text += " · INVALID PLAN (see memplan check)";
    }
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="22" font-size="15" font-weight="bold">{}</text>"#,
        escape(&text)
    );
}

/// A horizontal line across the plan panel at address `a`, labelled at its right end.
fn level(svg: &mut String, sc: &Scale, a: u64, colour: &str, dash: &str, name: &str) {
    let y = sc.y(a);
    let _ = writeln!(
        svg,
        r#"<line x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="1.5" stroke-dasharray="{dash}"><title>{name} {} B</title></line><text x="{:.1}" y="{:.1}" fill="{colour}" text-anchor="end" stroke="white" stroke-width="3" paint-order="stroke">{name} {}</text>"#,
        LEFT + sc.plot_w,
        thousands(a),
        LEFT + sc.plot_w - 4.0,
        y - 4.0,
        human_bytes(a)
    );
}

fn address_axis(svg: &mut String, sc: &Scale, top: u64) {
    for (a, label) in address_ticks(top) {
        let y = sc.y(a);
        let _ = writeln!(
            svg,
            r##"<line x1="{:.1}" x2="{LEFT}" y1="{y:.1}" y2="{y:.1}" stroke="#999"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT - 5.0,
            LEFT - 8.0,
            y + 4.0,
            label
        );
    }
    let _ = writeln!(
        svg,
        r#"<text transform="translate(16,{:.1}) rotate(-90)" text-anchor="middle">address</text>"#,
        TOP + sc.plot_h / 2.0
    );
}

/// Time ticks below the load panel, labelled with separators (`1,000,000`).
fn time_axis(svg: &mut String, sc: &Scale, t0: u64, t1: u64) {
    let bottom = TOP + sc.plot_h + GAP + LOAD_H;
    let step = nice_step((t1 - t0) as f64, 8.0) as u64;
    let first = t0.div_ceil(step) * step;
    for t in (first..=t1).step_by(step as usize) {
        let x = sc.x(t);
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{bottom:.1}" y2="{:.1}" stroke="#999"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            bottom + 5.0,
            bottom + 18.0,
            thousands(t)
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">time</text>"#,
        LEFT + sc.plot_w / 2.0,
        bottom + 33.0
    );
}

/// One rectangle in pixels.
#[derive(Clone, Copy)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

/// Buffer `b` at `offset`: its live segments in the window `[t0, t1)` as pixel
/// rectangles.
fn rects(sc: &Scale, (t0, t1): (u64, u64), b: &Buffer, offset: u64) -> Vec<Rect> {
    let y_top = sc.y(offset + b.size.get());
    let h = b.size.get() as f64 * sc.sy;
    b.live_segments()
        .filter_map(|s| {
            let (lo, hi) = (s.start.get().max(t0), s.end.get().min(t1));
            (lo < hi).then(|| Rect {
                x: sc.x(lo),
                y: y_top,
                w: (hi - lo) as f64 * sc.sx,
                h,
            })
        })
        .collect()
}

/// Draws the buffers live in the window `[t0, t1)`, clipped to it; true when some were
/// merged. Highlighted buffers are drawn one by one, last, outlined; the others fade.
fn buffers(
    svg: &mut String,
    sc: &Scale,
    (t0, t1): (u64, u64),
    bufs: &[Buffer],
    offsets: &[u64],
    pic: &Picture,
) -> bool {
    let visible = |b: &Buffer| b.lifetime.start.get() < t1 && b.lifetime.end.get() > t0;
    let area = |i: usize| {
        let b = &bufs[i];
        let len = b.lifetime.end.get().min(t1) - b.lifetime.start.get().max(t0);
        len as f64 * sc.sx * b.size.get() as f64 * sc.sy
    };
    let highlighted: std::collections::HashSet<&str> =
        pic.highlight.iter().map(String::as_str).collect();
    let lit = |i: usize| highlighted.contains(bufs[i].id.as_str());
    let mut order: Vec<usize> = (0..bufs.len())
        .filter(|&i| visible(&bufs[i]) && !lit(i))
        .collect();
    order.sort_by(|&a, &b| area(b).total_cmp(&area(a)).then(a.cmp(&b)));
    let detailed_count = order
        .iter()
        .take(MAX_DETAILED)
        .take_while(|&&i| area(i) >= 2.0)
        .count();
    let (detailed, merged) = order.split_at(detailed_count);
    let fade = if highlighted.is_empty() {
        ""
    } else {
        r#" opacity="0.35""#
    };
    if !merged.is_empty() {
        let mut grid = Grid::new(sc);
        for &i in merged {
            for r in rects(sc, (t0, t1), &bufs[i], offsets[i]) {
                grid.paint(&r);
            }
        }
        let (path, pieces) = grid.to_path();
        let _ = writeln!(
            svg,
            r##"<path d="{path}" fill="#7f8c9b"{fade}><title>{} smaller buffers, merged ({} shapes): each is too small to draw alone</title></path>"##,
            thousands(merged.len() as u64),
            thousands(pieces as u64)
        );
    }
    // Large buffers: one rectangle each. Then the highlighted ones, on top.
    let mut sorted: Vec<usize> = detailed.to_vec();
    sorted.sort_unstable();
    let lit_ones = (0..bufs.len()).filter(|&i| lit(i) && visible(&bufs[i]));
    for (i, on) in sorted
        .into_iter()
        .map(|i| (i, false))
        .chain(lit_ones.map(|i| (i, true)))
    {
        let rs = rects(sc, (t0, t1), &bufs[i], offsets[i]);
        let note = pic
            .notes
            .as_ref()
            .and_then(|n| n.get(i))
            .map(String::as_str);
        let dim = if on { "" } else { fade };
        one_buffer(svg, i, &bufs[i], offsets[i], note, &rs, on, dim);
    }
    !merged.is_empty()
}

/// Small buffers, painted into a pixel grid over the plot.
struct Grid {
    cells: Vec<bool>,
    w: usize,
    h: usize,
}

impl Grid {
    fn new(sc: &Scale) -> Grid {
        let (w, h) = (sc.plot_w.ceil() as usize, sc.plot_h.ceil() as usize);
        Grid {
            cells: vec![false; w * h],
            w,
            h,
        }
    }

    /// Marks every cell the rectangle touches.
    fn paint(&mut self, r: &Rect) {
        let (gw, gh) = (self.w, self.h);
        let cx0 = ((r.x - LEFT).floor().max(0.0) as usize).min(gw - 1);
        let cx1 = ((r.x + r.w - LEFT).ceil() as usize).clamp(cx0 + 1, gw);
        let cy0 = ((r.y - TOP).floor().max(0.0) as usize).min(gh - 1);
        let cy1 = ((r.y + r.h - TOP).ceil() as usize).clamp(cy0 + 1, gh);
        for row in cy0..cy1 {
            self.cells[row * gw + cx0..row * gw + cx1].fill(true);
        }
    }

    /// The marked cells as one SVG path of rectangles (runs of a row stacked while the
    /// rows below repeat them), and the number of rectangles.
    fn to_path(&self) -> (String, usize) {
        let (gw, gh) = (self.w, self.h);
        let mut path = String::new();
        let mut open: HashMap<(usize, usize), (usize, usize)> = HashMap::new(); // run -> (row0, rows)
        let mut pieces = 0usize;
        for row in 0..=gh {
            let mut runs: Vec<(usize, usize)> = Vec::new();
            if row < gh {
                let cells = &self.cells[row * gw..(row + 1) * gw];
                let mut x = 0;
                while x < gw {
                    if cells[x] {
                        let start = x;
                        while x < gw && cells[x] {
                            x += 1;
                        }
                        runs.push((start, x - start));
                    } else {
                        x += 1;
                    }
                }
            }
            let mut next: HashMap<(usize, usize), (usize, usize)> = HashMap::new();
            for run in runs {
                let (row0, rows) = open.remove(&run).unwrap_or((row, 0));
                next.insert(run, (row0, rows + 1));
            }
            let mut closed: Vec<_> = open.drain().collect();
            closed.sort_unstable();
            for ((x, len), (row0, rows)) in closed {
                let _ = write!(
                    path,
                    "M{} {}h{}v{}h-{}z",
                    LEFT + x as f64,
                    TOP + row0 as f64,
                    len,
                    rows,
                    len
                );
                pieces += 1;
            }
            open = next;
        }
        (path, pieces)
    }
}

/// One large buffer `b` (index `i`, at `offset`): its rectangles `rs` with a tooltip,
/// outlined when highlighted (`on`), its id when it fits; `dim` fades it.
#[allow(clippy::too_many_arguments)]
fn one_buffer(
    svg: &mut String,
    i: usize,
    b: &Buffer,
    offset: u64,
    note: Option<&str>,
    rs: &[Rect],
    on: bool,
    dim: &str,
) {
    let title = tooltip(b, offset, note);
    let stroke = if on {
        r##" stroke="#000" stroke-width="2.5""##
    } else if rs.iter().all(|r| r.w >= 4.0 && r.h >= 4.0) {
        r##" stroke="#333" stroke-width="0.6""##
    } else {
        ""
    };
    let fill = colour(i);
    let _ = write!(
        svg,
        r#"<g fill="{fill}"{stroke}{dim}><title>{title}</title>"#
    );
    for r in rs {
        let _ = write!(
            svg,
            r#"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}"/>"#,
            r.x,
            r.y,
            r.w.max(0.5),
            r.h.max(0.5)
        );
    }
    let widest = rs.iter().copied().fold(None::<Rect>, |best, r| match best {
        Some(b) if b.w >= r.w => Some(b),
        _ => Some(r),
    });
    if let Some(r) = widest {
        let id = &b.id;
        let fits = r.w >= 7.0 * id.chars().count() as f64 + 6.0 && r.h >= 14.0;
        if fits {
            let _ = write!(
                svg,
                r##"<text x="{:.1}" y="{:.1}" fill="#111" stroke="none" font-size="11" text-anchor="middle" dominant-baseline="central">{}</text>"##,
                r.x + r.w / 2.0,
                r.y + r.h / 2.0,
                escape(id)
            );
        }
    }
    svg.push_str("</g>\n");
}

/// The load panel: bytes live at each time as a filled area, reduced to the largest load
/// in each pixel column (so 10^6 buffers stay readable), on its own scale from 0 to the
/// max load in the window (and the capacity, dashed, when it is lower).
fn load_panel(
    svg: &mut String,
    sc: &Scale,
    profile: &[memplan::LoadStep],
    (t0, t1): (u64, u64),
    capacity: Option<u64>,
) {
    let top_y = TOP + sc.plot_h + GAP;
    let cols = sc.plot_w.ceil() as usize;
    let mut colmax = vec![0u64; cols];
    for (k, s) in profile.iter().enumerate() {
        let end = profile.get(k + 1).map_or(t1, |n| n.time.get()).min(t1);
        let start = s.time.get().max(t0);
        if s.load.get() == 0 || start >= end {
            continue;
        }
        let c0 = ((sc.x(start) - LEFT).floor().max(0.0) as usize).min(cols - 1);
        let c1 = ((sc.x(end) - LEFT).ceil() as usize).clamp(c0 + 1, cols);
        for m in &mut colmax[c0..c1] {
            *m = (*m).max(s.load.get());
        }
    }
    let peak = colmax.iter().copied().max().unwrap_or(0).max(1);
    let y = |v: u64| top_y + LOAD_H - v as f64 / peak as f64 * (LOAD_H - 6.0);
    let mut d = format!("M{LEFT} {:.1}V{:.1}", top_y + LOAD_H, y(colmax[0]));
    let mut last = colmax[0];
    for (c, &v) in colmax.iter().enumerate().skip(1) {
        if v != last {
            let _ = write!(d, "H{}V{:.1}", LEFT + c as f64, y(v));
            last = v;
        }
    }
    let _ = write!(d, "H{}V{:.1}Z", LEFT + cols as f64, top_y + LOAD_H);
    let _ = writeln!(
        svg,
        r##"<rect x="{LEFT}" y="{top_y:.1}" width="{:.1}" height="{LOAD_H}" fill="#fbfbfb" stroke="#999"/><path d="{d}" fill="#9ecae1" stroke="#3182bd" stroke-width="1"><title>load: bytes live at each time (the most is the max load, a lower bound on the height)</title></path>"##,
        sc.plot_w
    );
    let _ = writeln!(
        svg,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text><text x="{:.1}" y="{:.1}" text-anchor="end">0</text><text transform="translate(16,{:.1}) rotate(-90)" text-anchor="middle">load</text>"##,
        LEFT - 8.0,
        y(peak) + 4.0,
        human_bytes(peak),
        LEFT - 8.0,
        top_y + LOAD_H,
        top_y + LOAD_H / 2.0
    );
    if let Some(c) = capacity.filter(|&c| c < peak) {
        let cy = y(c);
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" x2="{:.1}" y1="{cy:.1}" y2="{cy:.1}" stroke="#d62728" stroke-width="1.5" stroke-dasharray="8 5"/>"##,
            LEFT + sc.plot_w
        );
    }
}

fn legend(svg: &mut String, h: f64, merged: bool, highlight: bool, capacity: bool) {
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
mod tests {
    use super::*;

    #[test]
    fn stacked_panels_share_one_svg() {
        let p = Problem::new(
            vec![Buffer::new("a", 0, 4, 8), Buffer::new("b", 2, 6, 4)],
            None,
        )
        .unwrap();
        let q = Problem::new(vec![Buffer::new("c", 1, 3, 16)], None).unwrap();
        let mut top = Picture::new(600, 400, "fast memory", true);
        top.span = Some((0, 6));
        let mut bottom = Picture::new(600, 300, "slow memory (spilled)", true);
        bottom.span = Some((0, 6));
        let svg = draw_stacked(&[(&p, &[0, 8], &top), (&q, &[0], &bottom)]);
        assert!(
            svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="700""#)
        );
        assert!(svg.contains(r#"<svg x="0" y="400" "#));
        assert!(
            svg.contains("slow memory (spilled): 1 buffer ·"),
            "issue 27: not \"1 buffers\""
        );
        assert!(!svg.contains("time [0, 6)"), "the span is not a window");
        assert_eq!(svg.matches("<svg ").count(), 3);
        assert_eq!(svg.matches("</svg>").count(), 3);
    }

    #[test]
    fn labels() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1536), "1.50 KiB");
        assert_eq!(human_bytes(1 << 20), "1 MiB");
        assert_eq!(escape("a<b&\"c\""), "a&lt;b&amp;&quot;c&quot;");
        for top in [1u64, 7, 1000, 3 << 20, 1_717_470_720, u64::MAX / 2] {
            let ticks = address_ticks(top);
            assert_eq!(ticks[0].0, 0);
            assert!(ticks.len() >= 2 && ticks.len() <= 13, "{top}: {ticks:?}");
            assert!(ticks.iter().all(|t| t.0 <= top));
        }
        // The axis speaks the heading's unit, in fractions when needed.
        assert_eq!(address_ticks(3 << 20)[1].1, "0.5 MiB");
        assert_eq!(human_bytes(3 << 20), "3 MiB");
        assert_eq!(address_ticks(9_633_792).last().unwrap().1, "8 MiB"); // step 2 MiB
    }
}
