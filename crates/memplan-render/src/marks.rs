//! What the plan panel and the load panel show: the buffers' rectangles (one by one,
//! or merged in a pixel [`Grid`] past [`crate::MAX_DETAILED`]), their colours and
//! tooltips, and the load line.

use std::collections::HashMap;
use std::fmt::Write as _;

use memplan::Buffer;

use crate::fmt::thousands;
use crate::scale::{escape, human_bytes, Scale, GAP, LEFT, LOAD_H};
use crate::{Picture, MAX_DETAILED};

/// Buffer `i`'s fill, as `#rrggbb`: renderers outside browsers (cairosvg, some
/// converters) draw `hsl()` black.
pub(crate) fn colour(i: usize) -> String {
    // Golden-angle hues: neighbours in input order get well-separated colours.
    let hue = ((i as f64 * 137.508) % 360.0).round();
    let light = (58 + (i % 3) as u32 * 8) as f64 / 100.0;
    let (r, g, b) = hsl_to_rgb(hue, 0.62, light);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// CSS's `hsl(h, s, l)` (hue in degrees, saturation and lightness in `[0, 1]`) as 8-bit
/// RGB, by the formula of CSS Color 3.
pub(crate) fn hsl_to_rgb(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
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
pub(crate) fn tooltip(b: &Buffer, offset: u64, note: Option<&str>) -> String {
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

/// One rectangle in pixels.
#[derive(Clone, Copy)]
pub(crate) struct Rect {
    pub(crate) x: f64,
    pub(crate) y: f64,
    pub(crate) w: f64,
    pub(crate) h: f64,
}

/// Buffer `b` at `offset`: its live segments in the window `[t0, t1)` as pixel
/// rectangles.
pub(crate) fn rects(sc: &Scale, (t0, t1): (u64, u64), b: &Buffer, offset: u64) -> Vec<Rect> {
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
pub(crate) fn buffers(
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
            r##"<path d="{path}" fill="#7f8c9b"{fade}><title>{}, merged into {}: {why}</title></path>"##,
            crate::fmt::count(merged.len() as u64, "buffer"),
            crate::fmt::count(pieces as u64, "shape"),
            why = match detailed_count == MAX_DETAILED {
                true => "past the 5,000 largest, or smaller than 2 square pixels each",
                false => "each smaller than 2 square pixels, too small to draw alone",
            }
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
pub(crate) struct Grid {
    /// The plan panel's top edge ([`Scale::top`]).
    pub(crate) top: f64,
    pub(crate) cells: Vec<bool>,
    pub(crate) w: usize,
    pub(crate) h: usize,
}

impl Grid {
    pub(crate) fn new(sc: &Scale) -> Grid {
        let (w, h) = (sc.plot_w.ceil() as usize, sc.plot_h.ceil() as usize);
        Grid {
            top: sc.top,
            cells: vec![false; w * h],
            w,
            h,
        }
    }

    /// Marks every cell the rectangle touches.
    pub(crate) fn paint(&mut self, r: &Rect) {
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
    pub(crate) fn to_path(&self) -> (String, usize) {
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
pub(crate) fn one_buffer(
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
pub(crate) fn load_panel(
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
