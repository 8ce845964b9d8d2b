//! A plan as an SVG picture, for people: the drawing behind `memplan render` and
//! Python's `memplan.render`.
//!
//! Time runs left to right and addresses bottom to top, so each buffer is a rectangle
//! `[start, end) × [offset, offset + size)` (one per live segment when it has gaps).
//! Hovering a rectangle shows its `<title>`: id, lifetime, addresses and size. The load
//! profile (bytes live at each time, the floor no plan can go below) is drawn as a line
//! on the same address scale, and the capacity, when there is one, as a dashed line.
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
}

const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 46.0;
const BOTTOM: f64 = 62.0;

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

/// A "nice" tick step (1, 2 or 5 times a power of ten) giving about `target` ticks.
fn nice_step(range: f64, target: f64) -> f64 {
    let raw = (range / target).max(1.0);
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
    (nice * mag).max(1.0)
}

/// Address ticks: a nice step in the largest binary unit that keeps at least 4 units on
/// the axis; each tick is labelled in that unit (`0 MiB`, `500 MiB`, `1000 MiB`).
fn address_ticks(top: u64) -> Vec<(u64, String)> {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut k = 0;
    while k + 1 < UNITS.len() && top >> (10 * (k + 1)) >= 4 {
        k += 1;
    }
    let unit = 1u64 << (10 * k);
    let step = (nice_step(top as f64 / unit as f64, 6.0) as u64).max(1) * unit;
    (0..)
        .map(|n| n * step)
        .take_while(|&a| a <= top)
        .map(|a| (a, format!("{} {}", a / unit, UNITS[k])))
        .collect()
}

fn colour(i: usize) -> String {
    // Golden-angle hues: neighbours in input order get well-separated colours.
    let hue = (i as f64 * 137.508) % 360.0;
    let light = 58 + (i % 3) as u32 * 8;
    format!("hsl({hue:.0},62%,{light}%)")
}

/// The buffer's tooltip: id, figures, gaps.
fn tooltip(b: &Buffer, offset: u64) -> String {
    let mut t = format!(
        "{}\nlive [{}, {})\naddresses [{}, {})\nsize {} ({})",
        b.id,
        b.lifetime.start,
        b.lifetime.end,
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
    let plot_h = h - TOP - BOTTOM;
    let t0 = bufs
        .iter()
        .map(|b| b.lifetime.start.get())
        .min()
        .unwrap_or(0);
    let t1 = bufs.iter().map(|b| b.lifetime.end.get()).max().unwrap_or(1);
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
        sx: plot_w / (t1 - t0).max(1) as f64,
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

    // Heading.
    let frag = height.saturating_sub(max_load);
    let mut heading = format!(
        "{}: {} buffers · height {} · max load {} · fragmentation {} ({})",
        pic.name,
        thousands(bufs.len() as u64),
        human_bytes(height),
        human_bytes(max_load),
        human_bytes(frag),
        percent(frag, max_load)
    );
    if height == max_load {
        heading += " · optimal";
    }
    if !pic.valid {
        heading += " · INVALID PLAN (see memplan check)";
    }
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="22" font-size="15" font-weight="bold">{}</text>"#,
        escape(&heading)
    );

    axes(&mut svg, &sc, t0, t1, top_axis);
    let merged = buffers(&mut svg, &sc, bufs, offsets);
    load_line(&mut svg, &sc, &profile, t1);
    if let Some(c) = capacity {
        let y = sc.y(c);
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="#d62728" stroke-width="2" stroke-dasharray="8 5"><title>capacity {}</title></line>"##,
            LEFT + plot_w,
            thousands(c)
        );
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" fill="#d62728" text-anchor="end">capacity {}</text>"##,
            LEFT + plot_w - 4.0,
            y - 4.0,
            human_bytes(c)
        );
    }
    legend(&mut svg, h, merged, capacity.is_some());
    svg.push_str("</svg>\n");
    svg
}

