//! Numbers as people read them in the human formats (summary, Markdown, HTML, stderr lines):
//! thousands grouped (`2,156,000`), rates without false precision (`1,628/s`), and names
//! ordered as people count (`suite2` before `suite10`). JSON and CSV never use these: they
//! carry plain numbers for machines.

use std::cmp::Ordering;

/// `n` with its thousands grouped by commas: `2156000` → `2,156,000`.
///
/// ```
/// use gapscore_core::render::numbers::grouped;
/// assert_eq!(grouped(2_156_000u64), "2,156,000");
/// assert_eq!(grouped(999u64), "999");
/// ```
pub fn grouped(n: impl Into<u64>) -> String {
    let digits = n.into().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// [`grouped`] for a `usize` count.
pub fn grouped_usize(n: usize) -> String {
    grouped(u64::try_from(n).unwrap_or(u64::MAX))
}

/// A rate per second as people read it: whole and grouped from 10 up (`1,628`), one decimal
/// below (`2.5`), so a fast run never shows `1628.2765`.
///
/// ```
/// use gapscore_core::render::numbers::rate;
/// assert_eq!(rate(1628.2765), "1,628");
/// assert_eq!(rate(2.46), "2.5");
/// ```
pub fn rate(per_second: f64) -> String {
    if !per_second.is_finite() || per_second < 0.0 {
        return "-".to_owned();
    }
    if per_second < 10.0 {
        return format!("{per_second:.1}");
    }
    // Saturating float-to-int: a rate past u64 is not a case worth a branch.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    grouped(per_second.round() as u64)
}

/// Natural order: runs of digits compare as numbers (`suite2` < `suite10`), the rest byte by
/// byte; equal-looking names (`a01`, `a1`) fall back to plain order so the order is total.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) if p.is_ascii_digit() && q.is_ascii_digit() => {
                let n = x.iter().take_while(|c| c.is_ascii_digit()).count();
                let m = y.iter().take_while(|c| c.is_ascii_digit()).count();
                let (dx, dy) = (trim_zeros(&x[..n]), trim_zeros(&y[..m]));
                let o = dx.len().cmp(&dy.len()).then_with(|| dx.cmp(dy));
                if o != Ordering::Equal {
                    return o;
                }
                x = &x[n..];
                y = &y[m..];
            }
            (Some(p), Some(q)) => {
                if p != q {
                    return p.cmp(q);
                }
                x = &x[1..];
                y = &y[1..];
            }
        }
    }
}

/// The digits without leading zeros.
fn trim_zeros(digits: &[u8]) -> &[u8] {
    let zeros = digits.iter().take_while(|&&c| c == b'0').count();
    &digits[zeros..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_every_three_digits() {
        assert_eq!(grouped(0u64), "0");
        assert_eq!(grouped(1000u64), "1,000");
        assert_eq!(grouped(123_456u64), "123,456");
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn rates_have_sensible_precision() {
        assert_eq!(rate(1628.2765), "1,628");
        assert_eq!(rate(12.4), "12");
        assert_eq!(rate(0.25), "0.2");
        assert_eq!(rate(f64::NAN), "-");
    }

    #[test]
    fn natural_order_counts_digit_runs() {
        let mut names = vec!["suite10", "suite2", "suite1", "suite0", "a", "suite02"];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            ["a", "suite0", "suite1", "suite02", "suite2", "suite10"]
        );
    }
}
