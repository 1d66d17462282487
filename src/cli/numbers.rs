//! Percentages and byte sizes as the commands print them (counts:
//! [`crate::text::count`]).

/// Formats a percentage with two decimals (`12.35%`), or two significant
/// digits when it is not zero but would show as `0.00%` (`0.0040%`, and
/// below 0.0001% in scientific notation, `1.0e-7%`): an open gap must not
/// read as a closed one.
pub(crate) fn percent(x: f64) -> String {
    if x == 0.0 || x.abs() >= 0.005 {
        return format!("{x:.2}%");
    }
    // Rounded to two significant digits first, so that 9.99e-4 shows as
    // 0.0010, not 0.00100.
    let rounded: f64 = format!("{x:.1e}").parse().unwrap_or(x);
    if rounded.abs() < 1e-4 {
        return format!("{x:.1e}%");
    }
    let decimals = (1 - rounded.abs().log10().floor() as i32).max(0) as usize;
    format!("{rounded:.decimals$}%")
}

/// Formats a byte count as `123456 B (120.6 KiB)`.
pub(crate) fn human_bytes(b: u64) -> String {
    match short_unit(b) {
        Some(scaled) => format!("{b} B ({scaled})"),
        None => format!("{b} B"),
    }
}

/// Formats a byte count in its unit alone: `120.6 KiB` (`512 B` below a
/// KiB), as [`human_bytes`] puts it in parentheses.
pub(crate) fn short_bytes(b: u64) -> String {
    short_unit(b).unwrap_or_else(|| format!("{b} B"))
}

/// `b` in the largest binary unit that keeps it at 1 or more, one
/// decimal (`120.6 KiB`); `None` below a KiB.
fn short_unit(b: u64) -> Option<String> {
    // Up to EiB: a graph's bytes stay below 2^63 (8 EiB).
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if b < 1024 {
        return None;
    }
    let mut x = b as f64;
    let mut unit = "B";
    for u in UNITS {
        if x < 1024.0 {
            break;
        }
        x /= 1024.0;
        unit = u;
    }
    Some(format!("{x:.1} {unit}"))
}

#[cfg(test)]
mod tests {
    use super::human_bytes;

    /// Bytes read in the largest unit that keeps them at 1 or more, up to
    /// EiB (2^63 B read `8192.0 PiB`).
    #[test]
    fn byte_counts_read_in_their_unit() {
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1536 B (1.5 KiB)");
        assert_eq!(human_bytes(1 << 63), "9223372036854775808 B (8.0 EiB)");
        assert_eq!(super::short_bytes(1023), "1023 B");
        assert_eq!(super::short_bytes(1536), "1.5 KiB");
    }
}
