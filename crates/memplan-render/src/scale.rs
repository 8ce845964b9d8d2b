//! The picture's geometry: margins, the [`Scale`] from times and addresses to pixels,
//! the axes and their ticks, and text (escaped, measured, bytes for people).

use std::fmt::Write as _;

use crate::fmt::thousands;

pub(crate) const LEFT: f64 = 86.0;
pub(crate) const RIGHT: f64 = 20.0;
/// Above the plan panel: the heading's first line. Each further line of a heading that
/// had to wrap (see [`heading_lines`]) adds [`HEADING_LINE`].
pub(crate) const TOP: f64 = 46.0;
/// The heading's font size and the distance between its lines, in pixels.
pub(crate) const HEADING_FONT: f64 = 15.0;
pub(crate) const HEADING_LINE: f64 = 19.0;
/// Below the load panel: the time labels, the axis name and the legend.
pub(crate) const BOTTOM: f64 = 62.0;
/// The load panel's height, and the space between it and the plan panel.
pub(crate) const LOAD_H: f64 = 84.0;
pub(crate) const GAP: f64 = 12.0;

/// Maps times and addresses to pixels.
pub(crate) struct Scale {
    /// The plan panel's top edge: [`TOP`] plus the heading's extra lines.
    pub(crate) top: f64,
    pub(crate) t0: f64,
    pub(crate) sx: f64,
    pub(crate) sy: f64,
    pub(crate) plot_w: f64,
    pub(crate) plot_h: f64,
    /// The address axis's unit ([`unit_of`]), which the heading and the lines' labels use.
    pub(crate) unit: usize,
}

impl Scale {
    pub(crate) fn x(&self, t: u64) -> f64 {
        LEFT + (t as f64 - self.t0) * self.sx
    }
    pub(crate) fn y(&self, a: u64) -> f64 {
        self.top + self.plot_h - a as f64 * self.sy
    }
}

pub(crate) fn escape(s: &str) -> String {
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
pub(crate) fn human_bytes(v: u64) -> String {
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

const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/// The unit (a power of 1,024, as an index into `B`, `KiB`, …) the address axis uses up
/// to `top`: the largest that `top` reaches.
pub(crate) fn unit_of(top: u64) -> usize {
    let mut k = 0;
    while k + 1 < UNITS.len() && top >> (10 * (k + 1)) >= 1 {
        k += 1;
    }
    k
}

/// `v` in the unit `k` of [`unit_of`], with three significant digits at most: the
/// heading's figures in the axis's unit (`0.99 MiB`, not `1015 KiB`, beside an axis in
/// MiB). A figure under a tenth of the unit, too small to read in it, keeps its own
/// ([`human_bytes`]).
pub(crate) fn bytes_in(v: u64, k: usize) -> String {
    if k == 0 || v < (1u64 << (10 * k)) / 10 {
        return human_bytes(v);
    }
    let x = v as f64 / (1u64 << (10 * k)) as f64;
    let digits = match x {
        x if x == 0.0 || x >= 100.0 => 0,
        x if x >= 10.0 => 1,
        _ => 2,
    };
    let text = format!("{x:.digits$}");
    let text = match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => text,
    };
    format!("{text} {}", UNITS[k])
}

/// A "nice" tick step (1, 2 or 5 times a power of ten, at least 1) giving about
/// `target` ticks.
pub(crate) fn nice_step(range: f64, target: f64) -> f64 {
    fine_step(range, target).max(1.0)
}

/// Address ticks in the unit [`human_bytes`] gives `top` (so the axis and the heading
/// agree), at a nice step of 1, 2 or 5 times a power of ten in that unit, fractional when
/// needed: `0 MiB`, `2.5 MiB`, `5 MiB`.
pub(crate) fn address_ticks(top: u64) -> Vec<(u64, String)> {
    let k = unit_of(top);
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
pub(crate) fn fine_step(range: f64, target: f64) -> f64 {
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

/// A generous estimate of a text's width in pixels at `font_size`: 0.6 em a character,
/// more than the average of sans-serif bold digits and lower case (about 0.55 em), so a
/// line measured to fit does fit.
pub(crate) fn text_width(text: &str, font_size: f64) -> f64 {
    text.chars().count() as f64 * 0.6 * font_size
}

/// The label of [`level`]'s line: `NAME SIZE`, in the axis's unit.
pub(crate) fn level_label(sc: &Scale, a: u64, name: &str) -> String {
    format!("{name} {}", bytes_in(a, sc.unit))
}

/// A horizontal line across the plan panel at address `a`, labelled at its right end, or
/// `shift` pixels left of it (to clear another line's label).
pub(crate) fn level(
    svg: &mut String,
    sc: &Scale,
    a: u64,
    (colour, dash): (&str, &str),
    name: &str,
    shift: f64,
) {
    let y = sc.y(a);
    let _ = writeln!(
        svg,
        r##"<line x1="{LEFT}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="1.5" stroke-dasharray="{dash}"><title>{name} {} B</title></line><text class="level" x="{x:.1}" y="{ty:.1}" fill="#ffffff" text-anchor="end" stroke="#ffffff" stroke-width="3">{label}</text><text x="{x:.1}" y="{ty:.1}" fill="{colour}" text-anchor="end">{label}</text>"##,
        LEFT + sc.plot_w,
        thousands(a),
        x = LEFT + sc.plot_w - 4.0 - shift,
        ty = y - 4.0,
        label = level_label(sc, a, name)
    );
}

pub(crate) fn address_axis(svg: &mut String, sc: &Scale, top: u64) {
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
pub(crate) fn time_axis(svg: &mut String, sc: &Scale, t0: u64, t1: u64) {
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
