//! The pictures on small plans.

use super::*;
use crate::marks::hsl_to_rgb;
use crate::scale::{address_ticks, human_bytes};
use memplan::Buffer;

#[test]
fn stacked_panels_share_one_svg() {
    let p = Problem::new(vec![Buffer::new("a", 0, 4, 8), Buffer::new("b", 2, 6, 4)]).unwrap();
    let q = Problem::new(vec![Buffer::new("c", 1, 3, 16)]).unwrap();
    let mut top = Picture::new(600, 400, "fast memory", true);
    top.span = Some((0, 6));
    let mut bottom = Picture::new(600, 300, "slow memory (spilled)", true);
    bottom.span = Some((0, 6));
    let svg = draw_stacked(&[(&p, &[0, 8], &top), (&q, &[0], &bottom)]);
    assert!(svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="700""#));
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
        "fast memory (capacity 1,000,000 B): 2 buffers · height 12 B · max load \
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

/// Issue 49 item 3: the heading's figures are in the axis's unit, a figure too small to
/// read in it in its own, and the exact bytes are not repeated for a figure in bytes.
#[test]
fn issue_49_3_heading_figures_use_the_axis_unit() {
    assert_eq!(crate::scale::bytes_in(1_039_360, 2), "0.99 MiB");
    assert_eq!(crate::scale::bytes_in(3 << 20, 2), "3 MiB");
    assert_eq!(crate::scale::bytes_in(12, 1), "12 B");
    assert_eq!(crate::scale::bytes_in(12, 0), "12 B");
    let p = Problem::new(vec![Buffer::new("a", 0, 2, 1_039_360)]).unwrap();
    let svg = draw(&p, &[0], &Picture::new(1200, 700, "p", true));
    let heading = heading_texts(&svg)[0].1.clone();
    assert!(
        heading.contains("height 0.99 MiB (1,039,360 B)"),
        "{heading}"
    );
    assert!(heading.contains("max load 0.99 MiB"), "{heading}");
    assert!(
        svg.contains(">1 MiB<") || svg.contains(" MiB</text>"),
        "axis in MiB"
    );
    assert!(!heading.contains("KiB"), "{heading}");
}
