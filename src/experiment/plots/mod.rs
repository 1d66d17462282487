//! The experiment's plots, each drawn as PNG and SVG with plotters.
//!
//! Text is rendered by ab_glyph from DejaVu Sans, registered once at start-up
//! ([`register_font`]), so no system font, fontconfig or freetype is needed.
//! One file per plot: [`reduction`] (peak normalised to the baseline, bars),
//! [`gap`] (CDF of the gap to the best known peak), [`time`] (solve time
//! against graph size, log-log), [`tetris`] (memory over the steps of one graph).
//! What they draw alike around their data (margins, axis text, legend) is in
//! `frame.rs`.

mod frame;
pub mod gap;
pub mod reduction;
pub mod tetris;
pub mod time;

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{FontStyle, RGBAColor};

use super::config::{Config, PlotKind};
use super::records::Profile;
use super::rows::Row;
use super::ExperimentError;

/// The font family every plot uses.
pub const FONT: &str = "sans-serif";

static REGISTER: Once = Once::new();

/// Registers DejaVu Sans as `sans-serif` (idempotent).
pub fn register_font() {
    REGISTER.call_once(|| {
        // The bundled font is a valid TrueType file; a failure would leave
        // plots without text, which the plot tests catch.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
    });
}

/// The colour of the `i`-th solver (stable per solver position in the
/// config): Matplotlib's `tab10`, then the light partners of `tab20`, so
/// that twenty series (`experiments/rules.toml` has fourteen) get twenty
/// colours.
pub fn color(i: usize) -> RGBAColor {
    const COLORS: [(u8, u8, u8); 20] = [
        (31, 119, 180),
        (255, 127, 14),
        (44, 160, 44),
        (214, 39, 40),
        (148, 103, 189),
        (140, 86, 75),
        (227, 119, 194),
        (127, 127, 127),
        (188, 189, 34),
        (23, 190, 207),
        (174, 199, 232),
        (255, 187, 120),
        (152, 223, 138),
        (255, 152, 150),
        (197, 176, 213),
        (196, 156, 148),
        (247, 182, 210),
        (199, 199, 199),
        (219, 219, 141),
        (158, 218, 229),
    ];
    let (r, g, b) = COLORS[i % COLORS.len()];
    RGBAColor(r, g, b, 1.0)
}

/// A drawing error as text.
pub(crate) fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A plot that can be drawn on any plotters backend (PNG and SVG).
pub(crate) trait Draw {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// Draws `plot` into `DIR/STEM.png` and `DIR/STEM.svg`; returns the file names.
pub(crate) fn render(
    dir: &Path,
    stem: &str,
    size: (u32, u32),
    plot: &impl Draw,
) -> Result<Vec<String>, ExperimentError> {
    let files: Vec<String> = IMAGE_EXTENSIONS
        .iter()
        .map(|ext| format!("{stem}.{ext}"))
        .collect();
    for file in &files {
        render_file(&dir.join(file), size, plot)?;
    }
    Ok(files)
}

/// The image formats [`render_file`] writes, by file extension.
pub use super::config::IMAGE_EXTENSIONS;

/// Draws `plot` into `path`, a PNG or SVG file by its extension (any other
/// is an error); an error names `path`. The image is drawn in memory and
/// written whole or not at all ([`crate::output::write_file`]): a full disk
/// or an interrupt leaves the old file, never a cut one.
pub(crate) fn render_file(
    path: &Path,
    size: (u32, u32),
    plot: &impl Draw,
) -> Result<(), ExperimentError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let bytes = match ext.to_ascii_lowercase().as_str() {
        "png" => png_bytes(size, plot),
        "svg" => {
            let mut svg = String::new();
            paint(
                SVGBackend::with_string(&mut svg, size).into_drawing_area(),
                plot,
            )
            .map(|()| svg.into_bytes())
        }
        _ => Err("neither a .png nor an .svg file".to_string()),
    }
    .map_err(|message| ExperimentError::Plot {
        plot: path.display().to_string(),
        message,
    })?;
    crate::output::write_file(path, |w| std::io::Write::write_all(w, &bytes))
        .map_err(|e| ExperimentError::io("write", path, e))
}

/// `plot` as the bytes of a PNG file, encoded as plotters' own
/// `BitMapBackend::new(path, ..)` encodes it.
fn png_bytes(size: (u32, u32), plot: &impl Draw) -> Result<Vec<u8>, String> {
    use image::ImageEncoder as _;
    let mut rgb = vec![0u8; size.0 as usize * size.1 as usize * 3];
    paint(
        BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area(),
        plot,
    )?;
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(&rgb, size.0, size.1, image::ColorType::Rgb8)
        .map_err(|e| e.to_string())?;
    Ok(png)
}

/// Draws `plot` on `root`, a white page, and writes it out.
fn paint<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, plot: &impl Draw) -> Result<(), String> {
    root.fill(&WHITE).map_err(err)?;
    plot.draw(&root)?;
    root.present().map_err(err)
}

/// Draws every plot the config asks for; a plot without data is skipped,
/// and its files from an earlier pass are removed.
pub fn draw_all(
    dir: &Path,
    config: &Config,
    rows: &[Row],
    solvers: &[String],
    profiles: &[Profile],
) -> Result<Vec<String>, ExperimentError> {
    register_font();
    let mut files = Vec::new();
    for kind in &config.plots {
        let title = &config.name;
        let drawn = match kind {
            PlotKind::Reduction => reduction::draw(dir, title, rows, solvers)?,
            PlotKind::Gap => gap::draw(dir, title, rows, solvers)?,
            PlotKind::Time => time::draw(dir, title, rows, solvers)?,
            PlotKind::Tetris => {
                tetris::draw(dir, title, rows, solvers, &config.tetris_solvers, profiles)?
            }
        };
        if drawn.is_empty() {
            kind.remove_files(dir);
        }
        files.extend(drawn);
    }
    Ok(files)
}

/// A unit for a byte range: (divisor, name), the largest that `max` holds
/// twice, so that axis labels keep a few digits up to the 2^63-byte limit
/// of graph sizes (8 EiB: "8192" in PiB, "8" in EiB).
pub fn byte_unit(max: f64) -> (f64, &'static str) {
    const UNITS: [(f64, &str); 7] = [
        (1.0, "B"),
        (1024.0, "KiB"),
        (1048576.0, "MiB"),
        (1073741824.0, "GiB"),
        (1099511627776.0, "TiB"),
        (1125899906842624.0, "PiB"),
        (1152921504606846976.0, "EiB"),
    ];
    UNITS
        .iter()
        .rev()
        .find(|(d, _)| max >= *d * 2.0)
        .copied()
        .unwrap_or(UNITS[0])
}

/// Shortens a label to `max` characters (keeping the end, which differs most).
pub fn shorten(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        s.to_string()
    } else {
        let tail: String = s.chars().skip(n - (max - 1)).collect();
        format!("…{tail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Axis labels stay short (below 2048 in the chosen unit) for every
    /// size up to the 2^63-byte limit; sizes near it read in EiB.
    #[test]
    fn byte_units_keep_labels_short_up_to_the_limit() {
        for k in 0..64 {
            let max = 2f64.powi(k);
            let (div, _) = byte_unit(max);
            assert!(max / div < 2048.0, "2^{k} bytes");
        }
        assert_eq!(byte_unit(2f64.powi(63)).1, "EiB");
        assert_eq!(byte_unit(3.0 * 2f64.powi(30)).1, "GiB");
        assert_eq!(byte_unit(1000.0).1, "B");
    }
}
