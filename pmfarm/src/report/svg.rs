//! Inline SVG charts: no script, no external file, so they render from `file://` and with
//! JavaScript off. Every bar carries a `<title>` with its exact numbers.

use super::escape::escape;
use super::model::PassRate;
use std::fmt::Write;

const LABEL_W: u32 = 190;
const BAR_W: u32 = 420;
const VALUE_W: u32 = 130;
const BAR_H: u32 = 14;
const BAR_GAP: u32 = 3;
const GROUP_GAP: u32 = 12;
const LEGEND_H: u32 = 24;

/// Fill colour per tier (colour-blind-safe blue / orange / purple).
fn tier_colour(tier: &str) -> &'static str {
    match tier {
        "t1" => "#1f6fb2",
        "t2" => "#d9822b",
        "t3" => "#7b4fa0",
        _ => "#666666",
    }
}

/// Grouped horizontal bar chart of pass rates: one group per Max version, one bar per
/// tier. Rows keep the order given (the model sorts them by version, then tier).
pub fn pass_rate_chart(rates: &[PassRate]) -> String {
    let mut groups: Vec<(&str, Vec<&PassRate>)> = Vec::new();
    for r in rates {
        match groups.last_mut() {
            Some((v, rows)) if *v == r.max_version => rows.push(r),
            _ => groups.push((&r.max_version, vec![r])),
        }
    }
    let tiers: std::collections::BTreeSet<&str> = rates.iter().map(|r| r.tier.as_str()).collect();
    let bars: u32 = rates.len() as u32;
    let height = LEGEND_H + bars * (BAR_H + BAR_GAP) + groups.len() as u32 * GROUP_GAP + 20;
    let width = LABEL_W + BAR_W + VALUE_W;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-labelledby="pass-rate-chart-title"><title id="pass-rate-chart-title">Pass rate per Max version and tier</title>"#
    );
    let mut x = LABEL_W;
    for tier in &tiers {
        let _ = write!(
            s,
            r#"<rect x="{x}" y="4" width="12" height="12" fill="{}"/><text x="{}" y="14" class="legend">{}</text>"#,
            tier_colour(tier),
            x + 16,
            escape(tier)
        );
        x += 60;
    }
    // 0 / 50 / 100 % grid lines.
    let top = LEGEND_H;
    let bottom = height - 16;
    for pct in [0u32, 50, 100] {
        let gx = LABEL_W + BAR_W * pct / 100;
        let _ = write!(
            s,
            r##"<line x1="{gx}" y1="{top}" x2="{gx}" y2="{bottom}" stroke="#bbb" stroke-dasharray="2,2"/><text x="{gx}" y="{}" class="axis" text-anchor="middle">{pct}%</text>"##,
            bottom + 12
        );
    }
    let mut y = LEGEND_H;
    for (version, rows) in &groups {
        let group_h = rows.len() as u32 * (BAR_H + BAR_GAP);
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" class="label" text-anchor="end">{}</text>"#,
            LABEL_W - 8,
            y + group_h / 2 + 4,
            escape(version)
        );
        for r in rows {
            let w = (r.rate * BAR_W as f64).round() as u32;
            let pct = r.rate * 100.0;
            let _ = write!(
                s,
                r#"<rect x="{LABEL_W}" y="{y}" width="{w}" height="{BAR_H}" fill="{}"><title>{} {}: {} of {} passed ({pct:.1}%)</title></rect><text x="{}" y="{}" class="value">{} {}/{} ({pct:.1}%)</text>"#,
                tier_colour(&r.tier),
                escape(version),
                escape(&r.tier),
                r.passed,
                r.total,
                LABEL_W + BAR_W + 6,
                y + BAR_H - 3,
                escape(&r.tier),
                r.passed,
                r.total,
            );
            y += BAR_H + BAR_GAP;
        }
        y += GROUP_GAP;
    }
    s.push_str("</svg>");
    s
}

/// Small vertical bar chart of a histogram (e.g. ULP distance → count), bins in the order given.
pub fn histogram(title: &str, bins: &[(String, u64)]) -> String {
    let max = bins.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    let bin_w: u32 = 36;
    let plot_h: u32 = 90;
    let width = bins.len().max(1) as u32 * bin_w + 20;
    let height = plot_h + 40;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart histogram" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img"><title>{}</title>"#,
        escape(title)
    );
    for (i, (label, n)) in bins.iter().enumerate() {
        let h = (*n as f64 / max as f64 * plot_h as f64).round() as u32;
        let x = 10 + i as u32 * bin_w;
        let _ = write!(
            s,
            r##"<rect x="{}" y="{}" width="{}" height="{h}" fill="#1f6fb2"><title>{}: {n}</title></rect><text x="{}" y="{}" class="axis" text-anchor="middle">{}</text><text x="{}" y="{}" class="axis" text-anchor="middle">{n}</text>"##,
            x + 2,
            10 + plot_h - h,
            bin_w - 4,
            escape(label),
            x + bin_w / 2,
            plot_h + 24,
            escape(label),
            x + bin_w / 2,
            plot_h + 36,
        );
    }
    s.push_str("</svg>");
    s
}