fn axes(svg: &mut String, sc: &Scale, t0: u64, t1: u64, top: u64) {
    let bottom = TOP + sc.plot_h;
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
    let step = nice_step((t1 - t0) as f64, 10.0) as u64;
    let first = t0.div_ceil(step) * step;
    for t in (first..=t1).step_by(step as usize) {
        let x = sc.x(t);
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{bottom:.1}" y2="{:.1}" stroke="#999"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{t}</text>"##,
            bottom + 5.0,
            bottom + 18.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">time</text>"#,
        LEFT + sc.plot_w / 2.0,
        bottom + 34.0
    );
    let _ = writeln!(
        svg,
        r#"<text transform="translate(16,{:.1}) rotate(-90)" text-anchor="middle">address</text>"#,
        TOP + sc.plot_h / 2.0
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

/// Draws the buffers; true when some were merged.
fn buffers(svg: &mut String, sc: &Scale, bufs: &[Buffer], offsets: &[u64]) -> bool {
    // Each buffer's live segments as pixel rectangles, and its area on screen.
    let rects = |i: usize| -> Vec<Rect> {
        let b = &bufs[i];
        let y_top = sc.y(offsets[i] + b.size.get());
        let h = b.size.get() as f64 * sc.sy;
        b.live_segments()
            .map(|s| Rect {
                x: sc.x(s.start.get()),
                y: y_top,
                w: s.len() as f64 * sc.sx,
                h,
            })
            .collect()
    };
    let area = |i: usize| {
        let b = &bufs[i];
        b.lifetime.len() as f64 * sc.sx * b.size.get() as f64 * sc.sy
    };
    let mut order: Vec<usize> = (0..bufs.len()).collect();
    order.sort_by(|&a, &b| area(b).total_cmp(&area(a)).then(a.cmp(&b)));
    let detailed_count = order
        .iter()
        .take(MAX_DETAILED)
        .take_while(|&&i| area(i) >= 2.0)
        .count();
    let (detailed, merged) = order.split_at(detailed_count);

    // Small buffers: painted into a pixel grid, merged into rectangles.
    if !merged.is_empty() {
        let gw = sc.plot_w.ceil() as usize;
        let gh = sc.plot_h.ceil() as usize;
        let mut grid = vec![false; gw * gh];
        for &i in merged {
            for r in rects(i) {
                let cx0 = ((r.x - LEFT).floor().max(0.0) as usize).min(gw - 1);
                let cx1 = ((r.x + r.w - LEFT).ceil() as usize).clamp(cx0 + 1, gw);
                let cy0 = ((r.y - TOP).floor().max(0.0) as usize).min(gh - 1);
                let cy1 = ((r.y + r.h - TOP).ceil() as usize).clamp(cy0 + 1, gh);
                for row in cy0..cy1 {
                    grid[row * gw + cx0..row * gw + cx1].fill(true);
                }
            }
        }
        let mut path = String::new();
        let mut open: HashMap<(usize, usize), (usize, usize)> = HashMap::new(); // run -> (row0, rows)
        let mut pieces = 0usize;
        let mut flush =
            |path: &mut String, (x, len): (usize, usize), (row0, rows): (usize, usize)| {
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
            };
        for row in 0..=gh {
            let mut runs: Vec<(usize, usize)> = Vec::new();
            if row < gh {
                let cells = &grid[row * gw..(row + 1) * gw];
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
            for (run, span) in closed {
                flush(&mut path, run, span);
            }
            open = next;
        }
        let _ = writeln!(
            svg,
            r##"<path d="{path}" fill="#7f8c9b"><title>{} smaller buffers, merged ({} shapes): each is too small to draw alone</title></path>"##,
            thousands(merged.len() as u64),
            thousands(pieces as u64)
        );
    }

    // Large buffers: one rectangle each, with a tooltip; their id when it fits.
    let mut sorted: Vec<usize> = detailed.to_vec();
    sorted.sort_unstable();
    for i in sorted {
        let rs = rects(i);
        let title = tooltip(&bufs[i], offsets[i]);
        let stroke = if rs.iter().all(|r| r.w >= 4.0 && r.h >= 4.0) {
            r##" stroke="#333" stroke-width="0.6""##
        } else {
            ""
        };
        let fill = colour(i);
        let _ = write!(svg, r#"<g fill="{fill}"{stroke}><title>{title}</title>"#);
        for r in &rs {
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
            let id = &bufs[i].id;
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
    !merged.is_empty()
}

/// The load profile as a step line, reduced to the largest load in each pixel column.
fn load_line(svg: &mut String, sc: &Scale, profile: &[memplan::LoadStep], t1: u64) {
    let cols = sc.plot_w.ceil() as usize;
    let mut colmax = vec![0u64; cols];
    for (k, s) in profile.iter().enumerate() {
        let end = profile.get(k + 1).map_or(t1, |n| n.time.get());
        if s.load.get() == 0 {
            continue;
        }
        let c0 = ((sc.x(s.time.get()) - LEFT).floor().max(0.0) as usize).min(cols - 1);
        let c1 = ((sc.x(end) - LEFT).ceil() as usize).clamp(c0 + 1, cols);
        for m in &mut colmax[c0..c1] {
            *m = (*m).max(s.load.get());
        }
    }
    let mut d = format!("M{LEFT} {:.1}", sc.y(colmax[0]));
    let mut last = colmax[0];
    for (c, &v) in colmax.iter().enumerate().skip(1) {
        if v != last {
            let _ = write!(d, "H{}V{:.1}", LEFT + c as f64, sc.y(v));
            last = v;
        }
    }
    let _ = write!(d, "H{}", LEFT + cols as f64);
    let _ = writeln!(
        svg,
        r##"<path d="{d}" fill="none" stroke="#111" stroke-width="1.5"><title>load: bytes live at each time (the max load is a lower bound on the height)</title></path>"##
    );
}

fn legend(svg: &mut String, h: f64, merged: bool, capacity: bool) {
    let y = h - 14.0;
    let mut items: Vec<(String, &str)> = vec![
        (
            format!(r##"fill="{}" stroke="#333" stroke-width="0.6""##, colour(1)),
            "buffer (hover for id and figures)",
        ),
        (r##"fill="#7f8c9b""##.to_string(), "small buffers, merged"),
        (
            r##"stroke="#111" stroke-width="1.5""##.to_string(),
            "load (bytes live)",
        ),
    ];
    if !merged {
        items.remove(1);
    }
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
        assert_eq!(address_ticks(3 << 20)[1].1, "1000 KiB");
    }
}
