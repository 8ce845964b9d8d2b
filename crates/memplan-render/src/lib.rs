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
    /// The capacity the plan was asked to fit under, drawn as a line; `None`: none.
    pub capacity: Option<u64>,
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
        }
    }
}

const LEFT: f64 = 86.0;
const RIGHT: f64 = 20.0;
/// Above the plan panel: the heading's first line. Each further line of a heading that
/// had to wrap (see [`heading_lines`]) adds [`HEADING_LINE`].
const TOP: f64 = 46.0;
/// The heading's font size and the distance between its lines, in pixels.
const HEADING_FONT: f64 = 15.0;
const HEADING_LINE: f64 = 19.0;
/// Below the load panel: the time labels, the axis name and the legend.
const BOTTOM: f64 = 62.0;
/// The load panel's height, and the space between it and the plan panel.
const LOAD_H: f64 = 84.0;
const GAP: f64 = 12.0;

/// Maps times and addresses to pixels.
struct Scale {
    /// The plan panel's top edge: [`TOP`] plus the heading's extra lines.
    top: f64,
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
        self.top + self.plot_h - a as f64 * self.sy
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

/// Buffer `i`'s fill, as `#rrggbb`: renderers outside browsers (cairosvg, some
/// converters) draw `hsl()` black.
fn colour(i: usize) -> String {
    // Golden-angle hues: neighbours in input order get well-separated colours.
    let hue = ((i as f64 * 137.508) % 360.0).round();
    let light = (58 + (i % 3) as u32 * 8) as f64 / 100.0;
    let (r, g, b) = hsl_to_rgb(hue, 0.62, light);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// CSS's `hsl(h, s, l)` (hue in degrees, saturation and lightness in `[0, 1]`) as 8-bit
/// RGB, by the formula of CSS Color 3.
fn hsl_to_rgb(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let byte = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    (byte(r), byte(g), byte(b))
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
    let heading = heading_lines(pic, bufs.len(), height, max_load, (t0, t1));
    let top_y = TOP + HEADING_LINE * (heading.len() - 1) as f64;
    let plot_h = (h - top_y - BOTTOM - LOAD_H - GAP).max(20.0);
    let sc = Scale {
        top: top_y,
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

/// A generous estimate of a text's width in pixels at `font_size`: 0.6 em a character,
/// more than the average of sans-serif bold digits and lower case (about 0.55 em), so a
/// line measured to fit does fit.
fn text_width(text: &str, font_size: f64) -> f64 {
    text.chars().count() as f64 * 0.6 * font_size
}

/// The heading: the figures in the address axis's unit, and the exact bytes, as lines that
/// fit the picture's width (from [`LEFT`] to the right margin). The parts (`NAME: n
/// buffers`, `height …`, `max load …`, …) go on one line while they fit and wrap between
/// parts, never inside one; a part wider than a line alone (a long name) is cut short with
/// `…`. Each line comes with the text it shows in full (a shortened line's tooltip).
fn heading_lines(
    pic: &Picture,
    n: usize,
    height: u64,
    max_load: u64,
    t: (u64, u64),
) -> Vec<(String, String)> {
    let frag = height.saturating_sub(max_load);
    let mut parts = vec![
        format!("{}: {}", pic.name, fmt::count(n as u64, "buffer")),
        format!("height {} ({} B)", human_bytes(height), thousands(height)),
        format!("max load {}", human_bytes(max_load)),
        format!(
            "fragmentation {} ({})",
            human_bytes(frag),
            percent(frag, max_load)
        ),
    ];
    if height == max_load {
        parts.push("optimal".to_string());
    }
    if pic.window.is_some() {
        parts.push(format!("time [{}, {})", thousands(t.0), thousands(t.1)));
    }
    if !pic.valid {
        parts.push("INVALID PLAN (see memplan check)".to_string());
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

/// A horizontal line across the plan panel at address `a`, labelled at its right end.
fn level(svg: &mut String, sc: &Scale, a: u64, colour: &str, dash: &str, name: &str) {
    let y = sc.y(a);
    let _ = writeln!(
        svg,
        r##"<line x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="1.5" stroke-dasharray="{dash}"><title>{name} {} B</title></line><text x="{x:.1}" y="{ty:.1}" fill="#ffffff" text-anchor="end" stroke="#ffffff" stroke-width="3">{name} {label}</text><text x="{x:.1}" y="{ty:.1}" fill="{colour}" text-anchor="end">{name} {label}</text>"##,
        LEFT + sc.plot_w,
        thousands(a),
        x = LEFT + sc.plot_w - 4.0,
        ty = y - 4.0,
        label = human_bytes(a)
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
        sc.top + sc.plot_h / 2.0
    );
}

/// Time ticks below the load panel, labelled with separators (`1,000,000`).
fn time_axis(svg: &mut String, sc: &Scale, t0: u64, t1: u64) {
    let bottom = sc.top + sc.plot_h + GAP + LOAD_H;
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
    /// The plan panel's top edge ([`Scale::top`]).
    top: f64,
    cells: Vec<bool>,
    w: usize,
    h: usize,
}

impl Grid {
    fn new(sc: &Scale) -> Grid {
        let (w, h) = (sc.plot_w.ceil() as usize, sc.plot_h.ceil() as usize);
        Grid {
            top: sc.top,
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
        let cy0 = ((r.y - self.top).floor().max(0.0) as usize).min(gh - 1);
        let cy1 = ((r.y + r.h - self.top).ceil() as usize).clamp(cy0 + 1, gh);
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
                    self.top + row0 as f64,
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
    let top_y = sc.top + sc.plot_h + GAP;
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
mod tests {
    use super::*;

    #[test]
    fn stacked_panels_share_one_svg() {
        let p = Problem::new(vec![Buffer::new("a", 0, 4, 8), Buffer::new("b", 2, 6, 4)]).unwrap();
        let q = Problem::new(vec![Buffer::new("c", 1, 3, 16)]).unwrap();
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

    /// The heading lines of a drawing: the `<text>`s in the heading's font size.
    fn heading_texts(svg: &str) -> Vec<(f64, String)> {
        svg.lines()
            .filter(|l| l.starts_with("<text") && l.contains(r#"font-size="15""#))
            .map(|l| {
                let y: f64 = l
                    .split("y=\"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                let body = l.rsplit_once("</text>").unwrap().0;
                let text = body.rsplit('>').next().unwrap();
                (y, text.replace("&amp;", "&"))
            })
            .collect()
    }

    /// Issue 27 §2: at the default 1,200 px the heading of a spill panel with a window ran
    /// past the right edge. Every line of it must now fit, and the plan panel moves down.
    #[test]
    fn issue_27_long_headings_wrap_inside_the_picture() {
        let p = Problem::new(vec![
            Buffer::new("a", 1000, 1500, 8),
            Buffer::new("b", 1200, 2000, 4),
        ])
        .unwrap();
        let mut pic = Picture::new(1200, 700, "fast memory (capacity 1,000,000 B)", true);
        pic.window = Some((1000, 2000));
        let svg = draw(&p, &[0, 8], &pic);
        let lines = heading_texts(&svg);
        assert!(lines.len() >= 2, "{lines:?}");
        let room = 1200.0 - LEFT - RIGHT;
        for (_, text) in &lines {
            assert!(
                text.chars().count() as f64 * 9.0 <= room,
                "too wide: {text}"
            );
        }
        let all: Vec<&str> = lines.iter().map(|l| l.1.as_str()).collect();
        assert_eq!(
            all.join(" · "),
            "fast memory (capacity 1,000,000 B): 2 buffers · height 12 B (12 B) · max load \
             12 B · fragmentation 0 B (0.00%) · optimal · time [1,000, 2,000)"
        );
        let plot_top = TOP + HEADING_LINE * (lines.len() - 1) as f64;
        assert!(svg.contains(&format!(r#"<rect x="{LEFT}" y="{plot_top}" "#)));
        // A name too long for any line is cut short, and shown whole in a tooltip.
        let name = "n".repeat(300);
        let svg = draw(&p, &[0, 8], &Picture::new(1200, 700, &name, true));
        let lines = heading_texts(&svg);
        assert!(lines[0].1.ends_with('…') && lines[0].1.chars().count() * 9 <= 1094);
        assert!(svg.contains(&format!("<title>{name}: 2 buffers</title>")));
        // A heading that fits stays one line, as before.
        let svg = draw(&p, &[0, 8], &Picture::new(1200, 700, "small.csv", true));
        assert_eq!(heading_texts(&svg).len(), 1);
        assert!(svg.contains(r#"<rect x="86" y="46" "#));
    }

    /// Issue 27 §2: cairosvg and other renderers outside browsers drew `hsl()` fills and
    /// `paint-order` labels black. Every colour is now `#rrggbb` (or `none`).
    #[test]
    fn issue_27_colours_are_hex_for_every_renderer() {
        let bufs = (0..40)
            .map(|i| Buffer::new(format!("b{i}"), i, i + 3, 100))
            .collect();
        let p = Problem::new(bufs).unwrap();
        let offsets: Vec<u64> = (0..40).map(|i| (i % 3) * 100).collect();
        let mut pic = Picture::new(900, 500, "x", true);
        pic.capacity = Some(400);
        pic.highlight = vec!["b3".to_string()];
        let svg = draw(&p, &offsets, &pic);
        assert!(!svg.contains("hsl("), "hsl() colours");
        assert!(!svg.contains("paint-order"));
        for attr in ["fill=\"", "stroke=\""] {
            for value in svg.split(attr).skip(1) {
                let value = value.split('"').next().unwrap();
                let hex = value.len() == 7 || value.len() == 4;
                assert!(
                    value == "none"
                        || (value.starts_with('#')
                            && hex
                            && value[1..].chars().all(|c| c.is_ascii_hexdigit())),
                    "{attr}{value}"
                );
            }
        }
        assert_eq!(hsl_to_rgb(0.0, 1.0, 0.5), (255, 0, 0));
        assert_eq!(hsl_to_rgb(120.0, 1.0, 0.5), (0, 255, 0));
        assert_eq!(hsl_to_rgb(240.0, 1.0, 0.25), (0, 0, 128));
        assert_eq!(hsl_to_rgb(200.0, 0.0, 0.5), (128, 128, 128));
        assert_eq!(colour(0), "#d65151"); // hsl(0,62%,58%)
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