/// One point of a trend chart: its label (the run date) and value.
pub struct TrendPoint {
    /// Shown in the point's tooltip.
    pub label: String,
    /// The value; `None` draws no point (the run did not measure it).
    pub value: Option<f64>,
}

/// A small line chart of one headline number across runs, oldest left. `shown` formats a
/// value for the tooltips and the min/max labels. Points without a value leave a gap.
pub fn trend_chart(id: &str, title: &str, points: &[TrendPoint], shown: &dyn Fn(f64) -> String) -> String {
    const W: u32 = 300;
    const H: u32 = 90;
    const PAD: u32 = 14;
    let values: Vec<f64> = points.iter().filter_map(|p| p.value).filter(|v| v.is_finite()).collect();
    let (lo, hi) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let span = if hi > lo { hi - lo } else { 1.0 };
    let step = if points.len() > 1 { f64::from(W - 2 * PAD) / (points.len() - 1) as f64 } else { 0.0 };
    let xy = |i: usize, v: f64| {
        let x = f64::from(PAD) + step * i as f64;
        let y = f64::from(H - PAD) - (v - if hi > lo { lo } else { v - 0.5 }) / span * f64::from(H - 2 * PAD);
        (x, y)
    };
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart trend" id="{}" xmlns="http://www.w3.org/2000/svg" width="{W}" height="{}" viewBox="0 0 {W} {}" role="img"><title>{}</title><text x="2" y="11" class="label">{}</text>"#,
        escape(id),
        H + 14,
        H + 14,
        escape(title),
        escape(title)
    );
    let mut segment: Vec<String> = Vec::new();
    let flush = |segment: &mut Vec<String>, s: &mut String| {
        if segment.len() > 1 {
            let _ = write!(
                s,
                r##"<polyline fill="none" stroke="#1f6fb2" stroke-width="1.5" points="{}"/>"##,
                segment.join(" ")
            );
        }
        segment.clear();
    };
    for (i, p) in points.iter().enumerate() {
        match p.value.filter(|v| v.is_finite()) {
            Some(v) => segment.push({
                let (x, y) = xy(i, v);
                format!("{x:.1},{y:.1}")
            }),
            None => flush(&mut segment, &mut s),
        }
    }
    flush(&mut segment, &mut s);
    for (i, p) in points.iter().enumerate() {
        if let Some(v) = p.value.filter(|v| v.is_finite()) {
            let (x, y) = xy(i, v);
            let _ = write!(
                s,
                r##"<circle class="point" cx="{x:.1}" cy="{y:.1}" r="2.5" fill="#1f6fb2"><title>{}: {}</title></circle>"##,
                escape(&p.label),
                escape(&shown(v))
            );
        }
    }
    if !values.is_empty() {
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" class="axis" text-anchor="end">min {} · max {} · last {}</text>"#,
            W - 2,
            H + 10,
            escape(&shown(lo)),
            escape(&shown(hi)),
            escape(&shown(*values.last().unwrap_or(&lo)))
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bar_per_rate_with_exact_numbers_and_escaped_labels() {
        let rates = vec![
            PassRate::new("Max <9>", "t1", 3, 4),
            PassRate::new("Max <9>", "t2", 0, 4),
            PassRate::new("Max 2016", "t1", 1, 1),
        ];
        let svg = pass_rate_chart(&rates);
        assert_eq!(svg.matches("height=\"14\"").count(), 3, "one bar per rate: {svg}");
        assert!(svg.contains("Max &lt;9&gt; t1: 3 of 4 passed (75.0%)"), "{svg}");
        assert!(svg.contains("width=\"0\""), "a 0% bar is empty: {svg}");
        assert!(!svg.contains("<9>"));
    }

    #[test]
    fn histogram_scales_to_the_largest_bin() {
        let svg = histogram("ULP", &[("0".into(), 10), ("1".into(), 5)]);
        assert!(svg.contains("height=\"90\"") && svg.contains("height=\"45\""), "{svg}");
    }

    #[test]
    fn a_trend_has_one_point_per_measured_run_and_a_gap_for_the_others() {
        let points: Vec<TrendPoint> = [Some(0.5), None, Some(0.75), Some(1.0)]
            .into_iter()
            .enumerate()
            .map(|(i, value)| TrendPoint { label: format!("run {i}"), value })
            .collect();
        let svg = trend_chart("t", "Pass rate", &points, &|v| format!("{:.0}%", v * 100.0));
        assert_eq!(svg.matches("<circle").count(), 3, "{svg}");
        assert_eq!(svg.matches("<polyline").count(), 1, "the first point stands alone: {svg}");
        assert!(svg.contains("run 2: 75%") && svg.contains("last 100%"), "{svg}");
    }
}
